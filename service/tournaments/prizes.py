"""A tournament's prizes, pure: the pool, the distribution (percent of the pool by final
place) and the final standings in, each prize winner's coins out.

Players level on points share the places they cover (as a chess open shares its prize
money among those tied on points: the tie-breaks order the standings, not the money):
each gets an even part of those places' percentages. Amounts are integers: what a
percentage or an even part leaves over, places nobody holds and the percentages short of
100 stay with the house.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MAX_PLACES = 64
"""The most places a distribution may pay."""


@dataclass(frozen=True)
class Finisher:
    """A player in the final standings, best first: their points and whether they
    withdrew (a withdrawn player is out of the prizes)."""

    player_id: str
    points: float
    withdrawn: bool = False


def tied_groups(standings: Sequence[Finisher]) -> list[list[str]]:
    """The players in the prizes (withdrawn ones left out), best first, those level on
    points in one group (the standings keep them next to each other)."""
    groups: list[list[str]] = []
    last: float | None = None
    for row in standings:
        if row.withdrawn:
            continue
        points = round(row.points, 6)  # duplicate matchpoints are rounded floats
        if groups and points == last:
            groups[-1].append(row.player_id)
        else:
            groups.append([row.player_id])
        last = points
    return groups


def shares(pool: int, percents: Sequence[int], standings: Sequence[Finisher]) -> dict[str, int]:
    """Each prize winner's coins from ``pool`` (players level on points split the places
    they cover evenly); the house keeps ``pool`` less their sum."""
    paid: dict[str, int] = {}
    place = 0
    for group in tied_groups(standings):
        if place >= len(percents):
            break
        covered = sum(percents[place:place + len(group)])
        place += len(group)
        each = pool * covered // 100 // len(group)
        if each > 0:
            paid.update((player, each) for player in group)
    return paid
