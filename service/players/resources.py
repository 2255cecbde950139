"""``/v1/players``: player tokens, minted for a front end's server."""

from __future__ import annotations

import re
from typing import Any

from flask import current_app, g
from flask.views import MethodView

from ..tenants.limits import budget
from ..tenants.requests import tenant
from ..web.parser import Blueprint
from ..web.problems import Problem, problem_doc
from . import boards
from . import service as players
from .boards import Board, Listing, Record
from .errors import ServerKeyRequired
from .schemas import (
    BoardQuerySchema,
    BoardSchema,
    MintedSchema,
    MintSchema,
    RatingHistorySchema,
    RecordSchema,
)
from .service import PLAYER_ID, MintedToken

blp = Blueprint("players", __name__, url_prefix="/v1/players",
                description="Players vouched for by their front end")


@blp.url_value_preprocessor
def _known_id(_endpoint: str | None, values: dict[str, Any] | None) -> None:
    """A player id outside the alphabet is refused before anything else."""
    player_id = (values or {}).get("player_id")
    if player_id is not None and not PLAYER_ID.fullmatch(player_id):
        raise Problem(422, "validation_error", "the player id is not one: 1-128 of "
                      "A-Z a-z 0-9 . _ : @ -", field="player_id",
                      message=re.sub(r"[^ -~]", "?", player_id[:32]))


@blp.route("/<string:player_id>/tokens")
class Tokens(MethodView):
    """Vouch for a player."""

    @budget("creates")
    @blp.arguments(MintSchema)
    @blp.response(201, MintedSchema)
    @blp.alt_response(403, **problem_doc("a browser key (one limited to origins) may not "
                                         "mint"))
    def post(self, body: dict[str, Any], player_id: str) -> tuple[MintedToken, int]:
        """Mint a player token (with a server key: one made without `--origin`). The
        player's seats then answer it wherever a seat token is accepted, and it takes a
        seat as that player at create, join and quick play."""
        if not g.caller.server:
            raise ServerKeyRequired("a browser key may not mint player tokens: mint them "
                                    "on your server, with a key made without --origin")
        return players.mint(tenant(), g.caller.name, player_id, body.get("name"),
                            body["ttl_seconds"]), 201


@blp.route("/<string:player_id>")
class PlayerById(MethodView):
    """A player's record."""

    @budget("reads")
    @blp.response(200, RecordSchema)
    @blp.alt_response(404, **problem_doc("no such player at this front end"))
    def get(self, player_id: str) -> Record:
        """The player's ratings per pool (with their leaderboard rank) and totals."""
        return boards.record(tenant(), player_id, Listing.of(current_app.config))


@blp.route("/<string:player_id>/ratings/<string:pool>")
class RatingHistory(MethodView):
    """A player's rating over time."""

    @budget("reads")
    @blp.response(200, RatingHistorySchema)
    @blp.alt_response(404, **problem_doc("no such player at this front end"))
    def get(self, player_id: str, pool: str) -> dict[str, Any]:
        """The player's rating after each rated match of the pool, oldest first."""
        return {"player_id": player_id, "pool": pool,
                "points": boards.rating_history(tenant(), player_id, pool)}


leaderboards = Blueprint("leaderboards", __name__, url_prefix="/v1/leaderboards",
                         description="Each pool's players by rating")


@leaderboards.route("/<string:pool>")
class Leaderboard(MethodView):
    """A pool's leaderboard."""

    @budget("reads")
    @leaderboards.arguments(BoardQuerySchema, location="query")
    @leaderboards.response(200, BoardSchema)
    def get(self, query: dict[str, Any], pool: str) -> Board:
        """The pool's listed players (enough rated games, one lately), highest ordinal
        first, by cursor; `around` gives the page around a player, with their rank and
        percentile. Places are those of the last ranking (every minute, by `basra
        worker`); the figures beside them are live."""
        return boards.leaderboard(tenant(), pool, current_app.config["SECRET_KEY"],
                                  cursor=query.get("cursor"), around=query.get("around"),
                                  limit=query["limit"])
