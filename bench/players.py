"""Players at scale: 100,000 rated players over the history bench's million matches;
leaderboard pages, "around me" pages, a player's record and a page of their matches,
p50 and p99 in milliseconds through the service's routes (Flask's test client, in
process); and what rating a finishing move costs (resigning a rated match against an
unrated one, alternating, medians).

The worker's ranking of every board is timed first. The fill (once) makes players
``id-0`` .. ``id-99999``, a rating each in egyptian-v2 with 10 to 109 games, the history
bench's seats of those players vouched for, and ten rating changes each; what the fill
and the ranking wrote is vacuumed before the timings (as autovacuum would).
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from typing import Any

import psycopg

from bench import history
from bench.http import bench_database

PLAYERS = int(os.environ.get("BASRA_BENCH_PLAYERS", "100000"))
CALLS = 200


def _fill(dsn: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        have = conn.execute("SELECT count(*) FROM ratings").fetchone()[0]  # type: ignore[index]
        if have >= PLAYERS:
            return
        print(f"  filling {PLAYERS:,} rated players (once)...", flush=True)
        conn.execute("""
            INSERT INTO players (tenant_pk, player_id, name, created_at)
            SELECT 1, 'id-' || g, 'player' || g, now() FROM generate_series(0, %(n)s - 1) AS g
            ON CONFLICT DO NOTHING
        """, {"n": PLAYERS})
        conn.execute("""
            INSERT INTO ratings (player_pk, pool, tenant_pk, mu, sigma, ordinal, games, rated_at)
            SELECT p.pk, 'egyptian-v2', 1, r.mu, r.sigma, r.mu - 3 * r.sigma,
                   10 + (p.pk %% 100), now() - make_interval(hours => (p.pk %% 500)::int)
            FROM players p,
                 LATERAL (SELECT 15 + (hashtext(p.player_id) %% 1000 + 1000) %% 1000 / 50.0 AS mu,
                                 1 + (p.pk %% 50) / 10.0 AS sigma) AS r
            WHERE p.tenant_pk = 1 AND p.player_id LIKE 'id-%%'
            ON CONFLICT DO NOTHING
        """, {})
        conn.execute("UPDATE seats SET vouched = true WHERE player_id LIKE 'id-%%'", {})
        conn.execute("""
            INSERT INTO rating_changes (player_pk, pool, match_pk, mu, sigma, ordinal, at)
            SELECT p.pk, 'egyptian-v2', 1 + (p.pk * 11 + k) %% 1000000, 25, 8, 1,
                   now() - make_interval(days => k)
            FROM players p CROSS JOIN generate_series(1, 10) AS k WHERE p.player_id LIKE 'id-%%'
        """, {})


def _vacuum(dsn: str) -> None:
    """Vacuum what the fill and the ranking wrote, as autovacuum would (this machine's
    PostgreSQL runs without it): a page then reads no dead row versions and index-only
    scans need no heap."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        for table in ("seats", "matches", "players", "ratings", "rating_changes"):
            conn.execute(f"VACUUM (ANALYZE) {table}")


def _times(client: Any, paths: list[str]) -> tuple[float, float]:
    """p50 and p99 in ms of GETting each path."""
    times = []
    for path in paths:
        started = time.perf_counter()
        r = client.get(path)
        times.append(time.perf_counter() - started)
        assert r.status_code == 200, (path, r.get_json())
    times.sort()
    return (round(statistics.median(times) * 1000, 2),
            round(times[min(len(times) - 1, int(len(times) * 0.99))] * 1000, 2))


def _resign_ms(client: Any, rated: bool, n: int = 30) -> list[float]:
    """Milliseconds to resign (a finishing move) each of ``n`` new matches."""
    out = []
    for i in range(n):
        a, b = f"bench-r{i}-{random.random()}"[:40], f"bench-s{i}-{random.random()}"[:40]
        created = client.post("/v1/matches", json={"rated": rated, "players": [
            {"name": "a", "player_id": a.replace(".", "")},
            {"name": "b", "player_id": b.replace(".", "")}]}).get_json()
        token = created["seats"][0]["token"]
        started = time.perf_counter()
        r = client.post(f"/v1/matches/{created['id']}/resign",
                        headers={"Authorization": f"Bearer {token}"})
        out.append((time.perf_counter() - started) * 1000)
        assert r.status_code == 200, r.get_json()
    return out


def run() -> dict[str, float]:
    """Fill, then time the players' routes; p50/p99 in milliseconds."""
    url = bench_database()
    dsn = url.replace("postgresql+psycopg://", "postgresql://")
    history._fill(dsn)
    _fill(dsn)

    from service import create_app
    from service.players import scheduled
    from service.settings import settings_of

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "BASRA_RATE_LIMITS": "off"})
    client = app.test_client()
    with app.app_context():
        started = time.perf_counter()
        moved = scheduled.rank_leaderboards(settings_of(app), force=True)
        ranking_s = time.perf_counter() - started
    _vacuum(dsn)
    rng = random.Random(7)
    ids = [f"id-{rng.randrange(50_000)}" for _ in range(CALLS)]  # players with seats
    print(f"players: {PLAYERS:,} rated players, {history.TARGET:,} matches, "
          f"{CALLS} calls each (p50 / p99)")
    board = "/v1/leaderboards/egyptian-v2"
    first = client.get(board).get_json()
    cases = {
        "leaderboard first page": [board] * CALLS,
        "leaderboard page by cursor": [f"{board}?cursor={first['next']}"] * CALLS,
        "around a player": [f"{board}?around={p}" for p in ids],
        "a player's record": [f"/v1/players/{p}" for p in ids],
        "a page of their matches": [f"/v1/players/{p}/matches" for p in ids],
    }
    figures: dict[str, float] = {"players_ranking_s": round(ranking_s, 2)}
    print(f"  ranking every leaderboard (basra worker, each minute): {ranking_s:.2f} s, "
          f"{moved:,} places changed")
    for label, paths in cases.items():
        _times(client, paths[:10])  # warm
        p50, p99 = _times(client, paths)
        key = "players_" + label.replace("'s", "").replace(" ", "_")
        figures[key + "_p50_ms"], figures[key + "_p99_ms"] = p50, p99
        print(f"  {label:<28} p50 {p50:6.2f} ms  p99 {p99:6.2f} ms (target p99 <= 10 ms)")
    rated, casual = [], []
    for _ in range(3):  # alternating, so the machine's drift falls on both
        rated += _resign_ms(client, True)
        casual += _resign_ms(client, False)
    cost = statistics.median(rated) - statistics.median(casual)
    figures["rating_update_ms"] = round(cost, 2)
    print(f"  a rated finish costs {cost:+.2f} ms more than an unrated one (median of "
          f"{len(rated)}: {statistics.median(rated):.2f} against "
          f"{statistics.median(casual):.2f} ms; target <= 1 ms)")
    return figures


def main() -> int:
    """Run the players benchmark on its own."""
    run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
