"""``python -m bench strength``: the expert against the expert as it was and against greedy.

Each pairing plays ``MATCHES`` whole matches of egyptian-v2 with ``basra simulate``'s
seating (the sides swap seats from match to match); win rates come with a 95% Wilson
interval. The expert as it was is the same search with its old 40 worlds.
"""

from __future__ import annotations

import os

from service.engine import load_variant
from service.engine.bots import POLICIES, make_expert
from service.engine.simulate import simulate_parallel

MATCHES = 400
OLD_WORLDS = 40


def run(matches: int = MATCHES) -> dict[str, float]:
    """Win rates of expert vs expert-40 and expert vs greedy over ``matches`` each."""
    POLICIES[f"expert-{OLD_WORLDS}"] = make_expert(OLD_WORLDS)
    rules = load_variant("egyptian-v2").rules
    jobs = os.cpu_count() or 1
    figures: dict[str, float] = {}
    print(f"strength: egyptian-v2, {matches} matches a pairing, {jobs} processes")
    for rival in (f"expert-{OLD_WORLDS}", "greedy"):
        report = simulate_parallel(rules, "strength", ("expert", rival), matches, jobs)
        rate, low, high = report.win_rate(0)
        print(f"  expert vs {rival}: won {report.wins[0]} of {report.matches} "
              f"({rate:.1%}, 95% Wilson {low:.1%}-{high:.1%}), {report.draws} drawn, "
              f"{report.seconds:.0f} s")
        key = "old_expert" if rival.startswith("expert") else "greedy"
        figures[f"expert_vs_{key}_win_rate"] = round(rate, 4)
        figures[f"expert_vs_{key}_wilson_low"] = round(low, 4)
        figures[f"expert_vs_{key}_wilson_high"] = round(high, 4)
    return figures
