"""Ending a match other than by its last play: a seat resigns, or claims the win from a
silent one; a suspended player's matches forfeited; a result voided; a sealed round
unsealed; a match its event called off."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..engine import MatchFinished, resign, team_of
from ..players.service import Credential
from ..settings import Settings
from ..storage import writes
from ..storage.base import utcnow
from ..storage.db import after_commit, transaction
from ..tenants import audit
from . import cache, changes, finish, saves, store
from .changes import Change
from .conditions import check_playing
from .enums import EndReason, MatchStatus, MoveKind
from .errors import ClaimTooEarly, MatchNotFinished, MatchVoided
from .results import MatchView, MoveResult, match_view
from .seats import acting_seat


def resign_match(match_id: str, tenant: int, token: Credential | None,
                 if_match: int | None) -> MoveResult:
    """The token's seat resigns: the match ends, the other team wins."""
    with transaction(write=True):
        match, state = store.read(match_id, tenant, lock=True)
        seat = acting_seat(match, token)
        check_playing(match, if_match)
        entries = [changes.log(MoveKind.RESIGN, seat, state)]
        state = resign(state, seat)
        saved = changes.save(match, state, Change(entries, end_reason=EndReason.RESIGNED))
    cache.written.drop((tenant, match_id))
    return MoveResult(None, (), match_view(saved, state, seat))


def claim_win(match_id: str, tenant: int, token: Credential | None,
              if_match: int | None, *, settings: Settings) -> MoveResult:
    """The token's seat claims the win from the seat to play, silent (no move, nothing
    changed) for ``BASRA_CLAIM_AFTER_SECONDS``: that seat's team forfeits, as if it had
    resigned (``end_reason`` ``claimed``; a rated match is rated so). Earlier, or on
    the claimer's own team's turn, :class:`ClaimTooEarly`."""
    after = settings.claim_after_seconds
    with transaction(write=True):
        match, state = store.read(match_id, tenant, lock=True)
        seat = acting_seat(match, token)
        check_playing(match, if_match)
        if state.finished or state.turn is None:
            raise MatchFinished("the match is finished")
        silent = state.turn
        if team_of(silent) == team_of(seat):
            raise ClaimTooEarly(f"it is your team's turn (seat {silent}): play, or resign")
        waited = (utcnow() - match.updated_at).total_seconds()
        if waited < after:
            raise ClaimTooEarly(
                f"seat {silent} has been silent {waited:.0f} s; a win can be claimed once "
                f"it has been {after:.0f} s: in {max(1, math.ceil(after - waited))} s")
        entries = [changes.log(MoveKind.FORFEIT, silent, state)]
        state = resign(state, silent)
        saved = changes.save(match, state, Change(entries, end_reason=EndReason.CLAIMED))
    cache.written.drop((tenant, match_id))
    return MoveResult(None, (), match_view(saved, state, seat))


def forfeit_player(tenant: int, player_id: str) -> list[str]:
    """Every active match where the vouched player holds a seat ends as their side's
    loss (``end_reason`` ``suspended``; a rated one is rated so): the ids."""
    with transaction():
        found = store.matches_of(tenant, player_id, [MatchStatus.ACTIVE])
    ended = []
    for match_id in found:
        with transaction(write=True):
            match, state = store.read(match_id, tenant, lock=True)
            seats = [seat for seat, holder in match.vouched if holder == player_id]
            if match.status != MatchStatus.ACTIVE or not seats:
                continue
            entries = [changes.log(MoveKind.FORFEIT, seats[0], state)]
            changes.save(match, resign(state, seats[0]),
                         Change(entries, end_reason=EndReason.SUSPENDED))
        cache.written.drop((tenant, match_id))
        ended.append(match_id)
    return ended


def void_match(match_id: str, tenant: int, reason: str, actor: str) -> MatchView:
    """Void a finished match's result: what it gave or took is taken back (ratings,
    totals; tournament points by the tournaments' subscriber), it shows as voided, and
    a ``match.voided`` event goes out. Once: again is :class:`MatchVoided`."""
    with transaction(write=True):
        match, state = store.read(match_id, tenant, lock=True)
        if match.voided_at is not None:
            raise MatchVoided(f"match {match_id!r} was voided already: a result is "
                              "voided once")
        if match.status != MatchStatus.FINISHED:
            raise MatchNotFinished(f"match {match_id!r} is {match.status}: only a "
                                   "finished match's result can be voided")
        match = changes.save(match, state, Change(void_reason=reason))
        audit.record(tenant, actor, "match.voided", f"match:{match_id}", reason=reason)
    cache.written.drop((tenant, match_id))
    return match_view(match, state, None)


def unseal(match_pks: Sequence[int]) -> None:
    """Make sealed matches' seeds, plays and results public, their duplicate round over
    (caller's write transaction): each finished table's ratings and totals recorded now
    (:func:`finish.unsealed`); this process's kept matches forgotten."""
    for match, _ in store.read_sealed(match_pks):
        recorded = finish.unsealed(match)
        if recorded.parts:
            writes.write(recorded.parts)
        if recorded.rating_changes is not None:
            saves.keep_rating_changes(match.pk, recorded.rating_changes)
    saves.unseal(match_pks)
    after_commit(cache.reset)


def call_off(match_id: str, tenant: int) -> None:
    """End a match that its event called off (a cancelled tournament's game), in the
    caller's write transaction: ``aborted``, nobody wins; one over already stays so."""
    match, state = store.read(match_id, tenant, lock=True)
    if match.status in (MatchStatus.WAITING, MatchStatus.ACTIVE):
        changes.save(match, state, Change(status=MatchStatus.ABORTED,
                                           end_reason=EndReason.ABORTED))
    cache.written.drop((tenant, match_id))
