"""The matches' routes of a seat's plays: a move (and the public move log at the same
address), a resignation, a win claimed, a hint."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, g, request
from flask.views import MethodView

from ..errors import MissingToken
from ..players.requests import credential
from ..tenants.limits import budget
from ..tenants.requests import tenant
from ..web.problems import problem_doc
from ..web.settings import current
from . import endings, moving, records
from .headers import if_match_version
from .records import MoveLog
from .request_schemas import HintQuerySchema, LogQuerySchema, MoveRequestSchema
from .results import MoveResult
from .routes import (
    BEARER,
    OPTIONAL_BEARER,
    Headers,
    blp,
    body_fingerprint,
    etag,
    idempotency_key,
    idempotency_key_doc,
    if_none_match,
    not_modified,
)
from .schemas import HintSchema, MoveLogSchema, MoveResponseSchema


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
