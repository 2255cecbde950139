"""A review of every play of a finished match: each play scored against the expert's
choice from the same information (the seat's view then), as Lichess analyses a finished
game. Pure: the match's rules, seed, decks and moves in, the reviews out; randomness from
the seed (so a review is the same every time it is made, on any machine that gives it
the same CPU)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum

from ..cards import Card, format_cards
from ..game import Move, State, apply_move, check_move, legal_moves, new_match
from ..view import observe
from .heuristics import Pause, basra_risk, floor_after, is_sweeper, no_pause
from .playouts import make_evaluator


class Grade(StrEnum):
    """How a play compares with the expert's choice (by the points it was expected to
    lose)."""

    FORCED = "forced"
    """The only legal move."""
    BEST = "best"
    GOOD = "good"
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"


GRADES: tuple[tuple[float, Grade], ...] = (
    (0.05, Grade.BEST), (1.0, Grade.GOOD), (3.0, Grade.INACCURACY), (6.0, Grade.MISTAKE))
"""Expected points lost below each bound, and the grade; at 6 or more a blunder (a basra
is worth 10)."""


class Reason(StrEnum):
    """Why a play lost points, for a front end to say in its own words."""

    MISSED_BASRA = "missed_basra"
    """Another card made a basra (or a jack's basra) and this one did not."""
    MISSED_CAPTURE = "missed_capture"
    """The card took nothing while another card could take."""
    SMALLER_CAPTURE = "smaller_capture"
    """It took fewer cards than the expert's choice."""
    LEFT_BASRA = "left_basra"
    """The floor it left gave the next seat a better chance of a basra."""
    THREW_SWEEPER = "threw_sweeper"
    """It trailed a jack or the 7D, which sweep the floor later."""


@dataclass(frozen=True, slots=True)
class PlayReview:
    """One play judged: what was played, what the expert would have played, the points
    the play was expected to lose against that choice (0 for the best), a grade and the
    reasons."""

    index: int
    """The play's place among the match's plays, from 0."""
    seat: int
    round: int
    played: Move
    best: Move
    points_lost: float
    grade: Grade
    reasons: tuple[Reason, ...]


REVIEW_WORLDS = 100
"""Worlds sampled per play: the expert's own."""

_evaluate = make_evaluator(REVIEW_WORLDS)


def _key(move: Move) -> tuple[Card, frozenset[Card]]:
    return move.card, frozenset(move.capture or ())


def review_rng(state: State) -> random.Random:
    """The review's randomness at this ply: from the match seed, apart from the bots'."""
    digest = hashlib.sha256(state.seed + b"/review/" + state.ply.to_bytes(4, "big")).digest()
    return random.Random(digest)


def review_play(state: State, move: Move, index: int,
                pause: Pause = no_pause) -> PlayReview:
    """The review of ``move`` (legal, by the seat to play) in ``state``."""
    seat = move.seat
    _, outcome = check_move(state, move)
    played = Move(seat, move.card, outcome.capture)
    moves = legal_moves(state)
    if len(moves) == 1:
        return PlayReview(index, seat, state.round, played, played, 0.0, Grade.FORCED, ())
    view = observe(state, seat)
    totals, worlds = _evaluate(view, review_rng(state), pause, must=played)
    best_move, best_total = max(totals, key=lambda mv: mv[1])
    mine = next((v for m, v in totals if _key(m) == _key(played)), best_total)
    lost = 0.0 if _key(best_move) == _key(played) \
        else round(max(0.0, best_total - mine) / max(1, worlds), 2)
    grade = next((g for bound, g in GRADES if lost < bound), Grade.BLUNDER)
    reasons: list[Reason] = []
    if lost >= GRADES[0][0]:
        outcomes = {_key(m): check_move(state, m)[1] for m in moves}
        chosen = outcomes[_key(best_move)]
        if outcome.basra is None and any(o.basra for o in outcomes.values()):
            reasons.append(Reason.MISSED_BASRA)
        if not outcome.capture and any(o.capture for o in outcomes.values()):
            reasons.append(Reason.MISSED_CAPTURE)
        elif outcome.capture and len(outcome.capture) < len(chosen.capture):
            reasons.append(Reason.SMALLER_CAPTURE)
        unseen = view.unseen()
        if basra_risk(view, floor_after(view, played), unseen) \
                > basra_risk(view, floor_after(view, best_move), unseen) + 0.5:
            reasons.append(Reason.LEFT_BASRA)
        if not outcome.capture and is_sweeper(move.card) and not is_sweeper(best_move.card):
            reasons.append(Reason.THREW_SWEEPER)
    return PlayReview(index, seat, state.round, played, best_move, lost, grade,
                      tuple(reasons))


def review_match(start: State, moves: Sequence[Move], seats: Collection[int] | None = None,
                 pauses: Callable[[], Pause] = lambda: no_pause) -> tuple[PlayReview, ...]:
    """Every play of ``seats`` (all: None) in a match from ``start`` through ``moves``,
    each searched with a pause of its own from ``pauses`` (the expert's CPU budget a
    play)."""
    reviews: list[PlayReview] = []
    state = start
    for index, move in enumerate(moves):
        if seats is None or move.seat in seats:
            reviews.append(review_play(state, move, index, pauses()))
        state = apply_move(state, move)
    return tuple(reviews)


def match_start(state: State) -> State:
    """The match as dealt, from any of its states (its rules, seed and decks)."""
    return new_match(state.rules, state.seed, state.decks)


def review_to_dict(review: PlayReview) -> dict[str, object]:
    """A play's review as JSON values (kept, and sent by a helper process)."""
    return {
        "index": review.index, "seat": review.seat, "round": review.round,
        "card": str(review.played.card), "capture": format_cards(review.played.capture or ()),
        "best": {"card": str(review.best.card),
                 "capture": format_cards(review.best.capture or ())},
        "points_lost": review.points_lost, "grade": review.grade.value,
        "reasons": [r.value for r in review.reasons],
    }
