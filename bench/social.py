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
import subprocess
import sys
import time
from typing import Any

from bench.http import PORT, ROOT, bench_url, fresh_database, serve, worker
from bench.waiters import Conn, _rss_mb, _waiter

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
    """The presence figures (with presence off: only the memory)."""
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
    label = "on" if presence_on else "off"
    print(f"presence {label}: {len(players):,} player streams ({FRIENDS} friends each) open in "
          f"{opened_s:.1f} s; server memory {idle_mb:.0f} MB idle, {open_mb:.0f} MB with them")
    figures = {f"presence_{label}_idle_mb": round(idle_mb),
               f"presence_{label}_open_mb": round(open_mb)}
    if not presence_on:
        for stream in streams.values():
            stream.stop()
        return figures
    half = FRIENDS // 2
    friends_of = {p: [streams[players[(i + d) % PLAYERS]] for d in range(-half, half + 1) if d]
                  for i, p in enumerate(players)}
    samples = players[::PLAYERS // SAMPLES][:SAMPLES]  # 50 apart: none another's friend
    for p in samples:
        streams[p].stop()
    gone = time.monotonic()
    for _ in range(300):  # the grace (5 s), then the worker's sweep
        if all(len(_lags(friends_of[p], p, "offline", gone)) == FRIENDS for p in samples):
            break
        await asyncio.sleep(0.1)
    offline = [lag for p in samples for lag in _lags(friends_of[p], p, "offline", gone)]
    came_back: dict[str, float] = {}
    for p in samples:  # one at a time, 100 ms apart
        came_back[p] = time.monotonic()
        streams[p].start()
        await asyncio.wait_for(streams[p].opened.wait(), 30)
        await asyncio.sleep(0.1)
    pairs: list[tuple[str, str, float]] = []
    conn = await Conn.open()
    for j in range(min(PAIRS, len(samples) // 2)):
        one, other = samples[2 * j], samples[2 * j + 1]
        _, _, made = await conn.call("POST", "/v1/challenges", {"to": other}, {
            "X-API-Key": key, "Authorization": f"Bearer {tokens[one]}"})
        since = time.monotonic()
        await conn.call("POST", f"/v1/challenges/{made['id']}/accept", None, {
            "X-API-Key": key, "Authorization": f"Bearer {tokens[other]}"})
        pairs.append((one, other, since))
        await asyncio.sleep(0.1)
    conn.writer.close()
    await asyncio.sleep(3.0)  # late events counted too, never dropped
    online = [lag for p, since in came_back.items()
              for lag in _lags(friends_of[p], p, "online", since)]
    playing = [lag for one, other, since in pairs for p in (one, other)
               for lag in _lags(friends_of[p], p, "playing", since)]
    expected_online, expected_playing = len(came_back) * FRIENDS, len(pairs) * 2 * FRIENDS
    for stream in streams.values():
        stream.stop()
    print(f"  online again: {len(online):,} of {expected_online:,} friends told, p50 "
          f"{_pct(online, 0.5):.0f} ms, p99 {_pct(online, 0.99):.0f} ms (target p99 <= 250 ms)")
    print(f"  playing: {len(playing):,} of {expected_playing:,} told, p50 "
          f"{_pct(playing, 0.5):.0f} ms, p99 {_pct(playing, 0.99):.0f} ms")
    print(f"  offline after the last stream closed: {len(offline):,} told, p50 "
          f"{_pct(offline, 0.5):.0f} ms, p99 {_pct(offline, 0.99):.0f} ms (the 5 s grace "
          "and the worker's sweep, once a second, included)")
    return {**figures,
            "presence_online_p50_ms": round(_pct(online, 0.5)),
            "presence_online_p99_ms": round(_pct(online, 0.99)),
            "presence_online_missed": expected_online - len(online),
            "presence_playing_p50_ms": round(_pct(playing, 0.5)),
            "presence_playing_p99_ms": round(_pct(playing, 0.99)),
            "presence_playing_missed": expected_playing - len(playing),
            "presence_offline_p50_ms": round(_pct(offline, 0.5)),
            "presence_offline_p99_ms": round(_pct(offline, 0.99))}


CHAT_MATCHES = 50
CHAT_RATE = 20
CHAT_SECONDS = 10.0


async def _seat_stream(match: dict[str, Any], heard: dict[int, float],
                       ready: asyncio.Event) -> None:
    """Seat 1's event stream of a match: when each chat line arrived, by its id."""
    reader, writer = await asyncio.open_connection("127.0.0.1", PORT)
    try:
        writer.write((f"GET /v1/matches/{match['id']}/events HTTP/1.1\r\nHost: bench\r\n"
                      f"X-API-Key: {match['key']}\r\n"
                      f"Authorization: Bearer {match['tokens'][1]}\r\n\r\n").encode())
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        if int(head.split(b" ", 2)[1]) != 200:
            raise RuntimeError(f"a match stream answered {head[:40]!r}")
        ready.set()
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
                if event.startswith(b"event: chat"):
                    heard[json.loads(event[event.index(b"data: ") + 6:])["id"]] = now
    finally:
        writer.close()


async def _chat(server_pid: int) -> dict[str, float]:
    from bench import waiters

    matches = await waiters._setup()
    conn = await Conn.open()
    key = matches[0]["key"]
    tables = []
    for _ in range(CHAT_MATCHES):
        _, _, created = await conn.call("POST", "/v1/matches", {
            "players": [{"name": "a"}, {"name": "b"}]}, {"X-API-Key": key})
        tables.append({"id": created["id"], "key": key,
                       "tokens": [seat["token"] for seat in created["seats"]]})
    parked, wakes = [0], []  # type: ignore[var-annotated]
    stop = asyncio.Event()
    polls = [asyncio.create_task(_waiter(m, parked, wakes, stop))
             for m in matches for _ in range(waiters.WAITERS_PER_MATCH)]
    heard: dict[int, float] = {}
    readies = [asyncio.Event() for _ in tables]
    streams = [asyncio.create_task(_seat_stream(t, heard, r))
               for t, r in zip(tables, readies, strict=True)]
    for _ in range(600):
        if parked[0] >= len(polls) and all(r.is_set() for r in readies):
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(1.0)
    held = parked[0]
    said: dict[int, tuple[float, float]] = {}  # line id -> (sent, acknowledged)
    conns = [await Conn.open() for _ in range(4)]
    count = int(CHAT_RATE * CHAT_SECONDS)

    async def one(i: int) -> None:
        table, c = tables[i % len(tables)], conns[i % len(conns)]
        sent = time.monotonic()
        status, _, line = await c.call("POST", f"/v1/matches/{table['id']}/chat",
                                       {"phrase": "good_luck"}, {
                                           "X-API-Key": key,
                                           "Authorization": f"Bearer {table['tokens'][0]}"})
        if status != 201:
            raise RuntimeError(f"a line answered {status}: {line}")
        said[line["id"]] = (sent, time.monotonic())

    began = time.monotonic()
    for i in range(count):  # one a time slot, each on a connection of its own turn
        await asyncio.sleep(max(0.0, began + i / CHAT_RATE - time.monotonic()))
        await one(i)
    await asyncio.sleep(1.0)
    stop.set()
    for task in (*polls, *streams):
        task.cancel()
    lags = [heard[i] - acked for i, (_, acked) in said.items() if i in heard]
    from_send = [heard[i] - sent for i, (sent, _) in said.items() if i in heard]
    says = [acked - sent for sent, acked in said.values()]
    print(f"chat: {held:,} long polls parked; {len(said)} lines at {CHAT_RATE}/s over "
          f"{len(tables)} tables")
    print(f"  to the other seat's stream, from the 201: p50 {_pct(lags, 0.5):.1f} ms, p99 "
          f"{_pct(lags, 0.99):.1f} ms (target p99 <= 50 ms); from the request: p99 "
          f"{_pct(from_send, 0.99):.1f} ms; {len(said) - len(lags)} missed")
    print(f"  saying a line: p50 {_pct(says, 0.5):.1f} ms, p99 {_pct(says, 0.99):.1f} ms")
    return {"chat_polls_parked": held, "chat_lines": len(said),
            "chat_p50_ms": round(_pct(lags, 0.5), 1), "chat_p99_ms": round(_pct(lags, 0.99), 1),
            "chat_from_request_p99_ms": round(_pct(from_send, 0.99), 1),
            "chat_missed": len(said) - len(lags),
            "chat_say_p99_ms": round(_pct(says, 0.99), 1)}


PARTY_TRIES = 20


async def _party(url: str) -> dict[str, float]:
    key, _ = _key(url, f"party-{random.randrange(10**9)}")
    names = [f"q{t:02d}{role}" for t in range(PARTY_TRIES) for role in "lpab"]
    tokens = await _mint(names, key)
    conn = await Conn.open()

    async def call(method: str, path: str, player: str, body: Any = None) -> Any:
        status, _, got = await conn.call(method, path, body, {
            "X-API-Key": key, "Authorization": f"Bearer {tokens[player]}"})
        if status >= 400:
            raise RuntimeError(f"{method} {path} answered {status}: {got}")
        return got

    seated: list[float] = []
    for t in range(PARTY_TRIES):
        leader, partner, one, two = (f"q{t:02d}{role}" for role in "lpab")
        party = (await call("POST", "/v1/parties", leader))["id"]
        await call("POST", f"/v1/parties/{party}/invite", leader, {"player_id": partner})
        await call("POST", f"/v1/parties/{party}/join", partner)
        asks = [(leader, {"variant": "egyptian-4p", "party": party}),
                (one, {"variant": "egyptian-4p"}), (two, {"variant": "egyptian-4p"})]
        if t % 2:
            asks = asks[1:] + asks[:1]  # half the tries: the party asks last
        for player, body in asks[:-1]:
            await call("POST", "/v1/matches/quick", player, body)
        since = time.monotonic()
        last = await call("POST", "/v1/matches/quick", *asks[-1])
        took = time.monotonic() - since
        view = await call("GET", f"/v1/matches/{last['id']}", leader)
        if view["status"] != "active" or sorted(s["player_id"] for s in view["seats"]) != sorted(
                [leader, partner, one, two]) or abs(
                [s["player_id"] for s in view["seats"]].index(leader)
                - [s["player_id"] for s in view["seats"]].index(partner)) != 2:
            raise RuntimeError(f"try {t}: not seated as asked: {view['seats']}")
        seated.append(took)
    conn.writer.close()
    print(f"party: a party of two and two players alone, {PARTY_TRIES} tries: from the last "
          f"request to the match started, partners facing: p50 {_pct(seated, 0.5):.0f} ms, "
          f"worst {max(seated) * 1000:.0f} ms (target <= 2 s)")
    return {"party_seated_p50_ms": round(_pct(seated, 0.5)),
            "party_seated_max_ms": round(max(seated) * 1000)}


def run() -> dict[str, float]:
    """Each part on a fresh database and server (with ``basra worker``); the figures."""
    url = bench_url()
    figures: dict[str, float] = {}
    for presence_on in (True, False):
        fresh_database(url)
        with serve(**SETTINGS, BASRA_PRESENCE="on" if presence_on else "off") as server, \
                worker(url):
            figures.update(asyncio.run(_presence(server.pid, url, presence_on)))
    cost = (figures["presence_on_open_mb"] - figures["presence_on_idle_mb"]) - (
        figures["presence_off_open_mb"] - figures["presence_off_idle_mb"])
    figures["presence_cost_mb"] = round(cost)
    print(f"  what presence costs the instance for {PLAYERS:,} players: {cost:.0f} MB "
          "(target <= 50 MB)")
    fresh_database(url)
    with serve(**SETTINGS) as server, worker(url):
        figures.update(asyncio.run(_chat(server.pid)))
        figures.update(asyncio.run(_party(url)))
    return figures


if __name__ == "__main__":
    print(json.dumps(run()))
