"""Match use cases: create, read (304s, long polls, events), move, resign, hint, history.

Each takes parsed input, runs one transaction (store: load and lock -> engine:
apply -> store: append and save) and returns a result object for the web layer
to render. No HTTP and no SQL here; the rules are the engine's.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from flask import current_app

from ..engine import (
    Card,
    IllegalMove,
    MatchFinished,
    Move,
    NotYourTurn,
    Play,
    Rules,
    State,
    apply_move,
    commitment,
    load_variant,
    new_match,
    new_seed,
    resign,
    with_house_rules,
)
from ..engine.bots import POLICIES, SEARCHING
from ..engine.codec import move_from_parts, play_from_parts
from ..live import versions, waiters
from ..live.searches import decide, play_bots
from ..live.versions import Credential, SingleFlight, require_seat
from ..live.yielding import after_requests_under_way
from ..ops import metrics
from ..players import service as players
from ..storage.db import on_replica, read_fresh, statement_connection, transaction
from ..storage.models import Match, MoveRecord, utcnow
from ..tenants import limits
from ..tenants.errors import BudgetSpent
from . import clocks, store
from .errors import (
    IdempotencyKeyReused,
    MatchNotStarted,
    NoHumanSeat,
    RatedNeedsPlayers,
    VersionMismatch,
    WrongPlayerCount,
)
from .seats import (
    NewSeat,
    PlayerSpec,
    SeatToken,
    bot_levels,
    new_seats,
    seat_hashes,
)
from .views import (
    HistoryPage,
    MatchView,
    MoveResult,
    Seen,
    Unchanged,
    match_view,
)

BOT_LEVELS = tuple(POLICIES)


def _check_playing(match: Match) -> None:
    """Moves, resignations and hints need a match in play."""
    if match.status == "waiting":
        raise MatchNotStarted("the match waits for players to join")
    if match.status == "aborted":
        raise MatchFinished("the match was aborted")


# --- create ------------------------------------------------------------------


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


@dataclass(frozen=True)
class NewMatch:
    """A match worked out before it is stored: seeded, dealt, and (unless a seat is open)
    with the moves of bots that lead already played."""

    variant: str
    initial: State
    state: State
    plays: list[Play]
    seats: list[NewSeat]
    tokens: list[SeatToken]
    waiting: bool
    explicit_decks: bool


def deal_match(variant: str, rules: Rules, players: Sequence[PlayerSpec],
               decks: Sequence[Sequence[Card]] | None = None) -> NewMatch:
    """Work out a new match for these players; pure but for the seed and the tokens, so
    it runs before any lock is taken."""
    initial = new_match(rules, new_seed(), decks or ())
    seats, tokens = new_seats(players)
    waiting = any(p.open for p in players)
    state, plays = initial, []
    if not waiting:
        state, plays = play_bots(initial, {i: p.bot for i, p in enumerate(players) if p.bot})
    return NewMatch(variant, initial, state, plays, seats, tokens, waiting, bool(decks))


def insert_match(new: NewMatch, tenant: int, *, quick: bool = False,
                 clock: tuple[int, str] | None = None, rated: bool = False) -> Match:
    """Store a worked-out match in the caller's write transaction (NOTIFYed on commit)."""
    match = store.create_match(
        str(uuid.uuid4()), tenant, new.variant, new.initial, new.seats,
        commitment(new.initial.seed), new.explicit_decks, waiting=new.waiting, quick=quick,
        clock=clock, rated=rated,
    )
    for seat in new.seats:
        if seat.vouched and seat.player_id is not None:
            players.remember(tenant, seat.player_id, seat.name)
    if new.plays:
        store.append_plays(match, new.plays, new.state)
    versions.publish(match)
    return match


def create_match(
    tenant: int,
    variant: str,
    overrides: Mapping[str, Any] | None,
    players: Sequence[PlayerSpec],
    decks: Sequence[Sequence[Card]] | None,
    *,
    clock: tuple[int, str] | None = None,
    rated: bool = False,
) -> CreatedMatch:
    """Create a tenant's match; bot seats that lead play at once. With an open seat it
    waits (``waiting``) and deals when the last seat fills. A ``rated`` match takes
    distinct vouched players (open seats are filled by such players)."""
    rules = _rules_for(variant, overrides, len(players))
    if all(p.bot for p in players):
        raise NoHumanSeat(
            "a match needs at least one human seat",
            field="players", problem="at least one player must not be a bot",
        )
    if rated:
        seated: list[str] = []
        for i, p in enumerate(players):
            if not p.open:
                check_ratable(p, seated, f"players[{i}]")
                assert p.player_id is not None
                seated.append(p.player_id)
    new = deal_match(variant, rules, players, decks)
    with transaction(write=True):
        match = insert_match(new, tenant, clock=clock, rated=rated)
        view = match_view(match, new.state, None)
    return CreatedMatch(match.id, tuple(new.tokens), view.commitment, view)


def check_ratable(who: PlayerSpec, seated: Sequence[str], field: str) -> None:
    """A seat of a rated match: a vouched player not seated there already (no bot, no
    anonymous seat), else :class:`RatedNeedsPlayers`."""
    if who.bot:
        why = "a rated match seats no bots"
    elif who.player_id is None or not who.vouched:
        why = "a rated match seats players vouched for (a player_id with its proof)"
    elif who.player_id in seated:
        why = f"player {who.player_id!r} already has a seat"
    else:
        return
    raise RatedNeedsPlayers(why, field=field, problem=why)


@dataclass(frozen=True)
class Event:
    """One event of a match's stream: its view after a change, or a heartbeat (None)."""

    view: MatchView | None


def follow_match(match_id: str, tenant: int, token: Credential | None, last_seen: int | None,
                 heartbeat: float, client: str) -> Iterator[Event]:
    """The events of a match for the token's seat (or a spectator): its view now (unless
    ``last_seen`` is the current version), then one per change, a heartbeat (``Event(None)``)
    when ``heartbeat`` seconds pass without one; it ends once the match is over. The stream
    holds one of ``client``'s parking places (:mod:`service.live.waiters`)."""
    peeked = clocks.peek(match_id, tenant)
    version, seat = peeked.version, peeked.seat_of(token)
    with waiters.parked(client), metrics.WAITERS.labels("stream").track_inprogress():
        yield from _events(match_id, tenant, seat, version, last_seen != version, heartbeat)


def _events(match_id: str, tenant: int, seat: int | None, version: int, fresh: bool,
            heartbeat: float) -> Iterator[Event]:
    if not fresh:
        yield Event(None)  # resumed and current: answer at once, then wait
    while True:
        if not fresh:
            current = versions.wait_for_change(match_id, version, heartbeat)
            if current == version:
                yield Event(None)
                continue
            version = current
        view = _view_at(match_id, tenant, seat, version, shared=not fresh)
        fresh = False
        version = view.version
        yield Event(view)
        if view.status in ("finished", "aborted"):
            return


# --- read --------------------------------------------------------------------


def read_match(
    match_id: str, tenant: int, token: Credential | None, seen: Seen, wait: float,
    client: str = "",
) -> MatchView | Unchanged:
    """The token's seat view (a spectator's without a token), or :class:`Unchanged`
    while the client's copy is current; with ``wait`` seconds, first wait that long
    for a change, unless nothing can change without the viewer (the match is over, or
    it is the viewer's turn). Answering "unchanged" usually needs no query at all. A wait
    holds one of ``client``'s parking places (:mod:`service.live.waiters`)."""
    # a read applies what time decided first; never older than what the client holds
    peeked = clocks.peek(match_id, tenant, seen.newest())
    seat = peeked.seat_of(token)
    version, turn = peeked.version, peeked.turn
    idle = turn == versions.NOBODY or (seat is not None and turn == seat)
    woken = False
    if seen.holds(version, seat) and wait > 0 and not idle:
        with waiters.parked(client), metrics.WAITERS.labels("poll").track_inprogress():
            version = versions.wait_for_change(match_id, version, wait)
        woken = not seen.holds(version, seat)
    if seen.holds(version, seat):
        version = versions.settled(match_id, version)  # never hide a committed move
    if seen.holds(version, seat):
        return Unchanged(version, seat)
    return _view_at(match_id, tenant, seat, version, shared=woken)


_VIEWS_KEPT = 4096
_views: OrderedDict[tuple[int, str, int, int | None], MatchView] = OrderedDict()
_cache_lock = threading.Lock()
"""Guards this process's caches: recent views and matches just written."""
_view_reads = SingleFlight()
"""Views a woken request of this process is reading right now."""


def _view_at(match_id: str, tenant: int, seat: int | None, version: int,
             shared: bool) -> MatchView:
    """The seat's view of the match at ``version`` or later, read from the database.

    ``shared`` (requests woken by the notification of ``version``): a view never
    changes once made (every change is a new version), so a process keeps the views
    it read lately, and the waiters of one match that a move wakes together read the
    database once, each after the requests under way in its worker
    (:func:`after_requests_under_way`). Other reads always read the database: a version
    heard here may lag one that the client saw acknowledged elsewhere."""
    if not shared:
        return _read_view(match_id, tenant, seat, version)
    after_requests_under_way()
    key = (tenant, match_id, version, seat)
    return _view_reads.do(
        key, lambda: _kept_view(key) or _read_view(match_id, tenant, seat, version))


def _kept_view(key: tuple[int, str, int, int | None]) -> MatchView | None:
    with _cache_lock:
        return _views.get(key)


def _read_view(match_id: str, tenant: int, seat: int | None, at_least: int) -> MatchView:
    """The seat's view from the database at ``at_least`` or later (from a standby that
    has it, else the primary), kept for the waiters woken by its version."""
    return read_fresh(lambda: _read_view_now(match_id, tenant, seat),
                      lambda view: view.version >= at_least)


def _read_view_now(match_id: str, tenant: int, seat: int | None) -> MatchView:
    """The seat's view as the database has it now. A match this process wrote last,
    still at that version in the database, is not loaded again: one small query says so
    (every change moves the version)."""
    recalled = _recalled(tenant, match_id)
    if recalled is not None:
        with statement_connection(write=False) as alone:
            stored = store.version_of(match_id, tenant, alone)
        if stored == recalled[0]:
            _, match, state = recalled
            view = match_view(match, state, seat)
        else:
            recalled = None
    if recalled is None:
        with transaction(one_statement=True):  # get_match is one SELECT
            match = store.get_match(match_id, tenant)
            view = match_view(match, store.state_of(match), seat)
    with _cache_lock:
        _views[(tenant, match_id, view.version, seat)] = view
        while len(_views) > _VIEWS_KEPT:
            _views.popitem(last=False)
    return view


# --- moves -------------------------------------------------------------------


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


def _afford_searches(levels: Mapping[int, str]) -> None:
    """Searching bots' replies are billed to the ``expensive`` budget, a reply a unit:
    a move that would make them reply is refused (429) while that budget is spent."""
    if any(level in SEARCHING for level in levels.values()):
        wait = limits.budget_retry_after("expensive")
        if wait is not None:
            raise BudgetSpent(f"the computer's replies spent your expensive budget; try "
                              f"again in {wait} s", retry_after=wait)


MOVE_ATTEMPTS = 5
"""How often a move is worked out again when the match changed while it was computed."""


def play_move(
    match_id: str,
    tenant: int,
    token: Credential | None,
    card: Card,
    capture: Sequence[Card] | None,
    *,
    if_match: int | None,
    idempotency_key: str | None,
    request_fingerprint: str,
) -> MoveResult:
    """Apply a seat's move and any bot replies.

    The engine and the bots run on the match as read, outside any lock; the write
    transaction saves only if nobody moved meanwhile (one conditional UPDATE), and
    appends. If somebody did, the move is worked out again on the new position (where
    it may be refused: not your turn, or 412 with If-Match). A retried Idempotency-Key with the
    same body gets the first result again, rebuilt from the move log.
    """
    move = Move(0, card, None if capture is None else tuple(capture))
    for attempt in range(MOVE_ATTEMPTS):
        recalled = _recalled(tenant, match_id) if attempt == 0 else None
        if recalled is not None:
            # the match as this process last wrote it: if another moved since, the
            # conditional save below finds it moved and sends this move round again
            read, match, state = recalled
            seat = require_seat(seat_hashes(match.seats), token)
            if if_match is not None and if_match != read:
                recalled = None  # the database says which version
        if recalled is None:
            read, state, seat, match, replayed = _read_for_move(
                match_id, tenant, token, if_match, idempotency_key, request_fingerprint)
            if replayed is not None:
                return replayed
            if state is None:  # the clock ran out first: apply that, then look again
                clocks.apply_due_timeouts(match_id)
                continue
        try:
            state = apply_move(state, Move(seat, move.card, move.capture))
        except IllegalMove:
            if recalled is None:
                raise
            continue  # refused on the remembered match: ask the database before saying so
        assert state.last_play is not None
        mine = state.last_play
        levels = bot_levels(match.seats)
        _afford_searches(levels)
        state, replies = play_bots(state, levels)
        timeouts = [0 if i == seat else n for i, n in enumerate(match.timeouts)] \
            if match.timeouts and match.timeouts[seat] else None
        # the save refuses a key the seat already used: then the move goes round again
        # and the read finds what the key answered first
        key = store.KeyRecord(seat, idempotency_key, request_fingerprint,
                              _idempotency_since()) if idempotency_key else None
        if state.finished and store.keeps_record(match):
            finished = _finish_recorded(match_id, tenant, read, [mine, *replies], state,
                                        timeouts, key)
            if finished is None:
                continue  # somebody moved while this one was worked out: again
            match = finished
            result = MoveResult(mine, tuple(replies), match_view(match, state, seat))
        else:
            with statement_connection() as alone:  # the save is one statement
                if not store.append_plays_if_unchanged(match, read, [mine, *replies], state,
                                                       timeouts=timeouts, key=key, alone=alone):
                    continue  # somebody moved while this one was worked out: again
                result = MoveResult(mine, tuple(replies), match_view(match, state, seat))
        versions.saw(match)
        _remember(tenant, match, state)
        limits.charge("expensive", sum(1 for p in replies if levels.get(p.seat) in SEARCHING))
        if idempotency_key:
            _purge_expired_keys()
        return result
    raise VersionMismatch("the match kept changing while this move was worked out; retry")


class _Moved(Exception):
    """The match moved on (or the key was used) under a recorded finish: roll it back."""


def _finish_recorded(match_id: str, tenant: int, read: int, plays: list[Play], state: State,
                     timeouts: list[int] | None, key: store.KeyRecord | None) -> Match | None:
    """The finishing move of a match that keeps records, saved with the rating updates
    and totals it makes in one write transaction under the match's row lock; None
    (nothing written) if the match moved on since ``read``."""
    try:
        with transaction(write=True):
            match = store.lock_match(match_id, tenant)
            if match.version != read or not store.append_plays_if_unchanged(
                    match, read, plays, state, timeouts=timeouts, key=key):
                raise _Moved()
    except _Moved:
        return None
    return match


def _read_for_move(
    match_id: str, tenant: int, token: Credential | None, if_match: int | None,
    idempotency_key: str | None, request_fingerprint: str,
) -> tuple[int, State | None, int, Match, MoveResult | None]:
    """(version, state, seat, match, None) of a match about to take the token's move;
    state None when its clock ran out first; a retried Idempotency-Key's first result
    as the last item."""
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
            return match.version, None, seat, match, _replayed(
                match, seat, earlier.first_seq, earlier.version)
        if clocks.is_due(match):
            return match.version, None, seat, match, None
        _check_playing(match)
        _check_version(match, if_match)
        return match.version, store.state_of(match), seat, match, None


_RECENT_KEPT = 2048
_recent: OrderedDict[tuple[int, str], tuple[int, Match, State]] = OrderedDict()


def _remember(tenant: int, match: Match, state: State) -> None:
    """Keep a match this process just wrote, with its state, for the next move on it (a
    keep-alive client comes back to the same process): that move needs no read."""
    key = (tenant, match.id)
    with _cache_lock:
        if match.status == "active" and not state.finished:
            _recent[key] = (match.version, match, state)
            _recent.move_to_end(key)
            if len(_recent) > _RECENT_KEPT:
                _recent.popitem(last=False)
        else:
            _recent.pop(key, None)


def _recalled(tenant: int, match_id: str) -> tuple[int, Match, State] | None:
    """The match as this process last wrote it, unless its clock has run out since."""
    with _cache_lock:
        found = _recent.get((tenant, match_id))
    # a write that failed after the row was updated in memory: not the match remembered
    if found is None or found[1].version != found[0] or clocks.is_due(found[1]):
        return None
    return found


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
    match_id: str, tenant: int, token: Credential | None, if_match: int | None
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
        versions.publish(match)
        view = match_view(match, state, seat)
    versions.saw(match)
    return MoveResult(None, (), view)


def hint(match_id: str, tenant: int, token: Credential | None, level: str) -> Move:
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
    return decide(state, seat, level)


# --- history and the log -------------------------------------------------------


@on_replica
def history(query: store.HistoryQuery) -> HistoryPage:
    """A page of the match history, newest first (waiting tables past their time left
    out); a player's page (``query.player_id``) only if the front end vouched for them."""
    with transaction():
        rows, nxt = store.history(query, current_app.config["SECRET_KEY"], clocks.waiting_since())
        if not rows and query.player_id is not None:
            # a player with a match was vouched for: only an empty page asks
            players.vouched_player(query.tenant, query.player_id)
    return HistoryPage(rows, nxt)


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


@on_replica
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
