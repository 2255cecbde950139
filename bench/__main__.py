"""``make bench``: engine throughput, bot move time, HTTP throughput, history at scale.

``python -m bench engine|bots|http|waiters|history|players|tournaments|webhooks|trust|``
``social|console`` runs one part;
``strength`` (``expert`` against greedy and ``expert-2026``, and ``expert-2026``
against greedy, 1,000 matches each in v1 and v2: :mod:`bench.strength`), ``ceiling``
(a player who sees the other hands against them: :mod:`bench.ceiling`), ``duplicate``
(``expert`` against ``expert-2026`` over the same deals, seats swapped:
:mod:`bench.duplicate`) and
``ladder`` (each bot level against the one below, and their ratings, written for
``GET /v1/bots``: :func:`bench.strength.run_ladder`), ``review`` (how soon a finished
match's review is ready: :mod:`bench.review`), ``wallet`` (a player's wallet and
ledger pages over a million transfers: :mod:`bench.wallet`), ``pace`` (a person against the experts
as fast as ``/play`` allows, under the default budgets: :mod:`bench.pace`) and
``instructions`` (callgrind's counts per move, per ``/healthz`` and per round:
:mod:`bench.instructions`), ``stakes`` (a staked finish's extra cost: :mod:`bench.stakes`),
``load`` (a day of a big front end on Locust, its flags
after it: ``python -m bench load --players 20,50,100 --duration 60``: :mod:`bench.load`)
and ``soak`` (those players at a steady count on the topology for half an hour while
instances, workers, Redis and a Patroni leader are killed, its flags after it:
``python -m bench soak --minutes 30 --players 70``: :mod:`bench.soak`) and ``fairplay``
(the fair-play detector on a simulated population, its flags after it:
:mod:`bench.fairplay`) run only when named. The last
line printed is one JSON object with every figure measured (rounded medians).

``python -m bench topology up`` is no benchmark: it starts the topology operators run
(HAProxy, gunicorn instances, PgBouncer, Redis, workers) until Ctrl-C
(:mod:`bench.topology`).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

from service.engine import load_variant
from service.engine.simulate import simulate

ROUNDS = 3000


def engine_rates(name: str) -> list[float]:
    """Random-play rounds per second of three runs of one variant."""
    rules = load_variant(name).rules
    return [simulate(rules, f"bench-{i}", rounds=ROUNDS).rounds_per_second for i in range(3)]


def _rates_on(build: str, name: str) -> tuple[str, list[float]]:
    """:func:`engine_rates` in a new process on one engine build (``BASRA_ENGINE_BUILD``:
    empty for the default one), with the build's description."""
    code = ("import json, bench.__main__ as b, service.engine.build as e; "
            f"print(json.dumps([e.description, b.engine_rates({name!r})]))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, env={**os.environ, "BASRA_ENGINE_BUILD": build})
    description, rates = json.loads(out.stdout)
    return description, rates


def engine_bench() -> dict[str, float]:
    """Random-play rounds per second for v1 and v2, median of three runs, on the engine
    as installed (the mypyc build where ``make install`` could compile it) and on pure
    Python."""
    print(f"engine: basra simulate, random play, {ROUNDS} rounds a run, 3 runs")
    figures: dict[str, float] = {}
    for name in ("egyptian-v1", "egyptian-v2"):
        short = name.split("-")[1]
        for build, suffix in (("", ""), ("pure", "_pure")):
            description, rates = _rates_on(build, name)
            runs = ", ".join(f"{r:,.0f}" for r in rates)
            print(f"  {name}, {description}: median {statistics.median(rates):,.0f} rounds/s"
                  f"  (runs: {runs})")
            figures[f"engine_{short}{suffix}_rounds_per_s"] = round(statistics.median(rates))
    figures["engine_rounds_per_s"] = figures["engine_v2_rounds_per_s"]
    return figures


def bot_bench(positions: int = 200) -> dict[str, float]:
    """Time per expert move over positions of random v2 matches: p50 and p95, 3 runs."""
    import random
    import time

    from service.engine import apply_move, legal_moves, new_match, observe
    from service.engine.bots import POLICIES

    rules = load_variant("egyptian-v2").rules
    expert = POLICIES["expert"]
    print(f"bots: expert move time over {positions} positions of egyptian-v2, 3 runs")
    p50s, p95s = [], []
    for run in range(3):
        rng = random.Random(run)
        state = new_match(rules, rng.randbytes(32))
        times: list[float] = []
        while len(times) < positions:
            view = observe(state, state.turn)
            started = time.perf_counter()
            expert(view, rng)
            times.append(time.perf_counter() - started)
            moves = legal_moves(state)
            state = apply_move(state, moves[rng.randrange(len(moves))])
            if state.finished:
                state = new_match(rules, rng.randbytes(32))
        times.sort()
        p50s.append(times[len(times) // 2] * 1000)
        p95s.append(times[int(len(times) * 0.95)] * 1000)
    print(f"  expert: median p50 {statistics.median(p50s):.1f} ms, median p95 "
          f"{statistics.median(p95s):.1f} ms (target p95 <= 100 ms)")
    return {"expert_p50_ms": round(statistics.median(p50s), 1),
            "expert_p95_ms": round(statistics.median(p95s), 1)}


def main(argv: list[str]) -> int:
    """Run the benchmarks named in ``argv`` (default: all); the flags of ``load`` or
    ``soak`` follow it (the last part named); ``topology up`` starts the topology
    instead (:mod:`bench.topology`)."""
    if argv[:1] == ["topology"]:
        from bench import topology

        return topology.main(argv[1:])
    flagged = next((i for i, part in enumerate(argv) if part in ("load", "soak", "fairplay")),
                   len(argv))
    flags, argv = argv[flagged + 1:], argv[:flagged + 1]
    wanted = set(argv) or {"engine", "bots", "http", "waiters", "history", "players",
                           "tournaments", "webhooks", "trust", "social", "console"}
    figures: dict[str, float] = {}
    if "engine" in wanted:
        figures.update(engine_bench())
    if "bots" in wanted:
        figures.update(bot_bench())
    if "http" in wanted:
        from bench import http

        figures.update(http.run())
    if "waiters" in wanted:
        from bench import waiters

        figures.update(waiters.run())
    if "history" in wanted:
        from bench import history

        figures.update(history.run())
    if "players" in wanted:
        from bench import players

        figures.update(players.run())
    if "tournaments" in wanted:
        from bench import tournaments

        figures.update(tournaments.run())
    if "webhooks" in wanted:  # deliveries a second, and finishes' lag: about 4 minutes
        from bench import webhooks

        figures.update(webhooks.run())
    if "trust" in wanted:  # access taken back across two instances: about 4 minutes
        from bench import trust

        figures.update(trust.run())
    if "console" in wanted:  # the console's pages over the million matches
        from bench import console

        figures.update(console.run())
    if "social" in wanted:  # presence, chat and a party's seating: about 5 minutes
        from bench import social

        figures.update(social.run())
    if "strength" in wanted:  # about 45 minutes on two cores: only when asked for
        from bench import strength

        figures.update(strength.run())
    if "ladder" in wanted:  # the bot levels' ladder, 1,000 matches a step: about 10 minutes
        from bench import strength

        figures.update(strength.run_ladder())
    if "wallet" in wanted:  # a wallet and ledger pages over a million transfers: when asked
        from bench import wallet

        figures.update(wallet.run())
    if "ceiling" in wanted:  # a player who sees the other hands: only when asked for
        from bench import ceiling

        figures.update(ceiling.run())
    if "duplicate" in wanted:  # expert against expert-2026 over the same deals, seats swapped
        from bench import duplicate

        figures.update(duplicate.run())
    if "review" in wanted:  # 20 reviews made by the worker: about a minute
        from bench import review

        figures.update(review.run())
    if "pace" in wanted:  # a match against the expert, one against three: about a minute
        from bench import pace

        figures.update(pace.run())
    if "fairness" in wanted:  # a front end flooding beside another: about 5 minutes
        from bench import fairness

        figures.update(fairness.run())
    if "stakes" in wanted:  # a staked finish's extra cost: about a minute, only when asked
        from bench import stakes

        figures.update(stakes.run())
    if "instructions" in wanted:  # several minutes under valgrind: only when asked for
        from bench import instructions

        figures.update(instructions.run())
    if "load" in wanted:  # players online in steps, a minute each: only when asked for
        from bench.load import run as load

        figures.update(load.main(flags))
    if "soak" in wanted:  # the load on the topology while faults strike: half an hour
        from bench import soak

        figures.update(soak.main(flags))
    if "fairplay" in wanted:  # the fair-play detector on a simulated population: its flags
        from bench import fairplay

        figures.update(fairplay.main(flags))
    print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
