"""Schemas of the console's sign-in and of a front end's settings."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import validate

from ..web.fields import JsonBoolean, JsonInteger, UTCDateTime
from .economy import share_points
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


def _share(text: str) -> None:
    try:
        share_points(text)
    except (ArithmeticError, ValueError) as error:
        raise ma.ValidationError("a decimal string from \"0\" to \"0.5\", at most four "
                                 "decimal places (\"0.05\": 5%)") from error


class RakeSchema(ma.Schema):
    """The house's share of a staked table's pot: min(floor(pot x share), cap)."""

    share = ma.fields.String(required=True, validate=_share, metadata={
        "description": "a decimal string, 0 to 0.5 (\"0.05\": 5%), at most four places",
        "example": "0.05"})
    cap = JsonInteger(required=True, allow_none=True, validate=validate.Range(min=0),
                      metadata={"description": "the most one pot's rake may be (null: none)"})


CODE = r"[A-Z][A-Z0-9_]{0,15}"


class FairPlaySettingsSchema(ma.Schema):
    """Fair play's settings (docs: Fair play); those left out keep their defaults."""

    enabled = JsonBoolean(metadata={"description": "grade rated matches and flag (default "
                                    "true)"})
    pools = ma.fields.List(ma.fields.String(validate=validate.Length(min=1, max=64)),
                           allow_none=True, validate=validate.Length(max=100), metadata={
        "description": "the pools (variants) graded; null or absent: every one"})
    window_days = JsonInteger(validate=validate.Range(min=1, max=3650), metadata={
        "description": "how far back a picture looks (default 90)"})
    z = ma.fields.Float(validate=validate.Range(min=-1000, max=1000), metadata={
        "description": "a player's z-score (agreement and capped loss against players of "
        "similar rating) at or above which they are flagged (default 2.7)"})
    min_plays = JsonInteger(validate=validate.Range(min=0, max=100_000), metadata={
        "description": "plays that mattered before a player is flagged (default 100)"})
    band = ma.fields.Float(validate=validate.Range(min=1, max=10_000), metadata={
        "description": "a cohort: players within this many rating points (default 100)"})
    cohort = JsonInteger(validate=validate.Range(min=1, max=10_000), metadata={
        "description": "or, where fewer, this many nearest by rating (default 30)"})
    lift = ma.fields.Float(validate=validate.Range(min=0, max=10), metadata={
        "description": "the cohort centred this many of the player's rating's standard "
        "deviations above their rating (default 0.25)"})
    meetings = JsonInteger(validate=validate.Range(min=1, max=100_000), metadata={
        "description": "meetings before a pair is judged (default 5)"})
    meet_p = ma.fields.Float(validate=validate.Range(min=0, max=1), metadata={
        "description": "how unlikely under random pairing (default 1e-6)"})
    one_sided = ma.fields.Float(validate=validate.Range(min=0.5, max=1), metadata={
        "description": "the winner's share of the decided meetings (default 0.75)"})
    drop_z = ma.fields.Float(validate=validate.Range(min=-1000, max=1000), metadata={
        "description": "how much worse the loser plays in them than elsewhere, a "
        "z-score (default 2)"})


class SettingsBodySchema(ma.Schema):
    """Settings to change: those left out keep their values."""

    rake = ma.fields.Nested(RakeSchema)
    starting_grant = ma.fields.Dict(
        keys=ma.fields.String(validate=validate.Regexp(CODE + r"\Z")),
        values=JsonInteger(validate=validate.Range(min=0, max=10**15)),
        validate=validate.Length(max=16), metadata={
            "description": "what a new player is paid once, by currency code (each named "
            "first with PUT /v1/currencies/{code})", "example": {"COINS": 500}})
    fair_play = ma.fields.Nested(FairPlaySettingsSchema, metadata={
        "description": "fair play: on or off, its pools and thresholds (replaced whole)"})


class SettingsSchema(ma.Schema):
    """A front end's settings: its economy (the rake, the starting grant) and fair play."""

    rake = ma.fields.Nested(RakeSchema, required=True)
    starting_grant = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Integer(),
                                    required=True)
    fair_play = ma.fields.Dict(required=True)
    updated_at = UTCDateTime(required=True, allow_none=True, metadata={
        "description": "last changed (null: never: every default)"})
