"""Searching bots in helper processes (issue "fast engine, computer opponent", item 3):
the helper plays the move the web process would, stops at its CPU budget, runs at a
lower priority, and a helper that dies is replaced while the move is still made."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from flask import Flask

from service.bots import helpers, searcher
from service.engine import apply_move, legal_moves, load_variant, new_match, with_house_rules
from service.engine.bots import bot_move, run_bots
from service.engine.codec import state_to_dict
from service.settings import settings_of
from tests.conftest import make_app

CHOOSE_4P = with_house_rules(load_variant("egyptian-4p").rules, {
    "capture": {"mode": "choose"}, "floor_size": 16, "hand_size": 9})
"""The costliest position measured: three experts' replies took a second of CPU."""


def _app(tmp_path: Path, **config: object) -> Flask:
    return make_app("sqlite", tmp_path, **config)


def _positions(count: int) -> list:
    """Positions of a v2 match between greedy bots, one a ply."""
    state = new_match(load_variant("egyptian-v2").rules, b"searches")
    found = []
    while len(found) < count and not state.finished:
        found.append(state)
        state, _ = run_bots(state, {0: "greedy", 1: "greedy"})
    return found


def test_a_helper_plays_the_move_the_web_process_would(tmp_path: Path) -> None:
    """With no budget to cut it, the expert's search is a function of the position
    (its randomness is seeded by the match): the helper's move is the same."""
    app = _app(tmp_path, BASRA_BOT_CPU_MS=10_000_000)
    with app.app_context():
        for state in _positions(6):
            seat = state.turn
            assert helpers.decide(state, seat, "expert") == bot_move(state, seat, "expert")
        pool = helpers._pool(settings_of(app))
        assert pool is not None and pool.made >= 1


def _stat(pid: int) -> list[str]:
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2:].split()  # the fields after the command's name


def test_helpers_run_at_a_lower_priority_and_a_dead_one_is_replaced(tmp_path: Path) -> None:
    app = _app(tmp_path, BASRA_BOT_PROCESSES=1, BASRA_BOT_NICE=7)
    state = _positions(3)[-1]
    with app.app_context():
        helpers.decide(state, state.turn, "expert")
        pool = helpers._pool(settings_of(app))
        assert pool is not None
        (helper,) = list(pool.free)
        assert int(_stat(helper.proc.pid)[16]) == min(19, os.nice(0) + 7)  # 7 below us
        os.kill(helper.proc.pid, signal.SIGKILL)
        helper.proc.wait()
        move = helpers.decide(state, state.turn, "expert")  # searched here this time
        assert move in legal_moves(state)
        assert pool.made == 0 and not pool.free
        helpers.decide(state, state.turn, "expert")  # and a new helper made
        assert pool.made == 1
        (again,) = list(pool.free)
        assert again.proc.pid != helper.proc.pid


def test_the_helper_stops_its_search_at_the_cpu_budget() -> None:
    """In the helper, a 20 ms budget cuts the search short (the same position took
    278-817 ms of CPU a reply without a budget); the CPU used is what the helper counts."""
    state = new_match(CHOOSE_4P, b"budget")
    asked = {"state": state_to_dict(state), "rules": CHOOSE_4P.to_dict(),
             "rules_hash": CHOOSE_4P.content_hash, "seat": state.turn, "level": "expert"}
    used = []
    for _ in range(3):
        began = time.process_time()
        answer = searcher.answer({**asked, "cpu_ms": 20})
        used.append(time.process_time() - began)
        assert answer["card"] in {str(m.card) for m in legal_moves(state)}
    assert min(used) < 0.120, used  # a budget and one world's overrun at most
    apply_move(state, legal_moves(state)[0])


class _HeldHelper:
    """A helper that answers only when told to, noting whose move it worked out."""

    served: list[str] = []  # noqa: RUF012 - the test's record, reset by it
    go_on: threading.Semaphore = threading.Semaphore(0)

    def __init__(self, nice: int) -> None:
        pass

    def ask(self, request: dict) -> dict:
        _HeldHelper.go_on.acquire()
        _HeldHelper.served.append(request["level"])
        return {"card": str(legal_moves(_positions(1)[0])[0].card), "capture": None}

    def close(self) -> None:
        pass


def test_front_ends_take_turns_at_the_helpers(monkeypatch: pytest.MonkeyPatch) -> None:
    """One helper, a front end's five searches queued: the move of another front end that
    comes after them is served next (round robin), not sixth; a move that finds no
    helper within its wait gets None (its bot plays the fallback level)."""
    monkeypatch.setattr(helpers, "Helper", _HeldHelper)
    _HeldHelper.served, _HeldHelper.go_on = [], threading.Semaphore(0)
    pool = helpers.Helpers(1, 0)
    state = _positions(1)[0]

    def move(owner: str, tag: str) -> threading.Thread:
        thread = threading.Thread(target=pool.decide, args=(state, state.turn, tag, 1.0,
                                                            owner, 30.0))
        thread.start()
        return thread

    def queued(count: int) -> None:
        deadline = time.monotonic() + 10
        while sum(map(len, pool._turns.values())) < count:
            assert time.monotonic() < deadline
            time.sleep(0.005)

    threads = [move("flood", "flood-0")]
    deadline = time.monotonic() + 10
    while pool.made < 1:
        assert time.monotonic() < deadline
        time.sleep(0.005)
    threads += [move("flood", f"flood-{n}") for n in range(1, 5)]
    queued(4)
    threads.append(move("quiet", "quiet"))
    queued(5)
    assert pool.decide(state, state.turn, "late", 1.0, "late", 0.05) is None
    for _ in threads:
        _HeldHelper.go_on.release()
    for thread in threads:
        thread.join(10)
    assert _HeldHelper.served[:2] == ["flood-0", "quiet"]
    assert sorted(_HeldHelper.served) == sorted(["quiet"] + [f"flood-{n}" for n in range(5)])
    assert pool.free and not pool._turns


def test_a_move_interrupted_while_it_waits_leaves_no_helper_behind(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A waiting move interrupted (its greenlet killed) leaves the queue, and a helper
    handed to it at that moment goes back: the pool keeps its helper."""
    monkeypatch.setattr(helpers, "Helper", _HeldHelper)
    pool = helpers.Helpers(1, 0)
    lent = pool._borrow("a", 1.0)
    assert lent is not None

    class Killed(BaseException):
        pass

    def interrupted(self: threading.Event, timeout: float | None = None) -> bool:
        pool._give(lent)  # the helper comes back just as the wait is interrupted
        raise Killed()

    monkeypatch.setattr(threading.Event, "wait", interrupted)
    with pytest.raises(Killed):
        pool._borrow("b", 1.0)
    monkeypatch.undo()
    assert pool.free == [lent] and not pool._turns and pool.made == 1
