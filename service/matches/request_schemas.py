"""Schemas of what the matches' routes are asked: a match to create, a move, the
queries of the move log, a long poll, the history, a player's matches and a hint."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import validate

from ..players.schemas import PLAYER_ID_FIELD
from ..web.fields import CardField, JsonBoolean, JsonInteger, UTCDateTime, card_list
from .creating import BOT_LEVELS
from .results import MAX_SPECTATOR_DELAY, SPECTATOR_DELAY
from .rows import STAND_IN
from .schemas import STATUSES, ClockSchema, StakeSchema


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
    stake = ma.fields.Nested(StakeSchema, metadata={
        "description": "a staked table: every seat a player vouched for (no bots, no "
        "anonymous seats), each holding the stake in the table's escrow as the seat is "
        "taken (`409 insufficient_funds`, `409 in_debt` otherwise, and nothing is made); "
        "the finish pays the winners the pot less the front end's rake"})


class MoveRequestSchema(ma.Schema):
    """A play: the card and, optionally, which legal capture."""

    card = CardField(required=True)
    capture = card_list(
        allow_none=True,
        validate=validate.Length(max=52),
        metadata={"description": "one of the card's legal captures; omit for the default"},
    )


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


class HintQuerySchema(ma.Schema):
    """Which bot level to ask."""

    level = ma.fields.String(load_default="greedy", validate=validate.OneOf(BOT_LEVELS))
