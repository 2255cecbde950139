"""The ladder of bot levels on the players' rating scale: each level's OpenSkill rating
(the players' model, every level starting where a new player does) from rated matches
between the levels, and its win rate against the level below, as ``python -m bench
ladder`` measured them and wrote them to ``ladder.json`` beside this file."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..engine.bots import LADDER, POLICIES, SEARCHING

LADDER_FILE = Path(__file__).with_name("ladder.json")

WHAT_IT_DOES = {
    "random": "a legal move at random",
    "novice": "the greedy move on three turns in ten, else one at random",
    "casual": "the greedy move on seven turns in ten, else one at random",
    "greedy": "the move that scores most now, less the basra it may hand the next seat",
    "intermediate": "the expert's playouts over 2 sampled deals instead of 100",
    "expert": "playouts of every move over 100 deals sampled from what the others played",
    "expert-2026": "the expert of December 2026: playouts over 100 deals drawn by chance",
    "expert-search": "alpha-beta search of each sampled deal; the last deal solved exactly",
}
"""What each level does, in a line (docs/computer.md has the whole of it)."""


@dataclass(frozen=True)
class Step:
    """A level as the ladder measured it."""

    level: str
    mu: float
    sigma: float
    display: int
    against_below: dict[str, Any] | None
    """``{"win_rate", "low", "high", "matches"}`` against the level below (None: the
    first)."""


@dataclass(frozen=True)
class Ladder:
    """The levels from beginner to expert, measured in ``variant`` on ``measured``."""

    variant: str
    measured: str
    steps: tuple[Step, ...]

    def nearest(self, mu: float) -> Step:
        """The level whose skill is nearest a player's ``mu`` (their estimate, not the
        display rating, which counts their uncertainty against them: a new player's
        1500 says little of their skill)."""
        return min(self.steps, key=lambda step: abs(step.mu - mu))


@lru_cache(maxsize=1)
def ladder() -> Ladder:
    """The ladder as measured (read once)."""
    kept = json.loads(LADDER_FILE.read_text())
    steps = tuple(Step(s["level"], s["mu"], s["sigma"], s["display"], s["against_below"])
                  for s in kept["levels"])
    assert tuple(s.level for s in steps) == LADDER, "ladder.json is not the ladder's levels"
    return Ladder(kept["variant"], kept["measured"], steps)


def off_the_ladder() -> tuple[str, ...]:
    """The levels a seat may name that are not on the ladder."""
    return tuple(level for level in POLICIES if level not in LADDER)


def searches(level: str) -> bool:
    """Whether the level's moves spend the ``expensive`` budget."""
    return level in SEARCHING
