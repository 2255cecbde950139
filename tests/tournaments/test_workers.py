"""Tournaments run by several workers (issue "Tournaments", Done means): each step is
taken once, a step cut short leaves nothing behind, and a worker killed mid-event is
replaced without the event noticing."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service import worker
from service.settings import Settings
from service.tournaments import scheduled as tournaments
from tests.conftest import make_app
from tests.servers import start_worker
from tests.tournaments.helpers import entered, read, resign, work

PLAYERS = [f"r{i}" for i in range(1, 7)]


def _race(app: Flask, workers: int = 4, passes: int = 5) -> None:
    """``workers`` threads, each its own worker, passing at once."""
    gate = threading.Barrier(workers)
    failures: list[BaseException] = []

    def one() -> None:
        try:
            with app.app_context():
                gate.wait()
                for _ in range(passes):
                    worker.run_once()
        except BaseException as error:  # noqa: BLE001 - reported below
            failures.append(error)

    threads = [threading.Thread(target=one) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not failures, failures


def _check_round(t: dict, number: int) -> dict:
    assert t["round"] == number and len(t["rounds"]) == number, "each round paired once"
    this = t["rounds"][-1]
    seated = Counter(p for pairing in this["pairings"] for p in pairing["players"])
    assert len(this["pairings"]) == 3 and set(seated.values()) == {1}
    return this


def test_racing_workers_pair_each_round_once(app: Flask, client: FlaskClient) -> None:
    tid, tokens = entered(client, PLAYERS, rounds=2)
    _race(app)
    first = _check_round(read(client, tid), 1)
    for pairing in first["pairings"]:
        resign(client, pairing["match_id"], tokens[pairing["players"][1]])
    _race(app)
    second = _check_round(read(client, tid), 2)
    matches = client.get("/v1/matches?limit=100").get_json()["matches"]
    assert len(matches) == 6, "one match a pairing, however many workers"
    for pairing in second["pairings"]:
        resign(client, pairing["match_id"], tokens[pairing["players"][0]])
    _race(app)
    final = read(client, tid)
    assert final["status"] == "finished" and len(final["rounds"]) == 2


def test_a_step_cut_short_leaves_nothing_and_is_taken_again(
        app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    tid, tokens = entered(client, PLAYERS, rounds=2)
    opened = tournaments._open_match
    calls = []

    def dies_on_the_second(*args: object) -> object:
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("the worker died here")
        return opened(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(tournaments, "_open_match", dies_on_the_second)
    work(app)  # logged, rolled back: the pass goes on
    t = read(client, tid)
    assert t["status"] == "scheduled" and t["rounds"] == []
    assert client.get("/v1/matches").get_json()["matches"] == []
    work(app)
    _check_round(read(client, tid), 1)


def _until(check: object, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.1)
    pytest.fail("the worker did not get there in time")


@pytest.mark.process
def test_a_worker_killed_mid_event_is_replaced_and_the_event_goes_on(
        pg_url: str, tmp_path: Path) -> None:
    app = make_app("postgres", tmp_path)
    client = app.test_client()
    tid, tokens = entered(client, PLAYERS, rounds=2)
    procs = [start_worker(pg_url, "--interval", "0.1") for _ in range(2)]
    try:
        _until(lambda: read(client, tid)["round"] == 1)
        for proc in procs:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        first = _check_round(read(client, tid), 1)
        for pairing in first["pairings"]:
            resign(client, pairing["match_id"], tokens[pairing["players"][1]])
        time.sleep(0.5)
        assert read(client, tid)["round"] == 1, "no worker, no step"
        procs = [start_worker(pg_url, "--interval", "0.1") for _ in range(2)]
        _until(lambda: read(client, tid)["round"] == 2)
        second = _check_round(read(client, tid), 2)
        for pairing in second["pairings"]:
            resign(client, pairing["match_id"], tokens[pairing["players"][1]])
        _until(lambda: read(client, tid)["status"] == "finished")
        assert len(read(client, tid)["rounds"]) == 2
    finally:
        for proc in procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)


def test_a_failing_step_is_backed_off_from_and_logged_once(
        app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """Issue 53 (second read): a tournament whose step fails every time is tried again
    at the next pass, then less and less often, and logged once a minute, not every pass;
    once its step goes through it is served every pass again."""
    tid, _ = entered(client, PLAYERS, rounds=2)
    took = tournaments.step
    calls: list[int] = []

    def fails(pk: int, _settings: Settings) -> bool:
        calls.append(pk)
        raise KeyError("erased-0000")

    monkeypatch.setattr(tournaments, "step", fails)
    monkeypatch.setattr(tournaments, "time", SimpleNamespace(monotonic=lambda: 1000.0))
    with caplog.at_level("ERROR", logger=tournaments.log.name):
        work(app, 6)
    assert len(calls) == 2, "the next pass, then backed off"
    assert len([r for r in caplog.records if "tournament step failed" in r.message]) == 1
    monkeypatch.setattr(tournaments, "step", took)
    monkeypatch.setattr(tournaments, "time", SimpleNamespace(monotonic=lambda: 1001.0))
    work(app)
    assert read(client, tid)["status"] == "running" and not tournaments._failing
