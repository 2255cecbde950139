"""Tables between strangers: join and leave open seats, quick play, rematch, abort,
and tables nobody filled in time."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..engine import Rules, State, load_variant, with_house_rules
from ..events import publish
from ..matches import clocks, seating
from ..matches import service as matches
from ..matches.enums import ClockTimeout, MatchStatus
from ..matches.errors import WrongPlayerCount
from ..matches.results import MatchView, MoveResult, match_view
from ..matches.rows import MatchRow, Stake
from ..matches.seats import PlayerSpec, acting_seat
from ..players import blocks
from ..players import ratings as players_ratings
from ..players import service as players
from ..players.errors import PlayerRequired
from ..players.service import Credential
from ..settings import Settings
from ..social import parties
from ..storage.base import utcnow
from ..storage.db import transaction
from .errors import NoOpenSeat, WrongMatchStatus


@dataclass(frozen=True)
class Seated:
    """A player who took a seat: its token (shown only here) and their view."""

    id: str
    seat: int
    token: str
    state: MatchView


def _sat(match: MatchRow, state: State, seat: int, who: PlayerSpec) -> Seated:
    token, match, state = seating.sit(match, state, seat, who)
    return Seated(match.id, seat, token, match_view(match, state, seat))


def join_match(match_id: str, tenant: int, who: PlayerSpec, seat: int | None = None, *,
               settings: Settings) -> Seated:
    """Take the first open seat (or ``seat``) of a waiting match."""
    result = None
    with transaction(write=True):
        match, state = seating.locked(match_id, tenant)
        if clocks.expired(match, settings):  # kept: the refusal below must not roll this back
            match = clocks.expire(match, state)
        open_seats = [s.seat for s in match.seats if s.open] \
            if match.status == MatchStatus.WAITING else []
        if seat is not None:
            open_seats = [s for s in open_seats if s == seat]
        if open_seats and who.vouched:
            blocks.check_not_blocked(tenant, who.player_id,
                                     [player for _, player in match.vouched])
        if open_seats and match.rated:
            matches.check_ratable(who, [s.player_id for s in match.seats if s.player_id],
                                  "player_id")
        if open_seats:
            result = _sat(match, state, open_seats[0], who)
    if result is None:
        raise NoOpenSeat(f"match {match_id!r} has no open seat"
                         + (f" {seat}" if seat is not None else ""))
    return result


def leave_match(match_id: str, tenant: int, token: Credential | None) -> MatchView:
    """The token's seat leaves a match that has not started: the seat is open again."""
    with transaction(write=True):
        match, state = seating.locked(match_id, tenant)
        seat = acting_seat(match, token)
        if match.status != MatchStatus.WAITING:
            raise WrongMatchStatus("only a match waiting for players can be left; resign instead")
        match = seating.unseat(match, state, seat)
    return match_view(match, state, None)


_GATES = tuple(threading.Lock() for _ in range(64))
"""Quick-play callers of one front end and rule set queue here, in this process, before
they take a database connection: the database lets one through at a time anyway, and a
queue waiting on its lock held every pooled connection (a burst of 250 sign-ins left
``/readyz`` none, and the balancer took the instance out)."""


def _gate(tenant: int, rules_hash: str) -> threading.Lock:
    return _GATES[hash((tenant, rules_hash)) % len(_GATES)]


def quick_play(tenant: int, variant: str, overrides: Mapping[str, Any] | None,
               who: PlayerSpec, rated: bool = False, party: str | None = None, *,
               stake: Stake | None = None, settings: Settings) -> Seated:
    """Join the oldest waiting quick-play match of the tenant with the same effective
    rules, or open one with the caller in seat 0. Concurrent callers are serialised, so
    they pair up instead of opening half-empty tables side by side. Rated quick play
    joins the table closest in rating where the match is not too one-sided
    (:func:`_by_skill`). At a four-player table a player alone takes seat 0, 2, 1 then
    3, so partners' seats fill together; a ``party`` (the caller one of its two) sits
    as partners (:func:`_party_play`). With a ``stake`` only players at the same stake
    (currency and amount) sit together, each holding it as they sit."""
    rules = with_house_rules(load_variant(variant).rules, overrides)
    since = clocks.waiting_since(settings)
    if stake is not None and party is None:
        matches.check_stakeable(who, [], "player_id")
    at = _stake_key(stake)
    with _gate(tenant, rules.content_hash), transaction(write=True):
        if party is not None:
            return _party_play(tenant, variant, rules, who, rated, party, since, settings,
                               stake)
        if who.vouched and who.player_id is not None:  # asked again: the table they wait at
            mine = [t for t in seating.quick_tables_of(tenant, who.player_id, since, variant,
                                                       rules.content_hash)
                    if _stake_key(t[0].stake) == at]
            if mine:
                match, state = mine[0]
                seat = _seat_of(match, who.player_id)
                token, match = seating.reissue(match, state, seat)
                return Seated(match.id, seat, token, match_view(match, state, seat))
        avoided = blocks.avoided_by(tenant, who.player_id) \
            if who.vouched and who.player_id is not None else frozenset()
        if rated:
            matches.check_ratable(who, [], "player_id")
            tables = seating.quick_tables(tenant, rules.content_hash, since, True,
                                          QUICK_TABLES_LOOKED_AT, at)
            table = _by_skill(tenant, variant, who, _without(tables, avoided), settings)
        else:  # the oldest table, or with blocks the oldest without anyone avoided
            looked = QUICK_TABLES_LOOKED_AT if avoided else 1
            table = next(iter(_without(seating.quick_tables(
                tenant, rules.content_hash, since, False, looked, at), avoided)), None)
        if table is not None:
            match, state = table
            return _sat(match, state, _alone_seat(match), who)
        specs = [who] + [PlayerSpec(open=True)] * (rules.players - 1)
        new = matches.deal_match(variant, rules, specs, tenant=tenant)
        match = matches.insert_match(new, tenant, quick=True, rated=rated, stake=stake,
                                     settings=settings)
        token = new.tokens[0].token
        assert token is not None
        return Seated(match.id, 0, token, match_view(match, new.state, 0))


def _stake_key(stake: Stake | None) -> tuple[str, int] | None:
    """What quick play pairs by: the stake's currency and amount (None: unstaked)."""
    return None if stake is None else (stake.currency, stake.amount)


def _alone_seat(match: MatchRow) -> int:
    """The seat a player alone takes: the first open of 0, 2, 1, 3 at a four-player table
    (a team's seats fill together, leaving the other team's for a party)."""
    order = (0, 2, 1, 3) if len(match.seats) == 4 else range(len(match.seats))
    return next(seat for seat in order if match.seats[seat].open)


def _team_open(match: MatchRow) -> int | None:
    """The first seat of a team whose two seats are open (0 or 1), if any."""
    return next((seat for seat in (0, 1) if match.seats[seat].open
                 and match.seats[seat + 2].open), None)


def _party_play(tenant: int, variant: str, rules: Rules, who: PlayerSpec, rated: bool,
                party_id: str, since: datetime, settings: Settings,
                stake: Stake | None = None) -> Seated:
    """Quick play for a party of two (the caller a member) at a four-player table: both
    seated as partners at the oldest waiting table (rated: the closest in rating) where
    a team's two seats are open and nobody either blocked sits, or at a table of their
    own, waiting for another party or two players alone. The partner hears
    ``party.seated`` with the table's id. The caller's seat and token."""
    if who.player_id is None or not who.vouched:
        raise PlayerRequired("a party plays with a member's token (or a server key naming "
                             "player_id)")
    if rules.players != 4:
        raise WrongPlayerCount(f"{variant} with these rules is for {rules.players} players: "
                               "a party of two plays a four-player variant as partners",
                               field="variant", problem="not a four-player variant")
    party = parties.ready(tenant, party_id, who.player_id)
    members = [PlayerSpec(players.vouched_player(tenant, p).name or p, p, vouched=True)
               for p in party.joined]
    ids = [str(m.player_id) for m in members]
    blocks.check_not_blocked(tenant, ids[0], ids[1:])  # a block between the two since
    for player in ids:
        players.check_player(tenant, player)
        for match, state in seating.quick_tables_of(tenant, player, since, variant,
                                                    rules.content_hash):
            if {p for _, p in match.vouched} >= set(ids) \
                    and _stake_key(match.stake) == _stake_key(stake):  # asked again
                seat = _seat_of(match, who.player_id)
                token, match = seating.reissue(match, state, seat)
                return Seated(match.id, seat, token, match_view(match, state, seat))
            for seat in [s for s, p in match.vouched if p == player]:  # waiting alone:
                match = seating.unseat(match, state, seat)            # now with the party
    if rated:
        for i, member in enumerate(members):
            matches.check_ratable(member, [m.player_id for m in members[:i]
                                           if m.player_id], "party")
    avoided = frozenset().union(*(blocks.avoided_by(tenant, m.player_id)
                                  for m in members if m.player_id))
    tables = [t for t in _without(seating.quick_tables(
        tenant, rules.content_hash, since, rated, QUICK_TABLES_LOOKED_AT,
        _stake_key(stake)), avoided) if _team_open(t[0]) is not None]
    if rated and tables:
        tables = [t for t in [_by_skill(tenant, variant, [m.player_id for m in members
                                                         if m.player_id], tables,
                                                settings)] if t]
    tokens: dict[str, tuple[int, str]] = {}
    if tables:
        match, state = tables[0]
        first = _team_open(match)
        assert first is not None
        for seat, member in zip((first, first + 2), members, strict=True):
            token, match, state = seating.sit(match, state, seat, member)
            assert member.player_id is not None
            tokens[member.player_id] = (seat, token)
    else:
        specs = [members[0], PlayerSpec(open=True), members[1], PlayerSpec(open=True)]
        new = matches.deal_match(variant, rules, specs, tenant=tenant)
        match = matches.insert_match(new, tenant, quick=True, rated=rated, stake=stake,
                                     settings=settings)
        state = new.state
        for seat in (0, 2):
            token = new.tokens[seat].token
            assert token is not None and members[seat // 2].player_id is not None
            tokens[str(members[seat // 2].player_id)] = (seat, token)
    publish(tenant, "party.seated", {"party_id": party.id, "match_id": match.id,
                                     "seats": {p: seat for p, (seat, _) in tokens.items()}},
            [p for p in party.joined if p != who.player_id])
    seat, token = tokens[who.player_id]
    return Seated(match.id, seat, token, match_view(match, state, seat))


def _without(tables: list[tuple[MatchRow, State]],
             avoided: frozenset[str]) -> list[tuple[MatchRow, State]]:
    """The tables where nobody the caller blocks, or is blocked by, is seated."""
    if not avoided:
        return tables
    return [t for t in tables if not avoided & {p for _, p in t[0].vouched}]


def _seat_of(match: MatchRow, player_id: str) -> int:
    """The seat a vouched player holds in a match found by them."""
    return next(seat for seat, holder in match.vouched if holder == player_id)


def leave_quick_play(tenant: int, player_id: str, variant: str | None, *,
                     settings: Settings) -> list[str]:
    """The vouched player leaves every waiting quick-play table of theirs (of
    ``variant``, or all): the ids of the tables left."""
    with transaction(write=True):
        mine = seating.quick_tables_of(tenant, player_id, clocks.waiting_since(settings), variant)
        for match, state in mine:
            seating.unseat(match, state, _seat_of(match, player_id))
    return [match.id for match, _ in mine]


def release_player(tenant: int, player_id: str) -> list[str]:
    """The vouched player leaves every table of theirs still waiting for players (quick
    play or not; a suspension): the ids of the tables left."""
    with transaction():
        waiting = seating.waiting_tables_of(tenant, player_id)
    left = []
    for match_id in waiting:
        with transaction(write=True):
            match, state = seating.locked(match_id, tenant)
            if match.status != MatchStatus.WAITING:
                continue
            for seat in sorted(seat for seat, holder in match.vouched if holder == player_id):
                match = seating.unseat(match, state, seat)
        left.append(match_id)
    return left


QUICK_TABLES_LOOKED_AT = 50
"""Rated quick play weighs the oldest this many waiting tables."""


def _by_skill(tenant: int, pool: str, who: PlayerSpec | list[str],
              tables: list[tuple[MatchRow, State]],
              settings: Settings) -> tuple[MatchRow, State] | None:
    """The waiting rated table for ``who`` (a player, or a party's players as one mean
    rating): the one whose players are closest in rating, among those where the
    favourite's predicted chance (openskill's predict_win) is at most
    BASRA_QUICK_MAX_FAVOURITE; that bound widens with the table's wait, to any table
    after BASRA_QUICK_WIDEN_SECONDS. None: open a table of one's own."""
    mine = who if isinstance(who, list) else [who.player_id]
    assert all(p is not None for p in mine)
    bound, widen = settings.quick_max_favourite, settings.quick_widen_seconds
    seated = {t.pk: [s.player_id for s in t.seats if s.player_id] for t, _ in tables}
    ratings = players_ratings.current(
        tenant, pool, [*mine, *{p for ps in seated.values() for p in ps}])  # type: ignore[list-item]
    me = players_ratings.mean([ratings[p] for p in mine])  # type: ignore[index]
    best: tuple[float, int, tuple[MatchRow, State]] | None = None
    now = utcnow()
    for table in tables:
        match = table[0]
        if set(mine) & set(seated[match.pk]) or not seated[match.pk]:
            continue
        them = players_ratings.mean([ratings[p] for p in seated[match.pk]])
        waited = (now - match.created_at).total_seconds()
        allowed = bound + (1.0 - bound) * min(1.0, waited / widen) if widen > 0 else 1.0
        if players_ratings.favourite_chance(me, them) > allowed:
            continue
        gap = abs(me[0] - them[0])
        if best is None or (gap, match.pk) < best[:2]:
            best = (gap, match.pk, table)
    return best[2] if best else None


def rematch(match_id: str, tenant: int, token: Credential | None,
            name: str | None = None, *, settings: Settings) -> Seated:
    """The follow-up of a finished match: same rules and stake (at the front end's rake
    now), seats rotated one place (bots keep their level). The first seat to ask creates
    it; the others join their rotated seat (each holding a stake as they sit)."""
    with transaction(write=True):
        match, state = seating.locked(match_id, tenant)
        seat = acting_seat(match, token)
        if match.status != MatchStatus.FINISHED:
            raise WrongMatchStatus("a rematch follows a finished match")
        players = match.seats
        moved = (seat + 1) % len(players)
        mine = players[seat]
        if match.rematch_id is not None:
            follow, after = seating.locked(match.rematch_id, tenant)
            if follow.status != MatchStatus.WAITING or not follow.seats[moved].open:
                raise NoOpenSeat("your seat in the rematch is taken")
            return _sat(follow, after, moved, PlayerSpec(
                name or mine.name, mine.player_id, vouched=mine.vouched))
        specs = [
            PlayerSpec(bot=players[(i - 1) % len(players)].bot)
            if players[(i - 1) % len(players)].bot else PlayerSpec(open=True)
            for i in range(len(players))
        ]
        specs[moved] = PlayerSpec(mine.name, mine.player_id, vouched=mine.vouched)
        new = matches.deal_match(match.variant, state.rules, specs, tenant=tenant)
        clock = (match.clock_seconds, match.clock_timeout or ClockTimeout.AUTOPLAY) \
            if match.clock_seconds else None
        follow = matches.insert_match(new, tenant, clock=clock, rated=match.rated,
                                      stand_in=match.stand_in,
                                      spectator_delay=match.spectator_delay,
                                      stake=match.stake, settings=settings)
        seating.point_to_rematch(match, state, seat, follow.id)
        token_out = new.tokens[moved].token
        assert token_out is not None
        return Seated(follow.id, moved, token_out, match_view(follow, new.state, moved))


def abort_match(match_id: str, tenant: int, token: Credential | None) -> MoveResult:
    """The token's seat ends an active match in which it has not played yet: nobody wins
    (``aborted``)."""
    with transaction(write=True):
        match, state = seating.locked(match_id, tenant)
        seat = acting_seat(match, token)
        if match.status != MatchStatus.ACTIVE:
            raise WrongMatchStatus("only an active match can be aborted")
        if match.tournament_game:
            raise WrongMatchStatus("a tournament's game cannot be aborted: resign, or let "
                                   "the clock decide")
        if seating.played(match, seat):
            raise WrongMatchStatus("a seat that has played can resign, not abort")
        match = seating.abort(match, state, seat)
    return MoveResult(None, (), match_view(match, state, seat))
