"""The matches' routes of the table: a seat's player dropped and back, the table's chat,
the chat's phrases and a front end's chat settings."""

from __future__ import annotations

from typing import Any

from flask import g
from flask.views import MethodView

from ..players.requests import credential
from ..tenants.limits import budget
from ..tenants.requests import actor, server_key_only, tenant, waiter
from ..web.problems import problem_doc
from ..web.settings import current
from . import chat, stand_ins
from .chat import ChatRules
from .chat_schemas import (
    ChatLineSchema,
    ChatPageSchema,
    ChatQuerySchema,
    ChatSettingsSchema,
    PhrasesSchema,
    SayChatSchema,
)
from .enums import ChatMode
from .errors import NotAtTable
from .phrases import PHRASES
from .results import MatchView
from .routes import BEARER, OPTIONAL_BEARER, blp, chat_blp
from .rows import ChatLineRow
from .schemas import MatchStateSchema


class DropSeat(MethodView):
    """Say a seat's player dropped."""

    @server_key_only(blp)
    @budget("moves")
    @blp.response(200, MatchStateSchema)
    @blp.alt_response(404, **problem_doc("`match_not_found`"))
    @blp.alt_response(409, **problem_doc("`cannot_drop`: the match is not in play, or the "
                                         "seat is a bot's, open, or the last one its "
                                         "player still plays"))
    @blp.doc(operationId="dropSeat")
    def post(self, match_id: str, seat: int) -> MatchView:
        """The seat's player dropped (their connection was lost): the match's stand-in
        bot (`stand_in`) plays the seat's turns, each marked `stand_in` in the log,
        until the player comes back (`POST .../back` with the seat's token). Their
        result stays theirs. Again: no change. The spectator's view."""
        return stand_ins.drop_seat(match_id, tenant(), seat)


class Back(MethodView):
    """A dropped seat's player is back."""

    @budget("moves")
    @blp.response(200, MatchStateSchema)
    @blp.doc(security=BEARER)
    @blp.doc(operationId="comeBack")
    def post(self, match_id: str) -> MatchView:
        """The token's seat's player is back: the stand-in that kept the seat stops (a
        `back` entry in the log) and the player plays their turns again. Call it when
        the seat's view lists it in `dropped`. Not dropped: no change. The seat's view."""
        return stand_ins.come_back(match_id, tenant(), credential())


class MatchChat(MethodView):
    """The table's chat."""

    @budget("moves")
    @blp.arguments(SayChatSchema)
    @blp.response(201, ChatLineSchema)
    @blp.alt_response(401, **problem_doc("no bearer token"))
    @blp.alt_response(403, **problem_doc("`not_at_table`: neither seated nor (where "
                                         "allowed) watching; `invalid_token`"))
    @blp.alt_response(409, **problem_doc("`chat_off`, `chat_text_off`, `chat_closed` (the "
                                         "match ended over BASRA_CHAT_AFTER_END_SECONDS, "
                                         "60 by default, ago), `chat_full`"))
    @blp.alt_response(429, **problem_doc("`chat_too_fast`: the speaker's lines a minute "
                                         "are said"))
    @blp.doc(security=BEARER, operationId="sayChat")
    def post(self, body: dict[str, Any], match_id: str) -> ChatLineRow:
        """Say a phrase (`{"phrase": id}`) or, where the front end allows it, a text
        (`{"text": ...}`, filtered) at the table: a seat (its seat token or player
        token), or a player watching where the front end allows it."""
        return chat.say(match_id, tenant(), credential(), body.get("phrase"),
                        body.get("text"), settings=current())

    @budget("reads")
    @blp.arguments(ChatQuerySchema, location="query")
    @blp.response(200, ChatPageSchema)
    @blp.alt_response(403, **problem_doc("`not_at_table`: neither seated, nor watching "
                                         "where allowed, nor the server key"))
    @blp.doc(security=OPTIONAL_BEARER, operationId="readChat")
    def get(self, query: dict[str, Any], match_id: str) -> dict[str, Any]:
        """The lines after `after`, oldest first (none from players the reader blocked);
        with `wait`, a long poll for the next. For the seats, players watching where the
        front end lets them chat, and the server key (every line)."""
        found = chat.reader(match_id, tenant(), credential(), g.caller.server)
        if found is None:
            raise NotAtTable("only the seats (and, where allowed, players watching) read "
                             "this table's chat")
        lines, after = chat.lines(found, query["after"], query["limit"], query["wait"],
                                  waiter(), settings=current())
        return {"lines": lines, "after": after}


class Phrases(MethodView):
    """The fixed phrases."""

    @budget("reads")
    @chat_blp.response(200, PhrasesSchema)
    @chat_blp.doc(operationId="listPhrases")
    def get(self) -> dict[str, Any]:
        """The phrases a table may say, each with its English and Arabic text."""
        return {"phrases": PHRASES}


class ChatSettings(MethodView):
    """The front end's table chat."""

    @budget("reads")
    @chat_blp.response(200, ChatSettingsSchema)
    @chat_blp.doc(operationId="getChatSettings")
    def get(self) -> ChatRules:
        """What the front end's tables may say (`phrases`, seats only, until set)."""
        return chat.rules_of(tenant())

    @server_key_only(chat_blp)
    @budget("creates")
    @chat_blp.arguments(ChatSettingsSchema)
    @chat_blp.response(200, ChatSettingsSchema)
    @chat_blp.doc(operationId="setChatSettings")
    def put(self, body: dict[str, Any]) -> ChatRules:
        """Set the front end's table chat: `off`, `phrases` or `text`, whether players
        watching may chat, words for the filter to mask (recorded in the audit log)."""
        return chat.set_rules(tenant(), ChatRules(ChatMode(body["mode"]), body["spectators"],
                                                  tuple(body["words"])), actor())
