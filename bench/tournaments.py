"""Tournaments at scale: pairing a 256-player Swiss round, and how long the free players
of a 200-player arena wait for their next game.

* **Swiss**: 256 players, five rounds paired by :func:`service.tournaments.pairing.
  swiss_round` with random results between them (score groups, met opponents); the
  slowest round's seconds, median of five events.
* **Arena**: 200 vouched players in an arena on the bench database, ``basra worker``'s
  pass every 0.2 s in a thread (its every chore, as in production), and a driver that
  ends each game after 1-6 s (the loser resigns through the API with their player
  token). A player's wait runs from the resignation that freed them to the pairing
  that seats them again (the pairing's ``created_at``); p50, p99 and the worst, in
  seconds, over ``ARENA_SECONDS`` of play.
"""

from __future__ import annotations

import os
import random
import statistics
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from service.tournaments import pairing
from service.tournaments.pairing import Game

SWISS_PLAYERS = 256
ARENA_PLAYERS = int(os.environ.get("BASRA_BENCH_ARENA_PLAYERS", "200"))
ARENA_SECONDS = float(os.environ.get("BASRA_BENCH_ARENA_SECONDS", "60"))


def swiss_seconds(runs: int = 5) -> list[float]:
    """Seconds to pair the slowest of five rounds of a 256-player Swiss (random results
    between rounds), ``runs`` times."""
    times = []
    for run in range(runs):
        rng = random.Random(run)
        players = [f"p{i}" for i in range(SWISS_PLAYERS)]
        games: list[Game] = []
        slowest = 0.0
        for number in range(1, 6):
            order = pairing.standings(players, pairing.swiss_results(games))
            started = time.perf_counter()
            planned = pairing.swiss_round(order, number)
            slowest = max(slowest, time.perf_counter() - started)
            assert len(planned.pairs) == SWISS_PLAYERS // 2
            games += [Game(a, b, rng.choice([a, b])) for a, b in planned.pairs]
        times.append(slowest)
    return times


def _arena(url: str) -> list[float]:
    """The free players' waits (seconds) in a simulated arena."""
    from sqlalchemy import select

    from service import create_app, worker
    from service.matches.models import Match
    from service.storage.base import as_utc
    from service.storage.db import db
    from service.tournaments.models import Pairing, Tournament

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "BASRA_RATE_LIMITS": "off"})
    client = app.test_client()
    tokens = {}
    for i in range(ARENA_PLAYERS):
        player = f"arena-{i}"
        tokens[player] = client.post(f"/v1/players/{player}/tokens", json={}).get_json()["token"]
    starts = datetime.now(UTC) - timedelta(seconds=1)
    tid = client.post("/v1/tournaments", json={
        "name": "bench arena", "system": "arena", "duration_minutes": 720,
        "starts_at": starts.isoformat(), "max_players": 1024,
        "clock": {"move_seconds": 60, "timeout": "forfeit"}}).get_json()["id"]
    for token in tokens.values():
        assert client.post(f"/v1/tournaments/{tid}/join", json={},
                           headers={"Authorization": f"Bearer {token}"}).status_code == 200
    stop = threading.Event()

    def work() -> None:
        with app.app_context():
            while not stop.is_set():
                began = time.monotonic()
                worker.run_once()
                stop.wait(max(0.0, 0.2 - (time.monotonic() - began)))

    runner = threading.Thread(target=work, daemon=True)
    runner.start()
    rng = random.Random(11)
    ends: dict[int, float] = {}
    freed: dict[str, datetime] = {}
    waits: list[float] = []
    seen: set[int] = set()
    finish = time.monotonic() + ARENA_SECONDS
    with app.app_context():
        while time.monotonic() < finish:
            rows = db.session.execute(
                select(Pairing.pk, Pairing.first, Pairing.second, Pairing.created_at, Match.id)
                .join(Match, Match.pk == Pairing.match_pk)
                .join(Tournament, Tournament.pk == Pairing.tournament_pk)
                .where(Tournament.id == tid, Pairing.status == "playing")).all()
            db.session.commit()
            now = time.monotonic()
            for pk, first, second, created, match_id in rows:
                if pk not in seen:
                    seen.add(pk)
                    ends[pk] = now + rng.uniform(1, 6)
                    for who in (first, second):
                        if who in freed:
                            waits.append((as_utc(created) - freed.pop(who)).total_seconds())
                if now >= ends[pk]:
                    loser = rng.choice([first, second])
                    r = client.post(f"/v1/matches/{match_id}/resign",
                                    headers={"Authorization": f"Bearer {tokens[loser]}"})
                    assert r.status_code == 200, r.get_json()
                    at = datetime.now(UTC)
                    freed[first] = freed[second] = at
                    ends[pk] = float("inf")
            time.sleep(0.05)
    stop.set()
    runner.join(30)
    return waits


def run() -> dict[str, Any]:
    """Both measurements, printed; their figures."""
    from bench.http import bench_database

    swiss = swiss_seconds()
    print(f"tournaments: the slowest of 5 rounds of a {SWISS_PLAYERS}-player Swiss: median "
          f"{statistics.median(swiss):.3f} s (runs: {', '.join(f'{s:.3f}' for s in swiss)})")
    waits = sorted(_arena(bench_database()))
    p50 = statistics.median(waits)
    p99 = waits[min(len(waits) - 1, int(len(waits) * 0.99))]
    print(f"  a {ARENA_PLAYERS}-player arena, {ARENA_SECONDS:.0f} s, games of 1-6 s: "
          f"{len(waits)} waits for a pairing, p50 {p50:.2f} s, p99 {p99:.2f} s, "
          f"worst {waits[-1]:.2f} s")
    return {"swiss_256_pairing_s": round(statistics.median(swiss), 3),
            "arena_wait_p50_s": round(p50, 2), "arena_wait_p99_s": round(p99, 2)}
