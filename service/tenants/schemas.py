"""Schemas of the console's sign-in."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import validate

from ..storage.enums import StaffRole
from ..web.fields import UTCDateTime


class SignInSchema(ma.Schema):
    """A staff key, exchanged for a console session."""

    key = ma.fields.String(required=True, validate=validate.Length(max=64), metadata={
        "description": "the staff key (`bs_...`) that `basra keys create FRONT_END --role "
        "ROLE --name NAME` printed"})


class StaffSessionSchema(ma.Schema):
    """The signed-in staff member and their session."""

    name = ma.fields.String(required=True)
    role = ma.fields.String(required=True, validate=validate.OneOf([r.value for r in StaffRole]))
    front_end = ma.fields.String(required=True)
    csrf_token = ma.fields.String(required=True, metadata={
        "description": "send it as `X-CSRF-Token` with every change"})
    expires_at = UTCDateTime(required=True, metadata={
        "description": "the session ends then (sign in again)"})
