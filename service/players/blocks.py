"""Blocks between a front end's players: a player blocks another so that quick play and
skill matching never seat them together and no invitation passes between them (either
way). A player's blocks are bounded (:data:`MAX_BLOCKS`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, or_, select

from ..storage.base import as_utc, utcnow
from ..storage.db import db, transaction
from ..tenants import audit
from . import service as players
from .errors import BlockedPlayer, TooManyBlocks
from .models import Block

MAX_BLOCKS = 1000
"""Players one player may block."""

BlockHook = Callable[[int, str, str], None]
"""Told of a block, ``(tenant, player_id, blocked)``, in its write transaction (social
ends a friendship or a request between them)."""
_hooks: tuple[BlockHook, ...] = ()


def wire(*hooks: BlockHook) -> None:
    """Set who hears of a block (``create_app`` does)."""
    global _hooks
    _hooks = hooks


@dataclass(frozen=True)
class Blocked:
    player_id: str
    at: datetime


def block(tenant: int, player_id: str, other: str, actor: str) -> Blocked:
    """``player_id`` blocks ``other``, both players the front end vouched for
    (:class:`PlayerNotFound` otherwise: nobody else is ever matched); again: no change."""
    if other == player_id:
        raise BlockedPlayer("a player cannot block themselves", field="other",
                            problem="the player's own id")
    with transaction(write=True):
        players.lock_players(tenant, [player_id, other])  # a friend request waits
        found = db.session.get(Block, (tenant, player_id, other))
        if found is not None:
            return Blocked(other, as_utc(found.created_at))
        count = db.session.execute(select(func.count()).select_from(Block).where(
            Block.tenant_pk == tenant, Block.player_id == player_id)).scalar_one()
        if count >= MAX_BLOCKS:
            raise TooManyBlocks(f"a player may block at most {MAX_BLOCKS} players")
        now = utcnow()
        db.session.add(Block(tenant_pk=tenant, player_id=player_id, blocked_id=other,
                             created_at=now))
        for hook in _hooks:  # blocking ends a friendship, or a request
            hook(tenant, player_id, other)
        audit.record(tenant, actor, "player.blocked", f"player:{player_id}", other=other)
    return Blocked(other, now)


def unblock(tenant: int, player_id: str, other: str, actor: str) -> bool:
    """``player_id`` no longer blocks ``other``; whether they did."""
    with transaction(write=True):
        gone = db.session.execute(delete(Block).where(
            Block.tenant_pk == tenant, Block.player_id == player_id,
            Block.blocked_id == other)).rowcount  # type: ignore[attr-defined]
        if gone:
            audit.record(tenant, actor, "player.unblocked", f"player:{player_id}",
                         other=other)
    return bool(gone)


def blocks_of(tenant: int, player_id: str, after: str | None, limit: int) -> list[Blocked]:
    """Whom the player blocks, by id, the page after ``after``."""
    query = select(Block.blocked_id, Block.created_at).where(
        Block.tenant_pk == tenant, Block.player_id == player_id)
    if after is not None:
        query = query.where(Block.blocked_id > after)
    with transaction():
        rows = db.session.execute(query.order_by(Block.blocked_id).limit(limit)).all()
    return [Blocked(other, as_utc(at)) for other, at in rows]


def avoided_by(tenant: int, player_id: str) -> frozenset[str]:
    """Everyone the player blocks or is blocked by (caller's transaction): whom matching
    never seats them with."""
    rows = db.session.execute(select(Block.player_id, Block.blocked_id).where(
        Block.tenant_pk == tenant,
        or_(Block.player_id == player_id, Block.blocked_id == player_id))).all()
    return frozenset(b if a == player_id else a for a, b in rows)


def check_not_blocked(tenant: int, player_id: str | None, others: Iterable[str | None]) -> None:
    """:class:`BlockedPlayer` if ``player_id`` blocks, or is blocked by, one of
    ``others`` (caller's transaction)."""
    if player_id is None:
        return
    met = avoided_by(tenant, player_id) & {o for o in others if o}
    if met:
        raise BlockedPlayer("this table holds a player who blocked you, or whom you "
                            "blocked")


def forget(tenant: int, player_id: str) -> None:
    """Remove every block by or of the player (caller's write transaction)."""
    db.session.execute(delete(Block).where(Block.tenant_pk == tenant, or_(
        Block.player_id == player_id, Block.blocked_id == player_id)))




def blocked_by(tenant: int, player_id: str) -> frozenset[str]:
    """Everyone the player blocked (caller's transaction): whose chat they never see."""
    return frozenset(db.session.execute(select(Block.blocked_id).where(
        Block.tenant_pk == tenant, Block.player_id == player_id)).scalars())
