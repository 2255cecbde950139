"""Tournament use cases: create, cancel, join, withdraw, read and list, a player's
entries exported and erased, standings kept again after a void (the standings are
:mod:`.standings`', a game's result and the end :mod:`.results`', the worker's steps
:mod:`.scheduled`'s)."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update

from ..engine import load_variant, with_house_rules
from ..matches import service as matches
from ..matches.service import call_off, unseal
from ..players import service as players
from ..settings import Settings
from ..storage.base import as_utc, utcnow
from ..storage.db import db, transaction
from ..tenants import service as tenants
from . import purse
from .enums import PairingStatus, TournamentStatus, TournamentSystem
from .errors import (
    EntryClosed,
    NotEntered,
    TooManyTournaments,
    TournamentNotFound,
    TwoPlayersOnly,
)
from .models import Entrant, Pairing, Tournament
from .purse import Fee
from .results import end
from .standings import (
    Loaded,
    entrants_of,
    load,
    names_of,
    seated,
    standing_row,
    standings_of,
)

OVER = (TournamentStatus.FINISHED, TournamentStatus.CANCELLED)


@dataclass(frozen=True)
class TournamentSpec:
    """A new tournament, as its front end asked for it."""

    name: str
    variant: str
    rules: dict[str, Any]
    system: str
    rounds: int | None
    duration_minutes: int | None
    starts_at: datetime
    min_players: int
    max_players: int
    rated: bool
    clock_seconds: int
    clock_timeout: str
    deals: int | None = None
    """A duplicate event's deals at each table a round."""
    entry_fee: Fee | None = None
    """Held from each entrant's wallet as they join; None: free to enter."""
    prizes: list[int] | None = None
    """The pool's distribution, percent by final place (None: the front end's default)."""


@dataclass(frozen=True)
class PairingView:
    """A game of the tournament: its match, its players by seat (first to play first)."""

    match_id: str | None
    players: list[str]
    winner: str | None
    draw: bool
    status: str
    """playing, finished, or void (not counted)."""


@dataclass(frozen=True)
class RoundView:
    """A Swiss (or duplicate) round: its pairings, its byes (a Swiss's one), and at a
    duplicate event the commitment every table's match shares."""

    round: int
    pairings: list[PairingView]
    bye: str | None
    byes: list[str]
    commitment: str | None = None


@dataclass(frozen=True)
class TournamentView:
    """A tournament as anyone of its front end sees it."""

    id: str
    name: str
    variant: str
    rules: dict[str, Any]
    system: str
    status: str
    planned_rounds: int | None
    deals: int | None
    duration_minutes: int | None
    starts_at: datetime
    ends_at: datetime | None
    min_players: int
    max_players: int
    rated: bool
    clock: dict[str, Any]
    round: int
    entrants: list[str]
    withdrawn: list[str]
    names: dict[str, str]
    """Every entrant's display name, by player id."""
    standings: list[dict[str, Any]]
    """Each line as :func:`standing_row` gives it; once finished, the final standings as
    kept (later ratings do not move them)."""
    rounds: list[RoundView] | None
    pairings: list[PairingView] | None
    created_at: datetime
    finished_at: datetime | None
    entry_fee: Fee | None
    prizes: list[int] | None
    pool: int
    """The entry fees of everyone entered (0 when free or cancelled)."""
    payouts: dict[str, int]
    """Once finished: what each prize winner was paid."""


# --- the front end's and the players' requests ------------------------------------


def create(tenant: int, spec: TournamentSpec, *, settings: Settings) -> TournamentView:
    """A new scheduled tournament (its rules checked now, as a match's would be)."""
    rules = with_house_rules(load_variant(spec.variant).rules, spec.rules)
    if rules.players != 2 and spec.system != TournamentSystem.DUPLICATE:
        raise TwoPlayersOnly(
            f"Swiss and arena matches are two-player; {spec.variant} with these rules is "
            f"for {rules.players}", field="rules", problem="must be a two-player game")
    with transaction(write=True):
        _check_open_count(tenant, settings.tournaments_per_front_end)
        fee, prizes = purse.terms(tenant, spec.entry_fee, spec.prizes)
        row = Tournament(
            id=str(uuid.uuid4()), tenant_pk=tenant, name=spec.name, variant=spec.variant,
            rules=spec.rules, system=spec.system, rounds=spec.rounds,
            duration_minutes=spec.duration_minutes, starts_at=spec.starts_at,
            min_players=spec.min_players, max_players=spec.max_players, rated=spec.rated,
            clock_seconds=spec.clock_seconds, clock_timeout=spec.clock_timeout,
            deals=spec.deals, status=TournamentStatus.SCHEDULED, round=0,
            fee_currency=fee.currency if fee else None,
            fee_amount=fee.amount if fee else None, prizes=prizes, created_at=utcnow())
        db.session.add(row)
        db.session.flush()
        return _view(row)


def _check_open_count(tenant: int, cap: int) -> None:
    """A front end holds at most ``BASRA_TOURNAMENTS_PER_FRONT_END`` tournaments scheduled
    or running (:class:`TooManyTournaments`); its creates queue on its row meanwhile."""
    tenants.queue_on(tenant)
    held = db.session.execute(select(func.count()).where(
        Tournament.tenant_pk == tenant, Tournament.status.not_in(OVER))).scalar_one()
    if held >= cap:
        raise TooManyTournaments(
            f"this front end has {held} tournaments scheduled or running, the most it may "
            f"(BASRA_TOURNAMENTS_PER_FRONT_END={cap}); cancel one or wait for one to end")


def cancel(tenant: int, tournament_id: str) -> TournamentView:
    """Call a tournament off (the front end's server): ``cancelled``, its games under way
    aborted (nobody wins them), its players told on their streams and the front end by
    its webhooks."""
    with transaction(write=True):
        t = _find(tenant, tournament_id, lock=True)
        if t.status in OVER:
            raise EntryClosed(f"the tournament is {t.status} already")
        ids = matches.match_ids(db.session.execute(select(Pairing.match_pk).where(
            Pairing.tournament_pk == t.pk, Pairing.status == PairingStatus.PLAYING,
            Pairing.match_pk.is_not(None))).scalars())
        playing = [ids[pk] for pk in sorted(ids)]
        # the matches first, as a move locks its match before its game's pairing (the
        # results subscriber voids each aborted game's pairing)
        for match_id in playing:
            call_off(match_id, tenant)
        unseal(list(db.session.execute(select(Pairing.match_pk).where(
            Pairing.tournament_pk == t.pk, Pairing.match_pk.is_not(None))).scalars()))
        db.session.execute(update(Pairing).where(
            Pairing.tournament_pk == t.pk, Pairing.status == PairingStatus.PLAYING
        ).values(status=PairingStatus.VOID, finished_at=utcnow()))
        end(t, utcnow(), TournamentStatus.CANCELLED, load(t))
        db.session.flush()
        return _view(t)


def _find(tenant: int, tournament_id: str, *, lock: bool = False) -> Tournament:
    """A tenant's tournament by id (another tenant's is not found); ``lock``: its row
    locked until the transaction ends."""
    query = select(Tournament).where(Tournament.id == tournament_id,
                                     Tournament.tenant_pk == tenant)
    found = db.session.execute(query.with_for_update() if lock else query).scalar_one_or_none()
    if found is None:
        raise TournamentNotFound(f"no tournament with id {tournament_id!r}")
    return found


def join(tenant: int, tournament_id: str, player_id: str, name: str | None) -> TournamentView:
    """Enter a vouched player (again, after a withdrawal, while entry is open). Entry
    closes when a Swiss or duplicate event starts; an arena takes entrants until it ends.
    Joining twice changes nothing. An entry fee is held from their wallet in the same
    transaction, before the entry is made (:class:`~service.coins.errors.InsufficientFunds`
    if short); an arena's entrant back after a withdrawal paid it already."""
    with transaction(write=True):
        t = _find(tenant, tournament_id, lock=True)
        if t.status in OVER or (t.status == TournamentStatus.RUNNING
                                                and t.system != TournamentSystem.ARENA):
            raise EntryClosed(f"the tournament is {t.status}: entry is closed")
        entrants = {e.player_id: e for e in entrants_of(t)}
        mine = entrants.get(player_id)
        if mine is not None and mine.withdrawn_at is None:
            return _view(t)
        if sum(1 for e in entrants.values() if e.withdrawn_at is None) >= t.max_players:
            raise EntryClosed(f"the tournament is full ({t.max_players} players)")
        players.check_player(tenant, player_id)  # a suspended player enters nothing
        players.remember(tenant, player_id, name)
        purse.hold_fee(t, player_id, utcnow())
        if mine is None:
            db.session.add(Entrant(tournament_pk=t.pk, player_id=player_id, name=name,
                                   joined_at=utcnow()))
        else:
            mine.withdrawn_at = None
            mine.name = name or mine.name
        db.session.flush()
        return _view(t)


def withdraw(tenant: int, tournament_id: str, player_id: str) -> TournamentView:
    """Take a player out: before the start, off the list and their entry fee given back;
    once running, no further pairings (their results so far stay in the standings, their
    fee in the pool; a match under way goes on)."""
    with transaction(write=True):
        t = _find(tenant, tournament_id, lock=True)
        mine = next((e for e in entrants_of(t) if e.player_id == player_id), None)
        if mine is None or mine.withdrawn_at is not None:
            raise NotEntered(f"player {player_id!r} is not in this tournament")
        if t.status in OVER:
            raise EntryClosed(f"the tournament is {t.status}")
        if t.status == TournamentStatus.SCHEDULED:
            db.session.delete(mine)
            purse.give_back(t, player_id, utcnow())
        else:
            mine.withdrawn_at = utcnow()
        db.session.flush()
        return _view(t)


def withdraw_everywhere(tenant: int, player_id: str) -> list[str]:
    """Withdraw the player from every tournament not over that they are in (a
    suspension): the tournaments' ids."""
    with transaction():
        ids = list(db.session.execute(
            select(Tournament.id).join(Entrant, Entrant.tournament_pk == Tournament.pk)
            .where(Tournament.tenant_pk == tenant, Tournament.status.not_in(list(OVER)),
                   Entrant.player_id == player_id, Entrant.withdrawn_at.is_(None))
            .order_by(Tournament.pk)).scalars())
    left = []
    for tournament_id in ids:
        try:
            withdraw(tenant, tournament_id, player_id)
        except (NotEntered, EntryClosed):
            continue  # withdrawn, or over, since
        left.append(tournament_id)
    return left


@dataclass(frozen=True)
class EntryRecord:
    """A player's entry in a tournament, as their export holds it."""

    tournament_id: str
    name: str
    joined_at: datetime
    withdrawn_at: datetime | None


def entries_of(tenant: int, player_id: str) -> list[EntryRecord]:
    """Every tournament of the front end the player entered, oldest first (caller's
    transaction): a player's export."""
    return [EntryRecord(t, name, as_utc(joined), as_utc(out) if out else None)
            for t, name, joined, out in db.session.execute(
                select(Tournament.id, Tournament.name, Entrant.joined_at, Entrant.withdrawn_at)
                .join(Entrant, Entrant.tournament_pk == Tournament.pk)
                .where(Tournament.tenant_pk == tenant, Entrant.player_id == player_id)
                .order_by(Tournament.pk))]


def pseudonymize(tenant: int, player_id: str, pseudonym: str, name: str) -> None:
    """Replace an erased player's id in the tenant's tournaments (entries, pairings and
    kept standings) by ``pseudonym``, and their name by ``name``, as their matches show
    them (caller's write transaction)."""
    mine = select(Tournament.pk).where(Tournament.tenant_pk == tenant)
    db.session.execute(update(Entrant).where(Entrant.tournament_pk.in_(mine),
                                             Entrant.player_id == player_id)
                       .values(player_id=pseudonym, name=name))
    for column in ("first", "second", "third", "fourth", "winner"):
        db.session.execute(update(Pairing).where(
            Pairing.tournament_pk.in_(mine), getattr(Pairing, column) == player_id)
            .values({column: pseudonym}))
    for t in db.session.execute(select(Tournament).where(
            Tournament.tenant_pk == tenant, Tournament.standings.is_not(None))).scalars():
        if any(row.get("player_id") == player_id for row in t.standings or []):
            t.standings = [{**row, "player_id": pseudonym, "name": name}
                           if row.get("player_id") == player_id else row
                           for row in t.standings or []]


def stand_again(tenant: int, match_id: str) -> None:
    """A finished tournament's kept standings worked out again, once one of its games was
    voided (a game of one not over counts no more from the void on)."""
    with transaction(write=True):
        match_pk = matches.match_pk(tenant, match_id)
        t = db.session.execute(
            select(Tournament).join(Pairing, Pairing.tournament_pk == Tournament.pk)
            .where(Pairing.match_pk == match_pk, Tournament.tenant_pk == tenant,
                   Tournament.status == TournamentStatus.FINISHED)
            .with_for_update(of=Tournament)).scalar() if match_pk is not None else None
        if t is None:
            return
        loaded = load(t)
        names = names_of(loaded)
        t.standings = [standing_row(s, names) for s in standings_of(t, loaded)]


def ended(pks: Sequence[int]) -> set[int]:
    """Of these tournaments, those over (finished or cancelled): the ledger's checker asks
    (a hold of one must be settled or released); caller's transaction."""
    return set(db.session.execute(select(Tournament.pk).where(
        Tournament.pk.in_(list(pks)), Tournament.status.in_(list(OVER)))).scalars())


def read(tenant: int, tournament_id: str) -> TournamentView:
    """A tournament with its standings and pairings."""
    with transaction():
        return _view(_find(tenant, tournament_id))


@dataclass(frozen=True)
class TournamentSummary:
    """A line of the tournaments' list."""

    id: str
    name: str
    variant: str
    system: str
    status: str
    starts_at: datetime
    entrant_count: int
    max_players: int
    rated: bool


def listing(tenant: int, status: str | None, limit: int) -> list[TournamentSummary]:
    """The front end's tournaments, soonest start first (``status`` filters)."""
    counted = (select(func.count()).where(Entrant.tournament_pk == Tournament.pk,
                                          Entrant.withdrawn_at.is_(None))
               .correlate(Tournament).scalar_subquery())
    query = select(Tournament, counted).where(Tournament.tenant_pk == tenant)
    if status is not None:
        query = query.where(Tournament.status == status)
    with transaction():
        rows = db.session.execute(
            query.order_by(Tournament.starts_at.desc(), Tournament.pk.desc()).limit(limit)).all()
    return [TournamentSummary(t.id, t.name, t.variant, t.system, t.status,
                              as_utc(t.starts_at), n, t.max_players, t.rated)
            for t, n in rows]


# --- what a view shows ----------------------------------------------------------------

def _pairing_view(p: Pairing, match_id: str | None, withheld: frozenset[int]) -> PairingView:
    """A game as everyone sees it: a sealed table's without its winner."""
    if p.pk in withheld:
        return PairingView(match_id, seated(p), None, False, p.status)
    return PairingView(match_id, seated(p), p.winner, p.draw, p.status)


def _view(t: Tournament, loaded: Loaded | None = None) -> TournamentView:
    loaded = loaded or load(t)
    rounds: list[RoundView] | None = None
    arena: list[PairingView] | None = None
    if t.system != TournamentSystem.ARENA:
        by_round: dict[int, RoundView] = {}
        for p, match_id in loaded.pairings:
            this = by_round.setdefault(p.round, RoundView(p.round, [], None, []))
            if p.second is None:
                this.byes.append(p.first)
                by_round[p.round] = dataclasses.replace(this, bye=this.bye or p.first)
            else:
                this.pairings.append(_pairing_view(p, match_id, loaded.withheld))
                if t.system == TournamentSystem.DUPLICATE and this.commitment is None:
                    by_round[p.round] = dataclasses.replace(
                        this, commitment=loaded.commitments.get(p.pk))
        rounds = [by_round[n] for n in sorted(by_round)]
    else:
        arena = [_pairing_view(p, match_id, loaded.withheld) for p, match_id in loaded.pairings]
    final = t.status == TournamentStatus.FINISHED and t.standings is not None
    names = names_of(loaded)
    standings = [{**row, "name": names.get(row["player_id"], row["player_id"])}
                 for row in t.standings or []] if final \
        else [standing_row(s, names) for s in standings_of(t, loaded)]
    fee = purse.fee_of(t)
    return TournamentView(
        t.id, t.name, t.variant, dict(t.rules or {}), t.system, t.status, t.rounds,
        t.deals, t.duration_minutes, as_utc(t.starts_at), as_utc(t.ends_at) if t.ends_at else None,
        t.min_players, t.max_players, t.rated,
        {"move_seconds": t.clock_seconds, "timeout": t.clock_timeout}, t.round,
        [e.player_id for e in loaded.entrants if e.withdrawn_at is None],
        [e.player_id for e in loaded.entrants if e.withdrawn_at is not None],
        names, standings, rounds, arena, as_utc(t.created_at),
        as_utc(t.finished_at) if t.finished_at else None, fee,
        list(t.prizes) if t.prizes is not None else None,
        purse.pool_of(t, len(loaded.entrants)), dict(t.payouts or {}))
