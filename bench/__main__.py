"""``make bench``: engine throughput (median of three runs)."""

from __future__ import annotations

import statistics
import sys

from service.engine import load_variant
from service.engine.simulate import simulate

ROUNDS = 3000


def engine_bench() -> None:
    """Random-play rounds per second for v1 and v2, median of three runs."""
    print(f"engine: basra simulate, random play, {ROUNDS} rounds a run, 3 runs")
    for name in ("egyptian-v1", "egyptian-v2"):
        rules = load_variant(name).rules
        rates = [simulate(rules, f"bench-{i}", rounds=ROUNDS).rounds_per_second for i in range(3)]
        runs = ", ".join(f"{r:,.0f}" for r in rates)
        print(f"  {name}: median {statistics.median(rates):,.0f} rounds/s  (runs: {runs})")


def main(argv: list[str]) -> int:
    """Run the benchmarks named in ``argv`` (default: all)."""
    wanted = set(argv) or {"engine", "http"}
    if "engine" in wanted:
        engine_bench()
    if "http" in wanted:
        from bench import http

        http.main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
