"""``/v1/matches``' lobby routes: quick play, join, leave, rematch, abort."""

from __future__ import annotations

from typing import Any

from flask import url_for
from flask.views import MethodView

from ..matches.results import MatchView, MoveResult
from ..matches.routes import BEARER, Headers, etag, known_id
from ..matches.rows import Stake
from ..matches.schemas import MatchStateSchema, MoveResponseSchema
from ..matches.seats import PlayerSpec
from ..players.errors import PlayerRequired
from ..players.requests import credential, seat_for
from ..tenants.limits import budget
from ..tenants.requests import tenant
from ..web.parser import Blueprint
from ..web.problems import problem_doc
from ..web.settings import current
from . import service as lobby
from .schemas import (
    JoinSchema,
    QuickCancelSchema,
    QuickLeftSchema,
    QuickPlaySchema,
    SeatedSchema,
)
from .service import Seated

blp = Blueprint("lobby", __name__, url_prefix="/v1/matches",
                description="Tables between strangers")
blp.url_value_preprocessor(known_id)


STAKE_REFUSED = ("`insufficient_funds`, `in_debt`: at a staked table, the player cannot "
                 "hold the stake (no seat is taken)")


def _who(body: dict[str, Any]) -> PlayerSpec:
    """Who takes the seat: the body's name and player, proven by the request (a player
    token alone sits as that player)."""
    player_id, name, vouched = seat_for(body.get("player_id"), body.get("name"), credential())
    return PlayerSpec(name, player_id, vouched=vouched)


def _seated(result: Seated) -> tuple[Seated, int, Headers]:
    return result, 201, {
        "Location": url_for("matches.MatchById", match_id=result.id), **etag(result.state)}


@blp.route("/quick")
class QuickPlay(MethodView):
    """Find a table."""

    @budget("creates")
    @blp.arguments(QuickPlaySchema)
    @blp.response(201, SeatedSchema)
    @blp.alt_response(409, **problem_doc(STAKE_REFUSED))
    @blp.doc(operationId="quickPlay")
    def post(self, body: dict[str, Any]) -> tuple[Seated, int, Headers]:
        """Join the oldest waiting quick-play match of this front end with the same
        effective rules, or open one with the caller in seat 0. A vouched player asking
        again while they wait gets the table they wait at (of this variant), with a new
        seat token (the first one stops working; their player token works throughout).
        With `party`, the caller's party of two sits as partners (a four-player variant):
        the partner hears `party.seated`."""
        stake = body.get("stake")
        return _seated(lobby.quick_play(tenant(), body["variant"], body["rules"], _who(body),
                                        rated=body["rated"], party=body.get("party"),
                                        stake=Stake(stake["currency"], stake["amount"])
                                        if stake else None, settings=current()))


@blp.route("/quick/cancel")
class QuickCancel(MethodView):
    """Stop looking for a table."""

    @budget("moves")
    @blp.arguments(QuickCancelSchema)
    @blp.response(200, QuickLeftSchema)
    @blp.alt_response(401, **problem_doc("`player_required`: no player token (or server "
                                         "key naming `player_id`)"))
    @blp.doc(operationId="cancelQuickPlay")
    def post(self, body: dict[str, Any]) -> dict[str, list[str]]:
        """The player (their token, or a server key naming `player_id`) leaves every
        quick-play table they wait at (of `variant`, when named); an empty list when
        none."""
        who = _who(body)
        if who.player_id is None or not who.vouched:
            raise PlayerRequired("send the player's token (Authorization: Bearer), or name "
                                 "player_id with a server key")
        return {"left": lobby.leave_quick_play(tenant(), who.player_id, body.get("variant"),
                                               settings=current())}


@blp.route("/<string:match_id>/join")
class Join(MethodView):
    """Take an open seat."""

    @budget("moves")
    @blp.arguments(JoinSchema)
    @blp.response(201, SeatedSchema)
    @blp.alt_response(409, **problem_doc("`no_open_seat`; " + STAKE_REFUSED))
    @blp.doc(operationId="joinMatch")
    def post(self, body: dict[str, Any], match_id: str) -> tuple[Seated, int, Headers]:
        """Take the first open seat of a waiting match; the token is in this response only.
        The match deals when its last seat fills."""
        return _seated(lobby.join_match(match_id, tenant(), _who(body), settings=current()))


@blp.route("/<string:match_id>/leave")
class Leave(MethodView):
    """Give a seat back."""

    @budget("moves")
    @blp.response(200, MatchStateSchema)
    @blp.alt_response(409, **problem_doc("the match has started"))
    @blp.doc(security=BEARER)
    @blp.doc(operationId="leaveMatch")
    def post(self, match_id: str) -> tuple[MatchView, int, Headers]:
        """The token's seat leaves a waiting match; the seat is open again."""
        view = lobby.leave_match(match_id, tenant(), credential())
        return view, 200, etag(view)


@blp.route("/<string:match_id>/rematch")
class Rematch(MethodView):
    """Play again."""

    @budget("creates")
    @blp.response(201, SeatedSchema)
    @blp.alt_response(409, **problem_doc("the match is not finished, or the seat is taken; "
                                         + STAKE_REFUSED))
    @blp.doc(security=BEARER)
    @blp.doc(operationId="rematchMatch")
    def post(self, match_id: str) -> tuple[Seated, int, Headers]:
        """Create or join the follow-up of a finished match: the same rules, seats rotated
        one place; both matches' views show `rematch`."""
        return _seated(lobby.rematch(match_id, tenant(), credential(), settings=current()))


@blp.route("/<string:match_id>/abort")
class Abort(MethodView):
    """Call a match off."""

    @budget("moves")
    @blp.response(200, MoveResponseSchema)
    @blp.alt_response(409, **problem_doc("not active, or the seat has played"))
    @blp.doc(security=BEARER)
    @blp.doc(operationId="abortMatch")
    def post(self, match_id: str) -> tuple[MoveResult, int, Headers]:
        """End an active match in which the token's seat has not played yet: nobody wins,
        `status` and `end_reason` are `aborted`."""
        result = lobby.abort_match(match_id, tenant(), credential())
        return result, 200, etag(result.state)


