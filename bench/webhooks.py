"""Webhook deliveries: how many a second reach one endpoint, and how late
``match.finished`` arrives while matches play.

A receiver in its own process (keep-alive HTTP/1.1, answering 204 at once, noting when
each message arrived) stands for a front end's fast server; ``basra worker`` delivers
with its default settings, on a fresh PostgreSQL database.

* **Throughput**: ``MESSAGES`` messages waiting for one endpoint of one front end (match
  messages of ``LANES`` matches, as the outbox writes them), then the worker started:
  deliveries per second from the first arrival to the last.
* **Finish lag**: gunicorn (the bench's settings) and the worker, one endpoint
  subscribed to every event, ``MATCHES`` clients each playing two-seat matches of one
  deal (``egyptian-v2`` to 1 point) as fast as answers come for ``SECONDS``: each
  ``match.finished``'s lag is its arrival less its ``timestamp`` (when the finish was
  written); p50, p99 and the worst, with the messages written and delivered a second.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.http import ROOT, Client, cli, fresh_database, play_matches, serve, worker

DATABASE = "postgresql+psycopg://postgres@127.0.0.1:5432/basra_bench_webhooks"
RECEIVER_PORT = int(os.environ.get("BASRA_BENCH_RECEIVER_PORT", "8798"))
MESSAGES = int(os.environ.get("BASRA_BENCH_WEBHOOK_MESSAGES", "3000"))
LANES = 60
MATCHES = 16
SECONDS = float(os.environ.get("BASRA_BENCH_WEBHOOK_SECONDS", "60"))


# ---- the receiver (its own process) -------------------------------------------------


def receive(port: int, out: str) -> None:
    """Answer every POST with 204 and note (arrival, type, the message's timestamp);
    write the notes to ``out`` as JSON on SIGTERM."""
    notes: list[tuple[float, str, str]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            notes.append((time.time(), body["type"], body["timestamp"]))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True

    def stop(*_: object) -> None:
        Path(out).write_text(json.dumps(notes))
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    server.serve_forever()


@contextlib.contextmanager
def _receiver(out: Path) -> Iterator[list[tuple[float, str, str]]]:
    """The receiver running; the list it fills with its notes once it stops."""
    proc = subprocess.Popen([sys.executable, "-m", "bench.webhooks", "receive",
                             str(RECEIVER_PORT), str(out)], cwd=ROOT)
    notes: list[tuple[float, str, str]] = []
    try:
        for _ in range(100):
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", RECEIVER_PORT), 0.2).close()
                break
            time.sleep(0.05)
        yield notes
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        notes.extend(tuple(n) for n in json.loads(out.read_text()))  # type: ignore[misc]


# ---- the service's side -------------------------------------------------------------


def _worker() -> contextlib.AbstractContextManager[subprocess.Popen[bytes]]:
    """The worker, allowed to deliver to the receiver on this machine."""
    return worker(DATABASE, BASRA_WEBHOOKS_ALLOW_PRIVATE="1", BASRA_LISTEN="0")


def _count(sql: str) -> int:
    """What a ``SELECT count(*)`` on the bench's database gives."""
    import psycopg

    with psycopg.connect(DATABASE.replace("+psycopg", "")) as conn:
        row = conn.execute(sql).fetchone()
    return int(row[0]) if row else 0


def _subscribe(key: str) -> int:
    """One endpoint of the key's front end at the receiver, every event; its pk."""
    import psycopg

    status, _, made = Client().request("POST", "/v1/webhooks", {
        "url": f"http://127.0.0.1:{RECEIVER_PORT}/hook",
        "events": ["match.started", "match.turn", "match.move", "match.finished"]},
        {"X-API-Key": key})
    assert status == 201, made
    with psycopg.connect(DATABASE.replace("+psycopg", "")) as conn:
        row = conn.execute("SELECT pk FROM webhooks WHERE id = %s", (made["id"],)).fetchone()
    assert row is not None
    return int(row[0])


def _waiting(webhook: int, count: int) -> None:
    """``count`` match.move messages due now for the endpoint, over ``LANES`` matches."""
    import psycopg

    now = datetime.now(UTC)
    stamp = now.isoformat().replace("+00:00", "Z")
    rows = []
    for n in range(count):
        match = f"bench-{n % LANES}"
        body = json.dumps({"type": "match.move", "timestamp": stamp, "data": {
            "match_id": match, "version": n // LANES + 1, "round": 1, "seat": n % 2,
            "card": "7D", "captured": ["7C"], "basra": False, "timeout": False}})
        rows.append((webhook, "msg_" + secrets.token_hex(16), "match.move", body, match))
    with psycopg.connect(DATABASE.replace("+psycopg", "")) as conn:
        columns = {r[0] for r in conn.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_name = 'webhook_messages'")}
        lanes = "lane" in columns  # not before lanes were
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO webhook_messages (webhook_pk, msg_id, type, body, status, attempts,"
                f" next_attempt_at, created_at{', lane, holds_lane' if lanes else ''}) VALUES "
                f"(%s, %s, %s, %s, 'pending', 0, now(), now(){', %s, true' if lanes else ''})",
                [r if lanes else r[:4] for r in rows])


def throughput(key: str, webhook: int, out: Path) -> dict[str, float]:
    """Deliveries a second of ``MESSAGES`` waiting messages to one endpoint."""
    _waiting(webhook, MESSAGES)
    with _receiver(out) as notes, _worker():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and _pending() > 0:
            time.sleep(0.2)
    arrivals = sorted(n[0] for n in notes)
    rate = (len(arrivals) - 1) / (arrivals[-1] - arrivals[0])
    print(f"  throughput: {len(arrivals)} of {MESSAGES} delivered, {rate:,.0f} a second")
    return {"webhook_deliveries_per_s": round(rate)}


def _pending() -> int:
    return _count("SELECT count(*) FROM webhook_messages WHERE status = 'pending'")


def finish_lag(key: str, out: Path) -> dict[str, float]:
    """How late each ``match.finished`` arrives while ``MATCHES`` clients play."""
    until = time.monotonic() + SECONDS
    moves: list[int] = []
    with _receiver(out) as notes, _worker():
        def client() -> None:
            c = Client()

            def call(method: str, path: str, body: Any,
                     headers: dict[str, str]) -> tuple[int, Any]:
                status, _, payload = c.request(method, path, body, {**headers, "X-API-Key": key})
                return status, payload

            moves.append(play_matches(call, lambda _: time.monotonic() < until,
                                      rules={"target_score": 1})[0])

        threads = [threading.Thread(target=client) for _ in range(MATCHES)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        written, waiting = _written(), _pending()
        stopped = time.monotonic()
        while time.monotonic() < stopped + 120 and _pending() > 0:  # the backlog drains
            time.sleep(0.2)
        drained = time.monotonic() - stopped
    lags = sorted(arrival - datetime.fromisoformat(stamp).timestamp()
                  for arrival, kind, stamp in notes if kind == "match.finished")
    print(f"  {MATCHES} clients playing {SECONDS:g} s: {sum(moves)} moves, {written} "
          f"messages written ({written / SECONDS:,.0f} a second), "
          f"{written - waiting} delivered meanwhile, the rest {drained:.1f} s later")
    assert lags, "no match finished"
    p99 = lags[min(len(lags) - 1, int(len(lags) * 0.99))]
    print(f"  match.finished lag over {len(lags)} finishes: p50 "
          f"{statistics.median(lags) * 1000:,.0f} ms, p99 {p99 * 1000:,.0f} ms, "
          f"worst {lags[-1] * 1000:,.0f} ms")
    return {"webhook_finished_lag_p50_ms": round(statistics.median(lags) * 1000),
            "webhook_finished_lag_p99_ms": round(p99 * 1000),
            "webhook_finishes": len(lags),
            "webhook_delivered_while_playing_per_s": round((written - waiting) / SECONDS),
            "webhook_drain_s": round(drained, 1),
            "webhook_written_per_s": round(written / SECONDS)}


def _written() -> int:
    return _count("SELECT count(*) FROM webhook_messages")


PARTS = [globals()[name] for name in
         os.environ.get("BASRA_BENCH_WEBHOOK_PARTS", "throughput,finish_lag").split(",")]


def run() -> dict[str, float]:
    """Both parts on a fresh database each; the figures."""
    import tempfile

    figures: dict[str, float] = {}
    print(f"webhooks: one endpoint, a receiver answering 204 at once; {MESSAGES} waiting "
          f"messages, then {MATCHES} clients playing for {SECONDS:g} s")
    with tempfile.TemporaryDirectory() as folder:
        for part in PARTS:
            fresh_database(DATABASE)
            key = cli(DATABASE, "keys", "create", "studio").strip()
            env = {"BASRA_API_KEYS": "required", "BASRA_WEBHOOKS_ALLOW_PRIVATE": "1",
                   "DATABASE_URL": DATABASE}
            with serve(**env):
                webhook = _subscribe(key)
                out = Path(folder) / f"{part.__name__}.json"
                got = (throughput(key, webhook, out) if part is throughput
                       else finish_lag(key, out))
            figures.update(got)
    return figures


if __name__ == "__main__":
    if sys.argv[1:2] == ["receive"]:
        receive(int(sys.argv[2]), sys.argv[3])
    else:
        print(json.dumps(run(), sort_keys=True))
