"""Ratings: one per player per pool (the match's variant: house rules do not split
pools), by openskill's Plackett-Luce model with the library's default parameters.

A finished rated match is rated once, in the transaction that finishes it: teams as
teams (the two partners of a 4-player match together), the winning team ranked first,
a draw a tie. A resigned or forfeited match is a loss for that side (the engine gives
the win to the other); an aborted one is not rated. The rating rows of a match's
players are locked (and read) in player order, so two matches of one player finishing
at once both count and never deadlock; the new ratings are written with the match's
save (:mod:`service.matches.finish`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import select
from sqlalchemy.dialects import sqlite

from ..storage.base import utcnow
from ..storage.db import backend, db, session_execute
from ..storage.writes import Rows
from .models import Player, Rating, RatingChange

MODEL = PlackettLuce()
"""openskill's Plackett-Luce model, the library's defaults (mu 25, sigma 25/3)."""


DISPLAY_TARGET, DISPLAY_ALPHA = 1500, 60
"""The display scale, one for players and bot levels: 1500 + 60 x (mu - 25), the skill
estimate itself (a new player 1500, the random level about 800, the expert about 2270);
a player who beats a level half the time comes to show that level's number."""

PROVISIONAL_SIGMA = 5.0
"""Above this sigma a rating is provisional (shown with a "?"): openskill's sigma falls
from 8.33 to 5 in 11 rated 1-against-1 matches against settled opponents, about 20 when
every opponent is new as well."""


def skill_display(mu: float) -> int:
    """A skill (``mu``) on the display scale: 1500 + 60 x (mu - 25), below a new player's
    1500 exactly when weaker than a new player's mu. Every rating's number, a player's as
    much as a bot level's (``GET /v1/bots``)."""
    return round(DISPLAY_TARGET + DISPLAY_ALPHA * (mu - MODEL.mu))


def display_spread(sigma: float) -> float:
    """A rating's uncertainty (``sigma``) on the display scale: its standard deviation in
    display points."""
    return DISPLAY_ALPHA * sigma


def provisional(sigma: float) -> bool:
    """Whether a rating is still provisional: its uncertainty above :data:`PROVISIONAL_SIGMA`."""
    return sigma > PROVISIONAL_SIGMA


def shown(mu: float, sigma: float) -> dict[str, Any]:
    """A rating's figures for players: ``display`` and ``provisional``."""
    return {"display": skill_display(mu), "provisional": provisional(sigma)}


def with_display(change: Mapping[str, Any]) -> dict[str, Any]:
    """A seat's stored rating change (``{seat, player_id, before, after}``) with each
    rating's display figure and whether it is provisional, as the API and the webhooks
    show it."""
    return {**change, **{side: {**change[side], **shown(change[side]["mu"],
                                                          change[side]["sigma"])}
                         for side in ("before", "after")}}


def skill(mu: float, sigma: float) -> dict[str, float]:
    """A rating as it is stored: mu, sigma and the ordinal (mu - 3 sigma, a cautious
    bound kept for the API; nothing ranks by it)."""
    return {"mu": mu, "sigma": sigma, "ordinal": MODEL.rating(mu=mu, sigma=sigma).ordinal()}


def current(tenant: int, pool: str, player_ids: Sequence[str]) -> dict[str, tuple[float, float]]:
    """player id -> (mu, sigma) in ``pool``; a player not rated there yet has the
    model's defaults."""
    rows = db.session.execute(
        select(Player.player_id, Rating.mu, Rating.sigma)
        .join(Rating, Rating.player_pk == Player.pk)
        .where(Player.tenant_pk == tenant, Player.player_id.in_(player_ids),
               Rating.pool == pool)).all()
    found = {player_id: (mu, sigma) for player_id, mu, sigma in rows}
    return {p: found.get(p, (MODEL.mu, MODEL.sigma)) for p in player_ids}


def mean(ratings: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """The mean (mu, sigma) of some ratings: a table's seated players as one opponent."""
    return (sum(m for m, _ in ratings) / len(ratings),
            sum(s for _, s in ratings) / len(ratings))


def favourite_chance(me: tuple[float, float], opponent: tuple[float, float]) -> float:
    """The predicted chance of the likelier winner between two (mu, sigma) ratings."""
    chances = MODEL.predict_win([[MODEL.rating(mu=me[0], sigma=me[1])],
                                 [MODEL.rating(mu=opponent[0], sigma=opponent[1])]])
    return max(chances)


_LOCK_POSTGRESQL = """
WITH locked AS (
    INSERT INTO ratings (player_pk, pool, tenant_pk, mu, sigma, ordinal, games)
    SELECT pk, %(pool)s, %(tenant)s, %(mu)s, %(sigma)s, %(ordinal)s, 0 FROM players
    WHERE tenant_pk = %(tenant)s AND player_id = ANY(%(players)s) ORDER BY pk
    ON CONFLICT (player_pk, pool) DO UPDATE SET games = ratings.games
    RETURNING player_pk, mu, sigma, games)
SELECT players.player_id, locked.* FROM locked JOIN players ON players.pk = locked.player_pk
"""

@dataclass(frozen=True)
class Rated:
    """A finished match's ratings worked out: each seat's change (the match's
    ``rating_changes``) and the rows to write with the match's save."""

    changes: list[dict[str, Any]]
    parts: tuple[Rows, ...]


def _start() -> dict[str, Any]:
    return {"mu": MODEL.mu, "sigma": MODEL.sigma,
            "ordinal": skill(MODEL.mu, MODEL.sigma)["ordinal"]}


def _locked(tenant: int, player_ids: Sequence[str],
            pool: str) -> dict[str, tuple[int, float, float, int]]:
    """player id -> (pk, mu, sigma, games) in ``pool`` of the match's players (each was
    recorded when vouched for), made at the defaults where missing and locked until the
    transaction ends, in player order: two matches finishing at once never deadlock. An
    upsert whose no-op update takes the row lock; on PostgreSQL one statement."""
    if backend() == "postgresql":
        rows = session_execute(_LOCK_POSTGRESQL, {
            "pool": pool, "tenant": tenant, "players": list(player_ids), **_start()}).fetchall()
        return {player_id: (pk, mu, sigma, games) for player_id, pk, mu, sigma, games in rows}
    pks = dict(db.session.execute(select(Player.player_id, Player.pk).where(
        Player.tenant_pk == tenant, Player.player_id.in_(player_ids))).all())
    table = Rating.__table__
    start = {"pool": pool, "tenant_pk": tenant, "games": 0, **_start()}
    stmt = sqlite.insert(table).values([{"player_pk": pk, **start} for pk in sorted(pks.values())])
    found = {pk: (mu, sigma, games) for pk, mu, sigma, games in db.session.execute(
        stmt.on_conflict_do_update(index_elements=["player_pk", "pool"],
                                   set_={"games": table.c.games})
        .returning(table.c.player_pk, table.c.mu, table.c.sigma, table.c.games))}
    return {player_id: (pk, *found[pk]) for player_id, pk in pks.items()}


def rate(tenant: int, pool: str, match_pk: int, seats: Sequence[tuple[int, int, str]],
         winner: int | None, draw: bool) -> Rated:
    """Rate a finished match in the caller's write transaction, its players' ratings
    locked: ``seats`` are (seat, team, player id) of every seat, ``winner`` the winning
    team (None with ``draw``). Each seat's ``{seat, player_id, before, after}``, and the
    new ratings and the match's rating changes to write with its save. A player with no
    row (erased since the match was played) is an opponent at a new player's rating and
    is not rated."""
    ratings = _locked(tenant, sorted({player_id for _, _, player_id in seats}), pool)
    teams = sorted({team for _, team, _ in seats})
    members = {team: [s for s in seats if s[1] == team] for team in teams}
    before = {seat: ratings[player_id][1:3] if player_id in ratings else
              (MODEL.mu, MODEL.sigma) for seat, _, player_id in seats}
    ranks = [1 if draw or team == winner else 2 for team in teams]
    rated = MODEL.rate([[MODEL.rating(mu=before[seat][0], sigma=before[seat][1])
                         for seat, _, _ in members[team]] for team in teams], ranks=ranks)
    now = utcnow()
    changes, rows, charted = [], [], []
    for team, new in zip(teams, rated, strict=True):
        for (seat, _, player_id), after in zip(members[team], new, strict=True):
            if player_id not in ratings:
                continue
            pk, _, _, games = ratings[player_id]
            figures = skill(after.mu, after.sigma)
            rows.append({"player_pk": pk, "pool": pool, **figures, "games": games + 1,
                         "rated_at": now})
            charted.append({"player_pk": pk, "pool": pool, "match_pk": match_pk, **figures,
                            "at": now})
            changes.append({"seat": seat, "player_id": player_id,
                            "before": skill(*before[seat]), "after": figures})
    return Rated(sorted(changes, key=lambda c: c["seat"]), (
        Rows(Rating.__table__, tuple(rows), key=("player_pk", "pool")),
        Rows(RatingChange.__table__, tuple(charted))))


def take_back(tenant: int, pool: str, match_pk: int,
              changes: Sequence[Mapping[str, Any]]) -> tuple[Rows, ...]:
    """A voided match's rating changes taken back, in the caller's write transaction with
    its players' ratings locked: each player's mu and sigma moved back by what the match
    changed them by (the changes of their later matches kept; sigma never above a new
    player's), one game fewer, and a point on their rating chart. A player erased since
    has no rating to move."""
    ratings = _locked(tenant, sorted({c["player_id"] for c in changes}), pool)
    now = utcnow()
    rows, charted = [], []
    for change in changes:
        if change["player_id"] not in ratings:
            continue
        pk, mu, sigma, games = ratings[change["player_id"]]
        before, after = change["before"], change["after"]
        figures = skill(mu - (after["mu"] - before["mu"]),
                        min(MODEL.sigma, sigma + (before["sigma"] - after["sigma"])))
        rows.append({"player_pk": pk, "pool": pool, **figures, "games": max(0, games - 1)})
        charted.append({"player_pk": pk, "pool": pool, "match_pk": match_pk, **figures,
                        "at": now})
    if not rows:
        return ()
    return (Rows(Rating.__table__, tuple(rows), key=("player_pk", "pool")),
            Rows(RatingChange.__table__, tuple(charted)))


def displays(tenant: int, pool: str, player_ids: Iterable[str]) -> dict[str, float]:
    """The rated players' numbers in ``pool`` (:func:`skill_display`), by id (caller's
    transaction): a tournament's seeding and tie-breaks, on the scale its standings show."""
    wanted = list(player_ids)
    return {player_id: float(skill_display(mu)) for player_id, mu in db.session.execute(
        select(Player.player_id, Rating.mu).join(Rating, Rating.player_pk == Player.pk)
        .where(Player.tenant_pk == tenant, Rating.pool == pool,
               Player.player_id.in_(wanted)))}
