"""A player's totals over their finished matches, counted once as each one finishes (in
its finishing transaction), so a record reads one row however many matches they played.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select

from ..storage.db import backend, db
from ..storage.writes import Rows
from .models import Player


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


def count(tenant: int, results: Sequence[SeatResult], sign: int = 1) -> Rows:
    """A finished match's vouched seats added to their players' totals (``sign`` -1: taken
    out, as a void does), written with its save (a player holding two seats counts both,
    as a seat each). Their rows are locked
    now, in player order, so two matches finishing at once never deadlock (the caller's
    write transaction); the lock leaves their keys free, as an UPDATE's does."""
    added: dict[str, Counter[str]] = {}
    for r in sorted(results, key=lambda r: r.player_id):
        added.setdefault(r.player_id, Counter()).update({
            "matches": 1, "wins": int(r.won), "losses": int(r.lost), "draws": int(r.drew),
            "resigned": int(r.resigned), "timed_out": int(r.timed_out), "basras": r.basras,
            "jack_basras": r.jack_basras, "points": r.points})
    if backend() == "postgresql":
        db.session.execute(select(Player.pk).where(
            Player.tenant_pk == tenant, Player.player_id.in_(list(added))
        ).order_by(Player.player_id).with_for_update(key_share=True))
    return Rows(Player.__table__, tuple(
        {"tenant_pk": tenant, "player_id": player,
         **{name: sign * n.get(name, 0) for name in TOTALS}}
        for player, n in added.items()), key=("tenant_pk", "player_id"), add=True)


TOTALS = ("matches", "wins", "losses", "draws", "resigned", "timed_out", "basras",
          "jack_basras", "points")
"""A player's totals, as their row's columns."""
