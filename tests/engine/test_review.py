"""The review of every play: each judged against the expert's choice from the seat's view,
with grades and reasons that hold for the position."""

from __future__ import annotations

from service.engine import apply_move, legal_moves, load_variant, new_match
from service.engine.bots import Grade, Reason, bot_move, review_match
from service.engine.bots.review import review_play
from service.engine.game import check_move


def _match(seed: int, levels: tuple[str, str] = ("greedy", "random")) -> tuple[object, list]:
    start = new_match(load_variant("egyptian-v2").rules, seed=bytes([seed]) * 32)
    state, moves = start, []
    while not state.finished:
        assert state.turn is not None
        move = bot_move(state, state.turn, levels[state.turn])
        moves.append(move)
        state = apply_move(state, move)
    return start, moves


def test_every_play_is_judged_and_each_reason_holds_in_its_position() -> None:
    start, moves = _match(7)
    reviews = review_match(start, moves)  # type: ignore[arg-type]
    assert [r.index for r in reviews] == list(range(len(moves)))
    state = start
    seen = set()
    for review, move in zip(reviews, moves, strict=True):
        legal = legal_moves(state)  # type: ignore[arg-type]
        outcomes = [check_move(state, m)[1] for m in legal]  # type: ignore[arg-type]
        _, played = check_move(state, move)  # type: ignore[arg-type]
        assert review.seat == move.seat and review.played.card == move.card
        assert (review.grade == Grade.FORCED) == (len(legal) == 1)
        assert review.best.card in {m.card for m in legal}
        assert review.points_lost >= 0
        if review.grade == Grade.BEST:
            assert review.points_lost < 0.05
        if review.grade in (Grade.FORCED, Grade.BEST):
            assert review.reasons == ()
        if Reason.MISSED_BASRA in review.reasons:
            assert played.basra is None and any(o.basra for o in outcomes)
        if Reason.MISSED_CAPTURE in review.reasons:
            assert not played.capture and any(o.capture for o in outcomes)
        seen.update(review.reasons)
        state = apply_move(state, move)  # type: ignore[arg-type]
    assert Reason.MISSED_CAPTURE in seen  # a random player misses captures
    # the greedy seat lost fewer points than the random one
    lost = [sum(r.points_lost for r in reviews if r.seat == seat) for seat in (0, 1)]
    assert lost[0] < lost[1]


def test_a_review_is_the_same_every_time_and_of_the_seats_asked() -> None:
    start, moves = _match(3)
    mine = review_match(start, moves[:20], seats={1})  # type: ignore[arg-type]
    assert {r.seat for r in mine} == {1}
    assert review_match(start, moves[:20], seats={1}) == mine  # type: ignore[arg-type]


def test_a_missed_basra_is_a_blunder() -> None:
    """In random matches, a play that could have made a basra and took nothing lost at
    least a basra's worth less what the other card kept: graded a mistake or worse."""
    found = 0
    for seed in range(12):
        start, moves = _match(seed, ("random", "random"))
        state = start
        for index, move in enumerate(moves):
            outcomes = [check_move(state, m)[1] for m in legal_moves(state)]  # type: ignore[arg-type]
            _, played = check_move(state, move)  # type: ignore[arg-type]
            if any(o.basra == "basra" for o in outcomes) and not played.capture:
                review = review_play(state, move, index)  # type: ignore[arg-type]
                assert Reason.MISSED_BASRA in review.reasons
                assert review.grade in (Grade.MISTAKE, Grade.BLUNDER), review
                found += 1
            state = apply_move(state, move)  # type: ignore[arg-type]
        if found >= 3:
            break
    assert found >= 3
