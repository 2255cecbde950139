"""The hand-rendered hot responses (views, moves' answers, history pages) equal their
schemas' marshmallow dump, byte for byte (``service/matches/render.py``)."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import marshmallow as ma
from hypothesis import given, settings
from hypothesis import strategies as st

from service.engine import apply_move, legal_moves, new_match, observe, team_of
from service.matches.results import HistoryPage, MatchSummary, MatchView, MoveResult, SeatInfo
from service.matches.rows import Stake
from service.matches.schemas import HistoryPageSchema, MatchStateSchema, MoveResponseSchema
from tests.helpers import rules_of

VARIANTS = ("egyptian-v1", "egyptian-v2", "egyptian-4p", "pagat")


def _state(variant: str, seed: int, plies: int) -> Any:
    """A match after up to ``plies`` random legal plays (fewer if it ends first)."""
    rng = random.Random(seed)
    state = new_match(rules_of(variant, target_score=30), seed.to_bytes(32, "big"))
    for _ in range(plies):
        if state.finished:
            break
        state = apply_move(state, rng.choice(legal_moves(state)))
    return state


moments = st.one_of(
    st.none(),
    st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2040, 1, 1)),  # SQLite
    st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2040, 1, 1),
                 timezones=st.just(UTC)),
)


skill = st.fixed_dictionaries({"mu": st.floats(0.5, 60), "sigma": st.floats(0.1, 9),
                               "ordinal": st.floats(-30.5, -0.5)})


@st.composite
def views(draw: st.DrawFn) -> tuple[MatchView, Any]:
    variant = draw(st.sampled_from(VARIANTS))
    state = _state(variant, draw(st.integers(0, 2**32)), draw(st.integers(0, 400)))
    players = state.rules.players
    seat = draw(st.one_of(st.none(), st.integers(0, players - 1)))
    seats = tuple(
        SeatInfo(i, team_of(i), draw(st.one_of(st.none(), st.text(max_size=8))),
                 draw(st.one_of(st.none(), st.text(max_size=8))),
                 draw(st.sampled_from([None, "random", "expert"])), draw(st.booleans()))
        for i in range(players)
    )
    created = draw(moments) or datetime(2026, 11, 30, tzinfo=UTC)
    view = MatchView(
        id="m-1", variant=variant,
        status=draw(st.sampled_from(["waiting", "active", "finished", "aborted"])),
        version=draw(st.integers(0, 10_000)), seats=seats, commitment="ab" * 32,
        explicit_decks=draw(st.booleans()), created_at=created, view=observe(state, seat),
        seed=draw(st.one_of(st.none(), st.just(state.seed.hex()))),
        end_reason=draw(st.sampled_from([None, "target_score", "resigned", "timeout"])),
        rematch=draw(st.one_of(st.none(), st.just("m-2"))),
        clock=draw(st.one_of(st.none(), st.builds(
            lambda s, t: {"move_seconds": s, "timeout": t},
            st.integers(5, 86_400), st.sampled_from(["autoplay", "forfeit"])))),
        deadline=draw(moments),
        rated=draw(st.booleans()),
        rating_changes=draw(st.one_of(st.none(), st.lists(st.fixed_dictionaries({
            "seat": st.integers(0, 3), "player_id": st.text("abc-", min_size=1, max_size=8),
            "before": skill, "after": skill}), max_size=4))),
        stake=draw(st.one_of(st.none(), st.builds(
            Stake, st.sampled_from(["COINS", "GEMS_2"]), st.integers(1, 10**15),
            st.integers(0, 5000), st.one_of(st.none(), st.integers(0, 10**9))))),
    )
    return view, state


def _text(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))


@settings(max_examples=150, deadline=None)
@given(views())
def test_a_view_renders_as_its_schema_dumps(drawn: tuple[MatchView, Any]) -> None:
    view, _ = drawn
    schema = MatchStateSchema()
    assert _text(schema.dump(view)) == _text(ma.Schema.dump(schema, view))


@settings(max_examples=100, deadline=None)
@given(views(), st.integers(0, 3), st.booleans())
def test_a_move_result_renders_as_its_schema_dumps(drawn: tuple[MatchView, Any],
                                                   replies: int, resigned: bool) -> None:
    view, state = drawn
    plays = [state.last_play] * (replies + 1) if state.last_play is not None else []
    result = MoveResult(None if resigned or not plays else plays[0], tuple(plays[1:]), view)
    schema = MoveResponseSchema()
    reference = ma.Schema.dump(schema, result)
    reference["state"] = ma.Schema.dump(MatchStateSchema(), view)
    assert _text(schema.dump(result)) == _text(reference)
    assert _text(schema.dump([result], many=True)) == _text([reference])


@st.composite
def summaries(draw: st.DrawFn) -> MatchSummary:
    view, state = draw(views())
    return MatchSummary(
        view.id, view.variant, view.status, view.version, "cd" * 32, list(state.scores),
        state.winner, state.draw, view.seats, view.created_at, draw(moments),
        view.end_reason, state.round, view.rated, view.rating_changes)


@settings(max_examples=100, deadline=None)
@given(st.lists(summaries(), max_size=4), st.one_of(st.none(), st.text(max_size=12)))
def test_a_history_page_renders_as_its_schema_dumps(matches: list[MatchSummary],
                                                    cursor: str | None) -> None:
    page = HistoryPage(matches, cursor)
    schema = HistoryPageSchema()
    assert _text(schema.dump(page)) == _text(ma.Schema.dump(schema, page))
    assert _text(schema.dump([page], many=True)) == _text(ma.Schema.dump(schema, [page],
                                                                         many=True))


def test_the_check_can_fail() -> None:
    """The comparison sees a field the renderer would get wrong (a naive time rendered
    without its zone)."""
    state = _state("egyptian-v2", 7, 30)
    naive = datetime(2026, 11, 30, 12, 0) + timedelta(seconds=1)
    view = MatchView("m", "egyptian-v2", "active", 3, (), "c", False, naive,
                     observe(state, 0), None, None, None, None, None)
    schema = MatchStateSchema()
    rendered = schema.dump(view)
    assert rendered["created_at"] == "2026-11-30T12:00:01+00:00"
    wrong = {**rendered, "created_at": naive.isoformat()}
    assert _text(wrong) != _text(ma.Schema.dump(schema, view))
