"""A PostgreSQL outage under load, on a cluster of the test's own (never the shared one):
503 with Retry-After while it is down, no acknowledged move lost, recovery by itself."""

from __future__ import annotations

import collections
import threading
import time

import pytest

from tests.servers import gunicorn, request, throwaway_postgres

pytestmark = pytest.mark.process  # starts processes: the process stage


def test_a_postgres_restart_under_load_loses_nothing_acknowledged() -> None:
    with throwaway_postgres() as pg, gunicorn(pg.url, workers=2) as base:
        # a target no match reaches in the test: moves are fast enough now to finish a
        # 101-point match before the database goes down, leaving no move to make after
        status, created, _ = request(base, "POST", "/v1/matches", {
            "players": [{"name": "a"}, {"name": "b"}], "rules": {"target_score": 10_000}})
        assert status == 201
        match = created["id"]
        tokens = {s["seat"]: s["token"] for s in created["seats"]}
        acknowledged: list[int] = []
        seen: collections.Counter[int] = collections.Counter()
        without_retry_after: list[int] = []
        phase = {"name": "before"}
        after_restart: list[int] = []
        stop = threading.Event()

        def note(status: int, headers: dict[str, str]) -> None:
            seen[status] += 1
            if status == 503 and "Retry-After" not in headers:
                without_retry_after.append(status)

        def player() -> None:
            while not stop.is_set():
                status, public, headers = request(base, "GET", f"/v1/matches/{match}")
                note(status, headers)
                if status != 200:
                    time.sleep(0.05)
                    continue
                if public["status"] != "active":
                    return
                seat = public["turn"]
                status, mine, headers = request(base, "GET", f"/v1/matches/{match}",
                                                token=tokens[seat])
                note(status, headers)
                if status != 200:
                    continue
                status, body, headers = request(base, "POST", f"/v1/matches/{match}/moves",
                                                mine["legal_moves"][0], token=tokens[seat])
                note(status, headers)
                if status == 201:
                    acknowledged.append(body["state"]["version"])
                    if phase["name"] == "after":
                        after_restart.append(body["state"]["version"])

        def poller() -> None:
            while not stop.is_set():
                status, _, headers = request(base, "GET", f"/v1/matches/{match}?wait=1",
                                             headers={"If-None-Match": '"0-spectator"'})
                note(status, headers)

        threads = [threading.Thread(target=player), threading.Thread(target=poller)]
        for t in threads:
            t.start()
        time.sleep(1.5)
        pg.stop()
        phase["name"] = "down"
        time.sleep(3)
        down_503 = seen[503]
        pg.start()
        phase["name"] = "after"
        deadline = time.monotonic() + 30
        while not after_restart and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        stop.set()
        for t in threads:
            t.join(30)

        assert down_503 > 0, seen
        assert without_retry_after == []
        assert seen[500] == 0, seen
        assert after_restart, f"no move succeeded after the database came back: {seen}"
        status, log, _ = request(base, "GET", f"/v1/matches/{match}/moves")
        assert status == 200
        assert [m["seq"] for m in log["moves"]] == list(range(1, log["version"] + 1))
        assert set(acknowledged) <= set(range(1, log["version"] + 1))
        assert len(acknowledged) == len(set(acknowledged))
