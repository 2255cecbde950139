"""A process that finishes a staked match and is killed doing it (the process test's
child, ``python -m tests.stakes.finisher URL MATCH SEAT_TOKEN POINT``): it resigns the
seat through the API and stops at ``POINT``, says ``READY`` on stdout, and waits to be
killed. ``written``: the finish's statement (PostgreSQL: the one data-modifying WITH
with the settlement in it; SQLite: the step that inserts the settlement's transfers,
the holds and balances not yet written) has run, nothing is committed; ``committed``:
the transaction has committed."""

from __future__ import annotations

import sys
import time
from typing import Any

from sqlalchemy import event

from service import create_app
from service.storage.db import db


def _stop() -> None:
    print("READY", flush=True)
    while True:
        time.sleep(60)


def main(url: str, match_id: str, token: str, point: str) -> None:
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "BASRA_RATE_LIMITS": "off"})
    with app.app_context():
        engine = db.engine

    settled: list[bool] = []

    @event.listens_for(engine, "after_cursor_execute")
    def written(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if "INSERT INTO coin_transfers" in statement:  # the child writes no other transfer
            settled.append(True)
            if point == "written":
                _stop()

    @event.listens_for(engine, "commit")
    def committing(conn: Any) -> None:
        if point == "committed" and settled:
            conn.connection.dbapi_connection.commit()  # committed now, then killed
            _stop()

    client = app.test_client()
    answer = client.post(f"/v1/matches/{match_id}/resign",
                         headers={"Authorization": f"Bearer {token}"})
    print(f"ANSWERED {answer.status_code}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:5])
