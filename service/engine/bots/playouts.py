"""The expert: perfect-information Monte Carlo, every legal move played out in each
sampled world by a rollout policy to the end of the deal."""

from __future__ import annotations

import random
from collections.abc import Callable

from ..board import Board
from ..captures import Outcome
from ..game import Move, check_move
from ..rules import team_of
from ..view import SeatView
from .heuristics import Pause, Policy, cards_value, greedy_score, is_sweeper, no_pause
from .worlds import Sampler, inferred_worlds


def rollout_choice(board: Board, rng: random.Random) -> tuple[int, Outcome]:
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
                score = -0.5 if is_sweeper(card) else 0.0
                left = (*floor, card)
                if any(outcomes(c, left)[0].basra for c in nxt):
                    score -= 8.0
            if score > best_score:
                best, best_score = [(at, o)], score
            elif score == best_score:
                best.append((at, o))
    return best[rng.randrange(len(best))]


def margin(before: SeatView, after: Board, team: int) -> float:
    """Points the team gained over the other since ``before``: exact when the round ended,
    else cards (each worth a share of the most-cards bonus), basras and card points."""
    if after.round != before.round or after.finished:
        points = after.results[len(before.results)].points
        return float(points[team] * 2 - sum(points))
    rules = after.rules
    s = rules.scoring
    value = 0.0
    for t in range(rules.teams):
        v = cards_value(rules, after.piles[t][len(before.piles[t]):])
        v += (after.basras[t] - before.basras[t]) * s.basra
        v += (after.jack_basras[t] - before.jack_basras[t]) * s.jack_basra
        value += v if t == team else -v
    return value


def playout(board: Board, rng: random.Random) -> None:
    """Play on in a sampled world until the current deal (or the round) is over."""
    start_round, stock = board.round, len(board.stock)
    while (not board.finished and board.round == start_round and len(board.stock) == stock
           and any(board.hands)):
        at, outcome = rollout_choice(board, rng)
        board.play(at, outcome)


EXPERT_CANDIDATES = 12
"""The most moves the expert plays out: on a floor with many captures (``choose``
mode) it first keeps the moves :func:`greedy_score` ranks best, so its work stays
bounded by ``worlds x EXPERT_CANDIDATES`` playouts."""


EXPERT_WORLDS = 100
"""Worlds the expert samples: as many as keep its moves within their time (what a move
costs: docs/computer.md)."""


Evaluation = tuple[tuple[tuple[Move, float], ...], int]
"""Each move played out with its total margin over the worlds, and how many worlds."""
Evaluator = Callable[..., Evaluation]
"""``evaluate(view, rng, pause, must=None)``: see :func:`make_evaluator`."""


def make_evaluator(worlds: int = EXPERT_WORLDS, sample: Sampler = inferred_worlds) -> Evaluator:
    """What the expert thinks of each move: perfect-information Monte Carlo over sampled
    worlds.

    Each of ``worlds`` worlds from ``sample`` deals the unseen cards to the other hands
    and the stock: in proportion to how likely they make the others' plays this deal
    (:func:`inferred_worlds`), or uniformly at random (:func:`chance_worlds`, the expert
    of 2026); every legal move is played in every world and the deal is played out with
    :func:`rollout_choice` using the same random numbers for each move (common random
    numbers, so moves are compared on equal terms). Each move's total margin
    (:func:`margin`) over the worlds played before ``pause`` said stop, and how many
    there were (the mean is the total over them; totals are compared as they are, so
    the expert chooses as it always has). On a floor with
    many captures only the :data:`EXPERT_CANDIDATES` moves greedy ranks best are played
    out, and ``must`` (a review's played move) besides. Deterministic for a given
    ``rng``.
    """

    def evaluate(view: SeatView, rng: random.Random, pause: Pause = no_pause,
                 must: Move | None = None) -> Evaluation:
        moves = view.legal_moves
        if len(moves) > EXPERT_CANDIDATES:
            unseen = view.unseen()
            scores: list[float] = []
            for m in moves:
                if scores and pause():  # the moves scored so far are the candidates
                    break
                scores.append(greedy_score(view, m, unseen))
            ranked = sorted(range(len(scores)), key=lambda i: -scores[i])
            moves = tuple(moves[i] for i in ranked[:EXPERT_CANDIDATES])
            if must is not None and must not in moves:
                moves = (*moves, must)
        assert view.seat is not None
        team = team_of(view.seat)
        totals = [0.0] * len(moves)
        sampled = iter(sample(view, rng, worlds, pause))
        played = 0
        for w in range(worlds):
            if pause() and w:
                break
            world = next(sampled)
            if w == 0:  # a move's card and capture are the same in every world
                checked = [check_move(world, move) for move in moves]
            start = Board(world)
            luck = rng.getrandbits(64)
            for k, (at, outcome) in enumerate(checked):
                after = start.copy()
                after.play(at, outcome)
                playout(after, random.Random(luck))
                totals[k] += margin(view, after, team)
            played += 1
        return tuple(zip(moves, totals, strict=True)), played

    return evaluate


def make_expert(worlds: int = EXPERT_WORLDS, sample: Sampler = inferred_worlds) -> Policy:
    """An expert policy: the move :func:`make_evaluator`'s playouts value best (the
    first of equals), or the only legal move. Deterministic for a given ``rng``, so bot
    moves replay."""
    evaluate = make_evaluator(worlds, sample)

    def expert_policy(view: SeatView, rng: random.Random, pause: Pause = no_pause, /) -> Move:
        moves = view.legal_moves
        if len(moves) == 1:
            return moves[0]
        values, _ = evaluate(view, rng, pause)
        best = max(range(len(values)), key=lambda j: values[j][1])
        return values[best][0]

    return expert_policy
