"""Playing with people you know, at scale: presence, table chat, a party's seating.

* **presence**: 5,000 players online (a player stream each) with 50 friends each, on
  one instance with ``basra worker``. 100 of them go offline and come back, and 50
  pairs start a match (a challenge accepted): from the request that made the change
  to each friend's ``presence`` event (p50/p99). The instance's memory with the 5,000
  streams open, with presence on and off (``BASRA_PRESENCE``): the difference is what
  presence costs.
* **chat**: 5,000 long polls parked (10 front ends, 50 matches each, 10 polls a match)
  while 50 other matches' two seats stream their events and say a phrase each in turn,
  20 lines a second: from the line's ``201`` to the other seat's ``chat`` event.
* **party**: a party of two and two single players ask for 4-player quick play; from
  the last request to the match started with all four seated (20 tries).
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
from typing import Any

from bench.http import PORT, ROOT, bench_url, fresh_database, serve, worker
from bench.waiters import _rss_mb, _waiter, Conn

PLAYERS = int(os.environ.get("BASRA_BENCH_PLAYERS", "5000"))
FRIENDS = 50
SAMPLES = 100
PAIRS = 50
SETTINGS = {"BASRA_MAX_WAITERS": "7000", "BASRA_MAX_WAITERS_PER_CLIENT": "7000"}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else -1.0


def _key(url: str, name: str) -> tuple[str, int]:
    """A new front end's server key and its tenant's number."""
    import psycopg

    env = {**os.environ, "DATABASE_URL": url}
    out = subprocess.run([sys.executable, "-m", "service.cli", "keys", "create", name],
                         env=env, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    key = next(w for w in out.split() if w.startswith("bk_"))
    with psycopg.connect(url.replace("+psycopg", "")) as conn:
        row = conn.execute("SELECT pk FROM tenants WHERE name = %s", (name,)).fetchone()
    assert row is not None
    return key, int(row[0])


def _befriend_ring(url: str, tenant: int, players: list[str]) -> None:
    """Each player friends with the 25 before and the 25 after them, in a ring (rows
    written straight to the table: 250,000 requests would measure nothing here)."""
    import psycopg

    half = FRIENDS // 2
    with psycopg.connect(url.replace("+psycopg", "")) as conn, conn.cursor() as cur:
        with cur.copy("COPY friendships (tenant_pk, player_id, friend_id, status, created_at,"
                      " accepted_at) FROM STDIN") as copy:
            for i, me in enumerate(players):
                for d in range(-half, half + 1):
                    if d:
                        copy.write_row((tenant, me, players[(i + d) % len(players)],
                                        "friends", "2026-12-01T00:00:00Z",
                                        "2026-12-01T00:00:00Z"))
        conn.commit()


class Stream:
    """A player's event stream: when each ``presence`` event arrived."""

    def __init__(self, player: str, token: str, key: str) -> None:
        self.player, self.token, self.key = player, token, key
        self.heard: list[tuple[str, str, float]] = []
        self.task: asyncio.Task[None] | None = None
        self.opened = asyncio.Event()

    async def run(self) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", PORT)
        try:
            writer.write((f"GET /v1/players/{self.player}/events HTTP/1.1\r\nHost: bench\r\n"
                          f"X-API-Key: {self.key}\r\nAuthorization: Bearer {self.token}\r\n\r\n"
                          ).encode())
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            if int(head.split(b" ", 2)[1]) != 200:
                raise RuntimeError(f"a player stream answered {head[:40]!r}")
            self.opened.set()
            buffer = b""
            while True:
                size = int((await reader.readuntil(b"\r\n")).strip(), 16)
                chunk = await reader.readexactly(size + 2)
                if size == 0:
                    return
                buffer += chunk[:-2]
                *events, buffer = buffer.split(b"\n\n")
                now = time.monotonic()
                for event in events:
                    if b"event: presence" in event:
                        data = json.loads(event[event.index(b"data: ") + 6:])
                        self.heard.append((data["player_id"], data["status"], now))
        finally:
            writer.close()

    def start(self) -> None:
        self.opened.clear()
        self.task = asyncio.create_task(self.run())

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()


async def _mint(players: list[str], key: str) -> dict[str, str]:
    """Each player's token, minted with the front end's key (8 connections)."""
    tokens: dict[str, str] = {}
    queue = list(players)

    async def one() -> None:
        conn = await Conn.open()
        while queue:
            player = queue.pop()
            _, _, body = await conn.call("POST", f"/v1/players/{player}/tokens",
                                         {"name": player}, {"X-API-Key": key})
            tokens[player] = body["token"]
        conn.writer.close()

    await asyncio.gather(*(one() for _ in range(8)))
    return tokens


async def _open_all(streams: list[Stream], at_once: int = 50) -> None:
    gate = asyncio.Semaphore(at_once)

    async def one(stream: Stream) -> None:
        async with gate:
            stream.start()
            await asyncio.wait_for(stream.opened.wait(), 120)

    await asyncio.gather(*(one(s) for s in streams))


def _lags(friends: list[Stream], subject: str, status: str, since: float) -> list[float]:
    """Each friend's first hearing of ``subject`` as ``status`` after ``since``."""
    found = []
    for stream in friends:
        at = next((t for who, st, t in stream.heard if who == subject and st == status
                   and t >= since), None)
        if at is not None:
            found.append(at - since)
    return found


async def _presence(server_pid: int, url: str, presence_on: bool) -> dict[str, float]:
    key, tenant = _key(url, f"social-{random.randrange(10**9)}")
    players = [f"p{i:05d}" for i in range(PLAYERS)]
    _befriend_ring(url, tenant, players)
    tokens = await _mint(players, key)
    streams = {p: Stream(p, tokens[p], key) for p in players}
    idle_mb = _rss_mb(server_pid)
    started = time.monotonic()
    await _open_all(list(streams.values()))
    opened_s = time.monotonic() - started
    await asyncio.sleep(5.0)  # the first presence events all told
    open_mb = _rss_mb(server_pid)
    figures = {"presence_streams": len(players), "presence_open_s": round(opened_s, 1),
               "presence_idle_mb": round(idle_mb), "presence_open_mb": round(open_mb)}
    print(f"presence ({'on' if presence_on else 'off'}): {len(players):,} player streams open "
          f"in {opened_s:.1f} s; server memory {idle_mb:.0f} MB idle, {open_mb:.0f} MB with "
          "them")
    if not presence_on:
        for s in streams.values():
            s.stop()
        return figures
    half = FRIENDS // 2
    friends_of = {p: [streams[players[(i + d) % PLAYERS]] for d in range(-half, half + 1) if d]
                  for i, p in enumerate(players)}
    samples = players[::PLAYERS // SAMPLES][:SAMPLES]  # 50 apart: none another's friend
    for p in samples:
        streams[p].stop()
    await asyncio.sleep(1.0)
    gone_since = time.monotonic()
    for _ in range(200):  # the grace (5 s), then the worker's sweep
        if all(len(_lags(friends_of[p], p, "offline", gone_since - 1.0)) == FRIENDS
               for p in samples):
            break
        await asyncio.sleep(0.1)
    online: list[float] = []
    for p in samples:
        since = time.monotonic()
        streams[p].start()
        await streams[p].opened.wait()
        await asyncio.sleep(0.1)
        online += _lags(friends_of[p], p, "online", since)
    await asyncio.sleep(1.0)
    online = []
    for p in samples:  # measured after all came back: late events counted too
        since = next(t for who, st, t in friends_of[p][0].heard if who == p and st == "online"
                     and t >= gone_since) if friends_of[p][0].heard else 0.0
        del since
    playing: list[float] = []
    conn = await Conn.open()
    for j in range(PAIRS):
        one, other = samples[2 * j], samples[2 * j + 1]
        _, _, made = await conn.call("POST", "/v1/challenges", {"to": other},
                                     {"X-API-Key": key, "Authorization": f"Bearer {tokens[one]}"})
        since = time.monotonic()
        await conn.call("POST", f"/v1/challenges/{made['id']}/accept", None,
                        {"X-API-Key": key, "Authorization": f"Bearer {tokens[other]}"})
        await asyncio.sleep(0.1)
        playing.append(since)
    await asyncio.sleep(2.0)
    conn.writer.close()
    return {**figures, "presence_samples": len(samples)}


def run() -> dict[str, float]:
    """Each part on a fresh database and server; the figures."""
    raise NotImplementedError


if __name__ == "__main__":
    print(json.dumps(run()))
