"""Friends: a player asks another (``PUT``), who accepts by asking back; either ends a
request or a friendship (``DELETE``). Both are players the front end vouched for; a
block between them refuses a request, and blocking ends a friendship. Bounded: a
player's friends (``BASRA_FRIENDS_MAX``) and their requests waiting, either way
(``BASRA_FRIEND_REQUESTS_MAX``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, delete, func, or_, select

from ..events import publish
from ..players import blocks, presence
from ..players import service as players
from ..settings import Settings
from ..storage.base import as_utc, utcnow
from ..storage.db import db, transaction
from ..tenants import audit
from .enums import FriendStatus
from .errors import TooManyFriends
from .models import Friendship


@dataclass(frozen=True)
class Friend:
    """Someone in a player's list: a friend, a request they made (``requested``), or
    one made to them (``asked``)."""

    player_id: str
    state: str
    since: datetime
    presence: str | None = None
    """A friend's presence (``online``, ``playing``, ``offline``); None for a request."""
    match_id: str | None = None
    """The match a friend is playing."""


def ask(tenant: int, player_id: str, other: str, actor: str, *, settings: Settings) -> Friend:
    """``player_id`` asks ``other`` to be friends, or accepts when ``other`` asked first;
    again: no change."""
    if other == player_id:
        raise blocks.BlockedPlayer("a player cannot befriend themselves", field="other",
                                   problem="the player's own id")
    with transaction(write=True):
        players.lock_players(tenant, [player_id, other])  # requests crossing queue
        mine = db.session.get(Friendship, (tenant, player_id, other))
        if mine is not None:
            return Friend(other, FriendStatus.FRIENDS if mine.status == FriendStatus.FRIENDS
                          else "requested", as_utc(mine.accepted_at or mine.created_at))
        blocks.check_not_blocked(tenant, player_id, [other])
        now = utcnow()
        theirs = db.session.get(Friendship, (tenant, other, player_id))
        if theirs is not None:  # they asked first: friends
            _check_friends(tenant, [player_id, other], settings.friends_max)
            theirs.status, theirs.accepted_at = FriendStatus.FRIENDS, now
            db.session.add(Friendship(tenant_pk=tenant, player_id=player_id, friend_id=other,
                                      status=FriendStatus.FRIENDS, created_at=now,
                                      accepted_at=now))
            audit.record(tenant, actor, "friend.accepted", f"player:{player_id}", other=other)
            publish(tenant, "friend.accepted", {"players": [other, player_id]},
                    [player_id, other])
            return Friend(other, FriendStatus.FRIENDS, now)
        _check_requests(tenant, player_id, other, settings.friend_requests_max)
        db.session.add(Friendship(tenant_pk=tenant, player_id=player_id, friend_id=other,
                                  status=FriendStatus.REQUESTED, created_at=now))
        publish(tenant, "friend.requested", {"from": player_id, "to": other}, [player_id, other])
        return Friend(other, "requested", now)


def _check_friends(tenant: int, who: list[str], most: int) -> None:
    """:class:`TooManyFriends` if one of ``who`` has ``most`` friends already."""
    for player in who:
        count = db.session.execute(select(func.count()).select_from(Friendship).where(
            Friendship.tenant_pk == tenant, Friendship.status == FriendStatus.FRIENDS,
            Friendship.player_id == player)).scalar_one()
        if count >= most:
            raise TooManyFriends(f"player {player!r} has {most} friends already")


def _check_requests(tenant: int, asking: str, asked: str, most: int) -> None:
    """:class:`TooManyFriends` if ``asking`` made ``most`` requests still waiting, or
    ``asked`` has ``most`` waiting for them (each side's own count: requests others make
    never stop a player asking)."""
    for column, player, what in ((Friendship.player_id, asking, "made"),
                                 (Friendship.friend_id, asked, "received")):
        count = db.session.execute(select(func.count()).select_from(Friendship).where(
            Friendship.tenant_pk == tenant, Friendship.status == FriendStatus.REQUESTED,
            column == player)).scalar_one()
        if count >= most:
            raise TooManyFriends(f"player {player!r} has {most} friend requests {what} "
                                 "waiting")


def end(tenant: int, player_id: str, other: str, actor: str) -> bool:
    """End a request (made or received) or a friendship between the two; whether there
    was one."""
    with transaction(write=True):
        players.lock_players(tenant, [player_id, other])
        gone = db.session.execute(delete(Friendship).where(
            Friendship.tenant_pk == tenant, or_(
                and_(Friendship.player_id == player_id, Friendship.friend_id == other),
                and_(Friendship.player_id == other, Friendship.friend_id == player_id)))
        ).rowcount  # type: ignore[attr-defined]
        if gone:
            audit.record(tenant, actor, "friend.removed", f"player:{player_id}", other=other)
            publish(tenant, "friend.removed", {"players": [player_id, other]}, [player_id, other])
    return bool(gone)


def friends_of(tenant: int, player_id: str, after: str | None, limit: int) -> list[Friend]:
    """A player's friends and requests both ways, by the other's id, after ``after``."""
    made = select(Friendship.friend_id.label("other"), Friendship.status,
                  func.coalesce(Friendship.accepted_at, Friendship.created_at).label("since")
                  ).where(Friendship.tenant_pk == tenant, Friendship.player_id == player_id)
    asked = select(Friendship.player_id.label("other"), Friendship.status.label("status"),
                   Friendship.created_at.label("since")).where(
        Friendship.tenant_pk == tenant, Friendship.friend_id == player_id,
        Friendship.status == FriendStatus.REQUESTED)
    both = made.union_all(asked).subquery()
    query = select(both.c.other, both.c.status, both.c.since, both.c.other.in_(
        select(Friendship.friend_id).where(Friendship.tenant_pk == tenant,
                                           Friendship.player_id == player_id)))
    if after is not None:
        query = query.where(both.c.other > after)
    with transaction():
        rows = db.session.execute(query.order_by(both.c.other).limit(limit)).all()
        seen = presence.told_of(tenant, (other for other, status, *_ in rows
                                         if status == FriendStatus.FRIENDS))
    return [Friend(other, FriendStatus.FRIENDS, as_utc(since), *seen[other])
            if status == FriendStatus.FRIENDS else
            Friend(other, "requested" if mine else "asked", as_utc(since))
            for other, status, since, mine in rows]


def friend_ids(tenant: int, player_id: str) -> list[str]:
    """The player's friends' ids (caller's transaction)."""
    return list(db.session.execute(select(Friendship.friend_id).where(
        Friendship.tenant_pk == tenant, Friendship.player_id == player_id,
        Friendship.status == FriendStatus.FRIENDS)).scalars())


def unfriend(tenant: int, one: str, other: str) -> None:
    """End a friendship or a request between the two, either way (caller's write
    transaction): a block's hook, wired by ``create_app``."""
    db.session.execute(delete(Friendship).where(Friendship.tenant_pk == tenant, or_(
        and_(Friendship.player_id == one, Friendship.friend_id == other),
        and_(Friendship.player_id == other, Friendship.friend_id == one))))


def forget(tenant: int, player_id: str) -> None:
    """Remove every friendship and request by or of the player (caller's write
    transaction)."""
    db.session.execute(delete(Friendship).where(Friendship.tenant_pk == tenant, or_(
        Friendship.player_id == player_id, Friendship.friend_id == player_id)))
