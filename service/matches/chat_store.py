"""Table chat in the database: a front end's chat settings, the lines said at a match
(read after a number, counted for the caps), a player's lines for their export.
It runs inside the transaction its caller opened (:mod:`service.storage.db`); what may
be said, and by whom, is :mod:`.chat`'s.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, func, select

from ..storage.base import as_utc, utcnow
from ..storage.db import db
from .models import ChatLine, ChatSettings, Match, Seat
from .rows import ChatLineRow

_M = Match.__table__
_S = Seat.__table__


def chat_lines(match_pk: int, after: int, limit: int) -> list[ChatLineRow]:
    """A match's lines after ``after``, oldest first (caller's transaction)."""
    found = db.session.execute(select(
        ChatLine.pk, ChatLine.seat, ChatLine.player_id, ChatLine.name, ChatLine.phrase,
        ChatLine.text, ChatLine.filtered, ChatLine.created_at)
        .where(ChatLine.match_pk == match_pk, ChatLine.pk > after)
        .order_by(ChatLine.pk).limit(limit)).all()
    return [ChatLineRow(pk, seat, player, name, phrase, text, filtered, as_utc(at))
            for pk, seat, player, name, phrase, text, filtered, at in found]


def chat_said_by(tenant: int, player_id: str, limit: int) -> list[tuple[str, ChatLineRow]]:
    """The lines a player said at the tenant's tables, oldest first, each with its match's
    id (at most ``limit``)."""
    found = db.session.execute(select(
        _M.c.id, ChatLine.pk, ChatLine.seat, ChatLine.player_id, ChatLine.name,
        ChatLine.phrase, ChatLine.text, ChatLine.filtered, ChatLine.created_at)
        .join(_M, _M.c.pk == ChatLine.match_pk)
        .where(_M.c.tenant_pk == tenant, ChatLine.player_id == player_id)
        .order_by(ChatLine.pk).limit(limit)).all()
    return [(match_id, ChatLineRow(pk, seat, player, name, phrase, text, filtered, as_utc(at)))
            for match_id, pk, seat, player, name, phrase, text, filtered, at in found]


def newest_chat_line(match_pk: int) -> int:
    """The number of a match's newest line (0: none) (caller's transaction)."""
    return int(db.session.execute(select(func.max(ChatLine.pk)).where(
        ChatLine.match_pk == match_pk)).scalar_one_or_none() or 0)


def chat_said(match_pk: int, player_id: str | None, seat: int | None,
              since: datetime) -> tuple[int, int]:
    """(lines the speaker said at the match since ``since``, lines said there in all)."""
    mine = ChatLine.player_id == player_id if player_id is not None else and_(
        ChatLine.player_id.is_(None), ChatLine.seat == seat)
    recent, total = db.session.execute(select(
        func.count().filter(and_(mine, ChatLine.created_at >= since)), func.count())
        .where(ChatLine.match_pk == match_pk)).one()
    return int(recent), int(total)


def chat_settings(tenant: int) -> ChatSettings | None:
    """The front end's chat settings as kept (None: the defaults)."""
    return db.session.get(ChatSettings, tenant)


def keep_chat_settings(tenant: int, mode: str, spectators: bool, words: list[str]) -> None:
    """Keep the front end's chat settings (caller's write transaction)."""
    kept = db.session.get(ChatSettings, tenant)
    if kept is None:
        kept = ChatSettings(tenant_pk=tenant)
        db.session.add(kept)
    kept.mode, kept.spectators, kept.words, kept.updated_at = mode, spectators, words, utcnow()
