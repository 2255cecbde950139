"""``max_rounds``: a match of a fixed number of deals (a duplicate event's tables), and a
setting added later that leaves every earlier rule set's hash as it was."""

from __future__ import annotations

import random

import pytest

from service.engine import InvalidRules, load_variant, new_match, play_random, with_house_rules


@pytest.mark.parametrize("rounds", [1, 2, 3])
def test_a_match_ends_after_max_rounds_whatever_the_scores(rounds: int) -> None:
    rules = with_house_rules(load_variant("egyptian-v2").rules,
                             {"max_rounds": rounds, "target_score": 10_000})
    for seed in range(5):
        state = new_match(rules, seed=bytes([seed]) * 32)
        rng = random.Random(seed)
        while not state.finished:
            state = play_random(state, rng)
        assert len(state.results) == rounds
        totals = [sum(r.points[team] for r in state.results) for team in (0, 1)]
        assert list(state.scores) == totals
        assert state.draw == (totals[0] == totals[1])
        if not state.draw:
            assert state.winner == totals.index(max(totals))


def test_the_target_still_ends_a_match_sooner() -> None:
    rules = with_house_rules(load_variant("egyptian-v2").rules, {"max_rounds": 50,
                                                                 "target_score": 1})
    state = new_match(rules, seed=b"t" * 32)
    rng = random.Random(1)
    while not state.finished:
        state = play_random(state, rng)
    assert len(state.results) == 1


def test_the_setting_is_bounded_and_hashes_only_when_set() -> None:
    v2 = load_variant("egyptian-v2").rules
    assert "max_rounds" not in v2.to_dict()
    assert with_house_rules(v2, {"max_rounds": 0}).content_hash == v2.content_hash
    assert with_house_rules(v2, {"max_rounds": 2}).content_hash != v2.content_hash
    for bad in (-1, 51, "2", True):
        with pytest.raises(InvalidRules) as raised:
            with_house_rules(v2, {"max_rounds": bad})
        assert raised.value.problems[0][0] == "max_rounds"
