"""Bot seats through the HTTP API: replies in the same request, whole matches, replay, hints."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.engine import apply_move, resign
from service.engine.bots import bot_move
from service.engine.codec import move_from_parts
from service.matches.store import move_log, state_of
from service.storage.db import db
from service.storage.models import Match
from tests.client import auth, play, tokens, view


def _create(client: FlaskClient, level: str, human_seat: int = 0, **body: object) -> dict:
    players: list[dict] = [{"bot": level}, {"bot": level}]
    players[human_seat] = {"name": "alice"}
    r = client.post("/v1/matches", json={"variant": "egyptian-v2", "players": players, **body})
    assert r.status_code == 201, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


@pytest.mark.parametrize("level", ["random", "greedy", "expert"])
def test_a_match_against_each_bot_runs_to_the_end(client: FlaskClient, app: Flask,
                                                   level: str) -> None:
    """Every human POST returns with the bot's reply already on the floor; the match
    finishes; the logged bot moves are exactly what the bot recomputes from the seed."""
    created = _create(client, level, rules={"target_score": 31})
    token = tokens(created)[0]
    assert created["seats"][1] == {"seat": 1, "name": f"{level} bot", "token": None, "open": False}
    state = view(client, created["id"], token)
    while state["status"] == "active":
        assert state["turn"] == 0
        move = state["legal_moves"][-1]
        round_before = state["round"]
        r = play(client, created["id"], token, move["card"], move["capture"])
        assert r.status_code == 201, r.get_json()
        body = r.get_json()
        state = body["state"]
        assert all(p["seat"] == 1 for p in body["replies"])
        if state["status"] == "active":
            # the bot answers at once, unless the move ended a round that the human leads next
            assert body["replies"] or state["round"] > round_before
            assert state["turn"] == 0
    assert state["winner"] in (0, 1)
    with app.app_context():
        match = db.session.query(Match).filter_by(id=created["id"]).one()
        replayed = _replay_checking_bots(match)
        assert replayed == state_of(match)


def _replay_checking_bots(match: Match):  # noqa: ANN202
    """Replay the log; at each bot turn the bot must choose the logged move again."""
    from service.engine import new_match

    start = state_of(match)
    state = new_match(start.rules, start.seed, start.decks)
    bots = {s.seat: s.bot for s in match.seats if s.bot}
    for record in move_log(match):
        if record.kind == "resign":
            state = resign(state, record.seat)
            continue
        move = move_from_parts(record.seat, record.card, record.captured)
        if record.seat in bots:
            again = bot_move(state, record.seat, bots[record.seat])
            assert (again.card, again.capture) == (move.card, move.capture)
        state = apply_move(state, move)
    return state


def test_a_bot_that_leads_plays_in_the_create_request(client: FlaskClient) -> None:
    """With the bot in seat 0 (it leads round 1) the created match already shows its move."""
    created = _create(client, "greedy", human_seat=1)
    assert created["state"]["version"] == 1 and created["state"]["turn"] == 1
    assert created["state"]["last_move"]["seat"] == 0


def test_hint_returns_a_legal_move_of_the_chosen_level(client: FlaskClient) -> None:
    """GET /hint?level=...: the move that bot would play, for the token's seat on its turn."""
    created = _create(client, "random")
    token = tokens(created)[0]
    state = view(client, created["id"], token)
    legal = [(m["card"], sorted(m["capture"])) for m in state["legal_moves"]]
    for level in ("random", "greedy", "expert"):
        r = client.get(f"/v1/matches/{created['id']}/hint?level={level}", headers=auth(token))
        assert r.status_code == 200, r.get_json()
        hint = r.get_json()
        assert hint["level"] == level and (hint["card"], sorted(hint["capture"])) in legal
    r = client.get(f"/v1/matches/{created['id']}/hint")
    assert r.status_code == 401
    r = client.get(f"/v1/matches/{created['id']}/hint?level=godlike", headers=auth(token))
    assert r.status_code == 422 and r.get_json()["errors"][0]["field"] == "level"


def test_a_match_needs_a_human_seat(client: FlaskClient) -> None:
    """All-bot matches are refused (nobody could hold a token)."""
    r = client.post("/v1/matches", json={"players": [{"bot": "random"}, {"bot": "greedy"}]})
    assert r.status_code == 422 and r.get_json()["reason"] == "no_human_seat"


def test_hint_and_resign_errors_are_problems(client: FlaskClient) -> None:
    """A hint off turn is 409 not_your_turn; after the end 409 match_finished; resigning
    with a wrong token is 403 and changes nothing."""
    created = client.post("/v1/matches", json={
        "players": [{"name": "alice"}, {"name": "bob"}]}).get_json()
    toks = tokens(created)
    url = f"/v1/matches/{created['id']}"
    r = client.get(f"{url}/hint", headers=auth(toks[1]))
    assert r.status_code == 409 and r.get_json()["reason"] == "not_your_turn"
    r = client.post(f"{url}/resign", headers=auth("forged"))
    assert r.status_code == 403 and r.get_json()["reason"] == "invalid_token"
    assert view(client, created["id"])["status"] == "active"
    assert client.post(f"{url}/resign", headers=auth(toks[1])).status_code == 200
    r = client.get(f"{url}/hint", headers=auth(toks[0]))
    assert r.status_code == 409 and r.get_json()["reason"] == "match_finished"
    r = client.post(f"{url}/resign", headers=auth(toks[0]))
    assert r.status_code == 409 and r.get_json()["reason"] == "match_finished"


def test_four_player_match_with_three_bots(client: FlaskClient) -> None:
    """egyptian-4p with a human and three bots (partner and opponents): each human move
    comes back with the three bot replies in seat order."""
    r = client.post("/v1/matches", json={"variant": "egyptian-4p", "players": [
        {"name": "alice"}, {"bot": "expert"}, {"bot": "greedy"}, {"bot": "random"}]})
    assert r.status_code == 201, r.get_json()
    created = r.get_json()
    token = tokens(created)[0]
    state = view(client, created["id"], token)
    for _ in range(4):
        move = state["legal_moves"][0]
        body = play(client, created["id"], token, move["card"], move["capture"]).get_json()
        assert [p["seat"] for p in body["replies"]] == [1, 2, 3]
        state = body["state"]
        assert state["turn"] == 0 and len(state["pile_counts"]) == 2
