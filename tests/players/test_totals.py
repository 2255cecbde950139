"""A player's totals (issue "Players", item 3): counted once as each match finishes, for
each seat held as a vouched player, rated or not: wins, losses, draws, losses by
resigning and by the clock, the basras and jack basras the player made and their side's
points. Aborted matches, unvouched seats and bots count for nobody."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update

from service import worker
from service.matches.models import Match
from service.storage.base import utcnow
from service.storage.db import db
from tests.client import auth, play_to_end, tokens
from tests.helpers import SHORT, seeded_decks

FOUR = ["a0", "b1", "a2", "b3"]
def _match(client: FlaskClient, players: list[dict[str, Any]], **body: Any) -> dict[str, Any]:
    r = client.post("/v1/matches", json={"players": players, **body})
    assert r.status_code == 201, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def _totals(client: FlaskClient, player_id: str) -> dict[str, int]:
    r = client.get(f"/v1/players/{player_id}")
    assert r.status_code == 200, r.get_json()
    return r.get_json()["totals"]  # type: ignore[no-any-return]


def test_a_partnership_played_out_counts_each_players_own_basras(client: FlaskClient) -> None:
    """Four vouched players play a casual 4-player match to its end: each one's basras
    are those the move log shows for their seat, their points their side's score."""
    created = _match(client, [{"name": p.upper(), "player_id": p} for p in FOUR],
                     variant="egyptian-4p", rules=SHORT, decks=seeded_decks())
    end = play_to_end(client, created)
    assert end["status"] == "finished"
    log = client.get(f"/v1/matches/{created['id']}/moves").get_json()["moves"]
    made = Counter((m["seat"], m["basra"]) for m in log if m.get("basra"))
    assert made == {(1, "basra"): 1, (3, "jack_basra"): 1}  # partners, counted apart
    for seat, player in enumerate(FOUR):
        team = seat % 2
        won = not end["draw"] and end["winner"] == team
        lost = not end["draw"] and not won
        assert _totals(client, player) == {
            "matches": 1, "wins": int(won), "losses": int(lost), "draws": int(end["draw"]),
            "resigned": 0, "timed_out": 0, "basras": made[(seat, "basra")],
            "jack_basras": made[(seat, "jack_basra")], "points": end["scores"][team],
        }, player


def test_a_resignation_is_a_loss_by_resigning_for_both_partners(client: FlaskClient) -> None:
    created = _match(client, [{"name": p.upper(), "player_id": p} for p in FOUR],
                     variant="egyptian-4p")
    r = client.post(f"/v1/matches/{created['id']}/resign", headers=auth(tokens(created)[1]))
    assert r.status_code == 200, r.get_json()
    for player, won in (("a0", 1), ("b1", 0), ("a2", 1), ("b3", 0)):
        totals = _totals(client, player)
        assert (totals["matches"], totals["wins"], totals["losses"]) == (1, won, 1 - won)
        assert totals["resigned"] == 1 - won and totals["timed_out"] == 0


def test_aborted_matches_bots_and_unvouched_seats_count_for_nobody(client: FlaskClient) -> None:
    """ann plays a bot twice (resigning once, aborting once); an anonymous seat beside
    ann counts for nobody, ann's own seat does."""
    one = _match(client, [{"name": "Ann", "player_id": "ann"}, {"bot": "random"}])
    assert client.post(f"/v1/matches/{one['id']}/resign",
                       headers=auth(tokens(one)[0])).status_code == 200
    two = _match(client, [{"name": "Ann", "player_id": "ann"}, {"bot": "random"}])
    assert client.post(f"/v1/matches/{two['id']}/abort",
                       headers=auth(tokens(two)[0])).status_code == 200
    three = _match(client, [{"name": "Ann", "player_id": "ann"}, {"name": "Guest"}])
    assert client.post(f"/v1/matches/{three['id']}/resign",
                       headers=auth(tokens(three)[1])).status_code == 200
    totals = _totals(client, "ann")
    assert (totals["matches"], totals["wins"], totals["losses"], totals["resigned"]) == (2, 1, 1, 1)


def test_a_forfeit_on_the_clock_is_a_loss_by_timing_out(app: Flask, client: FlaskClient) -> None:
    created = _match(client, [{"name": "Ann", "player_id": "ann"},
                              {"name": "Bo", "player_id": "bo"}],
                     clock={"move_seconds": 5, "timeout": "forfeit"})
    turn = client.get(f"/v1/matches/{created['id']}").get_json()["turn"]
    with app.app_context():
        db.session.execute(update(Match).where(Match.id == created["id"])
                           .values(deadline=utcnow() - timedelta(seconds=1)))
        db.session.commit()
        assert worker.run_once() == 1
    late, on_time = ("ann", "bo") if turn == 0 else ("bo", "ann")
    assert _totals(client, late)["timed_out"] == 1 and _totals(client, late)["losses"] == 1
    assert _totals(client, on_time)["wins"] == 1 and _totals(client, on_time)["timed_out"] == 0
    with app.app_context():
        assert worker.run_once() == 0  # a second pass counts nothing again
    assert _totals(client, late)["matches"] == 1
