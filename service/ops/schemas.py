"""Schemas of the health checks."""

from __future__ import annotations

import marshmallow as ma


class HealthSchema(ma.Schema):
    """A health answer."""

    status = ma.fields.String(required=True)
    rate_limits = ma.fields.String(
        metadata={"description": "where rate limits are counted: `redis` (shared by every "
                  "instance), or `memory` (each process its own) while Redis does not "
                  "answer; absent without Redis"})
