"""Losing the database primary (docs "Operating it: high availability"): a three-node
Patroni cluster of the test's own, its leader killed with SIGKILL under load. Nothing
acknowledged is lost, no request fails with a 500 or a dropped connection, writes come
back once a standby is promoted, reads go on from the standbys throughout, long polls
wake for the first move after, and no 304 hides a move."""

from __future__ import annotations

import collections
import threading
import time
from typing import Any

import pytest

from tests.servers import gunicorn, patroni_cluster, request

pytestmark = [pytest.mark.process, pytest.mark.long]  # processes; first: 30 s or more

MATCHES = 3


def test_killing_the_primary_loses_nothing_and_reads_go_on() -> None:
    with patroni_cluster() as pg, gunicorn(pg.url, workers=2,
                                           DATABASE_READ_URL=pg.read_url) as base:
        matches: list[tuple[str, dict[int, str]]] = []
        for _ in range(MATCHES):
            status, created, _ = request(base, "POST", "/v1/matches", {
                "players": [{"name": "a"}, {"name": "b"}], "rules": {"target_score": 10_000}})
            assert status == 201
            matches.append((created["id"], {s["seat"]: s["token"] for s in created["seats"]}))
        acknowledged: dict[str, list[int]] = collections.defaultdict(list)
        writes: collections.Counter[int] = collections.Counter()
        reads: collections.Counter[int] = collections.Counter()
        dropped: list[str] = []
        no_retry_after: list[int] = []
        killed_at: list[float] = []
        refused_at: list[float] = []
        """When the first move after the kill was refused (503): the primary is gone."""
        back_at: list[float] = []
        """When a move sent after that refusal was acknowledged: a standby was promoted."""
        stop = threading.Event()

        def call(counter: collections.Counter[int], method: str, path: str, body: Any = None,
                 token: str | None = None, headers: dict[str, str] | None = None
                 ) -> tuple[int, Any, dict[str, str]]:
            try:
                status, data, got = request(base, method, path, body, token, headers)
            except OSError as error:  # a connection closed without an answer
                dropped.append(f"{method} {path}: {error!r}")
                return 0, None, {}
            counter[status] += 1
            if status == 503 and "Retry-After" not in got:
                no_retry_after.append(status)
            return status, data, got

        def player(match: str, tokens: dict[int, str]) -> None:
            while not stop.is_set():
                status, public, _ = call(reads, "GET", f"/v1/matches/{match}")
                if status != 200:
                    time.sleep(0.05)
                    continue
                seat = public["turn"]
                status, mine, _ = call(reads, "GET", f"/v1/matches/{match}", token=tokens[seat])
                if status != 200 or not mine.get("legal_moves"):
                    continue
                sent = time.monotonic()
                status, body, _ = call(writes, "POST", f"/v1/matches/{match}/moves",
                                       mine["legal_moves"][0], token=tokens[seat],
                                       headers={"If-Match": f'"{mine["version"]}"'})
                if status == 201:
                    acknowledged[match].append(body["state"]["version"])
                    # a move sent before the refusal may still have reached the old primary
                    if refused_at and sent > refused_at[0] and not back_at:
                        back_at.append(time.monotonic())
                elif status == 503:
                    if killed_at and not refused_at:
                        refused_at.append(time.monotonic())
                    time.sleep(0.2)

        def reader() -> None:
            while not stop.is_set():
                for match, _ in matches:
                    call(reads, "GET", f"/v1/matches/{match}/moves")
                call(reads, "GET", "/v1/matches?limit=5")
                time.sleep(0.05)

        threads = [threading.Thread(target=player, args=m) for m in matches]
        threads.append(threading.Thread(target=reader))
        for t in threads:
            t.start()
        deadline = time.monotonic() + 30
        while sum(len(v) for v in acknowledged.values()) < 60 and time.monotonic() < deadline:
            time.sleep(0.05)
        before_kill = sum(len(v) for v in acknowledged.values())
        pg.kill(pg.leader())
        killed_at.append(time.monotonic())
        deadline = killed_at[0] + 90
        while not back_at and time.monotonic() < deadline:
            time.sleep(0.2)
        after = sum(len(v) for v in acknowledged.values())
        deadline = time.monotonic() + 30
        while sum(len(v) for v in acknowledged.values()) < after + 30 \
                and time.monotonic() < deadline:  # moves go on for a while on the new primary
            time.sleep(0.05)
        stop.set()
        for t in threads:
            t.join(60)
        assert refused_at and back_at, f"writes did not stop and come back\n{pg.tail()}"
        recovered_in = back_at[0] - killed_at[0]

        # a long poll parked now is woken by the first move after the failover
        match, tokens = matches[0]
        status, public, headers = request(base, "GET", f"/v1/matches/{match}")
        woken: list[tuple[int, float]] = []

        def long_poll() -> None:
            got = request(base, "GET", f"/v1/matches/{match}?wait=20",
                          headers={"If-None-Match": headers["ETag"]})
            woken.append((got[0], time.monotonic()))

        poll = threading.Thread(target=long_poll)
        poll.start()
        time.sleep(1.0)
        seat = public["turn"]
        mine = request(base, "GET", f"/v1/matches/{match}", token=tokens[seat])[1]
        moved = request(base, "POST", f"/v1/matches/{match}/moves", mine["legal_moves"][0],
                        token=tokens[seat])
        moved_at = time.monotonic()
        poll.join(25)

        # every acknowledged move is there, and no 304 hides one
        for match, _ in matches:
            status, log, _ = request(base, "GET", f"/v1/matches/{match}/moves")
            assert status == 200
            status, view, _ = request(base, "GET", f"/v1/matches/{match}")
            assert view["version"] >= max(acknowledged[match], default=0)
            assert len(log["moves"]) >= len(acknowledged[match])
            if acknowledged[match]:
                older = f'"{max(acknowledged[match]) - 1}-spectator"'
                status, _, _ = request(base, "GET", f"/v1/matches/{match}",
                                       headers={"If-None-Match": older})
                assert status == 200

    print(f"acknowledged {before_kill} moves before the kill, writes back after "
          f"{recovered_in:.1f} s; writes {dict(writes)}, reads {dict(reads)}")
    assert not dropped, dropped[:5]
    assert 500 not in writes and 500 not in reads
    assert not no_retry_after
    assert recovered_in <= 45, recovered_in
    assert set(reads) == {200}, reads
    assert moved[0] == 201
    assert woken and woken[0][0] == 200 and woken[0][1] - moved_at < 3, woken
