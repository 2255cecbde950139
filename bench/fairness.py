"""Fair shares between front ends: one front end floods, another plays on.

One run against gunicorn (two workers, API keys required) and one ``basra worker`` on a
fresh PostgreSQL database, rate limits kept in Redis. Front end ``quiet`` plays against
the expert (six players with their tokens, each moving every ``PACE_SECONDS`` as a
person would, in ``egyptian-v2`` matches, each move answered by the expert) and
schedules a tournament to start a few seconds ahead, first alone and then
while front end ``flood`` creates 100 twelve-hour arenas of two players each and, from
55 clients, 55 matches of three experts and a person in ``egyptian-4p`` (the experts
lead, so each create asks for three searches), all 55 at once; the quiet tournament is
scheduled once the flood's arenas are all made. Both phases are run with the default
settings and again with rate limits off (what the fair queues at the helpers and the
worker's turns do alone).

Figures: the quiet front end's move latencies (p50, p99, ms) in each phase, their ratio
to the phase without the flood, and how many seconds after its ``starts_at`` its
tournament was running; what the flood got (created, refused).
"""

from __future__ import annotations

import os
import statistics
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.http import Client, cli, fresh_database, serve, worker

DATABASE = "postgresql+psycopg://postgres@127.0.0.1:5432/basra_bench_fairness"
REDIS = os.environ.get("BASRA_BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")
PHASE_SECONDS = float(os.environ.get("BASRA_BENCH_FAIRNESS_SECONDS", "60"))
QUIET_CLIENTS = 6
PACE_SECONDS = 2.5
FLOOD_CLIENTS = 55
FLOOD_CREATES = 55
FLOOD_TOURNAMENTS = 100
GIVE_UP_SECONDS = 90.0
"""A quiet tournament not running this long after its start is reported as this late."""


def _fresh_database() -> None:
    import redis

    fresh_database(DATABASE)
    redis.Redis.from_url(REDIS).flushdb()


def _call(client: Client, method: str, path: str, key: str, body: Any = None,
          token: str | None = None) -> tuple[int, Any]:
    headers = {"X-API-Key": key}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        status, _, payload = client.request(method, path, body, headers)
    except RuntimeError as error:  # a 4xx/5xx: its status
        return int(str(error).split("-> ")[1].split(":")[0]), None
    return status, payload


def _mint(client: Client, key: str, player: str) -> str:
    status, made = _call(client, "POST", f"/v1/players/{player}/tokens", key, {})
    assert status == 201, status
    return str(made["token"])


def _quiet_moves(key: str, player: str, until: float, out: list[float],
                 refused: list[int]) -> None:
    """A player of the quiet front end plays against the expert until ``until``: each
    move's milliseconds (and the statuses of refused ones)."""
    client = Client()
    token = _mint(client, key, player)
    while time.monotonic() < until:
        status, made = _call(client, "POST", "/v1/matches", key, {
            "variant": "egyptian-v2",
             "players": [{"name": player, "player_id": player}, {"bot": "expert"}]},
            token=token)
        if status != 201:
            refused.append(status)
            time.sleep(PACE_SECONDS)
            continue
        match = made["id"]
        while time.monotonic() < until:
            _, view = _call(client, "GET", f"/v1/matches/{match}", key, token=token)
            if view is None or view["status"] != "active" or not view["legal_moves"]:
                break
            started = time.perf_counter()
            status, _ = _call(client, "POST", f"/v1/matches/{match}/moves", key,
                              view["legal_moves"][0], token=token)
            if status == 201:
                out.append((time.perf_counter() - started) * 1000)
            else:
                refused.append(status)
            time.sleep(PACE_SECONDS)


def _quiet_tournament(key: str, lead: float = 3.0) -> float:
    """Seconds from a quiet tournament's ``starts_at`` to seeing it running."""
    client = Client()
    tokens = [_mint(client, key, f"q{n}{time.monotonic_ns()}") for n in range(2)]
    starts = datetime.now(UTC) + timedelta(seconds=lead)
    status, made = _call(client, "POST", "/v1/tournaments", key, {
        "name": "quiet cup", "system": "swiss", "rounds": 1, "starts_at": starts.isoformat(),
        "clock": {"move_seconds": 60}})
    assert status == 201, status
    for token in tokens:
        _call(client, "POST", f"/v1/tournaments/{made['id']}/join", key, {}, token=token)
    while (late := (datetime.now(UTC) - starts).total_seconds()) < GIVE_UP_SECONDS:
        _, now = _call(client, "GET", f"/v1/tournaments/{made['id']}", key)
        if now and now["status"] != "scheduled":
            return late
        time.sleep(0.1)
    return late  # still scheduled: at least this late


def _flood(key: str, counts: dict[str, int], made: threading.Event) -> None:
    """The flooding front end: its arenas (``made`` set once they are), then its
    experts' creates from 55 clients at once."""
    _arenas(key, counts)
    made.set()
    _creates(key, counts)


def _arenas(key: str, counts: dict[str, int]) -> None:
    client = Client()
    for n in range(FLOOD_TOURNAMENTS):
        status, made = _call(client, "POST", "/v1/tournaments", key, {
            "name": f"flood {n}", "system": "arena", "duration_minutes": 720,
            "starts_at": datetime.now(UTC).isoformat(), "clock": {"move_seconds": 3600}})
        counts[f"tournaments_{status}"] = counts.get(f"tournaments_{status}", 0) + 1
        if status != 201:
            continue
        for player in (f"f{n}a", f"f{n}b"):
            status, minted = _call(client, "POST", f"/v1/players/{player}/tokens", key, {})
            if status == 201:
                _call(client, "POST", f"/v1/tournaments/{made['id']}/join", key, {},
                      token=minted["token"])


def _creates(key: str, counts: dict[str, int]) -> None:
    left = [FLOOD_CREATES]
    lock = threading.Lock()

    def creates() -> None:
        mine = Client()
        while True:
            with lock:
                if left[0] == 0:
                    return
                left[0] -= 1
            status, _ = _call(mine, "POST", "/v1/matches", key, {
                "variant": "egyptian-4p",
                "players": [{"bot": "expert"}] * 3 + [{"name": "flooder"}]})
            with lock:
                counts[f"creates_{status}"] = counts.get(f"creates_{status}", 0) + 1

    threads = [threading.Thread(target=creates) for _ in range(FLOOD_CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _phase(keys: dict[str, str], flood: bool) -> dict[str, Any]:
    until = time.monotonic() + PHASE_SECONDS
    moves: list[float] = []
    refused: list[int] = []
    counts: dict[str, int] = {}
    threads = [threading.Thread(target=_quiet_moves, args=(
        keys["quiet"], f"p{n}{'f' if flood else 'a'}", until, moves, refused))
        for n in range(QUIET_CLIENTS)]
    made = threading.Event()
    if flood:
        threads.append(threading.Thread(target=_flood, args=(keys["flood"], counts, made)))
    else:
        made.set()
    for thread in threads:
        thread.start()
    made.wait()  # the flood's arenas running first
    late = _quiet_tournament(keys["quiet"])
    for thread in threads:
        thread.join()
    cuts = statistics.quantiles(moves, n=100)
    return {"p50": cuts[49], "p99": cuts[98], "moves": len(moves), "start_late": late,
            **{f"quiet_refused_{s}": refused.count(s) for s in set(refused)}, **counts}


def run(settings: dict[str, str] | None = None) -> dict[str, float]:
    """Both phases, with the defaults and with limits off; the figures."""
    figures: dict[str, float] = {}
    runs = {"defaults": {}, "limits_off": {
        "BASRA_RATE_LIMITS": "off", "BASRA_TOURNAMENTS_PER_FRONT_END": "1000"}}
    wanted = os.environ.get("BASRA_BENCH_FAIRNESS_RUNS", ",".join(runs)).split(",")
    for label, extra in ((name, runs[name]) for name in wanted):
        _fresh_database()
        keys = {name: cli(DATABASE, "keys", "create", name).strip()
                for name in ("quiet", "flood")}
        env = {"DATABASE_URL": DATABASE, "BASRA_API_KEYS": "required", "REDIS_URL": REDIS,
               "WEB_CONCURRENCY": "2", "BASRA_RATE_LIMITS": "on", **extra,
               **(settings or {})}
        os.environ.update({k: v for k, v in extra.items()})
        try:
            with serve(**env), worker(DATABASE, REDIS_URL=REDIS):
                alone = _phase(keys, flood=False)
                flooded = _phase(keys, flood=True)
        finally:
            for name in extra:
                os.environ.pop(name, None)
        for phase, got in (("alone", alone), ("flood", flooded)):
            for name, value in got.items():
                figures[f"fairness_{label}_{phase}_{name}"] = round(float(value), 1)
        figures[f"fairness_{label}_p50_ratio"] = round(flooded["p50"] / alone["p50"], 2)
        figures[f"fairness_{label}_p99_ratio"] = round(flooded["p99"] / alone["p99"], 2)
        print(label, alone, flooded, file=sys.stderr, flush=True)
    return figures


if __name__ == "__main__":
    import json

    print(json.dumps(run(), sort_keys=True))
