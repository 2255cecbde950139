"""Snapshots: a state survives the trip through JSON unchanged."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from service.engine import apply_move, legal_moves, load_variant, new_match, resign
from service.engine.codec import rules_from_json, state_from_dict, state_to_dict


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), plies=st.integers(0, 120),
       variant=st.sampled_from(["egyptian-v1", "egyptian-v2", "pagat", "egyptian-4p"]),
       resigns=st.booleans())
def test_state_round_trips_through_json(seed: int, plies: int, variant: str,
                                        resigns: bool) -> None:
    """state -> JSON text -> state is the identity, at any point of a match."""
    rules = load_variant(variant).rules
    rng = random.Random(seed)
    state = new_match(rules, rng.randbytes(32))
    for _ in range(plies):
        if state.finished:  # a short match can end within the plies drawn
            break
        moves = legal_moves(state)
        state = apply_move(state, moves[rng.randrange(len(moves))])
    if resigns and not state.finished:
        state = resign(state, 0)
    text = json.dumps(state_to_dict(state))
    back = state_from_dict(json.loads(text), rules_from_json(rules.to_dict()))
    assert back == state
    assert "rules" not in json.loads(text)  # stored once, beside the snapshot


def test_a_snapshot_from_before_deal_plays_were_kept_decodes_with_none() -> None:
    """Stored snapshots older than ``deal_plays`` load, with no plays this deal (a bot
    then infers nothing from the deal so far)."""
    rules = load_variant("egyptian-v2").rules
    state = new_match(rules, bytes(32))
    for _ in range(3):
        state = apply_move(state, legal_moves(state)[0])
    data = state_to_dict(state)
    assert len(data["deal_plays"]) == 3
    del data["deal_plays"]
    back = state_from_dict(data, rules)
    assert back.deal_plays == ()
    assert back._replace(deal_plays=state.deal_plays) == state
