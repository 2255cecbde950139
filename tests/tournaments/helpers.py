"""Helpers of the tournament tests: players, a tournament, the worker's passes, and
matches played out by resignation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from service import worker
from tests.client import auth


def mint(client: FlaskClient, player_id: str, headers: dict[str, str] | None = None) -> str:
    """A player token (the local front end may mint)."""
    r = client.post(f"/v1/players/{player_id}/tokens", headers=headers or {},
                    json={"name": player_id.upper()})
    assert r.status_code == 201, r.get_json()
    return str(r.get_json()["token"])


def create(client: FlaskClient, headers: dict[str, str] | None = None,
           **body: Any) -> dict[str, Any]:
    """A tournament starting now (the worker's next pass starts it)."""
    body.setdefault("name", "Friday Basra")
    body.setdefault("system", "swiss")
    if body["system"] == "swiss":
        body.setdefault("rounds", 3)
    body.setdefault("starts_at", (datetime.now(UTC) - timedelta(seconds=1)).isoformat())
    body.setdefault("clock", {"move_seconds": 60, "timeout": "forfeit"})
    r = client.post("/v1/tournaments", headers=headers or {}, json=body)
    assert r.status_code == 201, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def join(client: FlaskClient, tournament_id: str, token: str) -> dict[str, Any]:
    r = client.post(f"/v1/tournaments/{tournament_id}/join", headers=auth(token), json={})
    assert r.status_code == 200, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def read(client: FlaskClient, tournament_id: str,
         headers: dict[str, str] | None = None) -> dict[str, Any]:
    r = client.get(f"/v1/tournaments/{tournament_id}", headers=headers or {})
    assert r.status_code == 200, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def work(app: Flask, passes: int = 1) -> None:
    """Passes of ``basra worker``."""
    with app.app_context():
        for _ in range(passes):
            worker.run_once()


def resign(client: FlaskClient, match_id: str, token: str) -> None:
    """The token's player resigns the match (their opponent wins)."""
    r = client.post(f"/v1/matches/{match_id}/resign", headers=auth(token))
    assert r.status_code == 200, r.get_json()


def entered(client: FlaskClient, players: list[str], **body: Any) -> tuple[str, dict[str, str]]:
    """A tournament (``body`` as for :func:`create`) that ``players`` joined with their
    tokens: its id and the tokens."""
    tokens = {p: mint(client, p) for p in players}
    tid = str(create(client, **body)["id"])
    for p in players:
        join(client, tid, tokens[p])
    return tid, tokens
