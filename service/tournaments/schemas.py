"""What ``/v1/tournaments`` takes and gives."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import marshmallow as ma
from marshmallow import validate

from ..matches.schemas import ClockSchema
from ..players.schemas import PLAYER_ID_FIELD
from ..storage.base import utcnow
from ..web.fields import JsonBoolean, JsonInteger, UTCDateTime, ZonedDateTime
from ..webhooks.schemas import NAMES, StandingSchema
from .enums import PairingStatus, TournamentStatus, TournamentSystem
from .prizes import MAX_PLACES

MAX_AHEAD = timedelta(days=90)
"""How far ahead a tournament may be scheduled."""
CURRENCY_CODE = r"^[A-Z][A-Z0-9_]{0,15}$"
MAX_FEE = 10**12
"""The largest entry fee (the pool of 1,024 entrants stays far inside 64 bits)."""


class EntryFeeSchema(ma.Schema):
    """A tournament's entry fee: held from each entrant's wallet as they join."""

    currency = ma.fields.String(required=True, validate=validate.Regexp(
        CURRENCY_CODE), metadata={"description": "one of the front end's currencies "
                                  "(PUT /v1/currencies/{code})"})
    amount = JsonInteger(required=True, validate=validate.Range(min=1, max=MAX_FEE),
                         metadata={"description": "coins, a whole number"})


class CreateTournamentSchema(ma.Schema):
    """A new tournament. Swiss takes `rounds`, arena `duration_minutes`; the clock is
    required, so no entrant can stall the event."""

    name = ma.fields.String(required=True, validate=validate.Length(min=1, max=100))
    variant = ma.fields.String(
        load_default="egyptian-v2", validate=validate.Length(min=1, max=64),
        metadata={"description": "a shipped variant (GET /v1/variants), two players"})
    rules = ma.fields.Dict(load_default=dict, metadata={
        "description": "house-rule overrides for every match, deep-merged"})
    system = ma.fields.String(required=True,
                              validate=validate.OneOf([s.value for s in TournamentSystem]))
    rounds = JsonInteger(validate=validate.Range(min=1, max=20), metadata={
        "description": "swiss and duplicate: how many rounds (1-20)"})
    deals = JsonInteger(validate=validate.Range(min=1, max=10), metadata={
        "description": "duplicate: the deals each table plays a round (1-10, each a whole "
        "round of the deck; 1 by default)"})
    duration_minutes = JsonInteger(validate=validate.Range(min=5, max=720), metadata={
        "description": "arena: how long it runs (5-720)"})
    starts_at = ZonedDateTime(required=True, metadata={
        "description": "when basra worker starts it (at most 90 days ahead), with its zone"})
    min_players = JsonInteger(load_default=2, validate=validate.Range(min=2, max=1024),
                                    metadata={"description": "cancelled at the start below this"})
    max_players = JsonInteger(load_default=256, validate=validate.Range(min=2, max=1024))
    rated = JsonBoolean(load_default=False, metadata={
        "description": "every match rated in the variant's pool"})
    clock = ma.fields.Nested(ClockSchema, required=True)
    entry_fee = ma.fields.Nested(EntryFeeSchema, metadata={
        "description": "held from each entrant's wallet at joining (`409 "
        "insufficient_funds` if short), given back on a withdrawal before the start or a "
        "cancel; the pool is paid out by `prizes` at the end"})
    prizes = ma.fields.List(JsonInteger(validate=validate.Range(min=0, max=100)),
                            validate=validate.Length(min=1, max=MAX_PLACES), metadata={
        "description": "with an entry fee: percent of the pool by final place, best first "
        "(e.g. [50, 30, 20]), summing to at most 100; players level on points share "
        "their places' percentages; what is left over is the house's. Default [100]"})

    @ma.validates_schema
    def _fits(self, data: dict[str, Any], **_: Any) -> None:
        system = data.get("system")
        if system == TournamentSystem.SWISS and "rounds" not in data:
            raise ma.ValidationError("a Swiss tournament needs rounds (1-20)", "rounds")
        if system == TournamentSystem.SWISS and "duration_minutes" in data:
            raise ma.ValidationError("a Swiss tournament runs by rounds", "duration_minutes")
        if system == TournamentSystem.ARENA and "duration_minutes" not in data:
            raise ma.ValidationError("an arena needs duration_minutes (5-720)",
                                     "duration_minutes")
        if system == TournamentSystem.ARENA and "rounds" in data:
            raise ma.ValidationError("an arena runs for duration_minutes", "rounds")
        if system == TournamentSystem.DUPLICATE and "rounds" not in data:
            raise ma.ValidationError("a duplicate event needs rounds (1-20)", "rounds")
        if system == TournamentSystem.DUPLICATE and "duration_minutes" in data:
            raise ma.ValidationError("a duplicate event runs by rounds", "duration_minutes")
        if system != TournamentSystem.DUPLICATE and "deals" in data:
            raise ma.ValidationError("only a duplicate event plays a set number of deals",
                                     "deals")
        if data.get("min_players", 2) > data.get("max_players", 256):
            raise ma.ValidationError("must be at most max_players", "min_players")
        prizes = data.get("prizes")
        if prizes is not None and "entry_fee" not in data:
            raise ma.ValidationError("prizes are paid from the entry fees: set entry_fee",
                                     "prizes")
        if prizes is not None and sum(prizes) > 100:
            raise ma.ValidationError("must sum to at most 100 (percent of the pool)",
                                     "prizes")
        starts = data.get("starts_at")
        if starts is not None and starts > utcnow() + MAX_AHEAD:
            raise ma.ValidationError("must be within 90 days", "starts_at")


class EntrantSchema(ma.Schema):
    """Who joins or withdraws: the player token's player, or (with a server key) the
    player named."""

    player_id = ma.fields.String(**PLAYER_ID_FIELD)
    name = ma.fields.String(validate=validate.Length(min=1, max=64))


class TournamentQuerySchema(ma.Schema):
    """Filters of the tournaments' list."""

    status = ma.fields.String(validate=validate.OneOf(
        [s.value for s in TournamentStatus]))
    limit = ma.fields.Integer(load_default=50, validate=validate.Range(min=1, max=100))


class PairingSchema(ma.Schema):
    """A game of the tournament."""

    match_id = ma.fields.String(required=True, allow_none=True)
    players = ma.fields.List(ma.fields.String(), required=True, metadata={
        "description": "the first plays first"})
    winner = ma.fields.String(required=True, allow_none=True)
    draw = JsonBoolean(required=True)
    status = ma.fields.String(required=True, validate=validate.OneOf(
        [s.value for s in PairingStatus]), metadata={
        "description": "void: not counted (an arena's match unfinished at the end)"})


class RoundSchema(ma.Schema):
    """A Swiss (or duplicate) round."""

    round = ma.fields.Integer(required=True)
    pairings = ma.fields.List(ma.fields.Nested(PairingSchema), required=True, metadata={
        "description": "duplicate: the tables, each one's players by seat"})
    bye = ma.fields.String(required=True, allow_none=True)
    byes = ma.fields.List(ma.fields.String(), required=True, metadata={
        "description": "everyone who sat the round out (a Swiss's one bye; at a duplicate "
        "event, the players left over from full tables)"})
    commitment = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "duplicate: SHA-256 of the round's seed, which every table's match "
        "shows as its commitment and reveals once over: the same cards at every table"})


class TournamentSchema(ma.Schema):
    """A tournament, its standings and its pairings."""

    id = ma.fields.String(required=True)
    name = ma.fields.String(required=True)
    variant = ma.fields.String(required=True)
    rules = ma.fields.Dict(required=True)
    system = ma.fields.String(required=True)
    status = ma.fields.String(required=True, validate=validate.OneOf(
        [s.value for s in TournamentStatus]))
    planned_rounds = JsonInteger(required=True, allow_none=True, metadata={
        "description": "swiss and duplicate: the rounds it was created with"})
    deals = JsonInteger(required=True, allow_none=True, metadata={
        "description": "duplicate: the deals each table plays a round"})
    duration_minutes = ma.fields.Integer(required=True, allow_none=True)
    starts_at = UTCDateTime(required=True)
    ends_at = UTCDateTime(required=True, allow_none=True, metadata={
        "description": "arena: set when it starts"})
    min_players = ma.fields.Integer(required=True)
    max_players = ma.fields.Integer(required=True)
    rated = JsonBoolean(required=True)
    clock = ma.fields.Nested(ClockSchema, required=True)
    round = ma.fields.Integer(required=True, metadata={
        "description": "swiss: the round being played; arena: batches of pairings made"})
    entrants = ma.fields.List(ma.fields.String(), required=True)
    withdrawn = ma.fields.List(ma.fields.String(), required=True)
    names = ma.fields.Dict(**NAMES)
    standings = ma.fields.List(ma.fields.Nested(StandingSchema), required=True)
    rounds = ma.fields.List(ma.fields.Nested(RoundSchema), required=True, allow_none=True,
                            metadata={"description": "swiss and duplicate: each round's "
                                      "pairings"})
    pairings = ma.fields.List(ma.fields.Nested(PairingSchema), required=True,
                              allow_none=True, metadata={
                                  "description": "arena: every game, in the order paired"})
    created_at = UTCDateTime(required=True)
    finished_at = UTCDateTime(required=True, allow_none=True)
    entry_fee = ma.fields.Nested(EntryFeeSchema, required=True, allow_none=True, metadata={
        "description": "null: free to enter"})
    prizes = ma.fields.List(ma.fields.Integer(), required=True, allow_none=True, metadata={
        "description": "percent of the pool by final place, best first"})
    pool = ma.fields.Integer(required=True, metadata={
        "description": "the prize pool: the entry fees of everyone entered (a withdrawal "
        "once it runs leaves its fee in); 0 when free or cancelled"})
    payouts = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Integer(),
                             required=True, metadata={
        "description": "once finished: the coins each prize winner was paid, by player id"})


class TournamentSummarySchema(ma.Schema):
    """A line of the tournaments' list."""

    id = ma.fields.String(required=True)
    name = ma.fields.String(required=True)
    variant = ma.fields.String(required=True)
    system = ma.fields.String(required=True)
    status = ma.fields.String(required=True)
    starts_at = UTCDateTime(required=True)
    entrant_count = ma.fields.Integer(required=True, metadata={
        "description": "players entered and not withdrawn (the tournament's own page "
                       "lists them as `entrants`)"})
    max_players = ma.fields.Integer(required=True)
    rated = JsonBoolean(required=True)


class TournamentListSchema(ma.Schema):
    """A front end's tournaments, latest start first."""

    tournaments = ma.fields.List(ma.fields.Nested(TournamentSummarySchema), required=True)
