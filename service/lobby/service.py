"""Tables between strangers: join and leave open seats, quick play, rematch, abort,
and tables nobody filled in time."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask import current_app

from ..engine import State, load_variant, with_house_rules
from ..live import versions
from ..live.searches import play_bots
from ..live.versions import Credential, require_seat
from ..matches import clocks, store
from ..matches import service as matches
from ..matches.seats import PlayerSpec, bot_levels, mint_token, seat_hashes
from ..matches.views import MatchView, MoveResult, match_view
from ..players import ratings as players_ratings
from ..players import service as players
from ..storage.db import transaction
from ..storage.models import Match, as_utc, utcnow
from .errors import NoOpenSeat, WrongMatchStatus


@dataclass(frozen=True)
class Seated:
    """A player who took a seat: its token (shown only here) and their view."""

    id: str
    seat: int
    token: str
    state: MatchView


def _sit(match: Match, seat: int, who: PlayerSpec) -> tuple[str, State]:
    """Seat a player in an open seat of a locked match; the match starts (and bots that
    lead play) when it is full. Returns the seat's token and the new state."""
    state = store.state_of(match)
    token, token_hash = mint_token()
    store.take_seat(match, seat, who.name or f"seat {seat}", who.player_id, token_hash, state,
                    who.vouched)
    if who.vouched and who.player_id is not None:
        players.remember(match.tenant_pk, who.player_id, who.name)
    if match.status == "active":
        state, plays = play_bots(state, bot_levels(match.seats))
        if plays:
            store.append_plays(match, plays, state)
    versions.publish(match)
    return token, state


def join_match(match_id: str, tenant: int, who: PlayerSpec, seat: int | None = None) -> Seated:
    """Take the first open seat (or ``seat``) of a waiting match."""
    result = None
    with transaction(write=True):
        match = store.lock_match(match_id, tenant)
        if clocks.expired(match):  # kept: the refusal below must not roll this back
            store.end_match(match, store.state_of(match), None, "aborted")
            versions.publish(match)
        open_seats = [s.seat for s in match.seats if s.open] if match.status == "waiting" else []
        if seat is not None:
            open_seats = [s for s in open_seats if s == seat]
        if open_seats and match.rated:
            matches.check_ratable(who, [s.player_id for s in match.seats if s.player_id],
                                  "player_id")
        if open_seats:
            token, state = _sit(match, open_seats[0], who)
            view = match_view(match, state, open_seats[0])
            result = Seated(match.id, open_seats[0], token, view)
    versions.saw(match)
    if result is None:
        raise NoOpenSeat(f"match {match_id!r} has no open seat"
                         + (f" {seat}" if seat is not None else ""))
    return result


def leave_match(match_id: str, tenant: int, token: Credential | None) -> MatchView:
    """The token's seat leaves a match that has not started: the seat is open again."""
    with transaction(write=True):
        match = store.lock_match(match_id, tenant)
        seat = require_seat(seat_hashes(match.seats), token)
        if match.status != "waiting":
            raise WrongMatchStatus("only a match waiting for players can be left; resign instead")
        state = store.state_of(match)
        store.free_seat(match, seat, state)
        versions.publish(match)
        view = match_view(match, state, None)
    versions.saw(match)
    return view


def quick_play(tenant: int, variant: str, overrides: Mapping[str, Any] | None,
               who: PlayerSpec, rated: bool = False) -> Seated:
    """Join the oldest waiting quick-play match of the tenant with the same effective
    rules, or open one with the caller in seat 0. Concurrent callers are serialised, so
    they pair up instead of opening half-empty tables side by side. Rated quick play
    joins the table closest in rating where the match is not too one-sided
    (:func:`_by_skill`)."""
    rules = with_house_rules(load_variant(variant).rules, overrides)
    since = clocks.waiting_since()
    with transaction(write=True):
        store.lock_quick_play(tenant, rules.content_hash)
        if rated:
            matches.check_ratable(who, [], "player_id")
            match = _by_skill(tenant, variant, who, store.quick_tables(
                tenant, rules.content_hash, since, rated=True, limit=QUICK_TABLES_LOOKED_AT))
        else:
            match = next(iter(store.quick_tables(tenant, rules.content_hash, since)), None)
        if match is not None:
            seat = next(s.seat for s in match.seats if s.open)
            token, state = _sit(match, seat, who)
            result = Seated(match.id, seat, token, match_view(match, state, seat))
        else:
            specs = [who] + [PlayerSpec(open=True)] * (rules.players - 1)
            new = matches.deal_match(variant, rules, specs)
            match = matches.insert_match(new, tenant, quick=True, rated=rated)
            token = new.tokens[0].token
            assert token is not None
            result = Seated(match.id, 0, token, match_view(match, new.state, 0))
    versions.saw(match)
    return result


QUICK_TABLES_LOOKED_AT = 50
"""Rated quick play weighs the oldest this many waiting tables."""


def _by_skill(tenant: int, pool: str, who: PlayerSpec, tables: list[Match]) -> Match | None:
    """The waiting rated table for ``who``: the one whose players are closest in rating,
    among those where the favourite's predicted chance (openskill's predict_win) is at
    most BASRA_QUICK_MAX_FAVOURITE; that bound widens with the table's wait, to any
    table after BASRA_QUICK_WIDEN_SECONDS. None: open a table of one's own."""
    assert who.player_id is not None
    config = current_app.config
    bound, widen = config["BASRA_QUICK_MAX_FAVOURITE"], config["BASRA_QUICK_WIDEN_SECONDS"]
    seated = {t.pk: [s.player_id for s in t.seats if s.player_id] for t in tables}
    ratings = players_ratings.current(
        tenant, pool, [who.player_id, *{p for ps in seated.values() for p in ps}])
    me = ratings[who.player_id]
    best: tuple[float, int, Match] | None = None
    now = utcnow()
    for table in tables:
        if who.player_id in seated[table.pk] or not seated[table.pk]:
            continue
        them = players_ratings.mean([ratings[p] for p in seated[table.pk]])
        waited = (now - as_utc(table.created_at)).total_seconds()
        allowed = bound + (1.0 - bound) * min(1.0, waited / widen) if widen > 0 else 1.0
        if players_ratings.favourite_chance(me, them) > allowed:
            continue
        gap = abs(me[0] - them[0])
        if best is None or (gap, table.pk) < best[:2]:
            best = (gap, table.pk, table)
    return best[2] if best else None


def rematch(match_id: str, tenant: int, token: Credential | None,
            name: str | None = None) -> Seated:
    """The follow-up of a finished match: same rules, seats rotated one place (bots keep
    their level). The first seat to ask creates it; the others join their rotated seat."""
    with transaction(write=True):
        match = store.lock_match(match_id, tenant)
        seat = require_seat(seat_hashes(match.seats), token)
        if match.status != "finished":
            raise WrongMatchStatus("a rematch follows a finished match")
        players = match.seats
        moved = (seat + 1) % len(players)
        mine = players[seat]
        if match.rematch_id is None:
            state = store.state_of(match)
            specs = [
                PlayerSpec(bot=players[(i - 1) % len(players)].bot)
                if players[(i - 1) % len(players)].bot else PlayerSpec(open=True)
                for i in range(len(players))
            ]
            specs[moved] = PlayerSpec(mine.name, mine.player_id, vouched=mine.vouched)
            new = matches.deal_match(match.variant, state.rules, specs)
            clock = (match.clock_seconds, match.clock_timeout or "autoplay") \
                if match.clock_seconds else None
            follow = matches.insert_match(new, tenant, clock=clock, rated=match.rated)
            store.note_rematch(match, seat, follow.id, state.round)
            versions.publish(match)
            token_out = new.tokens[moved].token
            assert token_out is not None
            result = Seated(follow.id, moved, token_out, match_view(follow, new.state, moved))
        else:
            follow = store.lock_match(match.rematch_id, tenant)
            if follow.status != "waiting" or not follow.seats[moved].open:
                raise NoOpenSeat("your seat in the rematch is taken")
            token_out, after = _sit(follow, moved, PlayerSpec(
                name or mine.name, mine.player_id, vouched=mine.vouched))
            result = Seated(follow.id, moved, token_out, match_view(follow, after, moved))
    versions.saw(match)
    versions.saw(follow)
    return result


def abort_match(match_id: str, tenant: int, token: Credential | None) -> MoveResult:
    """The token's seat ends an active match in which it has not played yet: nobody wins
    (``aborted``)."""
    with transaction(write=True):
        match = store.lock_match(match_id, tenant)
        seat = require_seat(seat_hashes(match.seats), token)
        if match.status != "active":
            raise WrongMatchStatus("only an active match can be aborted")
        if any(r.kind == "play" and r.seat == seat for r in store.move_log(match)):
            raise WrongMatchStatus("a seat that has played can resign, not abort")
        state = store.state_of(match)
        store.end_match(match, state, seat, "aborted")
        versions.publish(match)
        view = match_view(match, state, seat)
    versions.saw(match)
    return MoveResult(None, (), view)
