"""Fixtures: the app on SQLite and on real PostgreSQL, built once per session.

Each backend's database is migrated once per session (SQLite: a template file that
each app's file is copied from; PostgreSQL: the test database, or under pytest-xdist
one database per worker, ``<name>_gw0`` and so on), and an app is built once per
backend and settings; every test then gets it with empty tables, its settings as
built and its process caches reset. An app whose settings turn rate limits on is
built anew each time (the limiter is one per process, bound to the app built last).

The ``postgres`` half of every API test runs on ``BASRA_TEST_DATABASE_URL``, or on
the default local database (postgres@127.0.0.1:5432/test) when that answers;
the header of the run says which, or why those tests are skipped. CI sets
``BASRA_REQUIRE_POSTGRES=1``, so a missing database fails instead of skipping.
With ``BASRA_TEST_POOLER=pgbouncer`` (``make test-pgbouncer``) that half goes through a
PgBouncer in transaction mode of each process's own, its apps told the database's own
URL in ``BASRA_DIRECT_DATABASE_URL`` (as production behind a pooler is).

Tests that start processes (gunicorn, browsers, PostgreSQL clusters, Patroni, node)
are marked ``process`` and run as a stage of their own (``make test``); the helpers
in :mod:`tests.servers` refuse to start one for a test without the mark.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import text

from service import create_app
from service.app import reset_caches
from service.coins import check as ledger_check
from service.settings import EXTENSION as SETTINGS
from service.settings import Settings, settings_of
from service.storage import migrations, upgrade
from service.storage.db import db
from service.tenants import service as tenants
from tests import servers

DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
REQUIRE_PG = os.environ.get("BASRA_REQUIRE_POSTGRES") == "1"
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
"""This process's pytest-xdist worker (gw0, gw1, ...), empty when the tests run in one."""
STAGE = os.environ.get("BASRA_TEST_STAGE", "")
"""A session running beside another (``make test``'s process stage beside the core):
its workers' databases are named apart (``<name>_<stage>_gw0``)."""
TABLES = ", ".join(t.name for t in reversed(db.metadata.sorted_tables) if t.name != "tenants")
"""Every table a test may fill, read from the models (children first), emptied before each
test; the tenants are emptied apart so that tenant 1, "local", stays."""
BASE_CONFIG = {"TESTING": True, "BASRA_POLL_INTERVAL": 0.02,
               "BASRA_RATE_LIMITS": "off"}  # test_limits.py turns them on

_SESSION = Path(tempfile.mkdtemp(prefix="basra-tests-"))
"""The session's own files: the SQLite template and the session apps' databases."""
atexit.register(shutil.rmtree, _SESSION, True)


def _sqlalchemy_url(url: str) -> str:
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def libpq_url(url: str) -> str:
    """The same database as a libpq URL (for psycopg and PostgreSQL's tools)."""
    return url.replace("postgresql+psycopg://", "postgresql://")


def _for_worker(url: str) -> str:
    """The database of this xdist worker, next to ``url``'s (made if missing): workers
    never share tables, nor the channel their NOTIFYs go out on."""
    if not WORKER:
        return url
    head, _, name = url.rpartition("/")
    name, query = name.partition("?")[::2]
    mine = f"{name}_{STAGE}_{WORKER}" if STAGE else f"{name}_{WORKER}"
    with psycopg.connect(libpq_url(url), autocommit=True, connect_timeout=3) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (mine,)).fetchone() is None:
            conn.execute(f'CREATE DATABASE "{mine}"')
    return f"{head}/{mine}" + (f"?{query}" if query else "")


def _find_postgres() -> tuple[str | None, str]:
    """The PostgreSQL URL the tests use (None if none answers) and a line saying so."""
    configured = os.environ.get("BASRA_TEST_DATABASE_URL", "").strip()
    url = _sqlalchemy_url(configured or DEFAULT_PG_URL)
    where = "BASRA_TEST_DATABASE_URL" if configured else "the default local database"
    try:
        with psycopg.connect(libpq_url(url), connect_timeout=3) as conn:
            conn.execute("SELECT 1")
        url = _for_worker(url)
    except psycopg.Error as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return None, f"PostgreSQL tests skipped: {where} ({url}) did not answer: {reason}"
    return url, f"PostgreSQL tests run on {where} ({url})"


def _through_pooler(url: str | None, status: str) -> tuple[str | None, str]:
    """Under ``BASRA_TEST_POOLER=pgbouncer``: the test database through a PgBouncer in
    transaction mode of this process's own (stopped at exit), with the line saying so."""
    if url is None or POOLER == "":
        return url, status
    if POOLER != "pgbouncer":
        raise pytest.UsageError(f"BASRA_TEST_POOLER is pgbouncer or empty, not {POOLER!r}")
    pooled = _POOLER.enter_context(servers.pgbouncer(url))
    return pooled, f"{status} through PgBouncer in transaction mode ({pooled})"


_POOLER = contextlib.ExitStack()
"""This process's PgBouncer, stopped when pytest ends (or, failing that, at exit)."""
atexit.register(_POOLER.close)


def pytest_unconfigure() -> None:
    """Stop this process's PgBouncer, if it started one."""
    _POOLER.close()


POOLER = os.environ.get("BASRA_TEST_POOLER", "").strip()
"""``pgbouncer``: the PostgreSQL half runs through a transaction pooler, the apps told the
direct URL (BASRA_DIRECT_DATABASE_URL) for what needs a session."""
PG_DIRECT_URL, _STATUS = _find_postgres()
"""The test database itself (under a pooler, what the apps connect to straight)."""
PG_URL, PG_STATUS = _through_pooler(PG_DIRECT_URL, _STATUS)
PG_SETTINGS = {"BASRA_DIRECT_DATABASE_URL": PG_DIRECT_URL} if PG_URL != PG_DIRECT_URL else {}
"""What an app on the test database is told beside its URL."""


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
    """The test PostgreSQL database, for tests that need PostgreSQL alone (through the
    pooler, under one)."""
    return require_postgres()


@pytest.fixture
def pg_direct_url() -> str:
    """The test PostgreSQL database itself, never through a pooler: for a session of
    its own (LISTEN)."""
    require_postgres()
    assert PG_DIRECT_URL is not None
    return PG_DIRECT_URL


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files marked ``long`` first (the process stage hands out whole files in this
    order, ``--no-loadscope-reorder``): a worker left alone with one at the end would
    hold the stage up by that much."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Tell :mod:`tests.servers` which test runs, before its fixtures are made (it starts
    processes only for tests marked ``process``); forget the apps the last test used."""
    servers.CURRENT[:] = [item]
    _handed_out.clear()


# --- databases made once per session ----------------------------------------------

_migrated: set[str] = set()


def _migrate(app: Flask) -> None:
    """Every migration on the app's database, once per session and database (a SQLite
    app's file is a copy of the migrated template)."""
    url = app.config["SQLALCHEMY_DATABASE_URI"]
    if url.startswith("postgresql") and url not in _migrated:
        upgrade(app)
        _vacuum(PG_DIRECT_URL or url)
        _migrated.add(url)


def _vacuum(url: str) -> None:
    """The database's tables rewritten without their dead rows, once a session. Each test
    empties the tables with DELETE, and with autovacuum off (as on CI's machines) every
    run's dead rows stayed: each DELETE and scan read more pages than the run before (a
    worker's matches table grew to 32 MB, 12,700 dead rows for 14 live ones, over six
    runs). FULL: a plain VACUUM frees the rows but keeps the pages a scan still reads."""
    with psycopg.connect(libpq_url(url), autocommit=True) as conn:
        conn.execute("VACUUM FULL")


def _sqlite_template() -> Path:
    """A SQLite file with every migration run, made once per session."""
    template = _SESSION / "template.sqlite3"
    if not template.exists():
        app = create_app({**BASE_CONFIG, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{template}"})
        upgrade(app)
        with app.app_context():
            db.engine.dispose()  # closed: the WAL is written back into the file
    return template


_emptiers: dict[str, str] = {}
"""Per PostgreSQL database, the one statement that empties it (:func:`_pg_emptier`)."""


def _pg_emptier() -> str:
    """A DO block that deletes every row but the built-in tenant and restarts the
    sequences of the tables' columns that were drawn from, in one round trip.

    DELETE, not TRUNCATE: a test leaves a few rows in a few tables, and TRUNCATE of
    every table makes new files for each (0.1-0.3 s a test, where this takes 3 ms)."""
    url = db.engine.url.render_as_string(hide_password=False)
    if url not in _emptiers:
        names = TABLES.split(", ")
        owned = db.session.execute(text(
            "SELECT format('%I.%I', n.nspname, s.relname) FROM pg_class s"
            " JOIN pg_namespace n ON n.oid = s.relnamespace"
            " JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = s.oid"
            "  AND d.deptype IN ('a', 'i')"  # a serial's or an identity's own sequence
            " JOIN pg_class t ON t.oid = d.refobjid"
            " WHERE s.relkind = 'S' AND t.relname = ANY(:names)"), {"names": names}).scalars()
        tables = ", ".join(f"'{name}'" for name in names)
        sequences = ", ".join(f"'{name}'" for name in owned)
        _emptiers[url] = f"""DO $$
            DECLARE t text; s regclass;
            BEGIN
              FOREACH t IN ARRAY ARRAY[{tables}] LOOP
                EXECUTE format('DELETE FROM %I', t);
              END LOOP;
              DELETE FROM tenants WHERE pk <> 1;
              FOR s IN SELECT q FROM unnest(ARRAY[{sequences}]::regclass[]) q
                       WHERE pg_sequence_last_value(q) IS NOT NULL LOOP
                EXECUTE format('ALTER SEQUENCE %s RESTART', s);
              END LOOP;
            END $$"""
    return _emptiers[url]


def _empty(app: Flask) -> None:
    """Every table emptied but the built-in tenant, numbering restarted; the process's
    caches forgotten."""
    with app.app_context():
        if app.config["SQLALCHEMY_DATABASE_URI"].startswith("postgresql"):
            db.session.execute(text(_pg_emptier()))
        else:
            for table in TABLES.split(", "):  # rowids restart at 1 in an empty table
                db.session.execute(text(f"DELETE FROM {table}"))
            db.session.execute(text("DELETE FROM tenants WHERE pk <> 1"))  # keep "local"
        db.session.commit()
        db.session.remove()
    reset_caches()


_apps: dict[tuple[str, str], tuple[Flask, dict[str, object], Settings]] = {}


def make_app(backend: str, tmp_path: Path, **config: object) -> Flask:
    """A migrated app with empty tables on ``sqlite`` or ``postgres``, with ``config`` on
    top of the tests' settings: built once per session for each backend and settings,
    or (with rate limits on) anew in ``tmp_path``."""
    settings = {**BASE_CONFIG, **config}
    fresh = settings["BASRA_RATE_LIMITS"] != "off"
    key = (backend, repr(sorted(settings.items())))
    kept = None if fresh else _apps.get(key)
    if kept is None:
        if backend == "postgres":
            url = require_postgres()
            settings = {**settings, **PG_SETTINGS}
        else:
            path = (tmp_path if fresh else _SESSION) / f"app-{len(_apps)}.sqlite3"
            shutil.copyfile(_sqlite_template(), path)
            url = f"sqlite:///{path}"
        app = create_app({**settings, "SQLALCHEMY_DATABASE_URI": url})
        migrations(app)  # tests/storage/test_migrations.py runs them on any app
        _migrate(app)
        kept = (app, dict(app.config), settings_of(app))
        if not fresh:
            _apps[key] = kept
    app, built, made = kept
    url = built["SQLALCHEMY_DATABASE_URI"]
    for other, its, _ in _apps.values():  # one app's pool at a time holds a database's connections
        if other is not app and its["SQLALCHEMY_DATABASE_URI"] == url:
            with other.app_context():
                db.engine.dispose()
    app.config.clear()
    app.config.update(built)  # what an earlier test set on it is undone
    app.extensions[SETTINGS] = made  # and what it changed of its settings (use_settings)
    _empty(app)
    _handed_out.append(app)
    return app


_handed_out: list[Flask] = []
"""The apps :func:`make_app` handed the running test (what :func:`ledger_checked` checks)."""


@pytest.fixture
def ledger_checked() -> Iterator[None]:
    """After the test, the coins' ledger checker (:mod:`service.coins.check`) on every app
    the test used: any breach fails it. Autouse in tests/coins; a test elsewhere that
    moves coins asks for it (``@pytest.mark.usefixtures("ledger_checked")``)."""
    yield
    for app in dict.fromkeys(_handed_out):
        with app.app_context():
            breaches = ledger_check.run()
            db.session.remove()
        if breaches:
            pytest.fail("the ledger broke:\n" + "\n".join(map(str, breaches)), pytrace=False)


def use_settings(app: Flask, **changes: Any) -> Settings:
    """Change some of the app's settings (their :class:`Settings` field names) for the rest
    of the test: the next test's :func:`make_app` gives the app its settings as built."""
    changed = dataclasses.replace(settings_of(app), **changes)
    app.extensions[SETTINGS] = changed
    return changed


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
