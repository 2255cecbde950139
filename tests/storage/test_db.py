"""JSON columns' text: orjson where it can, the standard library for the rest; the same
encoder for the parameters the store hands psycopg itself."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest
from psycopg.adapt import PyFormat
from psycopg.conninfo import conninfo_to_dict
from psycopg.types.json import Json, Jsonb
from sqlalchemy.exc import OperationalError

from service import create_app
from service.storage.db import (
    db,
    json_text,
    libpq_conninfo,
    session_engine,
    statement_connection,
)
from service.storage.errors import DatabaseUnavailable
from tests.conftest import make_app


def test_column_json_reads_back_as_written() -> None:
    snapshot = {"hands": [["7D", "JS"], []], "scores": [0, 12], "round": 3, "name": "لاعب 🃏"}
    assert json.loads(json_text(snapshot)) == snapshot


def test_what_orjson_refuses_is_encoded_by_the_standard_library() -> None:
    for value in ({"big": 2**70}, {1: "a key that is not a string"}):
        assert json_text(value) == json.dumps(value)


def test_the_stores_own_json_parameters_are_written_by_json_text(pg_url: str,
                                                                  tmp_path: Path) -> None:
    """The one-statement save hands psycopg Json and Jsonb parameters straight: the
    connections SQLAlchemy opens encode them with json_text too."""
    app = make_app("postgres", tmp_path)
    with app.app_context():
        driver = db.session.connection().connection.driver_connection
        for wrapper in (Json, Jsonb):
            assert driver.adapters.get_dumper(wrapper, PyFormat.AUTO)._dumps is json_text
        db.session.rollback()
        db.engine.dispose()


def test_a_statement_connection_the_database_refuses_is_database_unavailable() -> None:
    """Checking out the lone connection (a move's save, a version check) when the database
    refuses new connections is a DatabaseUnavailable (a 503), not the driver's raw error
    (a 500): the pool hands psycopg's error through unwrapped."""
    app = create_app({"SQLALCHEMY_DATABASE_URI": "postgresql+psycopg://nobody@127.0.0.1:1/none",
                      "TESTING": True, "BASRA_LISTEN": False})
    for write in (True, False):
        with app.app_context(), pytest.raises(DatabaseUnavailable), \
                statement_connection(write=write):
            pass


def test_a_multi_host_url_reaches_the_listener_as_libpq_reads_it() -> None:
    """A multi-host DATABASE_URL with target_session_attrs (as for a Patroni cluster) is
    handed to the LISTEN and ping connections as libpq's own connection string: every
    host with its port, the options kept (the URL itself made libpq fail to resolve
    '127.0.0.1:56619')."""
    app = create_app({"SQLALCHEMY_DATABASE_URI": (
        "postgresql+psycopg://u:p%40ss@/basra?host=10.0.0.1:5433&host=10.0.0.2:5434"
        "&host=10.0.0.3:5435&target_session_attrs=read-write")})
    with app.app_context():
        parsed = conninfo_to_dict(libpq_conninfo())
    assert parsed == {"dbname": "basra", "user": "u", "password": "p@ss",
                      "host": "10.0.0.1,10.0.0.2,10.0.0.3", "port": "5433,5434,5435",
                      "target_session_attrs": "read-write"}


def test_behind_a_transaction_pooler_only_what_needs_a_session_goes_straight(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With BASRA_DIRECT_DATABASE_URL, DATABASE_URL is a pooler's: its connections prepare
    no statements, while LISTEN (and its pings) and migrations connect to the direct URL;
    without it everything goes to DATABASE_URL, prepared statements on."""
    monkeypatch.setenv("BASRA_SECRET_KEY", "not kept in the instance folder")
    monkeypatch.setenv("DATABASE_URL", "postgresql://u@pooler:6432/basra")
    monkeypatch.setenv("BASRA_DIRECT_DATABASE_URL", "postgresql://u@primary:5432/basra")
    app = create_app()
    with app.app_context():
        assert app.config["SQLALCHEMY_ENGINE_OPTIONS"]["connect_args"] == {
            "prepare_threshold": None}
        assert conninfo_to_dict(libpq_conninfo())["host"] == "primary"
        assert session_engine().url.host == "primary"
        assert session_engine().url.drivername == "postgresql+psycopg"
        assert db.engine.url.host == "pooler"
    monkeypatch.delenv("BASRA_DIRECT_DATABASE_URL")
    app = create_app()
    with app.app_context():
        assert "connect_args" not in app.config["SQLALCHEMY_ENGINE_OPTIONS"]
        assert conninfo_to_dict(libpq_conninfo())["host"] == "pooler"
        assert session_engine() is db.engine


def test_a_connection_lost_as_the_request_ends_still_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session's connection failing at teardown (the database went away after the
    answer was made) is dropped quietly: the client gets its answer, not a closed
    connection."""
    app = make_app("sqlite", tmp_path)
    client = app.test_client()

    def lost() -> None:
        raise OperationalError("ROLLBACK", {}, psycopg.OperationalError("server closed"))

    monkeypatch.setattr(db.session, "remove", lost)
    r = client.get("/v1/matches")
    assert r.status_code == 200 and r.get_json()["matches"] == []
    monkeypatch.undo()
