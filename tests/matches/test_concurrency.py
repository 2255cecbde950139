"""Long polling and racing requests (threads against the same database)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import event, text

from service.matches import polls
from service.storage.db import db, transaction
from service.tenants.models import LOCAL_TENANT
from tests.client import auth, create, play, tokens, view
from tests.conftest import make_app


def test_long_poll_returns_as_soon_as_the_version_changes(app: Flask) -> None:
    """GET ?wait=S with If-None-Match answers when a move lands, not after S seconds."""
    client = app.test_client()
    created = create(client)
    toks = tokens(created)
    url = f"/v1/matches/{created['id']}?wait=10"
    result: dict[str, object] = {}

    def poll() -> None:
        started = time.monotonic()
        r = app.test_client().get(url, headers={"If-None-Match": '"0-spectator"'})
        result["status"], result["etag"] = r.status_code, r.headers.get("ETag")
        result["seconds"] = time.monotonic() - started

    poller = threading.Thread(target=poll)
    poller.start()
    time.sleep(0.3)
    move = view(client, created["id"], toks[0])["legal_moves"][0]
    assert play(client, created["id"], toks[0], move["card"], move["capture"]).status_code == 201
    poller.join(15)
    assert result["status"] == 200 and result["etag"] == '"1-spectator"'
    assert 0.25 < result["seconds"] < 5  # type: ignore[operator]


def test_long_poll_without_a_change_answers_304_when_the_wait_ends(client: FlaskClient) -> None:
    """An unchanged match answers 304 after the wait."""
    created = create(client)
    started = time.monotonic()
    r = client.get(f"/v1/matches/{created['id']}?wait=0.4", headers={"If-None-Match": '"0-spectator"'})
    assert r.status_code == 304 and r.headers["ETag"] == '"0-spectator"'
    assert 0.35 < time.monotonic() - started < 3


def test_long_poll_wait_is_bounded_by_the_server(backend: str, tmp_path: Path) -> None:
    """?wait= beyond BASRA_MAX_WAIT is cut to it."""
    app = make_app(backend, tmp_path, BASRA_MAX_WAIT=0.3)
    client = app.test_client()
    created = create(client)
    started = time.monotonic()
    r = client.get(f"/v1/matches/{created['id']}?wait=600", headers={"If-None-Match": '"0-spectator"'})
    assert r.status_code == 304
    assert time.monotonic() - started < 3


def test_two_racing_moves_one_wins_nothing_lost(app: Flask) -> None:
    """Two moves sent at once on the same version: exactly one is applied, the other is
    refused with 409 or 412, and the log holds one move."""
    client = app.test_client()
    for attempt in range(3):
        created = create(client)
        toks = tokens(created)
        moves = view(client, created["id"], toks[0])["legal_moves"]
        barrier = threading.Barrier(2)
        statuses: list[int] = []

        def send(move: dict, key: str, match_id: str, token: str,
                 barrier: threading.Barrier, statuses: list[int]) -> None:
            c = app.test_client()
            barrier.wait()
            r = play(c, match_id, token, move["card"], move["capture"], If_Match='"0"',
                     Idempotency_Key=key)
            statuses.append(r.status_code)

        threads = [threading.Thread(target=send, args=(
            moves[i % len(moves)], f"k{attempt}{i}", created["id"], toks[0], barrier, statuses))
            for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert sorted(statuses)[0] == 201 and sorted(statuses)[1] in (409, 412), statuses
        log = client.get(f"/v1/matches/{created['id']}/moves").get_json()
        assert len(log["moves"]) == 1 and log["version"] == 1


def test_many_concurrent_writers_never_fail_with_a_locked_database(app: Flask) -> None:
    """Several threads play several matches at once: every request gets a real answer."""
    client = app.test_client()
    matches = [create(client) for _ in range(4)]
    errors: list[object] = []

    def run(created: dict) -> None:
        c = app.test_client()
        toks = tokens(created)
        for _ in range(12):
            state = c.get(f"/v1/matches/{created['id']}").get_json()
            seat = state["turn"]
            mine = c.get(f"/v1/matches/{created['id']}", headers=auth(toks[seat])).get_json()
            m = mine["legal_moves"][0]
            r = play(c, created["id"], toks[seat], m["card"], m["capture"])
            if r.status_code != 201:
                errors.append(r.get_json())

    threads = [threading.Thread(target=run, args=(m,)) for m in matches]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert all(view(client, m["id"])["version"] == 12 for m in matches)


def test_a_slow_bot_reply_holds_no_lock(app: Flask, monkeypatch) -> None:  # noqa: ANN001
    """The engine and bot replies run outside the write transaction: while one match's bot
    thinks for a second, a move in another match is applied at once."""
    import service.matches.moving

    real = service.matches.moving.bots_play

    def slow_bots(state, bots, *args, **kwargs):  # noqa: ANN001, ANN003, ANN202
        if bots:
            time.sleep(1.0)
        return real(state, bots, *args, **kwargs)

    monkeypatch.setattr(service.matches.moving, "bots_play", slow_bots)
    client = app.test_client()
    with_bot = client.post("/v1/matches", json={
        "players": [{"name": "human"}, {"bot": "greedy"}]}).get_json()
    human_token = with_bot["seats"][0]["token"]
    other = create(client)
    other_token = tokens(other)[0]
    bot_move = view(client, with_bot["id"], human_token)["legal_moves"][0]
    other_move = view(client, other["id"], other_token)["legal_moves"][0]
    result: dict[str, int] = {}

    def slow() -> None:
        r = play(app.test_client(), with_bot["id"], human_token, bot_move["card"],
                 bot_move["capture"])
        result["slow"] = r.status_code

    thread = threading.Thread(target=slow)
    thread.start()
    time.sleep(0.3)
    started = time.monotonic()
    r = play(client, other["id"], other_token, other_move["card"], other_move["capture"])
    took = time.monotonic() - started
    thread.join(10)
    assert r.status_code == 201 and result["slow"] == 201
    assert took < 0.5, took


def _overtaken(app: Flask, monkeypatch, release=lambda go_on: go_on.set()):  # noqa: ANN001, ANN202
    """Hold seat 0's first move after the engine, land another of its moves meanwhile,
    then let the held one go on (``release(go_on)``); the held move's status and body,
    the log's cards and version, and the card that landed."""
    import service.matches.moving

    real = service.matches.moving.bots_play
    worked_out, go_on = threading.Event(), threading.Event()
    first = [True]

    def held_bots(state, bots, *args, **kwargs):  # noqa: ANN001, ANN003, ANN202
        if first[0]:
            first[0] = False
            worked_out.set()
            go_on.wait(10)
        return real(state, bots, *args, **kwargs)

    client = app.test_client()
    created = create(client)
    token = tokens(created)[0]
    moves = view(client, created["id"], token)["legal_moves"]
    monkeypatch.setattr(service.matches.moving, "bots_play", held_bots)  # the next move waits
    result: dict[str, object] = {}

    def overtaken() -> None:
        r = play(app.test_client(), created["id"], token, moves[0]["card"], moves[0]["capture"])
        result["status"], result["body"] = r.status_code, r.get_json()

    thread = threading.Thread(target=overtaken)
    thread.start()
    assert worked_out.wait(10)
    landed = play(client, created["id"], token, moves[-1]["card"], moves[-1]["capture"])
    assert landed.status_code == 201, landed.get_json()
    release(go_on)
    thread.join(15)
    log = client.get(f"/v1/matches/{created['id']}/moves").get_json()
    return result, [m["card"] for m in log["moves"]], log["version"], moves[-1]["card"]


def test_a_move_overtaken_while_worked_out_is_worked_out_again(app: Flask, monkeypatch) -> None:  # noqa: ANN001
    """A move is worked out outside any lock; if another move lands on the match before it
    is saved, its save (UPDATE ... WHERE version = the one read) finds nothing, nothing
    is written, and it is worked out again on the new position: here, no longer the
    seat's turn (409). The log holds only the move that landed first."""
    result, cards, version, landed = _overtaken(app, monkeypatch)
    assert result["status"] == 409, result
    assert result["body"]["reason"] == "not_your_turn"  # type: ignore[index]
    assert cards == [landed] and version == 1


def test_a_read_shows_a_move_another_instance_saved(app: Flask, monkeypatch) -> None:  # noqa: ANN001
    """A process makes a seat's view from the match it wrote last only while the database
    is still at that version: a move saved elsewhere since (here, one this process made
    with no memory of it, as another instance would) is shown."""
    from service.matches import cache

    client = app.test_client()
    created = create(client)
    first, second = tokens(created)[0], tokens(created)[1]
    match = created["id"]
    mine = view(client, match, first)["legal_moves"][0]
    assert play(client, match, first, mine["card"], mine["capture"]).status_code == 201
    before = view(client, match, first)
    assert before["version"] == 1 and before["turn"] == 1
    theirs = view(client, match, second)["legal_moves"][0]
    with monkeypatch.context() as elsewhere:
        elsewhere.setattr(cache, "written", cache.Kept(0))  # keeps nothing
        assert play(client, match, second, theirs["card"], theirs["capture"]).status_code == 201
    after = view(client, match, first)
    assert after["version"] == 2 and after["turn"] == 0
    assert after["last_move"]["card"] == theirs["card"]


def test_a_move_that_waited_for_the_write_lock_is_saved_only_on_its_own_version(
    tmp_path: Path, monkeypatch  # noqa: ANN001
) -> None:
    """SQLite: a move worked out on version 0 that then waits for the write lock (while
    another move lands at version 1, and the lock is still held a moment after) is
    refused, not saved at version 2. Waiting for the lock rolls the session back, which
    reloads the match object with the stored version; the save must still be on the
    version the move was worked out on. (Found by the racing-moves test in a CI run.)"""
    import sqlite3

    app = make_app("sqlite", tmp_path)
    path = app.config["SQLALCHEMY_DATABASE_URI"].removeprefix("sqlite:///")

    def release_into_a_held_lock(go_on: threading.Event) -> None:
        blocker = sqlite3.connect(path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")  # the held move now waits for the write lock
        go_on.set()
        time.sleep(0.3)
        blocker.execute("COMMIT")
        blocker.close()

    result, cards, version, landed = _overtaken(app, monkeypatch,
                                                release_into_a_held_lock)
    assert result["status"] == 409, result
    assert cards == [landed] and version == 1


def test_a_worker_keeps_its_pooled_connections_through_bursts(tmp_path: Path) -> None:
    """BASRA_DB_POOL_SIZE transactions at once reuse pooled connections: none is opened
    for one transaction and closed after it (a new PostgreSQL backend per burst)."""
    app = make_app("postgres", tmp_path)
    at_once = app.config["BASRA_DB_POOL_SIZE"]
    opened: list[object] = []
    with app.app_context():
        event.listen(db.engine, "connect", lambda *_: opened.append(1))

    def burst() -> None:
        together = threading.Barrier(at_once)

        def hold() -> None:
            with app.app_context(), transaction():
                db.session.execute(text("SELECT 1"))
                together.wait(10)  # every connection is checked out at the same time

        threads = [threading.Thread(target=hold) for _ in range(at_once)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(15)

    burst()
    first = len(opened)
    burst()
    burst()
    assert 0 < first <= at_once and len(opened) == first, (first, len(opened))
    with app.app_context():
        db.engine.dispose()


T = TypeVar("T")


def _crowd(app: Flask, monkeypatch, read: str, ask: Callable[[], T],  # noqa: ANN001
           crowd: int = 8) -> tuple[list[T], int]:
    """(answers, calls of the store's ``read``) when ``crowd`` threads call ``ask``
    together, each read held 0.2 s so the others arrive while it is in flight."""
    from service.matches import store

    reads: list[object] = []
    real = getattr(store, read)

    def slow_read(*args: object, **kwargs: object) -> object:
        reads.append(args)
        time.sleep(0.2)
        return real(*args, **kwargs)

    monkeypatch.setattr(store, read, slow_read)
    together = threading.Barrier(crowd)
    answers: list[T] = []

    def one() -> None:
        with app.app_context():
            together.wait(10)
            answers.append(ask())

    threads = [threading.Thread(target=one) for _ in range(crowd)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(15)
    with app.app_context():
        db.engine.dispose()
    assert len(answers) == crowd
    return answers, len(reads)


def test_spectators_arriving_together_read_a_new_match_once(tmp_path: Path,
                                                           monkeypatch) -> None:  # noqa: ANN001
    """Requests that find a match new to this process at once (its spectators
    connecting together) wait for one read of its facts instead of each reading: a
    crowd on one match costs one query, not one pooled connection each."""
    app = make_app("postgres", tmp_path)
    match = create(app.test_client())["id"]
    peeks, reads = _crowd(app, monkeypatch, "facts", lambda: polls.peek(match, LOCAL_TENANT))
    assert len({(p.version, tuple(p.seats)) for p in peeks}) == 1
    assert reads == 1, reads


def test_waiters_woken_together_read_the_new_view_once(tmp_path: Path,
                                                       monkeypatch) -> None:  # noqa: ANN001
    """The spectators a move wakes together want the same view: one of them reads the
    match and the others are given its view, not a query each."""
    from service.matches import reading

    app = make_app("postgres", tmp_path)
    created = create(app.test_client())
    match, version = created["id"], created["state"]["version"]
    views, reads = _crowd(app, monkeypatch, "read", lambda: reading._view_at(
        match, LOCAL_TENANT, None, version, shared=True))
    assert all(v is views[0] for v in views)
    assert reads == 1, reads
