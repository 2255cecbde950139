"""Invariants under random legal play (hypothesis): cards, moves, replay, scores."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from service.engine import (
    DECK,
    apply_move,
    cards_accounted,
    legal_moves,
    load_variant,
    new_match,
    replay,
    with_house_rules,
)
from service.engine.board import Board

VARIANTS = ["egyptian-v1", "egyptian-v2", "pagat", "egyptian-4p"]
HOUSE_RULES = st.fixed_dictionaries(
    {},
    optional={
        "capture": st.fixed_dictionaries(
            {},
            optional={
                "groups": st.sampled_from(["disjoint", "union"]),
                "mode": st.sampled_from(["maximum", "choose"]),
                "compulsory": st.booleans(),
            },
        ),
        "jack": st.fixed_dictionaries(
            {}, optional={"sweeps": st.booleans(), "lone_jack_basra": st.booleans()}
        ),
        "seven_of_diamonds": st.fixed_dictionaries(
            {},
            optional={
                "special": st.booleans(),
                "basra": st.sampled_from(["any_rank", "sum_at_most_10", "never"]),
                "on_floor": st.sampled_from(["plain", "wild"]),
            },
        ),
        "leftover": st.sampled_from(["last_capturer", "none"]),
        "hand_size": st.integers(1, 6),
        "scoring": st.fixed_dictionaries(
            {}, optional={"most_cards_tie": st.sampled_from(["none", "split", "carry_over"])}
        ),
        "basra": st.fixed_dictionaries({}, optional={"last_play_counts": st.booleans()}),
        "target_tie": st.sampled_from(["play_on", "draw"]),
    },
)

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RANDOM_GAMES = given(
    variant=st.sampled_from(VARIANTS),
    house=HOUSE_RULES,
    seed=st.integers(0, 2**32),
    decks=st.integers(0, 2),
)
"""Matches of every variant under random house rules, dealt from the seed or from up to
two given decks (see :func:`_random_game`)."""


def _random_game(variant: str, house: dict, seed: int, decks: int, rounds: int = 3):  # noqa: ANN202
    rules = with_house_rules(load_variant(variant).rules, {**house, "target_score": 1000})
    rng = random.Random(seed)
    given_decks = []
    for _ in range(decks):
        deck = list(DECK)
        rng.shuffle(deck)
        given_decks.append(deck)
    state = new_match(rules, rng.randbytes(32), given_decks)
    return rules, rng, given_decks, state


@FAST
@RANDOM_GAMES
def test_random_play_keeps_every_card_offers_moves_and_replays(
    variant: str, house: dict, seed: int, decks: int
) -> None:
    """52 cards always accounted for; a live round never offers an empty move list; every
    offered move applies; replaying the moves equals the live state."""
    rules, rng, given_decks, state = _random_game(variant, house, seed, decks)
    moves = []
    while state.round <= 2:
        assert cards_accounted(state) == 52
        assert sum(map(len, state.hands)) + len(state.floor) + len(state.stock) + sum(
            map(len, state.piles)
        ) == 52
        options = legal_moves(state)
        assert options, "a live round offered no move"
        assert all(m.seat == state.turn for m in options)
        move = options[rng.randrange(len(options))]
        moves.append(move)
        state = apply_move(state, move)
    assert replay(rules, state.seed, given_decks, moves) == state


@FAST
@given(
    variant=st.sampled_from(VARIANTS),
    house=HOUSE_RULES,
    seed=st.integers(0, 2**32),
)
def test_round_points_add_up_as_the_settings_say(variant: str, house: dict, seed: int) -> None:
    """Each round's points are most-cards + basras x basra + jack basras x jack_basra + card
    points; the match totals are the sum of the rounds; piles hold 52 cards less leftovers."""
    rules, rng, _, state = _random_game(variant, house, seed, 0)
    while len(state.results) < 3:
        options = legal_moves(state)
        state = apply_move(state, options[rng.randrange(len(options))])
    s = rules.scoring
    carry = 0
    for r in state.results:
        bonus = [r.basras[t] * s.basra + r.jack_basras[t] * s.jack_basra + r.card_points[t]
                 for t in range(2)]
        most = [p - b for p, b in zip(r.points, bonus, strict=True)]
        leader = max(r.cards)
        winners = [t for t in range(2) if r.cards[t] == leader]
        if len(winners) == 1:
            assert most == [s.most_cards + carry if t == winners[0] else 0 for t in range(2)]
            carry = 0
        else:
            expected = s.most_cards // 2 if s.most_cards_tie == "split" else 0
            assert most == [expected, expected]
            carry = carry + s.most_cards if s.most_cards_tie == "carry_over" else 0
        assert r.carried == carry
        if rules.leftover == "last_capturer":
            assert sum(r.cards) == 52  # someone always captures in a round of 48 plays
        else:
            assert sum(r.cards) <= 52
    assert list(state.scores) == [sum(r.points[t] for r in state.results) for t in range(2)]


@FAST
@RANDOM_GAMES
def test_a_board_kept_across_plays_keeps_its_tallies(
    variant: str, house: dict, seed: int, decks: int
) -> None:
    """A board played on for whole rounds (as simulate and the expert's playouts do) keeps
    its running tallies, the floor's packed value counts and the cards held, equal to a
    board rebuilt from its snapshot, across deals and rounds."""
    _, rng, _, state = _random_game(variant, house, seed, decks)
    board = Board(state)
    while board.round <= 2:
        board.play_random(rng)
        rebuilt = Board(board.state())
        assert board.held == rebuilt.held == sum(map(len, board.hands))
        assert board.packed == rebuilt.packed


@FAST
@given(seed=st.integers(0, 2**32), variant=st.sampled_from(VARIANTS))
def test_matches_finish_with_a_winner_above_the_target(seed: int, variant: str) -> None:
    """A whole match of random play ends with the winner at or above target_score and
    strictly ahead (play_on)."""
    rules = load_variant(variant).rules
    rng = random.Random(seed)
    state = new_match(rules, rng.randbytes(32))
    while not state.finished:
        options = legal_moves(state)
        state = apply_move(state, options[rng.randrange(len(options))])
    assert legal_moves(state) == ()
    assert state.winner is not None and not state.draw
    assert state.scores[state.winner] >= rules.target_score
    assert state.scores[state.winner] > state.scores[1 - state.winner]


@FAST
@given(seed=st.integers(0, 2**32), variant=st.sampled_from(VARIANTS))
def test_random_move_is_a_legal_move(seed: int, variant: str) -> None:
    """random_move (used by simulate) always returns one of legal_moves."""
    from service.engine import random_move

    rules = load_variant(variant).rules
    rng = random.Random(seed)
    state = new_match(rules, rng.randbytes(32))
    for _ in range(60):
        move = random_move(state, rng)
        assert move in legal_moves(state)
        state = apply_move(state, move)


def test_random_move_is_uniform_over_legal_moves() -> None:
    """Every legal move is drawn about equally often (chi-square, p ~ 0.001)."""
    from collections import Counter

    from service.engine import random_move
    from tests.helpers import position, rules_of

    state = position(rules_of("egyptian-v1"), [["5S", "KS", "JS"], ["2D"]], ["2C", "2H", "3H", "KD"])
    moves = legal_moves(state)
    assert len(moves) == 4  # 5S two ways, KS, JS
    rng = random.Random(9)
    counts = Counter(random_move(state, rng) for _ in range(4000))
    assert set(counts) == set(moves)
    chi2 = sum((counts[m] - 1000) ** 2 / 1000 for m in moves)
    assert chi2 < 16.3


@settings(max_examples=300, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS),
    house=HOUSE_RULES,
    card=st.sampled_from(DECK),
    floor=st.lists(st.sampled_from(DECK), max_size=9, unique=True),
)
def test_outcome_count_matches_the_outcomes(variant: str, house: dict, card: object,
                                            floor: list) -> None:
    """Capturer.counts (used to draw random moves) equals the number of outcomes."""
    from service.engine.captures import capturer_for

    assume(card not in floor)
    rules = with_house_rules(load_variant(variant).rules, house)
    capturer = capturer_for(rules)
    hand = (card, *[c for c in DECK[::7] if c not in floor and c != card][:3])
    assert capturer.counts(hand, tuple(floor)) == [
        len(capturer.outcomes(c, tuple(floor))) for c in hand
    ]
