"""Matches in the database, written: a new match inserted at version 0, a change saved
(with whatever other rows go with it, unknown to it) only if the match is still at the
version it was worked out on, a player's id replaced by a pseudonym, a sealed table made
public. Rows only; it runs inside the transaction its caller opened
(:mod:`service.storage.db`); no rules here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

import psycopg
from sqlalchemy import bindparam, case, delete, exists, insert, select, update

from ..engine import State, state_to_dict
from ..storage import writes
from ..storage.base import as_utc, utcnow
from ..storage.db import db
from .enums import ClockTimeout, MatchStatus
from .models import ChatLine, CreateKey, IdempotencyKey, Match, MoveRecord, Seat
from .rows import STAND_IN, LogEntry, MatchRow, SeatRow, Stake
from .seats import NewSeat

_M = Match.__table__
_S = Seat.__table__

_SAVED = ("snapshot", "version", "status", "end_reason", "rounds", "turn", "scores",
          "winner", "draw", "updated_at", "finished_at", "deadline", "timeouts",
          "rating_changes", "rematch_id", "voided_at", "void_reason", "dropped")
"""The columns a change sets."""


@lru_cache(maxsize=2)
def _guard(keyed: bool) -> Any:
    """The UPDATE that saves a change only if the match is still at the version read
    (and, ``keyed``, the seat has not used the move's Idempotency-Key since it expired)."""
    stmt = _M.update().where(_M.c.pk == bindparam("match_pk"),
                             _M.c.version == bindparam("read"))
    if keyed:
        keys = IdempotencyKey.__table__
        stmt = stmt.where(~exists().where(
            keys.c.match_pk == bindparam("match_pk"), keys.c.seat == bindparam("key_seat"),
            keys.c.key == bindparam("key"), keys.c.created_at >= bindparam("key_since")))
    return stmt.values({name: bindparam(f"new_{name}") for name in _SAVED})


@dataclass(frozen=True)
class KeyRecord:
    """An Idempotency-Key to remember with a move: the seat's key and the request's
    fingerprint; a record of the key made at or after ``since`` (not expired) stops the
    save."""

    seat: int
    key: str
    fingerprint: str
    since: datetime


def _listed(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def write(new: MatchRow, state: State, read: int, entries: Sequence[LogEntry],
         parts: Sequence[writes.Rows], *, seats_changed: bool = False,
         key: KeyRecord | None = None, notices: Sequence[str] = (), channel: str = "",
         alone: psycopg.Connection[Any] | None = None) -> bool:
    """Save ``new`` (the match in ``state``) with its log ``entries``, its changed seats,
    ``key``'s record and the other domains' ``parts``, only if the stored match is still
    at version ``read`` (and the seat has not used ``key``); whether it did. The entries
    are numbered from ``read + 1``; ``notices`` go out on ``channel`` when it commits.
    One statement on PostgreSQL, on ``alone`` if given (see :func:`writes.save_if`)."""
    values = {f"new_{name}": _listed(getattr(new, name)) for name in _SAVED[1:]}
    params = {"new_snapshot": state_to_dict(state), **values, "match_pk": new.pk, "read": read}
    mine = [_log(new.pk, read, entries, new.updated_at)]
    if seats_changed:
        mine.append(writes.Rows(_S, tuple(
            {"match_pk": new.pk, "seat": s.seat, "name": s.name, "player_id": s.player_id,
             "token_hash": s.token_hash, "vouched": s.vouched} for s in new.seats),
            key=("match_pk", "seat")))
    if key is not None:
        params.update(key_seat=key.seat, key=key.key, key_since=key.since)
        mine.append(writes.Rows(IdempotencyKey.__table__, ({
            "match_pk": new.pk, "seat": key.seat, "key": key.key,
            "fingerprint": key.fingerprint, "first_seq": read + 1, "version": new.version,
            "created_at": new.updated_at},), upsert=True))
    return writes.save_if(_guard(key is not None), params, [*mine, *parts], notices,
                          channel, alone)


def _log(match_pk: int, read: int, entries: Sequence[LogEntry], now: datetime) -> writes.Rows:
    """Move-log rows of ``entries``, numbered from ``read + 1``."""
    return writes.Rows(MoveRecord.__table__, tuple(
        {"match_pk": match_pk, "seq": read + i, "kind": e.kind, "round": e.round,
         "seat": e.seat, "card": str(e.play.card) if e.play else None,
         "captured": [str(c) for c in e.play.captured] if e.play else None,
         "basra": e.play.basra if e.play else None, "timeout": e.timeout,
         "stand_in": e.stand_in, "created_at": now}
        for i, e in enumerate(entries, start=1)))


def create(match_id: str, tenant: int, variant: str, state: State, seats: Sequence[NewSeat],
           commitment: str, explicit_decks: bool, *, status: MatchStatus, quick: bool,
           clock: tuple[int, ClockTimeout] | None, rated: bool,
           tournament_game: bool = False, stand_in: str | None = None,
           spectator_delay: int = 0, sealed: bool = False,
           stake: Stake | None = None) -> MatchRow:
    """Insert a tenant's match at version 0, its seats and its starting snapshot (and
    its ``stake``, with the rake it was made with)."""
    now = utcnow()
    seconds, timeout = clock if clock else (None, None)
    stand_in = stand_in or STAND_IN
    fixed = {"id": match_id, "tenant_pk": tenant, "variant": variant,
             "rules": state.rules.to_dict(), "rules_hash": state.rules.content_hash,
             "seed": state.seed, "commitment": commitment, "explicit_decks": explicit_decks,
             "created_at": now, "quick": quick, "tournament_game": tournament_game,
             "rated": rated, "clock_seconds": seconds,
             "clock_timeout": timeout, "stand_in": stand_in,
             "spectator_delay": spectator_delay, "sealed": sealed,
             "stake_currency": stake.currency if stake else None,
             "stake_amount": stake.amount if stake else None,
             "rake_share_bp": stake.rake_share_bp if stake else None,
             "rake_cap": stake.rake_cap if stake else None}
    row = MatchRow(
        0, match_id, tenant, variant, state.rules.content_hash, status, 0, state.seed,
        commitment, explicit_decks, now, now, None, (), None, False, None, 1, None, rated,
        None, quick, tournament_game, None, seconds, timeout, None, (0,) * len(seats),
        tuple(SeatRow(i, s.name, s.player_id, s.bot, s.token_hash, s.vouched)
              for i, s in enumerate(seats)),
        stand_in=stand_in, spectator_delay=spectator_delay, sealed=sealed, stake=stake,
    ).after(state, 0, now, status=status)
    saved = {name: _listed(getattr(row, name)) for name in _SAVED[1:]}
    pk = db.session.execute(insert(_M).returning(_M.c.pk), {
        **fixed, **saved, "snapshot": state_to_dict(state)}).scalar_one()
    db.session.execute(insert(_S), [
        {"match_pk": pk, "seat": s.seat, "name": s.name, "player_id": s.player_id, "bot": s.bot,
         "token_hash": s.token_hash, "vouched": s.vouched} for s in row.seats])
    return dataclasses.replace(row, pk=pk)


@dataclass(frozen=True)
class Pseudonymized:
    """What replacing a player's id changed: the seats (match id, seat) they held, and
    each match's new version with the facts its NOTIFY carries."""

    seats: frozenset[tuple[str, int]]
    versions: tuple[tuple[str, int, MatchStatus, int | None, datetime | None], ...]


def pseudonymize(tenant: int, player_id: str, pseudonym: str, name: str,
                 creator: str, words: str) -> Pseudonymized:
    """Replace a player's id (and name) in every seat of the tenant's matches (the seat
    vouched for no more) and in their rating changes by ``pseudonym``, the texts they
    said at a table by ``words``, each match a version on, and forget the creates they
    made (``creator``: their create keys' caller), in the caller's write
    transaction."""
    held = db.session.execute(select(_M.c.pk, _M.c.id, _S.c.seat, _M.c.rating_changes)
                              .join(_S, _S.c.match_pk == _M.c.pk)
                              .where(_M.c.tenant_pk == tenant, _S.c.player_id == player_id)
                              .with_for_update(of=_M)).all()
    pks = sorted({pk for pk, _, _, _ in held})
    for pk, _, _, changes in {r[0]: r for r in held}.values():
        if changes and any(c.get("player_id") == player_id for c in changes):
            db.session.execute(_M.update().where(_M.c.pk == pk).values(rating_changes=[
                {**c, "player_id": pseudonym} if c.get("player_id") == player_id else c
                for c in changes]))
    db.session.execute(delete(CreateKey).where(CreateKey.tenant_pk == tenant,
                                               CreateKey.caller == creator))
    db.session.execute(update(ChatLine).where(
        ChatLine.player_id == player_id,
        ChatLine.match_pk.in_(select(_M.c.pk).where(_M.c.tenant_pk == tenant))
    ).values(player_id=pseudonym, name=name,
             text=case((ChatLine.text.is_(None), None), else_=words)))
    if not pks:
        return Pseudonymized(frozenset(), ())
    # nobody vouches for a pseudonym: its seat counts in no record or rating again
    db.session.execute(_S.update().where(_S.c.match_pk.in_(pks), _S.c.player_id == player_id)
                       .values(player_id=pseudonym, name=name, vouched=False))
    # a new version: every process's views of the old one (and clients' ETags) lapse
    versions = db.session.execute(_M.update().where(_M.c.pk.in_(pks))
                                  .values(version=_M.c.version + 1)
                                  .returning(_M.c.id, _M.c.version, _M.c.status, _M.c.turn,
                                             _M.c.deadline)).all()
    return Pseudonymized(frozenset((match_id, seat) for _, match_id, seat, _ in held),
                         tuple((i, v, MatchStatus(st), t, None if d is None else as_utc(d))
                               for i, v, st, t, d in versions))


def unseal(match_pks: Sequence[int]) -> None:
    """Make these matches' seeds and plays public (their duplicate round is over)."""
    if match_pks:
        db.session.execute(update(_M).where(_M.c.pk.in_(list(match_pks))).values(sealed=False))


def keep_rating_changes(match_pk: int, changes: Sequence[dict[str, Any]]) -> None:
    """Keep a match's rating changes, rated after it finished (an unsealed table)."""
    db.session.execute(update(_M).where(_M.c.pk == match_pk).values(
        rating_changes=list(changes)))
