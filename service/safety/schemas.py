"""Bodies of trust and safety's routes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import marshmallow as ma
from marshmallow import validate

from ..matches import render
from ..matches.chat_schemas import ChatLineSchema
from ..matches.schemas import MoveLogSchema
from ..players.schemas import PLAYER_ID_FIELD
from ..web.fields import JsonBoolean, UTCDateTime
from .enums import ReportAction, ReportReason, ReportStatus

REASON = {"validate": validate.Length(min=1, max=500)}


LONGEST = timedelta(days=36_500)
"""A suspension's end at most this far ahead (further: for good, ``null``)."""


def _in_future(value: datetime | None) -> None:
    if value is None:
        return
    now = datetime.now(UTC)
    if value <= now:
        raise ma.ValidationError("must be in the future")
    if value > now + LONGEST:
        raise ma.ValidationError("at most 100 years ahead: send null for good")


class SuspendSchema(ma.Schema):
    """A suspension to set."""

    until = UTCDateTime(load_default=None, allow_none=True, validate=_in_future, metadata={
        "description": "when it ends; null (or absent): for good"})
    reason = ma.fields.String(required=True, **REASON, metadata={
        "description": "why, for the audit log and the player's export"})
    forfeit = JsonBoolean(load_default=False, metadata={
        "description": "lose the player's active matches now (else they go on under the "
        "turn clock)"})


class SuspensionSchema(ma.Schema):
    """A player's suspension, and what it released at once."""

    player_id = ma.fields.String(required=True)
    since = UTCDateTime(required=True)
    until = UTCDateTime(required=True, allow_none=True, metadata={"description": "null: "
                        "for good"})
    reason = ma.fields.String(required=True)
    tables_left = ma.fields.List(ma.fields.String(), required=True, metadata={
        "description": "the waiting tables the player was taken from"})
    tournaments_left = ma.fields.List(ma.fields.String(), required=True, metadata={
        "description": "the tournaments the player was withdrawn from"})
    matches_forfeited = ma.fields.List(ma.fields.String(), required=True)


class VoidSchema(ma.Schema):
    """Why a result is voided."""

    reason = ma.fields.String(required=True, **REASON)


class AuditQuerySchema(ma.Schema):
    """A page of the audit log."""

    cursor = ma.fields.String(validate=validate.Length(max=200))
    limit = ma.fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))
    action = ma.fields.String(validate=validate.Length(max=32), metadata={
        "description": "only this action, e.g. player.suspended"})
    subject = ma.fields.String(validate=validate.Length(max=200), metadata={
        "description": "only what was done to this, e.g. player:ali or match:<id>"})


class AuditEntrySchema(ma.Schema):
    """One action: who (`key:<prefix>`, `player:<id>`, `cli`), what, to what, when."""

    id = ma.fields.Integer(required=True)
    at = UTCDateTime(required=True)
    actor = ma.fields.String(required=True)
    action = ma.fields.String(required=True)
    subject = ma.fields.String(required=True)
    details = ma.fields.Dict(required=True)


class AuditPageSchema(ma.Schema):
    """The audit log, newest first."""

    entries = ma.fields.List(ma.fields.Nested(AuditEntrySchema), required=True)
    next = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "the next page's cursor; null on the last page"})


class NewReportSchema(ma.Schema):
    """A report of another seat of a match the player sat in."""

    match_id = ma.fields.String(required=True, validate=validate.Length(min=1, max=36))
    player_id = ma.fields.String(required=True, **PLAYER_ID_FIELD)
    reason = ma.fields.String(required=True, validate=validate.OneOf(
        [r.value for r in ReportReason if r != ReportReason.FAIR_PLAY]))
    text = ma.fields.String(validate=validate.Length(min=1, max=1000), metadata={
        "description": "what happened, in the player's words"})


class ResolveSchema(ma.Schema):
    """What the front end does about a report."""

    action = ma.fields.String(required=True, validate=validate.OneOf(
        [a.value for a in ReportAction]), metadata={
        "description": "dismiss; suspend the reported player; void the match"})
    note = ma.fields.String(validate=validate.Length(min=1, max=500))
    until = UTCDateTime(load_default=None, allow_none=True, validate=_in_future, metadata={
        "description": "suspend: when it ends (null: for good)"})
    forfeit = JsonBoolean(load_default=False, metadata={
        "description": "suspend: lose the player's active matches now"})


class DealSchema(ma.Schema):
    """A deal as dealt: each seat's hand, and the floor."""

    round = ma.fields.Integer(required=True)
    hands = ma.fields.List(ma.fields.List(ma.fields.String()), required=True)
    floor = ma.fields.List(ma.fields.String(), required=True)


class MatchRecordSchema(ma.Schema):
    """A match's whole record."""

    state = ma.fields.Method("_state", required=True, metadata={
        "type": "object", "description": "the match as a spectator sees it (MatchState)"})
    log = ma.fields.Nested(MoveLogSchema, required=True)
    deals = ma.fields.List(ma.fields.Nested(DealSchema), required=True, allow_none=True,
                           metadata={"description": "every deal's hands, once it is over"})
    chat = ma.fields.List(ma.fields.Nested(ChatLineSchema), required=True, metadata={
        "description": "every line said at the table, as said (blocks aside)"})

    def _state(self, record: Any) -> dict[str, Any]:
        return render.match_state(record.view)


class EvidenceSchema(ma.Schema):
    """What a report is judged on."""

    match = ma.fields.Nested(MatchRecordSchema, required=True)
    together = ma.fields.Method("_together", required=True, metadata={
        "type": "array", "items": {"type": "object"},
        "description": "other recent matches the two players sat in together "
        "(MatchSummary)"})
    reporter_recent = ma.fields.Method("_reporter", required=True, metadata={
        "type": "array", "items": {"type": "object"},
        "description": "the reporter's other recent matches (MatchSummary)"})
    player_recent = ma.fields.Method("_player", required=True, metadata={
        "type": "array", "items": {"type": "object"},
        "description": "the reported player's other recent matches (MatchSummary)"})

    def _together(self, evidence: Any) -> list[dict[str, Any]]:
        return [render.summary(m) for m in evidence.together]

    def _reporter(self, evidence: Any) -> list[dict[str, Any]]:
        return [render.summary(m) for m in evidence.reporter_recent]

    def _player(self, evidence: Any) -> list[dict[str, Any]]:
        return [render.summary(m) for m in evidence.player_recent]


class ReportSchema(ma.Schema):
    """A report."""

    id = ma.fields.String(required=True)
    match_id = ma.fields.String(required=True)
    reporter = ma.fields.String(required=True)
    player_id = ma.fields.String(required=True)
    reason = ma.fields.String(required=True)
    text = ma.fields.String(required=True, allow_none=True)
    status = ma.fields.String(required=True, validate=validate.OneOf(
        [s.value for s in ReportStatus]))
    created_at = UTCDateTime(required=True)
    resolved_at = UTCDateTime(required=True, allow_none=True)
    resolution = ma.fields.Dict(required=True, allow_none=True, metadata={
        "description": "{action, note, by} once resolved; a suspension adds until "
        "(null: for good) and forfeit"})
    details = ma.fields.Dict(required=True, allow_none=True, metadata={
        "description": "a report the service filed (reporter `fair-play`, reason "
        "`fair_play`): its evidence (docs: Fair play); null otherwise"})


class ReportWithEvidenceSchema(ReportSchema):
    """A report with its evidence."""

    evidence = ma.fields.Nested(EvidenceSchema, required=True)


class ReportQuerySchema(ma.Schema):
    """A page of reports."""

    status = ma.fields.String(validate=validate.OneOf([s.value for s in ReportStatus]))
    player_id = ma.fields.String(**PLAYER_ID_FIELD)
    reporter = ma.fields.String(**PLAYER_ID_FIELD)
    cursor = ma.fields.String(validate=validate.Length(max=200))
    limit = ma.fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class ReportPageSchema(ma.Schema):
    """Reports, oldest first."""

    reports = ma.fields.List(ma.fields.Nested(ReportSchema), required=True)
    next = ma.fields.String(required=True, allow_none=True)


class ErasedSchema(ma.Schema):
    """A player erased."""

    player_id = ma.fields.String(required=True)
    matches = ma.fields.Integer(required=True, metadata={
        "description": "matches whose seat now shows a pseudonym"})
    released = ma.fields.Dict(required=True, metadata={
        "description": "tables_left, tournaments_left, matches_forfeited"})


class ExportSchema(ma.Schema):
    """Everything the service holds of a player."""

    class Meta:
        unknown = ma.INCLUDE

    player_id = ma.fields.String(required=True)
    name = ma.fields.String(required=True, allow_none=True)
    created_at = UTCDateTime(required=True)
    totals = ma.fields.Dict(required=True)
    ratings = ma.fields.List(ma.fields.Dict(), required=True)
    matches = ma.fields.List(ma.fields.Dict(), required=True)
    chat = ma.fields.List(ma.fields.Dict(), required=True, metadata={
        "description": "the lines they said at tables (match_id, seat, name, phrase, text, "
        "filtered, at), oldest first"})
    blocks = ma.fields.List(ma.fields.Dict(), required=True)
    friends = ma.fields.List(ma.fields.Dict(), required=True)
    challenges = ma.fields.List(ma.fields.Dict(), required=True, metadata={
        "description": "open ones, made and received"})
    reports_made = ma.fields.List(ma.fields.Dict(), required=True)
    tournaments = ma.fields.List(ma.fields.Dict(), required=True)
    suspension = ma.fields.Dict(required=True, allow_none=True)
    signed_out_at = UTCDateTime(required=True, allow_none=True)
    actions = ma.fields.List(ma.fields.Dict(), required=True, metadata={
        "description": "what the audit log says was done to the player"})
    wallet = ma.fields.List(ma.fields.Dict(), required=True, metadata={
        "description": "their balance (`debt`, `held`) in each currency"})
    ledger = ma.fields.List(ma.fields.Dict(), required=True, metadata={
        "description": "their transfers, newest first (at most 100,000)"})

