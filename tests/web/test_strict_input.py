"""Input read strictly: numbers are JSON integers, times carry their zone and a sane year,
player ids a URL can carry, who the caller is judged before their body."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import jwt
import pytest
from flask.testing import FlaskClient

from tests.client import auth

SOON = (datetime.now(UTC) + timedelta(hours=1)).replace(microsecond=0)


def _tournament(**changed: object) -> dict[str, object]:
    return {"name": "Friday", "system": "swiss", "rounds": 2,
            "starts_at": SOON.isoformat(), "clock": {"move_seconds": 30}, **changed}


@pytest.mark.parametrize("value", ["60", 60.5, True, None])
def test_a_number_is_a_json_integer(client: FlaskClient, value: object) -> None:
    """A token's lifetime, a clock's seconds and a tournament's rounds as a string, a
    fraction or a boolean are 422 naming the field; nothing is made."""
    r = client.post("/v1/players/ali/tokens", json={"ttl_seconds": value})
    assert r.status_code == 422 and r.get_json()["errors"][0]["field"] == "ttl_seconds"
    r = client.post("/v1/matches", json={"players": [{"name": "a"}, {"name": "b"}],
                                         "clock": {"move_seconds": value}})
    assert r.status_code == 422, r.get_json()
    assert "move_seconds" in r.get_json()["errors"][0]["field"]
    r = client.post("/v1/tournaments", json=_tournament(rounds=value))
    assert r.status_code == 422 and r.get_json()["errors"][0]["field"] == "rounds"
    assert client.get("/v1/matches").get_json()["matches"] == []
    assert client.get("/v1/tournaments").get_json()["tournaments"] == []


def test_whole_numbers_written_as_json_integers_pass(client: FlaskClient) -> None:
    assert client.post("/v1/players/ali/tokens", json={"ttl_seconds": 60}).status_code == 201
    assert client.post("/v1/tournaments", json=_tournament()).status_code == 201


@pytest.mark.parametrize(("starts_at", "says"), [
    (SOON.replace(tzinfo=None).isoformat(), "time zone"),
    ("0001-01-01T00:00:00Z", "year"),
    ("0001-01-01T00:00:00+01:00", "year"),  # before the calendar's start in UTC
    ("9999-12-31T23:59:59-01:00", "year"),  # after its end
    ("2026-13-01T00:00:00Z", "datetime"),
], ids=["no zone", "year 1", "before year 1 in UTC", "after 9999 in UTC", "month 13"])
def test_a_time_carries_its_zone_and_a_sane_year(client: FlaskClient, starts_at: str,
                                                 says: str) -> None:
    r = client.post("/v1/tournaments", json=_tournament(starts_at=starts_at))
    assert r.status_code == 422 and r.get_json()["errors"][0]["field"] == "starts_at"
    assert says in str(r.get_json()["errors"][0]["message"])


@pytest.mark.parametrize(("field", "value"), [
    ("until", "9999-12-31T23:59:59-14:00"),  # year 10000 in UTC
    ("until", "9999-12-31T23:59:59.999999-00:01"),
    ("since", "9999-12-31T12:00:00-12:00"),
    ("since", "0001-01-01T00:00:00+14:00"),  # year 0 in UTC
    ("until", "0001-01-01T00:00:00.5+00:01"),
])
def test_a_query_time_the_database_cannot_hold_is_422_naming_it(
        client: FlaskClient, field: str, value: str) -> None:
    """Issue 53, item 4: a time past the calendar's ends in UTC, whatever its zone, is a
    422 naming the field (it was a 500, an OverflowError in the history listing)."""
    r = client.get("/v1/matches", query_string={field: value})
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["errors"][0]["field"] == field
    assert "year 9999" in r.get_json()["errors"][0]["message"]


@pytest.mark.parametrize(("field", "value"), [
    ("until", "9999-12-31T23:59:59Z"), ("until", "9999-12-31T23:59:59+14:00"),
    ("until", "9999-12-31T23:59:59"), ("since", "0001-01-01T00:00:00Z"),
    ("since", "0001-01-01T00:00:00-14:00"), ("since", "0001-01-01T00:00:00"),
])
def test_a_query_time_at_the_calendars_ends_is_read(client: FlaskClient, field: str,
                                                    value: str) -> None:
    made = client.post("/v1/matches", json={"players": [{"name": "a"}, {"name": "b"}]})
    r = client.get("/v1/matches", query_string={field: value})
    assert r.status_code == 200, r.get_json()
    assert [m["id"] for m in r.get_json()["matches"]] == [made.get_json()["id"]]


def test_a_body_time_the_database_cannot_hold_is_422_naming_it(client: FlaskClient) -> None:
    """A suspension's end is read by the same parser as a query's times."""
    r = client.put("/v1/players/ali/suspension", json={
        "reason": "spam", "until": "9999-12-31T23:59:59-14:00"})
    assert r.status_code == 422 and r.get_json()["errors"][0]["field"] == "until"
    r = client.put("/v1/players/ali/suspension", json={
        "reason": "spam", "until": "0001-01-01T00:00:00+14:00"})
    assert r.status_code == 422 and r.get_json()["errors"][0]["field"] == "until"


def test_a_time_with_an_offset_is_read_as_that_moment(client: FlaskClient) -> None:
    cairo = SOON.astimezone(datetime.now().astimezone().tzinfo).isoformat()
    made = client.post("/v1/tournaments", json=_tournament(starts_at=cairo)).get_json()
    assert datetime.fromisoformat(made["starts_at"]) == SOON


@pytest.mark.parametrize("player_id", [".", "..", "%2E", "%2E%2E"])
def test_player_ids_a_url_cannot_carry_are_refused_at_mint(client: FlaskClient,
                                                           player_id: str) -> None:
    r = client.post(f"/v1/players/{player_id}/tokens", json={})
    assert r.status_code in (404, 422), r.get_json()
    assert r.status_code == 404 or r.get_json()["errors"][0]["field"] == "player_id"
    r = client.post("/v1/matches", json={"players": [
        {"name": "a", "player_id": player_id.replace("%2E", ".")}, {"name": "b"}]})
    assert r.status_code == 422
    assert client.post("/v1/players/.../tokens", json={}).status_code == 201


def test_a_bad_player_id_is_told_what_is_wrong(client: FlaskClient) -> None:
    """The error names the bad id (printable, cut short) and says what an id may be."""
    r = client.get("/v1/players/a%20b")
    error = r.get_json()["errors"][0]
    assert r.status_code == 422 and error["field"] == "player_id"
    assert error["message"] == "'a b' is not a player id: 1-128 of A-Z a-z 0-9 . _ : @ -, " \
        "not . or .."


def test_who_the_caller_is_is_judged_before_their_body(client: FlaskClient) -> None:
    """A forged player token with a body that is not one: 401 invalid_player_token, not a
    422 about the body."""
    forged = jwt.encode({"sub": "ali", "iss": "basra", "aud": "local", "iat": 0,
                         "exp": 2**31}, "not the secret of this front end, forged", algorithm="HS256")
    for method, url in (("POST", "/v1/matches/quick"), ("POST", "/v1/matches"),
                        ("POST", "/v1/tournaments/x/join")):
        r = client.open(url, method=method, json={"players": "nonsense"},
                        headers=auth(forged))
        assert r.status_code == 401, (url, r.get_json())
        assert r.get_json()["reason"] == "invalid_player_token"


def test_each_instance_keeps_gunicorns_control_socket_to_itself(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """gunicorn's control socket is one path per user: instances on a host would share
    it, so the config turns it off."""
    import importlib

    # the config makes a metrics folder for a server when none is set: not for this test
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    gunicorn_conf = importlib.import_module("service.gunicorn_conf")
    assert gunicorn_conf.control_socket_disable is True


@pytest.mark.parametrize("value", [0, 1, 0.0, "true", "yes", None])
def test_a_yes_or_no_is_a_json_boolean(client: FlaskClient, value: object) -> None:
    """`rated` as a number, a string or null is 422 naming the field; nothing is made."""
    before = client.get("/v1/matches").get_json()["matches"]
    r = client.post("/v1/matches", json={"players": [{"name": "a"}, {"bot": "greedy"}],
                                         "rated": value})
    assert r.status_code == 422, r.get_json()
    assert "rated" in str(r.get_json())
    assert client.get("/v1/matches").get_json()["matches"] == before
