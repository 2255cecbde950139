"""Bodies of the lobby's routes: a player taking a seat, looking for a table, seated."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import validate

from ..matches.schemas import MatchStateSchema, StakeSchema
from ..players.schemas import PLAYER_ID_FIELD
from ..web.fields import JsonBoolean


class JoinSchema(ma.Schema):
    """A player taking an open seat."""

    name = ma.fields.String(validate=validate.Length(min=1, max=64), metadata={
        "description": "the name shown at the table; by default a player token's name, "
                       "else `seat N`"})
    player_id = ma.fields.String(**PLAYER_ID_FIELD)


class QuickPlaySchema(JoinSchema):
    """A player looking for a table: the variant and house rules to play."""

    variant = ma.fields.String(load_default="egyptian-v2", validate=validate.Length(min=1, max=64))
    rules = ma.fields.Dict(load_default=dict, metadata={"description": "house-rule overrides"})
    rated = JsonBoolean(load_default=False, metadata={
        "description": "a rated table: the caller and the opponent, players vouched for"})
    party = ma.fields.String(validate=validate.Length(min=1, max=36), metadata={
        "description": "a party of two the caller is in (POST /v1/parties): both seated as "
        "partners at a four-player table"})
    stake = ma.fields.Nested(StakeSchema, metadata={
        "description": "play a staked table: paired only with players at the same stake "
        "(currency and amount); the seat holds it as it is taken"})


class QuickCancelSchema(ma.Schema):
    """A player leaving the quick-play queue."""

    variant = ma.fields.String(validate=validate.Length(min=1, max=64), metadata={
        "description": "only this variant's table; every one when absent"})
    player_id = ma.fields.String(**PLAYER_ID_FIELD)


class QuickLeftSchema(ma.Schema):
    """The quick-play tables left."""

    left = ma.fields.List(ma.fields.String(), required=True, metadata={
        "description": "the ids of the waiting tables the player left"})


class SeatedSchema(ma.Schema):
    """A seat taken: its token (shown only here) and the player's view."""

    id = ma.fields.String(required=True)
    seat = ma.fields.Integer(required=True)
    token = ma.fields.String(required=True)
    state = ma.fields.Nested(MatchStateSchema, required=True)
