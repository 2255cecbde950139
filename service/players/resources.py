"""``/v1/players``: player tokens, minted for a front end's server."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from flask import Response, g
from flask.views import MethodView

from ..engine import load_variant
from ..engine.errors import UnknownVariant
from ..errors import MissingToken
from ..storage.db import end_session
from ..tenants.enums import StaffRole
from ..tenants.limits import budget
from ..tenants.requests import actor, server_key_only, tenant, waiter
from ..web.parser import Blueprint
from ..web.problems import Problem, problem_doc
from ..web.settings import current
from ..web.streams import heartbeat_seconds, last_event_id, sse_response
from . import blocks, presence
from . import events as player_events
from . import service as players
from .blocks import Blocked
from .errors import NotThisPlayer
from .leaderboards import LeaderboardPage, Listing, Record, leaderboard, rating_history, record
from .requests import act_for, credential, stream_check
from .schemas import (
    BlockSchema,
    BlocksPageSchema,
    BoardQuerySchema,
    BoardSchema,
    ByIdQuerySchema,
    MintedSchema,
    MintSchema,
    PlayerEventSchema,
    PlayerSearchPageSchema,
    PlayerSearchQuerySchema,
    RatingHistorySchema,
    RecordSchema,
    RotatedSecretSchema,
    RotateSecretSchema,
    SignedOutSchema,
)
from .service import PLAYER_ID, MintedToken, PlayerProof

blp = Blueprint("players", __name__, url_prefix="/v1/players",
                description="Players vouched for by their front end")


@blp.url_value_preprocessor
def _known_id(_endpoint: str | None, values: dict[str, Any] | None) -> None:
    """A player id outside the alphabet is refused before anything else."""
    known_player_ids(values)


def known_player_ids(values: dict[str, Any] | None) -> None:
    """A player id in the path (``player_id``, ``other``) outside the alphabet: 422."""
    for field in ("player_id", "other"):
        player_id = (values or {}).get(field)
        if player_id is not None and not PLAYER_ID.fullmatch(player_id):
            shown = re.sub(r"[^ -~]", "?", player_id[:32])  # printable, and short
            raise Problem(422, "validation_error", "the player id is not one: 1-128 of "
                          "A-Z a-z 0-9 . _ : @ -, not . or ..", field=field,
                          message=f"{shown!r} is not a player id: 1-128 of A-Z a-z 0-9 . _ "
                          ": @ -, not . or ..")


@blp.route("")
class Players(MethodView):
    """The front end's players."""

    @server_key_only(blp)
    @budget("reads")
    @blp.arguments(PlayerSearchQuerySchema, location="query")
    @blp.response(200, PlayerSearchPageSchema)
    @blp.doc(operationId="searchPlayers")
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Players whose id starts with `prefix`, in id order, a page at a time (`after`:
        the last id of the page before): for support staff looking someone up."""
        found, after = players.search(tenant(), query["prefix"], query.get("after"),
                                      query["limit"])
        return {"players": found, "next": after}


@blp.route("/<string:player_id>/tokens")
class Tokens(MethodView):
    """Vouch for a player."""

    @server_key_only(blp, staff=None)
    @budget("creates")
    @blp.arguments(MintSchema)
    @blp.response(201, MintedSchema)
    @blp.doc(operationId="mintPlayerToken")
    def post(self, body: dict[str, Any], player_id: str) -> tuple[MintedToken, int]:
        """Mint a player token (with a server key: one made without `--origin`). The
        player's seats then answer it wherever a seat token is accepted, and it takes a
        seat as that player at create, join and quick play."""
        return players.mint(tenant(), g.caller.name, player_id, body.get("name"),
                            body["ttl_seconds"]), 201


@blp.route("/<string:player_id>/tokens/revoke")
class SignOut(MethodView):
    """Sign a player out everywhere."""

    @server_key_only(blp, staff=StaffRole.MODERATOR)
    @budget("creates")
    @blp.response(200, SignedOutSchema)
    @blp.doc(operationId="revokePlayerTokens")
    def post(self, player_id: str) -> dict[str, Any]:
        """Sign the player out everywhere (with a server key): every token of theirs
        issued before now is refused (`401 token_revoked`) on every instance within
        about a second, and their open streams end; tokens minted afterwards work."""
        return {"player_id": player_id,
                "signed_out_at": players.sign_out(tenant(), player_id, actor())}


@blp.route("/<string:player_id>/blocks/<string:other>")
class BlockById(MethodView):
    """One player the player blocks."""

    @budget("creates")
    @blp.response(200, BlockSchema)
    @blp.alt_response(403, **problem_doc("`not_this_player`: neither the player's token nor "
                                         "a server key"))
    @blp.alt_response(404, **problem_doc("`player_not_found`: either player is unknown at "
                                         "this front end"))
    @blp.alt_response(409, **problem_doc("`player_blocked`: a player cannot block "
                                         "themselves; `too_many_blocks`"))
    @blp.doc(operationId="blockPlayer")
    def put(self, player_id: str, other: str) -> Blocked:
        """Block `other` (the player's token, or a server key): quick play and rated
        matching never seat the two together, and neither can join the other's table.
        Again: no change."""
        act_for(player_id)
        return blocks.block(tenant(), player_id, other, actor())

    @budget("creates")
    @blp.response(204)
    @blp.alt_response(403, **problem_doc("`not_this_player`: neither the player's token nor "
                                         "a server key"))
    @blp.doc(operationId="unblockPlayer")
    def delete(self, player_id: str, other: str) -> None:
        """Stop blocking `other` (no error if the player did not)."""
        act_for(player_id)
        blocks.unblock(tenant(), player_id, other, actor())


@blp.route("/<string:player_id>/blocks")
class Blocks(MethodView):
    """Whom a player blocks."""

    @budget("reads")
    @blp.arguments(ByIdQuerySchema, location="query")
    @blp.response(200, BlocksPageSchema)
    @blp.alt_response(403, **problem_doc("`not_this_player`: neither the player's token nor "
                                         "a server key"))
    @blp.doc(operationId="listBlocks")
    def get(self, query: dict[str, Any], player_id: str) -> dict[str, Any]:
        """Whom the player blocks, by id, a page at a time (`after`: the page's `next`)."""
        act_for(player_id)
        found = blocks.blocks_of(tenant(), player_id, query.get("after"), query["limit"] + 1)
        page = found[:query["limit"]]
        return {"blocks": page,
                "next": page[-1].player_id if len(found) > query["limit"] else None}


@blp.route("/<string:player_id>")
class PlayerById(MethodView):
    """A player's record."""

    @budget("reads")
    @blp.response(200, RecordSchema)
    @blp.alt_response(404, **problem_doc("no such player at this front end"))
    @blp.doc(operationId="getPlayer")
    def get(self, player_id: str) -> Record:
        """The player's ratings per pool (with their leaderboard rank) and totals."""
        return record(tenant(), player_id, Listing.of(current()))


@blp.route("/<string:player_id>/ratings/<string:pool>")
class RatingHistory(MethodView):
    """A player's rating over time."""

    @budget("reads")
    @blp.response(200, RatingHistorySchema)
    @blp.alt_response(404, **problem_doc("no such player at this front end"))
    @blp.doc(operationId="getRatingHistory")
    def get(self, player_id: str, pool: str) -> dict[str, Any]:
        """The player's rating after each rated match of the pool, oldest first."""
        return {"player_id": player_id, "pool": pool,
                "points": rating_history(tenant(), player_id, pool)}


@blp.route("/<string:player_id>/events")
class PlayerEvents(MethodView):
    """Follow a player: their matches and tournaments."""

    @budget("reads")
    @blp.response(200, PlayerEventSchema, content_type="text/event-stream",
                  description="text/event-stream: one event (this schema) per happening")
    @blp.alt_response(401, **problem_doc("no bearer token"))
    @blp.alt_response(403, **problem_doc("the bearer is not this player's token"))
    @blp.doc(security=[{"seatToken": []}, {"apiKey": [], "seatToken": []}], parameters=[
        {"in": "header", "name": "Last-Event-ID", "schema": {"type": "string"},
         "description": "the id of the last event received: resume after it (events are "
         "kept a week)"},
    ])
    @blp.doc(operationId="streamPlayerEvents")
    def get(self, player_id: str) -> Response:
        """Server-Sent Events of the player's matches starting, their turns (with the
        deadline), their matches ending, and their tournaments' events, each with `id:`;
        without `Last-Event-ID`, from now on; while it is open the player is `online` to
        their friends (`presence` events); a comment after BASRA_HEARTBEAT_SECONDS
        (15) of silence; the token's expiry, sign-out or suspension ends the stream within
        about two seconds. Only with that player's token. It counts against the same
        waiter limits as a match's stream."""
        proof = credential()
        if proof is None:
            raise MissingToken("send the player's token as 'Authorization: Bearer <token>'")
        if not isinstance(proof, PlayerProof) or proof.player_id != player_id:
            raise NotThisPlayer(f"only player {player_id!r}'s token follows their events")
        still = stream_check()
        batches = player_events.follow(tenant(), player_id, last_event_id(),
                                       heartbeat_seconds(kept=True), waiter(), still,
                                       settings=current())
        next(batches)  # here, not in the stream: a waiter refused answers as a problem
        settings = current()
        presence.opened(tenant(), player_id, settings)
        held = tenant()
        end_session()  # the stream lives for hours: what the opening loaded goes now

        def chunks() -> Iterator[str]:
            try:
                yield ": connected\n\n"
                for batch in batches:
                    if not batch:
                        yield ": heartbeat\n\n"
                        continue
                    yield "".join(f"id: {e.id}\nevent: {e.type}\ndata: {e.data}\n\n"
                                  for e in batch)
            finally:
                presence.closed(held, player_id, settings)

        return sse_response(chunks(), still, settings.stream_max_seconds)


secret_blp = Blueprint("player_secret", __name__, url_prefix="/v1/keys/secret",
                      description="The front end's player-token secret")


@secret_blp.route("/rotate")
class RotateSecret(MethodView):
    """A new player-token secret."""

    @server_key_only(secret_blp)
    @budget("creates")
    @secret_blp.arguments(RotateSecretSchema)
    @secret_blp.response(200, RotatedSecretSchema)
    @secret_blp.doc(operationId="rotatePlayerSecret")
    def post(self, body: dict[str, Any]) -> dict[str, str]:
        """Sign new player tokens with a new secret (shown only here, for a front end that
        mints its own tokens); tokens signed with the old one stay accepted
        `grace_seconds` (0 to 86,400; 0: refused within a second or two), as `basra keys
        rotate-secret` does. Audited."""
        return {"secret": players.rotate_secret(tenant(), body["grace_seconds"], actor())}


leaderboards = Blueprint("leaderboards", __name__, url_prefix="/v1/leaderboards",
                         description="Each pool's players by rating")


@leaderboards.route("/<string:pool>")
class Leaderboard(MethodView):
    """A pool's leaderboard."""

    @budget("reads")
    @leaderboards.arguments(BoardQuerySchema, location="query")
    @leaderboards.response(200, BoardSchema)
    @leaderboards.alt_response(404, **problem_doc("`unknown_variant`: no variant of that "
                                                  "name"))
    @leaderboards.doc(operationId="getLeaderboard")
    def get(self, query: dict[str, Any], pool: str) -> LeaderboardPage:
        """The pool's listed players (enough rated games, one lately), highest ordinal
        first, by cursor; `around` gives the page around a player, with their rank and
        percentile. Places are those of the last ranking (every minute, by `basra
        worker`); the figures beside them are live. A pool is a variant's name."""
        try:
            load_variant(pool)
        except UnknownVariant as exc:  # no such pool: not an empty board
            raise Problem(404, "unknown_variant", f"no leaderboard {pool[:64]!r}: a pool "
                          "is a variant's name (GET /v1/variants)") from exc
        return leaderboard(tenant(), pool, current().secret_key,
                           cursor=query.get("cursor"), around=query.get("around"),
                           limit=query["limit"])
