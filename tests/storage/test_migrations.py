"""Migrations that fill in what they add from the rows already kept."""

from __future__ import annotations

import flask_migrate
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from service.players.models import Player
from service.storage import MIGRATIONS
from service.storage.db import db
from tests.client import auth, play_to_end, tokens
from tests.helpers import SHORT, seeded_decks

TOTALS = ("matches", "wins", "losses", "draws", "resigned", "timed_out", "basras",
          "jack_basras", "points")


def _all_totals(app: Flask) -> dict[str, tuple[int, ...]]:
    with app.app_context():
        rows = db.session.execute(select(Player.player_id, *(getattr(Player, name)
                                                             for name in TOTALS))).all()
        db.session.remove()
    return {player_id: tuple(figures) for player_id, *figures in rows}


def test_0011_fills_in_the_totals_the_finished_matches_already_add_up_to(
        app: Flask, client: FlaskClient) -> None:
    """Totals counted live, then dropped (down to 0010) and filled in again from the
    matches by upgrading: the same figures."""
    four = client.post("/v1/matches", json={
        "variant": "egyptian-4p", "rules": SHORT, "decks": seeded_decks(),
        "players": [{"name": p, "player_id": p} for p in ("a0", "b1", "a2", "b3")]}).get_json()
    play_to_end(client, four)
    two = client.post("/v1/matches", json={"players": [
        {"name": "a0", "player_id": "a0"}, {"name": "Guest"}]}).get_json()
    assert client.post(f"/v1/matches/{two['id']}/resign",
                       headers=auth(tokens(two)[0])).status_code == 200
    live = _all_totals(app)
    assert live["a0"][0] == 2 and sum(sum(t[6:8]) for t in live.values()) > 0
    with app.app_context():
        flask_migrate.downgrade(directory=MIGRATIONS, revision="0010")
        flask_migrate.upgrade(directory=MIGRATIONS)
    assert _all_totals(app) == live


def test_0013_gives_tournament_games_the_result_of_their_ended_match(
        app: Flask, client: FlaskClient) -> None:
    """Games whose match ended while results were the worker's to record (before 0013) get
    the result their match has, as the worker would have given it."""
    from sqlalchemy import update

    from service.tournaments.models import Pairing
    from tests.tournaments.helpers import create as create_tournament
    from tests.tournaments.helpers import join, mint, read, resign, work

    tokens = {p: mint(client, p) for p in ("a", "b")}
    tid = create_tournament(client, rounds=1, min_players=2)["id"]
    for token in tokens.values():
        join(client, tid, token)
    work(app)
    game = read(client, tid)["rounds"][0]["pairings"][0]
    first, second = game["players"]
    resign(client, game["match_id"], tokens[first])
    with app.app_context():  # as kept before 0013: the match over, the game still playing
        db.session.execute(update(Pairing).values(status="playing", winner=None,
                                                  finished_at=None))
        db.session.commit()
        flask_migrate.downgrade(directory=MIGRATIONS, revision="0012")
        flask_migrate.upgrade(directory=MIGRATIONS)
    game = read(client, tid)["rounds"][0]["pairings"][0]
    assert game["status"] == "finished" and game["winner"] == second
