"""``python -m bench history`` at a toy size, on a database of its own: it fills it with
synthetic matches (a second run adds to the first) and reads each kind of page through
the service's own use case, as the bench does over a million (it had fallen behind that
use case's arguments once, unseen: benchmarks are not in the suite)."""

from __future__ import annotations

import os

import psycopg
import pytest

from bench import history
from tests.conftest import libpq_url


@pytest.mark.process  # the bench migrates its database with `basra db upgrade`
def test_the_history_bench_fills_its_database_and_reads_each_page(
        pg_direct_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"bench_history_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
    url = f"{pg_direct_url.rsplit('/', 1)[0]}/{name}"
    admin = libpq_url(pg_direct_url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    monkeypatch.setenv("BASRA_BENCH_DATABASE_URL", url)

    monkeypatch.setattr(history, "TARGET", 300)
    first = history.run()
    monkeypatch.setattr(history, "TARGET", 600)
    second = history.run()  # adds 300 more, each with an id of its own

    pages = {"history_newest_page_ms", "history_player_filter_ms",
             "history_player_with_no_matches_ms", "history_variant_status_ms",
             "history_page_at_the_middle_ms"}
    assert set(first) == set(second) == pages
    assert all(ms > 0 for ms in second.values())
    with psycopg.connect(libpq_url(url)) as conn:
        counted = conn.execute("SELECT count(*), count(DISTINCT id) FROM matches").fetchone()
    assert counted == (600, 600)
