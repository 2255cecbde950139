"""What a stake costs a finish (issue 57: at most 1 ms of the move's time, the settlement
inside the finish's one-statement save on PostgreSQL): ``python -m bench stakes``.

In one process, through Flask's test client, on the bench's PostgreSQL database, two
vouched players play one-deal matches, staked and not, alternately, from the same seeds:

* **wall** and **CPU**: each match played to its last move, then that finishing move
  timed (wall and this process's CPU: the median of each kind, and the difference), its
  save statement on its own, and a finish by resignation timed likewise;
* **statements**: the statements each finishing move sends, counted (the same number
  staked and not: the settlement's transfers, balances and holds ride the statement that
  saves the match, which is checked to hold them);
* **instructions** (with ``--instructions``, valgrind installed): callgrind's count of a
  match made and resigned, staked and not, and of a match made alone, each the
  difference of runs at ``n`` and ``3n`` matches (:mod:`bench.instructions`' method):
  staked less unstaked is the holds at the seats plus the settlement at the finish, and
  less the creates' difference, the settlement alone.
"""

from __future__ import annotations

import gc
import json
import os
import random
import shutil
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from bench.http import bench_database
from bench.instructions import per_unit

MATCHES = 40
"""Matches of each kind timed (wall)."""
CURRENCY = "BENCH"
PLAYERS = ("bench-ana", "bench-bo")
STAKE = {"currency": CURRENCY, "amount": 10}
RULES = {"max_rounds": 1}
UNITS = {"made": 10, "finished": 10}
CPU: dict[str, list[float]] = {"move": [], "move_staked": [], "resign": [], "resign_staked": []}
"""This process's CPU seconds of each finish, by kind (:func:`wall` fills it)."""
SAVES: dict[str, list[float]] = {"plain": [], "staked": []}
"""Seconds of each finishing move's save statement, by kind (:func:`wall` fills it)."""
"""Each instruction workload's ``n``: matches made (and resigned)."""


def _app(url: str) -> Any:
    """An app on ``url`` with the bench's currency and players' coins (from the mint)."""
    from service import create_app
    from service.coins import accounts, ledger
    from service.coins import service as coins
    from service.coins.enums import TransferKind
    from service.storage.base import utcnow
    from service.storage.db import transaction

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "BASRA_RATE_LIMITS": "off",
                      "BASRA_ACCESS_LOG": ""})
    with app.app_context():
        coins.put_currency(1, CURRENCY, "Bench")
        with transaction(write=True):
            ledger.post(1, [ledger.Transfer(CURRENCY, accounts.MINT, accounts.player(p),
                                            10**12, TransferKind.GRANT) for p in PLAYERS],
                        utcnow())
    return app


def _create(client: Any, staked: bool) -> dict[str, Any]:
    r = client.post("/v1/matches", json={
        "players": [{"name": p, "player_id": p} for p in PLAYERS], "rules": RULES,
        **({"stake": STAKE} if staked else {})})
    assert r.status_code == 201, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


@contextmanager
def _statements(app: Any) -> Iterator[list[str]]:
    """The statements this process sends to the database meanwhile, as psycopg's cursors
    run them (SQLAlchemy's and the ones the store sends straight on psycopg alike)."""
    import psycopg

    sent: list[str] = []
    execute, executemany = psycopg.Cursor.execute, psycopg.Cursor.executemany

    def heard(cursor: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(query if isinstance(query, str) else str(query))
        return execute(cursor, query, *args, **kwargs)

    def heard_many(cursor: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(query if isinstance(query, str) else str(query))
        return executemany(cursor, query, *args, **kwargs)

    psycopg.Cursor.execute = heard  # type: ignore[method-assign]
    psycopg.Cursor.executemany = heard_many  # type: ignore[method-assign]
    try:
        yield sent
    finally:
        psycopg.Cursor.execute = execute  # type: ignore[method-assign]
        psycopg.Cursor.executemany = executemany  # type: ignore[method-assign]


@contextmanager
def _save_timed() -> Iterator[list[float]]:
    """Seconds each guarded save of a match took meanwhile (PostgreSQL: the one statement
    a finish sends with everything it writes, the database's work and its round trip)."""
    from service.storage import writes

    took: list[float] = []
    straight = writes.session_execute

    def timed(statement: str, params: dict[str, Any]) -> Any:
        t = time.perf_counter()
        cursor = straight(statement, params)
        if "UPDATE matches" in statement:
            took.append(time.perf_counter() - t)
        return cursor

    writes.session_execute = timed  # type: ignore[assignment]
    try:
        yield took
    finally:
        writes.session_execute = straight  # type: ignore[assignment]


def _finish_by_move(app: Any, client: Any, staked: bool) -> tuple[float, list[str]]:
    """A one-deal match played to its last move, then that move: its seconds and its
    statements."""
    match = _create(client, staked)
    tokens = {s["seat"]: {"Authorization": f"Bearer {s['token']}"} for s in match["seats"]}
    state = match["state"]
    while True:
        seat = state["turn"]
        mine = client.get(f"/v1/matches/{match['id']}", headers=tokens[seat]).get_json()
        card = mine["hand"][0]
        last = mine["stock_count"] == 0 and sum(mine["hand_counts"]) == 1
        with _statements(app) as sent, _save_timed() as saves:
            t, cpu = time.perf_counter(), time.process_time()
            r = client.post(f"/v1/matches/{match['id']}/moves", json={"card": card},
                            headers=tokens[seat])
            took, cpu = time.perf_counter() - t, time.process_time() - cpu
        if last:
            SAVES["staked" if staked else "plain"].extend(saves)
            CPU["move_staked" if staked else "move"].append(cpu)
        assert r.status_code == 201, r.get_json()
        state = r.get_json()["state"]
        if last:
            assert state["status"] == "finished", state["status"]
            return took, sent


def _finish_by_resigning(app: Any, client: Any, staked: bool) -> tuple[float, list[str]]:
    match = _create(client, staked)
    token = {"Authorization": f"Bearer {match['seats'][1]['token']}"}
    with _statements(app) as sent:
        t, cpu = time.perf_counter(), time.process_time()
        r = client.post(f"/v1/matches/{match['id']}/resign", headers=token)
        took, cpu = time.perf_counter() - t, time.process_time() - cpu
    CPU["resign_staked" if staked else "resign"].append(cpu)
    assert r.status_code == 200, r.get_json()
    return took, sent


def _save_of(sent: list[str]) -> str:
    """The statement that saved the finish (the guarded UPDATE of the match)."""
    saves = [s for s in sent if "UPDATE matches" in s and "version" in s]
    assert len(saves) == 1, f"{len(saves)} saves of the match"
    return saves[0]


def wall(url: str) -> dict[str, float]:
    """Median seconds of finishing moves and resignations, staked and not, and what the
    finishing statements hold."""
    from service.matches import creating

    rng = random.Random(7)
    creating.new_seed = lambda: rng.randbytes(32)  # type: ignore[attr-defined]
    app = _app(url)
    client = app.test_client()
    _finish_by_move(app, client, True)  # warm-up: statements compiled, caches filled
    _finish_by_move(app, client, False)
    times: dict[str, list[float]] = {"move": [], "move_staked": [], "resign": [],
                                     "resign_staked": []}
    counts: dict[str, set[int]] = {"plain": set(), "staked": set()}
    for i in range(MATCHES):
        for staked in (i % 2 == 0, i % 2 == 1):
            took, sent = _finish_by_move(app, client, staked)
            times["move_staked" if staked else "move"].append(took)
            counts["staked" if staked else "plain"].add(len(sent))
            save = _save_of(sent)
            assert ("INSERT INTO coin_transfers" in save) is staked, "settlement outside"
            assert ("coin_holds" in save) is staked and ("coin_accounts" in save) is staked
            took, _ = _finish_by_resigning(app, client, staked)
            times["resign_staked" if staked else "resign"].append(took)
    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    save = {k: statistics.median(v) * 1000 for k, v in SAVES.items()}
    cpu = {k: statistics.median(v[2:]) * 1000 for k, v in CPU.items()}  # past the warm-up
    figures = {
        "finish_move_ms": round(med["move"], 3),
        "finish_move_staked_ms": round(med["move_staked"], 3),
        "finish_move_stake_extra_ms": round(med["move_staked"] - med["move"], 3),
        "finish_resign_ms": round(med["resign"], 3),
        "finish_resign_staked_ms": round(med["resign_staked"], 3),
        "finish_resign_stake_extra_ms": round(med["resign_staked"] - med["resign"], 3),
        "finish_move_cpu_ms": round(cpu["move"], 3),
        "finish_move_staked_cpu_ms": round(cpu["move_staked"], 3),
        "finish_resign_cpu_ms": round(cpu["resign"], 3),
        "finish_resign_staked_cpu_ms": round(cpu["resign_staked"], 3),
        "finish_save_ms": round(save["plain"], 3),
        "finish_save_staked_ms": round(save["staked"], 3),
        "finish_statements": float(max(counts["plain"])),
        "finish_statements_staked": float(max(counts["staked"])),
    }
    print(f"a staked finish (PostgreSQL, in-process, {MATCHES} of each, medians):")
    print(f"  finishing move      {med['move']:7.3f} ms, staked {med['move_staked']:7.3f} ms:"
          f" {med['move_staked'] - med['move']:+.3f} ms")
    print(f"  its CPU here        {cpu['move']:7.3f} ms, staked {cpu['move_staked']:7.3f} ms:"
          f" {cpu['move_staked'] - cpu['move']:+.3f} ms")
    print(f"  its save statement  {save['plain']:7.3f} ms, staked {save['staked']:7.3f} ms:"
          f" {save['staked'] - save['plain']:+.3f} ms")
    print(f"  resignation         {med['resign']:7.3f} ms, staked {med['resign_staked']:7.3f}"
          f" ms: {med['resign_staked'] - med['resign']:+.3f} ms")
    print(f"  a resignation's CPU {cpu['resign']:7.3f} ms, staked {cpu['resign_staked']:7.3f} ms:"
          f" {cpu['resign_staked'] - cpu['resign']:+.3f} ms")
    print(f"  statements a finishing move sends: {sorted(counts['plain'])} unstaked, "
          f"{sorted(counts['staked'])} staked; the settlement inside the match's save")
    return figures


# --- instructions (callgrind) -------------------------------------------------------------


def _child(workload: str, units: int) -> None:
    """Run one instruction workload (under callgrind): ``units`` matches made, staked
    or not (``made_staked``), and resigned (``finished``...)."""
    from service.matches import creating

    rng = random.Random(7)
    creating.new_seed = lambda: rng.randbytes(32)  # type: ignore[attr-defined]
    app = _app(os.environ["DATABASE_URL"])
    client = app.test_client()
    staked = workload.endswith("_staked")
    gc.disable()  # a collection falls where allocations say: it would not cancel out
    for _ in range(5 + units):  # the first five warm up, in both runs alike
        match = _create(client, staked)
        if workload.startswith("finished"):
            token = {"Authorization": f"Bearer {match['seats'][1]['token']}"}
            assert client.post(f"/v1/matches/{match['id']}/resign",
                               headers=token).status_code == 200


def _per_unit(workload: str, url: str) -> int:
    """Instructions per unit of ``workload`` (this module's child), as
    ``bench instructions`` counts them."""
    return per_unit(workload, url, UNITS[workload.split("_")[0]], "bench.stakes")


def instructions(url: str) -> dict[str, float]:
    """Instructions per match made, and per match made and resigned, staked and not."""
    if shutil.which("valgrind") is None:
        print("instructions: skipped, valgrind is not installed")
        return {}
    counts = {w: _per_unit(w, url) for w in ("made", "made_staked", "finished",
                                              "finished_staked")}
    holds = counts["made_staked"] - counts["made"]
    both = counts["finished_staked"] - counts["finished"]
    print("instructions (callgrind, in-process, PostgreSQL):")
    print(f"  a match made {counts['made'] / 1e6:7.3f} M, staked (two holds) "
          f"{counts['made_staked'] / 1e6:7.3f} M: {holds / 1e6:+.3f} M")
    print(f"  made and resigned {counts['finished'] / 1e6:7.3f} M, staked "
          f"{counts['finished_staked'] / 1e6:7.3f} M: {both / 1e6:+.3f} M, of which the "
          f"settlement {(both - holds) / 1e6:+.3f} M")
    return {"made_instructions": float(counts["made"]),
            "made_staked_instructions": float(counts["made_staked"]),
            "finished_instructions": float(counts["finished"]),
            "finished_staked_instructions": float(counts["finished_staked"]),
            "settlement_instructions": float(both - holds)}


def run(with_instructions: bool = False) -> dict[str, float]:
    url = bench_database()
    figures = wall(url)
    if with_instructions:
        figures.update(instructions(url))
    return figures


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        _child(sys.argv[2], int(sys.argv[3]))
    else:
        print(json.dumps(run("--instructions" in sys.argv), sort_keys=True))
