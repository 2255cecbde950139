"""Schemas of the health checks."""

from __future__ import annotations

import marshmallow as ma


class HealthSchema(ma.Schema):
    """A health answer."""

    status = ma.fields.String(required=True)
