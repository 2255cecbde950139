"""Fixtures: the app on a fresh SQLite file and, when configured, on real PostgreSQL.

``BASRA_TEST_DATABASE_URL`` points the ``postgres`` half of every API test at a
PostgreSQL database (migrated once, emptied between tests). CI sets it and
``BASRA_REQUIRE_POSTGRES=1``, so a missing database fails instead of skipping.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import flask_migrate
import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import text

from service import MIGRATIONS, create_app
from service.db import db

PG_URL = os.environ.get("BASRA_TEST_DATABASE_URL", "")
REQUIRE_PG = os.environ.get("BASRA_REQUIRE_POSTGRES") == "1"
TABLES = "idempotency_keys, moves, seats, matches"

_migrated: set[str] = set()


def _pg_url() -> str:
    url = PG_URL
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            url = "postgresql+psycopg://" + url[len(prefix):]
    return url


def make_app(backend: str, tmp_path: Path, **config: object) -> Flask:
    """A migrated, empty app on ``sqlite`` (a new file) or ``postgres``."""
    if backend == "postgres":
        if not PG_URL:
            if REQUIRE_PG:
                pytest.fail("BASRA_TEST_DATABASE_URL is not set but PostgreSQL is required")
            pytest.skip("set BASRA_TEST_DATABASE_URL to run the PostgreSQL half")
        url = _pg_url()
    else:
        url = f"sqlite:///{tmp_path / 'basra.sqlite3'}"
    app = create_app({
        "SQLALCHEMY_DATABASE_URI": url, "TESTING": True, "BASRA_POLL_INTERVAL": 0.02, **config
    })
    with app.app_context():
        if url not in _migrated or backend == "sqlite":
            flask_migrate.upgrade(directory=MIGRATIONS)
            _migrated.add(url)
        if backend == "postgres":
            db.session.execute(text(f"TRUNCATE {TABLES} RESTART IDENTITY CASCADE"))
            db.session.commit()
    return app


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    """Each API test runs once on SQLite and once on PostgreSQL."""
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
