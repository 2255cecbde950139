"""The bot levels by name, and bot seats in a match: each bot's randomness comes from the
match's seed and ply, so matches replay."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping

from ..game import Move, Play, State, apply_move
from ..view import observe
from .heuristics import Pause, Policy, greedy_policy, make_mixed, no_pause, random_policy
from .playouts import make_expert
from .search import make_searcher
from .worlds import chance_worlds

SEARCHING = frozenset({"expert", "expert-2026", "expert-search"})
"""The levels that search (and so cost CPU worth budgeting)."""

POLICIES: dict[str, Policy] = {
    "random": random_policy,
    # the ladder's steps between random and greedy, and between greedy and the expert
    "novice": make_mixed(0.3, greedy_policy, random_policy),
    "casual": make_mixed(0.7, greedy_policy, random_policy),
    "greedy": greedy_policy,
    "intermediate": make_expert(worlds=2),
    "expert": make_expert(),
    # worlds dealt at random, no reading of the others' plays: a fixed level that a new
    # expert is measured against
    "expert-2026": make_expert(sample=chance_worlds),
    # deal-by-deal search and the exact last deal: as strong as the expert against it,
    # weaker against greedy (docs/computer.md), so not the default
    "expert-search": make_searcher(),
}
"""The bot levels a seat or a hint may name."""


LADDER = ("random", "novice", "casual", "greedy", "intermediate", "expert")
"""The levels from beginner to the expert, each winning 60-80% of its matches against the
one before (``python -m bench ladder``; docs/computer.md)."""


def policy_named(name: str) -> Policy:
    """The policy of that level; raises ``KeyError`` naming the known ones."""
    try:
        return POLICIES[name]
    except KeyError:
        raise KeyError(f"unknown bot {name!r} (known: {', '.join(POLICIES)})") from None


def bot_rng(state: State) -> random.Random:
    """The bot's randomness at this ply: derived from the match seed, so matches replay."""
    digest = hashlib.sha256(state.seed + b"/bot/" + state.ply.to_bytes(4, "big")).digest()
    return random.Random(digest)


def bot_move(state: State, seat: int, level: str, pause: Pause = no_pause) -> Move:
    """The move bot ``level`` plays for ``seat``; it sees only that seat's view."""
    return policy_named(level)(observe(state, seat), bot_rng(state), pause)


Decide = Callable[[State, int, str], Move]
"""Works out a bot's move: (state, seat, level) -> the move :func:`bot_move` plays."""


def run_bots(state: State, bots: Mapping[int, str],
             pauses: Callable[[], Pause] = lambda: no_pause,
             decide: Decide | None = None) -> tuple[State, list[Play]]:
    """Let bot seats (seat -> level) play while it is their turn, each move with a pause
    of its own from ``pauses`` (a budget a move), or worked out by ``decide`` (another
    process, say); returns the new state and their plays."""
    plays: list[Play] = []
    while not state.finished and state.turn is not None and state.turn in bots:
        seat, level = state.turn, bots[state.turn]
        move = decide(state, seat, level) if decide is not None \
            else bot_move(state, seat, level, pauses())
        state = apply_move(state, move)
        assert state.last_play is not None
        plays.append(state.last_play)
    return state, plays
