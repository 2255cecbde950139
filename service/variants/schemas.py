"""Schemas of the variants resource."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import validate


class VariantSchema(ma.Schema):
    """A shipped variant with its full effective settings."""

    name = ma.fields.String(required=True)
    description = ma.fields.String(required=True)
    rules = ma.fields.Dict(required=True, metadata={"description": "every setting of RULES.md"})
    rules_hash = ma.fields.String(required=True, metadata={"description": "SHA-256 of the rules"})


class VariantListSchema(ma.Schema):
    """All shipped variants."""

    variants = ma.fields.List(ma.fields.Nested(VariantSchema), required=True)


class RulesCheckSchema(ma.Schema):
    """House rules to check against a variant without creating a match."""

    rules = ma.fields.Dict(load_default=dict, metadata={"description": "partial overrides"})


class BotLevelSchema(ma.Schema):
    """A bot level a seat (or a hint) may name."""

    level = ma.fields.String(required=True)
    what = ma.fields.String(required=True, metadata={"description": "what it does"})
    searching = ma.fields.Boolean(required=True, metadata={
        "description": "its moves spend the front end's `expensive` budget"})
    rating = ma.fields.Dict(allow_none=True, required=True, metadata={
        "description": "on the ladder: its rating on the players' scale, `{mu, sigma, "
        "display}`; `display` is 1500 + 60 x (mu - 25), its skill as a new player's "
        "uncertainty counts it: below a new player's 1500 when weaker (null off the "
        "ladder)"})
    against_below = ma.fields.Dict(allow_none=True, required=True, metadata={
        "description": "its win rate against the level below, `{win_rate, low, high, "
        "matches}` (a 95% Wilson interval; null for the first level and off the ladder)"})


class BotListSchema(ma.Schema):
    """The bot levels: the ladder from beginner to expert, then the others."""

    variant = ma.fields.String(required=True, metadata={
        "description": "the variant the ladder was measured in"})
    measured = ma.fields.String(required=True, metadata={"description": "when (a date)"})
    ladder = ma.fields.List(ma.fields.Nested(BotLevelSchema), required=True)
    others = ma.fields.List(ma.fields.Nested(BotLevelSchema), required=True)
    nearest = ma.fields.String(allow_none=True, required=True, metadata={
        "description": "with `?mu=`: the ladder's level whose skill is nearest"})


class BotQuerySchema(ma.Schema):
    """A player's skill, for the level nearest it."""

    mu = ma.fields.Float(validate=validate.Range(min=-100, max=200), metadata={
        "description": "a player's `mu` in the ladder's variant (as `GET /v1/players/{id}` "
        "shows it; a new player's is 25)"})
