"""basra worker: a pass that loses its database connection is retried, never fatal."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from sqlalchemy.exc import OperationalError

from service import worker
from tests.conftest import make_app


@pytest.mark.parametrize("lost", [
    OperationalError("SELECT", {}, psycopg.OperationalError("server closed")),
    psycopg.OperationalError("terminating connection due to unexpected postmaster exit"),
])
def test_a_pass_that_loses_the_database_is_retried(
    lost: Exception, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A connection cut outside a transaction block (a failover) fails one pass: the
    worker logs it and the next pass runs (it was a crash for anything but
    DatabaseUnavailable)."""
    app = make_app("sqlite", tmp_path)
    passes: list[int] = []

    def flaky() -> int:
        passes.append(1)
        if len(passes) == 1:
            raise lost
        return 0

    monkeypatch.setattr(worker, "run_once", flaky)
    worker.run(app, interval=0.01, passes=3)
    assert len(passes) == 3
