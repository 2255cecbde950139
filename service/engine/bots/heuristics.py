"""Computer opponents: the policy's contract, and the heuristics every level shares.

Every policy is ``policy(view, rng, pause) -> Move``: it sees only a :class:`SeatView`,
never hidden cards, and ``rng`` is a seeded :class:`random.Random`, so a match with bots
still replays exactly. A policy that searches calls ``pause()`` between steps, so a
caller serving others meanwhile (a gevent worker) can let them run; ``pause()`` answers
whether the search must stop now (a caller's CPU budget is spent): the policy then plays
the best move it has found so far. A pause that never says stop changes nothing, and
``pause`` may be left out. (The moves a match's bots played are kept in its move log, so
a budget cut that depends on the machine's speed never changes how a stored match
replays.)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from math import comb
from typing import Protocol

from ..captures import Outcome, capturer_for
from ..cards import RANKS, SEVEN_OF_DIAMONDS, Card
from ..game import Move
from ..rules import Rules, derived, points_by_card
from ..view import SeatView

_JACK_RANK = RANKS.index("J")

Pause = Callable[[], bool]
"""Called by a searching policy between steps; True: stop searching now (see the
module's docstring)."""


def no_pause() -> bool:
    """The pause of a caller that has nothing else to run and no budget."""
    return False


class Policy(Protocol):
    """``policy(view, rng, pause) -> Move``."""

    def __call__(self, view: SeatView, rng: random.Random, pause: Pause = ..., /) -> Move: ...


def random_policy(view: SeatView, rng: random.Random, pause: Pause = no_pause, /) -> Move:
    """A uniformly random legal move."""
    moves = view.legal_moves
    return moves[rng.randrange(len(moves))]


def cards_value(rules: Rules, cards: Sequence[Card]) -> float:
    """What taking ``cards`` is worth: each about its share of the most-cards bonus, plus
    its card points."""
    value = len(cards) * rules.scoring.most_cards / 26.0
    if rules.scoring.cards:
        worth = derived(rules, points_by_card)
        value += sum(worth[c] for c in cards)
    return value


def is_sweeper(card: Card) -> bool:
    """A jack or the 7D: worth keeping for a capture rather than throwing away."""
    return card >> 2 == _JACK_RANK or card == SEVEN_OF_DIAMONDS


def move_gain(view: SeatView, move: Move) -> float:
    """Points a move earns at once: cards taken, card points and basra bonus."""
    rules = view.rules
    capture = move.capture or ()
    if not capture:
        return 0.0
    outcome = next(
        o for o in capturer_for(rules).outcomes(move.card, view.floor) if o.capture == capture
    )
    return taken_points(rules, move.card, outcome)


def taken_points(rules: Rules, card: Card, outcome: Outcome) -> float:
    """What ``card`` taking ``outcome``'s capture earns: the cards (:func:`cards_value`)
    and the basra bonus."""
    gain = cards_value(rules, (*outcome.capture, card))
    if outcome.basra == "basra":
        gain += rules.scoring.basra
    elif outcome.basra == "jack_basra":
        gain += rules.scoring.jack_basra
    return gain


def chance_of_any(unseen: int, wanted: int, hand: int) -> float:
    """The chance that a hand of ``hand`` cards dealt from ``unseen`` holds at least one
    of ``wanted`` of them."""
    return 1.0 - comb(unseen - wanted, hand) / comb(unseen, hand) if unseen >= hand else 1.0


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
    return chance_of_any(n, threats, min(hand, n)) * points


def floor_after(view: SeatView, move: Move) -> tuple[Card, ...]:
    """The floor once ``move`` is played on the view's floor."""
    if move.capture:
        gone = set(move.capture)
        return tuple(c for c in view.floor if c not in gone)
    return (*view.floor, move.card)


def greedy_score(view: SeatView, move: Move, unseen: frozenset[Card]) -> float:
    """Points now, less the basra the move may hand the next seat; a jack or the 7D is
    worth keeping rather than throwing away on a floor it cannot take from."""
    score = move_gain(view, move) - basra_risk(view, floor_after(view, move), unseen)
    if not move.capture and is_sweeper(move.card):
        score -= 0.5
    return score


def greedy_policy(view: SeatView, rng: random.Random, pause: Pause = no_pause, /) -> Move:
    """The move that scores best now, less the basra it may hand the next seat (see
    :func:`greedy_score`); ties are broken at random."""
    unseen = view.unseen()
    best: list[Move] = []
    best_score = float("-inf")
    for move in view.legal_moves:
        score = greedy_score(view, move, unseen)
        if score > best_score + 1e-9:
            best, best_score = [move], score
        elif abs(score - best_score) <= 1e-9:
            best.append(move)
    return best[rng.randrange(len(best))]


def make_mixed(share: float, strong: Policy, weak: Policy) -> Policy:
    """A policy that plays ``strong``'s move on a share of its turns (drawn from ``rng``),
    ``weak``'s on the rest: the ladder's levels between random and greedy."""

    def mixed_policy(view: SeatView, rng: random.Random, pause: Pause = no_pause, /) -> Move:
        chosen = strong if rng.random() < share else weak
        return chosen(view, rng, pause)

    return mixed_policy
