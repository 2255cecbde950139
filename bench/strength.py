"""``python -m bench strength``: a candidate expert (the default ``expert`` today) against
greedy and against ``expert-2026`` (the expert of December 2026: Monte Carlo playouts over
100 sampled deals, drawn by chance), and ``expert-2026`` against greedy, in v1 and v2.

Each pairing plays ``MATCHES`` whole matches with ``basra simulate``'s seating (the sides
swap seats from match to match, every match its own deals), in as many processes as
there are cores; win rates come with a 95% Wilson interval. The expert's own move times
in those matches (thread CPU, p50 and p95) are printed beside them. ``python -m bench
strength 200`` plays 200 a pairing.
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Sequence

from service.engine import load_variant
from service.engine.bots import POLICIES, Pause, no_pause
from service.engine.simulate import simulate, simulate_parallel
from service.engine.view import SeatView

MATCHES = 1000
VARIANTS = ("egyptian-v1", "egyptian-v2")
CANDIDATE = "expert"
PAIRINGS = ((CANDIDATE, "greedy"), (CANDIDATE, "expert-2026"), ("expert-2026", "greedy"))


def _move_times(name: str, matches: int = 20) -> tuple[float, float]:
    """p50 and p95 of the candidate's moves (thread CPU, ms) in ``matches`` against
    greedy."""
    expert = POLICIES[CANDIDATE]
    times: list[float] = []

    def timed(view: SeatView, rng: random.Random, pause: Pause = no_pause, /) -> object:
        started = time.thread_time()
        move = expert(view, rng, pause)
        times.append(time.thread_time() - started)
        return move

    POLICIES["expert-timed"] = timed  # type: ignore[assignment]
    try:
        simulate(load_variant(name).rules, "strength-times", ("expert-timed", "greedy"),
                 matches=matches)
    finally:
        del POLICIES["expert-timed"]
    times.sort()
    return times[len(times) // 2] * 1000, times[int(len(times) * 0.95)] * 1000


def run(matches: int = MATCHES, variants: Sequence[str] = VARIANTS) -> dict[str, float]:
    """Win rates of each pairing over ``matches`` in each variant."""
    jobs = os.cpu_count() or 1
    figures: dict[str, float] = {}
    print(f"strength: {matches} matches a pairing, {jobs} processes")
    for name in variants:
        short = name.split("-")[1]
        rules = load_variant(name).rules
        p50, p95 = _move_times(name)
        print(f"  {name}: {CANDIDATE} move p50 {p50:.1f} ms, p95 {p95:.1f} ms (thread CPU)")
        figures[f"expert_{short}_move_p95_ms"] = round(p95, 1)
        for level, rival in PAIRINGS:
            report = simulate_parallel(rules, "strength", (level, rival), matches, jobs)
            rate, low, high = report.win_rate(0)
            print(f"  {name}: {level} vs {rival}: won {report.wins[0]} of {report.matches} "
                  f"({rate:.1%}, 95% Wilson {low:.1%}-{high:.1%}), {report.draws} drawn, "
                  f"{report.seconds:.0f} s")
            key = f"{level}_{short}_vs_{rival}".replace("-", "_")
            figures[f"{key}_win_rate"] = round(rate, 4)
            figures[f"{key}_wilson_low"] = round(low, 4)
            figures[f"{key}_wilson_high"] = round(high, 4)
    return figures


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else MATCHES)
