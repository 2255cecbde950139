"""Schemas of the matches resource: requests, the seat view, moves, history."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import validate

from ..players.schemas import PLAYER_ID_FIELD, RATING_CHANGES, RatingChangeSchema
from ..web.fields import CardField, JsonBoolean, JsonInteger, UTCDateTime, card_list
from . import render
from .creating import BOT_LEVELS
from .enums import ChatMode, ClockTimeout, EndReason, MatchStatus, MoveKind
from .results import MAX_SPECTATOR_DELAY, SPECTATOR_DELAY, MatchView
from .rows import STAND_IN

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


class PlayerSchema(ma.Schema):
    """A seat to fill: a human (name, optional player_id), a bot, or an open seat that a
    player joins later (`{"open": true}`)."""

    name = ma.fields.String(validate=validate.Length(min=1, max=64))
    player_id = ma.fields.String(
        validate=PLAYER_ID_FIELD["validate"],
        metadata={"description": "the front end's own id of this player (1-128 of A-Z a-z "
                  "0-9 . _ : @ -): it takes that player's token, or a server key"},
    )
    bot = ma.fields.String(
        validate=validate.OneOf(BOT_LEVELS), metadata={"description": "a computer opponent"}
    )
    open = JsonBoolean(
        load_default=False, metadata={"description": "a seat left for a player to join"}
    )

    @ma.validates_schema
    def _named(self, data: dict[str, Any], **kwargs: Any) -> None:
        if data.get("open"):
            if set(data) - {"open"}:
                raise ma.ValidationError("an open seat names no player or bot", "open")
        elif "name" not in data and "bot" not in data:
            raise ma.ValidationError("a human player needs a name", "name")


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


class CreateMatchSchema(ma.Schema):
    """A new match."""

    clock = ma.fields.Nested(ClockSchema, metadata={"description": "no clock when absent"})

    variant = ma.fields.String(
        load_default="egyptian-v2", validate=validate.Length(min=1, max=64),
        metadata={"description": "a shipped variant (GET /v1/variants)"},
    )
    rules = ma.fields.Dict(
        load_default=dict, metadata={"description": "house-rule overrides, deep-merged"}
    )
    players = ma.fields.List(
        ma.fields.Nested(PlayerSchema), required=True, validate=validate.Length(min=2, max=4)
    )
    rated = JsonBoolean(load_default=False, metadata={
        "description": "rated: every seat a distinct player vouched for (no bots); the "
        "finish updates their ratings in the variant's pool"})
    decks = ma.fields.List(
        card_list(validate=validate.Length(equal=52)),
        validate=validate.Length(max=64),
        metadata={"description": "52 cards per round, top first; later rounds are shuffled"},
    )
    stand_in = ma.fields.String(
        load_default=STAND_IN, validate=validate.OneOf(BOT_LEVELS),
        metadata={"description": "the bot level that keeps a dropped seat (a clock's "
                  "`bot` timeout, or POST .../seats/{seat}/drop) until its player comes "
                  "back; in a rated match at most greedy (random, novice, casual, "
                  "greedy), so that leaving a seat is never stronger than playing it"})
    spectator_delay = JsonInteger(
        validate=validate.Range(min=0, max=MAX_SPECTATOR_DELAY),
        metadata={"description": "plays a spectator's view and the public move log lag "
                  f"behind while the match goes on; default {SPECTATOR_DELAY} in rated "
                  "matches, else 0"})


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


class MoveRequestSchema(ma.Schema):
    """A play: the card and, optionally, which legal capture."""

    card = CardField(required=True)
    capture = card_list(
        allow_none=True,
        validate=validate.Length(max=52),
        metadata={"description": "one of the card's legal captures; omit for the default"},
    )


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


class LogQuerySchema(ma.Schema):
    """Catching up on the move log."""

    after = ma.fields.Integer(
        load_default=0, validate=validate.Range(min=0, max=10**9),
        metadata={"description": "only entries with a greater `seq`"},
    )


class WaitQuerySchema(ma.Schema):
    """Long polling."""

    wait = ma.fields.Float(
        load_default=0.0,
        validate=validate.Range(min=0, max=3600),
        metadata={"description": "with If-None-Match: wait up to this many seconds (capped "
                  "by the server, 30 by default) for a new version before answering 304"},
    )


class HistoryQuerySchema(ma.Schema):
    """Filters and cursor of the match history."""

    player = ma.fields.String(validate=validate.Length(min=1, max=128))
    variant = ma.fields.String(validate=validate.Length(min=1, max=64))
    status = ma.fields.String(validate=validate.OneOf(STATUSES))
    since = UTCDateTime(metadata={"description": "created at or after (ISO 8601; UTC if no zone)"})
    until = UTCDateTime(metadata={"description": "created before"})
    limit = ma.fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    cursor = ma.fields.String(
        validate=validate.Length(min=1, max=128), metadata={"description": "`next` of a page"}
    )


class PlayerMatchesQuerySchema(ma.Schema):
    """Filters and cursor of a player's matches."""

    pool = ma.fields.String(validate=validate.Length(min=1, max=64), metadata={
        "description": "only this pool (variant)"})
    rated = ma.fields.Boolean(metadata={"description": "only rated (or unrated) matches"})
    status = ma.fields.String(validate=validate.OneOf(STATUSES))
    limit = ma.fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    cursor = ma.fields.String(
        validate=validate.Length(min=1, max=128), metadata={"description": "`next` of a page"}
    )


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


class HintQuerySchema(ma.Schema):
    """Which bot level to ask."""

    level = ma.fields.String(load_default="greedy", validate=validate.OneOf(BOT_LEVELS))


class HintSchema(ma.Schema):
    """The move a bot would play."""

    level = ma.fields.String(required=True)
    card = CardField(required=True)
    capture = card_list(required=True)


class StreamStateSchema(MatchStateSchema):
    """A ``state`` event's data: the caller's view, and the log entries since the
    previous ``state`` event."""

    moves = ma.fields.List(ma.fields.Nested(LoggedMoveSchema), required=True, metadata={
        "description": "the log entries (plays, bots' replies, joins, leaves...) since the "
        "previous `state` event of this connection, or after `Last-Event-ID` on a resumed "
        "one; none on a new connection's first event. The view may be several changes "
        "past the previous one: these are every play between them, in order. A "
        "spectator's delayed view leaves out here what it leaves out (`behind`), and a "
        "later event carries them"})


class StateEventSchema(ma.Schema):
    """A ``state`` event of a match's stream (``text/event-stream``) as an SSE parser hands
    it over: its ``data`` line is a MatchState as JSON. A comment line (``: heartbeat``)
    comes when nothing happened for a while; parsers skip it."""

    event = ma.fields.String(required=True, validate=validate.OneOf(["state"]))
    id = ma.fields.String(required=True, metadata={
        "description": "the match's version: send it back as Last-Event-ID to resume"})
    data = ma.fields.Nested(StreamStateSchema, required=True, metadata={
        "contentMediaType": "application/json",
        "description": "the caller's view after the change, with the log entries since "
        "the previous event, as JSON text"})


class ChatEventSchema(ma.Schema):
    """A ``chat`` event of a match's stream: a line said at the table. It has no id (the
    version stays the resume point): read what you missed at ``GET .../chat``."""

    event = ma.fields.String(required=True, validate=validate.OneOf(["chat"]))
    data = ma.fields.Nested("ChatLineSchema", required=True, metadata={
        "contentMediaType": "application/json", "description": "the line, as JSON text"})


STREAM_EVENTS = {"state": StateEventSchema, "chat": ChatEventSchema}
# a match stream's event in the OpenAPI document: told apart by ``event``, so typed
# clients narrow on it; describe_stream_events registers the two schemas it names
MATCH_EVENT = {
    "oneOf": [{"$ref": f"#/components/schemas/{schema.__name__.removesuffix('Schema')}"}
              for schema in STREAM_EVENTS.values()],
    "discriminator": {"propertyName": "event", "mapping": {
        kind: f"#/components/schemas/{schema.__name__.removesuffix('Schema')}"
        for kind, schema in STREAM_EVENTS.items()}},
}


def describe_stream_events(spec: Any) -> None:
    """Register the schemas MATCH_EVENT refers to (a raw dict registers nothing)."""
    for schema in STREAM_EVENTS.values():
        name = schema.__name__.removesuffix("Schema")
        if name not in spec.components.schemas:
            spec.components.schema(name, schema=schema)


class ChatLineSchema(ma.Schema):
    """A line said at a match's table."""

    id = JsonInteger(required=True, metadata={"description": "the line's number: send it "
                                             "as `after` to read what follows"})
    seat = ma.fields.Integer(required=True, allow_none=True, metadata={
        "description": "the speaker's seat; null for a player watching"})
    player_id = ma.fields.String(required=True, allow_none=True)
    name = ma.fields.String(required=True)
    phrase = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "a phrase's id (GET /v1/chat/phrases has its texts); null for text"})
    text = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "the text as filtered (a word of the filter masked with *)"})
    filtered = JsonBoolean(required=True, metadata={
        "description": "a word of the text was masked"})
    at = UTCDateTime(required=True)


class SayChatSchema(ma.Schema):
    """A phrase (its id) or a text, not both."""

    phrase = ma.fields.String(validate=validate.Length(min=1, max=32))
    text = ma.fields.String(validate=validate.Length(min=1, max=200), metadata={
        "description": "where the front end allows text: at most 200 characters"})

    @ma.validates_schema
    def _one(self, data: dict[str, Any], **_kwargs: Any) -> None:
        if ("phrase" in data) == ("text" in data):
            raise ma.ValidationError("send a phrase or a text, not both", "phrase")
        if "text" in data and not data["text"].strip():
            raise ma.ValidationError("say something", "text")


class ChatQuerySchema(ma.Schema):
    """Reading a match's chat: after a line, waiting for one."""

    after = ma.fields.Integer(load_default=0, validate=validate.Range(min=0, max=2**62),
                              metadata={"description": "only lines after this one (the "
                                        "last page's `after`)"})
    limit = ma.fields.Integer(load_default=50, validate=validate.Range(min=1, max=100))
    wait = ma.fields.Float(load_default=0.0, validate=validate.Range(min=0, max=3600),
                           metadata={"description": "with none to show: wait up to this "
                                     "many seconds (capped by the server, 30 by default)"})


class ChatPageSchema(ma.Schema):
    """Lines of a match's chat, oldest first."""

    lines = ma.fields.List(ma.fields.Nested(ChatLineSchema), required=True)
    after = JsonInteger(required=True, metadata={"description": "send as `after` next"})


class PhraseSchema(ma.Schema):
    """A fixed phrase."""

    id = ma.fields.String(required=True)
    en = ma.fields.String(required=True)
    ar = ma.fields.String(required=True)


class PhrasesSchema(ma.Schema):
    """The phrases a table may say."""

    phrases = ma.fields.List(ma.fields.Nested(PhraseSchema), required=True)


class ChatSettingsSchema(ma.Schema):
    """A front end's table chat."""

    mode = ma.fields.String(
        required=True, validate=validate.OneOf([str(m) for m in ChatMode]), metadata={
            "description": "off; phrases (the fixed list, the default); text (phrases and "
            "at most 200 characters, filtered)"})
    spectators = JsonBoolean(load_default=False, metadata={
        "description": "players watching (with their player token) may read and chat"})
    words = ma.fields.List(ma.fields.String(validate=validate.Length(min=1, max=40)),
                           load_default=list, validate=validate.Length(max=500), metadata={
        "description": "words the filter masks beside its own (Arabic and Latin)"})
