"""What a review looks like over the API."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import validate

from ..engine.bots import Grade, Reason
from ..web.fields import UTCDateTime
from .enums import ReviewStatus


class ReviewedMoveSchema(ma.Schema):
    """A move: a card and what it took."""

    card = ma.fields.String(required=True)
    capture = ma.fields.List(ma.fields.String(), required=True)


class PlayReviewSchema(ma.Schema):
    """One play judged against the expert's choice from the same information."""

    index = ma.fields.Integer(required=True, metadata={
        "description": "the play's place among the match's plays, from 0"})
    seat = ma.fields.Integer(required=True)
    round = ma.fields.Integer(required=True)
    card = ma.fields.String(required=True)
    capture = ma.fields.List(ma.fields.String(), required=True)
    best = ma.fields.Nested(ReviewedMoveSchema, required=True, metadata={
        "description": "the expert's choice"})
    points_lost = ma.fields.Float(required=True, metadata={
        "description": "points (the seat's team's, less the other's) the play was expected "
        "to lose against the expert's choice, over the expert's sampled deals"})
    grade = ma.fields.String(required=True, validate=validate.OneOf([g.value for g in Grade]),
                             metadata={"description": "forced (one legal move); best; good "
                                       "(under 1 point lost); inaccuracy (under 3); mistake "
                                       "(under 6); blunder"})
    played_by = ma.fields.String(required=True, validate=validate.OneOf(
        ["player", "bot", "stand_in", "clock"]), metadata={
        "description": "who made the play: the seat's player, a bot's seat, the stand-in "
        "that kept a dropped seat, or the clock (the seat's time ran out); the seats' "
        "summaries count their players' own plays only"})
    reasons = ma.fields.List(ma.fields.String(validate=validate.OneOf(
        [r.value for r in Reason])), required=True, metadata={
        "description": "codes a front end says in its own words: missed_basra, "
        "missed_capture, smaller_capture, left_basra, threw_sweeper"})


class SeatSummarySchema(ma.Schema):
    """A seat's plays added up."""

    seat = ma.fields.Integer(required=True)
    plays = ma.fields.Integer(required=True)
    points_lost = ma.fields.Float(required=True)
    grades = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Integer(),
                            required=True, metadata={"description": "plays by grade"})


class ReviewSchema(ma.Schema):
    """A finished match's review: pending until the worker made it (failed: it could
    not be made, time after time; no plays)."""

    match_id = ma.fields.String(required=True)
    status = ma.fields.String(required=True,
                              validate=validate.OneOf([s.value for s in ReviewStatus]))
    seat = ma.fields.Integer(required=True, allow_none=True, metadata={
        "description": "the token's seat, whose plays alone are shown (null: the server "
        "key, every play)"})
    asked_at = UTCDateTime(required=True)
    ready_at = UTCDateTime(required=True, allow_none=True)
    seats = ma.fields.List(ma.fields.Nested(SeatSummarySchema), required=True)
    plays = ma.fields.List(ma.fields.Nested(PlayReviewSchema), required=True)
