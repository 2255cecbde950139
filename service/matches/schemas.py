"""Schemas of what the matches' routes answer: a seat's (or a spectator's) view, a
created match, a move's result, the move log, the history, a hint."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import validate

from ..players.schemas import RATING_CHANGES, RatingChangeSchema
from ..web.fields import CardField, JsonBoolean, JsonInteger, UTCDateTime, card_list
from . import render
from .enums import ClockTimeout, EndReason, MatchStatus, MoveKind
from .results import MatchView

STATUSES = [s.value for s in MatchStatus]


class VoidedSchema(ma.Schema):
    """A voided result: when, and the front end's reason."""

    at = UTCDateTime(required=True)
    reason = ma.fields.String(required=True, allow_none=True)


END_REASON = ma.fields.String(
    required=True, allow_none=True,
    validate=validate.OneOf([r.value for r in EndReason]),
    metadata={"description": "why the match ended; null while it goes on"},
)


class ClockSchema(ma.Schema):
    """A turn clock."""

    move_seconds = JsonInteger(required=True, validate=validate.Range(min=5, max=86_400))
    timeout = ma.fields.String(
        load_default=ClockTimeout.AUTOPLAY.value,
        validate=validate.OneOf([t.value for t in ClockTimeout]),
        metadata={"description": "autoplay: the greedy bot plays for the seat (the third "
                  "timeout in a row forfeits); forfeit: the seat's team loses; bot: the "
                  "seat is dropped and the match's stand-in bot keeps it until its "
                  "player comes back (the last seat its player still plays is "
                  "autoplayed instead)"},
    )


CURRENCY_CODE = r"^[A-Z][A-Z0-9_]{0,15}$"
MAX_STAKE = 10**15
"""The largest stake asked for (a pot of four stays far inside a 64-bit balance)."""


class StakeSchema(ma.Schema):
    """A staked table: what each seat holds in the table's escrow as it is taken."""

    currency = ma.fields.String(required=True, validate=validate.Regexp(CURRENCY_CODE), metadata={
        "description": "a currency of the front end (PUT /v1/currencies/{code})"})
    amount = JsonInteger(required=True, validate=validate.Range(min=1, max=MAX_STAKE), metadata={
        "description": "whole coins each seat stakes"})


class RakeSchema(ma.Schema):
    """The house's share of a staked table's pot, as the front end's settings said when
    the table was made."""

    share_bp = ma.fields.Integer(required=True, metadata={
        "description": "basis points of the pot (500: 5%), rounded down"})
    cap = ma.fields.Integer(required=True, allow_none=True, metadata={
        "description": "the most the house takes of one pot (null: no cap)"})


class StakeShownSchema(StakeSchema):
    """A staked table's stake and rake."""

    rake = ma.fields.Nested(RakeSchema, required=True)


class SeatSchema(ma.Schema):
    """A seat as everyone sees it."""

    seat = ma.fields.Integer(required=True)
    team = ma.fields.Integer(required=True)
    name = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "null while the seat is open"})
    open = JsonBoolean(required=True)
    player_id = ma.fields.String(allow_none=True)
    bot = ma.fields.String(allow_none=True)


class SeatTokenSchema(ma.Schema):
    """A seat and its bearer token (shown once, in the create response)."""

    seat = ma.fields.Integer(required=True)
    name = ma.fields.String(required=True, allow_none=True)
    token = ma.fields.String(
        required=True, allow_none=True, metadata={"description": "null for a bot or open seat"}
    )
    open = JsonBoolean(required=True)
    bot = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "the bot's level; null for a person or an open seat"})
    player_id = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "the player vouched for in the seat, as the match's views show it"})


class LegalMoveSchema(ma.Schema):
    """One legal move: a card and what it takes."""

    card = CardField(required=True)
    capture = card_list(required=True)


class PlaySchema(ma.Schema):
    """A move as it happened."""

    round = ma.fields.Integer(required=True)
    seat = ma.fields.Integer(required=True)
    card = CardField(required=True)
    captured = card_list(required=True)
    basra = ma.fields.String(
        required=True, allow_none=True, validate=validate.OneOf(["basra", "jack_basra"])
    )


class RoundSummarySchema(ma.Schema):
    """A finished round's score sheet, one entry per team."""

    round = ma.fields.Integer(required=True)
    cards = ma.fields.List(ma.fields.Integer(), required=True)
    basras = ma.fields.List(ma.fields.Integer(), required=True)
    jack_basras = ma.fields.List(ma.fields.Integer(), required=True)
    card_points = ma.fields.List(ma.fields.Integer(), required=True)
    points = ma.fields.List(ma.fields.Integer(), required=True)
    carried = ma.fields.Integer(
        required=True, metadata={"description": "most-cards points carried to the next round"}
    )


class MatchStateSchema(ma.Schema):
    """A match as one seat (or a spectator) sees it. Never another seat's hand."""

    id = ma.fields.String(required=True)
    variant = ma.fields.String(required=True)
    rules = ma.fields.Dict(required=True, metadata={"description": "effective settings"})
    rules_hash = ma.fields.String(required=True)
    status = ma.fields.String(required=True, validate=validate.OneOf(STATUSES))
    version = ma.fields.Integer(required=True, metadata={
        "description": "entries in the match's log (moves, joins, leaves)"})
    seat = ma.fields.Integer(
        required=True, allow_none=True, metadata={"description": "the viewer's seat"}
    )
    round = ma.fields.Integer(required=True)
    dealer = ma.fields.Integer(required=True)
    turn = ma.fields.Integer(required=True, allow_none=True)
    floor = card_list(required=True)
    hand = card_list(metadata={"description": "the viewer's own hand; absent for spectators"})
    hand_counts = ma.fields.List(ma.fields.Integer(), required=True)
    stock_count = ma.fields.Integer(required=True)
    pile_counts = ma.fields.List(ma.fields.Integer(), required=True)
    basras = ma.fields.List(
        ma.fields.Integer(), required=True, metadata={"description": "this round, per team"}
    )
    jack_basras = ma.fields.List(ma.fields.Integer(), required=True)
    scores = ma.fields.List(
        ma.fields.Integer(), required=True, metadata={"description": "match totals per team"}
    )
    carried = ma.fields.Integer(
        required=True, metadata={"description": "most-cards points waiting on a tie"}
    )
    rounds = ma.fields.List(ma.fields.Nested(RoundSummarySchema), required=True)
    legal_moves = ma.fields.List(
        ma.fields.Nested(LegalMoveSchema), required=True,
        metadata={"description": "the viewer's moves on its turn; else empty"},
    )
    last_move = ma.fields.Nested(PlaySchema, required=True, allow_none=True)
    winner = ma.fields.Integer(
        required=True, allow_none=True, metadata={"description": "winning team"}
    )
    draw = JsonBoolean(required=True)
    seats = ma.fields.List(ma.fields.Nested(SeatSchema), required=True)
    commitment = ma.fields.String(required=True, metadata={"description": "SHA-256 of the seed"})
    explicit_decks = JsonBoolean(required=True)
    seed = ma.fields.String(
        required=True, allow_none=True, metadata={"description": "revealed when finished"}
    )
    end_reason = END_REASON
    rematch = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "the follow-up match's id, once a seat asked for one"})
    rated = JsonBoolean(required=True)
    rating_changes = ma.fields.List(ma.fields.Nested(RatingChangeSchema), **RATING_CHANGES)
    voided = ma.fields.Nested(VoidedSchema, required=True, allow_none=True, metadata={
        "description": "set once the front end voided the match's result: nothing it gave "
        "or took counts (ratings, totals, tournament points)"})
    clock = ma.fields.Nested(ClockSchema, required=True, allow_none=True)
    deadline = UTCDateTime(required=True, allow_none=True, metadata={
        "description": "when the seat to play runs out of time (null: no clock running)"})
    created_at = UTCDateTime(required=True)
    stand_in = ma.fields.String(required=True, metadata={
        "description": "the bot level that keeps a dropped seat"})
    dropped = ma.fields.List(ma.fields.Integer(), required=True, metadata={
        "description": "the seats the stand-in bot keeps now; a seat's player is back "
        "with POST /v1/matches/{id}/back and the seat's token"})
    spectator_delay = ma.fields.Integer(required=True, metadata={
        "description": "plays a spectator's view lags behind while the match goes on"})
    behind = ma.fields.Integer(required=True, metadata={
        "description": "a spectator's view while the match goes on: its `spectator_delay` "
        "(the view leaves out up to that many of the last plays, and its `version` is "
        "that of the last log entry it shows); 0: the match as it is (the seats' view, "
        "the server key's, and everyone's once it is over)"})
    sealed = JsonBoolean(required=True, metadata={
        "description": "a duplicate round's table while the round goes on: to all but "
        "its seats and the server key it is shown as dealt, `active` at version 0, and "
        "does not change until the round ends"})
    stake = ma.fields.Nested(StakeShownSchema, required=True, allow_none=True, metadata={
        "description": "a staked table's stake (each seat holds it in the table's escrow "
        "from the moment it is taken) and rake; null: unstaked"})

    @ma.pre_dump
    def _flatten(self, m: MatchView, **kwargs: Any) -> dict[str, Any]:
        return render.view_fields(m)

    def dump(self, obj: Any, *, many: bool | None = None) -> Any:
        """Rendered by hand (:func:`render.match_state`); the fields above are the
        contract, and ``tests/matches/test_render.py`` holds the two equal."""
        if self.many if many is None else many:
            return [render.match_state(m) for m in obj]
        return render.match_state(obj)


class CreatedMatchSchema(ma.Schema):
    """A created match: seat tokens (only here) and the spectator view."""

    id = ma.fields.String(required=True)
    seats = ma.fields.List(ma.fields.Nested(SeatTokenSchema), required=True)
    commitment = ma.fields.String(required=True)
    state = ma.fields.Nested(MatchStateSchema, required=True)


class MoveResponseSchema(ma.Schema):
    """The play made (null for a resignation), any bot replies, and the mover's view after
    them."""

    move = ma.fields.Nested(PlaySchema, required=True, allow_none=True)
    replies = ma.fields.List(ma.fields.Nested(PlaySchema), required=True)
    state = ma.fields.Nested(MatchStateSchema, required=True)

    def dump(self, obj: Any, *, many: bool | None = None) -> Any:
        """Rendered by hand (:func:`render.move_result`), as :class:`MatchStateSchema`."""
        if self.many if many is None else many:
            return [render.move_result(r) for r in obj]
        return render.move_result(obj)


class LoggedMoveSchema(ma.Schema):
    """One entry of the public move log."""

    seq = ma.fields.Integer(required=True)
    kind = ma.fields.String(required=True,
                            validate=validate.OneOf([k.value for k in MoveKind]))
    round = ma.fields.Integer(required=True)
    seat = ma.fields.Integer(required=True)
    card = ma.fields.String(allow_none=True)
    captured = ma.fields.List(ma.fields.String(), allow_none=True)
    basra = ma.fields.String(allow_none=True)
    timeout = JsonBoolean(required=True, metadata={
        "description": "played on the seat's behalf when its time ran out"})
    stand_in = JsonBoolean(required=True, metadata={
        "description": "played by the stand-in bot that keeps the seat while its player "
        "is away"})
    created_at = UTCDateTime(required=True)


class MoveLogSchema(ma.Schema):
    """The public move log; seed and explicit decks appear once the match is finished."""

    id = ma.fields.String(required=True)
    status = ma.fields.String(required=True)
    version = ma.fields.Integer(required=True)
    commitment = ma.fields.String(required=True)
    explicit_decks = JsonBoolean(required=True)
    seed = ma.fields.String(allow_none=True)
    decks = ma.fields.List(ma.fields.List(ma.fields.String()), allow_none=True)
    moves = ma.fields.List(ma.fields.Nested(LoggedMoveSchema), required=True)
    behind = ma.fields.Integer(required=True, metadata={
        "description": "the match goes on and its spectators see it `spectator_delay` "
        "plays late: that delay (up to that many plays are left out, and `version` is "
        "that of the last entry shown); 0 for the whole log (a seat's token, the server "
        "key, or the match over)"})


class MatchSummarySchema(ma.Schema):
    """A match in the history listing."""

    id = ma.fields.String(required=True)
    variant = ma.fields.String(required=True)
    status = ma.fields.String(required=True)
    version = ma.fields.Integer(required=True)
    rules_hash = ma.fields.String(required=True)
    scores = ma.fields.List(ma.fields.Integer(), required=True)
    winner = ma.fields.Integer(allow_none=True)
    draw = JsonBoolean(required=True)
    seats = ma.fields.List(ma.fields.Nested(SeatSchema), required=True)
    created_at = UTCDateTime(required=True)
    finished_at = UTCDateTime(allow_none=True)
    end_reason = END_REASON
    rounds = ma.fields.Integer(required=True, metadata={"description": "rounds played"})
    rated = JsonBoolean(required=True)
    rating_changes = ma.fields.List(ma.fields.Nested(RatingChangeSchema), **RATING_CHANGES)
    voided = ma.fields.Nested(VoidedSchema, required=True, allow_none=True, metadata={
        "description": "set once the front end voided the match's result: nothing it gave "
        "or took counts (ratings, totals, tournament points)"})


class HistoryPageSchema(ma.Schema):
    """One page of the history."""

    matches = ma.fields.List(ma.fields.Nested(MatchSummarySchema), required=True)
    next = ma.fields.String(allow_none=True, required=True)

    def dump(self, obj: Any, *, many: bool | None = None) -> Any:
        """Rendered by hand (:func:`render.history_page`), as :class:`MatchStateSchema`."""
        if self.many if many is None else many:
            return [render.history_page(page) for page in obj]
        return render.history_page(obj)


class HintSchema(ma.Schema):
    """The move a bot would play."""

    level = ma.fields.String(required=True)
    card = CardField(required=True)
    capture = card_list(required=True)
