"""Parties: a player leads one and invites another (a party of two: partners at a
four-player table); the invited player joins; quick play with the party seats both as
partners (``service.lobby``). A player is joined to one party at a time; the leader
leaving disbands it. Each change is an event on the members' streams and a webhook."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, delete, or_, select
from sqlalchemy.exc import IntegrityError

from ..events import publish
from ..players import blocks
from ..players import service as players
from ..storage.base import as_utc, utcnow
from ..storage.db import db, transaction
from .enums import PartyMemberStatus
from .errors import PartyNotFound, PartyRefused
from .models import Party, PartyMember

SIZE = 2
"""Players in a party: partners at a four-player table."""
INVITES = 5
"""Invitations a party may have waiting."""


@dataclass(frozen=True)
class Member:
    player_id: str
    status: PartyMemberStatus
    at: datetime


@dataclass(frozen=True)
class PartyView:
    """A party: its leader, members and invitations."""

    id: str
    leader: str
    members: tuple[Member, ...]
    created_at: datetime

    @property
    def joined(self) -> list[str]:
        """The members, the leader first."""
        return [m.player_id for m in sorted(
            (m for m in self.members if m.status == PartyMemberStatus.JOINED),
            key=lambda m: (m.player_id != self.leader, m.at))]


def _view(p: Party) -> PartyView:
    rows = db.session.execute(select(PartyMember).where(PartyMember.party_pk == p.pk)
                              .order_by(PartyMember.at)).scalars().all()
    return PartyView(p.id, p.leader, tuple(Member(m.player_id, PartyMemberStatus(m.status),
                                                  as_utc(m.at)) for m in rows),
                     as_utc(p.created_at))


def _find(tenant: int, party_id: str, lock: bool = False) -> Party:
    query = select(Party).where(Party.tenant_pk == tenant, Party.id == party_id)
    found = db.session.execute(query.with_for_update() if lock else query).scalar()
    if found is None:
        raise PartyNotFound(f"no party {party_id!r}")
    return found


def _joined_elsewhere(tenant: int, player_id: str) -> bool:
    return db.session.execute(select(PartyMember.party_pk).where(
        PartyMember.tenant_pk == tenant, PartyMember.player_id == player_id,
        PartyMember.status == PartyMemberStatus.JOINED)).first() is not None


def create(tenant: int, leader: str) -> PartyView:
    """A new party led (and joined) by ``leader``, who is in no other."""
    now = utcnow()
    try:
        with transaction(write=True):
            players.vouched_player(tenant, leader)
            if _joined_elsewhere(tenant, leader):
                raise PartyRefused("you are in a party already: leave it first")
            party = Party(id=str(uuid.uuid4()), tenant_pk=tenant, leader=leader,
                          created_at=now)
            db.session.add(party)
            db.session.flush()
            db.session.add(PartyMember(party_pk=party.pk, player_id=leader, tenant_pk=tenant,
                                       status=PartyMemberStatus.JOINED, at=now))
            db.session.flush()
            return _view(party)
    except IntegrityError as error:  # joined another at the same moment
        raise PartyRefused("you are in a party already: leave it first") from error


def invite(tenant: int, party_id: str, by: str | None, player_id: str) -> PartyView:
    """The leader (``by``; None: the server key) invites a player: they hear
    ``party.invited``."""
    players.check_player(tenant, player_id)
    with transaction(write=True):
        party = _find(tenant, party_id, lock=True)
        if by is not None and by != party.leader:
            raise PartyRefused("only the party's leader invites")
        players.vouched_player(tenant, player_id)
        blocks.check_not_blocked(tenant, party.leader, [player_id])
        members = _view(party).members
        if player_id in {m.player_id for m in members}:
            return _view(party)
        if sum(m.status == PartyMemberStatus.JOINED for m in members) >= SIZE:
            raise PartyRefused(f"the party is full ({SIZE} players)")
        if sum(m.status == PartyMemberStatus.INVITED for m in members) >= INVITES:
            raise PartyRefused(f"the party has {INVITES} invitations waiting")
        db.session.add(PartyMember(party_pk=party.pk, player_id=player_id, tenant_pk=tenant,
                                   status=PartyMemberStatus.INVITED, at=utcnow()))
        db.session.flush()
        view = _view(party)
        publish(tenant, "party.invited", {"party_id": party.id, "leader": party.leader,
                                         "player_id": player_id}, [player_id])
        return view


def join(tenant: int, party_id: str, player_id: str) -> PartyView:
    """An invited player joins (in no other party, the party not full): the members hear
    ``party.joined``."""
    try:
        with transaction(write=True):
            party = _find(tenant, party_id, lock=True)
            mine = db.session.get(PartyMember, (party.pk, player_id))
            if mine is None:
                raise PartyNotFound(f"no party {party_id!r} you are invited to")
            if mine.status == PartyMemberStatus.JOINED:
                return _view(party)
            if _joined_elsewhere(tenant, player_id):
                raise PartyRefused("you are in a party already: leave it first")
            joined = _view(party).joined
            if len(joined) >= SIZE:
                raise PartyRefused(f"the party is full ({SIZE} players)")
            blocks.check_not_blocked(tenant, player_id, joined)  # a block since the invite
            mine.status, mine.at = PartyMemberStatus.JOINED, utcnow()
            db.session.flush()
            view = _view(party)
            publish(tenant, "party.joined", {"party_id": party.id, "player_id": player_id,
                                            "members": view.joined}, view.joined)
            return view
    except IntegrityError as error:
        raise PartyRefused("you are in a party already: leave it first") from error


def leave(tenant: int, party_id: str, player_id: str) -> None:
    """A member (or an invited player, declining) leaves; the leader leaving disbands the
    party (``party.disbanded``), another member's leaving is ``party.left``."""
    with transaction(write=True):
        party = _find(tenant, party_id, lock=True)
        view = _view(party)
        if player_id not in {m.player_id for m in view.members}:
            raise PartyNotFound(f"no party {party_id!r} you are in")
        told = [m.player_id for m in view.members]
        if player_id == party.leader:
            db.session.execute(delete(PartyMember).where(PartyMember.party_pk == party.pk))
            db.session.delete(party)
            publish(tenant, "party.disbanded", {"party_id": party.id}, told)
        else:
            db.session.execute(delete(PartyMember).where(PartyMember.party_pk == party.pk,
                                                         PartyMember.player_id == player_id))
            publish(tenant, "party.left", {"party_id": party.id, "player_id": player_id}, told)


def read(tenant: int, party_id: str, by: str | None) -> PartyView:
    """A party, to its members and invited players (or the server key)."""
    with transaction():
        view = _view(_find(tenant, party_id))
    if by is not None and by not in {m.player_id for m in view.members}:
        raise PartyNotFound(f"no party {party_id!r}")
    return view


def ready(tenant: int, party_id: str, by: str) -> PartyView:
    """The party ``by`` (a member) brings to quick play, full, its row locked until the
    caller's transaction ends (nobody leaves it while it is seated)."""
    view = _view(_find(tenant, party_id, lock=True))
    if by not in view.joined:
        raise PartyNotFound(f"no party {party_id!r} you are in")
    if len(view.joined) < SIZE:
        raise PartyRefused(f"the party is not full yet ({len(view.joined)} of {SIZE})",
                           field="party", problem="not full")
    return view


def forget(tenant: int, player_id: str) -> None:
    """The player out of every party, the parties they lead disbanded (caller's write
    transaction: an erasure)."""
    led = select(Party.pk).where(Party.tenant_pk == tenant, Party.leader == player_id)
    db.session.execute(delete(PartyMember).where(or_(
        PartyMember.party_pk.in_(led), and_(PartyMember.tenant_pk == tenant,
                                            PartyMember.player_id == player_id))))
    db.session.execute(delete(Party).where(Party.tenant_pk == tenant, Party.leader == player_id))
