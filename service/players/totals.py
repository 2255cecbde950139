"""A player's totals over their finished matches, counted once as each one finishes (in
its finishing transaction), so a record reads one row however many matches they played.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import bindparam

from ..storage.db import db
from ..storage.models import Player


@dataclass(frozen=True)
class SeatResult:
    """What one vouched seat of a finished match adds to its player's totals."""

    player_id: str
    won: bool
    lost: bool
    drew: bool
    resigned: bool
    """Lost by their side's resignation."""
    timed_out: bool
    """Lost by their side's clock."""
    basras: int
    jack_basras: int
    points: int
    """Their side's final score."""


_table = Player.__table__
_ADD = _table.update().where(
    _table.c.tenant_pk == bindparam("tenant"), _table.c.player_id == bindparam("player"),
).values(
    matches=_table.c.matches + 1,
    wins=_table.c.wins + bindparam("won"),
    losses=_table.c.losses + bindparam("lost"),
    draws=_table.c.draws + bindparam("drew"),
    resigned=_table.c.resigned + bindparam("by_resigning"),
    timed_out=_table.c.timed_out + bindparam("by_clock"),
    basras=_table.c.basras + bindparam("made"),
    jack_basras=_table.c.jack_basras + bindparam("made_with_jack"),
    points=_table.c.points + bindparam("scored"),
)


def count(tenant: int, results: Sequence[SeatResult]) -> None:
    """Add a finished match's vouched seats to their players' totals, in the caller's
    write transaction; players in id order, so two matches finishing at once never
    deadlock."""
    if not results:
        return
    db.session.execute(_ADD, [
        {"tenant": tenant, "player": r.player_id, "won": int(r.won), "lost": int(r.lost),
         "drew": int(r.drew), "by_resigning": int(r.resigned), "by_clock": int(r.timed_out),
         "made": r.basras, "made_with_jack": r.jack_basras, "scored": r.points}
        for r in sorted(results, key=lambda r: r.player_id)])
