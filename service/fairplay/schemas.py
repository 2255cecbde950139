"""What a player's fair-play picture looks like over the API."""

from __future__ import annotations

import marshmallow as ma

from ..web.fields import UTCDateTime


class PlayerPictureSchema(ma.Schema):
    """A player's signals over their recent graded matches, against their cohort."""

    player = ma.fields.String(required=True)
    rating = ma.fields.Float(required=True, metadata={"description": "display rating"})
    matches = ma.fields.Integer(required=True)
    plays = ma.fields.Integer(required=True, metadata={"description": "plays graded"})
    mattered = ma.fields.Integer(required=True, metadata={
        "description": "plays where the choice mattered (not forced, and the options did "
        "not all lose the same): the ones agreement and loss count"})
    agreement = ma.fields.Float(required=True, allow_none=True, metadata={
        "description": "share of those plays that were the expert's choice"})
    se = ma.fields.Float(required=True, allow_none=True, metadata={
        "description": "its standard error, from the number of plays"})
    loss = ma.fields.Float(required=True, allow_none=True, metadata={
        "description": "points lost a play that mattered, against the expert's choice"})
    time_cv = ma.fields.Float(required=True, allow_none=True, metadata={
        "description": "move-time regularity: think times' standard deviation over their "
        "mean, the median over their matches (shown, never flagged on alone)"})
    cohort = ma.fields.Integer(required=True, metadata={
        "description": "players of similar rating it is compared with"})
    cohort_agreement = ma.fields.Float(required=True, allow_none=True)
    cohort_spread = ma.fields.Float(required=True, allow_none=True)
    z = ma.fields.Float(required=True, allow_none=True, metadata={
        "description": "(agreement - cohort's median) / sqrt(cohort spread^2 + se^2)"})
    flagged = ma.fields.Boolean(required=True)


class PairPictureSchema(ma.Schema):
    """Two players who met often, and what moved between them."""

    winner = ma.fields.String(required=True)
    loser = ma.fields.String(required=True)
    meetings = ma.fields.Integer(required=True)
    expected = ma.fields.Float(required=True, metadata={
        "description": "meetings random pairing would give"})
    meet_p = ma.fields.Float(required=True, metadata={
        "description": "chance of meeting this often under random pairing"})
    wins = ma.fields.Integer(required=True)
    losses = ma.fields.Integer(required=True)
    points = ma.fields.Integer(required=True)
    coins = ma.fields.Integer(required=True)
    loser_loss_pair = ma.fields.Float(required=True, allow_none=True)
    loser_loss_elsewhere = ma.fields.Float(required=True, allow_none=True)
    drop_z = ma.fields.Float(required=True, allow_none=True)
    flagged = ma.fields.Boolean(required=True)
    matches = ma.fields.List(ma.fields.String(), required=True)


class PoolPictureSchema(ma.Schema):
    pool = ma.fields.String(required=True)
    picture = ma.fields.Nested(PlayerPictureSchema, required=True, allow_none=True)
    pairs = ma.fields.List(ma.fields.Nested(PairPictureSchema), required=True)


class FlagSchema(ma.Schema):
    kind = ma.fields.String(required=True)
    subject = ma.fields.String(required=True)
    report_id = ma.fields.String(required=True)
    flagged_at = UTCDateTime(required=True)


class FairPlaySchema(ma.Schema):
    """A player's fair-play picture: signals, never a verdict."""

    player_id = ma.fields.String(required=True)
    enabled = ma.fields.Boolean(required=True)
    pools = ma.fields.List(ma.fields.Nested(PoolPictureSchema), required=True)
    flags = ma.fields.List(ma.fields.Nested(FlagSchema), required=True)
