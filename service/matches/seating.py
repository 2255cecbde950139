"""Seats taken and left, and matches a seat ends or follows up: the changes the lobby
asks for, each in the caller's write transaction with the match's row locked."""

from __future__ import annotations

import dataclasses
from datetime import datetime

from ..engine import State
from ..players import service as players
from ..storage import writes
from . import changes, stakes, store
from .changes import Change
from .enums import EndReason, MatchStatus, MoveKind
from .replies import bots_play
from .rows import MatchRow, SeatRow
from .seats import PlayerSpec, mint_token


def locked(match_id: str, tenant: int) -> tuple[MatchRow, State]:
    """A tenant's match and its state, its row locked until the transaction ends."""
    return store.read(match_id, tenant, lock=True)


def _seat(match: MatchRow, seat: int, **who: object) -> tuple[SeatRow, ...]:
    return tuple(dataclasses.replace(s, **who) if s.seat == seat else s for s in match.seats)


def sit(match: MatchRow, state: State, seat: int, who: PlayerSpec) -> tuple[str, MatchRow, State]:
    """Seat a player in an open seat of a locked match (logged as a join); the match
    starts when no seat is left open, and the bots that lead play. At a staked table the
    seat holds the stake first (refused, and nothing changed, when the player cannot).
    The seat's new token, the match and its state."""
    if match.stake is not None:
        stakes.check_stakeable(who, [p for _, p in match.vouched], "player_id")
        assert who.player_id is not None
        stakes.hold(match, who.player_id)
    token, token_hash = mint_token()
    seats = _seat(match, seat, name=who.name or f"seat {seat}", player_id=who.player_id,
                  token_hash=token_hash, vouched=who.vouched and who.player_id is not None)
    if who.vouched and who.player_id is not None:
        players.remember(match.tenant, who.player_id, who.name)
    full = not any(s.open for s in seats)
    match = changes.save(match, state, Change(
        [changes.log(MoveKind.JOIN, seat, state)],
        status=None if full else MatchStatus.WAITING, seats=seats))
    if match.status == MatchStatus.ACTIVE:
        state, plays = bots_play(state, match.bots, match.tenant)
        if plays:
            match = changes.save(match, state, Change(match.logged(plays)))
    return token, match, state


def unseat(match: MatchRow, state: State, seat: int) -> MatchRow:
    """A player leaves the seat of a locked waiting match: it is open again (a leave),
    and at a staked table their stake goes back to them."""
    left = match.seats[seat]
    if match.stake is not None and left.vouched and left.player_id is not None:
        writes.write(stakes.released(match, left.player_id))
    seats = _seat(match, seat, name=None, player_id=None, token_hash=None, vouched=False)
    return changes.save(match, state, Change(
        [changes.log(MoveKind.LEAVE, seat, state)], status=MatchStatus.WAITING, seats=seats))


def played(match: MatchRow, seat: int) -> bool:
    """Whether the seat has played a card in the match."""
    return any(r.kind == MoveKind.PLAY and r.seat == seat for r in store.move_log(match.pk))


def abort(match: MatchRow, state: State, seat: int) -> MatchRow:
    """A seat ends a locked active match that nobody won (``aborted``)."""
    return changes.save(match, state, Change(
        [changes.log(MoveKind.ABORT, seat, state)],
        status=MatchStatus.ABORTED, end_reason=EndReason.ABORTED))


def point_to_rematch(match: MatchRow, state: State, seat: int, rematch_id: str) -> MatchRow:
    """Point a locked finished match at its follow-up (a log entry, so its watchers see
    it)."""
    return changes.save(match, state, Change(
        [changes.log(MoveKind.REMATCH, seat, state)],
        status=match.status, end_reason=match.end_reason, rematch_id=rematch_id))


def reissue(match: MatchRow, state: State, seat: int) -> tuple[str, MatchRow]:
    """A new token for a locked match's seat (the old one stops working); the seat's
    player keeps it (their player token works for it throughout)."""
    token, token_hash = mint_token()
    return token, changes.save(match, state, Change(
        status=match.status, seats=_seat(match, seat, token_hash=token_hash)))


def quick_tables_of(tenant: int, player_id: str, since: datetime, variant: str | None,
                    rules_hash: str | None = None) -> list[tuple[MatchRow, State]]:
    """The waiting quick-play tables where the vouched player holds a seat (of
    ``variant``, or all), locked; with ``rules_hash``, after queueing behind the
    quick-play callers of those rules (as :func:`quick_tables`)."""
    if rules_hash is not None:
        store.lock_quick_play(tenant, rules_hash)
    return store.quick_tables_of(tenant, player_id, since, variant)


def waiting_tables_of(tenant: int, player_id: str) -> list[str]:
    """Ids of the tables waiting for players where the vouched player holds a seat."""
    return store.matches_of(tenant, player_id, [MatchStatus.WAITING])


def quick_tables(tenant: int, rules_hash: str, since: datetime, rated: bool,
                 limit: int, stake: tuple[str, int] | None = None
                 ) -> list[tuple[MatchRow, State]]:
    """The oldest ``limit`` waiting quick-play tables of a tenant with these rules (rated
    or not) at this ``stake`` (currency, amount; None: unstaked) made after ``since``,
    locked; quick-play callers of the same tenant and rules queue behind this one until
    its transaction ends."""
    store.lock_quick_play(tenant, rules_hash)
    return store.quick_tables(tenant, rules_hash, since, rated=rated, limit=limit,
                              stake=stake)
