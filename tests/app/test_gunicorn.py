"""The real server: gunicorn with several worker processes on the SQLite default."""

from __future__ import annotations

import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from service.engine.shuffle import deck_for_round
from tests.client import LARGEST_CHOOSE_FLOOR
from tests.conftest import require_postgres
from tests.servers import KeepAlive, call, gunicorn

pytestmark = [pytest.mark.process, pytest.mark.alone]  # timings: nothing beside it


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """gunicorn on a fresh SQLite file, as `make serve` runs it."""
    folder = tmp_path_factory.mktemp("serve")
    with gunicorn(f"sqlite:///{folder / 'basra.sqlite3'}") as base:
        yield base


@pytest.fixture(scope="module")
def pg_server() -> Iterator[str]:
    """gunicorn on the test PostgreSQL database."""
    # a database poll every 30 s: only a NOTIFY can wake a long poll sooner
    with gunicorn(require_postgres(), BASRA_POLL_INTERVAL="30") as base:
        yield base


def test_a_move_wakes_long_polls_in_every_worker_process(pg_server: str) -> None:
    """On PostgreSQL, a move made through one worker process wakes the long polls waiting
    in the others at once (NOTIFY), long before their wait ends."""
    _, created = call(pg_server, "POST", "/v1/matches",
                       {"players": [{"name": "a"}, {"name": "b"}]})
    token = created["seats"][0]["token"]
    url = f"{pg_server}/v1/matches/{created['id']}?wait=20"
    answers: list[tuple[int, float]] = []

    def long_poll() -> None:
        started = time.monotonic()
        req = urllib.request.Request(url, headers={"If-None-Match": '"0-spectator"'})
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                answers.append((resp.status, time.monotonic() - started))
        except urllib.error.HTTPError as err:
            answers.append((err.code, time.monotonic() - started))

    pollers = [threading.Thread(target=long_poll) for _ in range(24)]
    for t in pollers:
        t.start()
    time.sleep(1.0)
    _, mine = call(pg_server, "GET", f"/v1/matches/{created['id']}", token=token)
    move = mine["legal_moves"][0]
    status, _ = call(pg_server, "POST", f"/v1/matches/{created['id']}/moves", move, token=token)
    assert status == 201
    for t in pollers:
        t.join(60)
    assert [code for code, _ in answers] == [200] * 24
    assert max(seconds for _, seconds in answers) < 8


def test_many_clients_on_several_workers_never_hit_a_locked_database(server: str) -> None:
    """Concurrent moves on several matches through 3 worker processes sharing one SQLite
    file: every request gets its real answer (201), none fails with 'database is locked'."""
    failures: list[Any] = []

    def play_match() -> None:
        status, created = call(server, "POST", "/v1/matches",
                                {"players": [{"name": "a"}, {"name": "b"}]})
        assert status == 201, created
        tokens = {s["seat"]: s["token"] for s in created["seats"]}
        match = created["id"]
        for _ in range(16):
            _, public = call(server, "GET", f"/v1/matches/{match}")
            seat = public["turn"]
            _, mine = call(server, "GET", f"/v1/matches/{match}", token=tokens[seat])
            move = mine["legal_moves"][0]
            status, body = call(server, "POST", f"/v1/matches/{match}/moves", move,
                                 token=tokens[seat])
            if status != 201:
                failures.append(body)

    threads = [threading.Thread(target=play_match) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert failures == []
    status, page = call(server, "GET", "/v1/matches?limit=100")
    assert status == 200 and len(page["matches"]) == 8
    assert all(m["version"] == 16 for m in page["matches"])


def test_long_poll_does_not_starve_other_requests(server: str) -> None:
    """While many long polls wait, other requests are still answered at once."""
    _, created = call(server, "POST", "/v1/matches", {"players": [{"name": "a"}, {"name": "b"}]})
    url = f"{server}/v1/matches/{created['id']}?wait=6"

    statuses: list[int] = []

    def long_poll() -> None:
        req = urllib.request.Request(url, headers={"If-None-Match": '"0-spectator"'})
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                statuses.append(resp.status)
        except urllib.error.HTTPError as err:  # urllib raises on 304
            statuses.append(err.code)

    pollers = [threading.Thread(target=long_poll) for _ in range(30)]
    for t in pollers:
        t.start()
    time.sleep(0.3)
    started = time.monotonic()
    assert call(server, "GET", "/healthz")[0] == 200
    assert call(server, "GET", "/v1/variants")[0] == 200
    assert time.monotonic() - started < 3  # well before the polls' 6 s are up
    for t in pollers:
        t.join(30)
    assert statuses == [304] * 30


@pytest.fixture(scope="module")
def two_instances() -> Iterator[tuple[str, str]]:
    """Two one-worker instances on the same PostgreSQL database (one worker each, so the
    watcher's board always knows the match: the case where a stale board could lie)."""
    url = require_postgres()
    with gunicorn(url, workers=1) as a, gunicorn(url, workers=1) as b:
        yield a, b


def test_no_304_hides_a_move_acknowledged_by_another_instance(
    two_instances: tuple[str, str],
) -> None:
    """Two instances on one PostgreSQL, racing clients: a conditional GET sent to one
    instance right after another acknowledged a move (201) never answers 304."""
    stale: list[tuple[int, int]] = []
    checked: list[int] = []

    def race(index: int) -> None:
        servers = [KeepAlive(base) for base in two_instances]
        mover, watcher = servers if index % 2 else servers[::-1]
        _, created = mover.call("POST", "/v1/matches",
                                {"players": [{"name": "a"}, {"name": "b"}]})
        tokens = {s["seat"]: s["token"] for s in created["seats"]}
        match = created["id"]
        for _ in range(40):
            _, public = watcher.call("GET", f"/v1/matches/{match}")
            if public["status"] != "active":
                return
            seat = public["turn"]
            _, mine = mover.call("GET", f"/v1/matches/{match}", token=tokens[seat])
            status, body = mover.call("POST", f"/v1/matches/{match}/moves",
                                      mine["legal_moves"][0], token=tokens[seat])
            assert status == 201, body
            version = body["state"]["version"]
            status, _ = watcher.call("GET", f"/v1/matches/{match}",
                                     headers={"If-None-Match": f'"{version - 1}-spectator"'})
            checked.append(version)
            if status == 304:
                stale.append((index, version))
            mover, watcher = watcher, mover

    threads = [threading.Thread(target=race, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(checked) >= 150
    assert stale == []


def test_a_writer_waiting_for_sqlite_does_not_block_its_worker(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """While another process holds SQLite's write lock for 2 s, a move on the one worker
    waits for it without blocking that worker: health checks and views are answered at
    once, and the move is applied when the lock is released."""
    import sqlite3

    folder = tmp_path_factory.mktemp("locked")
    path = folder / "basra.sqlite3"
    with gunicorn(f"sqlite:///{path}", workers=1) as base:
        _, created = call(base, "POST", "/v1/matches", {"players": [{"name": "a"}, {"name": "b"}]})
        token = created["seats"][0]["token"]
        match = created["id"]
        _, mine = call(base, "GET", f"/v1/matches/{match}", token=token)
        holder = sqlite3.connect(path, isolation_level=None, timeout=5)
        holder.execute("BEGIN IMMEDIATE")
        result: dict[str, object] = {}

        def move() -> None:
            started = time.monotonic()
            result["status"], _ = call(base, "POST", f"/v1/matches/{match}/moves",
                                       mine["legal_moves"][0], token=token)
            result["seconds"] = time.monotonic() - started

        mover = threading.Thread(target=move)
        mover.start()
        time.sleep(0.3)
        started = time.monotonic()
        assert call(base, "GET", "/healthz")[0] == 200
        assert call(base, "GET", f"/v1/matches/{match}")[0] == 200
        assert time.monotonic() - started < 1.0  # the lock is still held for 1.7 s
        time.sleep(1.7)
        holder.execute("COMMIT")
        holder.close()
        mover.join(30)
        assert result["status"] == 201 and result["seconds"] >= 1.9


def test_a_long_bot_search_does_not_stall_its_worker(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """An expert hint on the largest choose-mode floor searches for a while; on the one
    gevent worker, health checks sent meanwhile keep being answered (the search pauses
    for them, service/live/yielding.py) instead of queueing until it is done.

    Each search is on its own fixed deal: random deals cost 0.04-0.42 s of CPU on a slow
    machine, and a search again on the same floor finds the capture cache warm and costs
    a quarter as much, which on a fast CI machine (21 ms) was too short to tell. These
    three deals cost 0.36-0.42 s each, cold."""
    folder = tmp_path_factory.mktemp("search")
    with gunicorn(f"sqlite:///{folder / 'basra.sqlite3'}", workers=1) as base:
        hints = []
        for seed in (13, 24, 19):
            deck = [str(c) for c in deck_for_round(bytes([seed]) * 32, 1)]
            _, created = call(base, "POST", "/v1/matches",
                              {"players": [{"name": "human"}, {"bot": "expert"}],
                               "rules": LARGEST_CHOOSE_FLOOR, "decks": [deck]})
            hints.append((f"/v1/matches/{created['id']}/hint?level=expert",
                          created["seats"][0]["token"]))
        answered: list[float] = []
        searches: list[tuple[float, float]] = []
        done = threading.Event()

        def health() -> None:
            client = KeepAlive(base)
            while not done.is_set():
                assert client.call("GET", "/healthz")[0] == 200
                answered.append(time.monotonic())

        checker = threading.Thread(target=health)
        checker.start()
        try:
            searcher = KeepAlive(base)
            for hint, token in hints:
                started = time.monotonic()
                assert searcher.call("GET", hint, token=token)[0] == 200
                searches.append((started, time.monotonic()))
        finally:
            done.set()
            checker.join(30)
    for started, ended in searches:
        during = [t for t in answered if started <= t <= ended]
        gaps = [b - a for a, b in zip([started, *during], [*during, ended], strict=True)]
        # the search is long enough to tell (a stalled worker answers nothing during it)
        assert ended - started > 0.03, ended - started
        assert len(during) >= 3 and max(gaps) < (ended - started) / 2, (
            ended - started, len(during), max(gaps))
