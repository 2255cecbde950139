"""Trust and safety's use cases: suspend a player (and what it releases), void a match's
result, read the audit log, export and erase a player's data. Each acts through the
domains' own use cases, and each action is in the audit log."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import delete, or_, select

from .. import events
from ..coins import erasure as coins
from ..lobby import service as lobby
from ..matches import service as matches
from ..matches.results import MatchSummary, MatchView
from ..players import blocks, presence
from ..players import service as players
from ..players.leaderboards import Listing, rating_history, record
from ..settings import Settings
from ..social import challenges, friends, parties
from ..storage.base import as_utc
from ..storage.db import db, transaction
from ..tenants import audit
from ..tournaments import service as tournaments
from ..webhooks import service as webhooks
from .errors import BadCursor
from .models import Report


@dataclass(frozen=True)
class Suspended:
    """A suspension and what it released at once."""

    suspension: players.Suspension
    tables_left: list[str]
    tournaments_left: list[str]
    matches_forfeited: list[str]


def suspend(tenant: int, player_id: str, until: datetime | None, reason: str,
            forfeit: bool, actor: str) -> Suspended:
    """Suspend a vouched player: their tokens are refused on every instance within about
    a second (their streams end), then their waiting tables are left, their tournament
    entries withdrawn, and with ``forfeit`` their active matches lost (else those go on
    under the turn clock). Suspending again changes the end and the reason; a release
    that failed half-way (the database lost) is finished by asking again."""
    held = players.suspend(tenant, player_id, until, reason, actor, forfeit)
    left = lobby.release_player(tenant, player_id)
    withdrawn = tournaments.withdraw_everywhere(tenant, player_id)
    forfeited = matches.forfeit_player(tenant, player_id) if forfeit else []
    return Suspended(held, left, withdrawn, forfeited)


def void(tenant: int, match_id: str, reason: str, actor: str) -> MatchView:
    """Void a finished match's result (:func:`matches.void_match`); a finished
    tournament's kept standings are worked out again without it."""
    view = matches.void_match(match_id, tenant, reason, actor)
    tournaments.stand_again(tenant, match_id)
    return view


def audit_page(tenant: int, key: bytes, cursor: str | None, limit: int,
               action: str | None, subject: str | None) -> audit.AuditPage:
    """A page of the front end's audit log, newest first."""
    try:
        with transaction():
            return audit.page(tenant, key, cursor=cursor, limit=limit, action=action,
                              subject=subject)
    except ValueError as error:
        raise BadCursor("the cursor is not one this service issued", field="cursor",
                             problem="unknown cursor") from error


EXPORTED_MATCHES = 10_000
"""An export lists at most this many of the player's matches (newest first)."""


def export(tenant: int, player_id: str, *, settings: Settings) -> dict[str, Any]:
    """All the service holds of a player, as JSON: their record, ratings over time,
    matches, the lines they said at tables, blocks, friends and requests, open
    challenges, the reports they made, tournament entries, suspension and sign-out, and
    what the audit log says was done to them; their wallet and ledger."""
    mine = record(tenant, player_id, Listing(0, datetime.min))
    with transaction():
        player = players.vouched_player(tenant, player_id)
        held = players.suspension_of(player)
        signed_out = as_utc(player.signed_out_at) if player.signed_out_at else None
        coin_data = coins.export_of(tenant, player_id)
        made = db.session.execute(select(Report).where(
            Report.tenant_pk == tenant, Report.reporter == player_id)
            .order_by(Report.pk)).scalars().all()
        entries = tournaments.entries_of(tenant, player_id)
        done = audit.done_to(tenant, player_id)
    return {
        "player_id": player_id, "name": mine.name, "created_at": mine.created_at,
        "totals": mine.totals.__dict__,
        "ratings": [{"pool": r.pool, "mu": r.mu, "sigma": r.sigma, "games": r.games,
                     "history": [p.__dict__ for p in rating_history(tenant, player_id, r.pool)]}
                    for r in mine.ratings],
        "matches": [_summary(m) for m in _all_matches(tenant, player_id, settings)],
        "chat": [{"match_id": match_id, "seat": line.seat, "name": line.name,
                  "phrase": line.phrase, "text": line.text, "filtered": line.filtered,
                  "at": line.at} for match_id, line in matches.chat_said_by(tenant, player_id)],
        "blocks": [b.__dict__ for b in blocks.blocks_of(tenant, player_id, None,
                                                        blocks.MAX_BLOCKS)],
        "friends": [f.__dict__ for f in friends.friends_of(tenant, player_id, None, 100_000)],
        "challenges": [{"id": c.id, "challenger": c.challenger, "challenged": c.challenged,
                        "status": c.status, "created_at": c.created_at}
                       for c in challenges.open_challenges(tenant, player_id)],
        "reports_made": [{"id": r.id, "reason": r.reason, "text": r.text,
                          "player_id": r.player_id, "created_at": as_utc(r.created_at),
                          "status": r.status} for r in made],
        "tournaments": [e.__dict__ for e in entries],
        "suspension": None if held is None else {
            "since": held.since, "until": held.until, "reason": held.reason},
        "signed_out_at": signed_out,
        "actions": [e.__dict__ for e in done],
        **coin_data,
    }


def _all_matches(tenant: int, player_id: str, settings: Settings) -> list[MatchSummary]:
    found: list[MatchSummary] = []
    cursor = None
    while len(found) < EXPORTED_MATCHES:
        page = matches.player_matches(tenant, player_id, cursor, 100, settings=settings)
        found.extend(page.matches)
        if page.next is None:
            break
        cursor = page.next
    return found[:EXPORTED_MATCHES]


def _summary(m: MatchSummary) -> dict[str, Any]:
    return {"id": m.id, "variant": m.variant, "status": m.status, "created_at": m.created_at,
            "finished_at": m.finished_at, "end_reason": m.end_reason, "scores": m.scores,
            "winner": m.winner, "draw": m.draw, "rated": m.rated,
            "seats": [{"seat": s.seat, "name": s.name, "player_id": s.player_id,
                       "bot": s.bot} for s in m.seats],
            "voided": m.voided}


ERASED_NAME = "Erased player"
ERASED_WORDS = "(erased)"
"""What stands for an erased player's chat text and report text."""


@dataclass(frozen=True)
class Erased:
    """What an erasure did."""

    player_id: str
    matches: int
    """Matches whose seats now show a pseudonym instead."""
    released: dict[str, list[str]] = field(default_factory=dict)


def erase(tenant: int, player_id: str, actor: str) -> Erased:
    """Erase a player. First they are signed out and held (suspended) everywhere, and
    once every process has read that, their tables are left, entries withdrawn and
    active matches forfeited; then in one transaction, their row locked, their id in
    every stored match, tournament and kept event is replaced by a random pseudonym
    (nothing links it back), their name likewise, and their ratings, rating charts,
    totals, blocks (both ways), reports (both ways), creates' keys and events removed;
    their coins returned to the mint (an ``erasure`` transfer) and their ledger kept under
    the pseudonym. Their opponents' records and ratings do not change."""
    players.vouched_player_now(tenant, player_id)
    # told to nobody: the erasure's one notice is ``player.erased``
    players.sign_out(tenant, player_id, actor, tell=False)
    players.suspend(tenant, player_id, None, "being erased", actor, tell=False)
    time.sleep(players.ACCESS_SECONDS)  # every instance refuses them from now on
    left = lobby.release_player(tenant, player_id)
    withdrawn = tournaments.withdraw_everywhere(tenant, player_id)
    forfeited = matches.forfeit_player(tenant, player_id)
    pseudonym = "erased-" + secrets.token_hex(8)
    with transaction(write=True):
        done = matches.pseudonymize(tenant, player_id, pseudonym, ERASED_NAME, ERASED_WORDS)

        gone = events.Erasure(player_id, pseudonym, ERASED_NAME, ERASED_WORDS, done.seats)

        def rewrite(kind: str, data: Any) -> Any:
            return events.erase(kind, data, gone)

        # an event may name their seat of a match without their id (a turn's name)
        needles = [player_id, *sorted({match_id for match_id, _ in done.seats})]
        webhooks.scrub(tenant, needles, rewrite)
        tournaments.pseudonymize(tenant, player_id, pseudonym, ERASED_NAME)
        blocks.forget(tenant, player_id)
        friends.forget(tenant, player_id)
        presence.forget(tenant, player_id)
        parties.forget(tenant, player_id)
        db.session.execute(delete(Report).where(Report.tenant_pk == tenant, or_(
            Report.reporter == player_id, Report.player_id == player_id)))
        challenges.forget(tenant, player_id)
        audit.pseudonymize(tenant, player_id, pseudonym)
        coins.erase(tenant, player_id, pseudonym)
        players.erase(tenant, player_id, rewrite, needles[1:])
        audit.record(tenant, actor, "player.erased", f"player:{pseudonym}",
                     matches=len(done.versions))
        # the one event that names the erased id: the front end's systems must forget it
        events.publish(tenant, "player.erased", {
            "player_id": player_id, "matches": len(done.versions)})
    return Erased(player_id, len(done.versions), {
        "tables_left": left, "tournaments_left": withdrawn, "matches_forfeited": forfeited})
