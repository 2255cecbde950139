"""``/v1/matches``: create, view (ETag, long poll), moves, resign, hint, history."""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Iterator
from typing import Any

from flask import Response, current_app, g, json, request, url_for
from flask.views import MethodView

from ..errors import MatchNotFound, MissingToken
from ..players.requests import credential, seat_for, stream_heartbeat, stream_still_valid
from ..players.service import Credential, PlayerProof
from ..tenants.limits import budget
from ..tenants.requests import (
    actor,
    bearer_token,
    seat_token_match,
    sender,
    server_key_only,
    speak_for_seat,
    tenant,
    waiter,
)
from ..web.parser import Blueprint
from ..web.problems import Problem, problem_doc
from ..web.settings import current
from ..web.streams import last_event_id, sse_response
from . import chat, conditions, creating, endings, moving, polls, reading, records, stand_ins
from .chat import ChatRules
from .creating import CreatedMatch
from .enums import ChatMode
from .errors import NotAtTable
from .headers import etag_for, if_match_version, seen
from .history import HistoryQuery
from .phrases import PHRASES
from .records import MoveLog
from .results import HistoryPage, MatchView, MoveResult, Unchanged
from .rows import ChatLineRow
from .schemas import (
    MATCH_EVENT,
    ChatLineSchema,
    ChatPageSchema,
    ChatQuerySchema,
    ChatSettingsSchema,
    CreatedMatchSchema,
    CreateMatchSchema,
    HintQuerySchema,
    HintSchema,
    HistoryPageSchema,
    HistoryQuerySchema,
    LoggedMoveSchema,
    LogQuerySchema,
    MatchStateSchema,
    MoveLogSchema,
    MoveRequestSchema,
    MoveResponseSchema,
    PhrasesSchema,
    PlayerMatchesQuerySchema,
    SayChatSchema,
    WaitQuerySchema,
)
from .seats import PUBLIC, SERVER, PlayerSpec, Viewer

blp = Blueprint("matches", __name__, url_prefix="/v1/matches", description="Matches")
_MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


@blp.url_value_preprocessor
def known_id(_endpoint: str | None, values: dict[str, Any] | None) -> None:
    """An id that no match could have (a NUL byte, odd characters, too long) is not found,
    without a query."""
    match_id = (values or {}).get("match_id")
    if match_id is not None and not _MATCH_ID.fullmatch(match_id):
        raise MatchNotFound(f"no match with id {match_id[:64]!r}")

def resolve_seat_token() -> None:
    """Before every /v1 request, after its key and player token: a seat token sent alone
    to a match's route speaks for that match's front end when it holds one of its seats
    (a browser key's rights), as a player token alone speaks for its own."""
    if "caller" not in g or g.caller is not None:
        return
    match_id = seat_token_match()
    if match_id is None:
        return
    token = bearer_token()
    assert token is not None
    speak_for_seat(polls.seat_tenant(match_id, token) if _MATCH_ID.fullmatch(match_id)
                   else None)


# a seat token, with or without the tenant's key (see the global security)
BEARER = [{"seatToken": []}, {"apiKey": [], "seatToken": []}]
OPTIONAL_BEARER = [{}, {"apiKey": []}, *BEARER]
Headers = dict[str, str]


def _vouched(spec: PlayerSpec, proof: Credential | None) -> PlayerSpec:
    """A seat as requested, its ``player_id`` proven (or refused) by the request."""
    if spec.player_id is None:
        return spec
    player_id, name, vouched = seat_for(spec.player_id, spec.name, proof)
    return dataclasses.replace(spec, player_id=player_id, name=name, vouched=vouched)


def idempotency_key_doc(description: str) -> dict[str, Any]:
    """The Idempotency-Key header parameter of a create or a move."""
    return {"in": "header", "name": "Idempotency-Key", "description": description,
            "schema": {"type": "string", "maxLength": 255}}


def idempotency_key() -> str | None:
    """The request's Idempotency-Key (None: not sent); 422 unless 1 to 255 printable
    characters."""
    key = request.headers.get("Idempotency-Key")
    if key is not None and not (0 < len(key) <= 255 and key.isprintable()):
        raise Problem(422, "validation_error",
                      "Idempotency-Key must be 1 to 255 printable characters",
                      field="Idempotency-Key", message="1 to 255 printable characters")
    return key


def body_fingerprint() -> str:
    """The fingerprint of the request's JSON body as sent, telling a keyed retry from
    another request."""
    raw = request.get_json(silent=True)
    return conditions.fingerprint(raw if isinstance(raw, dict) else {})


def if_none_match(then: str) -> dict[str, Any]:
    """The If-None-Match header parameter of a read that answers 304 (``then``: when)."""
    return {"in": "header", "name": "If-None-Match", "schema": {"type": "string"},
            "description": f"an ETag from an earlier response: 304 {then}"}


def not_modified(etag_is: str) -> dict[str, Any]:
    """The 304 answer of a read, with the ETag it carries (``etag_is``: what it names)."""
    return {"description": "Not modified (If-None-Match)", "headers": {"ETag": {
        "description": etag_is, "schema": {"type": "string"}}}}


def etag(view: MatchView) -> Headers:
    return {"ETag": etag_for(view.version, view.view.seat)}


@blp.route("")
class Matches(MethodView):
    """Create matches and list the history."""

    @budget("creates")
    @blp.arguments(CreateMatchSchema)
    @blp.response(201, CreatedMatchSchema, headers={"Location": {
        "description": "URL of the match", "schema": {"type": "string"}}})
    @blp.doc(parameters=[idempotency_key_doc(
        "a retry with the same key and body (from the same player token, API key or "
        "browser visitor) returns the same match and seat tokens; keys are kept "
        "BASRA_IDEMPOTENCY_HOURS (24)")])
    @blp.doc(operationId="createMatch")
    def post(self, body: dict[str, Any]) -> tuple[CreatedMatch, int, Headers]:
        """Create a match; the seat tokens are in this response (and a keyed retry's)
        only. A `player_id` in a seat takes that player's token (`Authorization: Bearer`)
        or a server key. `state` is the seat's view when a player token's player is
        seated, else a spectator's (a server key seating others)."""
        proof = credential()
        specs = [_vouched(PlayerSpec(**p), proof) for p in body["players"]]
        clock = body.get("clock")
        player = proof.player_id if isinstance(proof, PlayerProof) else None
        key = idempotency_key()
        created = creating.create_match(
            tenant(), body["variant"], body["rules"], specs, body.get("decks"),
            clock=(clock["move_seconds"], clock["timeout"]) if clock else None,
            rated=body["rated"], viewer=player, stand_in=body["stand_in"],
            spectator_delay=body.get("spectator_delay"),
            keyed=None if key is None else creating.CreateKey(key, sender(), body_fingerprint()),
            settings=current(),
        )
        location = url_for("matches.MatchById", match_id=created.id)
        return created, 201, {"Location": location, **etag(created.state)}

    @budget("reads")
    @blp.arguments(HistoryQuerySchema, location="query")
    @blp.response(200, HistoryPageSchema, headers={"Link": {
        "description": "rel=next URL of the following page", "schema": {"type": "string"}}})
    @blp.doc(operationId="listMatches")
    def get(self, query: dict[str, Any]) -> tuple[HistoryPage, int, Headers]:
        """Match history, newest first; keyset pagination with `next` and a Link header."""
        page = records.match_history(HistoryQuery(tenant(), **query), viewer(),
                                     settings=current())
        return page, 200, _next_link("matches.Matches", page)


def viewer() -> Viewer:
    """Who the request shows matches to: the player a player token proves (whatever key
    came with it: the answer is theirs), else the front end's server (its server key),
    else anyone (a browser key)."""
    proof = credential()
    if isinstance(proof, PlayerProof):
        return Viewer(player_id=proof.player_id)
    return SERVER if g.caller is not None and g.caller.server else PUBLIC


def _next_link(endpoint: str, page: HistoryPage, **values: str) -> Headers:
    """The Link header of a page's next page (none on the last)."""
    if not page.next:
        return {}
    args = {k: v for k, v in request.args.items() if k != "cursor"}
    return {"Link": f'<{url_for(endpoint, **values, **args, cursor=page.next)}>; rel="next"'}


@blp.route("/<string:match_id>")
class MatchById(MethodView):
    """One match, as the token's seat or a spectator sees it."""

    @budget("reads")
    @blp.arguments(WaitQuerySchema, location="query")
    @blp.response(200, MatchStateSchema, headers={"ETag": {
        "description": "the version and viewer", "schema": {"type": "string"}}})
    @blp.alt_response(304, **not_modified("the version and viewer"))
    @blp.doc(security=OPTIONAL_BEARER,
             parameters=[if_none_match("while the match is unchanged")])
    @blp.doc(operationId="getMatch")
    def get(
        self, query: dict[str, Any], match_id: str
    ) -> Response | tuple[MatchView, int, Headers]:
        """The match; `If-None-Match` gives 304, and `?wait=S` long-polls for a change."""
        result = reading.read_match(match_id, tenant(), credential(), seen(), query["wait"],
                                    waiter(), viewer(), settings=current())
        if isinstance(result, Unchanged):
            response = current_app.response_class(status=304)
            response.headers["ETag"] = etag_for(result.version, result.seat)
            return response
        return result, 200, etag(result)


@blp.route("/<string:match_id>/moves")
class Moves(MethodView):
    """Play cards; read the public move log."""

    @budget("moves")
    @blp.arguments(MoveRequestSchema)
    @blp.response(201, MoveResponseSchema)
    @blp.alt_response(409, **problem_doc("not your turn, card not in hand, illegal "
                                         "capture, the seat's time ran out, or match "
                                         "finished"))
    @blp.alt_response(412, **problem_doc("If-Match names an older version"))
    @blp.doc(security=BEARER, parameters=[
        idempotency_key_doc("a retry with the same key and body returns the first response"),
        {"in": "header", "name": "If-Match", "schema": {"type": "string"},
         "description": "the ETag (or version) the move was decided on"},
    ])
    @blp.doc(operationId="playMove")
    def post(self, body: dict[str, Any], match_id: str) -> tuple[MoveResult, int, Headers]:
        """Play a card for the token's seat; bot seats reply in the same request."""
        key = idempotency_key()
        # only a keyed move is ever compared with another request
        fingerprint = "" if key is None else body_fingerprint()
        capture = body.get("capture")
        proof = credential()
        if not proof:  # who asks comes before what their If-Match says: 401, not 412
            raise MissingToken("send the seat token as 'Authorization: Bearer <token>'")
        result = moving.play_move(match_id, tenant(), moving.MoveRequest(
            proof, body["card"], None if capture is None else tuple(capture),
            if_match_version(), key, fingerprint), settings=current())
        return result, 201, etag(result.state)

    @budget("reads")
    @blp.arguments(LogQuerySchema, location="query")
    @blp.response(200, MoveLogSchema, headers={"ETag": {
        "description": "the match version", "schema": {"type": "string"}}})
    @blp.alt_response(304, **not_modified("the match version"))
    @blp.doc(security=OPTIONAL_BEARER,
             parameters=[if_none_match("while no move was made since")])
    @blp.doc(operationId="listMoves")
    def get(self, query: dict[str, Any], match_id: str) -> Response | tuple[MoveLog, int, Headers]:
        """The public move log (entries after `after`); reveals the seed (or explicit
        decks) once finished. `If-None-Match` with the last ETag gives 304. While a match
        with a spectator delay goes on, its last plays are left out (`behind`: the delay;
        `version`: the last entry shown) unless a seat's token or a server key asks; a
        sealed table's log is empty at version 0 until its round ends."""
        log = records.move_log(match_id, tenant(), query["after"], credential(),
                               everything=g.caller is not None and g.caller.server)
        etag = f'"{log.version}-log-{log.behind}"' if log.behind else f'"{log.version}-log"'
        if etag in {t.strip() for t in request.headers.get("If-None-Match", "").split(",")}:
            response = current_app.response_class(status=304)
            response.headers["ETag"] = etag
            return response
        return log, 200, {"ETag": etag}


@blp.route("/<string:match_id>/resign")
class Resign(MethodView):
    """Concede a match."""

    @budget("moves")
    @blp.response(200, MoveResponseSchema)
    @blp.alt_response(409, **problem_doc("match finished"))
    @blp.doc(security=BEARER)
    @blp.doc(operationId="resignMatch")
    def post(self, match_id: str) -> tuple[MoveResult, int, Headers]:
        """The token's seat (and its team) resigns; the other team wins. The same envelope
        as a move, with `move` null."""
        result = endings.resign_match(match_id, tenant(), credential(), if_match_version())
        return result, 200, etag(result.state)


@blp.route("/<string:match_id>/claim")
class Claim(MethodView):
    """Claim the win from a seat that left."""

    @budget("moves")
    @blp.response(200, MoveResponseSchema)
    @blp.alt_response(409, **problem_doc("`claim_too_early`: the seat to play has not been "
                                         "silent long enough (the detail says how long "
                                         "more), or it is your team's turn"))
    @blp.doc(security=BEARER)
    @blp.doc(operationId="claimWin")
    def post(self, match_id: str) -> tuple[MoveResult, int, Headers]:
        """The token's seat claims the win: the seat to play (an opponent) has made no
        move for `BASRA_CLAIM_AFTER_SECONDS` (120). Its team forfeits (`end_reason`
        `claimed`), rated as a win. The same envelope as a move, with `move` null."""
        result = endings.claim_win(match_id, tenant(), credential(), if_match_version(),
                                   settings=current())
        return result, 200, etag(result.state)


@blp.route("/<string:match_id>/seats/<int:seat>/drop")
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


@blp.route("/<string:match_id>/back")
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


@blp.route("/<string:match_id>/hint")
class Hint(MethodView):
    """What a bot would play."""

    @budget("reads")
    @budget("expensive", when=lambda: request.args.get("level") in moving.SEARCHING_LEVELS)
    @blp.arguments(HintQuerySchema, location="query")
    @blp.response(200, HintSchema)
    @blp.alt_response(409, **problem_doc("not your turn, or match finished"))
    @blp.doc(security=BEARER)
    @blp.doc(operationId="getHint")
    def get(self, query: dict[str, Any], match_id: str) -> dict[str, Any]:
        """The move the chosen bot level would play for the token's seat now."""
        move = moving.hint(match_id, tenant(), credential(), query["level"])
        return {"level": query["level"], "card": move.card, "capture": move.capture or ()}


EVENT_SCHEMA = MatchStateSchema()
MOVES_SCHEMA = LoggedMoveSchema(many=True)


@blp.route("/<string:match_id>/events")
class Events(MethodView):
    """Follow a match as it happens."""

    @budget("reads")
    @blp.response(200, MATCH_EVENT, content_type="text/event-stream",
                  description="text/event-stream: a `state` event per change, a `chat` "
                  "event per line said at the table")
    @blp.doc(security=OPTIONAL_BEARER, parameters=[
        {"in": "header", "name": "Last-Event-ID", "schema": {"type": "string"},
         "description": "the id (version) of the last event received: resume after it"},
    ])
    @blp.doc(operationId="streamMatchEvents")
    def get(self, match_id: str) -> Response:
        """Server-Sent Events of the caller's view: one `state` event on connect (unless
        `Last-Event-ID` is current), then one per change, each with `id: <version>` and
        in `moves` the log entries since the previous one (after `Last-Event-ID` on a
        resumed connection; none on a new one's first), so every play can be animated
        though several changes land between two events;
        to the seats (and, where the front end lets them chat, players watching) a `chat`
        event per line said from then on, without an id; a comment every 15 s when
        nothing happens; the stream ends after the match does, or once its API key is
        revoked. A spectator's delayed view has an event only when what it shows changes
        (`id`: the version it shows); a sealed table's, none until its round ends."""
        token = credential()
        events = reading.follow_match(match_id, tenant(), token, last_event_id(),
                                      stream_heartbeat(), waiter(),
                                      chat.reader(match_id, tenant(), token, g.caller.server),
                                      viewer(), settings=current())
        first = next(events)  # errors (unknown match, bad token) answer as problems

        def chunks() -> Iterator[str]:
            for event in itertools.chain([first], events):
                if event.chat:
                    yield "".join(f"event: chat\ndata: {_json(chat.event(line))}\n\n"
                                  for line in event.chat)
                elif event.view is None:
                    yield ": heartbeat\n\n"
                else:
                    data = _json({**EVENT_SCHEMA.dump(event.view),
                                  "moves": MOVES_SCHEMA.dump(event.moves)})
                    yield f"id: {event.view.version}\nevent: state\ndata: {data}\n\n"

        return sse_response(chunks(), stream_still_valid)


def _json(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))


@blp.route("/<string:match_id>/chat")
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


chat_blp = Blueprint("chat", __name__, url_prefix="/v1/chat",
                     description="Table chat: the phrases, a front end's settings")


@chat_blp.route("/phrases")
class Phrases(MethodView):
    """The fixed phrases."""

    @budget("reads")
    @chat_blp.response(200, PhrasesSchema)
    @chat_blp.doc(operationId="listPhrases")
    def get(self) -> dict[str, Any]:
        """The phrases a table may say, each with its English and Arabic text."""
        return {"phrases": PHRASES}


@chat_blp.route("/settings")
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


player_matches = Blueprint("player_matches", __name__, url_prefix="/v1/players",
                           description="A player's matches")


@player_matches.route("/<string:player_id>/matches")
class PlayerMatches(MethodView):
    """The matches of one player."""

    @budget("reads")
    @player_matches.arguments(PlayerMatchesQuerySchema, location="query")
    @player_matches.response(200, HistoryPageSchema, headers={"Link": {
        "description": "rel=next URL of the following page", "schema": {"type": "string"}}})
    @player_matches.alt_response(404, **problem_doc("no such player at this front end"))
    @player_matches.doc(operationId="listPlayerMatches")
    def get(self, query: dict[str, Any], player_id: str) -> tuple[HistoryPage, int, Headers]:
        """The matches in which the player held a seat as a vouched player, newest first;
        `pool`, `rated` and `status` filter; keyset pages with `next` and a Link header."""
        page = records.match_history(HistoryQuery(
            tenant(), player_id=player_id, variant=query.get("pool"), rated=query.get("rated"),
            status=query.get("status"), cursor=query.get("cursor"), limit=query["limit"]),
            viewer(), settings=current())
        return page, 200, _next_link("player_matches.PlayerMatches", page, player_id=player_id)
