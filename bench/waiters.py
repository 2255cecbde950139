"""Waiter capacity: one instance with the default settings holds 5,000 parked long
polls (10 per match, from 10 front ends) while moves are made at 50 a second; then
the same with 5,000 event streams instead.

Reports how soon a move's wake-up reaches all its waiters (from the move's 201 to
each long poll's 200, or to each stream's ``state`` event: p50/p99), move latency
with and without the waiters parked, and the server's memory per parked waiter
(RSS of its processes).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.http import PORT, ROOT, bench_url, serve

FRONT_ENDS = int(os.environ.get("BASRA_BENCH_FRONT_ENDS", "10"))
MATCHES_PER_FRONT_END = 50
WAITERS_PER_MATCH = 10
MOVES_PER_SECOND = 50
SECONDS = 10.0


class Conn:
    """One keep-alive HTTP/1.1 connection (asyncio streams: thousands fit one process)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls) -> Conn:
        return cls(*await asyncio.open_connection("127.0.0.1", PORT))

    async def call(self, method: str, path: str, body: Any = None,
                   headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], Any]:
        data = json.dumps(body).encode() if body is not None else b""
        lines = [f"{method} {path} HTTP/1.1", "Host: bench", f"Content-Length: {len(data)}"]
        if data:
            lines.append("Content-Type: application/json")
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + data)
        await self.writer.drain()
        head = await self.reader.readuntil(b"\r\n\r\n")
        status_line, *rest = head.decode().split("\r\n")
        got = {k.lower(): v.strip() for k, _, v in (x.partition(":") for x in rest if x)}
        raw = await self.reader.readexactly(int(got.get("content-length", "0")))
        return int(status_line.split()[1]), got, json.loads(raw) if raw else None


def _family(pid: int) -> list[str]:
    """A process and its children."""
    return [str(pid), *subprocess.run(["pgrep", "-P", str(pid)], capture_output=True,
                                      text=True).stdout.split()]


def _cpu_seconds(pid: int) -> float:
    """CPU time of a process and its children so far."""
    ticks = 0
    for p in _family(pid):
        fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def _rss_mb(pid: int) -> float:
    """Resident memory of a process and its children, in MB."""
    total = 0
    for p in _family(pid):
        for line in Path(f"/proc/{p}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total / 1024


async def _setup() -> list[dict[str, Any]]:
    """Front ends' keys and their matches: [{id, key, tokens}]."""
    env = {**os.environ, "DATABASE_URL": bench_url()}  # serve() made and migrated it
    suffix = random.randrange(10**9)
    keys = []
    for i in range(FRONT_ENDS):
        out = subprocess.run([sys.executable, "-m", "service.cli", "keys", "create",
                              f"bench-{suffix}-{i}"], env=env, cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout
        keys.append(next(w for w in out.split() if w.startswith("bk_")))
    conn = await Conn.open()
    matches = []
    for key in keys:
        for _ in range(MATCHES_PER_FRONT_END):
            _, _, created = await conn.call("POST", "/v1/matches", {
                "players": [{"name": "a"}, {"name": "b"}]}, {"X-API-Key": key})
            matches.append({"id": created["id"], "key": key,
                            "tokens": [s["token"] for s in created["seats"]]})
    return matches


async def _waiter(match: dict[str, Any], parked: list[int], wakes: list[tuple[str, int, float]],
                  stop: asyncio.Event) -> None:
    conn = await Conn.open()
    headers = {"X-API-Key": match["key"]}
    status, got, view = await conn.call("GET", f"/v1/matches/{match['id']}", None, headers)
    etag = got["etag"]
    while not stop.is_set():
        parked[0] += 1
        status, got, view = await conn.call(
            "GET", f"/v1/matches/{match['id']}?wait=25", None, {**headers, "If-None-Match": etag})
        parked[0] -= 1
        if status == 200:
            wakes.append((match["id"], view["version"], time.monotonic()))
            etag = got["etag"]
        elif status != 304:
            raise RuntimeError(f"a long poll answered {status}: {view}")
    conn.writer.close()


async def _streamer(match: dict[str, Any], parked: list[int],
                    wakes: list[tuple[str, int, float]], stop: asyncio.Event) -> None:
    """One event stream of a match: a wake-up is each ``state`` event after the first."""
    reader, writer = await asyncio.open_connection("127.0.0.1", PORT)
    writer.write((f"GET /v1/matches/{match['id']}/events HTTP/1.1\r\nHost: bench\r\n"
                  f"X-API-Key: {match['key']}\r\n\r\n").encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    if status != 200:
        raise RuntimeError(f"an event stream answered {status}")
    if b"chunked" not in head.lower():
        raise RuntimeError("an event stream without chunked transfer encoding")
    buffer, first = b"", True
    while not stop.is_set():
        size = int((await reader.readuntil(b"\r\n")).strip(), 16)
        chunk = await reader.readexactly(size + 2)
        if size == 0:
            break  # the stream ended (the match did)
        buffer += chunk[:-2]
        *events, buffer = buffer.split(b"\n\n")
        now = time.monotonic()
        for event in events:
            if not event.startswith(b"id: "):
                continue  # a heartbeat
            version = int(event[4:event.index(b"\n")])
            if first:
                parked[0] += 1
                first = False
            else:
                wakes.append((match["id"], version, now))
    writer.close()


async def _moves(matches: list[dict[str, Any]], count: int, rate: float,
                 acked: dict[tuple[str, int], float], latencies: list[float]) -> None:
    conns = [await Conn.open() for _ in range(8)]
    queue: asyncio.Queue[Conn] = asyncio.Queue()
    for c in conns:
        queue.put_nowait(c)

    async def one(match: dict[str, Any]) -> None:
        conn = await queue.get()
        try:
            headers = {"X-API-Key": match["key"]}
            _, _, public = await conn.call("GET", f"/v1/matches/{match['id']}", None, headers)
            if public["status"] != "active":
                return
            token = match["tokens"][public["turn"]]
            auth = {**headers, "Authorization": f"Bearer {token}"}
            _, _, mine = await conn.call("GET", f"/v1/matches/{match['id']}", None, auth)
            if not mine["legal_moves"]:
                return  # another move of this match came first
            started = time.monotonic()
            status, _, body = await conn.call("POST", f"/v1/matches/{match['id']}/moves",
                                              mine["legal_moves"][0], auth)
            done = time.monotonic()
            if status == 201:
                latencies.append(done - started)
                acked[(match["id"], body["state"]["version"])] = done
        finally:
            queue.put_nowait(conn)

    tasks = []
    start = time.monotonic()
    for i in range(count):
        await asyncio.sleep(max(0.0, start + i / rate - time.monotonic()))
        tasks.append(asyncio.create_task(one(random.choice(matches))))
    await asyncio.gather(*tasks)
    for c in conns:
        c.writer.close()


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000 if ordered else 0.0


async def _run(server_pid: int, kind: str = "polls") -> dict[str, float]:
    """One server's figures with ``kind`` ("polls" or "streams") as its waiters."""
    matches = await _setup()
    count = int(MOVES_PER_SECOND * SECONDS)
    # moves alone: the usual latency, from as many moves as are made with the waiters
    # (a p99 of a few hundred is its third-worst move: fewer left it to chance)
    alone: list[float] = []
    await _moves(matches, count, MOVES_PER_SECOND, {}, alone)
    idle_mb = _rss_mb(server_pid)
    parked, wakes = [0], []  # type: ignore[var-annotated]
    stop = asyncio.Event()
    follow = _waiter if kind == "polls" else _streamer
    waiters = [asyncio.create_task(follow(m, parked, wakes, stop))
               for m in matches for _ in range(WAITERS_PER_MATCH)]
    total = len(waiters)
    for _ in range(600):
        if parked[0] >= total:
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(1.0)  # the last ones reach the server
    parked_mb = _rss_mb(server_pid)
    held = parked[0]
    acked: dict[tuple[str, int], float] = {}
    busy: list[float] = []
    wakes.clear()
    cpu, client_cpu, wall = _cpu_seconds(server_pid), time.process_time(), time.monotonic()
    await _moves(matches, count, MOVES_PER_SECOND, acked, busy)
    wall = time.monotonic() - wall
    cpu = (_cpu_seconds(server_pid) - cpu) / wall
    client_cpu = (time.process_time() - client_cpu) / wall
    await asyncio.sleep(1.0)
    stop.set()
    lags = [max(0.0, at - acked[(mid, v)]) for mid, v, at in wakes if (mid, v) in acked]
    # a waiter that failed (refused, cut off) ends its task: say so, not only count less
    failed = [task.exception() for task in waiters if task.done() and not task.cancelled()
              and task.exception() is not None]
    for task in waiters:
        task.cancel()
    expected = sum(WAITERS_PER_MATCH for _ in acked)
    label = "long polls" if kind == "polls" else "event streams"
    print(f"waiters: {held:,} {label} parked ({total:,} asked) on gunicorn with the "
          f"default settings, {len(acked)} moves at {MOVES_PER_SECOND}/s")
    print(f"  wake-ups {len(lags):,} of {expected:,}: p50 {_pct(lags, 0.5):.1f} ms, "
          f"p99 {_pct(lags, 0.99):.1f} ms (target p99 <= 100 ms)")
    print(f"  moves alone p50 {_pct(alone, 0.5):.1f} ms p99 {_pct(alone, 0.99):.1f} ms; "
          f"with the waiters p50 {_pct(busy, 0.5):.1f} ms p99 {_pct(busy, 0.99):.1f} ms")
    print(f"  CPU while moving: server {cpu:.2f} cores, this client {client_cpu:.2f}")
    if failed:
        print(f"  {len(failed):,} waiters failed, the first with: {failed[0]!r}")
    per_waiter = (parked_mb - idle_mb) * 1024 / max(held, 1)
    print(f"  server memory {idle_mb:.0f} MB idle, {parked_mb:.0f} MB with the waiters: "
          f"{per_waiter:.1f} KB per waiter")
    return {"waiters_parked": held, "wake_p50_ms": round(_pct(lags, 0.5), 1),
            "wake_p99_ms": round(_pct(lags, 0.99), 1), "wakes_missed": expected - len(lags),
            "moves_alone_p50_ms": round(_pct(alone, 0.5), 1),
            "moves_alone_p99_ms": round(_pct(alone, 0.99), 1),
            "moves_with_waiters_p50_ms": round(_pct(busy, 0.5), 1),
            "moves_with_waiters_p99_ms": round(_pct(busy, 0.99), 1),
            "kb_per_waiter": round(per_waiter, 1), "waiters_failed": len(failed)}


RUNS = 3
STREAM_KEYS = {"waiters_parked": "streams_parked", "wake_p50_ms": "stream_wake_p50_ms",
               "wake_p99_ms": "stream_wake_p99_ms", "wakes_missed": "stream_wakes_missed",
               "moves_alone_p50_ms": "moves_alone_streams_run_p50_ms",
               "moves_alone_p99_ms": "moves_alone_streams_run_p99_ms",
               "moves_with_waiters_p50_ms": "moves_with_streams_p50_ms",
               "moves_with_waiters_p99_ms": "moves_with_streams_p99_ms",
               "kb_per_waiter": "kb_per_stream", "waiters_failed": "streams_failed"}
"""The figures of the event-stream runs, named apart from the long polls'."""


def run() -> dict[str, float]:
    """Start the server with its default settings and measure, three times (a fresh
    server each) with long polls, then three times with event streams; the figures
    are medians."""
    figures: dict[str, float] = {}
    for kind in ("polls", "streams"):
        runs = []
        for _ in range(RUNS):
            with serve() as server:
                runs.append(asyncio.run(_run(server.pid, kind)))
        medians = {key: round(statistics.median(r[key] for r in runs), 1) for key in runs[0]}
        medians["waiters_failed"] = sum(r["waiters_failed"] for r in runs)  # any, not typical
        print(f"  {kind}, median of {RUNS}: wake-ups p50 {medians['wake_p50_ms']} ms, p99 "
              f"{medians['wake_p99_ms']} ms (runs: "
              f"{', '.join(str(r['wake_p99_ms']) for r in runs)}); moves with them p99 "
              f"{medians['moves_with_waiters_p99_ms']} ms (runs: "
              f"{', '.join(str(r['moves_with_waiters_p99_ms']) for r in runs)}), alone "
              f"{medians['moves_alone_p99_ms']} ms (runs: "
              f"{', '.join(str(r['moves_alone_p99_ms']) for r in runs)})")
        figures.update(medians if kind == "polls" else
                       {STREAM_KEYS[key]: value for key, value in medians.items()})
    return figures


if __name__ == "__main__":
    print(json.dumps(run()))
