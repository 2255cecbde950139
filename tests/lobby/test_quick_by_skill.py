"""Rated quick play pairs by skill (issue "Players", item 5): the waiting table closest in
rating, only where the favourite's predicted chance is at most the bound, which widens
with the table's wait until any opponent will do; casual quick play is unchanged."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update

from service.matches.models import Match
from service.players.models import Player, Rating
from service.storage.base import utcnow
from service.storage.db import db

SKILLS = {"strong": (40.0, 2.0), "good": (30.0, 2.0), "fair": (26.0, 2.0), "weak": (10.0, 2.0)}


def _rate(app: Flask) -> None:
    """Each player of SKILLS rated so in egyptian-v2 (the local front end's players)."""
    with app.app_context():
        for player_id, (mu, sigma) in SKILLS.items():
            player = Player(tenant_pk=1, player_id=player_id, name=player_id, created_at=utcnow())
            db.session.add(player)
            db.session.flush()
            db.session.add(Rating(player_pk=player.pk, pool="egyptian-v2", tenant_pk=1, mu=mu,
                                  sigma=sigma,
                                  ordinal=mu - 3 * sigma, games=20, rated_at=utcnow()))
        db.session.commit()


def _quick(client: FlaskClient, player_id: str, rated: bool = True) -> dict[str, Any]:
    r = client.post("/v1/matches/quick", json={"name": player_id, "player_id": player_id,
                                               "rated": rated})
    assert r.status_code == 201, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def _age(app: Flask, match_id: str, seconds: float) -> None:
    with app.app_context():
        db.session.execute(update(Match).where(Match.id == match_id)
                           .values(created_at=utcnow() - timedelta(seconds=seconds)))
        db.session.commit()


def test_a_one_sided_pairing_waits_until_the_table_has_waited(client: FlaskClient,
                                                              app: Flask) -> None:
    """weak against strong: far past 0.75, so weak opens a table of its own; once the
    strong player's table has waited 30 s, anyone joins it."""
    _rate(app)
    strong = _quick(client, "strong")
    weak = _quick(client, "weak")
    assert weak["id"] != strong["id"] and weak["seat"] == 0
    _age(app, strong["id"], 31)
    fair = _quick(client, "fair")  # the weak table is new: fair joins the strong one
    assert fair["id"] == strong["id"] and fair["state"]["status"] == "active"


def test_the_closest_in_rating_is_chosen(client: FlaskClient, app: Flask) -> None:
    """strong and fair wait (both older than the widening, so either would do): good
    (30) joins fair (26), not the older strong table (40)."""
    _rate(app)
    strong, fair = _quick(client, "strong"), _quick(client, "weak", rated=False)
    assert strong["id"] != fair["id"]
    fair = _quick(client, "fair")
    assert fair["id"] != strong["id"]  # fair against strong is too one-sided, yet
    for table in (strong, fair):
        _age(app, table["id"], 60)
    good = _quick(client, "good")
    assert good["id"] == fair["id"]


def test_casual_quick_play_still_takes_the_oldest_table(client: FlaskClient, app: Flask) -> None:
    _rate(app)
    strong = _quick(client, "strong", rated=False)
    weak = _quick(client, "weak", rated=False)
    assert weak["id"] == strong["id"]
