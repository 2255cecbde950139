"""HTTP helpers for the API tests."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from service.engine import State
from service.matches import store
from service.matches.models import MoveRecord
from service.matches.rows import MatchRow
from service.storage.db import transaction
from service.tenants.models import LOCAL_TENANT

LARGEST_CHOOSE_FLOOR = {"floor_size": 16, "capture": {"mode": "choose", "compulsory": False},
                        "initial_floor": {"return_to_deck": []}}
"""House rules of the costliest position to search: the largest starting floor, under
choose mode with no compulsory capture (about a hundred legal moves)."""


def auth(token: str | None) -> dict[str, str]:
    """The Authorization header of a seat token."""
    return {"Authorization": f"Bearer {token}"} if token else {}


def create(client: FlaskClient, variant: str = "egyptian-v2", players: int = 2,
           **body: Any) -> dict[str, Any]:
    """Create a match; returns the 201 body."""
    body.setdefault("players", [{"name": f"p{i}", "player_id": f"id-{i}"} for i in range(players)])
    r = client.post("/v1/matches", json={"variant": variant, **body})
    assert r.status_code == 201, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def tokens(created: dict[str, Any]) -> dict[int, str]:
    """seat -> token of a create response."""
    return {s["seat"]: s["token"] for s in created["seats"] if s["token"]}


def view(client: FlaskClient, match_id: str, token: str | None = None) -> dict[str, Any]:
    """GET the match as a seat (or spectator)."""
    r = client.get(f"/v1/matches/{match_id}", headers=auth(token))
    assert r.status_code == 200, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def play(client: FlaskClient, match_id: str, token: str, card: str,
         capture: list[str] | None = None, **headers: str) -> TestResponse:
    """POST a move."""
    body: dict[str, Any] = {"card": card}
    if capture is not None:
        body["capture"] = capture
    hdrs = {**auth(token), **{k.replace("_", "-"): v for k, v in headers.items()}}
    return client.post(f"/v1/matches/{match_id}/moves", json=body, headers=hdrs)


def play_to_end(client: FlaskClient, created: dict[str, Any], pick: int = 0,
                on_response: Any = None) -> dict[str, Any]:
    """Play the match to its end, each seat taking its ``pick``-th legal move."""
    match_id = created["id"]
    toks = tokens(created)
    state = view(client, match_id)
    while state["status"] == "active":
        seat = state["turn"]
        mine = view(client, match_id, toks[seat])
        if on_response:
            on_response(seat, mine)
        moves = mine["legal_moves"]
        move = moves[pick % len(moves)]
        r = play(client, match_id, toks[seat], move["card"], move["capture"])
        assert r.status_code == 201, r.get_json()
        if on_response:
            on_response(seat, r.get_json())
        state = r.get_json()["state"]
    return state


def stored(app: Flask, match_id: str, tenant: int = LOCAL_TENANT) -> tuple[MatchRow, State,
                                                                          list[MoveRecord]]:
    """A match as stored: its row, its engine state and its move log."""
    with app.app_context(), transaction():
        match, state = store.read(match_id, tenant)
        return match, state, store.move_log(match.pk)
