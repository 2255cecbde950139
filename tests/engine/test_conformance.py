"""The shared rule cases of ../shared/conformance/plays.yaml, through the public engine API."""

from __future__ import annotations

from typing import Any

import pytest

from service.engine import Move, apply_move, format_cards, legal_moves, new_match, parse_card
from tests.helpers import LOCAL_CASES, SEED, SHARED_CASES, conformance_cases, conformance_setup

CASES = conformance_cases()


def test_local_copy_matches_shared_cases() -> None:
    """tests/conformance/plays.yaml is a faithful copy of the shared file."""
    if not SHARED_CASES.is_file():
        pytest.skip("../shared is not beside this checkout")
    assert LOCAL_CASES.read_text() == SHARED_CASES.read_text()


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_conformance_case(case: dict[str, Any]) -> None:
    """Each shared case: the floor is dealt, the play offers exactly the listed captures,
    every listed capture can be named, and the default play scores the listed basra."""
    rules, deck = conformance_setup(case)
    state = new_match(rules, SEED, [deck])
    assert format_cards(state.floor) == [str(parse_card(c)) for c in case["floor"]]
    play = parse_card(case["play"])
    offered = sorted(sorted(format_cards(m.capture or ())) for m in legal_moves(state) if m.card == play)
    expected = sorted(sorted(str(parse_card(c)) for c in cap) for cap in case["captures"])
    assert offered == expected

    default = apply_move(state, Move(0, play))
    assert sorted(format_cards(default.last_play.captured)) in expected  # type: ignore[union-attr]
    kinds = set()
    for capture in case["captures"]:
        after = apply_move(state, Move(0, play, tuple(parse_card(c) for c in capture)))
        kinds.add(after.last_play.basra or "none")  # type: ignore[union-attr]
        assert sorted(format_cards(after.last_play.captured)) == sorted(  # type: ignore[union-attr]
            str(parse_card(c)) for c in capture
        )
    assert (default.last_play.basra or "none") == case["basra"]  # type: ignore[union-attr]
    if len(case["captures"]) == 1:
        assert kinds == {case["basra"]}
