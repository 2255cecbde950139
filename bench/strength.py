"""``python -m bench strength``: a candidate expert (the default ``expert`` today) against
greedy and against ``expert-2026`` (the expert of December 2026: Monte Carlo playouts over
100 sampled deals, drawn by chance), and ``expert-2026`` against greedy, in v1 and v2;
then the ladder of bot levels (:func:`run_ladder`, also ``python -m bench ladder``).

Each pairing plays ``MATCHES`` whole matches with ``basra simulate``'s seating (the sides
swap seats from match to match, every match its own deals), in as many processes as
there are cores; win rates come with a 95% Wilson interval. The expert's own move times
in those matches (thread CPU, p50 and p95) are printed beside them. ``python -m bench
strength 200`` plays 200 a pairing.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from service.engine import load_variant
from service.engine.bots import POLICIES, Pause, no_pause
from service.engine.simulate import simulate, simulate_parallel
from service.engine.view import SeatView

ROOT = Path(__file__).resolve().parent.parent
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
    figures.update(run_ladder(matches))
    return figures


LADDER_FILE = ROOT / "service" / "bots" / "ladder.json"
LADDER_VARIANT = "egyptian-v2"


def rate_ladder(results: Sequence[tuple[str, str, int, int, int]],
                seed: int = 2026) -> dict[str, tuple[float, float]]:
    """Each level's (mu, sigma) from rated matches between them, as the players are rated
    (:data:`service.players.ratings.MODEL`, every level starting where a new player
    does): ``results`` are (level, rival, level's wins, rival's wins, draws) per pairing;
    their matches are rated one at a time, the pairings taking turns, each pairing's in
    a shuffled order."""
    from service.players.ratings import MODEL

    rng = random.Random(seed)
    queues = []
    for level, rival, won, lost, drawn in results:
        outcomes = [(level, rival, False)] * won + [(rival, level, False)] * lost \
            + [(level, rival, True)] * drawn
        rng.shuffle(outcomes)
        queues.append(outcomes)
    ratings = {name: MODEL.rating() for result in results for name in result[:2]}
    for at in range(max(len(q) for q in queues)):
        for queue in queues:
            if at < len(queue):
                first, second, tie = queue[at]
                a, b = MODEL.rate([[ratings[first]], [ratings[second]]],
                                  ranks=[1, 1] if tie else [1, 2])
                ratings[first], ratings[second] = a[0], b[0]
    return {name: (r.mu, r.sigma) for name, r in ratings.items()}


def run_ladder(matches: int = MATCHES) -> dict[str, float]:
    """Each level of the ladder against the one below, ``matches`` matches in
    :data:`LADDER_VARIANT`; every level rated from them (:func:`rate_ladder`), its number
    on the players' scale as a new player's uncertainty counts it (a new player's mu of 25
    at the ladder's centre, where every level started: :func:`skill_display`); the table
    printed and written to :data:`LADDER_FILE` (what ``GET /v1/bots`` lists)."""
    from service.engine.bots import LADDER
    from service.players.ratings import skill_display

    jobs = os.cpu_count() or 1
    rules = load_variant(LADDER_VARIANT).rules
    print(f"ladder: each level against the one below, {matches} matches, {LADDER_VARIANT}, "
          f"{jobs} processes")
    results = []
    rates: dict[str, tuple[float, float, float]] = {}
    for weaker, stronger in zip(LADDER, LADDER[1:], strict=False):
        report = simulate_parallel(rules, "ladder", (stronger, weaker), matches, jobs)
        rate, low, high = report.win_rate(0)
        rates[stronger] = (rate, low, high)
        results.append((stronger, weaker, report.wins[0], report.wins[1], report.draws))
        print(f"  {stronger} vs {weaker}: won {report.wins[0]} of {report.matches} "
              f"({rate:.1%}, 95% Wilson {low:.1%}-{high:.1%}), {report.seconds:.0f} s")
    ratings = rate_ladder(results)
    levels = []
    figures: dict[str, float] = {}
    print("  level          mu     sigma  display  won against the level below")
    for level in LADDER:
        mu, sigma = ratings[level]
        shown = skill_display(mu)
        rate, low, high = rates.get(level, (float("nan"),) * 3)
        below = f"{rate:.1%} ({low:.1%}-{high:.1%})" if level in rates else "-"
        print(f"  {level:<13} {mu:6.2f} {sigma:6.2f} {shown:7d}  {below}")
        levels.append({"level": level, "mu": round(mu, 3), "sigma": round(sigma, 3),
                       "display": shown, "against_below": None if level not in rates else {
                           "win_rate": round(rate, 4), "low": round(low, 4),
                           "high": round(high, 4), "matches": matches}})
        figures[f"ladder_{level}_display"] = shown
        if level in rates:
            figures[f"ladder_{level}_vs_below_win_rate"] = round(rate, 4)
    LADDER_FILE.write_text(json.dumps({
        "variant": LADDER_VARIANT, "measured": time.strftime("%Y-%m-%d"),
        "matches": matches, "levels": levels}, indent=2) + "\n")
    print(f"  written to {LADDER_FILE.relative_to(ROOT)}")
    return figures


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else MATCHES)
