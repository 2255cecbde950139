"""The database: the SQLAlchemy object and transactions, every table, the migrations."""

from __future__ import annotations

from pathlib import Path

MIGRATIONS = str(Path(__file__).resolve().parent / "migrations")
"""Alembic's folder (Flask-Migrate)."""
