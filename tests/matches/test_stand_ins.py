"""A stand-in bot keeps a dropped seat: the front end says so, or the seat's clock runs out
under the ``bot`` timeout; the player is back when they say so with the seat's token."""

from __future__ import annotations

import json
from datetime import timedelta

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, update

from service import worker
from service.matches.models import Match
from service.players.models import PlayerEvent
from service.storage.base import utcnow
from service.storage.db import db
from tests.client import auth, play, tokens, view
from tests.conftest import api_key

PLAYERS = [{"name": "ann"}, {"name": "bob"}]


def _match(client: FlaskClient, **body: object) -> tuple[str, dict[int, str]]:
    r = client.post("/v1/matches", json={"players": PLAYERS, **body})
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"], tokens(r.get_json())


def _first_move(client: FlaskClient, match: str, token: str) -> dict[str, object]:
    move = view(client, match, token)["legal_moves"][0]
    r = play(client, match, token, move["card"], move["capture"])
    assert r.status_code == 201, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def _log(client: FlaskClient, match: str) -> list[dict[str, object]]:
    return client.get(f"/v1/matches/{match}/moves").get_json()["moves"]  # type: ignore[no-any-return]


def test_a_dropped_seat_is_played_by_its_stand_in_for_two_turns_and_handed_back(
        client: FlaskClient) -> None:
    match, toks = _match(client, stand_in="random")
    assert view(client, match)["turn"] == 0
    r = client.post(f"/v1/matches/{match}/seats/1/drop")
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["dropped"] == [1] and r.get_json()["stand_in"] == "random"
    for _ in range(2):  # each of ann's moves is answered by bob's stand-in at once
        answer = _first_move(client, match, toks[0])
        assert [p["seat"] for p in answer["replies"]] == [1]  # type: ignore[index]
        assert answer["state"]["turn"] == 0  # type: ignore[index]
    log = _log(client, match)
    assert [(e["kind"], e["seat"], e["stand_in"]) for e in log] == [
        ("drop", 1, False), ("play", 0, False), ("play", 1, True),
        ("play", 0, False), ("play", 1, True)]
    again = client.post(f"/v1/matches/{match}/seats/1/drop")  # again: nothing more
    assert again.status_code == 200 and again.get_json()["version"] == len(log)

    assert view(client, match, toks[1])["dropped"] == [1]  # a read changes nothing
    r = client.post(f"/v1/matches/{match}/back", headers=auth(toks[1]))  # bob is back
    assert r.status_code == 200 and r.get_json()["dropped"] == []
    assert r.get_json()["seat"] == 1 and "hand" in r.get_json()
    assert _log(client, match)[-1]["kind"] == "back"
    answer = _first_move(client, match, toks[0])
    assert answer["replies"] == [] and answer["state"]["turn"] == 1  # type: ignore[index]


def test_a_seat_dropped_on_its_turn_is_played_at_once(client: FlaskClient) -> None:
    match, toks = _match(client)
    state = client.post(f"/v1/matches/{match}/seats/0/drop").get_json()
    assert state["turn"] == 1 and state["dropped"] == [0]
    assert _log(client, match)[-1] == {**_log(client, match)[-1], "kind": "play", "seat": 0,
                                       "stand_in": True}
    # the seat is hers again only once she says she is back: until then a move is refused
    r = play(client, match, toks[0], "AS")
    assert r.status_code == 409 and r.get_json()["reason"] == "not_your_turn"
    assert view(client, match)["dropped"] == [0]
    assert client.post(f"/v1/matches/{match}/back").status_code == 401
    r = client.post(f"/v1/matches/{match}/back", headers=auth(toks[0]))
    assert r.status_code == 200 and r.get_json()["dropped"] == []


def test_what_the_stand_in_cannot_keep_is_refused_and_changes_nothing(
        client: FlaskClient) -> None:
    match, _ = _match(client)
    assert client.post(f"/v1/matches/{match}/seats/1/drop").status_code == 200
    before = view(client, match)["version"]
    for seat in (0, 2):  # ann is the last seat its player plays; there is no seat 2
        r = client.post(f"/v1/matches/{match}/seats/{seat}/drop")
        assert r.status_code == 409 and r.get_json()["reason"] == "cannot_drop"
    with_bot = client.post("/v1/matches", json={"players": [{"name": "ann"},
                                                            {"bot": "greedy"}]}).get_json()
    r = client.post(f"/v1/matches/{with_bot['id']}/seats/1/drop")
    assert r.status_code == 409 and "bot" in r.get_json()["detail"]
    assert view(client, match)["version"] == before
    r = client.post("/v1/matches", json={"players": PLAYERS, "stand_in": "grandmaster"})
    assert r.status_code == 422
    assert "stand_in" in [e["field"] for e in r.get_json()["errors"]]


def test_the_bot_timeout_drops_the_seat_and_the_last_player_is_autoplayed(
        app: Flask, client: FlaskClient) -> None:
    match, toks = _match(client, clock={"move_seconds": 5, "timeout": "bot"})
    assert view(client, match)["clock"] == {"move_seconds": 5, "timeout": "bot"}
    for _ in range(2):
        with app.app_context():
            db.session.execute(update(Match).where(Match.id == match)
                               .values(deadline=utcnow() - timedelta(seconds=1)))
            db.session.commit()
            assert worker.run_once() == 1
    # ann ran out first: dropped, her stand-in played; bob, the last player, is
    # autoplayed (and ann's stand-in answers)
    log = _log(client, match)
    assert [(e["kind"], e["seat"], e["stand_in"], e["timeout"]) for e in log] == [
        ("drop", 0, False, False), ("play", 0, True, False), ("play", 1, False, True),
        ("play", 0, True, False)]
    state = view(client, match)
    assert state["dropped"] == [0] and state["turn"] == 1
    answer = _first_move(client, match, toks[1])  # bob's move: ann's stand-in answers
    assert [p["seat"] for p in answer["replies"]] == [0]  # type: ignore[index]
    r = client.post(f"/v1/matches/{match}/back", headers=auth(toks[0]))  # ann is back
    assert r.get_json()["dropped"] == [] and r.get_json()["turn"] == 1


def test_a_browser_key_cannot_drop_a_seat(keyed: Flask) -> None:
    server = api_key(keyed, "fe")
    browser = {**api_key(keyed, "fe", "https://fe.example"), "Origin": "https://fe.example"}
    client = keyed.test_client()
    r = client.post("/v1/matches", json={"players": PLAYERS}, headers=server)
    match = r.get_json()["id"]
    r = client.post(f"/v1/matches/{match}/seats/1/drop", headers=browser)
    assert r.status_code == 403, r.get_json()
    r = client.post(f"/v1/matches/{match}/seats/1/drop", headers=server)
    assert r.status_code == 200 and r.get_json()["dropped"] == [1]


def test_a_rated_match_takes_no_stand_in_stronger_than_greedy(client: FlaskClient) -> None:
    players = [{"name": "ann", "player_id": "ann"}, {"name": "bob", "player_id": "bob"}]
    for level in ("intermediate", "expert"):
        r = client.post("/v1/matches", json={"players": players, "rated": True,
                                             "stand_in": level})
        assert r.status_code == 422 and r.get_json()["reason"] == "stand_in_too_strong"
    r = client.post("/v1/matches", json={"players": players, "rated": True, "stand_in": "casual"})
    assert r.status_code == 201 and r.get_json()["state"]["stand_in"] == "casual"
    r = client.post("/v1/matches", json={"players": PLAYERS, "stand_in": "expert"})
    assert r.status_code == 201  # unrated: any level


def test_nobody_keeps_a_seat_of_a_match_that_is_over(client: FlaskClient) -> None:
    match, toks = _match(client)
    assert client.post(f"/v1/matches/{match}/seats/1/drop").get_json()["dropped"] == [1]
    assert client.post(f"/v1/matches/{match}/resign", headers=auth(toks[0])).status_code == 200
    over = view(client, match)
    assert over["status"] == "finished" and over["dropped"] == []


def test_the_players_and_the_front_end_hear_of_a_drop_and_a_return(
        app: Flask, client: FlaskClient) -> None:
    players = [{"name": "ann", "player_id": "ann"}, {"name": "bob", "player_id": "bob"}]
    r = client.post("/v1/matches", json={"players": players})
    match, toks = r.get_json()["id"], tokens(r.get_json())
    assert client.post(f"/v1/matches/{match}/seats/1/drop").status_code == 200
    assert client.post(f"/v1/matches/{match}/back", headers=auth(toks[1])).status_code == 200
    with app.app_context():
        told = db.session.execute(select(PlayerEvent.player_id, PlayerEvent.type,
                                         PlayerEvent.body).where(
            PlayerEvent.type.like("match.seat_%")).order_by(PlayerEvent.pk)).all()
        db.session.remove()
    seen = [(who, kind, json.loads(body)["dropped"], json.loads(body)["seat"])
            for who, kind, body in told]
    assert seen == [("ann", "match.seat_dropped", 1, 0), ("bob", "match.seat_dropped", 1, 1),
                    ("ann", "match.seat_back", 1, 0), ("bob", "match.seat_back", 1, 1)]
