"""Front-end frictions: why a match ended, catching up on the log, long polls that cannot
hang on the viewer's own turn, non-JSON bodies."""

from __future__ import annotations

import time

from flask.testing import FlaskClient

from tests.client import auth, create, play, play_to_end, tokens, view


def test_views_and_history_say_why_a_match_ended(client: FlaskClient) -> None:
    """end_reason is null while a match goes on, target_score when a side reaches the
    target; history entries carry it and the rounds played."""
    created = create(client, rules={"target_score": 30})
    assert view(client, created["id"])["end_reason"] is None
    final = play_to_end(client, created)
    assert final["end_reason"] == "target_score"
    entry = client.get("/v1/matches").get_json()["matches"][0]
    assert entry["end_reason"] == "target_score" and entry["rounds"] == len(final["rounds"])


def test_the_log_after_a_sequence_number_with_an_etag(client: FlaskClient) -> None:
    """GET /moves?after=SEQ returns only later entries; its ETag gives 304 until the
    next move."""
    created = create(client)
    toks = tokens(created)
    for _ in range(3):
        seat = view(client, created["id"])["turn"]
        move = view(client, created["id"], toks[seat])["legal_moves"][0]
        assert play(client, created["id"], toks[seat], move["card"], move["capture"]).status_code == 201
    url = f"/v1/matches/{created['id']}/moves"
    r = client.get(url + "?after=1")
    assert [m["seq"] for m in r.get_json()["moves"]] == [2, 3]
    etag = r.headers["ETag"]
    assert client.get(url + "?after=1", headers={"If-None-Match": etag}).status_code == 304
    assert client.get(url + "?after=3").get_json()["moves"] == []
    seat = view(client, created["id"])["turn"]
    move = view(client, created["id"], toks[seat])["legal_moves"][0]
    play(client, created["id"], toks[seat], move["card"], move["capture"])
    r = client.get(url + "?after=3", headers={"If-None-Match": etag})
    assert r.status_code == 200 and [m["seq"] for m in r.get_json()["moves"]] == [4]


def test_a_long_poll_never_waits_on_the_viewers_own_turn_or_a_finished_match(
    client: FlaskClient,
) -> None:
    """Long-polling with the ETag of your own move response while it is your turn (the bot
    already replied), or on a finished match, answers at once."""
    created = client.post("/v1/matches", json={
        "players": [{"name": "human"}, {"bot": "greedy"}]}).get_json()
    token = tokens(created)[0]
    move = view(client, created["id"], token)["legal_moves"][0]
    r = play(client, created["id"], token, move["card"], move["capture"])
    etag = r.headers["ETag"]
    assert r.get_json()["state"]["turn"] == 0
    started = time.monotonic()
    r = client.get(f"/v1/matches/{created['id']}?wait=20",
                   headers={**auth(token), "If-None-Match": etag})
    assert r.status_code == 304 and time.monotonic() - started < 2
    client.post(f"/v1/matches/{created['id']}/resign", headers=auth(token))
    finished = client.get(f"/v1/matches/{created['id']}")
    started = time.monotonic()
    r = client.get(f"/v1/matches/{created['id']}?wait=20",
                   headers={"If-None-Match": finished.headers["ETag"]})
    assert r.status_code == 304 and time.monotonic() - started < 2


def test_a_body_that_is_not_json_is_415(client: FlaskClient) -> None:
    """A form or text body gets 415 unsupported_media_type, not a missing-field error."""
    r = client.post("/v1/matches", data="players=a", content_type="application/x-www-form-urlencoded")
    assert r.status_code == 415 and r.get_json()["reason"] == "unsupported_media_type"
    assert r.content_type == "application/problem+json"


def test_house_rule_errors_name_every_bad_key(client: FlaskClient) -> None:
    r = client.post("/v1/matches", json={"players": [{"name": "a"}, {"name": "b"}],
                                         "rules": {"hand_size": 0, "jack": {"sweep": True}}})
    assert r.status_code == 422 and r.get_json()["reason"] == "invalid_rules"
    assert sorted(e["field"] for e in r.get_json()["errors"]) == ["rules.hand_size",
                                                                 "rules.jack.sweep"]
