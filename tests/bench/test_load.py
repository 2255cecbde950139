"""The load test's pure pieces (bench/load): its players' choices and its SSE reader; and
that its locustfile imports (the run itself is ``python -m bench load``, not a test)."""

from __future__ import annotations

import importlib
import random
import statistics

import pytest

from bench.load.habits import (
    Mix,
    SseParser,
    next_activity,
    percentile,
    pick_move,
    seat_etag,
    think_time,
)

VIEW = {"id": "m1", "status": "active", "version": 7, "turn": 1, "legal_moves": [
    {"card": "7D", "capture": ["7C"]}, {"card": "KH", "capture": []}, {"card": "2S", "capture": []}]}


def test_a_move_is_one_of_the_views_legal_moves_and_none_off_turn() -> None:
    rng = random.Random(3)
    picked = [pick_move(VIEW, rng) for _ in range(60)]
    assert all(move in VIEW["legal_moves"] for move in picked)
    assert {m["card"] for m in picked if m} == {"7D", "KH", "2S"}  # at random, not the first
    assert pick_move({**VIEW, "legal_moves": []}, rng) is None
    assert pick_move({**VIEW, "status": "waiting"}, rng) is None
    assert pick_move({**VIEW, "status": "finished"}, rng) is None


def test_think_times_are_lognormal_around_the_median_and_capped() -> None:
    rng = random.Random(5)
    mix = Mix(think_median_s=4.0, think_sigma=0.6, think_max_s=25.0)
    times = [think_time(rng, mix) for _ in range(4000)]
    assert 3.7 < statistics.median(times) < 4.3
    assert max(times) <= 25.0 and min(times) > 0
    assert percentile(times, 0.9) > 1.8 * statistics.median(times)  # a human's long tail
    assert think_time(rng, Mix(think_median_s=0)) == 0.0


def test_activities_follow_the_mix_and_quick_play_takes_the_rest() -> None:
    rng = random.Random(7)
    mix = Mix(befriend_share=0.1, challenge_share=0.2, tournament_share=0.0, profile_share=0.0)
    picks = [next_activity(rng, mix) for _ in range(5000)]
    assert 0.08 < picks.count("befriend") / 5000 < 0.12
    assert 0.18 < picks.count("challenge") / 5000 < 0.22
    assert "tournament" not in picks and "profile" not in picks
    assert 0.66 < picks.count("quick_play") / 5000 < 0.74


def test_the_mix_is_read_from_its_environment_variables() -> None:
    mix = Mix.from_env({"BASRA_LOAD_THINK_MEDIAN_S": "2.5", "BASRA_LOAD_TOURNAMENT_ROUNDS": "3",
                        "UNRELATED": "1"})
    assert mix.think_median_s == 2.5 and mix.tournament_rounds == 3
    assert mix.chat_share == Mix().chat_share
    assert Mix.from_env(mix.env()) == mix


def test_the_sse_reader_gives_whole_events_and_drops_heartbeats() -> None:
    parser = SseParser()
    lines = [": connected", "", "id: 41", "event: match.turn", 'data: {"match_id": "m1",',
             'data:  "seat": 1}', "", ": heartbeat", "", "event: presence", "data: {}", ""]
    got = [e for e in (parser.feed(line) for line in lines) if e is not None]
    assert [(e.type, e.id) for e in got] == [("match.turn", "41"), ("presence", None)]
    assert got[0].data == '{"match_id": "m1",\n "seat": 1}'


def test_a_seats_etag_is_its_version_and_seat() -> None:
    assert seat_etag(VIEW, 1) == '"7-s1"'


def test_the_locustfile_imports_with_its_player(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOCUST_SKIP_MONKEY_PATCH", "1")  # not in the test's own process
    locustfile = importlib.import_module("bench.load.locustfile")
    from locust import FastHttpUser

    assert issubclass(locustfile.Player, FastHttpUser)
    assert [t.__name__ for t in locustfile.Player.tasks] == ["live"]
    run = importlib.import_module("bench.load.run")
    assert run.figures_of([{"players": 20, "move_p99_ms": 12.5, "moves": 3,
                            "error_kinds": {}}]) == {"load_20_move_p99_ms": 12.5,
                                                     "load_20_moves": 3}
