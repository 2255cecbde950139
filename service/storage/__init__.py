"""The engine of persistence: the SQLAlchemy object and transactions, the base the tables
are built from, the rows a change writes, cursors, the migrations (each domain keeps its
own tables, in its `models.py`)."""

from __future__ import annotations

from pathlib import Path

MIGRATIONS = str(Path(__file__).resolve().parent / "migrations")
"""Alembic's folder (Flask-Migrate)."""
