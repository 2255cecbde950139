"""A match's fair-play signals, seat by seat: what its graded plays and the log's times
say of each player, and what moved between the sides. Pure: grades and times in."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..bots.grading import PlayGrade

CAP = 2.0
"""The most points one play counts as lost in the capped loss: a slip's 10 points say
little more of a player than 2, and uncapped they swamp the spread of a cohort."""
MATTERS = 0.5
"""Points between the expert's choice and the worst option it weighed at or above which
the choice mattered; below, the options all lose about the same and the play is left out
(as forced plays are)."""


@dataclass(frozen=True)
class SeatSignals:
    """One player's plays in one match, added up."""

    player: str
    seat: int
    team: int
    plays: int
    """Plays graded (forced ones too)."""
    mattered: int
    """Plays where the choice mattered: the ones counted below."""
    agreed: int
    """Of those, the expert's choice."""
    lost: float
    """Points lost over them, in all."""
    lost_sq: float
    """Their squares summed (the spread of a player's loss)."""
    time_cv: float | None
    """Move-time regularity: the think times' standard deviation over their mean (None:
    fewer than 3 timed plays)."""
    score: int
    """The seat's side's points at the end."""
    result: float
    """1 won, 0 lost, 0.5 drawn."""
    deep: int = 0
    """Of the plays that mattered, those where the expert's choice was not the greedy
    one (not obvious to a player who counts)."""
    deep_agreed: int = 0
    """Of those, the expert's choice."""
    capped: float = 0.0
    """Points lost over the plays that mattered, each at most :data:`CAP`."""
    capped_sq: float = 0.0
    """Their squares summed."""


@dataclass(frozen=True)
class MatchSignals:
    """A rated or staked match's signals: each player's seat, and the coins each won
    (negative: lost) where it was staked."""

    match_id: str
    pool: str
    seats: tuple[SeatSignals, ...]
    coins: Mapping[str, int] = field(default_factory=dict)

    def opponents(self) -> list[tuple[SeatSignals, SeatSignals]]:
        """Every pair of players on opposite sides."""
        return [(a, b) for a in self.seats for b in self.seats
                if a.team != b.team and a.player < b.player]


def time_regularity(seconds: Sequence[float]) -> float | None:
    """Think times' coefficient of variation (a bot's metronome is near 0)."""
    if len(seconds) < 3:
        return None
    mean = statistics.fmean(seconds)
    return round(statistics.pstdev(seconds) / mean, 3) if mean > 0 else None


def seat_signals(player: str, seat: int, team: int, grades: Sequence[PlayGrade],
                 seconds: Sequence[float], score: int, result: float) -> SeatSignals:
    """A seat's signals from its own graded plays and think times."""
    counted = [g for g in grades if not g.forced and g.spread >= MATTERS]
    return SeatSignals(
        player, seat, team, len(grades), len(counted), sum(1 for g in counted if g.agreed),
        round(sum(g.lost for g in counted), 3), round(sum(g.lost ** 2 for g in counted), 3),
        time_regularity(seconds), score, result, sum(1 for g in counted if not g.obvious),
        sum(1 for g in counted if not g.obvious and g.agreed),
        round(sum(min(g.lost, CAP) for g in counted), 3),
        round(sum(min(g.lost, CAP) ** 2 for g in counted), 3))


def to_dict(signals: MatchSignals) -> dict[str, object]:
    """Signals as JSON values (kept)."""
    return {"match_id": signals.match_id, "pool": signals.pool, "coins": dict(signals.coins),
            "seats": [s.__dict__ for s in signals.seats]}


def from_dict(data: Mapping[str, object]) -> MatchSignals:
    """Kept signals read back."""
    seats = data["seats"]
    assert isinstance(seats, list)
    coins = data.get("coins") or {}
    assert isinstance(coins, dict)
    return MatchSignals(str(data["match_id"]), str(data["pool"]),
                        tuple(SeatSignals(**s) for s in seats), coins)
