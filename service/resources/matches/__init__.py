"""``/v1/matches``: create, view (ETag, long poll), moves, resign, hint, history."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, request, url_for
from flask.views import MethodView
from flask_smorest import Blueprint

from ... import games
from ...problems import PROBLEM_JSON, ApiProblem, ProblemSchema, json_response
from ...store import HistoryQuery
from .schemas import (
    CreatedMatchSchema,
    CreateMatchSchema,
    HintQuerySchema,
    HintSchema,
    HistoryPageSchema,
    HistoryQuerySchema,
    MatchStateSchema,
    MoveLogSchema,
    MoveRequestSchema,
    MoveResponseSchema,
    WaitQuerySchema,
)

blp = Blueprint("matches", __name__, url_prefix="/v1/matches", description="Matches")

BEARER = [{"seatToken": []}]
OPTIONAL_BEARER = [{}, {"seatToken": []}]


def _problem_doc(description: str) -> dict[str, Any]:
    return {"schema": ProblemSchema, "content_type": PROBLEM_JSON, "description": description}


def bearer_token() -> str | None:
    """The token of ``Authorization: Bearer <token>``, if sent."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if not header:
        return None
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiProblem(
            401, "missing_token", "use 'Authorization: Bearer <seat token>'",
            headers={"WWW-Authenticate": 'Bearer realm="basra"'},
        )
    return token.strip()


def etag_for(version: int, seat: int | None) -> str:
    """Strong ETag of one representation: the version and whose view it is."""
    return f'"{version}-{"spectator" if seat is None else f"s{seat}"}"'


def _if_match_version() -> int | None:
    """The version named by If-Match (an ETag from GET, or a bare "version")."""
    header = request.headers.get("If-Match")
    if header is None:
        return None
    tag = header.split(",")[0].strip()
    if tag == "*":
        return None
    tag = tag.removeprefix("W/").strip('"')
    version = tag.split("-")[0]
    if not version.isdigit():
        raise ApiProblem(
            412, "version_mismatch", f"If-Match {header!r} names no version of this match"
        )
    return int(version)


def _none_match(etag: str) -> bool:
    header = request.headers.get("If-None-Match")
    if not header:
        return False
    tags = {t.strip().removeprefix("W/") for t in header.split(",")}
    return "*" in tags or etag in tags


# schemas are built once: building one per request costs more than dumping it
STATE_SCHEMA = MatchStateSchema()
CREATED_SCHEMA = CreatedMatchSchema()
MOVE_RESPONSE_SCHEMA = MoveResponseSchema()
HISTORY_SCHEMA = HistoryPageSchema()


def _state_response(view: games.MatchView) -> Response:
    body = STATE_SCHEMA.dump(view)
    return json_response(body, 200, {"ETag": etag_for(view.version, view.view.seat)})


@blp.route("")
class Matches(MethodView):
    """Create matches and list the history."""

    @blp.arguments(CreateMatchSchema)
    @blp.response(201, CreatedMatchSchema, headers={"Location": {
        "description": "URL of the match", "schema": {"type": "string"}}})
    def post(self, body: dict[str, Any]) -> Response:
        """Create a match; the seat tokens are in this response only."""
        players = [games.PlayerSpec(**p) for p in body["players"]]
        view, tokens = games.create_match(
            body["variant"], body["rules"], players, body.get("decks")
        )
        out = CREATED_SCHEMA.dump({
            "id": view.id,
            "seats": [{"seat": s, "name": n, "token": t} for s, n, t in tokens],
            "commitment": view.commitment,
            "state": view,
        })
        location = url_for("matches.MatchById", match_id=view.id)
        headers = {"Location": location, "ETag": etag_for(view.version, None)}
        return json_response(out, 201, headers)

    @blp.arguments(HistoryQuerySchema, location="query")
    @blp.response(200, HistoryPageSchema, headers={"Link": {
        "description": "rel=next URL of the following page", "schema": {"type": "string"}}})
    def get(self, query: dict[str, Any]) -> Response:
        """Match history, newest first; keyset pagination with `next` and a Link header."""
        rows, nxt = games.history(HistoryQuery(**query))
        body = HISTORY_SCHEMA.dump({"matches": rows, "next": nxt})
        headers = {}
        if nxt:
            args = {k: v for k, v in request.args.items() if k != "cursor"}
            link = url_for("matches.Matches", _external=False, **args, cursor=nxt)
            headers["Link"] = f'<{link}>; rel="next"'
        return json_response(body, 200, headers)


@blp.route("/<string:match_id>")
class MatchById(MethodView):
    """One match, as the token's seat or a spectator sees it."""

    @blp.arguments(WaitQuerySchema, location="query")
    @blp.response(200, MatchStateSchema, headers={"ETag": {
        "description": "the version and viewer", "schema": {"type": "string"}}})
    @blp.alt_response(304, description="Not modified (If-None-Match)")
    @blp.doc(security=OPTIONAL_BEARER, parameters=[
        {"in": "header", "name": "If-None-Match", "schema": {"type": "string"},
         "description": "an ETag from an earlier response: 304 while the match is unchanged"},
    ])
    def get(self, query: dict[str, Any], match_id: str) -> Response:
        """The match; `If-None-Match` gives 304, and `?wait=S` long-polls for a change."""
        token = bearer_token()
        version, seat = games.peek(match_id, token)
        etag = etag_for(version, seat)
        if _none_match(etag) and query["wait"] > 0:
            cfg = current_app.config
            games.wait_for_change(
                match_id, version, min(query["wait"], cfg["BASRA_MAX_WAIT"]),
                cfg["BASRA_POLL_INTERVAL"],
            )
            version, seat = games.peek(match_id, token)
            etag = etag_for(version, seat)
        if _none_match(etag):
            response = current_app.response_class(status=304)
            response.headers["ETag"] = etag
            return response
        return _state_response(games.read_match(match_id, token))


@blp.route("/<string:match_id>/moves")
class Moves(MethodView):
    """Play cards; read the public move log."""

    @blp.arguments(MoveRequestSchema)
    @blp.response(201, MoveResponseSchema)
    @blp.alt_response(409, **_problem_doc("not your turn, card not in hand, illegal "
                                          "capture or match finished"))
    @blp.alt_response(412, **_problem_doc("If-Match names an older version"))
    @blp.doc(security=BEARER, parameters=[
        {"in": "header", "name": "Idempotency-Key", "schema": {"type": "string", "maxLength": 255},
         "description": "a retry with the same key and body returns the first response"},
        {"in": "header", "name": "If-Match", "schema": {"type": "string"},
         "description": "the ETag (or version) the move was decided on"},
    ])
    def post(self, body: dict[str, Any], match_id: str) -> Response:
        """Play a card for the token's seat; bot seats reply in the same request."""
        key = request.headers.get("Idempotency-Key")
        if key is not None and not 0 < len(key) <= 255:
            raise ApiProblem(
                422, "validation_error", "Idempotency-Key must be 1 to 255 characters",
                errors=[{"field": "Idempotency-Key", "message": "1 to 255 characters"}],
            )
        raw = request.get_json(silent=True) or {}
        status, out = games.play_move(
            match_id, bearer_token(), body["card"], body.get("capture"),
            if_match=_if_match_version(), idempotency_key=key,
            request_fingerprint=games.fingerprint(raw if isinstance(raw, dict) else {}),
            render=MOVE_RESPONSE_SCHEMA.dump,
        )
        state = out["state"]  # a replayed response keeps the version it was first sent with
        return json_response(out, status, {"ETag": etag_for(state["version"], state["seat"])})

    @blp.response(200, MoveLogSchema)
    def get(self, match_id: str) -> dict[str, Any]:
        """The public move log; reveals the seed (or explicit decks) once finished."""
        return games.move_log(match_id).__dict__


@blp.route("/<string:match_id>/resign")
class Resign(MethodView):
    """Concede a match."""

    @blp.response(200, MatchStateSchema)
    @blp.alt_response(409, **_problem_doc("match finished"))
    @blp.doc(security=BEARER)
    def post(self, match_id: str) -> Response:
        """The token's seat (and its team) resigns; the other team wins."""
        view = games.resign_match(match_id, bearer_token(), _if_match_version())
        return _state_response(view)


@blp.route("/<string:match_id>/hint")
class Hint(MethodView):
    """What a bot would play."""

    @blp.arguments(HintQuerySchema, location="query")
    @blp.response(200, HintSchema)
    @blp.alt_response(409, **_problem_doc("not your turn, or match finished"))
    @blp.doc(security=BEARER)
    def get(self, query: dict[str, Any], match_id: str) -> dict[str, Any]:
        """The move the chosen bot level would play for the token's seat now."""
        move = games.hint(match_id, bearer_token(), query["level"])
        return {"level": query["level"], "card": move.card, "capture": move.capture or ()}
