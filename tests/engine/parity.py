"""``python -m tests.engine.parity``: one line, a digest of what the engine build that
loads (``BASRA_ENGINE_BUILD``) does over seeded matches of every variant: each position's
legal moves and snapshot, every ladder level's choice in it, and a simulated run of the
fast random path. Two builds that print the same line play the same matches
(tests/engine/test_parity.py runs it on the compiled build and on the pure Python)."""

from __future__ import annotations

import hashlib
import json
import random

from service.engine import build, load_variant, variant_names
from service.engine.bots import bot_move
from service.engine.codec import state_to_dict
from service.engine.game import apply_move, legal_moves, new_match
from service.engine.simulate import simulate

LEVELS = ("random", "novice", "casual", "greedy", "intermediate")
"""The levels whose choice is taken at every position (cheap in pure Python)."""
MATCHES = 3
"""Matches a variant; in the first, the expert plays every fourth position."""


def digest() -> tuple[str, int]:
    """(the digest, positions seen)."""
    h = hashlib.sha256()
    positions = 0
    for name in variant_names():
        rules = load_variant(name).rules
        for m in range(MATCHES):
            state = new_match(rules, f"parity/{name}/{m}".encode())
            rng = random.Random(f"parity/{name}/{m}")
            while not state.finished:
                seat = state.turn
                assert seat is not None
                moves = legal_moves(state)
                h.update(json.dumps([state_to_dict(state), [repr(x) for x in moves]],
                                    sort_keys=True, default=str).encode())
                levels = LEVELS + (("expert",) if m == 0 and positions % 4 == 0 else ())
                chosen = [bot_move(state, seat, level) for level in levels]
                h.update(repr(chosen).encode())
                state = apply_move(state, rng.choice(chosen))
                positions += 1
            h.update(json.dumps(state_to_dict(state), sort_keys=True, default=str).encode())
        report = simulate(rules, f"parity/{name}", matches=20)
        h.update(repr((report.wins, report.rounds)).encode())
    return h.hexdigest(), positions


if __name__ == "__main__":
    value, seen = digest()
    print(json.dumps({"digest": value, "positions": seen, "build": build.description}))
