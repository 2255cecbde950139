"""``python -m bench duplicate``: two bot levels over the same deals, as in duplicate
bridge; ``python -m bench.duplicate [CANDIDATE [RIVAL [DECKS [VARIANT]]]]`` picks them.

Each of ``DECKS`` matches' deals (default 250, ``expert`` against ``expert-2026`` in
egyptian-v2) is played twice, the levels swapping seats, so both hold the same cards.
Where one seat wins both times the cards decided; only the other decks tell the levels
apart. Prints the candidate's win rate with a 95% interval over decks (narrower than
``bench strength``'s over as many independent matches), how many decks each level won
twice and how many the cards decided, and the mean point margin a round.
"""

from __future__ import annotations

import math
import os
import statistics
import sys
import time
from multiprocessing import Pool

from service.engine import load_variant
from service.engine.simulate import simulate

SEED = "duplicate"


def _deck(args: tuple[str, str, str, int]) -> tuple[int, float]:
    """(matches the candidate won, its points over the rival's a round) over the two
    seatings of deck ``index``."""
    variant, candidate, rival, index = args
    rules = load_variant(variant).rules
    won = 0
    margin = 0.0
    rounds = 0
    for slot, policies in ((0, (candidate, rival)), (1, (rival, candidate))):
        report = simulate(rules, SEED, policies, matches=1, first_match=index)
        won += report.wins[slot]
        margin += report.match_points[slot] - report.match_points[1 - slot]
        rounds += report.match_rounds
    return won, margin / max(rounds, 1)


def _mean_interval(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% normal interval."""
    spread = statistics.stdev(values) if len(values) > 1 else 0.0
    return statistics.fmean(values), 1.96 * spread / math.sqrt(len(values))


def run(candidate: str = "expert", rival: str = "expert-2026", decks: int = 250,
        variant: str = "egyptian-v2") -> dict[str, float]:
    """The candidate's figures over ``decks`` decks played twice."""
    started = time.perf_counter()
    with Pool(os.cpu_count() or 1) as pool:
        results = pool.map(_deck, [(variant, candidate, rival, i) for i in range(decks)])
    wins = [won for won, _ in results]
    rate, half = _mean_interval([won / 2 for won in wins])
    margin, margin_half = _mean_interval([m for _, m in results])
    both, none = wins.count(2), wins.count(0)
    print(f"duplicate: {candidate} vs {rival}, {variant}, {decks} decks played twice, "
          f"{time.perf_counter() - started:.0f} s")
    print(f"  won {sum(wins)} of {2 * decks} ({rate:.1%} +- {half:.1%}); decks won twice "
          f"{both}, lost twice {none}, decided by the cards {decks - both - none}; "
          f"margin {margin:+.2f} +- {margin_half:.2f} points a round")
    key = f"{candidate}_vs_{rival}".replace("-", "_")
    return {f"duplicate_{key}_win_rate": round(rate, 4),
            f"duplicate_{key}_cards_decided": round((decks - both - none) / decks, 4),
            f"duplicate_{key}_margin_per_round": round(margin, 2)}


if __name__ == "__main__":
    args = sys.argv[1:]
    run(*args[:2], *(int(a) for a in args[2:3]), *args[3:4])  # type: ignore[arg-type]
