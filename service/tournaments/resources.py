"""``/v1/tournaments``: create and cancel (the server key), list, join and withdraw (a
player token, or a server key naming the player), read."""

from __future__ import annotations

import re
from typing import Any

from flask import url_for
from flask.views import MethodView

from ..players.errors import PlayerRequired
from ..players.requests import credential, seat_for
from ..tenants.limits import budget
from ..tenants.requests import server_key_only, tenant
from ..web.parser import Blueprint
from ..web.problems import problem_doc
from ..web.settings import current
from . import service as tournaments
from .errors import TournamentNotFound
from .purse import Fee
from .schemas import (
    CreateTournamentSchema,
    EntrantSchema,
    TournamentListSchema,
    TournamentQuerySchema,
    TournamentSchema,
)
from .service import TournamentSpec, TournamentView

blp = Blueprint("tournaments", __name__, url_prefix="/v1/tournaments",
                description="Swiss, arena and duplicate tournaments of a front end's players")
_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


@blp.url_value_preprocessor
def _known_id(_endpoint: str | None, values: dict[str, Any] | None) -> None:
    """An id no tournament could have is not found, without a query."""
    tournament_id = (values or {}).get("tournament_id")
    if tournament_id is not None and not _ID.fullmatch(tournament_id):
        raise TournamentNotFound(f"no tournament with id {tournament_id[:64]!r}")


def _entrant(body: dict[str, Any]) -> tuple[str, str | None]:
    """The player a join or withdrawal is for, proven by the request."""
    player_id, name, vouched = seat_for(body.get("player_id"), body.get("name"), credential())
    if player_id is None or not vouched:
        raise PlayerRequired("send the player's token (Authorization: Bearer), or name "
                             "player_id with a server key")
    return player_id, name


@blp.route("")
class Tournaments(MethodView):
    """Create and list tournaments."""

    @server_key_only(blp)
    @budget("creates")
    @blp.arguments(CreateTournamentSchema)
    @blp.response(201, TournamentSchema, headers={"Location": {
        "description": "the tournament's URL", "schema": {"type": "string"}}})
    @blp.alt_response(409, **problem_doc("`too_many_tournaments`: the front end holds "
                                         "BASRA_TOURNAMENTS_PER_FRONT_END scheduled or "
                                         "running"))
    @blp.doc(operationId="createTournament")
    def post(self, body: dict[str, Any]) -> tuple[TournamentView, int, dict[str, str]]:
        """Schedule a tournament; `basra worker` starts it at `starts_at` (or cancels it
        below `min_players`), pairs it, creates its matches and finishes it."""
        clock = body["clock"]
        view = tournaments.create(tenant(), TournamentSpec(
            body["name"], body["variant"], body["rules"], body["system"], body.get("rounds"),
            body.get("duration_minutes"), body["starts_at"], body["min_players"],
            body["max_players"], body["rated"], clock["move_seconds"], clock["timeout"],
            body.get("deals", 1) if body["system"] == "duplicate" else None,
            Fee(fee["currency"], fee["amount"]) if (fee := body.get("entry_fee")) else None,
            body.get("prizes")), settings=current())
        return view, 201, {"Location": url_for("tournaments.TournamentById",
                                               tournament_id=view.id)}

    @budget("reads")
    @blp.arguments(TournamentQuerySchema, location="query")
    @blp.response(200, TournamentListSchema)
    @blp.doc(operationId="listTournaments")
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """The front end's tournaments, latest start first; `status` filters."""
        return {"tournaments": tournaments.listing(tenant(), query.get("status"),
                                                   query["limit"])}


@blp.route("/<string:tournament_id>")
class TournamentById(MethodView):
    """One tournament."""

    @budget("reads")
    @blp.response(200, TournamentSchema)
    @blp.alt_response(404, **problem_doc("no such tournament at this front end"))
    @blp.doc(operationId="getTournament")
    def get(self, tournament_id: str) -> TournamentView:
        """Status, entrants, standings (points, Buchholz, Sonneborn-Berger, rating) and
        every pairing with its match."""
        return tournaments.read(tenant(), tournament_id)


@blp.route("/<string:tournament_id>/cancel")
class Cancel(MethodView):
    """Call a tournament off."""

    @server_key_only(blp)
    @budget("creates")
    @blp.response(200, TournamentSchema)
    @blp.alt_response(404, **problem_doc("no such tournament at this front end"))
    @blp.alt_response(409, **problem_doc("it is over already"))
    @blp.doc(operationId="cancelTournament")
    def post(self, tournament_id: str) -> TournamentView:
        """Cancel a scheduled or running tournament: status `cancelled`, its games under
        way aborted (nobody wins them); its players hear
        `tournament.finished` on their streams, the front end by webhook."""
        return tournaments.cancel(tenant(), tournament_id)


@blp.route("/<string:tournament_id>/join")
class Join(MethodView):
    """Enter a player."""

    @budget("moves")
    @blp.arguments(EntrantSchema)
    @blp.response(200, TournamentSchema)
    @blp.alt_response(404, **problem_doc("no such tournament at this front end"))
    @blp.alt_response(409, **problem_doc("entry is closed (a Swiss under way, over, or "
                                         "full); `insufficient_funds`: the player's wallet "
                                         "is short of the entry fee; `in_debt`"))
    @blp.doc(operationId="joinTournament")
    def post(self, body: dict[str, Any], tournament_id: str) -> TournamentView:
        """Enter the player of the token (or, with a server key, the `player_id` named);
        joining again changes nothing."""
        player_id, name = _entrant(body)
        return tournaments.join(tenant(), tournament_id, player_id, name)


@blp.route("/<string:tournament_id>/withdraw")
class Withdraw(MethodView):
    """Take a player out."""

    @budget("moves")
    @blp.arguments(EntrantSchema)
    @blp.response(200, TournamentSchema)
    @blp.alt_response(404, **problem_doc("no such tournament at this front end"))
    @blp.alt_response(409, **problem_doc("the player is not in it, or it is over"))
    @blp.doc(operationId="withdrawFromTournament")
    def post(self, body: dict[str, Any], tournament_id: str) -> TournamentView:
        """Withdraw the player: off the list before the start; once running, no further
        pairings (results so far stay)."""
        player_id, _ = _entrant(body)
        return tournaments.withdraw(tenant(), tournament_id, player_id)
