"""The hand-rendered leaderboard page equals its schema's marshmallow dump, byte for byte
(``BoardSchema.dump``)."""

from __future__ import annotations

import json
from typing import Any

import marshmallow as ma
from hypothesis import given, settings
from hypothesis import strategies as st

from service.players.leaderboards import Entry, LeaderboardPage, Standing
from service.players.schemas import BoardSchema

entries = st.builds(Entry, st.integers(1, 10**6), st.text("abc.:@-", min_size=1, max_size=9),
                    st.one_of(st.none(), st.text(max_size=9)), st.floats(-40, 60),
                    st.floats(0.5, 60), st.floats(0.1, 9), st.integers(0, 10**5))
standings = st.builds(Standing, st.text("abc.:@-", min_size=1, max_size=9),
                      st.floats(0.5, 60), st.floats(0.1, 9), st.floats(-40, 60),
                      st.integers(0, 10**5), st.booleans())
boards = st.builds(LeaderboardPage, st.sampled_from(["egyptian-v2", "pagat"]),
                   st.lists(entries, max_size=5), st.one_of(st.none(), st.text(max_size=9)),
                   st.one_of(st.none(), st.integers(1, 10**6)),
                   st.one_of(st.none(), st.floats(0, 100)),
                   st.one_of(st.none(), standings))


def _text(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))


@settings(max_examples=150, deadline=None)
@given(boards)
def test_a_board_renders_as_its_schema_dumps(board: LeaderboardPage) -> None:
    schema = BoardSchema()
    assert _text(schema.dump(board)) == _text(ma.Schema.dump(schema, board))
    assert _text(schema.dump([board], many=True)) == _text(ma.Schema.dump(schema, [board],
                                                                          many=True))


def test_the_check_can_fail() -> None:
    """An entry rendered without its games is told apart."""
    board = LeaderboardPage("pagat", [Entry(1, "p", None, 1.0, 25.0, 8.0, 3)], None)
    rendered = BoardSchema().dump(board)
    del rendered["entries"][0]["games"]
    assert _text(rendered) != _text(ma.Schema.dump(BoardSchema(), board))
