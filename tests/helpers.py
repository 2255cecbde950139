"""Builders for engine positions used across the tests."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from service.engine import (
    DECK,
    Card,
    Rules,
    State,
    load_variant,
    new_match,
    parse_cards,
    with_house_rules,
)

SEED = bytes(range(32))
SHARED_CASES = Path(__file__).resolve().parents[2] / "shared" / "conformance" / "plays.yaml"
LOCAL_CASES = Path(__file__).resolve().parent / "conformance" / "plays.yaml"


def rules_of(variant: str = "egyptian-v2", **overrides: Any) -> Rules:
    """A shipped variant with house-rule overrides (nested dicts allowed)."""
    return with_house_rules(load_variant(variant).rules, overrides)


def deck_with(*packets: str) -> list[Card]:
    """A 52-card deck that starts with the given cards ("2C 3C ..."), the rest in order."""
    top = [c for packet in packets for c in parse_cards(packet.split())]
    return top + [c for c in DECK if c not in top]


def position(
    rules: Rules,
    hands: Sequence[Sequence[str]],
    floor: Sequence[str] = (),
    stock: Sequence[str] = (),
    turn: int = 0,
    **changes: Any,
) -> State:
    """A mid-round state: the given hands, floor and stock; every other card in team 1's pile
    (or team 0's if given ``piles``), so that all 52 cards stay accounted for."""
    hands_c = tuple(parse_cards(h) for h in hands)
    floor_c = parse_cards(floor)
    stock_c = parse_cards(stock)
    used = {c for h in hands_c for c in h} | set(floor_c) | set(stock_c)
    assert len(used) == sum(map(len, hands_c)) + len(floor_c) + len(stock_c), "card twice"
    rest = tuple(c for c in DECK if c not in used)
    state = new_match(rules, SEED)
    piles = changes.pop("piles", None)
    if piles is None:
        piles = ((), rest)
    else:
        piles = tuple(parse_cards(p) for p in piles)
        missing = tuple(c for c in rest if all(c not in p for p in piles))
        piles = (piles[0] + missing, *piles[1:])
    return state._replace(
        hands=hands_c, floor=floor_c, stock=stock_c, turn=turn, piles=piles, **changes
    )


def conformance_cases() -> list[Mapping[str, Any]]:
    """The shared rule cases (from ../shared when present, else the copy in tests/)."""
    path = SHARED_CASES if SHARED_CASES.is_file() else LOCAL_CASES
    return list(yaml.safe_load(path.read_text()))


def conformance_setup(case: Mapping[str, Any]) -> tuple[Rules, list[Card]]:
    """Rules and a round-1 deck that put exactly the case's floor down, seat 0 holding the play.

    Seat 0 leads round 1 and is dealt first, then seat 1, then the floor; the
    case overrides floor_size and turns off the starting-floor replacement.
    """
    floor = list(case["floor"])
    rules = rules_of(
        case["variant"],
        **{
            **(case.get("rules") or {}),
            "floor_size": len(floor),
            "initial_floor": {"return_to_deck": []},
        },
    )
    play = parse_cards([case["play"]])[0]
    fixed = set(parse_cards(floor)) | {play}
    filler = [c for c in DECK if c not in fixed]
    hand_size = rules.hand_size
    seat0 = [play, *filler[: hand_size - 1]]
    others = filler[hand_size - 1 : hand_size - 1 + hand_size * (rules.players - 1)]
    deck = [*seat0, *others, *parse_cards(floor)]
    deck += [c for c in DECK if c not in deck]
    return rules, deck


SHORT = {"target_score": 30}
"""A four-player match to 30 points: a round or two, so a test plays it out quickly."""


def seeded_decks(seed: int = 0, rounds: int = 4) -> list[list[str]]:
    """Decks shuffled by ``seed``, one per round. Seed 0 under :data:`SHORT`, each seat
    taking its first legal move: one round, a basra by seat 1 and a jack basra by its
    partner, seat 3."""
    rng = random.Random(seed)
    decks = []
    for _ in range(rounds):
        deck = [str(card) for card in DECK]
        rng.shuffle(deck)
        decks.append(deck)
    return decks
