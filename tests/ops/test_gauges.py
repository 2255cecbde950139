"""The gauges operators' alerts read: the webhook backlog's age, the primary, the rate
limits' store, the worker's last pass, the pool, the bots' helpers (ops/alerts.yml)."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from prometheus_client import generate_latest
from sqlalchemy import text, update

from service import create_app, worker
from service.bots import helpers
from service.ops import metrics
from service.storage.base import utcnow
from service.storage.db import POOL, db, transaction
from service.webhooks.models import WebhookMessage
from tests.conftest import BASE_CONFIG, make_app
from tests.webhooks.test_webhooks import hooked, key_of, subscribe


def _sample(text_: str, name: str) -> float:
    """The value of the one series named ``name`` (with its labels, if any)."""
    found = [line for line in text_.splitlines() if line.split(" ")[0] == name]
    assert len(found) == 1, f"{name} is not in the scrape once"
    return float(found[0].rsplit(" ", 1)[1])


@pytest.fixture(autouse=True)
def _read_each_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(metrics._Database, "DB_SECONDS", 0.0)


def _scrape(client: FlaskClient) -> str:
    return client.get("/metrics").get_data(as_text=True)


def test_an_overdue_message_shows_how_late_it_is(backend: str, tmp_path: Path) -> None:
    """0 with nothing overdue; a message due ten minutes ago shows ~600 s; a retry due
    later, a paused endpoint's message or a delivered one shows 0."""
    app = hooked(backend, tmp_path)
    client = app.test_client()
    lag = "basra_webhook_due_lag_seconds"
    assert _sample(_scrape(client), lag) == 0
    key = key_of(app)
    hook = subscribe(client, key, "http://127.0.0.1:9/hook", ["match.started"])
    r = client.post("/v1/matches", headers=key, json={
        "variant": "egyptian-v2", "players": [{"name": "ana"}, {"bot": "greedy"}]})
    assert r.status_code == 201, r.get_json()

    def due_in(seconds: float) -> None:
        with app.app_context(), transaction(write=True):
            db.session.execute(update(WebhookMessage).values(
                next_attempt_at=utcnow() + timedelta(seconds=seconds)))

    due_in(-600)
    assert 595 <= _sample(_scrape(client), lag) < 700
    client.post(f"/v1/webhooks/{hook['id']}/pause", headers=key)
    assert _sample(_scrape(client), lag) == 0
    client.post(f"/v1/webhooks/{hook['id']}/resume", headers=key)
    assert _sample(_scrape(client), lag) > 595
    due_in(60)
    assert _sample(_scrape(client), lag) == 0
    due_in(-600)
    with app.app_context(), transaction(write=True):
        db.session.execute(update(WebhookMessage).values(status="delivered"))
    assert _sample(_scrape(client), lag) == 0


def test_the_primary_is_seen_and_lost(backend: str, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """1 on a database that takes writes; 0 while it answers read-only (a standby, here
    a session that cannot write) or not at all."""
    app = make_app(backend, tmp_path)
    client = app.test_client()
    assert _sample(_scrape(client), "basra_database_primary") == 1
    if backend == "postgres":
        monkeypatch.setattr(metrics, "text", lambda _sql: text("SELECT true"))
        assert _sample(_scrape(client), "basra_database_primary") == 0
        monkeypatch.undo()
        monkeypatch.setattr(metrics._Database, "DB_SECONDS", 0.0)
    lost = create_app({**BASE_CONFIG, "SQLALCHEMY_DATABASE_URI":
                       "postgresql+psycopg://nobody@127.0.0.1:1/x?connect_timeout=1"})
    assert _sample(_scrape(lost.test_client()), "basra_database_primary") == 0


def test_rate_limits_falling_back_to_memory_are_seen(tmp_path: Path) -> None:
    """0 with Redis answering (or none configured); 1 with a Redis that does not answer."""
    (tmp_path / "on").mkdir()
    (tmp_path / "off").mkdir()
    on = make_app("sqlite", tmp_path / "on", BASRA_RATE_LIMITS="on",
                  REDIS_URL="redis://127.0.0.1:6379/0")
    assert _sample(_scrape(on.test_client()), "basra_rate_limits_in_memory") == 0
    off = make_app("sqlite", tmp_path / "off", BASRA_RATE_LIMITS="on",
                   REDIS_URL="redis://127.0.0.1:1/0", BASRA_REDIS_TIMEOUT_SECONDS=0.2)
    assert _sample(_scrape(off.test_client()), "basra_rate_limits_in_memory") == 1


def test_the_worker_says_when_it_last_passed(app: Flask) -> None:
    """A pass sets basra_worker_last_pass_timestamp_seconds to its end (in the worker's
    own scrape)."""
    before = time.time()
    worker.run(app, interval=0.0, passes=1)
    scraped = generate_latest(metrics.registry_for(app)).decode()
    assert before <= _sample(scraped, "basra_worker_last_pass_timestamp_seconds") <= time.time()


def test_the_pool_counts_connections_lent_out(tmp_path: Path) -> None:
    """A transaction holds one of PostgreSQL's pooled connections; given back, none."""
    app = make_app("postgres", tmp_path)
    lent = POOL.labels("checked_out")
    with app.app_context():
        db.session.remove()
        idle = lent._value.get()
        with transaction():
            db.session.execute(text("SELECT 1"))
            assert lent._value.get() == idle + 1
        db.session.remove()
        assert lent._value.get() == idle


def test_moves_waiting_for_a_helper_are_counted() -> None:
    """A move waiting for a helper counts in basra_bot_moves_waiting until one is handed
    to it."""
    pool = helpers.Helpers(size=0, nice=0)
    before = helpers.WAITING._value.get()
    got: list[object] = []
    waiting = threading.Thread(target=lambda: got.append(pool._borrow("acme", 10.0)))
    waiting.start()
    deadline = time.monotonic() + 5
    while helpers.WAITING._value.get() != before + 1:
        assert time.monotonic() < deadline, "the waiting move was never counted"
        time.sleep(0.01)
    handed = object()
    pool._give(handed)  # type: ignore[arg-type]
    waiting.join(5)
    assert got == [handed] and helpers.WAITING._value.get() == before
