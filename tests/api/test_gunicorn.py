"""The real server: gunicorn with several worker processes on the SQLite default."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_postgres

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _call(base: str, method: str, path: str, body: Any = None,
          token: str | None = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


@contextlib.contextmanager
def _gunicorn(database_url: str, **settings: str) -> Iterator[str]:
    """gunicorn with 3 gevent workers on a migrated database; yields its base URL."""
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": database_url, "WEB_CONCURRENCY": "3",
           "BASRA_ACCESS_LOG": "", **settings}
    subprocess.run([sys.executable, "-m", "service.cli", "db", "upgrade"], cwd=ROOT, env=env,
                   check=True, capture_output=True)
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    proc = subprocess.Popen(
        [gunicorn, "--config", "service/gunicorn_conf.py", "--bind", f"127.0.0.1:{port}",
         "service:create_app()"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(150):
            try:
                if _call(base, "GET", "/readyz")[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("gunicorn did not start")
        yield base
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(15)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """gunicorn on a fresh SQLite file, as `make serve` runs it."""
    folder = tmp_path_factory.mktemp("serve")
    with _gunicorn(f"sqlite:///{folder / 'basra.sqlite3'}") as base:
        yield base


@pytest.fixture(scope="module")
def pg_server() -> Iterator[str]:
    """gunicorn on the test PostgreSQL database."""
    # a database poll every 30 s: only a NOTIFY can wake a long poll sooner
    with _gunicorn(require_postgres(), BASRA_POLL_INTERVAL="30") as base:
        yield base


def test_a_move_wakes_long_polls_in_every_worker_process(pg_server: str) -> None:
    """On PostgreSQL, a move made through one worker process wakes the long polls waiting
    in the others at once (NOTIFY), long before their wait ends."""
    _, created = _call(pg_server, "POST", "/v1/matches",
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
    _, mine = _call(pg_server, "GET", f"/v1/matches/{created['id']}", token=token)
    move = mine["legal_moves"][0]
    status, _ = _call(pg_server, "POST", f"/v1/matches/{created['id']}/moves", move, token=token)
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
        status, created = _call(server, "POST", "/v1/matches",
                                {"players": [{"name": "a"}, {"name": "b"}]})
        assert status == 201, created
        tokens = {s["seat"]: s["token"] for s in created["seats"]}
        match = created["id"]
        for _ in range(16):
            _, public = _call(server, "GET", f"/v1/matches/{match}")
            seat = public["turn"]
            _, mine = _call(server, "GET", f"/v1/matches/{match}", token=tokens[seat])
            move = mine["legal_moves"][0]
            status, body = _call(server, "POST", f"/v1/matches/{match}/moves", move,
                                 token=tokens[seat])
            if status != 201:
                failures.append(body)

    threads = [threading.Thread(target=play_match) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert failures == []
    status, page = _call(server, "GET", "/v1/matches?limit=100")
    assert status == 200 and len(page["matches"]) == 8
    assert all(m["version"] == 16 for m in page["matches"])


def test_long_poll_does_not_starve_other_requests(server: str) -> None:
    """While many long polls wait, other requests are still answered at once."""
    _, created = _call(server, "POST", "/v1/matches", {"players": [{"name": "a"}, {"name": "b"}]})
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
    assert _call(server, "GET", "/healthz")[0] == 200
    assert _call(server, "GET", "/v1/variants")[0] == 200
    assert time.monotonic() - started < 3  # well before the polls' 6 s are up
    for t in pollers:
        t.join(30)
    assert statuses == [304] * 30
