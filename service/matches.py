"""Match use cases: create, read (with 304s and long polls), move, resign, hint, history.

Each takes parsed input, runs one transaction (store: load and lock -> engine:
apply -> store: append and save) and returns a result object for the web layer
to render. No HTTP and no SQL here; the rules are the engine's.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import current_app

from . import changes, store
from .db import transaction
from .engine import (
    Card,
    MatchFinished,
    Move,
    NotYourTurn,
    Play,
    Rules,
    SeatView,
    State,
    apply_move,
    commitment,
    load_variant,
    new_match,
    new_seed,
    observe,
    resign,
    team_of,
    with_house_rules,
)
from .engine.bots import POLICIES, bot_move, run_bots
from .engine.codec import move_from_parts, play_from_parts
from .errors import (
    IdempotencyKeyReused,
    MatchNotStarted,
    NoHumanSeat,
    NoOpenSeat,
    VersionMismatch,
    WrongMatchStatus,
    WrongPlayerCount,
)
from .models import Match, MoveRecord, utcnow
from .seats import mint_token, require_seat, seat_hashes, seat_of

BOT_LEVELS = tuple(POLICIES)


@dataclass(frozen=True)
class SeatInfo:
    """A seat as everyone may see it."""

    seat: int
    team: int
    name: str | None
    player_id: str | None
    bot: str | None
    open: bool


@dataclass(frozen=True)
class MatchView:
    """What one seat (or a spectator) is shown of a stored match."""

    id: str
    variant: str
    status: str
    version: int
    seats: tuple[SeatInfo, ...]
    commitment: str
    explicit_decks: bool
    created_at: datetime
    view: SeatView
    seed: str | None
    """The seed, revealed once the match is finished."""
    end_reason: str | None
    """target_score, resigned or aborted; None while the match goes on."""
    rematch: str | None
    """The follow-up match's id, once a seat asked for one."""
    clock: dict[str, Any] | None
    """``{"move_seconds", "timeout"}``, or None without a clock."""
    deadline: datetime | None
    """When the seat to play runs out of time (None without a clock or not running)."""


@dataclass(frozen=True)
class Unchanged:
    """The client's copy of the view is current (an HTTP 304)."""

    version: int
    seat: int | None


@dataclass(frozen=True)
class Seen:
    """The views a client already holds, as (version, seat) pairs (If-None-Match);
    ``anything`` for any version at all."""

    views: frozenset[tuple[int, int | None]] = frozenset()
    anything: bool = False

    def holds(self, version: int, seat: int | None) -> bool:
        """Whether the client holds this version of this seat's view."""
        return self.anything or (version, seat) in self.views


def seat_infos(match: Match) -> tuple[SeatInfo, ...]:
    """The public facts of a match's seats."""
    return tuple(
        SeatInfo(s.seat, team_of(s.seat), s.name, s.player_id, s.bot, s.open)
        for s in match.seats
    )


def match_view(match: Match, state: State, seat: int | None, *,
               version: int | None = None) -> MatchView:
    """The view of ``seat`` (None: a spectator) of a stored match in ``state``; while the
    match waits for players nobody sees a card. ``version`` rebuilds an earlier view
    (of a move, which only an active match takes)."""
    status, end_reason, rematch = match.status, match.end_reason, match.rematch_id
    if version is not None:
        status = "finished" if state.finished else "active"
        end_reason = "target_score" if state.finished else None
        rematch = None
    view = observe(state, seat)
    if status == "waiting":
        view = dataclasses.replace(
            observe(state, None), seat=seat if seat is not None else None, floor=(),
            hand_counts=(0,) * len(view.hand_counts), stock_count=52, turn=None,
        )
    return MatchView(
        id=match.id,
        variant=match.variant,
        status=status,
        version=match.version if version is None else version,
        seats=seat_infos(match),
        commitment=match.commitment,
        explicit_decks=match.explicit_decks,
        created_at=match.created_at,
        view=view,
        seed=state.seed.hex() if status in ("finished", "aborted") else None,
        end_reason=end_reason,
        rematch=rematch,
        clock={"move_seconds": match.clock_seconds, "timeout": match.clock_timeout}
        if match.clock_seconds else None,
        deadline=match.deadline if version is None and status == "active" else None,
    )


# --- turn clocks ----------------------------------------------------------------

TIMEOUTS_TO_FORFEIT = 3
"""Under ``autoplay``, the timeout in a row of one seat that forfeits instead."""


def _time_out(match: Match) -> None:
    """Apply every passed deadline of a locked, active match: the greedy bot plays for the
    seat (``autoplay``; the third time in a row forfeits) or its team loses (``forfeit``),
    then bot seats reply and the next seat's clock starts."""
    state = store.state_of(match)
    while _is_due(match) and state.turn is not None:
        seat = state.turn
        timeouts = list(match.timeouts or [0] * len(match.seats))
        timeouts[seat] += 1
        store.set_timeouts(match, timeouts)
        if match.clock_timeout == "forfeit" or timeouts[seat] >= TIMEOUTS_TO_FORFEIT:
            state = resign(state, seat)
            store.forfeit(match, seat, state)
        else:
            state = apply_move(state, bot_move(state, seat, "greedy"))
            assert state.last_play is not None
            mine = state.last_play
            state, replies = run_bots(state, _bots_of(match))
            store.append_plays(match, [mine, *replies], state, timed_out=1)
        changes.publish(match)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def apply_due_timeouts(match_id: str) -> bool:
    """Apply a match's passed deadlines, if another process is not already doing so;
    whether anything was applied (the worker's step)."""
    with transaction(write=True):
        match = store.lock_due(match_id, utcnow())
        if match is None:
            return False
        _time_out(match)
    changes.saw(match)
    return True


def _is_due(match: Match) -> bool:
    """Whether the seat to play has run out of time."""
    return match.status == "active" and match.deadline is not None \
        and _aware(match.deadline) <= utcnow()


def _apply_if_due(match: Match) -> None:
    """A read or a write of a match applies its passed deadline first (as the worker
    does, within a second)."""
    if _is_due(match):
        apply_due_timeouts(match.id)


def _check_playing(match: Match) -> None:
    """Moves, resignations and hints need a match in play."""
    if match.status == "waiting":
        raise MatchNotStarted("the match waits for players to join")
    if match.status == "aborted":
        raise MatchFinished("the match was aborted")


def _bots_of(match: Match) -> dict[int, str]:
    return {s.seat: s.bot for s in match.seats if s.bot}


# --- create ------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerSpec:
    """A seat requested at creation: a human's name (and front-end id), a bot level, or
    an open seat that a player joins later."""

    name: str | None = None
    player_id: str | None = None
    bot: str | None = None
    open: bool = False


@dataclass(frozen=True)
class SeatToken:
    """A seat's token, shown once (None for a bot or an open seat)."""

    seat: int
    name: str | None
    token: str | None
    open: bool = False


@dataclass(frozen=True)
class CreatedMatch:
    """A new match: the spectator view and every seat's token."""

    id: str
    seats: tuple[SeatToken, ...]
    commitment: str
    state: MatchView


def _rules_for(variant: str, overrides: Mapping[str, Any] | None, players: int) -> Rules:
    rules = with_house_rules(load_variant(variant).rules, overrides)
    if players != rules.players:
        raise WrongPlayerCount(
            f"{variant} with these rules is for {rules.players} players, got {players}",
            field="players", problem=f"must list {rules.players} players",
        )
    return rules


def _new_seats(players: Sequence[PlayerSpec]) -> tuple[list[store.NewSeat], list[SeatToken]]:
    seats: list[store.NewSeat] = []
    tokens: list[SeatToken] = []
    for i, p in enumerate(players):
        if p.open:
            seats.append(store.NewSeat(None, None, None, None))
            tokens.append(SeatToken(i, None, None, open=True))
            continue
        token, token_hash = mint_token()
        name = p.name or (f"{p.bot} bot" if p.bot else f"seat {i}")
        seats.append(store.NewSeat(name, p.player_id, p.bot, None if p.bot else token_hash))
        tokens.append(SeatToken(i, name, None if p.bot else token))
    return seats, tokens


def create_match(
    tenant: int,
    variant: str,
    overrides: Mapping[str, Any] | None,
    players: Sequence[PlayerSpec],
    decks: Sequence[Sequence[Card]] | None,
    *,
    quick: bool = False,
    clock: tuple[int, str] | None = None,
) -> CreatedMatch:
    """Create a tenant's match; bot seats that lead play at once. With an open seat it
    waits (``waiting``) and deals when the last seat fills."""
    rules = _rules_for(variant, overrides, len(players))
    if all(p.bot for p in players):
        raise NoHumanSeat(
            "a match needs at least one human seat",
            field="players", problem="at least one player must not be a bot",
        )
    seed = new_seed()
    initial = new_match(rules, seed, decks or ())
    seats, tokens = _new_seats(players)
    waiting = any(p.open for p in players)
    plays: list[Play] = []
    state = initial
    if not waiting:
        state, plays = run_bots(initial, {i: p.bot for i, p in enumerate(players) if p.bot})
    with transaction(write=True):
        match = store.create_match(
            str(uuid.uuid4()), tenant, variant, initial, seats, commitment(seed), bool(decks),
            waiting=waiting, quick=quick, clock=clock,
        )
        if plays:
            store.append_plays(match, plays, state)
        changes.publish(match)
        view = match_view(match, state, None)
    return CreatedMatch(match.id, tuple(tokens), view.commitment, view)


# --- the lobby: join, leave, quick play, rematch, abort -----------------------------


@dataclass(frozen=True)
class Seated:
    """A player who took a seat: its token (shown only here) and their view."""

    id: str
    seat: int
    token: str
    state: MatchView


def waiting_since() -> datetime:
    """Tables made before this and still waiting for players have expired."""
    return utcnow() - timedelta(minutes=current_app.config["BASRA_WAITING_MINUTES"])


def _expired(match: Match) -> bool:
    """A waiting match that nobody filled within BASRA_WAITING_MINUTES."""
    return match.status == "waiting" and _aware(match.created_at) < waiting_since()


def _sit(match: Match, seat: int, name: str, player_id: str | None) -> tuple[str, State]:
    """Seat a player in an open seat of a locked match; the match starts (and bots that
    lead play) when it is full. Returns the seat's token and the new state."""
    state = store.state_of(match)
    token, token_hash = mint_token()
    store.take_seat(match, seat, name, player_id, token_hash, state)
    if match.status == "active":
        state, plays = run_bots(state, _bots_of(match))
        if plays:
            store.append_plays(match, plays, state)
    changes.publish(match)
    return token, state


def expire_if_due(match_id: str, tenant: int, version: int) -> int:
    """Abort a waiting match that nobody filled in time (reads, joins and the worker all
    apply this deadline); returns the match's version (``version`` if not due)."""
    with transaction():
        match = store.get_match(match_id, tenant)
        due = _expired(match)
    if not due:
        return version
    with transaction(write=True):
        match = store.lock_match(match_id, tenant)
        if _expired(match):
            store.end_match(match, store.state_of(match), None, "aborted")
            changes.publish(match)
    changes.saw(match)
    return match.version


@dataclass(frozen=True)
class Event:
    """One event of a match's stream: its view after a change, or a heartbeat (None)."""

    view: MatchView | None


def follow_match(match_id: str, tenant: int, token: str | None, last_seen: int | None,
                 heartbeat: float) -> Iterator[Event]:
    """The events of a match for the token's seat (or a spectator): its view now (unless
    ``last_seen`` is the current version), then one per change, a heartbeat (``Event(None)``)
    when ``heartbeat`` seconds pass without one; it ends once the match is over."""
    peeked = changes.peek(match_id, tenant)
    version, seat = peeked.version, seat_of(peeked.seats, token)
    fresh = last_seen != version  # send the current view first
    if not fresh:
        yield Event(None)  # resumed and current: answer at once, then wait
    while True:
        if not fresh:
            current = changes.wait_for_change(match_id, version, heartbeat)
            if current == version:
                yield Event(None)
                continue
        fresh = False
        with transaction():
            match = store.get_match(match_id, tenant)
            view = match_view(match, store.state_of(match), seat)
        version = view.version
        yield Event(view)
        if view.status in ("finished", "aborted"):
            return


def join_match(match_id: str, tenant: int, name: str, player_id: str | None,
               seat: int | None = None) -> Seated:
    """Take the first open seat (or ``seat``) of a waiting match."""
    result = None
    with transaction(write=True):
        match = store.lock_match(match_id, tenant)
        if _expired(match):  # kept: the refusal below must not roll this back
            store.end_match(match, store.state_of(match), None, "aborted")
            changes.publish(match)
        open_seats = [s.seat for s in match.seats if s.open] if match.status == "waiting" else []
        if seat is not None:
            open_seats = [s for s in open_seats if s == seat]
        if open_seats:
            token, state = _sit(match, open_seats[0], name, player_id)
            view = match_view(match, state, open_seats[0])
            result = Seated(match.id, open_seats[0], token, view)
    changes.saw(match)
    if result is None:
        raise NoOpenSeat(f"match {match_id!r} has no open seat"
                         + (f" {seat}" if seat is not None else ""))
    return result


def leave_match(match_id: str, tenant: int, token: str | None) -> MatchView:
    """The token's seat leaves a match that has not started: the seat is open again."""
    with transaction(write=True):
        match = store.lock_match(match_id, tenant)
        seat = require_seat(seat_hashes(match.seats), token)
        if match.status != "waiting":
            raise WrongMatchStatus("only a match waiting for players can be left; resign instead")
        state = store.state_of(match)
        store.free_seat(match, seat, state)
        changes.publish(match)
        view = match_view(match, state, None)
    changes.saw(match)
    return view


def quick_play(tenant: int, variant: str, overrides: Mapping[str, Any] | None, name: str,
               player_id: str | None) -> Seated:
    """Join the oldest waiting quick-play match of the tenant with the same effective
    rules, or open one with the caller in seat 0. Concurrent callers are serialised, so
    they pair up instead of opening half-empty tables side by side."""
    rules = with_house_rules(load_variant(variant).rules, overrides)
    since = waiting_since()
    with transaction(write=True):
        store.lock_quick_play(tenant, rules.content_hash)
        match = store.oldest_quick_table(tenant, rules.content_hash, since)
        if match is not None:
            seat = next(s.seat for s in match.seats if s.open)
            token, state = _sit(match, seat, name, player_id)
            result = Seated(match.id, seat, token, match_view(match, state, seat))
        else:
            players = [PlayerSpec(name, player_id)] + [PlayerSpec(open=True)] * (rules.players - 1)
            seats, tokens = _new_seats(players)
            initial = new_match(rules, new_seed())
            match = store.create_match(
                str(uuid.uuid4()), tenant, variant, initial, seats, commitment(initial.seed),
                False, waiting=True, quick=True,
            )
            changes.publish(match)
            token = tokens[0].token
            assert token is not None
            result = Seated(match.id, 0, token, match_view(match, initial, 0))
    changes.saw(match)
    return result


def rematch(match_id: str, tenant: int, token: str | None, name: str | None = None) -> Seated:
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
            specs[moved] = PlayerSpec(mine.name, mine.player_id)
            seats, tokens = _new_seats(specs)
            waiting = any(p.open for p in specs)
            initial = new_match(state.rules, new_seed())
            after, plays = initial, []
            if not waiting:
                after, plays = run_bots(initial, {i: p.bot for i, p in enumerate(specs) if p.bot})
            clock = (match.clock_seconds, match.clock_timeout or "autoplay") \
                if match.clock_seconds else None
            follow = store.create_match(
                str(uuid.uuid4()), tenant, match.variant, initial, seats,
                commitment(initial.seed), False, waiting=waiting, clock=clock,
            )
            if plays:
                store.append_plays(follow, plays, after)
            store.set_rematch(match, follow.id)
            changes.publish(follow)
            token_out = tokens[moved].token
            assert token_out is not None
            result = Seated(follow.id, moved, token_out, match_view(follow, after, moved))
        else:
            follow = store.lock_match(match.rematch_id, tenant)
            if follow.status != "waiting" or not follow.seats[moved].open:
                raise NoOpenSeat("your seat in the rematch is taken")
            token_out, after = _sit(follow, moved, name or mine.name or f"seat {moved}",
                                    mine.player_id)
            result = Seated(follow.id, moved, token_out, match_view(follow, after, moved))
    changes.saw(follow)
    return result


def abort_match(match_id: str, tenant: int, token: str | None) -> MoveResult:
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
        changes.publish(match)
        view = match_view(match, state, seat)
    changes.saw(match)
    return MoveResult(None, (), view)


# --- read --------------------------------------------------------------------


def read_match(
    match_id: str, tenant: int, token: str | None, seen: Seen, wait: float
) -> MatchView | Unchanged:
    """The token's seat view (a spectator's without a token), or :class:`Unchanged`
    while the client's copy is current; with ``wait`` seconds, first wait that long
    for a change, unless nothing can change without the viewer (the match is over, or
    it is the viewer's turn). Answering "unchanged" usually needs no query at all."""
    peeked = changes.peek(match_id, tenant)
    if peeked.deadline and peeked.deadline <= time.time() * 1000:
        apply_due_timeouts(match_id)  # a read applies a passed turn deadline first
        peeked = changes.peek(match_id, tenant)
    version, turn = peeked.version, peeked.turn
    seat = seat_of(peeked.seats, token)
    idle = turn == changes.NOBODY or (seat is not None and turn == seat)
    if turn == changes.UNKNOWN:  # perhaps a table waiting for players: expire it if due
        version = expire_if_due(match_id, tenant, version)
    if seen.holds(version, seat) and wait > 0 and not idle:
        version = changes.wait_for_change(match_id, version, wait)
    if seen.holds(version, seat):
        version = changes.settled(match_id, version)  # never hide a committed move
    if seen.holds(version, seat):
        return Unchanged(version, seat)
    with transaction():
        match = store.get_match(match_id, tenant)
    _apply_if_due(match)
    with transaction():
        match = store.get_match(match_id, tenant)
        view = match_view(match, store.state_of(match), seat)
    return view


# --- moves -------------------------------------------------------------------


@dataclass(frozen=True)
class MoveResult:
    """A play as the API reports it, with the mover's view after any bot replies (a
    resignation has no play)."""

    move: Play | None
    replies: tuple[Play, ...]
    state: MatchView


def fingerprint(payload: Mapping[str, Any]) -> str:
    """A stable hash of a request body, to tell a retry from a different request."""
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _check_version(match: Match, if_match: int | None) -> None:
    if if_match is not None and if_match != match.version:
        raise VersionMismatch(
            f"the match is at version {match.version}, not {if_match}; reload and retry"
        )


def _idempotency_since() -> datetime:
    """The oldest moment an Idempotency-Key is honoured from (BASRA_IDEMPOTENCY_HOURS)."""
    return utcnow() - timedelta(hours=current_app.config["BASRA_IDEMPOTENCY_HOURS"])


_purged = [0.0]


def _purge_expired_keys() -> None:
    """Now and then (at most hourly per process) remove expired Idempotency-Key records."""
    now = time.monotonic()
    if now - _purged[0] < 3600:
        return
    _purged[0] = now
    purge_expired()


def purge_expired() -> None:
    """Remove expired Idempotency-Key records (the worker's chore, and now and then a
    move's)."""
    with transaction(write=True):
        store.purge_idempotency(_idempotency_since())


MOVE_ATTEMPTS = 5
"""How often a move is worked out again when the match changed while it was computed."""


def play_move(
    match_id: str,
    tenant: int,
    token: str | None,
    card: Card,
    capture: Sequence[Card] | None,
    *,
    if_match: int | None,
    idempotency_key: str | None,
    request_fingerprint: str,
) -> MoveResult:
    """Apply a seat's move and any bot replies.

    The engine and the bots run on the match as read, outside any lock; the write
    transaction only checks that nobody moved meanwhile, appends and saves. If
    somebody did, the move is worked out again on the new position (where it may be
    refused: not your turn, or 412 with If-Match). A retried Idempotency-Key with the
    same body gets the first result again, rebuilt from the move log.
    """
    move = Move(0, card, None if capture is None else tuple(capture))
    for _ in range(MOVE_ATTEMPTS):
        with transaction():
            match = store.get_match(match_id, tenant)
            seat = require_seat(seat_hashes(match.seats), token)
            earlier = store.find_idempotent(
                match, seat, idempotency_key, _idempotency_since()
            ) if idempotency_key else None
            if earlier is not None:
                if not hmac.compare_digest(earlier.fingerprint, request_fingerprint):
                    raise IdempotencyKeyReused(
                        "this Idempotency-Key was used for a different request"
                    )
                return _replayed(match, seat, earlier.first_seq, earlier.version)
            due = _is_due(match)
            if not due:
                _check_playing(match)
                _check_version(match, if_match)
                state = store.state_of(match)
        if due:  # the clock ran out first: apply that, then look again
            apply_due_timeouts(match_id)
            continue
        read = match.version
        state = apply_move(state, Move(seat, move.card, move.capture))
        assert state.last_play is not None
        mine = state.last_play
        state, replies = run_bots(state, _bots_of(match))
        with transaction(write=True):
            match = store.lock_match(match_id, tenant)
            if match.version != read:
                continue  # somebody moved while this one was worked out: again
            store.append_plays(match, [mine, *replies], state)
            if match.timeouts and match.timeouts[seat]:
                store.set_timeouts(match, [0 if i == seat else n
                                           for i, n in enumerate(match.timeouts)])
            if idempotency_key:
                store.save_idempotent(
                    match, seat, idempotency_key, request_fingerprint, read + 1, match.version
                )
            changes.publish(match)
            result = MoveResult(mine, tuple(replies), match_view(match, state, seat))
        changes.saw(match)
        if idempotency_key:
            _purge_expired_keys()
        return result
    raise VersionMismatch("the match kept changing while this move was worked out; retry")


def _replay(match: Match, records: Sequence[MoveRecord]) -> State:
    """The match rebuilt from its rules, seed, decks and these log entries."""
    start = store.state_of(match)
    state = new_match(start.rules, start.seed, start.decks)
    for record in records:
        if record.kind in ("resign", "forfeit"):
            state = resign(state, record.seat)
        elif record.kind == "play":
            assert record.card is not None
            state = apply_move(state, move_from_parts(record.seat, record.card, record.captured))
    return state


def _replayed(match: Match, seat: int, first_seq: int, version: int) -> MoveResult:
    """The result a move request got, from log entries ``first_seq`` to ``version``."""
    records = store.move_log(match, last=version)
    state = _replay(match, records)
    plays = [
        play_from_parts(r.round, r.seat, r.card or "", r.captured or [], r.basra)
        for r in records[first_seq - 1 :]
    ]
    view = match_view(match, state, seat, version=version)
    return MoveResult(plays[0], tuple(plays[1:]), view)


def resign_match(
    match_id: str, tenant: int, token: str | None, if_match: int | None
) -> MoveResult:
    """The token's seat resigns: the match ends, the other team wins."""
    with transaction(write=True):
        match = store.lock_match(match_id, tenant)
        seat = require_seat(seat_hashes(match.seats), token)
        _check_playing(match)
        _check_version(match, if_match)
        state = store.state_of(match)
        rnd = state.round
        state = resign(state, seat)
        store.append_resign(match, seat, rnd, state)
        changes.publish(match)
        view = match_view(match, state, seat)
    changes.saw(match)
    return MoveResult(None, (), view)


def hint(match_id: str, tenant: int, token: str | None, level: str) -> Move:
    """The move bot ``level`` would play for the token's seat now."""
    with transaction():
        match = store.get_match(match_id, tenant)
        seat = require_seat(seat_hashes(match.seats), token)
        _check_playing(match)
        state = store.state_of(match)
    if state.finished:
        raise MatchFinished("the match is finished")
    if state.turn != seat:
        raise NotYourTurn(f"it is seat {state.turn}'s turn, not seat {seat}'s")
    return bot_move(state, seat, level)


# --- history and the log -------------------------------------------------------


@dataclass(frozen=True)
class MatchSummary:
    """A match in the history listing."""

    id: str
    variant: str
    status: str
    version: int
    rules_hash: str
    scores: list[int]
    winner: int | None
    draw: bool
    seats: tuple[SeatInfo, ...]
    created_at: datetime
    finished_at: datetime | None
    end_reason: str | None
    rounds: int


@dataclass(frozen=True)
class HistoryPage:
    """A page of the history and the cursor of the next one."""

    matches: list[MatchSummary]
    next: str | None


def history(query: store.HistoryQuery) -> HistoryPage:
    """A page of the match history, newest first (waiting tables past their time left
    out)."""
    with transaction():
        rows, nxt = store.history(query, current_app.config["SECRET_KEY"], waiting_since())
        return HistoryPage([
            MatchSummary(
                m.id, m.variant, m.status, m.version, m.rules_hash, m.scores, m.winner, m.draw,
                seat_infos(m), m.created_at, m.finished_at, m.end_reason, m.rounds,
            )
            for m in rows
        ], nxt)


@dataclass(frozen=True)
class MoveLog:
    """The public move log, with the seed and decks once the match is over."""

    id: str
    status: str
    version: int
    commitment: str
    explicit_decks: bool
    moves: list[MoveRecord]
    seed: str | None
    decks: list[list[str]] | None


def move_log(match_id: str, tenant: int, after: int = 0) -> MoveLog:
    """The match's moves after sequence number ``after``, in order; seed and explicit
    decks revealed when finished."""
    with transaction():
        match = store.get_match(match_id, tenant)
        moves = store.move_log(match, first=after + 1)
    finished = match.status == "finished"
    return MoveLog(
        match.id, match.status, match.version, match.commitment, match.explicit_decks, moves,
        match.seed.hex() if finished else None,
        match.snapshot["decks"] if finished and match.explicit_decks else None,
    )
