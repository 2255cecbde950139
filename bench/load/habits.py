"""How the virtual players behave: the mix and the pace (settings), and the pure choices
made from them (a think time, a legal move, the next thing to do)."""

from __future__ import annotations

import math
import os
import random
from dataclasses import dataclass, fields
from typing import Any

ACTIVITIES = ("quick_play", "befriend", "challenge", "tournament", "profile")
"""What an idle player may do next (beside playing the matches it was given)."""


@dataclass(frozen=True)
class Mix:
    """The mix and pace of a day, each a ``BASRA_LOAD_<NAME>`` environment variable."""

    think_median_s: float = 4.0
    """A move's think time, lognormal: its median ..."""
    think_sigma: float = 0.6
    """... and its shape (the log's standard deviation: 0.6 puts p90 near 2.2 x median)."""
    think_max_s: float = 25.0
    """No think time beyond this (a human's clock is not stalled for ever)."""
    patience_s: float = 150.0
    """A table nobody fills is left, and a win claimed from a seat silent, after this."""
    chat_share: float = 0.08
    """The chance a player says a phrase before one of its moves."""
    befriend_share: float = 0.06
    challenge_share: float = 0.06
    tournament_share: float = 0.08
    profile_share: float = 0.05
    """Shares of an idle player's next activity; the rest is quick play."""
    tournament_every_s: float = 120.0
    """The front end's server schedules a Swiss this often ..."""
    tournament_lead_s: float = 40.0
    """... starting this long after it is announced ..."""
    tournament_rounds: int = 2
    tournament_move_s: int = 30
    """... with this many rounds and this turn clock (autoplay on a timeout)."""

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Mix:
        """The mix with every ``BASRA_LOAD_<NAME>`` set in ``env`` (the process's
        environment by default) in place of its default."""
        env = dict(os.environ) if env is None else env
        values: dict[str, Any] = {}
        for field in fields(cls):
            raw = env.get(f"BASRA_LOAD_{field.name.upper()}")
            if raw is not None:
                values[field.name] = int(raw) if field.type == "int" else float(raw)
        return cls(**values)

    def env(self) -> dict[str, str]:
        """The mix as the environment variables :meth:`from_env` reads."""
        return {f"BASRA_LOAD_{f.name.upper()}": str(getattr(self, f.name)) for f in fields(self)}


def think_time(rng: random.Random, mix: Mix) -> float:
    """Seconds a person thinks before a move: lognormal around ``think_median_s``, capped."""
    if mix.think_median_s <= 0:
        return 0.0
    return min(mix.think_max_s, rng.lognormvariate(math.log(mix.think_median_s),
                                                   mix.think_sigma))


def pick_move(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """One of the view's legal moves at random (the body of ``POST .../moves``); None when
    the seat has none (not its turn, or the match not in play)."""
    moves = view.get("legal_moves") or []
    if view.get("status") != "active" or not moves:
        return None
    return dict(rng.choice(moves))


def next_activity(rng: random.Random, mix: Mix) -> str:
    """What an idle player does next, one of :data:`ACTIVITIES` by the mix's shares."""
    roll = rng.random()
    for name, share in (("befriend", mix.befriend_share), ("challenge", mix.challenge_share),
                        ("tournament", mix.tournament_share), ("profile", mix.profile_share)):
        if roll < share:
            return name
        roll -= share
    return "quick_play"


def seat_etag(state: dict[str, Any], seat: int) -> str:
    """The ETag a seat's view of ``state`` carries (``"<version>-s<seat>"``)."""
    return f'"{state["version"]}-s{seat}"'


@dataclass
class SseEvent:
    """One Server-Sent Event: its ``event``, ``id`` and ``data`` lines."""

    type: str = "message"
    id: str | None = None
    data: str = ""


class SseParser:
    """Lines of a ``text/event-stream`` in, whole events out (comments dropped)."""

    def __init__(self) -> None:
        self._event = SseEvent()
        self._data: list[str] = []

    def feed(self, line: str) -> SseEvent | None:
        """One line (without its end); the event it completes, if any."""
        if not line:
            if not self._data and self._event.type == "message":
                return None  # a heartbeat's blank line, or two in a row
            self._event.data = "\n".join(self._data)
            done, self._event, self._data = self._event, SseEvent(), []
            return done
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            self._event.type = value
        elif name == "data":
            self._data.append(value)
        elif name == "id":
            self._event.id = value
        return None


def percentile(values: list[float], q: float) -> float | None:
    """The ``q`` quantile (nearest rank) of ``values``, None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]
