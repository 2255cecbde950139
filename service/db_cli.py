"""``basra db upgrade|downgrade|current``: Alembic migrations through Flask-Migrate."""

from __future__ import annotations

import flask_migrate


def run_db_command(command: str, revision: str | None) -> int:
    """Run one migration command against ``DATABASE_URL`` (SQLite file by default)."""
    from . import MIGRATIONS, create_app

    app = create_app()
    with app.app_context():
        if command == "upgrade":
            flask_migrate.upgrade(directory=MIGRATIONS, revision=revision or "head")
        elif command == "downgrade":
            flask_migrate.downgrade(directory=MIGRATIONS, revision=revision or "-1")
        else:
            flask_migrate.current(directory=MIGRATIONS)
    return 0
