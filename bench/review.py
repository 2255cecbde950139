"""A review's wait and cost: 20 matches against the greedy bot (house rules: target 50, so
two deals of 48 plays most often, about a hundred plays), each played to its end in
process on the bench's PostgreSQL database, its review asked for at once, and read every
20 ms until ready while ``basra worker`` (its defaults: helper processes at nice 10)
makes it. Target: ready within 10 s of the finish (p95), at no more CPU a play than the
expert's budget (``BASRA_BOT_CPU_MS``, 150)."""

from __future__ import annotations

import statistics
import time
from typing import Any

from bench.http import bench_database, worker

MATCHES = 20
TARGET_S = 10.0
RULES = {"target_score": 50}


def _finish(client: Any) -> tuple[str, str, int, float]:
    """A match played to its end: (id, the seat's token, plays, the moment it ended)."""
    created = client.post("/v1/matches", json={
        "players": [{"name": "a"}, {"bot": "greedy"}], "rules": RULES}).get_json()
    token = created["seats"][0]["token"]
    seat = {"Authorization": f"Bearer {token}"}
    view = client.get(f"/v1/matches/{created['id']}", headers=seat).get_json()
    while view["status"] == "active":
        move = view["legal_moves"][0]
        answer = client.post(f"/v1/matches/{created['id']}/moves", headers=seat, json={
            "card": move["card"], "capture": move["capture"]})
        view = answer.get_json()["state"]
    ended = time.monotonic()
    log = client.get(f"/v1/matches/{created['id']}/moves").get_json()
    return created["id"], token, sum(1 for m in log["moves"] if m["kind"] == "play"), ended


def run() -> dict[str, float]:
    url = bench_database()
    from service import create_app

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "BASRA_RATE_LIMITS": "off"})
    client = app.test_client()
    waits: list[float] = []
    per_play: list[float] = []
    plays_seen: list[int] = []
    print(f"review: {MATCHES} matches against greedy ({RULES}), each review asked for at the "
          "finish and read every 20 ms until ready; basra worker makes them")
    with worker(url):
        time.sleep(2)  # the worker's start
        for _ in range(MATCHES):
            match, _, plays, ended = _finish(client)
            while True:
                answer = client.get(f"/v1/matches/{match}/review")
                if answer.status_code == 200:
                    break
                time.sleep(0.02)
            waits.append(time.monotonic() - ended)
            plays_seen.append(plays)
            from sqlalchemy import text

            with app.app_context():
                from service.storage.db import db

                cpu = db.session.execute(text(
                    "SELECT r.cpu_ms FROM reviews r JOIN matches m ON m.pk = r.match_pk "
                    "WHERE m.id = :id"), {"id": match}).scalar_one()
                db.session.remove()
            per_play.append(cpu / plays)
    waits.sort()
    p95 = waits[int(0.95 * (len(waits) - 1))]
    figures = {
        "review_ready_p50_s": round(statistics.median(waits), 2),
        "review_ready_p95_s": round(p95, 2),
        "review_ready_max_s": round(waits[-1], 2),
        "review_plays_median": statistics.median(plays_seen),
        "review_cpu_ms_per_play_p50": round(statistics.median(per_play), 1),
        "review_cpu_ms_per_play_max": round(max(per_play), 1),
    }
    print(f"  plays per match: median {statistics.median(plays_seen)}, "
          f"{min(plays_seen)}-{max(plays_seen)}")
    print(f"  ready after the finish: p50 {figures['review_ready_p50_s']} s, p95 {p95:.2f} s, "
          f"max {waits[-1]:.2f} s (target p95 {TARGET_S:.0f} s: "
          f"{'met' if p95 <= TARGET_S else 'NOT met'})")
    print(f"  CPU a play: p50 {figures['review_cpu_ms_per_play_p50']} ms, max "
          f"{figures['review_cpu_ms_per_play_max']} ms (the expert's budget: 150 ms)")
    return figures
