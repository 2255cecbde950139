"""The database object, the PostgreSQL pool and SQLite settings bound to this app's engine, and
transactions."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from functools import lru_cache, wraps
from typing import Any, TypeVar

import orjson
import psycopg
import psycopg.conninfo
from flask import Flask, current_app
from flask_sqlalchemy import SQLAlchemy
from flask_sqlalchemy.session import Session
from prometheus_client import Gauge
from sqlalchemy import Engine, create_engine, event, exc, make_url
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.pool import NullPool

from ..settings import Settings, settings_of
from .errors import DatabaseUnavailable


class Base(DeclarativeBase):
    """Declarative base of the service's tables."""


REPLICA = "replica"
"""The bind of the standbys reads may use (``DATABASE_READ_URL``), when configured."""


class RoutingSession(Session):
    """The session: on the primary, or on the standbys for the reads of a
    :func:`from_replica` block when a replica bind is configured."""

    def get_bind(self, *args: Any, **kwargs: Any) -> Any:
        if self.info.get(REPLICA):
            replica = self._db.engines.get(REPLICA)
            if replica is not None:
                return replica
        return super().get_bind(*args, **kwargs)


# objects stay readable after commit: use cases build their results inside the
# transaction and the web layer renders them after it, with no reload
db = SQLAlchemy(model_class=Base, session_options={"expire_on_commit": False,
                                                  "class_": RoutingSession})


def json_text(value: Any) -> str:
    """A JSON column's text (snapshots, log rows): orjson, five to ten times faster than
    the standard library, which still encodes what orjson refuses (an integer past 64
    bits, a key that is not a string)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return json.dumps(value)


def init_db(app: Flask, settings: Settings) -> None:
    """Bind ``db`` to the app: JSON columns written by :func:`json_text`, the PostgreSQL
    pool's size (``settings``), or on SQLite this app's engine set up (and no other
    engine)."""
    # SQLAlchemy hands the serializer to psycopg too: the store's own Json and Jsonb
    # parameters use it
    options: dict[str, Any] = {"json_serializer": json_text}
    if app.config["SQLALCHEMY_DATABASE_URI"].startswith("postgresql"):
        # a gevent worker runs a transaction per request at once: a pool smaller than
        # that opens and closes a connection (a PostgreSQL backend) per transaction
        options.update(pool_size=settings.db_pool_size, max_overflow=settings.db_max_overflow)
        if settings.direct_database_url:
            # behind a transaction pooler each transaction may get another server
            # connection, where a statement psycopg prepared on the last is unknown
            options["connect_args"] = {"prepare_threshold": None}
    app.config["SQLALCHEMY_ENGINE_OPTIONS"] = {
        **options, **app.config.get("SQLALCHEMY_ENGINE_OPTIONS", {})}
    db.init_app(app)
    # the session is given back by end_session, which never raises for a lost connection
    # (Flask-SQLAlchemy's own teardown did, and the client got no answer at all)
    teardowns = app.teardown_appcontext_funcs
    teardowns[:] = [f for f in teardowns if getattr(f, "__self__", None) is not db]
    app.teardown_appcontext(lambda _error: end_session())
    with app.app_context():
        for engine in db.engines.values():
            if engine.dialect.name == "sqlite":
                event.listen(engine, "connect", _sqlite_pragmas(_NATIVE_BUSY_MS))
                event.listen(engine, "begin", _sqlite_begin)
            else:
                event.listen(engine, "connect", _note_idle)
                event.listen(engine, "checkin", _note_idle)
                event.listen(engine, "checkout", _ping_if_idle(engine.dialect))
            if hasattr(engine.pool, "checkedout"):  # a queue pool (not SQLite in memory)
                event.listen(engine, "checkout", _count_out(engine.pool, 0))
                event.listen(engine, "checkin", _count_out(engine.pool, 1))


POOL = Gauge("basra_db_pool_connections", "The database pool's connections by state",
             ["state"], multiprocess_mode="livesum")


def _count_out(pool: Any, returning: int) -> Any:
    checked_out = POOL.labels("checked_out")

    def on_change(*_args: Any) -> None:
        """The pool's connections lent out now (a connection coming back is still
        counted out while its checkin event runs)."""
        checked_out.set(pool.checkedout() - returning)

    return on_change


# A pooled connection is pinged at checkout only when it has sat idle a while
# (pool_pre_ping costs a round trip per transaction); a database that restarts under a
# busy connection fails that one transaction with a 503, and the pool is then dropped.
IDLE_PING_SECONDS = 2.0


def _note_idle(_dbapi_connection: Any, record: Any) -> None:
    record.info["idle_since"] = time.monotonic()


def _ping_if_idle(dialect: Any) -> Any:
    def on_checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        """Raising DisconnectionError makes the pool replace the connection and retry."""
        idle_since = record.info.get("idle_since", 0.0)
        if time.monotonic() - idle_since < IDLE_PING_SECONDS:
            return
        try:
            alive = dialect.do_ping(dbapi_connection)
        except Exception as error:
            raise exc.DisconnectionError("the pooled connection is gone") from error
        if not alive:
            raise exc.DisconnectionError("the pooled connection is gone")

    return on_checkout


def _sqlite_pragmas(busy_timeout_ms: int) -> Any:
    def on_connect(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
        """WAL, a busy timeout, and transactions this module begins itself."""
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    return on_connect


def _sqlite_begin(conn: Any) -> None:
    """Writers take SQLite's write lock up front (BEGIN IMMEDIATE), so two writers queue
    for it instead of failing with 'database is locked' on upgrade."""
    write = conn.get_execution_options().get("basra_write", False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


# SQLite's own busy wait blocks the whole thread, and under gevent the whole worker
# with it; so it waits only briefly, and a writer that finds the lock taken sleeps
# (cooperatively) and tries again until BASRA_SQLITE_BUSY_TIMEOUT_MS has passed.
_NATIVE_BUSY_MS = 10


def _begin_write() -> None:
    session = db.session()
    if backend() != "sqlite":
        session.connection(execution_options={"basra_write": True})
        return
    patience = settings_of(current_app).sqlite_busy_timeout_ms / 1000
    deadline = time.monotonic() + patience
    pause = 0.002
    while True:
        try:
            session.connection(execution_options={"basra_write": True})
            return
        except exc.OperationalError as error:
            if "locked" not in str(error.orig) or time.monotonic() + pause > deadline:
                raise
            session.rollback()
            time.sleep(pause)
            pause = min(pause * 2, 0.05)


# the database did not answer, dropped the connection, or stayed locked
_UNAVAILABLE = (exc.OperationalError, exc.InterfaceError, exc.TimeoutError,
                exc.DisconnectionError)
# the same from psycopg itself, which SQLAlchemy does not wrap: a raw connection's
# checkout and statements, here and in the store's save on the session's connection
CONNECTION_LOST = (psycopg.OperationalError, psycopg.InterfaceError)
DISCONNECTED = (*_UNAVAILABLE, *CONNECTION_LOST)
"""Every error that means the database did not answer, however it reached the caller."""


T = TypeVar("T")


def has_replica() -> bool:
    """Whether reads may go to standbys (``DATABASE_READ_URL`` is set)."""
    return REPLICA in db.engines


@contextmanager
def from_replica() -> Iterator[None]:
    """The block's transactions and statement connections read the standbys (when a
    replica is configured; else the primary, as always)."""
    session = db.session()
    if session.in_transaction():
        session.rollback()
    session.info[REPLICA] = True
    try:
        yield
    finally:
        if session.in_transaction():
            session.rollback()
        session.info.pop(REPLICA, None)


def read_fresh(read: Callable[[], T], fresh: Callable[[T], bool] = lambda _: True) -> T:
    """``read()`` on the standbys, or again on the primary where the standbys cannot
    answer, answer something ``fresh`` finds too old (a version older than the client
    saw), or do not have what was asked for yet (a :class:`LookupError`, such as a match
    made a moment ago). Without a replica, ``read()`` on the primary."""
    if not has_replica():
        return read()
    try:
        with from_replica():
            value = read()
        if fresh(value):
            return value
    except (DatabaseUnavailable, LookupError):
        pass
    return read()


F = TypeVar("F", bound=Callable[..., Any])


def on_replica(read: F | None = None, *, version: Callable[[Any], int] | None = None) -> Any:
    """A read-only use case that may answer from the standbys (:func:`read_fresh`): a
    listing, a log, a record, whose reader holds nothing newer to compare with. With
    ``version`` (the version of what it answers), it takes ``at_least=N``: a standby's
    answer older than that is passed over for the primary's."""

    def decorate(read: F) -> F:
        @wraps(read)
        def reading(*args: Any, at_least: int = -1, **kwargs: Any) -> Any:
            fresh = (lambda found: version(found) >= at_least) if version else (lambda _: True)
            return read_fresh(lambda: read(*args, **kwargs), fresh)

        return reading  # type: ignore[return-value]

    return decorate if read is None else decorate(read)


@contextmanager
def transaction(*, write: bool = False, one_statement: bool = False) -> Iterator[None]:
    """One unit of work: committed when the block ends, rolled back if it raises.

    ``write`` takes the write lock at BEGIN on SQLite (PostgreSQL locks rows instead).
    ``one_statement``: on PostgreSQL the block runs a single statement, consistent and
    atomic on its own (a SELECT, or a write the store made one statement), so it runs
    without BEGIN and COMMIT (two round trips fewer); SQLite runs the block as usual.
    A database that does not answer raises :class:`DatabaseUnavailable`.
    """
    session = db.session()
    try:
        if session.in_transaction():  # a read left open earlier in the request
            session.rollback()
        session.info.pop(_AFTER_COMMIT, None)
        if one_statement and backend() == "postgresql":
            session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
        elif write:
            _begin_write()
        yield
        session.commit()
    except BaseException as error:
        session.info.pop(_AFTER_COMMIT, None)
        try:
            session.rollback()
        except _UNAVAILABLE:  # the connection is gone with the database: drop it
            session.close()
        if isinstance(error, _UNAVAILABLE):
            raise DatabaseUnavailable() from error
        raise
    for callback in session.info.pop(_AFTER_COMMIT, ()):
        callback()


_AFTER_COMMIT = "basra_after_commit"
"""Session info: what to run once the transaction block commits."""


def after_commit(callback: Callable[[], None]) -> None:
    """Run ``callback`` once the caller's :func:`transaction` block commits (never if it
    rolls back), or at once outside one."""
    session = db.session()
    if session.in_transaction():
        session.info.setdefault(_AFTER_COMMIT, []).append(callback)
    else:
        callback()


def session_execute(statement: str, params: dict[str, Any]) -> psycopg.Cursor[Any]:
    """PostgreSQL: run ``statement`` (psycopg's own SQL) straight on the session's
    connection, in its transaction (SQLAlchemy's execution path costs about as much as a
    short statement). A lost connection is dropped, with :class:`DatabaseUnavailable`."""
    conn = db.session.connection()
    try:
        return conn.connection.driver_connection.execute(statement, params)  # type: ignore[no-any-return,union-attr]
    except CONNECTION_LOST as error:
        conn.invalidate(error)
        raise DatabaseUnavailable() from error


@lru_cache(maxsize=512)
def postgresql_text(stmt: Any) -> str:
    """A prebuilt statement's SQL as psycopg takes it, compiled once per statement (and
    at most this many kept: a caller's statements built per shape come and go)."""
    return str(stmt.compile(dialect=db.engine.dialect))


def read_apart(stmt: Any) -> Sequence[Any]:
    """The rows of a SELECT read on a pooled connection of its own, in autocommit: a read
    a check makes whenever it must, even inside a caller's transaction, which it leaves
    alone (its row locks held; a transaction block here would roll it back)."""
    try:
        with db.engine.connect() as conn:
            return conn.execute(stmt).all()
    except DISCONNECTED as error:
        raise DatabaseUnavailable() from error


def read_rows(stmt: Any, params: dict[str, Any]) -> Sequence[Sequence[Any]]:
    """The rows of a read-only Core ``stmt`` (built once, its parameters bound by name),
    in the session's transaction, as tuples in its columns' order. On PostgreSQL straight
    on psycopg, the statement compiled for it once (SQLAlchemy's result processing costs
    as much again as a short query)."""
    if backend() != "postgresql":
        return db.session.execute(stmt, params).all()  # type: ignore[no-any-return]
    return session_execute(postgresql_text(stmt), params).fetchall()


@contextmanager
def statement_connection(*, write: bool = True) -> Iterator[psycopg.Connection[Any] | None]:
    """For work that is one statement on PostgreSQL (a move's save, a version check): the
    psycopg connection of a pooled connection in autocommit, outside the ORM session
    (whose bookkeeping around one statement costs more than the pool and the statement
    together). It goes back to the pool out of autocommit; one the database dropped is
    invalidated, with :class:`DatabaseUnavailable`. On SQLite: None, inside a transaction
    of the session (a write transaction if ``write``), through which the work is done in
    a few statements."""
    if backend() != "postgresql":
        with transaction(write=write):
            yield None
        return
    session = db.session()
    engine = db.engines[REPLICA] if session.info.get(REPLICA) and has_replica() else db.engine
    try:
        pooled = engine.raw_connection()
    except (*_UNAVAILABLE, *CONNECTION_LOST) as error:
        raise DatabaseUnavailable() from error
    driver = pooled.driver_connection
    assert isinstance(driver, psycopg.Connection)  # a pooled connection checked out
    try:
        driver.autocommit = True
        yield driver
        driver.autocommit = False
    except CONNECTION_LOST as error:
        pooled.invalidate(error)
        raise DatabaseUnavailable() from error
    except BaseException:
        try:  # no transaction is open in autocommit: leaving it fails only a lost connection
            driver.autocommit = False
        except psycopg.Error as error:
            pooled.invalidate(error)
        raise
    finally:
        pooled.close()


def libpq_conninfo() -> str:
    """The PostgreSQL database as a libpq connection string, for the connections this
    service makes beside the pool that keep a session (LISTEN, its pings with their
    ``SET``): ``BASRA_DIRECT_DATABASE_URL`` when set, else the pool's own hosts, ports and
    options, as SQLAlchemy's dialect reads the URL (a multi-host URL with
    ``target_session_attrs`` included, which libpq cannot read as a URL itself)."""
    engine = db.engine
    direct = settings_of(current_app).direct_database_url
    _, options = engine.dialect.create_connect_args(make_url(direct) if direct else engine.url)
    return psycopg.conninfo.make_conninfo(
        **{name: value for name, value in options.items() if isinstance(value, str | int)})


def session_engine() -> Engine:
    """An engine whose connections keep their session, for migrations (Alembic may lock
    and set at session level): on ``BASRA_DIRECT_DATABASE_URL`` when set (made once per
    app, keeping no connection between uses), else the app's own."""
    direct = settings_of(current_app).direct_database_url
    if not direct:
        return db.engine
    engine: Engine | None = current_app.extensions.get("basra_direct_engine")
    if engine is None:
        engine = create_engine(direct, poolclass=NullPool, json_serializer=json_text)
        current_app.extensions["basra_direct_engine"] = engine
    return engine


def end_session() -> None:
    """The request is over: give its session back. A connection the database dropped
    while the request ran is thrown away here, never raised (the request has its answer,
    a 503 if it needed the database; raising now would drop the client's connection
    without one)."""
    try:
        db.session.remove()
    except DISCONNECTED:
        with suppress(DISCONNECTED):
            db.session.close()
        db.session.registry.clear()


def backend() -> str:
    """The database's dialect name: ``postgresql`` or ``sqlite``."""
    return db.engine.dialect.name
