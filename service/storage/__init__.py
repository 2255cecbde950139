"""The engine of persistence: the SQLAlchemy object and transactions, the base the tables
are built from, the rows a change writes, cursors, the migrations (each domain keeps its
own tables, in its `models.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flask import Flask

MIGRATIONS = str(Path(__file__).resolve().parent / "migrations")
"""Alembic's folder (Flask-Migrate)."""


def migrations(app: Flask) -> None:
    """Flask-Migrate on ``app``, before Flask-Migrate's own commands run on it (a
    downgrade, ``current``; :func:`upgrade` registers it itself): loaded then, not at
    every process's start (Alembic is 90 ms of an import)."""
    if "migrate" not in app.extensions:
        from flask_migrate import Migrate

        from .db import db
        Migrate(app, db, directory=MIGRATIONS)


def upgrade(app: Flask, revision: str = "head") -> None:
    """Every migration up to ``revision`` on ``app``'s database (``basra db upgrade``, the
    tests' set-up), Flask-Migrate registered on the app first."""
    import flask_migrate

    migrations(app)
    with app.app_context():
        flask_migrate.upgrade(directory=MIGRATIONS, revision=revision)
