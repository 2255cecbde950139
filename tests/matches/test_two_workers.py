"""Two `basra worker`s on one PostgreSQL database (issue 56): while many clocks run out,
every deadline is applied once and every webhook message delivered once, straight to
the database or through PgBouncer in transaction mode."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta

import psycopg
import pytest

from service import create_app
from service.tenants import service as tenants
from tests.conftest import libpq_url
from tests.servers import free_port, gunicorn, migrate, pgbouncer, request, start_worker
from tests.webhooks.test_webhooks import Receiver

MATCHES = 20
MOVE_SECONDS = 5  # the shortest clock a match may have


def _until(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def _server_key(url: str, direct: str) -> dict[str, str]:
    """A server key of a front end of the test's own (the database outlives the test)."""
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "BASRA_LISTEN": False,
                      "BASRA_DIRECT_DATABASE_URL": direct})
    with app.app_context():
        return {"X-API-Key": tenants.create_key(f"two-workers-{uuid.uuid4().hex[:8]}", [])}


def _counted(port: int, metric: str) -> float:
    """A worker's metric (the series named, or the sum of its labelled ones) from its
    /metrics."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
        text = resp.read().decode()
    return sum(float(value) for value in re.findall(
        rf"^{re.escape(metric)}(?:{{[^}}]*}})? (\S+)$", text, re.MULTILINE))


def _serves_metrics(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as resp:
            return b"basra_timeout_lag_seconds" in resp.read()
    except OSError:
        return False


def _worker(url: str, settings: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    """A ``basra worker`` and the port its metrics answer on. A port free when picked may
    be another test's before the worker binds it, and the worker then stops: another is
    started on another port."""
    for _ in range(3):
        port = free_port()
        proc = start_worker(url, "--metrics-port", str(port), **settings)
        try:
            _until(lambda: proc.poll() is not None or _serves_metrics(port),  # noqa: B023
                   60, "a worker neither served its metrics nor stopped")
        except AssertionError:
            os.killpg(proc.pid, signal.SIGKILL)
            raise
        if proc.poll() is None:
            return proc, port
    raise AssertionError("three workers in a row could not bind their metrics port")


@contextlib.contextmanager
def _database(direct: str, through: str) -> Iterator[tuple[str, dict[str, str]]]:
    """The URL the service connects to and the settings that go with it."""
    if through == "direct":
        yield direct, {}
    else:
        with pgbouncer(direct) as pooled:
            yield pooled, {"BASRA_DIRECT_DATABASE_URL": direct}


@pytest.mark.process
@pytest.mark.long  # first in the process stage: 30 s or more
@pytest.mark.parametrize("through", ["direct", "pgbouncer"])
def test_two_workers_apply_each_timeout_and_deliver_each_webhook_once(
        pg_direct_url: str, through: str) -> None:
    """20 matches on 5-second clocks, two workers: each match's deadline is applied once
    (and any next one a whole clock later) and each webhook message the matches wrote
    reaches the receiver once; the workers' metrics say who did what."""
    receiver = Receiver()
    migrate(pg_direct_url)  # before the workers: one stops on a database without tables
    with _database(pg_direct_url, through) as (url, settings):
        settings = {**settings, "BASRA_WEBHOOKS_ALLOW_PRIVATE": "1"}
        workers, ports = [], []
        try:
            for _ in range(2):
                proc, port = _worker(url, settings)
                workers.append(proc)
                ports.append(port)
            with gunicorn(url, workers=1, **settings) as base:
                key = _server_key(url, settings.get("BASRA_DIRECT_DATABASE_URL", ""))
                status, hook, _ = request(base, "POST", "/v1/webhooks", {
                    "url": receiver.url, "events": ["match.started", "match.turn", "match.move"]},
                    headers=key)
                assert status == 201, hook
                matches: dict[str, tuple[datetime, str]] = {}
                for _ in range(MATCHES):
                    status, made, _ = request(base, "POST", "/v1/matches", {
                        "players": [{"name": "ann"}, {"name": "bob"}],
                        "clock": {"move_seconds": MOVE_SECONDS, "timeout": "autoplay"}},
                        headers=key)
                    assert status == 201, made
                    matches[made["id"]] = (datetime.fromisoformat(made["state"]["deadline"]),
                                           made["seats"][0]["token"])

                def timeouts(match: str) -> list[datetime]:
                    status, log, _ = request(base, "GET", f"/v1/matches/{match}/moves",
                                             headers=key)
                    assert status == 200, log
                    return [datetime.fromisoformat(m["created_at"])
                            for m in log["moves"] if m["timeout"]]

                _until(lambda: all(timeouts(m) for m in matches), MOVE_SECONDS + 15,
                       "a deadline was not applied")
                for match, (_, token) in matches.items():  # no more deadlines
                    status, _, _ = request(base, "POST", f"/v1/matches/{match}/resign", {},
                                           token, key)
                    assert status == 200
                for match, (first, _) in matches.items():
                    times = timeouts(match)
                    # applied once: the first once its deadline passed, any later one a
                    # whole clock after the one before (none twice for one deadline)
                    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
                    assert times[0] >= first, (match, first, times)
                    assert all(gap >= timedelta(seconds=MOVE_SECONDS - 0.1) for gap in gaps), \
                        (match, gaps)

                with psycopg.connect(libpq_url(pg_direct_url)) as conn:
                    def written() -> dict[str, str]:
                        return dict(conn.execute(
                            "SELECT m.msg_id, m.status FROM webhook_messages m JOIN webhooks w"
                            " ON w.pk = m.webhook_pk WHERE w.id = %s", (hook["id"],)).fetchall())

                    _until(lambda: set(written().values()) == {"delivered"}
                           and len(receiver.got) >= len(written()),
                           30, "a webhook message was not delivered")
                    sent = written()
                time.sleep(1.0)  # a second delivery would come within the pass after
                got = Counter(r.headers["webhook-id"] for r in receiver.got)
                assert set(got) == set(sent) and set(got.values()) == {1}
                moves = sum(1 for r in receiver.payloads() if r["type"] == "match.move")
                assert moves >= MATCHES
                # the database may hold other tests' matches and messages: at least ours
                applied = [_counted(port, "basra_timeout_lag_seconds_count") for port in ports]
                delivered = [_counted(port, 'basra_webhook_tries_total{outcome="delivered"}')
                             for port in ports]
                print(f"{through}: timeouts applied by each worker {applied}, messages "
                      f"delivered by each {delivered}, of ours {len(sent)}")
                assert sum(applied) >= MATCHES
                assert sum(delivered) >= len(sent)
        finally:
            for proc in workers:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)
