"""Computer opponents. A policy sees only a :class:`SeatView`, never hidden cards.

Every policy is ``policy(view, rng, pause) -> Move`` with ``rng`` a seeded
:class:`random.Random`, so a match with bots still replays exactly. A policy that
searches calls ``pause()`` between steps (before each sampled world), so a caller
serving others meanwhile (a gevent worker) can let them run; pausing never changes
the move, and ``pause`` may be left out.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping, Sequence
from math import comb
from typing import Protocol

from .board import Board
from .captures import Outcome, capturer_for
from .cards import RANKS, SEVEN_OF_DIAMONDS, Card
from .game import Move, Play, State, apply_move, check_move
from .rules import Rules, derived, points_by_card, team_of
from .view import SeatView, observe

_JACK_RANK = RANKS.index("J")

Pause = Callable[[], None]
"""Called by a searching policy between steps; see the module's docstring."""


def no_pause() -> None:
    """The pause of a caller that has nothing else to run."""


class Policy(Protocol):
    """``policy(view, rng, pause) -> Move``."""

    def __call__(self, view: SeatView, rng: random.Random, pause: Pause = ..., /) -> Move: ...


def random_policy(view: SeatView, rng: random.Random, pause: Pause = no_pause, /) -> Move:
    """A uniformly random legal move."""
    moves = view.legal_moves
    return moves[rng.randrange(len(moves))]


def _cards_value(rules: Rules, cards: Sequence[Card]) -> float:
    """What taking ``cards`` is worth: each about its share of the most-cards bonus, plus
    its card points."""
    value = len(cards) * rules.scoring.most_cards / 26.0
    if rules.scoring.cards:
        worth = derived(rules, points_by_card)
        value += sum(worth[c] for c in cards)
    return value


def _is_sweeper(card: Card) -> bool:
    """A jack or the 7D: worth keeping for a capture rather than throwing away."""
    return card >> 2 == _JACK_RANK or card == SEVEN_OF_DIAMONDS


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
    gain = _cards_value(rules, taken)
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


def _greedy_score(view: SeatView, move: Move, unseen: frozenset[Card]) -> float:
    """Points now, less the basra the move may hand the next seat; a jack or the 7D is
    worth keeping rather than throwing away on a floor it cannot take from."""
    score = _move_gain(view, move) - basra_risk(view, _floor_after(view, move), unseen)
    if not move.capture and _is_sweeper(move.card):
        score -= 0.5
    return score


def greedy_policy(view: SeatView, rng: random.Random, pause: Pause = no_pause, /) -> Move:
    """The move that scores best now, less the basra it may hand the next seat (see
    :func:`_greedy_score`); ties are broken at random."""
    unseen = view.unseen()
    best: list[Move] = []
    best_score = float("-inf")
    for move in view.legal_moves:
        score = _greedy_score(view, move, unseen)
        if score > best_score + 1e-9:
            best, best_score = [move], score
        elif abs(score - best_score) <= 1e-9:
            best.append(move)
    return best[rng.randrange(len(best))]


# --- expert: determinized Monte Carlo search ---------------------------------------


def _rollout_choice(board: Board, rng: random.Random) -> tuple[int, Outcome]:
    """The policy inside a sampled world (where every hand is known): take the most cards
    (a basra counts extra); when nothing can be taken, trail a card that leaves the next
    seat no basra, keeping jacks and the 7D; break ties at random."""
    outcomes = board.capturer.outcomes
    floor = tuple(board.floor)
    seat = board.turn
    assert seat is not None
    nxt = board.hands[(seat + 1) % board.rules.players]
    best: list[tuple[int, Outcome]] = []
    best_score = -100.0
    for at, card in enumerate(board.hands[seat]):
        for o in outcomes(card, floor):
            if o.capture:
                score = len(o.capture) + (8.0 if o.basra else 0.0)
            else:
                score = -0.5 if _is_sweeper(card) else 0.0
                left = (*floor, card)
                if any(outcomes(c, left)[0].basra for c in nxt):
                    score -= 8.0
            if score > best_score:
                best, best_score = [(at, o)], score
            elif score == best_score:
                best.append((at, o))
    return best[rng.randrange(len(best))]


def determinize(view: SeatView, rng: random.Random) -> State:
    """A full state consistent with everything the seat has seen: the unseen cards dealt
    at random to the other hands and the stock. Uses nothing the seat cannot see."""
    assert view.seat is not None
    unseen = sorted(view.unseen())
    rng.shuffle(unseen)
    hands: list[tuple[Card, ...]] = []
    at = 0
    for seat, count in enumerate(view.hand_counts):
        if seat == view.seat:
            hands.append(view.hand)
        else:
            hands.append(tuple(unseen[at : at + count]))
            at += count
    stock = tuple(unseen[at : at + view.stock_count])
    return State(
        rules=view.rules, seed=b"determinized", decks=(), round=view.round, dealer=view.dealer,
        turn=view.turn, hands=tuple(hands), floor=view.floor, stock=stock, piles=view.piles,
        basras=view.basras, jack_basras=view.jack_basras, last_capturer=view.last_capturer,
        scores=view.scores, carry=view.carry, results=view.results, ply=view.ply,
        last_play=view.last_play, finished=view.finished, winner=view.winner, draw=view.draw,
    )


def _margin(before: SeatView, after: Board, team: int) -> float:
    """Points the team gained over the other since ``before``: exact when the round ended,
    else cards (each worth a share of the most-cards bonus), basras and card points."""
    if after.round != before.round or after.finished:
        points = after.results[len(before.results)].points
        return float(points[team] * 2 - sum(points))
    rules = after.rules
    s = rules.scoring
    value = 0.0
    for t in range(rules.teams):
        v = _cards_value(rules, after.piles[t][len(before.piles[t]):])
        v += (after.basras[t] - before.basras[t]) * s.basra
        v += (after.jack_basras[t] - before.jack_basras[t]) * s.jack_basra
        value += v if t == team else -v
    return value


def _playout(board: Board, rng: random.Random) -> None:
    """Play on in a sampled world until the current deal (or the round) is over."""
    start_round, stock = board.round, len(board.stock)
    while (not board.finished and board.round == start_round and len(board.stock) == stock
           and any(board.hands)):
        at, outcome = _rollout_choice(board, rng)
        board.play(at, outcome)


EXPERT_CANDIDATES = 12
"""The most moves the expert plays out: on a floor with many captures (``choose``
mode) it first keeps the moves :func:`_greedy_score` ranks best, so its work stays
bounded by ``worlds x EXPERT_CANDIDATES`` playouts."""


EXPERT_WORLDS = 100
"""Worlds the expert samples: 40 until play moved onto the board made playouts about
1.5x cheaper; 100 keeps p95 well under 100 ms (``make bench``)."""


def make_expert(worlds: int = EXPERT_WORLDS) -> Policy:
    """An expert policy: perfect-information Monte Carlo over sampled worlds.

    Each of ``worlds`` samples deals the unseen cards at random to the other hands and
    the stock (:func:`determinize`); every legal move is played in every world and the
    deal is played out with :func:`_rollout_move` using the same random numbers for each
    move (common random numbers, so moves are compared on equal terms). The move with the
    best total margin wins. Deterministic for a given ``rng``, so bot moves replay.
    """

    def expert_policy(view: SeatView, rng: random.Random, pause: Pause = no_pause, /) -> Move:
        moves = view.legal_moves
        if len(moves) == 1:
            return moves[0]
        if len(moves) > EXPERT_CANDIDATES:
            unseen = view.unseen()
            scores = []
            for m in moves:
                pause()
                scores.append(_greedy_score(view, m, unseen))
            ranked = sorted(range(len(moves)), key=lambda i: -scores[i])
            moves = tuple(moves[i] for i in ranked[:EXPERT_CANDIDATES])
        assert view.seat is not None
        team = team_of(view.seat)
        totals = [0.0] * len(moves)
        for w in range(worlds):
            pause()
            world = determinize(view, rng)
            if w == 0:  # a move's card and capture are the same in every world
                checked = [check_move(world, move) for move in moves]
            start = Board(world)
            luck = rng.getrandbits(64)
            for k, (at, outcome) in enumerate(checked):
                after = start.copy()
                after.play(at, outcome)
                _playout(after, random.Random(luck))
                totals[k] += _margin(view, after, team)
        best = max(range(len(moves)), key=lambda j: totals[j])
        return moves[best]

    return expert_policy


POLICIES: dict[str, Policy] = {
    "random": random_policy,
    "greedy": greedy_policy,
    "expert": make_expert(),
}
"""The bot levels a seat or a hint may name."""


def policy_named(name: str) -> Policy:
    """The policy of that level; raises ``KeyError`` naming the known ones."""
    try:
        return POLICIES[name]
    except KeyError:
        raise KeyError(f"unknown bot {name!r} (known: {', '.join(POLICIES)})") from None


# --- bot seats in a match -------------------------------------------------------


def bot_rng(state: State) -> random.Random:
    """The bot's randomness at this ply: derived from the match seed, so matches replay."""
    digest = hashlib.sha256(state.seed + b"/bot/" + state.ply.to_bytes(4, "big")).digest()
    return random.Random(digest)


def bot_move(state: State, seat: int, level: str, pause: Pause = no_pause) -> Move:
    """The move bot ``level`` plays for ``seat``; it sees only that seat's view."""
    return policy_named(level)(observe(state, seat), bot_rng(state), pause)


def run_bots(state: State, bots: Mapping[int, str],
             pause: Pause = no_pause) -> tuple[State, list[Play]]:
    """Let bot seats (seat -> level) play while it is their turn; returns the new state
    and their plays."""
    plays: list[Play] = []
    while not state.finished and state.turn is not None and state.turn in bots:
        state = apply_move(state, bot_move(state, state.turn, bots[state.turn], pause))
        assert state.last_play is not None
        plays.append(state.last_play)
    return state, plays
