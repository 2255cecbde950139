"""The expert chooses as it did before its playouts were shared with the review
(make_evaluator): its moves in 50 positions, as the expert of 9f0cb12 chose them."""

from __future__ import annotations

from service.engine import (
    apply_move,
    legal_moves,
    load_variant,
    new_match,
    observe,
    with_house_rules,
)
from service.engine.bots import POLICIES, bot_move, bot_rng

EXPECTED: list[tuple[str, bool, int, int, str, list[str]]] = [
    ('egyptian-v2', False, 0, 0, '4D', []),
    ('egyptian-v2', False, 0, 4, 'AH', ['AS']),
    ('egyptian-v2', False, 0, 8, '2H', []),
    ('egyptian-v2', False, 0, 12, '7S', ['2H', '5H']),
    ('egyptian-v2', False, 0, 16, 'QC', ['QH']),
    ('egyptian-v2', False, 0, 20, '9D', []),
    ('egyptian-v2', False, 0, 24, '2C', []),
    ('egyptian-v2', False, 0, 28, '7C', ['7H']),
    ('egyptian-v2', False, 0, 32, 'JS', ['4H', '8C', '10H']),
    ('egyptian-v2', False, 1, 0, '9S', ['9H']),
    ('egyptian-v2', False, 1, 4, '2H', []),
    ('egyptian-v2', False, 1, 8, 'JD', ['2H', '9S', 'QH', 'KS']),
    ('egyptian-v2', False, 1, 12, '5S', []),
    ('egyptian-v2', False, 1, 16, '2C', []),
    ('egyptian-v2', False, 1, 20, '9D', []),
    ('egyptian-v2', False, 1, 24, '5C', ['5S']),
    ('egyptian-v2', False, 1, 28, '5D', []),
    ('egyptian-v2', False, 1, 32, '6S', ['6H']),
    ('egyptian-4p', False, 0, 0, 'KH', ['KS']),
    ('egyptian-4p', False, 0, 4, 'AS', []),
    ('egyptian-4p', False, 0, 8, 'AS', []),
    ('egyptian-4p', False, 0, 16, '9D', ['AS', '3H', '5H']),
    ('egyptian-4p', False, 0, 20, 'AC', []),
    ('egyptian-4p', False, 0, 24, 'QC', []),
    ('egyptian-4p', False, 0, 32, 'JS', ['7H', '8C', '10H', 'QC']),
    ('egyptian-4p', False, 1, 0, '2H', []),
    ('egyptian-4p', False, 1, 4, '2H', []),
    ('egyptian-4p', False, 1, 8, 'QH', []),
    ('egyptian-4p', False, 1, 16, '9D', ['9H']),
    ('egyptian-4p', False, 1, 20, '4H', []),
    ('egyptian-4p', False, 1, 24, '4H', []),
    ('egyptian-4p', False, 1, 32, '6S', []),
    ('egyptian-v2', True, 0, 0, '4D', []),
    ('egyptian-v2', True, 0, 4, 'AH', ['AS']),
    ('egyptian-v2', True, 0, 8, '2H', []),
    ('egyptian-v2', True, 0, 12, '7S', ['2H', '5H']),
    ('egyptian-v2', True, 0, 16, 'QC', ['QH']),
    ('egyptian-v2', True, 0, 20, '9D', []),
    ('egyptian-v2', True, 0, 24, '2C', []),
    ('egyptian-v2', True, 0, 28, '7C', ['7H']),
    ('egyptian-v2', True, 0, 32, 'JS', ['4H', '8C', '10H']),
    ('egyptian-v2', True, 1, 0, '9S', ['9H']),
    ('egyptian-v2', True, 1, 4, '2H', []),
    ('egyptian-v2', True, 1, 8, 'JD', ['2H', '9S', 'QH', 'KS']),
    ('egyptian-v2', True, 1, 12, '5S', []),
    ('egyptian-v2', True, 1, 16, '2C', []),
    ('egyptian-v2', True, 1, 20, '9D', []),
    ('egyptian-v2', True, 1, 24, '5C', ['5S']),
    ('egyptian-v2', True, 1, 28, '5D', []),
    ('egyptian-v2', True, 1, 32, '6S', ['6H']),
]


def test_the_expert_plays_as_it_did() -> None:
    expert = POLICIES["expert"]
    chosen = []
    for variant, choose in (("egyptian-v2", False), ("egyptian-4p", False), ("egyptian-v2", True)):
        rules = with_house_rules(load_variant(variant).rules,
                                 {"capture": {"mode": "choose"}} if choose else {})
        for game in range(2):
            state = new_match(rules, seed=bytes([game + 40]) * 32)
            ply = 0
            while not state.finished and ply < 36:
                if len(legal_moves(state)) > 1 and ply % 4 == 0:
                    move = expert(observe(state, state.turn), bot_rng(state))
                    chosen.append((variant, choose, game, ply, str(move.card),
                                   [str(c) for c in (move.capture or ())]))
                state = apply_move(state, bot_move(state, state.turn, "greedy"))
                ply += 1
    assert chosen == EXPECTED
