"""The soak's judgements (bench/soak.py): its schedule, the faults' windows, which
failures and webhook repeats they excuse, lost moves and memory (the run itself is
``python -m bench soak``, not a test)."""

from __future__ import annotations

import importlib
from types import ModuleType, SimpleNamespace

import pytest


@pytest.fixture
def soak(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.setenv("LOCUST_SKIP_MONKEY_PATCH", "1")  # not in the test's own process
    return importlib.import_module("bench.soak")


def test_the_schedule_scales_with_the_run_and_takes_the_kinds_in_turn(soak: ModuleType) -> None:
    kinds = ("instance", "worker", "redis", "leader")
    half_hour = soak.schedule(30, kinds)
    assert [at for at, _ in half_hour] == [330, 480, 630, 780, 930, 1080, 1230, 1380]
    assert [kind for _, kind in half_hour] == list(kinds) * 2
    assert soak.schedule(6, kinds) == [(90, "instance"), (150, "worker"), (210, "redis"),
                                       (270, "leader")]
    assert soak.baseline_minute(30) == 5 and soak.baseline_minute(6) == 1
    assert soak.schedule(2, kinds) == []  # no room before the quiet end


def test_a_fault_excuses_what_meets_its_window_and_grace(soak: ModuleType) -> None:
    fault = soak.Fault("instance", "i1", start=100.0, end=110.0)
    assert fault.covers(104, 105, grace=5)
    assert fault.covers(90, 96, grace=5) and fault.covers(114, 120, grace=5)
    assert not fault.covers(90, 94, grace=5) and not fault.covers(116, 120, grace=5)
    failures = soak.Failures()
    response = SimpleNamespace
    failures.note("POST", "move", 10.0, RuntimeError("502"), response(status_code=502),
                  start_time=105.0)
    failures.note("GET", "view", 10.0, None, response(status_code=200), start_time=150.0)
    failures.note("POST", "move", 10.0, RuntimeError("409"), response(status_code=409),
                  start_time=150.0)
    failures.note("GET", "stream (connect)", 5.0, RuntimeError("the player stream ended"))
    failures.note("GET", "stream (connect)", 5.0,
                  RuntimeError("the player stream answered 503"), start_time=150.0)
    failures.note("GET", "view", 10.0, ConnectionResetError("reset"),
                  response(status_code=0), start_time=150.0)
    failures.note(soak.locustfile.STREAM, "chat", 0.0, None)
    inside, outside = failures.split([fault], grace=5)
    assert [(name, status) for _, _, name, status, _ in inside] == [("move", 502)]
    assert [(name, status) for _, _, name, status, _ in outside] == [
        ("stream (connect)", 503), ("view", 0)]


def test_a_webhook_repeat_is_excused_only_across_a_fault(soak: ModuleType) -> None:
    faults = [soak.Fault("worker", "w0", start=100.0, end=104.0)]
    rows = [("msg_a", "delivered"), ("msg_b", "delivered"), ("msg_c", "delivered"),
            ("msg_d", "pending"), ("msg_e", "failed")]
    received = {"msg_a": 99.0, "msg_b": 200.0, "msg_x": 50.0}
    repeats = [("msg_a", 121.0), ("msg_b", 201.0)]
    out = soak.deliveries_of(rows, received, repeats, faults, grace=5)
    assert (out.messages, out.pending, out.failed, out.missing) == (5, 1, 1, ["msg_c"])
    assert out.repeats_in_faults == 1 and len(out.repeats_outside) == 1
    assert out.repeats_outside[0].startswith("msg_b") and out.strangers == 1


def test_a_move_is_lost_unless_logged_at_or_before_its_version(soak: ModuleType) -> None:
    acked = [("m1", 1, 0, "7D", 3), ("m1", 1, 1, "KH", 4), ("m2", 2, 0, "10S", 9)]
    logged = {("m1", 1, 0, "7D"): 3, ("m1", 1, 1, "KH"): 5}
    assert soak.lost_moves(acked, logged) == ["m1 round 1 seat 1 KH (version 4)",
                                              "m2 round 2 seat 0 10S (version 9)"]
    assert soak.lost_moves(acked[:1], logged) == []


def test_memory_is_judged_from_the_baseline_minute_since_the_last_restart(
        soak: ModuleType) -> None:
    memory = soak.Memory.__new__(soak.Memory)
    memory.started = 1000.0
    mb = 2**20
    memory.samples = {
        0: [(0, 200 * mb), (60, 300 * mb), (120, 310 * mb), (180, 340 * mb)],
        1: [(0, 200 * mb), (60, 300 * mb), (90, None), (120, 250 * mb), (180, 260 * mb)],
        2: [(0, 200 * mb), (60, 300 * mb), (120, 200 * mb), (180, 240 * mb), (240, 250 * mb)],
    }
    judged = memory.judged(60.0, {1: 1095.0, 2: 1100.0})
    assert judged[0][:3] == (300 * mb, 340 * mb, pytest.approx(40 / 300))
    assert judged[1][2] is None and "no room" in judged[1][3]  # restarted at 95 s
    assert judged[2][:3] == (240 * mb, 250 * mb, pytest.approx(10 / 240))


def test_each_instances_rss_is_shown_minute_by_minute(soak: ModuleType) -> None:
    memory = soak.Memory.__new__(soak.Memory)
    memory.started = 1000.0
    mb = 2**20
    memory.samples = {
        0: [(0, 200 * mb), (60, 300 * mb), (120, 310 * mb)],
        1: [(0, 200 * mb), (60, None), (120, 250 * mb), (180, 260 * mb)],
    }
    shown = memory.series({1: 1095.0})
    assert shown == {0: "200 300 310", 1: "200 - | 250 260"}
