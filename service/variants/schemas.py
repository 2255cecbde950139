"""Schemas of the variants resource."""

from __future__ import annotations

import marshmallow as ma


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
