"""The matches' routes of a match itself: create one, the history, one match (ETag,
long poll), its event stream, and a player's matches."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator
from typing import Any

from flask import Response, current_app, g, json, request, url_for
from flask.views import MethodView

from ..players.requests import credential, seat_for, stream_heartbeat, stream_still_valid
from ..players.service import Credential, PlayerProof
from ..tenants.limits import budget
from ..tenants.requests import sender, tenant, waiter
from ..web.problems import problem_doc
from ..web.settings import current
from ..web.streams import last_event_id, sse_response
from . import chat, creating, reading, records
from .creating import CreatedMatch
from .event_schemas import MATCH_EVENT
from .headers import etag_for, seen
from .history import HistoryQuery
from .request_schemas import (
    CreateMatchSchema,
    HistoryQuerySchema,
    PlayerMatchesQuerySchema,
    WaitQuerySchema,
)
from .results import HistoryPage, MatchView, Unchanged
from .routes import (
    OPTIONAL_BEARER,
    Headers,
    blp,
    body_fingerprint,
    etag,
    idempotency_key,
    idempotency_key_doc,
    if_none_match,
    not_modified,
    player_matches,
)
from .rows import Stake
from .schemas import CreatedMatchSchema, HistoryPageSchema, LoggedMoveSchema, MatchStateSchema
from .seats import PUBLIC, SERVER, PlayerSpec, Viewer


def _vouched(spec: PlayerSpec, proof: Credential | None) -> PlayerSpec:
    """A seat as requested, its ``player_id`` proven (or refused) by the request."""
    if spec.player_id is None:
        return spec
    player_id, name, vouched = seat_for(spec.player_id, spec.name, proof)
    return dataclasses.replace(spec, player_id=player_id, name=name, vouched=vouched)


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
    @blp.alt_response(409, **problem_doc(
        "`insufficient_funds`, `in_debt`: a staked table's player cannot hold the stake "
        "(nothing is made)"))
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
        stake = body.get("stake")
        created = creating.create_match(
            tenant(), body["variant"], body["rules"], specs, body.get("decks"),
            clock=(clock["move_seconds"], clock["timeout"]) if clock else None,
            rated=body["rated"], viewer=player, stand_in=body["stand_in"],
            spectator_delay=body.get("spectator_delay"),
            stake=Stake(stake["currency"], stake["amount"]) if stake else None,
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


EVENT_SCHEMA = MatchStateSchema()
MOVES_SCHEMA = LoggedMoveSchema(many=True)


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
