"""Instructions per request and per round, counted by valgrind's callgrind.

Timings on two shared cores spread by 10-20% between runs (and twice that between
machines of the same kind); an instruction count does not: the same code, inputs and
environment give the same count to within a fraction of a percent, whatever else the
machine is doing. So a change to the move path or the engine can be judged here in one
run each, before and after. Not part of the default ``make bench`` (it takes several
minutes): ``python -m bench instructions``.

Each figure is the difference between two runs of one workload, at ``n`` and ``3n``
units, divided by ``2n``: start-up and warm-up cancel out. Requests go through Flask's
test client in one process (no gunicorn, no sockets) on the bench's PostgreSQL
database; matches are dealt from fixed seeds, so every run plays the same cards, and
both runs' moves fall in one match, so its create cancels out too (a seat reads its
view each time its hand runs out: one read in four moves, as in ``bench.http``).
"""

from __future__ import annotations

import gc
import json
import os
import random
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench.http import bench_database, play_matches

ROOT = Path(__file__).resolve().parents[1]
COMPILED = ROOT / "build" / "compiled"
WORKLOADS = {"moves": 48, "healthz": 200, "engine": 100, "engine_compiled": 300}
"""Each workload and its ``n`` (units of the first run)."""
_WARM_UP = {"moves": 30, "healthz": 50, "engine": 50, "engine_compiled": 50}


def _play(client: Any, moves: int) -> int:
    """``moves`` moves as ``bench.http`` plays them, through the test client; how many
    matches that took."""

    def call(method: str, path: str, body: Any, headers: dict[str, str]) -> tuple[int, Any]:
        answer = client.open(path, method=method, json=body, headers=headers)
        return answer.status_code, answer.get_json()

    return play_matches(call, lambda done: done < moves)[1]


def _frozen() -> None:
    """What the warm-up left frozen, as a web worker freezes its app once it is loaded
    (:mod:`service.ops.collector`): a full collection within the run then walks only
    what the requests made. Without it, whether one falls inside the run (and walks
    every object the app holds, more with each module the service grows) moved a move's
    count by 17% between two trees whose Python calls were the same to 3 in 149,346."""
    gc.collect()
    gc.freeze()


def _child(workload: str, units: int) -> None:
    """Run one workload (under callgrind, started by :func:`count`)."""
    if workload.startswith("engine"):
        if workload == "engine_compiled":
            sys.path.insert(0, str(COMPILED))
        from service.engine import load_variant
        from service.engine.simulate import simulate

        rules = load_variant("egyptian-v2").rules
        simulate(rules, "warm-up", rounds=_WARM_UP[workload])
        simulate(rules, "bench-0", rounds=units)
        return
    from service import create_app
    from service.matches import creating

    client = create_app().test_client()
    if workload == "healthz":
        for _ in range(_WARM_UP[workload]):
            assert client.get("/healthz").status_code == 200
        _frozen()
        for _ in range(units):
            assert client.get("/healthz").status_code == 200
        return
    rng = random.Random(7)
    # every run deals the same matches (the seed comes from the OS otherwise); explicit
    # decks would do it through the API, but they go into every saved snapshot
    creating.new_seed = lambda: rng.randbytes(32)  # type: ignore[attr-defined]
    _play(client, _WARM_UP[workload])
    _frozen()
    if _play(client, units) != 1:
        raise RuntimeError("the moves outlasted their match: its create would not cancel out")


def count(workload: str, units: int, url: str, module: str = "bench.instructions") -> int:
    """Instructions callgrind counts for a child (``python -m module --child``) running
    ``workload`` for ``units``, on the database at ``url``."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "BASRA_RATE_LIMITS": "off",
           "BASRA_ACCESS_LOG": "", "DATABASE_URL": url}
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
         "-m", module, "--child", workload, str(units)],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind counted nothing for {workload}: {done.stderr[-500:]}")
    return int(found.group(1))


def per_unit(workload: str, url: str, n: int | None = None,
             module: str = "bench.instructions") -> int:
    """Instructions per unit of ``workload``: runs at n and 3n units, the difference."""
    n = WORKLOADS[workload] if n is None else n
    with ThreadPoolExecutor(2) as pool:  # one child a core
        low, high = pool.map(lambda units: count(workload, units, url, module), (n, 3 * n))
    return round((high - low) / (2 * n))


def run() -> dict[str, float]:
    """Count every workload; print and return the figures."""
    if shutil.which("valgrind") is None:
        print("instructions: skipped, valgrind is not installed (apt-get install valgrind)")
        return {}
    url = bench_database()
    workloads = [w for w in WORKLOADS
                 if w != "engine_compiled" or (COMPILED / "service").is_dir()]
    figures = {f"{w}_instructions": float(per_unit(w, url)) for w in workloads}
    print("instructions (callgrind, in-process, PostgreSQL for requests):")
    for workload, label in (("moves", "a move request (and a quarter of a view read)"),
                            ("healthz", "a GET /healthz"),
                            ("engine", "a random-play round, pure Python (v2)"),
                            ("engine_compiled", "the same, mypyc build")):
        if f"{workload}_instructions" in figures:
            print(f"  {label:<62} {figures[f'{workload}_instructions'] / 1e6:8.3f} M")
    ratio = figures["healthz_instructions"] / figures["moves_instructions"]
    print(f"  /healthz : move {ratio:.1%} (the share moves would reach if only this "
          "process's CPU counted)")
    figures["healthz_to_move_instructions"] = round(ratio, 3)
    return figures


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        _child(sys.argv[2], int(sys.argv[3]))
    else:
        print(json.dumps(run(), sort_keys=True))
