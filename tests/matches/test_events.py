"""The events stream (Server-Sent Events) of a match, through gunicorn."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import require_postgres
from tests.servers import call, gunicorn, sse_events

pytestmark = [pytest.mark.process, pytest.mark.alone]  # timings: nothing beside it


@pytest.fixture(scope="module")
def two_pg_instances() -> Iterator[tuple[str, str]]:
    url = require_postgres()
    with gunicorn(url, workers=1, BASRA_HEARTBEAT_SECONDS="1") as a, \
            gunicorn(url, workers=1, BASRA_HEARTBEAT_SECONDS="1") as b:
        yield a, b


def test_events_arrive_within_100_ms_from_another_instance(
    two_pg_instances: tuple[str, str],
) -> None:
    """A spectator streams from one instance while moves are made on the other: one state
    event on connect, then one per move, each within 100 ms of its 201; heartbeats while
    idle; Last-Event-ID resumes; the stream ends with the match."""
    a, b = two_pg_instances
    _, created = call(a, "POST", "/v1/matches", {"players": [{"name": "x"}, {"name": "y"}]})
    match = created["id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    stream = sse_events(b, f"/v1/matches/{match}/events")
    first = next(stream)
    assert first["event"] == "state" and first["id"] == "0" and first["data"]["version"] == 0
    assert "hand" not in first["data"]
    assert next(stream) == {"comment": "heartbeat"}  # 1 s without a change
    lags: list[float] = []
    received: list[int] = []

    def mover() -> None:
        for _ in range(4):
            _, public = call(a, "GET", f"/v1/matches/{match}")
            seat = public["turn"]
            _, mine = call(a, "GET", f"/v1/matches/{match}", token=tokens[seat])
            status, body = call(a, "POST", f"/v1/matches/{match}/moves",
                                mine["legal_moves"][0], token=tokens[seat])
            assert status == 201
            acked = time.monotonic()
            while len(received) < body["state"]["version"] and time.monotonic() - acked < 5:
                time.sleep(0.002)
            lags.append(time.monotonic() - acked)
        call(a, "POST", f"/v1/matches/{match}/resign", token=tokens[0])

    thread = threading.Thread(target=mover)
    thread.start()
    states = []
    for event in stream:
        if "event" in event:
            states.append(event)
            received.append(int(event["id"]))
    thread.join(30)
    assert [int(e["id"]) for e in states] == [1, 2, 3, 4, 5]
    assert states[-1]["data"]["status"] == "finished"  # and then the stream closed
    assert max(lags) < 0.1, lags
    resumed = sse_events(b, f"/v1/matches/{match}/events", {"Last-Event-ID": "3"})
    assert int(next(resumed)["id"]) == 5


def test_events_on_sqlite_with_a_seat_token(tmp_path: Path) -> None:
    """On the SQLite default the stream polls; a seat's events show its hand; a wrong token
    is a 403 problem before any stream starts."""
    with gunicorn(f"sqlite:///{tmp_path / 'e.sqlite3'}", workers=1,
                  BASRA_POLL_INTERVAL="0.05") as base:
        _, created = call(base, "POST", "/v1/matches",
                          {"players": [{"name": "x"}, {"bot": "greedy"}]})
        match, token = created["id"], created["seats"][0]["token"]
        stream = sse_events(base, f"/v1/matches/{match}/events",
                         {"Authorization": f"Bearer {token}"})
        first = next(stream)
        assert len(first["data"]["hand"]) == 4 and first["data"]["seat"] == 0
        move = first["data"]["legal_moves"][0]
        assert call(base, "POST", f"/v1/matches/{match}/moves", move, token=token)[0] == 201
        nxt = next(e for e in stream if "event" in e)
        assert int(nxt["id"]) == 2 and nxt["data"]["turn"] == 0  # the bot replied
        status, problem = call(base, "GET", f"/v1/matches/{match}/events", token="forged")
        assert status == 403 and problem["reason"] == "invalid_token"
