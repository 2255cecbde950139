"""Whose budget a request spends (service/tenants/limits.py): a player's, a browser
visitor's, the server key's; and the computer's searches billed wherever they run."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask

from service.bots import helpers
from service.engine import load_variant, new_match, new_seed
from service.matches import replies
from service.matches.models import Match
from service.storage.db import db
from service.tenants import limits
from service.tenants.errors import BudgetSpent
from tests.client import auth, tokens
from tests.conftest import api_key, make_app

ORIGIN = "https://play.example"
PEOPLE = {"players": [{"name": "a"}, {"name": "b"}]}


def _limited(backend: str, tmp_path: Path, **settings: object) -> Flask:
    # a server key's budgets as one caller's: these tests spend them to the end
    settings = {"BASRA_LIMIT_CREATES": "3/minute", "BASRA_LIMIT_SERVER_SCALE": 1, **settings}
    return make_app(backend, tmp_path, BASRA_RATE_LIMITS="on", BASRA_API_KEYS="required",
                    BASRA_LIMIT_EXPENSIVE="3/minute", **settings)


def _at(app: Flask, address: str):  # noqa: ANN202
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def test_visitors_spend_their_own_budget_not_the_servers(backend: str,
                                                         tmp_path: Path) -> None:
    """A visitor who spends the browser key's create budget gets 429; another visitor of
    the same page, and the front end's server minting a token, are not held up."""
    app = _limited(backend, tmp_path)
    browser, server = api_key(app, "acme", ORIGIN), api_key(app, "acme")
    flood = _at(app, "192.0.2.1")
    statuses = [flood.post("/v1/matches", json=PEOPLE, headers=browser).status_code
                for _ in range(5)]
    assert statuses == [201, 201, 201, 429, 429]
    assert _at(app, "192.0.2.2").post("/v1/matches", json=PEOPLE,
                                      headers=browser).status_code == 201
    minted = flood.post("/v1/players/ali/tokens", json={}, headers=server)
    assert minted.status_code == 201, minted.get_json()


def test_each_player_spends_their_own_budget(backend: str, tmp_path: Path) -> None:
    """Two players of one front end behind one address (a café's Wi-Fi), each with their
    token: one spending the expensive budget on hints leaves the other's whole; the 429
    names the budget that ran out in its rate-limit headers."""
    app = _limited(backend, tmp_path)
    browser, server = api_key(app, "acme", ORIGIN), api_key(app, "acme")
    client = app.test_client()
    token = {p: client.post(f"/v1/players/{p}/tokens", json={}, headers=server)
             .get_json()["token"] for p in ("ali", "badr")}
    created = client.post("/v1/matches", headers=server, json={"players": [
        {"name": "Ali", "player_id": "ali"}, {"name": "Badr", "player_id": "badr"}]}).get_json()
    url = f"/v1/matches/{created['id']}/hint?level=expert"
    first = created["state"]["turn"]
    mover, other = ("ali", "badr") if first == 0 else ("badr", "ali")
    hints = [client.get(url, headers={**browser, **auth(token[mover])}) for _ in range(4)]
    assert [h.status_code for h in hints] == [200, 200, 200, 429]
    assert hints[3].headers["X-RateLimit-Limit"] == "3"
    # the other player's budget is whole: their hint is refused for the turn, not the budget
    r = client.get(url, headers={**browser, **auth(token[other])})
    assert r.status_code == 409 and r.get_json()["reason"] == "not_your_turn"


def test_a_move_refused_for_the_computers_budget_says_which_budget(
        backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past its match's allowance, a move that would make an expert reply once the
    expensive budget is spent: 429, with X-RateLimit-* of the expensive budget (3 a
    minute), not of the moves' (600)."""
    monkeypatch.setattr(replies, "allowance", lambda rules: 0)  # a match past its allowance
    app = _limited(backend, tmp_path)
    server = api_key(app, "acme")
    client = app.test_client()
    created = client.post("/v1/matches", headers=server, json={
        "players": [{"name": "a"}, {"bot": "expert"}]}).get_json()
    for _ in range(4):
        mine = client.get(f"/v1/matches/{created['id']}",
                          headers={**server, **auth(tokens(created)[0])}).get_json()
        r = client.post(f"/v1/matches/{created['id']}/moves", json=mine["legal_moves"][0],
                        headers={**server, **auth(tokens(created)[0])})
        if r.status_code == 429:
            break
    assert r.status_code == 429 and r.get_json()["reason"] == "rate_limited"
    assert r.headers["X-RateLimit-Limit"] == "3"
    assert r.headers["X-RateLimit-Remaining"] == "0"


def test_experts_that_lead_at_create_spend_the_budget(backend: str, tmp_path: Path) -> None:
    """Three experts ahead of the one person in a 4-player match play at create: three
    units; the next such create is 429 and makes no match, while a match against greedy
    bots is still made."""
    app = _limited(backend, tmp_path, BASRA_LIMIT_CREATES="100/minute")
    server = api_key(app, "acme")
    client = app.test_client()
    body = {"variant": "egyptian-4p",
            "players": [{"bot": "expert"}] * 3 + [{"name": "the person"}]}
    first = client.post("/v1/matches", headers=server, json=body)
    assert first.status_code == 201 and first.get_json()["state"]["turn"] == 3
    second = client.post("/v1/matches", headers=server, json=body)
    assert second.status_code == 429 and second.headers["X-RateLimit-Limit"] == "3"
    with app.app_context():
        assert db.session.query(Match).count() == 1
    greedy = {**body, "players": [{"bot": "greedy"}] * 3 + [{"name": "the person"}]}
    assert client.post("/v1/matches", headers=server, json=greedy).status_code == 201


def test_the_worker_plays_cheaper_once_the_front_end_spent_its_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside a request (the worker playing on after a timeout), searching bots bill the
    front end's server budget; with it spent they play the greedy level, never refuse."""
    app = _limited("sqlite", tmp_path)
    asked: list[str] = []
    real = helpers.decide
    monkeypatch.setattr(helpers, "decide", lambda state, seat, level, owner="": (
        asked.append(level), real(state, seat, level, owner))[1])
    state = new_match(load_variant("egyptian-v2").rules, new_seed(), ())
    with app.app_context():
        replies.bots_play(state, {0: "expert"}, 7, worker=True)
        assert asked == ["expert"]
        limits.charge("expensive", 3, limits.holder(7))
        replies.bots_play(state, {0: "expert"}, 7, worker=True)
        assert asked == ["expert", helpers.FALLBACK]
        with app.test_request_context(), pytest.raises(BudgetSpent):
            limits.charge("expensive", 3)  # a request's caller: its address here
            replies.bots_play(state, {0: "expert"}, 7)
