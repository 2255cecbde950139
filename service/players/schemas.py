"""Bodies of the players' routes."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import validate

from ..web.fields import UTCDateTime
from .service import MAX_TTL_SECONDS, MIN_TTL_SECONDS, PLAYER_ID

PLAYER_ID_FIELD = {"validate": validate.Regexp(PLAYER_ID.pattern + r"\Z",
                                               error="1-128 of A-Z a-z 0-9 . _ : @ -"),
                   "metadata": {"description": "the front end's own id for its user (1-128 "
                                "of A-Z a-z 0-9 . _ : @ -)"}}
"""A player id field's validation and description."""


class MintSchema(ma.Schema):
    """A player token to mint."""

    name = ma.fields.String(validate=validate.Length(min=1, max=64), metadata={
        "description": "the player's display name (seats taken with the token show it)"})
    ttl_seconds = ma.fields.Integer(
        load_default=3600, validate=validate.Range(min=MIN_TTL_SECONDS, max=MAX_TTL_SECONDS),
        metadata={"description": "how long the token lives"})


class MintedSchema(ma.Schema):
    """A player token: send it as ``Authorization: Bearer <token>``."""

    player_id = ma.fields.String(required=True)
    name = ma.fields.String(required=True, allow_none=True)
    token = ma.fields.String(required=True, metadata={
        "description": "a JWT (HS256) with iss basra, aud the front end's name, sub the "
        "player id, name, iat and exp"})
    expires_at = UTCDateTime(required=True)


class SkillSchema(ma.Schema):
    """A rating: openskill's mu and sigma, and the ordinal (mu - 3 sigma) that ranks it."""

    mu = ma.fields.Float(required=True)
    sigma = ma.fields.Float(required=True)
    ordinal = ma.fields.Float(required=True)


class RatingChangeSchema(ma.Schema):
    """One seat's rating before and after a rated match."""

    seat = ma.fields.Integer(required=True)
    player_id = ma.fields.String(required=True)
    before = ma.fields.Nested(SkillSchema, required=True)
    after = ma.fields.Nested(SkillSchema, required=True)


RATING_CHANGES = {"required": True, "allow_none": True, "metadata": {
    "description": "each seat's rating before and after, once a rated match finished "
    "(null otherwise)"}}
"""A ``rating_changes`` field's settings (views, history entries, match.finished)."""
