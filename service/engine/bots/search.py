"""Deal search: alpha-beta over each sampled world to the end of the deal, and the last
deal of two players solved exactly (``expert-search``)."""

from __future__ import annotations

import random
from math import comb

from ..board import Board
from ..captures import Outcome
from ..cards import Card
from ..game import Move, check_move
from ..rules import derived, points_by_card, team_of
from ..view import SeatView
from .heuristics import Pause, Policy, greedy_policy, greedy_score, no_pause
from .playouts import make_expert, margin
from .worlds import chance_worlds, determinize_inferring


class _Stop(Exception):
    """The caller's budget is spent: the search unwinds and the best so far is played."""


class _DealSearch:
    """Alpha-beta over a board whose hands are all known (a sampled world, or the last
    deal of two players, where the other hand is exactly the unseen cards), to the end
    of the deal, or of the round in the last deal (then the value is the round's exact
    points). Values are the margin of ``team`` over the other since ``before``."""

    CHECK_EVERY = 64
    """Nodes between two calls of ``pause``."""

    def __init__(self, before: SeatView, team: int, pause: Pause) -> None:
        self.before = before
        self.team = team
        self.pause = pause
        self.nodes = 0

    def value(self, board: Board, stock: int, alpha: float, beta: float) -> float:
        """The margin with best play by both sides from ``board``; ``stock``: the stock's
        size while this deal lasts."""
        before = self.before
        if board.finished or board.round != before.round:
            return margin(before, board, self.team)
        if len(board.stock) != stock:  # the next deal is dealt: its leader may sweep
            return _deal_end_value(before, board, self.team) + _sweep_threat(board, self.team)
        self.nodes += 1
        if self.nodes % self.CHECK_EVERY == 0 and self.pause():
            raise _Stop
        seat = board.turn
        assert seat is not None
        mine = team_of(seat) == self.team
        best = float("-inf") if mine else float("inf")
        for at, outcome in _ordered_children(board):
            after = board.copy()
            after.play(at, outcome)
            v = self.value(after, stock, alpha, beta)
            if mine:
                if v > best:
                    best = v
                if best > alpha:
                    alpha = best
            else:
                if v < best:
                    best = v
                if best < beta:
                    beta = best
            if alpha >= beta:
                break
        return best


DECK_SIZE = 52


def _deal_end_value(before: SeatView, board: Board, team: int) -> float:
    """What a deal's end is worth to ``team`` over the other, with the round to go on:
    the basras and card points made since ``before``, and the most-cards bonus as
    expected from the piles so far (each card still to be taken as likely to go to
    either side), not a flat value a card: past half the deck more cards are worth
    nothing, near the line each one counts."""
    rules = board.rules
    s = rules.scoring
    value = 0.0
    mine = 0
    theirs = 0
    for t in range(rules.teams):
        sign = 1.0 if t == team else -1.0
        value += sign * (board.basras[t] - before.basras[t]) * s.basra
        value += sign * (board.jack_basras[t] - before.jack_basras[t]) * s.jack_basra
        if s.cards:
            worth = derived(rules, points_by_card)
            value += sign * sum(worth[c] for c in board.piles[t][len(before.piles[t]):])
        if t == team:
            mine += len(board.piles[t])
        else:
            theirs += len(board.piles[t])
    return value + s.most_cards * _lead_chance(mine, theirs, DECK_SIZE - mine - theirs)


_LEADS: dict[tuple[int, int, int], float] = {}


def _lead_chance(mine: int, theirs: int, left: int) -> float:
    """P(more cards at the end) - P(fewer), each of ``left`` cards going either way."""
    key = (mine, theirs, left)
    cached = _LEADS.get(key)
    if cached is not None:
        return cached
    win = lose = 0
    for x in range(left + 1):
        ways = comb(left, x)
        a, b = mine + x, theirs + left - x
        if a > b:
            win += ways
        elif a < b:
            lose += ways
    chance = (win - lose) / float(1 << left)
    _LEADS[key] = chance
    return chance


def _sweep_threat(board: Board, team: int) -> float:
    """What the floor left at a deal's end is worth to ``team``: the basra the next
    deal's leader makes with its first card if its new hand (known in a sampled world)
    can sweep it; positive if the leader is on ``team``."""
    seat = board.turn
    if seat is None or not board.floor:
        return 0.0
    floor = tuple(board.floor)
    outcomes = board.capturer.outcomes
    scoring = board.rules.scoring
    best = 0.0
    for card in board.hands[seat]:
        kind = outcomes(card, floor)[0].basra
        if kind is not None:
            best = max(best, float(scoring.basra if kind == "basra" else scoring.jack_basra))
    return best if team_of(seat) == team else -best


def _ordered_children(board: Board) -> list[tuple[int, Outcome]]:
    """Every (hand index, outcome) of the seat to play, the largest captures first (so
    alpha-beta finds good lines early); cards of one rank with the same outcomes are
    tried once."""
    seat = board.turn
    assert seat is not None
    floor = tuple(board.floor)
    outcomes = board.capturer.outcomes
    seen: set[Card] = set()
    children: list[tuple[int, Outcome]] = []
    for at, card in enumerate(board.hands[seat]):
        if card in seen:
            continue
        seen.add(card)
        for o in outcomes(card, floor):
            children.append((at, o))
    children.sort(key=lambda c: -len(c[1].capture) - (8 if c[1].basra else 0))
    return children


SEARCH_WORLDS = 24
"""Worlds the expert samples before the last deal (each searched to the deal's end)."""
SEARCH_CARDS = 8
"""The most cards left in the deal's hands for a sampled world to be searched to the
deal's end; with more (a four-player deal's first plays), each move is played out by
the rollout policy, as ``expert-2026`` does."""


def make_searcher(worlds: int = SEARCH_WORLDS, search_cards: int = SEARCH_CARDS) -> Policy:
    """The expert: the last deal of a two-player round solved exactly (every unseen card
    is in the other hand, so the rest of the round is a game of perfect information);
    otherwise perfect-information Monte Carlo where each sampled world (the unseen cards
    dealt at random, :func:`determinize`) is searched to the end of the deal by
    alpha-beta (:class:`_DealSearch`), or, while the deal has more than
    ``search_cards`` cards in hand, played out by the rollout policy. A move's total over
    the worlds decides, ties by :func:`greedy_score`. ``pause()`` saying stop ends the
    search after the worlds finished so far (at least one)."""
    playouts = make_expert(sample=chance_worlds)

    def expert_policy(view: SeatView, rng: random.Random, pause: Pause = no_pause, /) -> Move:
        moves = view.legal_moves
        if len(moves) == 1:
            return moves[0]
        assert view.seat is not None
        exact = view.stock_count == 0 and view.players == 2
        if not exact and sum(view.hand_counts) > search_cards:
            return playouts(view, rng, pause)
        team = team_of(view.seat)
        unseen = view.unseen()
        totals = [0.0] * len(moves)
        for w in range(1 if exact else worlds):
            world = determinize_inferring(view, rng)
            if w == 0:
                checked = [check_move(world, move) for move in moves]
            start = Board(world)
            search = _DealSearch(view, team, pause)
            values = []
            try:
                for at, outcome in checked:
                    after = start.copy()
                    after.play(at, outcome)
                    values.append(search.value(after, view.stock_count, float("-inf"),
                                               float("inf")))
            except _Stop:
                if w:
                    break  # the worlds searched so far decide
                return greedy_policy(view, rng)  # not one world searched in the budget
            for k, v in enumerate(values):
                totals[k] += v
            if pause() and w + 1 < worlds and not exact:
                break
        best = max(range(len(moves)),
                   key=lambda j: (round(totals[j], 9), greedy_score(view, moves[j], unseen)))
        return moves[best]

    return expert_policy
