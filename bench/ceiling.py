"""``python -m bench ceiling``: how far up a bot can go, measured by one that cheats.

A player who sees the other hands (never the stock) and otherwise plays as
``expert-2026`` does (Monte Carlo playouts over 100 deals: here only the stock is
shuffled) against ``expert-2026`` and against greedy, in v2, with ``bench strength``'s
seating (the sides swap seats from match to match, every match its own deals). What it
wins over the fair expert is what knowing the hidden cards is worth: the most any
reading of the others' plays could give. ``python -m bench ceiling 400`` plays 400
matches a pairing (default 200).
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Iterator
from multiprocessing import Pool

from service.engine import load_variant
from service.engine.bots import POLICIES, Pause, make_expert
from service.engine.bots.worlds import dealt
from service.engine.game import Move, State, apply_move, new_match
from service.engine.rules import team_of
from service.engine.simulate import match_seed, wilson
from service.engine.view import SeatView, observe

VARIANT = "egyptian-v2"
WORLDS = 100
SEEING = "seeing"


def seeing_move(state: State, seat: int, rng: random.Random) -> Move:
    """``expert-2026``'s move had it seen the other hands: its playouts over ``WORLDS``
    worlds that keep every hand as it is and shuffle only the stock."""
    fixed = {s: hand for s, hand in enumerate(state.hands) if s != seat}

    def seen(view: SeatView, rng: random.Random, count: int, pause: Pause) -> Iterator[State]:
        stock = sorted(view.unseen() - {c for hand in fixed.values() for c in hand})
        for _ in range(count):
            rng.shuffle(stock)
            yield dealt(view, stock, fixed)

    return make_expert(WORLDS, sample=seen)(observe(state, seat), rng)


def _match(args: tuple[str, str, int]) -> bool:
    """Whether the seeing player won match ``index`` against ``rival``."""
    variant, rival, index = args
    state = new_match(load_variant(variant).rules, match_seed("ceiling", index))
    rng = random.Random(f"ceiling/{index}")
    fair = POLICIES[rival]
    while not state.finished:
        seat = state.turn
        assert seat is not None
        seeing = (team_of(seat) + index) % 2 == 0
        move = seeing_move(state, seat, rng) if seeing else fair(observe(state, seat), rng)
        state = apply_move(state, move)
    return state.winner is not None and (state.winner + index) % 2 == 0


def run(matches: int = 200) -> dict[str, float]:
    """The seeing player's win rates against ``expert-2026`` and greedy."""
    figures: dict[str, float] = {}
    print(f"ceiling: a player seeing the other hands, {matches} matches a pairing, {VARIANT}")
    for rival in ("expert-2026", "greedy"):
        started = time.perf_counter()
        with Pool(os.cpu_count() or 1) as pool:
            won = sum(pool.map(_match, [(VARIANT, rival, m) for m in range(matches)]))
        rate, low, high = wilson(won, matches)
        print(f"  {SEEING} vs {rival}: won {won} of {matches} ({rate:.1%}, 95% Wilson "
              f"{low:.1%}-{high:.1%}), {time.perf_counter() - started:.0f} s")
        figures[f"seeing_vs_{rival}_win_rate".replace("-", "_")] = round(rate, 4)
    return figures


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
