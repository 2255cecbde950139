"""A match ends in one place: what a finished match records besides itself.

A rated match rates its players (:mod:`service.players.ratings`), and every finished
match adds to its vouched players' totals (:mod:`service.players.totals`), in the
transaction that finishes it, under its row lock, so each is counted exactly once.
Everything else that follows a finish (the tournaments' results, the webhooks, the
players' streams) hears of it as a :class:`~.changes.MatchChanged`. An aborted match
records nothing here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..engine import team_of
from ..players import ratings, totals
from ..storage.writes import Rows
from . import store
from .enums import EndReason, MatchStatus
from .rows import LogEntry, MatchRow, team_won
from .seats import PUBLIC, spectates


def keeps_record(match: MatchRow) -> bool:
    """Whether the match's finish records anything (it is rated, a seat is vouched for,
    or it is staked: its settlement): then it finishes in a write transaction holding
    the match's row lock."""
    return match.rated or bool(match.vouched) or match.stake is not None


@dataclass(frozen=True)
class Recorded:
    """What a finish records: each seat's rating change (the match's
    ``rating_changes``, None unless rated) and the rows to write with it."""

    rating_changes: tuple[dict[str, Any], ...] | None
    parts: list[Rows]


def record(match: MatchRow, entries: Sequence[LogEntry], logged: int) -> Recorded:
    """The consequences of ``match`` finishing with the log ``entries`` appended after
    entry ``logged``: its players' ratings (locked, worked out) and totals. Records are
    public: a match everyone is shown as its spectators see it (a sealed table) records
    nothing yet, and is recorded as it is unsealed (:func:`unsealed`)."""
    assert match.status == MatchStatus.FINISHED
    if spectates(match.delays_spectators, (), PUBLIC):
        return Recorded(None, [])
    parts: list[Rows] = []
    changes = None
    if match.rated:
        # an erased seat (a sealed table's, recorded after the erasure) is an opponent
        # still, at a new player's rating, and is rated no more
        rated = ratings.rate(match.tenant, match.variant, match.pk,
                             [(s.seat, team_of(s.seat), s.player_id) for s in match.seats
                              if s.player_id is not None],
                             match.winner, match.draw)
        changes, parts = tuple(rated.changes), list(rated.parts)
    if match.vouched:
        parts.append(totals.count(match.tenant, _results(match, entries, logged)))
    return Recorded(changes, parts)


def unsealed(match: MatchRow) -> Recorded:
    """What a sealed table records as its round ends (under its row lock): as
    :func:`record` would have as it finished; nothing if it did not finish, or was
    voided meanwhile."""
    if match.status != MatchStatus.FINISHED or match.voided_at is not None \
            or not keeps_record(match):
        return Recorded(None, [])
    return record(dataclasses.replace(match, sealed=False), (), match.version)


def take_back(match: MatchRow) -> list[Rows]:
    """What voiding a finished match takes back (under its row lock): each rated
    player's rating moved back by what the match gave or took, and each vouched
    player's totals less what it added (nothing while sealed: nothing was counted)."""
    parts: list[Rows] = []
    if match.sealed:
        return parts
    if match.rated and match.rating_changes:
        parts.extend(ratings.take_back(match.tenant, match.variant, match.pk,
                                       match.rating_changes))
    if match.vouched:
        parts.append(totals.count(match.tenant, _results(match, (), match.version),
                                  sign=-1))
    return parts


def _results(match: MatchRow, entries: Sequence[LogEntry],
             logged: int) -> list[totals.SeatResult]:
    """What each vouched seat adds to its player's totals."""
    made = dict(store.basras_made(match.pk)) if logged else {}
    for entry in entries:
        if entry.play is not None and entry.play.basra is not None:
            key = (entry.seat, entry.play.basra)
            made[key] = made.get(key, 0) + 1
    results = []
    for seat, player in match.vouched:
        won, lost = team_won(match, seat)
        results.append(totals.SeatResult(
            player, won=won, lost=lost, drew=match.draw,
            resigned=lost and match.end_reason == EndReason.RESIGNED,
            timed_out=lost and match.end_reason == EndReason.TIMEOUT,
            basras=made.get((seat, "basra"), 0), jack_basras=made.get((seat, "jack_basra"), 0),
            points=match.scores[team_of(seat)]))
    return results
