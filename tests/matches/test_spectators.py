"""Safe spectators: while a match with a spectator delay goes on, a spectator's view and the
public log lag its last plays; the seats see theirs at once; once over, everyone sees all."""

from __future__ import annotations

import json
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.client import auth, play, tokens, view
from tests.conftest import api_key

PLAYERS = [{"name": "ann"}, {"name": "bob"}]


def _play_first(client: FlaskClient, match: str, token: str) -> dict[str, Any]:
    move = view(client, match, token)["legal_moves"][0]
    r = play(client, match, token, move["card"], move["capture"])
    assert r.status_code == 201, r.get_json()
    return r.get_json()["state"]  # type: ignore[no-any-return]


def _browser(keyed: Flask) -> tuple[FlaskClient, dict[str, str]]:
    """A client that sends a browser key of front end ``fe``, and its server key's
    header."""
    server = api_key(keyed, "fe")
    browser = {**api_key(keyed, "fe", "https://fe.example"), "Origin": "https://fe.example"}
    client = keyed.test_client()
    client.environ_base.update({"HTTP_" + k.upper().replace("-", "_"): v
                                for k, v in browser.items()})
    return client, server


def test_a_spectator_sees_nothing_of_a_deal_before_its_delay(keyed: Flask) -> None:
    client, server = _browser(keyed)
    created = client.post("/v1/matches", json={"players": PLAYERS,
                                               "spectator_delay": 3}).get_json()
    match, toks = created["id"], tokens(created)
    dealt = view(client, match)
    seen_by_seats = []
    for seat in (0, 1):
        seen_by_seats.append(_play_first(client, match, toks[seat]))
    watching = view(client, match)
    assert watching["behind"] == 3 and watching["spectator_delay"] == 3
    # the position as dealt: no play, the floor as it was, no hand, no deadline
    assert watching["last_move"] is None and watching["floor"] == dealt["floor"]
    assert watching["hand_counts"] == dealt["hand_counts"] and "hand" not in watching
    assert watching["version"] == dealt["version"] < seen_by_seats[-1]["version"]
    log = client.get(f"/v1/matches/{match}/moves").get_json()
    assert log["moves"] == [] and log["behind"] == 3
    # the seats see their own view at once, and the whole log with their token
    mine = view(client, match, toks[0])
    assert mine["behind"] == 0 and mine["last_move"] == seen_by_seats[-1]["last_move"]
    for asking in (auth(toks[1]), server):  # a seat, or the front end's server
        full = client.get(f"/v1/matches/{match}/moves", headers=asking).get_json()
        assert len(full["moves"]) == 2 and full["behind"] == 0

    seen_by_seats.append(_play_first(client, match, toks[0]))
    seen_by_seats.append(_play_first(client, match, toks[1]))
    watching = view(client, match)  # three plays back: the first play shown, no more
    assert watching["behind"] == 3
    assert watching["last_move"] == seen_by_seats[0]["last_move"]
    assert watching["floor"] == seen_by_seats[0]["floor"]
    log = client.get(f"/v1/matches/{match}/moves?after=1").get_json()
    assert log["moves"] == [] and log["behind"] == 3  # the first play is entry 1

    assert client.post(f"/v1/matches/{match}/resign", headers=auth(toks[0])).status_code == 200
    over = view(client, match)  # over: every play shown
    assert over["behind"] == 0 and over["last_move"] == seen_by_seats[-1]["last_move"]
    assert len(client.get(f"/v1/matches/{match}/moves").get_json()["moves"]) == 5


def test_rated_matches_delay_spectators_by_default_and_the_setting_has_bounds(
        client: FlaskClient) -> None:
    plain = client.post("/v1/matches", json={"players": PLAYERS}).get_json()["state"]
    assert plain["spectator_delay"] == 0 and plain["behind"] == 0
    rated = client.post("/v1/matches", json={"rated": True, "players": [
        {"name": "ann", "player_id": "ann"}, {"name": "bob", "player_id": "bob"}]})
    assert rated.status_code == 201, rated.get_json()
    assert rated.get_json()["state"]["spectator_delay"] == 4
    for bad in (-1, 53, 2.5, "4", True):
        r = client.post("/v1/matches", json={"players": PLAYERS, "spectator_delay": bad})
        assert r.status_code == 422, bad
        assert "spectator_delay" in [e["field"] for e in r.get_json()["errors"]]


def test_a_spectator_stream_lags_the_same(keyed: Flask) -> None:
    client, _ = _browser(keyed)
    created = client.post("/v1/matches", json={"players": PLAYERS,
                                               "spectator_delay": 1}).get_json()
    match, toks = created["id"], tokens(created)
    first = _play_first(client, match, toks[0])
    _play_first(client, match, toks[1])
    r = client.get(f"/v1/matches/{match}/events", buffered=False)
    assert r.status_code == 200
    state = next(c for c in r.response if b"event: state" in c)
    r.close()
    data = json.loads(state.decode().split("data: ", 1)[1])
    assert data["behind"] == 1 and data["last_move"] == first["last_move"]
    assert state.decode().startswith(f"id: {data['version']}\n")
    assert data["version"] < view(client, match, toks[0])["version"]


def test_a_listing_shows_a_delayed_match_as_its_spectators_see_it(keyed: Flask) -> None:
    """Right after a deal ends, a browser key's history lists the match with the scores
    and version of the plays its spectators are shown (the deal's end not among them);
    the front end's server lists it as it is."""
    server = api_key(keyed, "fe")
    browser = {**api_key(keyed, "fe", "https://fe.example"), "Origin": "https://fe.example"}
    client = keyed.test_client()
    client.environ_base.update({"HTTP_" + k.upper().replace("-", "_"): v
                                for k, v in browser.items()})
    created = client.post("/v1/matches", json={"players": PLAYERS,
                                               "spectator_delay": 4}).get_json()
    match, toks = created["id"], tokens(created)
    mine = view(client, match, toks[0])
    while not mine["rounds"]:  # up to the play that ends the first deal
        mine = _play_first(client, match, toks[mine["turn"]])
    assert mine["status"] == "active" and mine["scores"] != [0, 0]
    watching = view(client, match)
    assert watching["behind"] == 4 and watching["scores"] == [0, 0]
    [listed] = client.get("/v1/matches").get_json()["matches"]
    assert listed["scores"] == watching["scores"] and listed["rounds"] == watching["round"]
    assert listed["version"] == mine["version"] - watching["behind"] == watching["version"]
    [live] = client.get("/v1/matches", headers=server).get_json()["matches"]
    assert live["scores"] == mine["scores"] and live["version"] == mine["version"]


def test_a_delayed_view_tells_neither_how_many_plays_nor_when(keyed: Flask) -> None:
    """A spectator's delayed view carries the version of the position it shows (the
    listing's), `behind` the delay whatever was played, and its ETag, 304s and long
    polls move only when what it shows does: no guessed version answers 304."""
    client, server = _browser(keyed)
    created = client.post("/v1/matches", json={"players": PLAYERS,
                                               "spectator_delay": 4}).get_json()
    match, toks = created["id"], tokens(created)
    played = [_play_first(client, match, toks[seat]) for seat in (0, 1, 0)]
    live = played[-1]["version"]
    r = client.get(f"/v1/matches/{match}")
    frozen = r.get_json()
    assert frozen["behind"] == 4 and frozen["version"] < live - 2  # dealt: none shown yet
    assert r.headers["ETag"] == f'"{frozen["version"]}-spectator"'
    # a guess of the match's own version tells nothing: the view, not a 304
    for guess in range(live + 2):
        probe = client.get(f"/v1/matches/{match}",
                           headers={"If-None-Match": f'"{guess}-spectator"'})
        assert probe.status_code == (304 if guess == frozen["version"] else 200), guess
        assert probe.headers["ETag"] == r.headers["ETag"]
    log = client.get(f"/v1/matches/{match}/moves")
    assert log.get_json()["version"] == frozen["version"] and log.get_json()["behind"] == 4
    assert log.headers["ETag"] == f'"{frozen["version"]}-log-4"'
    _play_first(client, match, toks[1])  # the fourth play: still none shown
    held = {"If-None-Match": r.headers["ETag"]}
    assert client.get(f"/v1/matches/{match}", headers=held).status_code == 304
    assert client.get(f"/v1/matches/{match}?wait=0.3", headers=held).status_code == 304
    fifth = _play_first(client, match, toks[0])  # the first play shows now
    moved = client.get(f"/v1/matches/{match}", headers=held).get_json()
    assert moved["last_move"] == played[0]["last_move"] and moved["behind"] == 4
    assert moved["version"] == played[0]["version"] < fifth["version"]
    [listed] = client.get("/v1/matches").get_json()["matches"]
    assert listed["version"] == moved["version"]
    # the seats and the front end's server see it as it is
    assert view(client, match, toks[1])["version"] == fifth["version"]
    as_is = client.get(f"/v1/matches/{match}", headers=server).get_json()
    assert as_is["version"] == fifth["version"] and as_is["behind"] == 0
