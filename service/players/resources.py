"""``/v1/players``: player tokens, minted for a front end's server."""

from __future__ import annotations

import re
from typing import Any

from flask import g
from flask.views import MethodView

from ..tenants.limits import budget
from ..tenants.requests import tenant
from ..web.parser import Blueprint
from ..web.problems import Problem, problem_doc
from . import service as players
from .errors import ServerKeyRequired
from .schemas import MintedSchema, MintSchema
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
