"""The console's pages at scale: each page's API calls over the history bench's million
matches and the players bench's 100,000 players, p50 and p99 in milliseconds through
the service's routes (Flask's test client, in process, the keyless local front end,
which has the server key's rights), 200 calls of each.

A page is the calls it makes: the overview one, the players page a prefix search, a
player's page their record, a page of their matches and the reports about them, the
audit log and the reports queue a page each, a match's page its view, its play log and
its chat. Target: p99 at most 50 ms for each call.
"""

from __future__ import annotations

import random
from typing import Any

from bench import history, players
from bench.http import bench_database

CALLS = 200
TARGET_MS = 50


def _played(client: Any) -> str:
    """A match played to the end against the greedy bot (the history's synthetic matches
    have no state to show): its id."""
    created = client.post("/v1/matches", json={"players": [
        {"name": "a", "player_id": "id-1"}, {"bot": "greedy"}]}).get_json()
    seat = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
    view = client.get(f"/v1/matches/{created['id']}", headers=seat).get_json()
    while view["status"] == "active":
        move = view["legal_moves"][0]
        answer = client.post(f"/v1/matches/{created['id']}/moves", headers=seat, json={
            "card": move["card"], "capture": move.get("capture") or []})
        assert answer.status_code == 201, answer.get_json()
        view = answer.get_json()["state"]
    return str(created["id"])


def run() -> dict[str, float]:
    """Fill (once), then time each page's calls; p50/p99 in milliseconds."""
    url = bench_database()
    dsn = url.replace("postgresql+psycopg://", "postgresql://")
    history._fill(dsn)
    players._fill(dsn)
    players._vacuum(dsn)

    from service import create_app

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "BASRA_RATE_LIMITS": "off"})
    client = app.test_client()
    rng = random.Random(11)
    ids = [f"id-{rng.randrange(50_000)}" for _ in range(CALLS)]
    matches = [_played(client) for _ in range(20)] * (CALLS // 20)
    cases = {
        "overview": ["/v1/console/overview"] * CALLS,
        "players by prefix": [f"/v1/players?prefix=id-{rng.randrange(1000)}" for _ in ids],
        "a player's record": [f"/v1/players/{p}" for p in ids],
        "a page of their matches": [f"/v1/players/{p}/matches?limit=20" for p in ids],
        "reports about them": [f"/v1/reports?player_id={p}&status=open" for p in ids],
        "the audit log": ["/v1/audit?limit=50"] * CALLS,
        "the reports queue": ["/v1/reports?status=open&limit=100"] * CALLS,
        "a match": [f"/v1/matches/{m}" for m in matches[:CALLS]],
        "its play log": [f"/v1/matches/{m}/moves" for m in matches[:CALLS]],
        "its chat": [f"/v1/matches/{m}/chat" for m in matches[:CALLS]],
    }
    print(f"console: {history.TARGET:,} matches, {players.PLAYERS:,} players, {CALLS} calls "
          f"each (p50 / p99, target p99 <= {TARGET_MS} ms)")
    figures: dict[str, float] = {}
    for label, paths in cases.items():
        players._times(client, paths[:10])  # warm
        p50, p99 = players._times(client, paths)
        key = "console_" + label.replace("'s", "").replace(" ", "_")
        figures[key + "_p50_ms"], figures[key + "_p99_ms"] = p50, p99
        print(f"  {label:<24} p50 {p50:6.2f} ms  p99 {p99:6.2f} ms"
              f"{'' if p99 <= TARGET_MS else '  (over the target)'}")
    return figures
