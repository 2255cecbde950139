"""Trust and safety's routes: suspensions, voids, reports, the audit log, a player's
export and erasure. All take the server key, but filing a report, which takes the
reporting player's own token."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ..matches.results import MatchView
from ..matches.schemas import MatchStateSchema
from ..players.requests import token_player
from ..players.resources import known_player_ids
from ..tenants.enums import StaffRole
from ..tenants.limits import budget
from ..tenants.requests import actor, server_key_only, tenant
from ..web.parser import Blueprint
from ..web.problems import problem_doc
from ..web.settings import current
from . import reports
from . import service as safety
from .enums import ReportAction, ReportReason, ReportStatus
from .reports import ReportPage, ReportView
from .schemas import (
    AuditPageSchema,
    AuditQuerySchema,
    ErasedSchema,
    ExportSchema,
    NewReportSchema,
    ReportPageSchema,
    ReportQuerySchema,
    ReportSchema,
    ReportWithEvidenceSchema,
    ResolveSchema,
    SuspendSchema,
    SuspensionSchema,
    VoidSchema,
)

players_blp = Blueprint("player_safety", __name__, url_prefix="/v1/players",
                        description="A player's suspension, data export and erasure")
players_blp.url_value_preprocessor(lambda _endpoint, values: known_player_ids(values))
blp = Blueprint("safety", __name__, url_prefix="/v1",
                description="Voided results, reports and the audit log")

NOT_FOUND = problem_doc("`player_not_found`: no such player at this front end")


@players_blp.route("/<string:player_id>/suspension")
class Suspension(MethodView):
    """A player's suspension."""

    @server_key_only(players_blp, staff=StaffRole.MODERATOR)
    @budget("creates")
    @players_blp.arguments(SuspendSchema)
    @players_blp.response(200, SuspensionSchema)
    @players_blp.alt_response(404, **NOT_FOUND)
    @players_blp.doc(operationId="suspendPlayer")
    def put(self, body: dict[str, Any], player_id: str) -> dict[str, Any]:
        """Suspend the player until `until` (null: for good): within about a second on
        every instance their tokens are refused (`403 player_suspended`), their streams
        end and no token is minted for them; their waiting tables are left and their
        tournament entries withdrawn now; with `forfeit` their active matches are lost,
        else they go on under the turn clock. Again: the end and reason change."""
        done = safety.suspend(tenant(), player_id, body["until"], body["reason"],
                              body["forfeit"], actor())
        held = done.suspension
        return {"player_id": player_id, "since": held.since, "until": held.until,
                "reason": held.reason, "tables_left": done.tables_left,
                "tournaments_left": done.tournaments_left,
                "matches_forfeited": done.matches_forfeited}

    @server_key_only(players_blp, staff=StaffRole.MODERATOR)
    @budget("creates")
    @players_blp.response(204)
    @players_blp.alt_response(404, **NOT_FOUND)
    @players_blp.doc(operationId="liftSuspension")
    def delete(self, player_id: str) -> None:
        """Lift the player's suspension at once (no error if there is none)."""
        safety.players.lift_suspension(tenant(), player_id, actor())


@players_blp.route("/<string:player_id>/export")
class Export(MethodView):
    """A player's data."""

    @server_key_only(players_blp, staff=StaffRole.ADMIN)
    @budget("expensive")
    @players_blp.response(200, ExportSchema)
    @players_blp.alt_response(404, **NOT_FOUND)
    @players_blp.doc(operationId="exportPlayer")
    def get(self, player_id: str) -> dict[str, Any]:
        """All the service holds of the player, as JSON (a data subject's access
        request): record, ratings over time, matches (the newest 10,000), the lines
        they said at tables, blocks, the
        reports they made, tournament entries, suspension, sign-out, and the actions
        taken about them."""
        return safety.export(tenant(), player_id, settings=current())


@players_blp.route("/<string:player_id>")
class ErasePlayer(MethodView):
    """Erase a player."""

    @server_key_only(players_blp)
    @budget("expensive")
    @players_blp.response(200, ErasedSchema)
    @players_blp.alt_response(404, **NOT_FOUND)
    @players_blp.doc(operationId="erasePlayer")
    def delete(self, player_id: str) -> safety.Erased:
        """Erase the player (a data subject's erasure request): their tables left, entries
        withdrawn and active matches forfeited; their id in every stored match and
        tournament (and every kept event, by its kind's declared shape) replaced by a
        random pseudonym, their chat texts replaced; their ratings, records, blocks and
        reports removed; their tokens refused. Opponents' records and ratings stay. The
        webhooks hear `player.erased` naming the id erased."""
        return safety.erase(tenant(), player_id, actor())


@blp.route("/matches/<string:match_id>/void")
class VoidMatch(MethodView):
    """Void a match's result."""

    @server_key_only(blp, staff=StaffRole.MODERATOR)
    @budget("creates")
    @blp.arguments(VoidSchema)
    @blp.response(200, MatchStateSchema)
    @blp.alt_response(404, **problem_doc("`match_not_found`"))
    @blp.alt_response(409, **problem_doc("`match_not_finished`: only a finished match's "
                                         "result can be voided; `match_voided`: it was "
                                         "voided already"))
    @blp.doc(operationId="voidMatch")
    def post(self, body: dict[str, Any], match_id: str) -> MatchView:
        """Void a finished match's result: each player's rating moves back by what the
        match gave or took, its totals, leaderboard places and tournament points are
        taken out, it shows `voided`; a `match.voided` webhook and player event. Once:
        again is `409 match_voided`."""
        return safety.void(tenant(), match_id, body["reason"], actor())


@blp.route("/audit")
class Audit(MethodView):
    """The front end's audit log."""

    @server_key_only(blp)
    @budget("reads")
    @blp.arguments(AuditQuerySchema, location="query")
    @blp.response(200, AuditPageSchema)
    @blp.doc(operationId="listAudit")
    def get(self, query: dict[str, Any]) -> Any:
        """Who did what, when: suspensions, sign-outs, voids, reports and their
        resolution, blocks, erasures, keys and secrets; newest first, by cursor."""
        return safety.audit_page(tenant(), current().secret_key,
                                 query.get("cursor"), query["limit"], query.get("action"),
                                 query.get("subject"))


@blp.route("/reports")
class Reports(MethodView):
    """Reports of players."""

    @budget("creates")
    @blp.arguments(NewReportSchema)
    @blp.response(201, ReportSchema)
    @blp.alt_response(401, **problem_doc("`player_required`: only a player token reports"))
    @blp.alt_response(409, **problem_doc("`already_reported`"))
    @blp.alt_response(422, **problem_doc("`not_reportable`: the reporter or the reported "
                                         "player holds no seat of the match"))
    @blp.doc(operationId="fileReport")
    def post(self, body: dict[str, Any]) -> tuple[ReportView, int]:
        """Report another seat of a match you sat in (with your player token), once per
        match and player: the front end's staff get it with its evidence (and a
        `report.created` webhook)."""
        return reports.file(tenant(), token_player("a report is a player's"),
                            body["match_id"], body["player_id"],
                            ReportReason(body["reason"]), body.get("text")), 201

    @server_key_only(blp)
    @budget("reads")
    @blp.arguments(ReportQuerySchema, location="query")
    @blp.response(200, ReportPageSchema)
    @blp.doc(operationId="listReports")
    def get(self, query: dict[str, Any]) -> ReportPage:
        """Reports, oldest first (`status=open`: the queue), by cursor; `player_id`: those
        about a player, `reporter`: those a player filed."""
        status = query.get("status")
        return reports.listing(tenant(), current().secret_key,
                               ReportStatus(status) if status else None,
                               query.get("player_id"), query.get("cursor"), query["limit"],
                               query.get("reporter"))


@blp.route("/reports/<string:report_id>")
class ReportById(MethodView):
    """A report with its evidence."""

    @server_key_only(blp)
    @budget("reads")
    @blp.response(200, ReportWithEvidenceSchema)
    @blp.alt_response(404, **problem_doc("`report_not_found`"))
    @blp.doc(operationId="getReport")
    def get(self, report_id: str) -> ReportView:
        """The report with its evidence: the match's state and whole log, every hand once
        it is over, and the two players' other recent matches, together and apart."""
        return reports.read(tenant(), report_id, settings=current())


@blp.route("/reports/<string:report_id>/resolve")
class ResolveReport(MethodView):
    """Resolve a report."""

    @server_key_only(blp, staff=StaffRole.MODERATOR)
    @budget("creates")
    @blp.arguments(ResolveSchema)
    @blp.response(200, ReportSchema)
    @blp.alt_response(404, **problem_doc("`report_not_found`"))
    @blp.alt_response(409, **problem_doc("`report_resolved`: it was resolved already"))
    @blp.doc(operationId="resolveReport")
    def post(self, body: dict[str, Any], report_id: str) -> ReportView:
        """Resolve the report, once: `dismiss`; `suspend` the reported player (`until`,
        `forfeit` as for a suspension); `void` the match's result."""
        return reports.resolve(tenant(), report_id, ReportAction(body["action"]),
                               body.get("note"), actor(), until=body["until"],
                               forfeit=body["forfeit"])
