"""Fixtures: the app on a fresh SQLite file and on real PostgreSQL.

The ``postgres`` half of every API test runs on ``BASRA_TEST_DATABASE_URL``, or on
the default local database (postgres@127.0.0.1:5432/test) when that answers;
the header of the run says which, or why those tests are skipped. CI sets
``BASRA_REQUIRE_POSTGRES=1``, so a missing database fails instead of skipping.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import flask_migrate
import psycopg
import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import text

from service import create_app
from service.players import service as players
from service.storage import MIGRATIONS
from service.storage.db import db
from service.tenants import service as tenants

DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
REQUIRE_PG = os.environ.get("BASRA_REQUIRE_POSTGRES") == "1"
TABLES = ("player_events, tournament_pairings, tournament_entrants, tournaments, "
          "webhook_attempts, webhook_messages, webhooks, api_keys, idempotency_keys, moves, "
          "seats, matches, players")

_migrated: set[str] = set()


def _sqlalchemy_url(url: str) -> str:
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def libpq_url(url: str) -> str:
    """The same database as a libpq URL (for psycopg and PostgreSQL's tools)."""
    return url.replace("postgresql+psycopg://", "postgresql://")


def _find_postgres() -> tuple[str | None, str]:
    """The PostgreSQL URL the tests use (None if none answers) and a line saying so."""
    configured = os.environ.get("BASRA_TEST_DATABASE_URL", "").strip()
    url = _sqlalchemy_url(configured or DEFAULT_PG_URL)
    where = "BASRA_TEST_DATABASE_URL" if configured else "the default local database"
    try:
        with psycopg.connect(libpq_url(url), connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return None, f"PostgreSQL tests skipped: {where} ({url}) did not answer: {reason}"
    return url, f"PostgreSQL tests run on {where} ({url})"


PG_URL, PG_STATUS = _find_postgres()


def pytest_report_header() -> str:
    """One line: whether the PostgreSQL half runs, and where (or why not)."""
    return PG_STATUS


def require_postgres() -> str:
    """The test PostgreSQL database (SQLAlchemy URL); skips the test, or fails it under
    BASRA_REQUIRE_POSTGRES=1, when none answers."""
    if PG_URL is None:
        if REQUIRE_PG:
            pytest.fail(f"{PG_STATUS} (BASRA_REQUIRE_POSTGRES=1)")
        pytest.skip(PG_STATUS)
    return PG_URL


@pytest.fixture
def pg_url() -> str:
    """The test PostgreSQL database, for tests that need PostgreSQL alone."""
    return require_postgres()


def make_app(backend: str, tmp_path: Path, **config: object) -> Flask:
    """A migrated, empty app on ``sqlite`` (a new file) or ``postgres``."""
    sqlite = f"sqlite:///{tmp_path / 'basra.sqlite3'}"
    url = require_postgres() if backend == "postgres" else sqlite
    app = create_app({
        "SQLALCHEMY_DATABASE_URI": url, "TESTING": True, "BASRA_POLL_INTERVAL": 0.02,
        "BASRA_RATE_LIMITS": "off", **config,  # test_limits.py turns them on
    })
    players.forget_secrets()  # tenants' rows (and secrets) are made anew below
    with app.app_context():
        if url not in _migrated or backend == "sqlite":
            flask_migrate.upgrade(directory=MIGRATIONS)
            _migrated.add(url)
        if backend == "postgres":
            db.session.execute(text(f"TRUNCATE {TABLES} RESTART IDENTITY CASCADE"))
            db.session.execute(text("DELETE FROM tenants WHERE pk <> 1"))  # keep "local"
            db.session.commit()
    return app


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    """Each API test runs once on SQLite and once on PostgreSQL."""
    if request.param == "postgres":
        require_postgres()
    return str(request.param)


@pytest.fixture
def app(backend: str, tmp_path: Path) -> Iterator[Flask]:
    """The app on the chosen backend, with empty tables."""
    app = make_app(backend, tmp_path)
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A test client of the app."""
    return app.test_client()


@pytest.fixture
def keyed(backend: str, tmp_path: Path) -> Flask:
    """An app that requires API keys (the production setting), keys checked every time."""
    return make_app(backend, tmp_path, BASRA_API_KEYS="required", BASRA_KEY_CACHE_SECONDS=0)


def api_key(app: Flask, name: str, *origins: str) -> dict[str, str]:
    """The X-API-Key header of a new key of front end ``name``: a browser key limited to
    ``origins``, or without them a server key."""
    with app.app_context():
        return {"X-API-Key": tenants.create_key(name, list(origins))}
