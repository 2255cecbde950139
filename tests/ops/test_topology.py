"""An instance killed behind the balancer loses no acknowledged move (issue 56).

Two gunicorn instances behind HAProxy, through PgBouncer in transaction mode, with a
worker (:mod:`bench.topology`). Players play moves through the balancer in a loop, one
thread a table; one instance is killed with SIGKILL mid-way and started again. A move
whose request fails (a 502 from the balancer, a cut connection) is sent again with the
same Idempotency-Key until it is acknowledged. Afterwards every table's move log holds
exactly the moves acknowledged, in order: none lost, none applied twice.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import psycopg
import pytest
from sqlalchemy import make_url

from bench.topology import Plan, Topology, topology, wait_for
from tests.servers import process_stage, request

pytestmark = [pytest.mark.process, pytest.mark.long]  # processes; first: 30 s or more

TABLES = 4
"""Player threads, each playing both seats of one match at a time."""
STEP = 15
"""Moves acknowledged in each phase: before the kill, while one instance is down, and
after it is back."""
RETRY_SECONDS = 20.0
"""How long a request is retried before the test gives up."""
FAILED = (502, 503, 504)
"""The balancer's answers when the instance it chose went away: the request is retried."""


def _database(pg_direct_url: str) -> str:
    """The topology's database beside the test database, on its server (made once, kept:
    the topology migrates it)."""
    url = make_url(pg_direct_url)
    name = f"{url.database}_topology"
    admin = url.set(drivername="postgresql", database="postgres")
    with psycopg.connect(admin.render_as_string(hide_password=False), autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            conn.execute(f'CREATE DATABASE "{name}"')
    return url.set(database=name).render_as_string(hide_password=False)


@dataclass
class Ledger:
    """What the players were told: the moves acknowledged, by match, in order."""

    base: str
    key: str
    acked: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    count: int = 0
    retries: int = 0
    uncertain: int = 0
    """Moves whose first try failed (applied or not, the client could not tell)."""
    errors: list[BaseException] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def ack(self, match: str, seat: int, card: str) -> None:
        with self.lock:
            self.acked.setdefault(match, []).append((seat, card))
            self.count += 1


def _retried(ledger: Ledger, method: str, path: str, body: Any = None,
             token: str | None = None, headers: dict[str, str] | None = None,
             ) -> tuple[int, Any, int]:
    """One request through the balancer, sent again (the same, its Idempotency-Key
    included) while the answer is the balancer's failure or a cut connection: (status,
    body, tries)."""
    tries = 0
    outcome: list[tuple[int, Any]] = []

    def answered() -> bool:
        nonlocal tries
        tries += 1
        try:
            status, answer, _ = request(ledger.base, method, path, body, token, headers)
        except OSError:  # the connection was cut with the instance
            return False
        if status in FAILED:
            return False
        outcome.append((status, answer))
        return True

    wait_for(answered, RETRY_SECONDS, f"{method} {path} got no answer")
    with ledger.lock:
        ledger.retries += tries - 1
    return outcome[0][0], outcome[0][1], tries


def _play(ledger: Ledger, table: int, stop: threading.Event) -> None:
    """One table's player: create a match, play both seats' first legal move each turn
    until it ends, then another; every request retried with its Idempotency-Key."""
    api = {"X-API-Key": ledger.key}
    try:
        for number in range(10_000):
            if stop.is_set():
                return
            status, created, _ = _retried(
                ledger, "POST", "/v1/matches", {"variant": "egyptian-v2", "players": [
                    {"name": "north"}, {"name": "south"}]},
                headers={**api, "Idempotency-Key": f"create-{table}-{number}"})
            assert status == 201, created
            match, seats = created["id"], {s["seat"]: s["token"] for s in created["seats"]}
            state = created["state"]
            moves = 0
            while state["status"] == "active" and not stop.is_set():
                seat = state["turn"]
                status, view, _ = _retried(ledger, "GET", f"/v1/matches/{match}",
                                           token=seats[seat], headers=api)
                assert status == 200, view
                move = view["legal_moves"][0]
                status, answer, tries = _retried(
                    ledger, "POST", f"/v1/matches/{match}/moves",
                    {"card": move["card"], "capture": move["capture"]}, seats[seat],
                    headers={**api, "Idempotency-Key": f"move-{match}-{moves}"})
                assert status == 201, answer
                assert answer["move"]["card"] == move["card"]
                if tries > 1:
                    with ledger.lock:
                        ledger.uncertain += 1
                ledger.ack(match, seat, move["card"])
                state = answer["state"]
                moves += 1
    except BaseException as error:  # the main thread reports it
        ledger.errors.append(error)
        stop.set()


def _server_sessions(top: Topology, n: int) -> int:
    """The connections the balancer has sent instance ``n`` so far."""
    return int(top.servers()[f"i{n}"]["stot"])


def test_an_instance_killed_behind_the_balancer_loses_no_acknowledged_move(
        pg_direct_url: str) -> None:
    process_stage()
    plan = Plan(instances=2, workers_per_instance=1, basra_workers=1, port=0,
                database_url=_database(pg_direct_url), graceful_seconds=2, settings={
                    "BASRA_ACCESS_LOG": "", "BASRA_LIMIT_MOVES": "100000/minute",
                    "BASRA_LIMIT_READS": "100000/minute",
                    "BASRA_LIMIT_CREATES": "100000/minute"})
    with topology(plan) as top:
        ledger, stop = Ledger(top.url, top.api_key), threading.Event()
        players = [threading.Thread(target=_play, args=(ledger, t, stop), daemon=True)
                   for t in range(TABLES)]
        for player in players:
            player.start()
        try:
            def acked(at_least: int) -> Callable[[], bool]:
                return lambda: ledger.count >= at_least or bool(ledger.errors)

            wait_for(acked(STEP), 60, f"{STEP} moves were not acknowledged")
            assert _server_sessions(top, 0) > 0 and _server_sessions(top, 1) > 0
            # SIGKILL while the balancer has a request of the players' under way there
            wait_for(lambda: int(top.servers()["i0"]["scur"]) > 0, 10, "i0 was never busy")
            top.kill_instance(0)
            killed_at = ledger.count
            top.wait_server(0, "DOWN", 10)
            wait_for(acked(killed_at + STEP), 60, "moves stopped with one instance down")
            top.start_instance(0)  # its port again; back once the balancer has it up
            back_at, served = ledger.count, _server_sessions(top, 0)
            wait_for(lambda: ledger.count >= back_at + STEP and _server_sessions(top, 0) > served,
                     60, "the instance started again was given no requests")
        finally:
            stop.set()
            for player in players:
                player.join(RETRY_SECONDS + 10)
        assert not ledger.errors, top.tail()
        assert all(not player.is_alive() for player in players)

        for match, plays in ledger.acked.items():
            status, log, _ = request(top.url, "GET", f"/v1/matches/{match}/moves",
                                     headers={"X-API-Key": top.api_key})
            assert status == 200, log
            logged = [(m["seat"], m["card"]) for m in log["moves"] if m["kind"] == "play"]
            assert logged == plays, f"match {match}: acknowledged {plays}, logged {logged}"
        print(f"{ledger.count} moves acknowledged over {len(ledger.acked)} matches; "
              f"{ledger.retries} requests retried, {ledger.uncertain} moves sent again with their "
              f"key after a failed try; killed at move {killed_at}")
