"""Turn clocks: deadlines in the database, applied by `basra worker`; a late move is
refused, and a read never writes."""

from __future__ import annotations

import os
import signal
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update

from service import worker
from service.matches.models import Match
from service.storage.base import utcnow
from service.storage.db import db
from tests.client import auth, play, tokens, view
from tests.conftest import require_postgres
from tests.servers import call, gunicorn, start_worker

PLAYERS = [{"name": "ann"}, {"name": "bob"}]


def _clocked(client: FlaskClient, timeout: str = "autoplay") -> tuple[str, dict[int, str]]:
    r = client.post("/v1/matches", json={"players": PLAYERS,
                                         "clock": {"move_seconds": 5, "timeout": timeout}})
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"], tokens(r.get_json())


def _expire(app: Flask, match: str) -> None:
    """Move the match's deadline into the past (as if its seconds had run out)."""
    with app.app_context():
        db.session.execute(update(Match).where(Match.id == match)
                           .values(deadline=utcnow() - timedelta(seconds=1)))
        db.session.commit()


def _worker_pass(app: Flask) -> int:
    with app.app_context():
        return worker.run_once()


def test_a_clocked_view_shows_the_clock_and_deadline(client: FlaskClient) -> None:
    match, _ = _clocked(client)
    state = view(client, match)
    assert state["clock"] == {"move_seconds": 5, "timeout": "autoplay"}
    assert state["deadline"] is not None
    plain = client.post("/v1/matches", json={"players": PLAYERS}).get_json()["state"]
    assert plain["clock"] is None and plain["deadline"] is None
    for bad in ({"move_seconds": 4}, {"move_seconds": 86_401}, {"move_seconds": 10, "timeout": "x"}):
        r = client.post("/v1/matches", json={"players": PLAYERS, "clock": bad})
        assert r.status_code == 422


def test_the_worker_autoplays_for_a_seat_out_of_time_exactly_once(app: Flask,
                                                                  client: FlaskClient) -> None:
    match, _ = _clocked(client)
    before = view(client, match)
    assert _worker_pass(app) == 0  # nothing due yet
    _expire(app, match)
    assert _worker_pass(app) == 1
    assert _worker_pass(app) == 0  # the next seat's clock has just started
    after = view(client, match)
    assert after["version"] == before["version"] + 1 and after["turn"] == 1
    log = client.get(f"/v1/matches/{match}/moves").get_json()["moves"]
    assert log[-1]["timeout"] is True and log[-1]["seat"] == 0


def test_a_read_never_writes_and_a_long_poll_wakes_when_the_worker_applies_a_deadline(
        app: Flask, client: FlaskClient) -> None:
    """A read of a match whose deadline passed shows it passed and changes nothing (a read
    may come from a standby); a long poll on it wakes as soon as the worker's pass plays
    for the seat."""
    match, toks = _clocked(client)
    _expire(app, match)
    before = view(client, match)
    assert before["turn"] == 0 and before["version"] == 0
    assert datetime.fromisoformat(before["deadline"]) < utcnow()
    assert client.get(f"/v1/matches/{match}/moves").get_json()["moves"] == []
    etag = client.get(f"/v1/matches/{match}", headers=auth(toks[1])).headers["ETag"]
    woken: list[Any] = []
    poll = threading.Thread(target=lambda: woken.append(app.test_client().get(
        f"/v1/matches/{match}?wait=10", headers={**auth(toks[1]), "If-None-Match": etag})))
    poll.start()
    assert _worker_pass(app) == 1
    poll.join(10)
    assert woken and woken[0].status_code == 200, woken
    assert woken[0].get_json()["turn"] == 1 and woken[0].get_json()["version"] == 1


def test_forfeit_clock_ends_the_match_for_the_seats_team(app: Flask, client: FlaskClient) -> None:
    match, _ = _clocked(client, "forfeit")
    _expire(app, match)
    assert _worker_pass(app) == 1
    state = view(client, match)
    assert state["status"] == "finished" and state["end_reason"] == "timeout"
    assert state["winner"] == 1 and state["deadline"] is None


def test_the_third_timeout_in_a_row_forfeits(app: Flask, client: FlaskClient) -> None:
    match, toks = _clocked(client)
    for _ in range(2):
        _expire(app, match)
        assert _worker_pass(app) == 1  # seat 0 autoplayed
        move = view(client, match, toks[1])["legal_moves"][0]
        assert play(client, match, toks[1], move["card"], move["capture"]).status_code == 201
    _expire(app, match)
    _worker_pass(app)
    state = view(client, match)
    assert state["status"] == "finished" and state["end_reason"] == "timeout"
    assert state["winner"] == 1
    assert client.get(f"/v1/matches/{match}/moves").get_json()["moves"][-1]["kind"] == "forfeit"


def _timeouts(base: str, match: str) -> list[int]:
    return [m["seq"] for m in _timeout_moves(base, match)]


def _timeout_moves(base: str, match: str) -> list[dict[str, Any]]:
    _, log = call(base, "GET", f"/v1/matches/{match}/moves")
    return [m for m in log["moves"] if m["timeout"]]


@pytest.mark.process
def test_a_5_second_clock_times_out_with_no_request_even_across_kill_9(tmp_path: Path) -> None:
    """Through gunicorn on PostgreSQL with two `basra worker`s: a 5-second clock runs out
    with no request at all, applied once; the API and both workers are killed with -9
    and started again; the next deadline is applied again, once."""
    url = require_postgres()
    workers = [start_worker(url), start_worker(url)]
    try:
        with gunicorn(url, workers=1, kill=True) as base:
            _, created = call(base, "POST", "/v1/matches", {
                "players": PLAYERS, "clock": {"move_seconds": 5, "timeout": "autoplay"}})
            match = created["id"]
            # a bound on the wait, not a latency: it includes the workers' start, which
            # took over 15 s beside the rest of the process stage on 2 cores
            deadline = time.monotonic() + 60
            while not _timeouts(base, match) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert _timeouts(base, match) == [1]
        for proc in workers:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        workers = [start_worker(url), start_worker(url)]
        with gunicorn(url, workers=1) as base:
            deadline = time.monotonic() + 60
            while len(_timeouts(base, match)) < 2 and time.monotonic() < deadline:
                time.sleep(0.2)
            assert _timeouts(base, match)[:2] == [1, 2]
            time.sleep(1.5)
            # applied once, though two workers run: each timeout a whole clock after the
            # last (the workers may apply one while gunicorn still boots, so a third may
            # be due by now on a slow machine: a count would not tell)
            times = [datetime.fromisoformat(m["created_at"]) for m in _timeout_moves(base, match)]
            assert len(times) >= 2
            assert all(b - a >= timedelta(seconds=4.9) for a, b in zip(times, times[1:], strict=False))
    finally:
        for proc in workers:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


def test_a_move_after_the_deadline_is_refused_and_plays_nothing(
        app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A move that comes after its seat's deadline is not played (409 clock_ran_out,
    naming the seat), even in the process that saved the match last (and keeps it); the
    worker's pass then plays for the seat, and its opponent plays on."""
    import service.matches.moving

    match, toks = _clocked(client)
    first = view(client, match, toks[0])["legal_moves"][0]
    assert play(client, match, toks[0], first["card"], first["capture"]).status_code == 201
    late = view(client, match, toks[1])["legal_moves"][0]
    with monkeypatch.context() as later:  # seat 1's 5 seconds have passed
        later.setattr(service.matches.moving, "utcnow", lambda: utcnow() + timedelta(seconds=6))
        r = play(client, match, toks[1], late["card"], late["capture"])
    assert r.status_code == 409 and r.get_json()["reason"] == "clock_ran_out", r.get_json()
    assert "seat 1" in r.get_json()["detail"]
    assert len(client.get(f"/v1/matches/{match}/moves").get_json()["moves"]) == 1
    _expire(app, match)
    assert _worker_pass(app) == 1
    log = client.get(f"/v1/matches/{match}/moves").get_json()["moves"]
    assert [(m["seat"], m["timeout"]) for m in log] == [(0, False), (1, True)]
    again = view(client, match, toks[0])["legal_moves"][0]  # seat 0's clock runs now
    assert play(client, match, toks[0], again["card"], again["capture"]).status_code == 201


def test_a_move_overtaken_by_its_seats_timeout_is_not_played_on_the_new_position(
        app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A move read in time whose seat's clock runs out while it is worked out (the worker
    plays for the seat and the bot replies, so it is the seat's turn again) is refused
    (409 clock_ran_out), not played on the position the timeout left."""
    import service.matches.moving

    created = client.post("/v1/matches", json={
        "players": [{"name": "ann"}, {"bot": "greedy"}],
        "clock": {"move_seconds": 5, "timeout": "autoplay"}}).get_json()
    match, token = created["id"], tokens(created)[0]
    move = view(client, match, token)["legal_moves"][0]
    real = service.matches.moving.bots_play
    worked_out, go_on = threading.Event(), threading.Event()

    def held(state, bots, *args, **kwargs):  # noqa: ANN001, ANN003, ANN202
        worked_out.set()
        go_on.wait(10)
        return real(state, bots, *args, **kwargs)

    monkeypatch.setattr(service.matches.moving, "bots_play", held)
    answer: list[Any] = []
    late = threading.Thread(target=lambda: answer.append(
        play(app.test_client(), match, token, move["card"], move["capture"])))
    late.start()
    assert worked_out.wait(10)
    _expire(app, match)
    assert _worker_pass(app) == 1  # the greedy bot plays for ann, the bot replies
    go_on.set()
    late.join(10)
    assert answer and answer[0].status_code == 409, answer[0].get_json()
    assert answer[0].get_json()["reason"] == "clock_ran_out"
    log = client.get(f"/v1/matches/{match}/moves").get_json()["moves"]
    assert [(m["seat"], m["timeout"]) for m in log] == [(0, True), (1, False)]
    assert view(client, match, token)["turn"] == 0
