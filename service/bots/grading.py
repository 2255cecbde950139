"""A match's plays graded for fair play: for each play, whether it was forced, whether it
was the expert's choice, the points it lost against that choice and what the worst option
would have lost (so a play whose options all lose the same is told apart from one where
the choice mattered). The expert's own evaluator from the engine, as a review uses it
(the review's worlds and randomness: the worker's numbers are the review's), or cheaper
(fewer worlds: the simulator's)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..engine.bots import Pause, no_pause
from ..engine.bots.heuristics import greedy_score
from ..engine.bots.playouts import Evaluator, make_evaluator
from ..engine.bots.review import REVIEW_WORLDS, review_rng
from ..engine.cards import Card
from ..engine.game import Move, State, apply_move, check_move, legal_moves
from ..engine.view import observe

AGREES = 0.05
"""Points lost below which a play is the expert's choice (the review's grade ``best``:
an option the expert values the same is as good as its own)."""


@dataclass(frozen=True, slots=True)
class PlayGrade:
    """One play as fair play sees it."""

    index: int
    """The play's place among the match's moves."""
    seat: int
    forced: bool
    """One legal move (or one outcome): nothing to choose."""
    lost: float
    """Points the play was expected to lose against the expert's choice."""
    spread: float
    """Points the worst option the expert weighed loses against its choice: near 0, the
    options all lose the same and the play says nothing of the player."""
    obvious: bool = True
    """The expert's choice is also the greedy heuristic's (the most points now, less
    the basra it may hand on): a choice any player who counts would make. Agreeing on the
    others, the deep plays, is what sets a strong engine apart."""

    @property
    def agreed(self) -> bool:
        return self.lost < AGREES


def _key(move: Move) -> tuple[Card, frozenset[Card]]:
    return move.card, frozenset(move.capture or ())


def review_evaluator() -> Evaluator:
    """The worker's: the review's evaluator (its worlds, inferred from the others' plays)."""
    return make_evaluator(REVIEW_WORLDS)


def cheap_evaluator(worlds: int) -> Evaluator:
    """A cheaper review: the review's own evaluator on ``worlds`` worlds instead of its
    100 (the simulator's)."""
    return make_evaluator(worlds)


def grade_play(state: State, move: Move, index: int, evaluate: Evaluator,
               pause: Pause = no_pause) -> PlayGrade:
    """``move`` (legal, by the seat to play) in ``state`` graded; the review's randomness
    at this ply, so the worker's grade agrees with the match's review."""
    _, outcome = check_move(state, move)
    played = Move(move.seat, move.card, outcome.capture)
    if len(legal_moves(state)) == 1:
        return PlayGrade(index, move.seat, True, 0.0, 0.0)
    rng: random.Random = review_rng(state)
    view = observe(state, move.seat)
    totals, worlds = evaluate(view, rng, pause, must=played)
    values = [v for _, v in totals]
    best_move, best = max(totals, key=lambda mv: mv[1])
    mine = next((v for m, v in totals if _key(m) == _key(played)), best)
    lost = 0.0 if _key(best_move) == _key(played) else max(0.0, best - mine) / max(1, worlds)
    spread = (best - min(values)) / max(1, worlds)
    unseen = view.unseen()
    greedy = {_key(m): greedy_score(view, m, unseen) for m in view.legal_moves}
    obvious = greedy[_key(best_move)] >= max(greedy.values()) - 1e-9
    return PlayGrade(index, move.seat, False, round(lost, 3), round(spread, 3), obvious)


def grade_match(start: State, moves: Sequence[Move], evaluate: Evaluator,
                graded: Callable[[int, State], bool] = lambda i, s: True,
                pauses: Callable[[], Pause] = lambda: no_pause) -> list[PlayGrade]:
    """The plays of a match from ``start`` through ``moves`` that ``graded`` picks
    (index, state before it: all by default), each searched with a pause of its own."""
    grades: list[PlayGrade] = []
    state = start
    for index, move in enumerate(moves):
        if graded(index, state):
            grades.append(grade_play(state, move, index, evaluate, pauses()))
        state = apply_move(state, move)
    return grades
