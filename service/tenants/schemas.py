"""Schemas of the console's sign-in."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import validate

from ..web.fields import UTCDateTime
from .enums import StaffRole


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


class KeySchema(ma.Schema):
    """A key of the front end, as listed: its first characters, never the key."""

    prefix = ma.fields.String(required=True)
    origins = ma.fields.List(ma.fields.String(), required=True, metadata={
        "description": "a browser key's origins; empty: a server key"})
    created_at = UTCDateTime(required=True)
    name = ma.fields.String(allow_none=True, metadata={"description": "a staff key's holder"})
    role = ma.fields.String(allow_none=True, metadata={"description": "a staff key's role"})


class KeysSchema(ma.Schema):
    """The front end's keys in use."""

    keys = ma.fields.List(ma.fields.Nested(KeySchema), required=True)
    staff = ma.fields.List(ma.fields.Nested(KeySchema), required=True)


class NewKeySchema(ma.Schema):
    """A new API key: a browser key for these origins, or without them a server key."""

    origins = ma.fields.List(
        ma.fields.String(validate=validate.Regexp(r"https?://[A-Za-z0-9.-]+(:\d{1,5})?\Z",
                                                  error="an origin: scheme://host[:port]")),
        load_default=list, validate=validate.Length(max=20))


class NewStaffKeySchema(ma.Schema):
    """A new staff key for one person."""

    name = ma.fields.String(required=True, validate=validate.Length(min=1, max=64))
    role = ma.fields.String(required=True, validate=validate.OneOf([r.value for r in StaffRole]))


class MadeKeySchema(ma.Schema):
    """A key just made: shown only in this answer."""

    key = ma.fields.String(required=True)
    prefix = ma.fields.String(required=True)


class RevokeSchema(ma.Schema):
    """Which key to revoke: its first characters as listed, or the whole key."""

    prefix = ma.fields.String(required=True, validate=validate.Length(min=7, max=64))


class RevokedSchema(ma.Schema):
    revoked = ma.fields.Integer(required=True)
