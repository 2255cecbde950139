"""JSON columns' text: orjson where it can, the standard library for the rest; the same
encoder for the parameters the store hands psycopg itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from psycopg.adapt import PyFormat
from psycopg.types.json import Json, Jsonb

from service import create_app
from service.storage.db import db, json_text, statement_connection
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
