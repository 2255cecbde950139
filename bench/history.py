"""History at scale: a million stored matches, keyset pages in milliseconds.

Fills the bench database (once) with synthetic finished matches and seats using
``generate_series``, then times ``history.history`` pages: the newest page, a
player filter, a variant+status filter, and a page deep in the history reached
by cursor. Medians of 20 calls each.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import psycopg

from bench.http import bench_database

TARGET = int(os.environ.get("BASRA_BENCH_HISTORY_ROWS", "1000000"))


def _fill(dsn: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        have = conn.execute("SELECT count(*) FROM matches").fetchone()[0]  # type: ignore[index]
        if have >= TARGET:
            return int(have)
        missing = TARGET - have
        print(f"  filling {missing:,} synthetic matches (once)...", flush=True)
        start = conn.execute("SELECT coalesce(max(pk), 0) FROM matches").fetchone()[0]  # type: ignore[index]
        conn.execute("""
            INSERT INTO matches (pk, id, tenant_pk, variant, rules, rules_hash, status, version,
                                 seed, commitment, explicit_decks, snapshot, created_at,
                                 updated_at, finished_at, scores, winner, draw, rounds, quick,
                                 timeouts)
            SELECT %(start)s + g, md5((%(start)s + g)::text || 'm'), 1,
                   (ARRAY['egyptian-v1','egyptian-v2','pagat','egyptian-4p'])[1 + g %% 4],
                   '{}'::jsonb, repeat('0', 64),
                   CASE WHEN g %% 10 = 0 THEN 'active' ELSE 'finished' END, 100,
                   '\\x00'::bytea, repeat('0', 64), false, '{}'::jsonb,
                   now() - make_interval(secs => (%(n)s - g)), now(), now(),
                   '[101, 40]'::jsonb, 0, false, 3, false, '[0, 0]'::json
            FROM generate_series(1, %(n)s) AS g
        """, {"start": start, "n": missing})
        conn.execute("""
            INSERT INTO seats (match_pk, seat, name, player_id, bot, token_hash)
            SELECT m.pk, s, 'player' || ((m.pk * 7 + s * 13) %% 50000),
                   'id-' || ((m.pk * 7 + s * 13) %% 50000), NULL, repeat('0', 64)
            FROM matches m CROSS JOIN generate_series(0, 1) AS s
            WHERE m.pk > %(start)s
        """, {"start": start})
        conn.execute("SELECT setval(pg_get_serial_sequence('matches', 'pk'), "
                     "(SELECT max(pk) FROM matches))")
        conn.execute("ANALYZE matches; ANALYZE seats")
        return TARGET


def run() -> dict[str, float]:
    """Fill, then time the history queries through the service's own use case, read as a
    browser key reads it (the public view of each match); the medians in milliseconds."""
    url = bench_database()
    dsn = url.replace("postgresql+psycopg://", "postgresql://")
    rows = _fill(dsn)

    from service import create_app
    from service.matches import history
    from service.matches import service as matches
    from service.matches.enums import MatchStatus
    from service.matches.seats import PUBLIC
    from service.settings import settings_of
    from service.tenants.models import LOCAL_TENANT

    with psycopg.connect(dsn) as conn:  # the match halfway down the history, newest first
        middle = conn.execute("SELECT id FROM matches WHERE tenant_pk = %s ORDER BY pk DESC"
                              " OFFSET %s LIMIT 1", (LOCAL_TENANT, rows // 2)).fetchone()
    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    settings = settings_of(app)
    print(f"history: {rows:,} matches in PostgreSQL, 20-match pages, median of 20 calls")
    with app.app_context():
        cases: dict[str, dict[str, object]] = {
            "newest page": {},
            "player filter": {"player": "player1234"},
            "player with no matches": {"player": "nobody"},
            "variant + status": {"variant": "pagat", "status": MatchStatus.ACTIVE},
        }
        if middle is not None:
            cases["page at the middle (cursor)"] = {
                "cursor": history.encode_cursor(middle[0], settings.secret_key)}
        figures: dict[str, float] = {}
        for label, filters in cases.items():
            times = []
            for _ in range(20):
                started = time.perf_counter()
                page = matches.match_history(history.HistoryQuery(LOCAL_TENANT, **filters),
                                             PUBLIC, settings=settings).matches
                times.append(time.perf_counter() - started)
            median = statistics.median(times) * 1000
            figures["history_" + label.split(" (")[0].replace(" + ", "_").replace(" ", "_")
                    + "_ms"] = round(median, 2)
            print(f"  {label:<28} {median:7.2f} ms  ({len(page)} rows)")
    return figures


def main() -> int:
    """Run the history benchmark on its own."""
    run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
