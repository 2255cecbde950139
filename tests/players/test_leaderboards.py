"""Records and leaderboards (issue "Players", items 3 and 4): a player's ratings, rank
and totals; their rating after each rated match; each pool's leaderboard by rating (mu),
by cursor and around a player, listing only players with enough recent rated games."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update

from service.players import scheduled
from service.players.models import Player, Rating
from service.settings import settings_of
from service.storage.base import utcnow
from service.storage.db import db
from tests.client import auth, tokens
from tests.conftest import api_key, make_app, use_settings

PLAYERS = ["p0", "p1", "p2", "p3", "p4", "p5"]


@pytest.fixture
def league(backend: str, tmp_path: Path) -> Flask:
    """A front end whose six players played rated matches: p(i) beat p(j) for i < j in
    a round robin (the loser resigns), and p5 played once more, against p4 (p4 won)."""
    app = make_app(backend, tmp_path, BASRA_LEADERBOARD_MIN_GAMES=5)
    client = app.test_client()
    for i, winner in enumerate(PLAYERS):
        for loser in PLAYERS[i + 1:]:
            _rated_win(client, winner, loser)
    _rated_win(client, "p4", "p5")
    _rank(app)
    return app


def _rank(app: Flask) -> int:
    """What basra worker does every BASRA_LEADERBOARD_REFRESH_SECONDS: rank the boards."""
    with app.app_context():
        return scheduled.rank_leaderboards(settings_of(app), force=True)


def _rated_win(client: FlaskClient, winner: str, loser: str,
               headers: dict[str, str] | None = None) -> None:
    r = client.post("/v1/matches", headers=headers or {}, json={"rated": True, "players": [
        {"name": winner.upper(), "player_id": winner}, {"name": loser.upper(), "player_id": loser}]})
    assert r.status_code == 201, r.get_json()
    created = r.get_json()
    resigned = client.post(f"/v1/matches/{created['id']}/resign",
                           headers={**(headers or {}), **auth(tokens(created)[1])})
    assert resigned.status_code == 200, resigned.get_json()


def _board(client: FlaskClient, **query: Any) -> dict[str, Any]:
    r = client.get("/v1/leaderboards/egyptian-v2", query_string=query)
    assert r.status_code == 200, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def test_the_leaderboard_lists_by_rating_with_ranks(league: Flask) -> None:
    """Five or more rated games each: all six listed, the round robin's order, ranks 1..6,
    each entry's figures the player's rating row, its number 1500 + 60 x (mu - 25)."""
    board = _board(league.test_client())
    entries = board["entries"]
    assert [e["player_id"] for e in entries] == PLAYERS
    assert [e["rank"] for e in entries] == [1, 2, 3, 4, 5, 6] and board["next"] is None
    displays = [e["display"] for e in entries]
    assert displays == sorted(displays, reverse=True)
    assert all(e["display"] == round(1500 + 60 * (e["mu"] - 25)) for e in entries)
    assert entries[0]["name"] == "P0" and entries[5]["games"] == 6
    assert all(abs(e["ordinal"] - (e["mu"] - 3 * e["sigma"])) < 1e-9 for e in entries)


def test_the_order_is_the_order_of_the_numbers_shown(league: Flask) -> None:
    """Issue 54, item 6: ranked by skill (mu), the number shown, not by the cautious
    ordinal: p5, surer (sigma 2) but weaker (mu 43), ranks below p4, stronger (mu 45) but
    less sure (sigma 6, provisional), though p5's ordinal (37) is above p4's (27): both top."""
    with league.app_context():
        for player_id, mu, sigma in (("p4", 45.0, 6.0), ("p5", 43.0, 2.0)):
            pk = db.session.query(Player).filter_by(player_id=player_id).one().pk
            db.session.execute(update(Rating).where(Rating.player_pk == pk).values(
                mu=mu, sigma=sigma, ordinal=mu - 3 * sigma))
        db.session.commit()
    _rank(league)
    entries = _board(league.test_client())["entries"]
    assert [e["player_id"] for e in entries[:2]] == ["p4", "p5"]
    assert [(e["display"], e["provisional"]) for e in entries[:2]] == [(2700, True), (2580, False)]
    displays = [e["display"] for e in entries]
    assert displays == sorted(displays, reverse=True)
    assert [e["rank"] for e in entries] == list(range(1, len(entries) + 1))


def test_pages_follow_each_other_without_gaps(league: Flask) -> None:
    client = league.test_client()
    seen, cursor = [], None
    while True:
        page = _board(client, limit=4, **({"cursor": cursor} if cursor else {}))
        seen += [(e["rank"], e["player_id"]) for e in page["entries"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert seen == list(enumerate(PLAYERS, start=1))
    r = client.get("/v1/leaderboards/egyptian-v2", query_string={"cursor": "bm90LW1pbmU"})
    assert r.status_code == 422 and r.get_json()["reason"] == "invalid_cursor"


def test_around_a_player_gives_their_page_rank_and_percentile(league: Flask) -> None:
    board = _board(league.test_client(), around="p3", limit=3)
    assert board["rank"] == 4 and board["percentile"] == 50.0
    assert [(e["rank"], e["player_id"]) for e in board["entries"]] == [
        (3, "p2"), (4, "p3"), (5, "p4")]
    assert board["next"] is not None
    top = _board(league.test_client(), around="p0", limit=3)
    assert top["rank"] == 1 and top["percentile"] == 100.0
    assert top["standing"]["player_id"] == "p0" and top["standing"]["listed"] is True
    assert [e["player_id"] for e in top["entries"]] == ["p0", "p1", "p2"]


def test_only_players_with_enough_recent_games_are_listed(league: Flask) -> None:
    """p0 has not played for 40 days, and the minimum is raised to six games: only p4 and
    p5 (six games each) stay; p0 is not on the board, and around p0 gives the top of the
    board with p0's own line, not listed (a player nobody vouched for is 404)."""
    with league.app_context():
        p0 = db.session.query(Player).filter_by(player_id="p0").one()
        db.session.execute(update(Rating).where(Rating.player_pk == p0.pk)
                           .values(rated_at=utcnow() - timedelta(days=40)))
        db.session.commit()
    use_settings(league, leaderboard_min_games=6)
    assert _rank(league) >= 4  # p0..p3 leave the board, p4 and p5 move up
    client = league.test_client()
    assert [e["player_id"] for e in _board(client)["entries"]] == ["p4", "p5"]
    around = _board(client, around="p0")
    assert around["rank"] is None and around["percentile"] is None
    assert [e["player_id"] for e in around["entries"]] == ["p4", "p5"]
    assert around["standing"]["player_id"] == "p0" and around["standing"]["listed"] is False
    assert around["standing"]["games"] > 0
    r = client.get("/v1/leaderboards/egyptian-v2", query_string={"around": "nobody"})
    assert r.status_code == 404 and r.get_json()["reason"] == "player_not_found"
    new = client.post("/v1/players/newcomer/tokens", json={})
    assert new.status_code == 201
    start = _board(client, around="newcomer")["standing"]
    assert start["games"] == 0 and start["listed"] is False and start["ordinal"] == 0.0
    record = client.get("/v1/players/p0").get_json()
    assert record["ratings"][0]["rank"] is None and record["ratings"][0]["provisional"]


def test_a_players_record_and_rating_history(league: Flask) -> None:
    client = league.test_client()
    record = client.get("/v1/players/p4").get_json()
    assert record["player_id"] == "p4" and record["name"] == "P4"
    [pool] = record["ratings"]
    assert pool["pool"] == "egyptian-v2" and pool["games"] == 6
    assert pool["provisional"] == (pool["sigma"] > 5) is True  # six games among new players
    assert pool["rank"] == 5
    assert record["totals"] == {"matches": 6, "wins": 2, "losses": 4, "draws": 0,
                                "resigned": 4, "timed_out": 0, "basras": 0,
                                "jack_basras": 0, "points": 0}
    history = client.get("/v1/players/p4/ratings/egyptian-v2").get_json()
    points = history["points"]
    assert len(points) == 6 and points[-1]["ordinal"] == pool["ordinal"]
    assert [p["at"] for p in points] == sorted(p["at"] for p in points)
    assert client.get("/v1/players/p4/ratings/pagat").get_json()["points"] == []


def test_another_front_ends_players_are_not_found(league: Flask) -> None:
    use_settings(league, api_keys_required=True)
    client = league.test_client()
    globex = api_key(league, "globex")
    assert client.get("/v1/players/p0", headers=globex).status_code == 404
    assert client.get("/v1/players/p0/ratings/egyptian-v2", headers=globex).status_code == 404
    assert _board_with(client, globex)["entries"] == []
    _rated_win(client, "g1", "g2", globex)
    use_settings(league, leaderboard_min_games=1)
    _rank(league)
    g1 = client.get("/v1/players/g1", headers=globex).get_json()
    assert g1["totals"]["wins"] == 1
    assert g1["ratings"][0]["rank"] == 1  # ranked among globex's players alone
    board = _board_with(client, globex)
    assert [(e["rank"], e["player_id"]) for e in board["entries"]] == [(1, "g1"), (2, "g2")]


def _board_with(client: FlaskClient, headers: dict[str, str]) -> dict[str, Any]:
    r = client.get("/v1/leaderboards/egyptian-v2", headers=headers)
    assert r.status_code == 200, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def test_unknown_players_and_bad_ids(tmp_path: Path) -> None:
    client = make_app("sqlite", tmp_path).test_client()
    assert client.get("/v1/players/nobody").status_code == 404
    assert client.get("/v1/players/a%20b").status_code == 422


def test_a_players_matches_newest_first_by_cursor_and_filters(league: Flask) -> None:
    client = league.test_client()
    casual = client.post("/v1/matches", json={"players": [
        {"name": "P4", "player_id": "p4"}, {"bot": "random"}]}).get_json()["id"]
    seen, cursor = [], None
    while True:
        r = client.get("/v1/players/p4/matches",
                       query_string={"limit": 4, **({"cursor": cursor} if cursor else {})})
        assert r.status_code == 200, r.get_json()
        page = r.get_json()
        seen += page["matches"]
        cursor = page["next"]
        assert ("Link" in r.headers) == (cursor is not None)
        if cursor is None:
            break
    assert len(seen) == 7 and seen[0]["id"] == casual
    assert [m["created_at"] for m in seen] == sorted((m["created_at"] for m in seen), reverse=True)
    assert all(any(s["player_id"] == "p4" for s in m["seats"]) for m in seen)

    def count(**query: Any) -> int:
        return len(client.get("/v1/players/p4/matches",
                              query_string={"limit": 100, **query}).get_json()["matches"])

    assert count(rated="true") == 6 and count(rated="false") == 1
    assert count(pool="egyptian-v2") == 7 and count(pool="pagat") == 0
    assert count(status="finished") == 6 and count(status="active") == 1
    assert client.get("/v1/players/nobody/matches").status_code == 404


def test_places_are_those_of_the_last_ranking(league: Flask) -> None:
    """A new rated result moves the ratings at once and the places at the next ranking,
    which changes only the places that moved; a second ranking changes none."""
    client = league.test_client()
    for _ in range(3):
        _rated_win(client, "p5", "p0")
    before = [e["player_id"] for e in _board(client)["entries"]]
    assert before == PLAYERS  # not ranked again yet
    fresh = client.get("/v1/players/p5").get_json()["ratings"][0]
    assert fresh["games"] == 9  # the figures are live
    assert _rank(league) > 0 and _rank(league) == 0
    after = _board(client)["entries"]
    assert [e["player_id"] for e in after] != PLAYERS
    displays = [e["display"] for e in after]
    assert displays == sorted(displays, reverse=True)
    assert [e["rank"] for e in after] == list(range(1, len(after) + 1))


def test_an_unknown_pool_is_not_an_empty_board(client: FlaskClient) -> None:
    """A pool is a variant: /v1/leaderboards/nope is 404 unknown_variant, a shipped
    variant with nobody rated yet an empty board."""
    r = client.get("/v1/leaderboards/nope")
    assert r.status_code == 404 and r.get_json()["reason"] == "unknown_variant"
    assert "GET /v1/variants" in r.get_json()["detail"]
    empty = client.get("/v1/leaderboards/egyptian-4p")
    assert empty.status_code == 200 and empty.get_json()["entries"] == []
