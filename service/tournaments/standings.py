"""A tournament's standings: its entrants, pairings, their matches and ratings loaded
at once, the counted games, everybody's standing (Swiss and arena by points, a duplicate
event by its tables' matchpoints) and a standings line as the API shows it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any

from sqlalchemy import select

from ..matches import service as matches
from ..matches.rows import delays
from ..matches.seats import PUBLIC, spectates
from ..players import ratings
from ..storage.base import as_utc
from ..storage.db import db
from . import pairing
from .enums import PairingStatus, TournamentSystem
from .models import Entrant, Pairing, Tournament
from .pairing import Game, Standing


def entrants_of(t: Tournament) -> list[Entrant]:
    return list(db.session.execute(
        select(Entrant).where(Entrant.tournament_pk == t.pk)
        .order_by(Entrant.joined_at, Entrant.player_id)).scalars())


@dataclass(frozen=True)
class Loaded:
    entrants: list[Entrant]
    pairings: Sequence[tuple[Pairing, str | None]]
    """Every pairing with its match's id, in the order made."""
    ratings: dict[str, float]
    commitments: dict[int, str] = dataclass_field(default_factory=dict)
    """Each pairing's match's commitment, by pairing."""
    withheld: frozenset[int] = frozenset()
    """The pairings whose match everyone is shown as its spectators see it (a duplicate
    round's table while the round goes on): no winner, not counted yet."""


def load(t: Tournament) -> Loaded:
    entrants = entrants_of(t)
    commitments: dict[int, str] = {}
    withheld = set()
    pairings = []
    rows = db.session.execute(select(Pairing).where(Pairing.tournament_pk == t.pk)
                              .order_by(Pairing.pk)).scalars().all()
    games = matches.games_of(p.match_pk for p in rows if p.match_pk is not None)
    for p in rows:
        game = games.get(p.match_pk) if p.match_pk is not None else None
        pairings.append((p, game.id if game else None))
        if game is None:
            continue
        commitments[p.pk] = game.commitment
        # standings and pairings are everyone's: a table counts once everyone sees it
        if spectates(delays(game.sealed, game.status, game.spectator_delay), (), PUBLIC):
            withheld.add(p.pk)
    ratings_shown = ratings.displays(t.tenant_pk, t.variant, [e.player_id for e in entrants])
    return Loaded(entrants, pairings, ratings_shown, commitments, frozenset(withheld))


def counted_games(t: Tournament, loaded: Loaded) -> list[Game]:
    """The counted games, in the order they finished, with their points."""
    done = sorted((p for p, _ in loaded.pairings if p.status == PairingStatus.FINISHED),
                  key=lambda p: (as_utc(p.finished_at or p.created_at), p.pk))
    games = [Game(p.first, p.second, p.winner, p.draw) for p in done]
    return pairing.swiss_results(games) if t.system == TournamentSystem.SWISS \
        else pairing.arena_results(games)


def standings_of(t: Tournament, loaded: Loaded,
               games: Sequence[Game] | None = None) -> list[Standing]:
    """Everybody's standing after ``games`` (default: the counted games so far); at a
    duplicate event, by the matchpoints of its finished tables."""
    if t.system == TournamentSystem.DUPLICATE:
        return _duplicate_standings(loaded)
    return pairing.standings(
        [e.player_id for e in loaded.entrants],
        counted_games(t, loaded) if games is None else games, loaded.ratings,
        withdrawn=[e.player_id for e in loaded.entrants if e.withdrawn_at is not None])


def seated(p: Pairing) -> list[str]:
    """A pairing's players by seat (a bye's one)."""
    return [who for who in (p.first, p.second, p.third, p.fourth) if who is not None]


def is_bye(p: Pairing) -> bool:
    """Whether the pairing is a player sitting the round out (no match)."""
    return p.match_pk is None and p.second is None


def _duplicate_standings(loaded: Loaded) -> list[Standing]:
    """A duplicate event's standings: its finished tables' deals, each compared with the
    other tables' of the round (:func:`pairing.duplicate_standings`)."""
    finished = {p.match_pk: p for p, _ in loaded.pairings
                if p.status == PairingStatus.FINISHED and p.match_pk is not None
                and p.pk not in loaded.withheld}
    tables = []
    for match_pk, state in matches.states_of(finished).items():
        p = finished[match_pk]
        played = tuple(tuple(r.points) for r in state.results)
        planned = state.rules.max_rounds or len(played)
        # a match ended before its deals (a resignation, a forfeit): the side that
        # conceded loses the deals left, as if beaten at every other table
        conceded = None if len(played) >= planned or state.winner is None \
            else 1 - state.winner
        tables.append(pairing.Table(p.round, tuple(seated(p)), played, state.winner,
                                    state.draw, planned, conceded))
    excused: dict[int, list[str]] = {}
    for p, _ in loaded.pairings:
        if is_bye(p) or p.status == PairingStatus.VOID:
            excused.setdefault(p.round, []).extend(seated(p))
    return pairing.duplicate_standings(
        [e.player_id for e in loaded.entrants], tables, excused, loaded.ratings,
        withdrawn=[e.player_id for e in loaded.entrants if e.withdrawn_at is not None])


def names_of(loaded: Loaded) -> dict[str, str]:
    """Every entrant's display name (their id if they gave none), by player id."""
    return {e.player_id: e.name or e.player_id for e in loaded.entrants}


def standing_row(s: Standing, names: dict[str, str]) -> dict[str, Any]:
    """A standings line as the API and the webhooks show it."""
    return {"rank": s.rank, "player_id": s.player_id,
            "name": names.get(s.player_id, s.player_id), "points": s.points,
            "buchholz": s.buchholz, "sonneborn_berger": s.sonneborn_berger,
            "rating": s.rating, "games": s.games, "wins": s.wins, "draws": s.draws,
            "losses": s.losses, "byes": s.byes, "streak": s.streak,
            "withdrawn": s.withdrawn}
