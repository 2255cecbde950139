"""Webhooks (Standard Webhooks): endpoints per front end, events written with the change
that caused them, signed deliveries with retries, no calls to private addresses."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from flask import Flask
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator
from sqlalchemy import func, select, update
from standardwebhooks.webhooks import Webhook as Verifier

from service.storage.base import utcnow
from service.storage.db import db
from service.tenants import service as tenants
from service.tenants.models import Tenant
from service.webhooks import queue
from service.webhooks import service as webhooks
from service.webhooks.dispatcher import Dispatcher
from service.webhooks.models import Webhook, WebhookAttempt, WebhookMessage
from service.webhooks.service import EVENTS
from tests.client import create, play_to_end
from tests.conftest import make_app
from tests.servers import ROOT


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    at: float


@dataclass
class Receiver:
    """A local webhook receiver: records each request; ``answer(n)`` gives the status of
    the n-th request (0-based), or None to hang without answering."""

    answer: Callable[[int], int | None] = lambda n: 200
    got: list[Received] = field(default_factory=list)
    url: str = ""

    def __post_init__(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers["Content-Length"]))
                n = len(receiver.got)
                receiver.got.append(Received(dict(self.headers), body, time.monotonic()))
                status = receiver.answer(n)
                if status is None:
                    time.sleep(30)  # a receiver that hangs
                    return
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks?tenant=t1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def payloads(self) -> list[dict[str, Any]]:
        return [json.loads(r.body) for r in self.got]


def hooked(backend: str, tmp_path: Path, **config: object) -> Flask:
    return make_app(backend, tmp_path, BASRA_WEBHOOKS_ALLOW_PRIVATE=True,
                    BASRA_KEY_CACHE_SECONDS=0, **config)


def key_of(app: Flask, name: str = "acme") -> dict[str, str]:
    with app.app_context():
        return {"X-API-Key": tenants.create_key(name, [])}


def subscribe(client: FlaskClient, key: dict[str, str], url: str,
              events: list[str] | None = None) -> dict[str, Any]:
    r = client.post("/v1/webhooks", json={"url": url, "events": events or list(EVENTS)},
                    headers=key)
    assert r.status_code == 201, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def deliver_all(app: Flask, until: Callable[[], bool], seconds: float = 60) -> None:
    """Deliver as the worker does (the dispatcher's own thread) until ``until()`` holds."""
    dispatcher = Dispatcher(app)
    dispatcher.start(0.05)
    deadline = time.monotonic() + seconds
    try:
        while not until():
            assert time.monotonic() < deadline, "deliveries did not finish"
            time.sleep(0.05)
    finally:
        dispatcher.wait()


def pending(app: Flask) -> int:
    with app.app_context():
        return int(db.session.scalar(select(func.count()).select_from(WebhookMessage)
                                     .where(WebhookMessage.status == "pending")))


def test_a_front_end_manages_its_webhooks(backend: str, tmp_path: Path) -> None:
    """Create (the secret shown only then), list, look at deliveries, delete; only with a
    key, and only the key's own webhooks."""
    app = hooked(backend, tmp_path)
    client = app.test_client()
    acme, other = key_of(app, "acme"), key_of(app, "other")
    made = subscribe(client, acme, "http://127.0.0.1:9/hooks", ["match.finished"])
    assert made["secret"].startswith("whsec_") and made["events"] == ["match.finished"]
    assert made["disabled_at"] is None
    listed = client.get("/v1/webhooks", headers=acme).get_json()["webhooks"]
    assert [w["id"] for w in listed] == [made["id"]] and "secret" not in listed[0]
    assert client.get("/v1/webhooks", headers=other).get_json()["webhooks"] == []
    r = client.get(f"/v1/webhooks/{made['id']}/deliveries", headers=acme)
    assert r.status_code == 200 and r.get_json() == {"deliveries": []}
    assert client.delete(f"/v1/webhooks/{made['id']}", headers=other).status_code == 404
    r = client.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/", "events": ["x"]},
                    headers=acme)
    assert r.status_code == 422 and r.get_json()["errors"][0]["field"] == "events[0]"
    r = client.get("/v1/webhooks")
    assert r.status_code == 401 and r.get_json()["reason"] == "missing_api_key"
    assert client.delete(f"/v1/webhooks/{made['id']}", headers=acme).status_code == 204
    r = client.get(f"/v1/webhooks/{made['id']}/deliveries", headers=acme)
    assert r.status_code == 404 and r.get_json()["reason"] == "webhook_not_found"


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:8080/hooks", "http://localhost/hooks", "http://10.1.2.3/",
    "http://192.168.0.10/", "http://169.254.169.254/latest/meta-data/", "http://[::1]/",
    "http://[::ffff:127.0.0.1]/", "http://100.64.0.1/", "ftp://example.com/hooks",
    "http://user:pw@example.com/", "not a url at all",
    # IPv6 forms that carry an IPv4 address: compatible, NAT64, 6to4, translated, Teredo
    "http://[::127.0.0.1]/", "http://[64:ff9b::a9fe:a9fe]/", "http://[2002:7f00:1::]/",
    "http://[::ffff:0:7f00:1]/", "http://[64:ff9b:1::a00:1]/",
    "http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/",
])
def test_private_and_odd_addresses_are_refused(url: str, tmp_path: Path) -> None:
    """Without BASRA_WEBHOOKS_ALLOW_PRIVATE, loopback, private, link-local (metadata),
    shared and non-http URLs are 422, and nothing is stored; so are IPv6 addresses that
    reach such an IPv4 address (the last Teredo one: client 10.0.0.1)."""
    app = make_app("sqlite", tmp_path, BASRA_KEY_CACHE_SECONDS=0)
    client = app.test_client()
    key = key_of(app)
    r = client.post("/v1/webhooks", json={"url": url, "events": ["match.move"]}, headers=key)
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["reason"] in ("webhook_url_not_allowed", "validation_error")
    assert r.get_json()["errors"][0]["field"] == "url"
    if "public address" in r.get_json()["detail"]:  # the setting that would allow it named
        assert "BASRA_WEBHOOKS_ALLOW_PRIVATE=1" in r.get_json()["detail"]
    assert client.get("/v1/webhooks", headers=key).get_json()["webhooks"] == []


@pytest.mark.long  # handed out first: the core's tail is then short tests
def test_every_event_arrives_signed_and_shows_no_hidden_card(
    backend: str, tmp_path: Path, receiver: Receiver,
) -> None:
    """A whole clocked match between two people, one of them dropped and back at the
    start: the receiver gets match.started, match.seat_dropped, match.seat_back,
    match.turn (with the deadline), one match.move per play, match.finished, and once
    the front end voids it match.voided, each verified with the standardwebhooks
    library; no payload holds a hand, the stock or the seed before the end."""
    app = hooked(backend, tmp_path)
    client = app.test_client()
    key = key_of(app)
    hook = subscribe(client, key, receiver.url)
    created = client.post("/v1/matches", headers=key, json={
        "players": [{"name": "alice"}, {"name": "bob"}],
        "clock": {"move_seconds": 600, "timeout": "autoplay"}}).get_json()
    match_id = created["id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    assert client.post(f"/v1/matches/{match_id}/seats/1/drop", headers=key).status_code == 200
    state = client.post(f"/v1/matches/{match_id}/back", headers={
        **key, "Authorization": f"Bearer {tokens[1]}"}).get_json()
    while state["status"] == "active":
        seat = {"Authorization": f"Bearer {tokens[state['turn']]}"}
        mine = client.get(f"/v1/matches/{match_id}", headers={**key, **seat}).get_json()
        move = mine["legal_moves"][0]
        r = client.post(f"/v1/matches/{match_id}/moves", json=move, headers={**key, **seat})
        state = r.get_json()["state"]
    log = client.get(f"/v1/matches/{match_id}/moves", headers=key).get_json()
    plays = [m for m in log["moves"] if m["kind"] == "play"]
    assert client.post(f"/v1/matches/{match_id}/void", headers=key,
                       json={"reason": "a test"}).status_code == 200

    deliver_all(app, lambda: pending(app) == 0)
    verifier = Verifier(hook["secret"])
    payloads = [verifier.verify(r.body, r.headers) for r in receiver.got]
    assert len({r.headers["webhook-id"] for r in receiver.got}) == len(receiver.got)
    kinds = [p["type"] for p in payloads]
    assert set(kinds) == {e for e in EVENTS if e.startswith("match.")}
    assert kinds.count("match.started") == kinds.count("match.finished") == 1
    # deliveries may overtake each other: `version` orders them
    ordered = sorted(payloads, key=lambda p: (p["data"]["version"], EVENTS.index(p["type"])))
    assert [p["type"] for p in ordered[-2:]] == ["match.finished", "match.voided"]
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    for p in payloads:
        assert set(p) == {"type", "timestamp", "data"} and p["data"]["match_id"] == match_id
        # each message is what the OpenAPI document's `webhooks` say it is
        body = spec["webhooks"][p["type"]]["post"]["requestBody"]["content"]
        Draft202012Validator({**body["application/json"]["schema"],
                              "components": spec["components"]}).validate(p)
    moves = sorted((p["data"] for p in payloads if p["type"] == "match.move"),
                   key=lambda d: d["version"])
    assert [(m["seat"], m["card"], m["captured"]) for m in moves] == \
        [(m["seat"], m["card"], m["captured"]) for m in plays]
    turns = [p["data"] for p in payloads if p["type"] == "match.turn"]
    assert {t["seat"] for t in turns} == {0, 1} and all(t["deadline"] for t in turns)
    seats = [(p["type"], p["data"]["seat"], p["data"]["stand_in"]) for p in payloads
             if p["type"].startswith("match.seat_")]
    assert sorted(seats) == [("match.seat_back", 1, "greedy"),
                             ("match.seat_dropped", 1, "greedy")]
    finished = next(p["data"] for p in payloads if p["type"] == "match.finished")
    assert finished["end_reason"] == "target_score" and finished["scores"] == state["scores"]
    assert finished["seed"] == log["seed"]
    for p in payloads:
        text = json.dumps(p)
        assert '"hand' not in text and '"stock' not in text
        if p["type"] != "match.finished":
            assert log["seed"] not in text
    # a bad signature is refused by the same library
    tampered = dict(receiver.got[0].headers, **{"webhook-id": "msg_forged"})
    with pytest.raises(Exception, match="signature"):
        verifier.verify(receiver.got[0].body, tampered)


def test_a_rolled_back_move_sends_nothing(backend: str, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The events are written with the move, all or nothing: when writing them fails
    (here two messages given one id), neither the move nor its events are kept."""
    app = hooked(backend, tmp_path)
    client = app.test_client()
    key = key_of(app)
    subscribe(client, key, "http://127.0.0.1:9/hooks")
    created = client.post("/v1/matches", headers=key,
                          json={"players": [{"name": "a"}, {"name": "b"}]}).get_json()
    queued = pending(app)
    assert queued == 2  # started, and seat 0's turn

    monkeypatch.setattr(webhooks.secrets, "token_hex", lambda _n: "0" * 32)
    seat0 = {**key, "Authorization": f"Bearer {created['seats'][0]['token']}"}
    path = f"/v1/matches/{created['id']}"
    mine = client.get(path, headers=seat0).get_json()
    r = client.post(f"{path}/moves", json=mine["legal_moves"][0], headers=seat0)
    assert r.status_code == 500
    assert pending(app) == queued
    assert client.get(path, headers=seat0).get_json()["version"] == mine["version"]
    assert client.get(f"{path}/moves", headers=key).get_json()["moves"] == []
    monkeypatch.undo()
    r = client.post(f"{path}/moves", json=mine["legal_moves"][0], headers=seat0)
    assert r.status_code == 201
    assert pending(app) == queued + 2  # the move, and seat 1's turn


def test_a_failing_receiver_gets_retries_with_growing_delays(
    backend: str, tmp_path: Path, receiver: Receiver,
) -> None:
    """A receiver answering 500: the same message (same webhook-id) again and again, each
    wait longer than the last, then failed; the endpoint is disabled at the threshold,
    and its deliveries list every attempt."""
    receiver.answer = lambda n: 500
    app = hooked(backend, tmp_path, BASRA_WEBHOOK_RETRY_SECONDS=0.3, BASRA_WEBHOOK_ATTEMPTS=4,
                 BASRA_WEBHOOK_DISABLE_AFTER=1)
    client = app.test_client()
    key = key_of(app)
    hook = subscribe(client, key, receiver.url, ["match.started"])
    client.post("/v1/matches", headers=key, json={"players": [{"name": "a"}, {"name": "b"}]})
    deliver_all(app, lambda: pending(app) == 0, seconds=30)
    assert len(receiver.got) == 4
    assert len({r.headers["webhook-id"] for r in receiver.got}) == 1
    gaps = [b.at - a.at for a, b in zip(receiver.got, receiver.got[1:], strict=False)]
    # each wait at least its delay less the jitter (0.3 s x 4^n, -20%): a busy machine
    # can only make a wait longer (one stalled 0.9 s in a CI rehearsal), never shorter
    assert all(gap >= 0.3 * 4**n * 0.8 - 0.05 for n, gap in enumerate(gaps)), gaps
    assert gaps[2] > max(gaps[0], gaps[1]), gaps
    attempts = client.get(f"/v1/webhooks/{hook['id']}/deliveries",
                          headers=key).get_json()["deliveries"]
    assert [a["status_code"] for a in attempts] == [500] * 4
    assert all(a["message_status"] == "failed" and a["error"] == "HTTP 500" for a in attempts)
    listed = client.get("/v1/webhooks", headers=key).get_json()["webhooks"]
    assert listed[0]["disabled_at"] is not None
    # a disabled endpoint gets nothing more
    client.post("/v1/matches", headers=key, json={"players": [{"name": "a"}, {"name": "b"}]})
    assert pending(app) == 0


def _worker(database_url: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "DATABASE_URL": database_url, "BASRA_WEBHOOKS_ALLOW_PRIVATE": "1",
           "BASRA_WEBHOOK_TIMEOUT_SECONDS": "1", "BASRA_LISTEN": "0"}
    return subprocess.Popen([sys.executable, "-m", "service.cli", "worker", "--interval", "0.1"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


@pytest.mark.process
def test_a_worker_killed_mid_delivery_means_a_retry_with_the_same_id(
    backend: str, tmp_path: Path, receiver: Receiver,
) -> None:
    """kill -9 of `basra worker` while the receiver holds its request: another worker
    sends the message again when the lease ends, with the same webhook-id."""
    receiver.answer = lambda n: None if n == 0 else 204
    app = hooked(backend, tmp_path)
    client = app.test_client()
    key = key_of(app)
    subscribe(client, key, receiver.url, ["match.started"])
    client.post("/v1/matches", headers=key, json={"players": [{"name": "a"}, {"name": "b"}]})
    url = app.config["SQLALCHEMY_DATABASE_URI"]
    first = _worker(url)
    try:
        deadline = time.monotonic() + 20
        while not receiver.got:
            assert time.monotonic() < deadline, "the first worker never called"
            time.sleep(0.05)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(10)
        with app.app_context():  # its lease ends (timeout x 2 + 10 s), as if that time passed
            db.session.execute(update(WebhookMessage).values(next_attempt_at=utcnow()))
            db.session.commit()
        second = _worker(url)
        try:
            deadline = time.monotonic() + 20
            while pending(app):
                assert time.monotonic() < deadline, "the message was never retried"
                time.sleep(0.1)
        finally:
            os.killpg(second.pid, signal.SIGKILL)
            second.wait(10)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
    ids = [r.headers["webhook-id"] for r in receiver.got]
    assert len(ids) == 2 and ids[0] == ids[1]
    assert receiver.got[0].body == receiver.got[1].body


def test_two_workers_never_send_a_message_twice_at_once(
    backend: str, tmp_path: Path, receiver: Receiver,
) -> None:
    """Claims are leased: two dispatchers passing together deliver each message once."""
    app = hooked(backend, tmp_path)
    client = app.test_client()
    key = key_of(app)
    subscribe(client, key, receiver.url, ["match.started"])
    for _ in range(12):
        client.post("/v1/matches", headers=key, json={"players": [{"name": "a"}, {"name": "b"}]})
    one, two = Dispatcher(app), Dispatcher(app)
    with app.app_context():
        for _ in range(200):
            if not pending(app):
                break
            one.pass_once()
            two.pass_once()
            time.sleep(0.02)
    one.wait()
    two.wait()
    ids = [r.headers["webhook-id"] for r in receiver.got]
    assert len(ids) == 12 and len(set(ids)) == 12


def test_a_pass_that_cannot_store_its_tries_keeps_them_for_the_next(
    backend: str, tmp_path: Path, receiver: Receiver, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A pass whose transaction fails (a deadlock, a failover) after its tries were sent
    stores them on the next pass: the delivered messages are never sent again when their
    leases run out."""
    from service.webhooks import queue

    app = hooked(backend, tmp_path)
    client = app.test_client()
    key = key_of(app)
    subscribe(client, key, receiver.url, ["match.started"])
    for _ in range(3):
        client.post("/v1/matches", headers=key, json={"players": [{"name": "a"}, {"name": "b"}]})
    dispatcher = Dispatcher(app)
    real = queue.record
    failures = iter([True])

    def record_once_failing(*args: Any) -> Any:
        if next(failures, False):
            raise RuntimeError("deadlock detected")
        return real(*args)

    monkeypatch.setattr(queue, "record", record_once_failing)
    with app.app_context():
        assert dispatcher.pass_once() == 3
        while len(receiver.got) < 3 or any(not f.done() for f in dispatcher.running):
            time.sleep(0.01)
        assert dispatcher.pass_once() == 0 and len(dispatcher.ended) == 3  # the failed pass
        dispatcher.pass_once()
        assert dispatcher.ended == [] and pending(app) == 0
    dispatcher.wait()
    assert len(receiver.got) == 3


def test_metrics_move_after_a_played_match(client: FlaskClient,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """/metrics (Prometheus text): moves, requests by route and status, matches by status."""
    from service.ops import metrics

    monkeypatch.setattr(metrics._Database, "DB_SECONDS", 0.0)

    def sample(text: str, name: str) -> float:
        for line in text.splitlines():
            if line.startswith(name + " ") or line.startswith(name + "{") and \
                    line.split(" ")[0] == name:
                return float(line.rsplit(" ", 1)[1])
        return 0.0

    before = client.get("/metrics")
    assert before.status_code == 200 and before.content_type.startswith("text/plain")
    text = before.get_data(as_text=True)
    moves_before = sample(text, "basra_moves_total")
    route = 'basra_http_requests_total{method="POST",route="/v1/matches/<string:match_id>/moves",status="201"}'
    posted_before = sample(text, route)
    created = create(client)
    end = play_to_end(client, created)
    after = client.get("/metrics").get_data(as_text=True)
    log = client.get(f"/v1/matches/{created['id']}/moves").get_json()
    plays = sum(1 for m in log["moves"] if m["kind"] == "play")
    assert end["status"] == "finished"
    assert sample(after, "basra_moves_total") - moves_before == plays
    assert sample(after, route) - posted_before == plays
    assert sample(after, 'basra_matches{status="finished"}') >= 1
    assert 'basra_http_request_duration_seconds_bucket{' in after
    assert "basra_webhook_messages" in after and "basra_open_waiters" in after


def test_made_up_methods_add_no_series_to_the_metrics(client: FlaskClient) -> None:
    """Any method name a client makes up is counted as `other`: a flood of them cannot
    grow the scrape."""
    series = 'basra_http_requests_total{method="other",route="unmatched",status="405"} '

    def counted() -> float:
        text = client.get("/metrics").get_data(as_text=True)
        assert "BREW" not in text
        found = [line for line in text.splitlines() if line.startswith(series)]
        return float(found[0].rsplit(" ", 1)[1]) if found else 0.0

    before = counted()
    for i in range(20):
        assert client.open("/healthz", method=f"BREW{i}").status_code == 405
    assert counted() - before == 20


def test_requests_carry_a_request_id(client: FlaskClient, app: Flask) -> None:
    """X-Request-ID is kept when sane, made up otherwise, returned always, and in the
    JSON log lines of the request."""
    import logging

    from service.ops.logs import JsonFormatter

    r = client.get("/healthz", headers={"X-Request-ID": "lb-1234.abc"})
    assert r.headers["X-Request-ID"] == "lb-1234.abc"
    for hostile in ("a b", "x" * 200, "<script>"):
        r = client.get("/healthz", headers={"X-Request-ID": hostile})
        assert len(r.headers["X-Request-ID"]) == 32 and r.headers["X-Request-ID"] != hostile
    r = client.get("/v1/matches/nope")
    assert r.status_code == 404 and len(r.headers["X-Request-ID"]) == 32
    with app.test_request_context("/v1/matches", headers={"X-Request-ID": "req-42"}):
        app.preprocess_request()
        record = logging.LogRecord("service", logging.WARNING, __file__, 1, "slow %s", ("x",),
                                   None)
        record.match_id = "m-1"
        line = json.loads(JsonFormatter().format(record))
    assert line["request_id"] == "req-42" and line["message"] == "slow x"
    assert line["level"] == "warning" and line["match_id"] == "m-1"


@pytest.mark.process
def test_gunicorn_workers_add_up_their_metrics(tmp_path: Path) -> None:
    """Under gunicorn (3 worker processes) /metrics counts every process's requests."""
    from tests.servers import call, gunicorn

    with gunicorn(f"sqlite:///{tmp_path / 'basra.sqlite3'}", workers=3) as base:
        for _ in range(30):
            call(base, "GET", "/healthz")
        _, created = call(base, "POST", "/v1/matches",
                          {"players": [{"name": "a"}, {"bot": "random"}]})
        token = created["seats"][0]["token"]
        _, mine = call(base, "GET", f"/v1/matches/{created['id']}", token=token)
        call(base, "POST", f"/v1/matches/{created['id']}/moves", mine["legal_moves"][0], token)
        import urllib.request

        text = urllib.request.urlopen(base + "/metrics", timeout=10).read().decode()
    line = next(x for x in text.splitlines()
                if x.startswith('basra_http_requests_total{method="GET",route="/healthz"'))
    assert float(line.rsplit(" ", 1)[1]) >= 30  # the readiness probe's may add a few
    moves = next(x for x in text.splitlines() if x.startswith("basra_moves_total"))
    assert float(moves.rsplit(" ", 1)[1]) == 2  # alice's play and the bot's reply


class Trickler:
    """A hostile receiver: it accepts, then sends its answer a byte every ``every``
    seconds, never finishing (each read on its socket succeeds well within a timeout)."""

    def __init__(self, every: float = 0.3) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/slow"
        self.every = every
        self.connections = 0
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        self.listener.settimeout(0.2)
        while not self.stop.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:  # closed by close()
                return
            self.connections += 1
            threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    def _trickle(self, conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)
            for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 10_000:
                if self.stop.wait(self.every):
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    return

    def close(self) -> None:
        self.stop.set()
        self.listener.close()


def test_a_trickling_receiver_is_cut_at_the_deadline_and_delays_only_its_front_end(
    backend: str, tmp_path: Path, receiver: Receiver,
) -> None:
    """One front end's receiver trickles a byte every 0.3 s: each try of it ends at the
    1 s deadline (not 0.3 s per read, for ever), it holds at most its share of the
    threads, is never claimed again while a try runs, and another front end's 30
    messages are all delivered within seconds meanwhile."""
    trickler = Trickler()
    app = hooked(backend, tmp_path, BASRA_WEBHOOK_TIMEOUT_SECONDS=1.0,
                 BASRA_WEBHOOK_RETRY_SECONDS=60, BASRA_WEBHOOK_THREADS=4,
                 BASRA_WEBHOOK_THREADS_PER_FRONT_END=2)
    client = app.test_client()
    slow, quick = key_of(app, "slowpoke"), key_of(app, "acme")
    subscribe(client, slow, trickler.url, ["match.started"])
    subscribe(client, quick, receiver.url, ["match.started"])
    for _ in range(12):  # the slow front end's backlog comes first in the queue
        client.post("/v1/matches", headers=slow, json={"players": [{"name": "a"}, {"name": "b"}]})
    for _ in range(30):
        client.post("/v1/matches", headers=quick, json={"players": [{"name": "a"}, {"name": "b"}]})
    dispatcher = Dispatcher(app)
    started = time.monotonic()
    most_slow = 0
    try:
        with app.app_context():
            while len(receiver.got) < 30:
                assert time.monotonic() - started < 8, (len(receiver.got), trickler.connections)
                dispatcher.pass_once()
                most_slow = max(most_slow, trickler.connections - _tries_of(app, "slowpoke"))
                time.sleep(0.05)
            delivered_in = time.monotonic() - started
            while _tries_of(app, "slowpoke") < 2:  # the first tries end by their deadline
                assert time.monotonic() - started < 8
                dispatcher.pass_once()
                time.sleep(0.05)
        dispatcher.wait()
    finally:
        trickler.close()
    assert delivered_in < 5
    assert most_slow <= 2  # never more than its share open at once
    with app.app_context():
        attempts = db.session.execute(select(WebhookAttempt.duration_ms, WebhookAttempt.error)
                                      .join(Webhook, Webhook.pk == WebhookAttempt.webhook_pk)
                                      .join(Tenant, Tenant.pk == Webhook.tenant_pk)
                                      .where(Tenant.name == "slowpoke")).all()
        tries = db.session.scalars(select(WebhookMessage.attempts).join(Webhook)
                                   .join(Tenant, Tenant.pk == Webhook.tenant_pk)
                                   .where(Tenant.name == "slowpoke")).all()
    assert attempts and all(900 <= ms < 2500 for ms, _ in attempts), attempts
    assert all("deadline" in (error or "") for _, error in attempts), attempts
    assert max(tries) == 1  # the lease held: no message was claimed twice meanwhile


def _tries_of(app: Flask, tenant: str) -> int:
    """How many tries of ``tenant``'s messages have been recorded (ended)."""
    return int(db.session.scalar(
        select(func.count()).select_from(WebhookAttempt).join(Webhook)
        .join(Tenant, Tenant.pk == Webhook.tenant_pk).where(Tenant.name == tenant)))


def test_a_claim_never_takes_more_than_a_front_ends_room_across_its_looks(
    backend: str, tmp_path: Path, receiver: Receiver,
) -> None:
    """One front end's messages due before and after another's fill: however many looks
    the claim takes past the full one, it takes at most the room each front end has."""
    app = hooked(backend, tmp_path)
    client = app.test_client()
    first, second = key_of(app, "first"), key_of(app, "second")
    subscribe(client, first, receiver.url, ["match.started"])
    subscribe(client, second, receiver.url, ["match.started"])
    for key in (first, *[second] * 5, *[first] * 3):  # due in this order
        client.post("/v1/matches", headers=key, json={"players": [{"name": "a"}, {"name": "b"}]})
    with app.app_context():
        claimed = queue.claim(6, timedelta(minutes=1), lambda tenant: 2)
        names = dict(db.session.execute(select(Tenant.pk, Tenant.name)).all())
    taken = Counter(names[message.tenant] for message in claimed)
    assert taken == {"first": 2, "second": 2}


def _play(client: FlaskClient, key: dict[str, str], matches: int) -> list[str]:
    """``matches`` one-deal matches of a player against the random bot, played to the
    end (the player taking their first legal move); their ids."""
    ids = []
    for _ in range(matches):
        created = client.post("/v1/matches", headers=key, json={
            "players": [{"name": "ana"}, {"bot": "random"}],
            "rules": {"target_score": 1}}).get_json()
        auth = {**key, "Authorization": f"Bearer {created['seats'][0]['token']}"}
        state = created["state"]
        while state["status"] == "active":
            mine = client.get(f"/v1/matches/{created['id']}", headers=auth).get_json()
            r = client.post(f"/v1/matches/{created['id']}/moves", json=mine["legal_moves"][0],
                            headers=auth)
            state = r.get_json()["state"]
        ids.append(created["id"])
    return ids


def test_one_endpoint_gets_tries_in_parallel_and_each_match_in_order(
    backend: str, tmp_path: Path,
) -> None:
    """Six matches' messages for one endpoint: up to BASRA_WEBHOOK_PER_ENDPOINT tries are
    open at once (the receiver sees four together), while each match's messages arrive
    in the order they happened (their versions never go back)."""
    open_now, most = [0], [0]
    lock = threading.Lock()

    def answer(_: int) -> int:
        with lock:
            open_now[0] += 1
            most[0] = max(most[0], open_now[0])
        time.sleep(0.02)  # a receiver's work: parallel tries overlap in it
        with lock:
            open_now[0] -= 1
        return 204

    receiver = Receiver(answer)
    try:
        app = hooked(backend, tmp_path, BASRA_WEBHOOK_PER_ENDPOINT=4)
        client = app.test_client()
        key = key_of(app)
        subscribe(client, key, receiver.url)
        _play(client, key, 6)
        deliver_all(app, lambda: pending(app) == 0, seconds=60)
    finally:
        receiver.server.shutdown()
    assert most[0] == 4  # in parallel, and never past the endpoint's share
    versions: dict[str, list[int]] = {}
    for payload in receiver.payloads():
        if payload["type"] != "match.finished":
            versions.setdefault(payload["data"]["match_id"], []).append(
                payload["data"]["version"])
    assert len(versions) == 6
    for seen in versions.values():
        assert seen == sorted(seen) and len(seen) > 10


def test_a_finish_is_claimed_first_and_a_lane_gives_one_message_at_a_time(
    backend: str, tmp_path: Path, receiver: Receiver,
) -> None:
    """With a played match's messages all due, the finish (written last) is claimed
    first, and the rest of its match one at a time, in the order they happened: nothing
    more of the match while its next message is out."""
    app = hooked(backend, tmp_path)
    client = app.test_client()
    key = key_of(app)
    subscribe(client, key, receiver.url)
    _play(client, key, 1)
    lease = timedelta(minutes=1)
    with app.app_context():
        first = queue.claim(1, lease, lambda tenant: 16)
        after = queue.claim(16, lease, lambda tenant: 16)
        again = queue.claim(16, lease, lambda tenant: 16)
        earliest = db.session.scalar(
            select(func.min(WebhookMessage.pk)).where(WebhookMessage.lane.is_not(None)))
    assert [json.loads(m.body)["type"] for m in first] == ["match.finished"]
    assert [m.pk for m in after] == [earliest]
    assert json.loads(after[0].body)["type"] == "match.started"
    assert again == []


def test_a_failed_try_frees_its_lane(backend: str, tmp_path: Path) -> None:
    """A match's first message fails (500): the rest of the match goes on being
    delivered, in order, while the failed one waits for its retry."""
    receiver = Receiver(lambda n: 500 if n == 0 else 204)
    try:
        app = hooked(backend, tmp_path, BASRA_WEBHOOK_RETRY_SECONDS=600)
        client = app.test_client()
        key = key_of(app)
        subscribe(client, key, receiver.url, ["match.started", "match.move"])
        _play(client, key, 1)
        deliver_all(app, lambda: pending(app) == 1)
    finally:
        receiver.server.shutdown()
    kinds = [p["type"] for p in receiver.payloads()]
    assert kinds[0] == "match.started" and set(kinds[1:]) == {"match.move"}
    with app.app_context():
        waiting = db.session.execute(select(WebhookMessage.type, WebhookMessage.attempts,
                                            WebhookMessage.holds_lane)
                                     .where(WebhookMessage.status == "pending")).all()
    assert [tuple(row) for row in waiting] == [("match.started", 1, False)]


def test_the_webhooks_domain_has_one_job_a_file() -> None:
    """Issue 55, item 4: deliveries split by job (the queue's claims, a try, its pinned
    connection, its deadline, the dispatcher), no file of the domain over 500 lines."""
    folder = ROOT / "service" / "webhooks"
    lengths = {path.name: path.read_text().count("\n") for path in folder.glob("*.py")}
    assert {"queue.py", "tries.py", "addresses.py", "deadlines.py", "dispatcher.py"} <= set(lengths)
    assert max(lengths.values()) <= 500, lengths
