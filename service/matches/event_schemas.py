"""Schemas of a match stream's events (``text/event-stream``): a ``state`` event, a
``chat`` event, and the one-of the OpenAPI document shows for the stream."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import validate

from .chat_schemas import ChatLineSchema
from .schemas import LoggedMoveSchema, MatchStateSchema


class StreamStateSchema(MatchStateSchema):
    """A ``state`` event's data: the caller's view, and the log entries since the
    previous ``state`` event."""

    moves = ma.fields.List(ma.fields.Nested(LoggedMoveSchema), required=True, metadata={
        "description": "the log entries (plays, bots' replies, joins, leaves...) since the "
        "previous `state` event of this connection, or after `Last-Event-ID` on a resumed "
        "one; none on a new connection's first event. The view may be several changes "
        "past the previous one: these are every play between them, in order. A "
        "spectator's delayed view leaves out here what it leaves out (`behind`), and a "
        "later event carries them"})


class StateEventSchema(ma.Schema):
    """A ``state`` event of a match's stream (``text/event-stream``) as an SSE parser hands
    it over: its ``data`` line is a MatchState as JSON. A comment line (``: heartbeat``)
    comes when nothing happened for a while; parsers skip it."""

    event = ma.fields.String(required=True, validate=validate.OneOf(["state"]))
    id = ma.fields.String(required=True, metadata={
        "description": "the match's version: send it back as Last-Event-ID to resume"})
    data = ma.fields.Nested(StreamStateSchema, required=True, metadata={
        "contentMediaType": "application/json",
        "description": "the caller's view after the change, with the log entries since "
        "the previous event, as JSON text"})


class ChatEventSchema(ma.Schema):
    """A ``chat`` event of a match's stream: a line said at the table. It has no id (the
    version stays the resume point): read what you missed at ``GET .../chat``."""

    event = ma.fields.String(required=True, validate=validate.OneOf(["chat"]))
    data = ma.fields.Nested(ChatLineSchema, required=True, metadata={
        "contentMediaType": "application/json", "description": "the line, as JSON text"})


STREAM_EVENTS = {"state": StateEventSchema, "chat": ChatEventSchema}
# a match stream's event in the OpenAPI document: told apart by ``event``, so typed
# clients narrow on it; describe_stream_events registers the two schemas it names
MATCH_EVENT = {
    "oneOf": [{"$ref": f"#/components/schemas/{schema.__name__.removesuffix('Schema')}"}
              for schema in STREAM_EVENTS.values()],
    "discriminator": {"propertyName": "event", "mapping": {
        kind: f"#/components/schemas/{schema.__name__.removesuffix('Schema')}"
        for kind, schema in STREAM_EVENTS.items()}},
}


def describe_stream_events(spec: Any) -> None:
    """Register the schemas MATCH_EVENT refers to (a raw dict registers nothing)."""
    for schema in STREAM_EVENTS.values():
        name = schema.__name__.removesuffix("Schema")
        if name not in spec.components.schemas:
            spec.components.schema(name, schema=schema)
