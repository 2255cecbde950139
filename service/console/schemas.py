"""Schemas of the console's own reads."""

from __future__ import annotations

import marshmallow as ma

from ..web.fields import UTCDateTime


class HourCountSchema(ma.Schema):
    """Matches started in one hour."""

    hour = UTCDateTime(required=True, metadata={"description": "the hour's start"})
    matches = ma.fields.Integer(required=True)


class OverviewSchema(ma.Schema):
    """A front end at a glance ("today": since midnight UTC). Each figure is counted up
    to 10,000: a front end with more sees 10,000 (the page shows "10,000+")."""

    at = UTCDateTime(required=True)
    matches_active = ma.fields.Integer(required=True)
    matches_waiting = ma.fields.Integer(required=True, metadata={
        "description": "tables waiting for players"})
    quick_play_waiting = ma.fields.Integer(required=True, metadata={
        "description": "of those, quick play's (its queue)"})
    matches_finished_today = ma.fields.Integer(required=True)
    players_online = ma.fields.Integer(required=True, metadata={
        "description": "with a player stream open or seated in an active match"})
    players_playing = ma.fields.Integer(required=True)
    reports_open = ma.fields.Integer(required=True)
    tournaments_running = ma.fields.Integer(required=True)
    webhook_backlog = ma.fields.Integer(required=True, metadata={
        "description": "messages not yet delivered"})
    webhook_failed_today = ma.fields.Integer(required=True, metadata={
        "description": "messages written today that ran out of tries"})
    started_by_hour = ma.fields.List(ma.fields.Nested(HourCountSchema), required=True, metadata={
        "description": "matches started in each of the last 12 hours, oldest first, this "
        "hour last"})
