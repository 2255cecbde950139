"""Computer opponents. A policy sees only a :class:`SeatView`, never hidden cards.

Every policy is ``policy(view, rng) -> Move`` with ``rng`` a seeded
:class:`random.Random`, so a match with bots still replays exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from math import comb

from .captures import capturer_for
from .cards import DECK, RANKS, Card
from .game import Move
from .view import SeatView

Policy = Callable[[SeatView, random.Random], Move]


def random_policy(view: SeatView, rng: random.Random) -> Move:
    """A uniformly random legal move."""
    moves = view.legal_moves
    return moves[rng.randrange(len(moves))]


# one card of each rank, standing in for "an opponent holding that rank"
_RANK_STAND_INS: tuple[Card, ...] = tuple(DECK[i * 4 + 3] for i in range(len(RANKS)))


def _move_gain(view: SeatView, move: Move) -> float:
    """Points a move earns at once: cards taken, card points and basra bonus."""
    rules = view.rules
    capture = move.capture or ()
    if not capture:
        return 0.0
    outcome = next(
        o for o in capturer_for(rules).outcomes(move.card, view.floor) if o.capture == capture
    )
    taken = (*capture, move.card)
    # a card taken is worth about what the most-cards bonus pays per card
    gain = len(taken) * rules.scoring.most_cards / 26.0
    gain += sum(rules.card_points(str(c), c.rank) for c in taken)
    if outcome.basra == "basra":
        gain += rules.scoring.basra
    elif outcome.basra == "jack_basra":
        gain += rules.scoring.jack_basra
    return gain


def basra_risk(view: SeatView, floor: tuple[Card, ...], unseen: frozenset[Card]) -> float:
    """Expected basra points the next seat scores on ``floor`` (chance it holds a card)."""
    if not floor or view.turn is None:
        return 0.0
    rules = view.rules
    capturer = capturer_for(rules)
    threats = 0
    points = 0.0
    for card in unseen:
        outcome = capturer.outcomes(card, floor)[0]
        if outcome.basra is not None and len(outcome.capture) == len(floor):
            threats += 1
            value = rules.scoring.basra if outcome.basra == "basra" else rules.scoring.jack_basra
            points = max(points, float(value))
    if not threats:
        return 0.0
    nxt = (view.turn + 1) % view.players
    hand = view.hand_counts[nxt] or min(rules.hand_size, len(unseen))
    n = len(unseen)
    hand = min(hand, n)
    p_none = comb(n - threats, hand) / comb(n, hand) if n >= hand else 0.0
    return (1.0 - p_none) * points


def _floor_after(view: SeatView, move: Move) -> tuple[Card, ...]:
    if move.capture:
        gone = set(move.capture)
        return tuple(c for c in view.floor if c not in gone)
    return (*view.floor, move.card)


def greedy_policy(view: SeatView, rng: random.Random) -> Move:
    """The move that scores best now, less the basra it may hand the next seat.

    Ties are broken by keeping jacks and the 7D (they are worth more later),
    then by shedding low-value cards, then at random.
    """
    unseen = view.unseen()
    best: list[Move] = []
    best_score = float("-inf")
    for move in view.legal_moves:
        score = _move_gain(view, move) - basra_risk(view, _floor_after(view, move), unseen)
        if not move.capture and (move.card.rank == "J" or str(move.card) == "7D"):
            score -= 0.5  # do not waste a sweeping card on nothing
        if score > best_score + 1e-9:
            best, best_score = [move], score
        elif abs(score - best_score) <= 1e-9:
            best.append(move)
    return best[rng.randrange(len(best))]


POLICIES: dict[str, Policy] = {
    "random": random_policy,
    "greedy": greedy_policy,
}


def policy_named(name: str) -> Policy:
    """The policy of that level; raises ``KeyError`` naming the known ones."""
    try:
        return POLICIES[name]
    except KeyError:
        raise KeyError(f"unknown bot {name!r} (known: {', '.join(POLICIES)})") from None
