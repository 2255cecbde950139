"""Schemas of a table's chat: a line, what is said, reading the lines, the phrases, a
front end's chat settings."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import validate

from ..web.fields import JsonBoolean, JsonInteger, UTCDateTime
from .enums import ChatMode


class ChatLineSchema(ma.Schema):
    """A line said at a match's table."""

    id = JsonInteger(required=True, metadata={"description": "the line's number: send it "
                                             "as `after` to read what follows"})
    seat = ma.fields.Integer(required=True, allow_none=True, metadata={
        "description": "the speaker's seat; null for a player watching"})
    player_id = ma.fields.String(required=True, allow_none=True)
    name = ma.fields.String(required=True)
    phrase = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "a phrase's id (GET /v1/chat/phrases has its texts); null for text"})
    text = ma.fields.String(required=True, allow_none=True, metadata={
        "description": "the text as filtered (a word of the filter masked with *)"})
    filtered = JsonBoolean(required=True, metadata={
        "description": "a word of the text was masked"})
    at = UTCDateTime(required=True)


class SayChatSchema(ma.Schema):
    """A phrase (its id) or a text, not both."""

    phrase = ma.fields.String(validate=validate.Length(min=1, max=32))
    text = ma.fields.String(validate=validate.Length(min=1, max=200), metadata={
        "description": "where the front end allows text: at most 200 characters"})

    @ma.validates_schema
    def _one(self, data: dict[str, Any], **_kwargs: Any) -> None:
        if ("phrase" in data) == ("text" in data):
            raise ma.ValidationError("send a phrase or a text, not both", "phrase")
        if "text" in data and not data["text"].strip():
            raise ma.ValidationError("say something", "text")


class ChatQuerySchema(ma.Schema):
    """Reading a match's chat: after a line, waiting for one."""

    after = ma.fields.Integer(load_default=0, validate=validate.Range(min=0, max=2**62),
                              metadata={"description": "only lines after this one (the "
                                        "last page's `after`)"})
    limit = ma.fields.Integer(load_default=50, validate=validate.Range(min=1, max=100))
    wait = ma.fields.Float(load_default=0.0, validate=validate.Range(min=0, max=3600),
                           metadata={"description": "with none to show: wait up to this "
                                     "many seconds (capped by the server, 30 by default)"})


class ChatPageSchema(ma.Schema):
    """Lines of a match's chat, oldest first."""

    lines = ma.fields.List(ma.fields.Nested(ChatLineSchema), required=True)
    after = JsonInteger(required=True, metadata={"description": "send as `after` next"})


class PhraseSchema(ma.Schema):
    """A fixed phrase."""

    id = ma.fields.String(required=True)
    en = ma.fields.String(required=True)
    ar = ma.fields.String(required=True)


class PhrasesSchema(ma.Schema):
    """The phrases a table may say."""

    phrases = ma.fields.List(ma.fields.Nested(PhraseSchema), required=True)


class ChatSettingsSchema(ma.Schema):
    """A front end's table chat."""

    mode = ma.fields.String(
        required=True, validate=validate.OneOf([str(m) for m in ChatMode]), metadata={
            "description": "off; phrases (the fixed list, the default); text (phrases and "
            "at most 200 characters, filtered)"})
    spectators = JsonBoolean(load_default=False, metadata={
        "description": "players watching (with their player token) may read and chat"})
    words = ma.fields.List(ma.fields.String(validate=validate.Length(min=1, max=40)),
                           load_default=list, validate=validate.Length(max=500), metadata={
        "description": "words the filter masks beside its own (Arabic and Latin)"})
