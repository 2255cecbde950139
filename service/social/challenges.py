"""Challenges: a player challenges another (variant, house rules, rated, a clock); the
challenged player accepts (the match is made with both seated, the challenger first),
declines, or lets it expire (``BASRA_CHALLENGE_SECONDS``); the challenger may cancel.
Refused between players either of whom blocked the other, to a suspended player, and
past ``BASRA_CHALLENGES_MAX`` open challenges of either."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, or_, select

from ..coins import ledger
from ..engine import load_variant, with_house_rules
from ..events import publish
from ..matches import service as matches
from ..matches.errors import WrongPlayerCount
from ..matches.results import match_view
from ..matches.seats import PlayerSpec
from ..matches.service import CreatedMatch, Stake
from ..players import blocks
from ..players import service as players
from ..settings import Settings
from ..storage.base import as_utc, utcnow
from ..storage.db import db, transaction
from .enums import ChallengeStatus
from .errors import ChallengeClosed, ChallengeNotFound, NotYourChallenge, TooManyChallenges
from .models import Challenge


@dataclass(frozen=True)
class ChallengeView:
    """A challenge as its two players see it."""

    id: str
    challenger: str
    challenged: str
    variant: str
    rules: dict[str, Any]
    rated: bool
    clock: dict[str, Any] | None
    status: ChallengeStatus
    created_at: datetime
    expires_at: datetime
    match_id: str | None
    stake: Stake | None = None
    """What each player stakes (None: unstaked)."""


def view_of(c: Challenge, now: datetime | None = None) -> ChallengeView:
    status = ChallengeStatus(c.status)
    if status == ChallengeStatus.OPEN and as_utc(c.expires_at) <= (now or utcnow()):
        status = ChallengeStatus.EXPIRED
    clock = {"move_seconds": c.clock_seconds, "timeout": c.clock_timeout} \
        if c.clock_seconds else None
    return ChallengeView(c.id, c.challenger, c.challenged, c.variant, dict(c.rules or {}),
                         c.rated, clock, status, as_utc(c.created_at), as_utc(c.expires_at),
                         c.match_id, None if c.stake_currency is None
                         else Stake(c.stake_currency, int(c.stake_amount)))


def event_data(view: ChallengeView) -> dict[str, Any]:
    """A challenge as its events tell it."""
    return {"challenge_id": view.id, "challenger": view.challenger,
            "challenged": view.challenged, "variant": view.variant, "rated": view.rated,
            "expires_at": view.expires_at.isoformat().replace("+00:00", "Z"),
            "match_id": view.match_id}


def challenge(tenant: int, challenger: str, challenged: str, variant: str,
              rules: Mapping[str, Any], rated: bool,
              clock: tuple[int, str] | None, *, stake: Stake | None = None,
              settings: Settings) -> ChallengeView:
    """``challenger`` challenges ``challenged``; the challenged player's stream (and the
    front end's webhooks) hear ``challenge.created``. A ``stake``'s currency must be the
    front end's; each player holds it as the acceptance seats them."""
    if challenged == challenger:
        raise blocks.BlockedPlayer("a player cannot challenge themselves", field="to",
                                   problem="the player's own id")
    effective = with_house_rules(load_variant(variant).rules, rules)  # refused now: 422
    if effective.players != 2:
        raise WrongPlayerCount(f"{variant} with these rules is for "
                                       f"{effective.players} players: a challenge is for two",
                                       field="variant", problem="not a two-player variant")
    players.check_player(tenant, challenged)
    now = utcnow()
    with transaction(write=True):
        players.lock_players(tenant, [challenger, challenged])  # the counts hold
        blocks.check_not_blocked(tenant, challenger, [challenged])
        if stake is not None:
            ledger.check_currencies(tenant, [stake.currency])
        most = settings.challenges_max
        for column, player, what in ((Challenge.challenger, challenger, "made"),
                                     (Challenge.challenged, challenged, "received")):
            if _open_count(tenant, column, player, now) >= most:
                raise TooManyChallenges(f"player {player!r} has {most} open challenges "
                                        f"{what}")
        row = Challenge(id=str(uuid.uuid4()), tenant_pk=tenant, challenger=challenger,
                        challenged=challenged, variant=variant, rules=dict(rules), rated=rated,
                        clock_seconds=clock[0] if clock else None,
                        clock_timeout=clock[1] if clock else None,
                        stake_currency=stake.currency if stake else None,
                        stake_amount=stake.amount if stake else None,
                        status=ChallengeStatus.OPEN, created_at=now,
                        expires_at=now + timedelta(seconds=settings.challenge_seconds))
        db.session.add(row)
        db.session.flush()
        view = view_of(row, now)
        publish(tenant, "challenge.created", event_data(view), [challenged])
        return view


def _open_count(tenant: int, column: Any, player: str, now: datetime) -> int:
    """The player's open challenges, made (``column`` the challenger) or received."""
    return int(db.session.execute(select(func.count()).select_from(Challenge).where(
        Challenge.tenant_pk == tenant, Challenge.status == ChallengeStatus.OPEN,
        Challenge.expires_at > now, column == player)).scalar_one())


def _find(tenant: int, challenge_id: str, player_id: str | None,
          lock: bool = False) -> Challenge:
    """The challenge, if ``player_id`` (None: the server key) is one of its players."""
    query = select(Challenge).where(Challenge.tenant_pk == tenant, Challenge.id == challenge_id)
    found = db.session.execute(query.with_for_update() if lock else query).scalar()
    if found is None or (player_id is not None
                         and player_id not in (found.challenger, found.challenged)):
        raise ChallengeNotFound(f"no challenge {challenge_id!r}")
    return found


def _answerable(c: Challenge, by: str | None, side: str) -> None:
    """:class:`NotYourChallenge` unless ``by`` (None: the server key) is the challenge's
    ``side``; :class:`ChallengeClosed` unless it is open and in time."""
    if by is not None and getattr(c, side) != by:
        raise NotYourChallenge(f"only the {side} player may do this")
    status = view_of(c).status
    if status != ChallengeStatus.OPEN:
        raise ChallengeClosed(f"the challenge is {status}")


@dataclass(frozen=True)
class Accepted:
    """An accepted challenge and its match, as the challenged player's seat sees it."""

    challenge: ChallengeView
    match: CreatedMatch


def accept(tenant: int, challenge_id: str, by: str | None, *, settings: Settings) -> Accepted:
    """The challenged player accepts: in one transaction, under the challenge's row lock,
    the match is made with both seated, the challenger in seat 0 (rated by the usual
    rules), and the challenger hears ``challenge.accepted`` with its id. Accepted once,
    whoever races; refused if either has blocked the other since, or the challenger is
    suspended; a staked one refused (``insufficient_funds``, ``in_debt``: nothing
    changes, the challenge stays open) unless both can hold the stake."""
    with transaction(write=True):
        c = _find(tenant, challenge_id, by, lock=True)
        _answerable(c, by, "challenged")
        blocks.check_not_blocked(tenant, c.challenger, [c.challenged])
        players.check_player(tenant, c.challenger)
        specs = [PlayerSpec(players.vouched_player(tenant, p).name or p, p, vouched=True)
                 for p in (c.challenger, c.challenged)]
        if c.rated:
            matches.check_ratable(specs[1], [c.challenger], "challenge")
        rules = with_house_rules(load_variant(c.variant).rules, c.rules or {})
        new = matches.deal_match(c.variant, rules, specs, tenant=tenant)
        match = matches.insert_match(
            new, tenant, rated=c.rated,
            clock=(c.clock_seconds, c.clock_timeout or "autoplay") if c.clock_seconds else None,
            stake=view_of(c).stake, settings=settings)
        c.status, c.match_id = ChallengeStatus.ACCEPTED, match.id
        view = view_of(c)
        publish(tenant, "challenge.accepted", event_data(view), [c.challenger, c.challenged])
    seen = match_view(match, new.state, 1)
    return Accepted(view, CreatedMatch(match.id, tuple(new.tokens), seen.commitment, seen))


def decline(tenant: int, challenge_id: str, by: str | None) -> ChallengeView:
    """The challenged player declines; the challenger hears ``challenge.declined``."""
    return _close(tenant, challenge_id, by, "challenged", ChallengeStatus.DECLINED)


def cancel(tenant: int, challenge_id: str, by: str | None) -> ChallengeView:
    """The challenger takes it back; the challenged player hears ``challenge.cancelled``."""
    return _close(tenant, challenge_id, by, "challenger", ChallengeStatus.CANCELLED)


def _close(tenant: int, challenge_id: str, by: str | None, side: str,
           status: ChallengeStatus) -> ChallengeView:
    with transaction(write=True):
        c = _find(tenant, challenge_id, by, lock=True)
        _answerable(c, by, side)
        c.status = status
        view = view_of(c)
        publish(tenant, f"challenge.{status}", event_data(view), [c.challenger, c.challenged])
        return view


def read(tenant: int, challenge_id: str, by: str | None) -> ChallengeView:
    """A challenge, to one of its players (or the server key)."""
    with transaction():
        return view_of(_find(tenant, challenge_id, by))


def open_challenges(tenant: int, player_id: str) -> list[ChallengeView]:
    """The player's open challenges, made and received, oldest first (at most
    ``BASRA_CHALLENGES_MAX`` each way)."""
    now = utcnow()
    with transaction():
        rows = db.session.execute(select(Challenge).where(
            Challenge.tenant_pk == tenant, Challenge.status == ChallengeStatus.OPEN,
            Challenge.expires_at > now,
            or_(Challenge.challenger == player_id, Challenge.challenged == player_id))
            .order_by(Challenge.pk)).scalars().all()
    return [view_of(c, now) for c in rows]


def forget(tenant: int, player_id: str) -> None:
    """Remove every challenge by or to the player (caller's write transaction)."""
    db.session.execute(delete(Challenge).where(Challenge.tenant_pk == tenant, or_(
        Challenge.challenger == player_id, Challenge.challenged == player_id)))
