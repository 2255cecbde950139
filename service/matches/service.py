"""Match use cases: create, move, resign, hint, history, the move log (reading a match
is :mod:`.reading`'s).

Each takes parsed input, runs one transaction (store: read -> engine: apply -> changes:
save) and returns a result object for the web layer to render. No HTTP and no SQL here;
the rules are the engine's.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import math
import secrets
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from flask import current_app

from ..bots.helpers import decide
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
    move_from_parts,
    new_match,
    new_seed,
    play_from_parts,
    resign,
    team_of,
    with_house_rules,
)
from ..engine.bots import LADDER, POLICIES, SEARCHING
from ..live.listener import CHANNEL, payload
from ..players import service as players
from ..players.service import Credential
from ..storage import writes
from ..storage.base import utcnow
from ..storage.db import after_commit, on_replica, statement_connection, transaction
from ..tenants import audit
from ..tenants.service import sender_digest
from . import cache, changes, clocks, finish, history, store
from .changes import Change
from .enums import ClockTimeout, EndReason, MatchStatus, MoveKind
from .errors import (
    ClaimTooEarly,
    ClockRanOut,
    IdempotencyKeyReused,
    MatchNotFinished,
    MatchNotStarted,
    MatchVoided,
    NoHumanSeat,
    RatedNeedsPlayers,
    RatedNeedsShuffle,
    StandInTooStrong,
    VersionMismatch,
    WrongPlayerCount,
)
from .models import MoveRecord
from .replies import bill_replies, bots_play
from .results import (
    PUBLIC,
    SERVER,
    SPECTATOR_DELAY,
    HistoryPage,
    MatchSummary,
    MatchView,
    MoveResult,
    Viewer,
    as_spectators_see,
    match_view,
    replay,
    shown_records,
    shown_version,
    spectates,
)
from .rows import ChatLineRow, GameFacts, LogEntry, MatchRow
from .rows import facts as match_facts
from .seats import (
    Minter,
    NewSeat,
    PlayerSpec,
    SeatToken,
    acting_seat,
    derived_minter,
    new_seats,
    seat_of,
    token_check,
)

BOT_LEVELS = tuple(POLICIES)
RATED_STAND_INS = LADDER[:LADDER.index("greedy") + 1]
"""The stand-ins a rated match may name: none stronger than greedy."""
SEARCHING_LEVELS = SEARCHING
"""The levels whose moves (and hints) spend the ``expensive`` budget."""


def check_playing(match: MatchRow, if_match: int | None = None) -> None:
    """Moves, resignations and hints need a match in play (at version ``if_match``, when
    the request names one)."""
    if match.status == MatchStatus.WAITING:
        raise MatchNotStarted("the match waits for players to join")
    if match.status == MatchStatus.ABORTED:
        raise MatchFinished("the match was aborted")
    if if_match is not None and if_match != match.version:
        raise VersionMismatch(
            f"the match is at version {match.version}, not {if_match}; reload and retry")


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
               decks: Sequence[Sequence[Card]] | None = None, *, tenant: int,
               mint: Minter | None = None, seed: bytes | None = None) -> NewMatch:
    """Work out a new match of ``tenant`` for these players; pure but for the seed (a new
    one, unless ``seed``: a duplicate round's, which all its tables share), the tokens
    (``mint``: how they are made, random by default) and the bots' bill, so it runs
    before any lock is taken."""
    initial = new_match(rules, seed or new_seed(), decks or ())
    seats, tokens = new_seats(players, mint) if mint else new_seats(players)
    waiting = any(p.open for p in players)
    state, plays = initial, []
    if not waiting:
        bots = {i: p.bot for i, p in enumerate(players) if p.bot}
        state, plays = bots_play(initial, bots, tenant)
    return NewMatch(variant, initial, state, plays, seats, tokens, waiting, bool(decks))


def insert_match(new: NewMatch, tenant: int, *, quick: bool = False,
                 clock: tuple[int, str] | None = None, rated: bool = False,
                 tournament_game: bool = False, stand_in: str | None = None,
                 spectator_delay: int | None = None, sealed: bool = False) -> MatchRow:
    """Store a worked-out match in the caller's write transaction (NOTIFYed on commit). A
    rated match asked without a clock gets ``BASRA_RATED_MOVE_SECONDS`` (autoplay): a
    loser cannot stall it for ever. Spectators of a rated or tournament match lag
    :data:`~.SPECTATOR_DELAY` plays behind unless ``spectator_delay`` says."""
    if spectator_delay is None:
        spectator_delay = SPECTATOR_DELAY if rated or tournament_game else 0
    if rated and clock is None:
        clock = (int(current_app.config["BASRA_RATED_MOVE_SECONDS"]), ClockTimeout.AUTOPLAY)
    match = store.create(
        str(uuid.uuid4()), tenant, new.variant, new.initial, new.seats,
        commitment(new.initial.seed), new.explicit_decks,
        status=MatchStatus.WAITING if new.waiting else MatchStatus.ACTIVE, quick=quick,
        clock=(clock[0], ClockTimeout(clock[1])) if clock else None, rated=rated,
        tournament_game=tournament_game, stand_in=stand_in, spectator_delay=spectator_delay,
        sealed=sealed)
    for seat in new.seats:
        if seat.vouched and seat.player_id is not None:
            players.remember(tenant, seat.player_id, seat.name)
    changes.created(match)
    if new.plays:
        match = changes.save(match, new.state, Change([LogEntry.of(p) for p in new.plays]))
    return match


@dataclass(frozen=True)
class CreateKey:
    """A create's Idempotency-Key: the key, who sent it within the front end (a digest
    of the player, API key or visitor) and the request body's fingerprint."""

    key: str
    caller: str
    fingerprint: str


def create_match(tenant: int, variant: str, overrides: Mapping[str, Any] | None,
                 players: Sequence[PlayerSpec], decks: Sequence[Sequence[Card]] | None, *,
                 clock: tuple[int, str] | None = None, rated: bool = False,
                 viewer: str | None = None, keyed: CreateKey | None = None,
                 stand_in: str | None = None,
                 spectator_delay: int | None = None) -> CreatedMatch:
    """Create a tenant's match; bot seats that lead play at once. With an open seat it
    waits (``waiting``) and deals when the last seat fills. A ``rated`` match takes
    distinct vouched players (open seats are filled by such players). The answer's view
    is the seat of the vouched player ``viewer`` (the creator's, when seated), else a
    spectator's. With ``keyed``, a retry of the caller's create (the same key and body,
    within ``BASRA_IDEMPOTENCY_HOURS``) is answered the match that it made, its tokens
    again; the key with another body is :class:`IdempotencyKeyReused`."""
    if keyed is not None:
        earlier = _created_before(tenant, keyed, viewer)
        if earlier is not None:
            return earlier
    rules = _rules_for(variant, overrides, len(players))
    if all(p.bot for p in players):
        raise NoHumanSeat(
            "a match needs at least one human seat",
            field="players", problem="at least one player must not be a bot",
        )
    if rated and decks:
        raise RatedNeedsShuffle("a rated match is dealt from the service's shuffle: explicit "
                                "decks (whose creator knows every card) are for unrated "
                                "matches", field="decks", problem="not with rated")
    if rated and stand_in is not None and stand_in not in RATED_STAND_INS:
        raise StandInTooStrong(
            f"a rated match's stand-in is at most greedy ({', '.join(RATED_STAND_INS)}): "
            "leaving a seat must never play it better", field="stand_in",
            problem=f"must be one of {', '.join(RATED_STAND_INS)} in a rated match")
    if rated:
        seated: list[str] = []
        for i, p in enumerate(players):
            if not p.open:
                check_ratable(p, seated, f"players[{i}]")
                assert p.player_id is not None
                seated.append(p.player_id)
    secret, salt = current_app.config["SECRET_KEY"], secrets.token_hex(32)
    new = deal_match(variant, rules, players, decks, tenant=tenant,
                     mint=derived_minter(secret, salt) if keyed else None)
    try:
        with transaction(write=True):
            match = insert_match(new, tenant, clock=clock, rated=rated, stand_in=stand_in,
                                 spectator_delay=spectator_delay)
            if keyed is not None and not store.remember_create(
                    tenant, keyed.caller, keyed.key,
                    store.CreateRecord(keyed.fingerprint, match.id, salt,
                                       token_check(secret, salt)),
                    match.pk, _idempotency_since()):
                raise _KeyTaken()
    except _KeyTaken:
        # a concurrent create with the key made its match first (its record committed
        # before this one's insert returned): this one is rolled back, that one answers
        assert keyed is not None
        earlier = _created_before(tenant, keyed, viewer)
        assert earlier is not None
        return earlier
    view = match_view(match, new.state, _seat_of_player(match, viewer))
    return CreatedMatch(match.id, tuple(new.tokens), view.commitment, view)


class _KeyTaken(Exception):
    """A create's Idempotency-Key was recorded meanwhile: roll its match back."""


def _seat_of_player(match: MatchRow, player_id: str | None) -> int | None:
    """The seat of the vouched player (None: not seated, or no player)."""
    if player_id is None:
        return None
    return next((seat for seat, player in match.vouched if player == player_id), None)


def _created_before(tenant: int, keyed: CreateKey, viewer: str | None) -> CreatedMatch | None:
    """The answer again to a retried create (its match as it is now, its seats' tokens
    derived again); None if the key is new (or expired)."""
    with transaction():
        earlier = store.find_create(tenant, keyed.caller, keyed.key, _idempotency_since())
        if earlier is None:
            return None
        if not hmac.compare_digest(earlier.fingerprint, keyed.fingerprint):
            raise IdempotencyKeyReused("this Idempotency-Key was used for a different request")
        match, state = store.read(earlier.match_id, tenant)
    secret = current_app.config["SECRET_KEY"]
    if not hmac.compare_digest(earlier.token_check, token_check(secret, earlier.salt)):
        raise IdempotencyKeyReused("this Idempotency-Key's match was made under another "
                                   "secret key (BASRA_SECRET_KEY changed): its tokens cannot "
                                   "be shown again")
    mint = derived_minter(secret, earlier.salt)
    tokens = []
    for seat in match.seats:
        token, token_hash = mint(seat.seat)
        mine = seat.token_hash is not None and hmac.compare_digest(seat.token_hash, token_hash)
        tokens.append(SeatToken(seat.seat, seat.name, token if mine else None,
                                open=seat.name is None and seat.bot is None, bot=seat.bot,
                                player_id=seat.player_id))
    view = match_view(match, state, _seat_of_player(match, viewer))
    return CreatedMatch(match.id, tuple(tokens), view.commitment, view)


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


# --- moves -------------------------------------------------------------------


def fingerprint(payload: Mapping[str, Any]) -> str:
    """A stable hash of a request body, to tell a retry from a different request."""
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _idempotency_since() -> datetime:
    """The oldest moment an Idempotency-Key is honoured from (BASRA_IDEMPOTENCY_HOURS)."""
    return utcnow() - timedelta(hours=current_app.config["BASRA_IDEMPOTENCY_HOURS"])


_purged = [0.0]


def purge_expired() -> None:
    """Remove expired Idempotency-Key records (the worker's chore, and at most hourly
    per process a keyed move's)."""
    _purged[0] = time.monotonic()
    with transaction(write=True):
        store.purge_idempotency(_idempotency_since())


MOVE_ATTEMPTS = 5
"""How often a move is worked out again when the match changed while it was computed."""


@dataclass(frozen=True)
class MoveRequest:
    """A seat's move as asked for: the card and what it takes, and the request's
    conditions (If-Match, Idempotency-Key and the body's fingerprint)."""

    token: Credential | None
    card: Card
    capture: tuple[Card, ...] | None
    if_match: int | None
    key: str | None
    fingerprint: str


def play_move(match_id: str, tenant: int, asked: MoveRequest) -> MoveResult:
    """Apply a seat's move and any bot replies.

    The engine and the bots run on the match as read (or as this process saved it last),
    outside any lock; the save happens only if nobody moved meanwhile (one conditional
    UPDATE). If somebody did, the move is worked out again on the new position (where it
    may be refused: not your turn, or 412 with If-Match). A retried Idempotency-Key with
    the same body gets the first result again, rebuilt from the move log. A seat whose
    clock ran out (before, or while the move was worked out) plays nothing."""
    first: list[MatchRow] = []
    for attempt in range(MOVE_ATTEMPTS):
        result = _attempt(match_id, tenant, asked, first, recall=attempt == 0)
        if result is not None:
            return result
    raise VersionMismatch("the match kept changing while this move was worked out; retry")


def _attempt(match_id: str, tenant: int, asked: MoveRequest, first: list[MatchRow],
             recall: bool) -> MoveResult | None:
    """One try at a move; None when it must be worked out again (the match moved).
    ``first`` keeps the match as the move first found it."""
    written = cache.written.get((tenant, match_id)) if recall else None
    if written is not None and not written[0].due(utcnow()) and asked.if_match in (
            None, written[0].version):
        match, state = written
        seat = acting_seat(match, asked.token)
        try:
            moved = apply_move(state, Move(seat, asked.card, asked.capture))
        except IllegalMove:
            return None  # refused on the remembered match: the database says
    else:
        read = _read_for_move(match_id, tenant, asked)
        if isinstance(read, MoveResult):
            return read
        match, state, seat = read
        if first and _timed_out_since(first[0], match, seat):
            raise ClockRanOut(f"seat {seat}'s time ran out while the move was worked out; "
                              "the move was not played")
        moved = apply_move(state, Move(seat, asked.card, asked.capture))
    first.append(match)
    return _save_move(match, seat, moved, asked)


def _timed_out_since(before: MatchRow, now: MatchRow, seat: int) -> bool:
    """Whether the seat's clock ran out between two reads of its match (the worker played
    for it: its timeouts in a row went up)."""
    return len(now.timeouts) > seat and len(before.timeouts) > seat \
        and now.timeouts[seat] > before.timeouts[seat]


def _save_move(match: MatchRow, seat: int, moved: State, asked: MoveRequest) -> MoveResult | None:
    """The bots' replies to a move, and the save of both; None if the match moved on."""
    assert moved.last_play is not None
    mine, played = moved.last_play, moved
    # billed once the save holds: a move worked out again is not billed twice
    moved, replies = bots_play(moved, match.bots, match.tenant, bill=False, replying=True)
    timeouts = tuple(0 if i == seat else n for i, n in enumerate(match.timeouts)) \
        if match.timeouts and match.timeouts[seat] else None
    # the save refuses a key the seat already used: then the move goes round again
    # and the read finds what the key answered first
    key = store.KeyRecord(seat, asked.key, asked.fingerprint, _idempotency_since()) \
        if asked.key else None
    entries = [LogEntry.of(mine), *match.logged(replies)]
    if moved.finished and finish.keeps_record(match):
        saved = _finish(match, seat, moved, entries, timeouts, key)
    else:
        pending = changes.prepare(match, moved, Change(entries, timeouts=timeouts))
        saved = pending.match, match_view(pending.match, moved, seat)
        with statement_connection() as alone:  # the save is one statement
            if changes.commit(pending, key=key, alone=alone) is None:
                saved = None
    if saved is None:
        return None
    after, view = saved
    if after.status == MatchStatus.ACTIVE:
        cache.written.put((after.tenant, after.id), (after, moved))
    else:
        cache.written.drop((after.tenant, after.id))
    bill_replies(replies, match.bots, played)
    if asked.key and time.monotonic() - _purged[0] > 3600:
        purge_expired()
    return MoveResult(mine, tuple(replies), view)


class _Moved(Exception):
    """The match moved on (or the key was used) under a finish: roll back what it did."""


def _finish(match: MatchRow, seat: int, state: State, entries: list[LogEntry],
            timeouts: tuple[int, ...] | None,
            key: store.KeyRecord | None) -> tuple[MatchRow, MatchView] | None:
    """The finishing move of a match that keeps records, saved with what its finish
    records in one write transaction under the match's row lock (and the mover's view);
    None (nothing written) if the match moved on."""
    try:
        with transaction(write=True):
            locked, _ = store.read(match.id, match.tenant, lock=True)
            if locked.version != match.version:
                raise _Moved()
            pending = changes.prepare(locked, state, Change(entries, timeouts=timeouts))
            view = match_view(pending.match, state, seat)
            if changes.commit(pending, key=key) is None:
                raise _Moved()
    except _Moved:
        return None
    return pending.match, view


def _read_for_move(match_id: str, tenant: int, asked: MoveRequest
                   ) -> tuple[MatchRow, State, int] | MoveResult:
    """The match about to take the token's move, its state and the seat; or a retried
    Idempotency-Key's first result. A seat whose time ran out plays no more
    (:class:`ClockRanOut`)."""
    with transaction():
        match, state = store.read(match_id, tenant)
        seat = acting_seat(match, asked.token)
        earlier = store.find_idempotent(match.pk, seat, asked.key, _idempotency_since()) \
            if asked.key else None
        if earlier is not None:
            if not hmac.compare_digest(earlier.fingerprint, asked.fingerprint):
                raise IdempotencyKeyReused("this Idempotency-Key was used for a different request")
            return _replayed(match, state, seat, earlier.first_seq, earlier.version)
        check_playing(match, asked.if_match)
        if match.due(utcnow()):
            assert match.deadline is not None
            raise ClockRanOut(f"seat {match.turn}'s time ran out at {match.deadline.isoformat()}; "
                              "the move was not played")
        return match, state, seat


@dataclass(frozen=True)
class Deal:
    """The cards as one deal left them: each seat's hand and the floor."""

    round: int
    hands: tuple[tuple[str, ...], ...]
    floor: tuple[str, ...]


@dataclass(frozen=True)
class MatchRecord:
    """All a match holds, for its front end's staff: the public view, the whole log,
    once it is over every deal's hands, and every line said at the table."""

    view: MatchView
    log: MoveLog
    deals: tuple[Deal, ...] | None
    chat: tuple[ChatLineRow, ...] = ()


def match_record(match_id: str, tenant: int) -> MatchRecord:
    """A match as its front end's staff review it (a report's evidence)."""
    with transaction():
        match, state = store.read(match_id, tenant)
        records = store.move_log(match.pk)
        said = store.chat_lines(match.pk, 0, 10**6)  # a match holds a bounded number
    log = _log_of(match, state, records)
    deals = _deals(state, records) if match.status.over else None
    return MatchRecord(match_view(match, state, None), log, deals, tuple(said))


def _deals(state: State, records: Sequence[MoveRecord]) -> tuple[Deal, ...]:
    """Every deal of a match, as dealt: the match replayed from its log."""
    rebuilt = new_match(state.rules, state.seed, state.decks)
    deals: list[Deal] = []

    def seen(at: State) -> None:
        if not at.finished and not at.deal_plays and any(at.hands):
            deals.append(Deal(at.round, tuple(tuple(str(c) for c in h) for h in at.hands),
                              tuple(str(c) for c in at.floor)))

    seen(rebuilt)
    for record in records:
        if record.kind == MoveKind.PLAY and record.card is not None:
            rebuilt = apply_move(rebuilt, move_from_parts(record.seat, record.card,
                                                          record.captured))
            seen(rebuilt)
    return tuple(deals)


def _replayed(match: MatchRow, state: State, seat: int, first_seq: int,
              version: int) -> MoveResult:
    """The result a move request got, from log entries ``first_seq`` to ``version``."""
    records = store.move_log(match.pk, last=version)
    plays = [play_from_parts(r.round, r.seat, r.card or "", r.captured or [], r.basra)
             for r in records[first_seq - 1:]]
    view = match_view(match, replay(state, records), seat, version=version)
    return MoveResult(plays[0], tuple(plays[1:]), view)


def resign_match(match_id: str, tenant: int, token: Credential | None,
                 if_match: int | None) -> MoveResult:
    """The token's seat resigns: the match ends, the other team wins."""
    with transaction(write=True):
        match, state = store.read(match_id, tenant, lock=True)
        seat = acting_seat(match, token)
        check_playing(match, if_match)
        entries = [changes.log(MoveKind.RESIGN, seat, state)]
        state = resign(state, seat)
        saved = changes.save(match, state, Change(entries, end_reason=EndReason.RESIGNED))
    cache.written.drop((tenant, match_id))
    return MoveResult(None, (), match_view(saved, state, seat))


def claim_win(match_id: str, tenant: int, token: Credential | None,
              if_match: int | None) -> MoveResult:
    """The token's seat claims the win from the seat to play, silent (no move, nothing
    changed) for ``BASRA_CLAIM_AFTER_SECONDS``: that seat's team forfeits, as if it had
    resigned (``end_reason`` ``claimed``; a rated match is rated so). Earlier, or on
    the claimer's own team's turn, :class:`ClaimTooEarly`."""
    after = float(current_app.config["BASRA_CLAIM_AFTER_SECONDS"])
    with transaction(write=True):
        match, state = store.read(match_id, tenant, lock=True)
        seat = acting_seat(match, token)
        check_playing(match, if_match)
        if state.finished or state.turn is None:
            raise MatchFinished("the match is finished")
        silent = state.turn
        if team_of(silent) == team_of(seat):
            raise ClaimTooEarly(f"it is your team's turn (seat {silent}): play, or resign")
        waited = (utcnow() - match.updated_at).total_seconds()
        if waited < after:
            raise ClaimTooEarly(
                f"seat {silent} has been silent {waited:.0f} s; a win can be claimed once "
                f"it has been {after:.0f} s: in {max(1, math.ceil(after - waited))} s")
        entries = [changes.log(MoveKind.FORFEIT, silent, state)]
        state = resign(state, silent)
        saved = changes.save(match, state, Change(entries, end_reason=EndReason.CLAIMED))
    cache.written.drop((tenant, match_id))
    return MoveResult(None, (), match_view(saved, state, seat))


def playing_in(tenant: int, player_id: str, besides: str | None = None) -> str | None:
    """An active match (other than ``besides``) where the vouched player holds a seat,
    its id, or None (caller's transaction)."""
    found = store.matches_of(tenant, player_id, [MatchStatus.ACTIVE], limit=2)
    return next((match_id for match_id in found if match_id != besides), None)


def forfeit_player(tenant: int, player_id: str) -> list[str]:
    """Every active match where the vouched player holds a seat ends as their side's
    loss (``end_reason`` ``suspended``; a rated one is rated so): the ids."""
    with transaction():
        found = store.matches_of(tenant, player_id, [MatchStatus.ACTIVE])
    ended = []
    for match_id in found:
        with transaction(write=True):
            match, state = store.read(match_id, tenant, lock=True)
            seats = [seat for seat, holder in match.vouched if holder == player_id]
            if match.status != MatchStatus.ACTIVE or not seats:
                continue
            entries = [changes.log(MoveKind.FORFEIT, seats[0], state)]
            changes.save(match, resign(state, seats[0]),
                         Change(entries, end_reason=EndReason.SUSPENDED))
        cache.written.drop((tenant, match_id))
        ended.append(match_id)
    return ended


def pseudonymize(tenant: int, player_id: str, pseudonym: str,
                 name: str, words: str) -> store.Pseudonymized:
    """Replace an erased player's id and name in every match of theirs, and the texts
    they said at a table by ``words``, and forget their creates' keys (caller's write
    transaction): each match a version on, heard by every process's listener (their kept
    views lapse); this process's kept matches forgotten."""
    done = store.pseudonymize(tenant, player_id, pseudonym, name,
                              sender_digest(f"player:{player_id}"), words)
    writes.write([], CHANNEL, [payload(match_id, version, *match_facts(status, turn, deadline))
                              for match_id, version, status, turn, deadline in done.versions])
    if done.versions:
        after_commit(cache.reset)
    return done


def void_match(match_id: str, tenant: int, reason: str, actor: str) -> MatchView:
    """Void a finished match's result: what it gave or took is taken back (ratings,
    totals; tournament points by the tournaments' subscriber), it shows as voided, and
    a ``match.voided`` event goes out. Once: again is :class:`MatchVoided`."""
    with transaction(write=True):
        match, state = store.read(match_id, tenant, lock=True)
        if match.voided_at is not None:
            raise MatchVoided(f"match {match_id!r} was voided already: a result is "
                              "voided once")
        if match.status != MatchStatus.FINISHED:
            raise MatchNotFinished(f"match {match_id!r} is {match.status}: only a "
                                   "finished match's result can be voided")
        match = changes.save(match, state, Change(void_reason=reason))
        audit.record(tenant, actor, "match.voided", f"match:{match_id}", reason=reason)
    cache.written.drop((tenant, match_id))
    return match_view(match, state, None)


def unseal(match_pks: Sequence[int]) -> None:
    """Make sealed matches' seeds, plays and results public, their duplicate round over
    (caller's write transaction): each finished table's ratings and totals recorded now
    (:func:`finish.unsealed`); this process's kept matches forgotten."""
    for match, _ in store.read_sealed(match_pks):
        recorded = finish.unsealed(match)
        if recorded.parts:
            writes.write(recorded.parts)
        if recorded.rating_changes is not None:
            store.keep_rating_changes(match.pk, recorded.rating_changes)
    store.unseal(match_pks)
    after_commit(cache.reset)


def call_off(match_id: str, tenant: int) -> None:
    """End a match that its event called off (a cancelled tournament's game), in the
    caller's write transaction: ``aborted``, nobody wins; one over already stays so."""
    match, state = store.read(match_id, tenant, lock=True)
    if match.status in (MatchStatus.WAITING, MatchStatus.ACTIVE):
        changes.save(match, state, Change(status=MatchStatus.ABORTED,
                                           end_reason=EndReason.ABORTED))
    cache.written.drop((tenant, match_id))


def hint(match_id: str, tenant: int, token: Credential | None, level: str) -> Move:
    """The move bot ``level`` would play for the token's seat now."""
    with transaction():
        match, state = store.read(match_id, tenant)
        seat = acting_seat(match, token)
        check_playing(match)
    if state.finished:
        raise MatchFinished("the match is finished")
    if state.turn != seat:
        raise NotYourTurn(f"it is seat {state.turn}'s turn, not seat {seat}'s")
    return decide(state, seat, level, owner=str(tenant))


# --- a finished match's plays, for its review ------------------------------------


@dataclass(frozen=True)
class Played:
    """A finished match as its review needs it: the match, the state as dealt, every play
    as a move (resignations and forfeits apart), and who made each: ``player``, ``bot``
    (a bot's seat), ``stand_in`` (a dropped seat's) or ``clock`` (played when the seat's
    time ran out)."""

    match: MatchRow
    start: State
    moves: tuple[Move, ...]
    by: tuple[str, ...]


def finished_match(match_id: str, tenant: int,
                   token: Credential | None) -> tuple[MatchRow, int | None]:
    """A tenant's finished match and the token's seat (None without a token); one not
    finished is :class:`MatchNotFinished`."""
    with transaction():
        match, _ = store.read(match_id, tenant)
    seat = seat_of(match.seat_keys, token)
    if match.status != MatchStatus.FINISHED:
        raise MatchNotFinished(f"match {match_id!r} is {match.status}: a review is of a "
                               "finished match")
    return match, seat


def played(match_id: str, tenant: int) -> Played:
    """A match's plays from its log."""
    with transaction():
        match, state = store.read(match_id, tenant)
        records = store.move_log(match.pk)
    plays = [r for r in records if r.kind == MoveKind.PLAY and r.card is not None]
    bots = {s.seat for s in match.seats if s.bot}
    by = tuple("stand_in" if r.stand_in else "clock" if r.timeout
               else "bot" if r.seat in bots else "player" for r in plays)
    return Played(match, new_match(state.rules, state.seed, state.decks),
                  tuple(move_from_parts(r.seat, r.card, r.captured) for r in plays), by)


# --- history and the log -------------------------------------------------------


@on_replica
def match_history(query: history.HistoryQuery, viewer: Viewer) -> HistoryPage:
    """A page of the match history, newest first (waiting tables past their time left
    out); a player's page (``query.player_id``) only if the front end vouched for them.
    Each match as ``viewer`` may see it (:func:`.results.spectates`): a sealed or delayed
    one that is not theirs as its spectators see it."""
    with transaction():
        rows, nxt = history.history(query, current_app.config["SECRET_KEY"],
                                    clocks.waiting_since())
        if not rows and query.player_id is not None:
            # a player with a match was vouched for: only an empty page asks
            players.vouched_player(query.tenant, query.player_id)
        rows = [_as_seen(query.tenant, row, viewer) for row in rows]
    return HistoryPage(rows, nxt)


def _as_seen(tenant: int, summary: MatchSummary, viewer: Viewer) -> MatchSummary:
    """A listing's line as ``viewer`` may see it (the match and its log read only for a
    match they see as a spectator)."""
    if not spectates(summary.delays_spectators, summary.vouched, viewer):
        return summary
    match, state = store.read(summary.id, tenant)
    return as_spectators_see(summary, match, state, store.move_log(match.pk, last=match.version))


CHAT_EXPORTED = 10_000
"""A player's export holds at most this many of the lines they said (oldest first)."""


def chat_said_by(tenant: int, player_id: str) -> list[tuple[str, ChatLineRow]]:
    """The lines a player said at the front end's tables, each with its match's id."""
    with transaction():
        return store.chat_said_by(tenant, player_id, CHAT_EXPORTED)


def player_matches(tenant: int, player_id: str, cursor: str | None = None,
                   limit: int = 20, viewer: Viewer = SERVER) -> HistoryPage:
    """A page of the matches a vouched player sat in, newest first (by default as the
    front end's server sees them: their export, a report's evidence)."""
    return match_history(history.HistoryQuery(tenant, player_id=player_id, cursor=cursor,
                                              limit=limit), viewer)


@dataclass(frozen=True)
class MoveLog:
    """The public move log, with the seed and decks once the match is over."""

    id: str
    status: MatchStatus
    version: int
    commitment: str
    explicit_decks: bool
    moves: list[MoveRecord]
    seed: str | None
    decks: list[list[str]] | None
    behind: int = 0
    """Plays left out (a spectator's log of a match in play)."""


@on_replica
def move_log(match_id: str, tenant: int, after: int = 0, token: Credential | None = None,
             everything: bool = False) -> MoveLog:
    """The match's moves after sequence number ``after``, in order; seed and explicit
    decks revealed when finished. Unless a seat's token asks (or ``everything``: the
    front end's server), a match in play with a spectator delay shows its log without
    its last plays (``behind``: the delay), at the version of its last entry shown; a
    sealed table's log is empty, in play at version 0."""
    with transaction():
        match, state = store.read(match_id, tenant)
        moves = store.move_log(match.pk, first=after + 1)
        # the seat is asked for only where it matters: any token reads an undelayed log
        if not (spectates(match.delays_spectators, (), SERVER if everything else PUBLIC)
                and seat_of(match.seat_keys, token) is None):
            return _log_of(match, state, moves)
        shown, _ = shown_records(match, store.move_log(match.pk) if after else moves)
    last = shown_version(shown)
    log = _log_of(match, state, [m for m in moves if m.seq <= last])
    if match.sealed:  # as dealt, and frozen until the round ends
        return dataclasses.replace(log, status=MatchStatus.ACTIVE if log.status.over
                                   else log.status, version=0)
    return dataclasses.replace(log, version=last, behind=match.spectator_delay)


def _log_of(match: MatchRow, state: State, moves: list[MoveRecord]) -> MoveLog:
    shown = match.status == MatchStatus.FINISHED and match.seed_shown
    return MoveLog(
        match.id, match.status, match.version, match.commitment, match.explicit_decks, moves,
        match.seed.hex() if shown else None,
        [[str(c) for c in deck] for deck in state.decks]
        if shown and match.explicit_decks else None,
    )


def match_ids(match_pks: Iterable[int]) -> dict[int, str]:
    """The ids of these matches, by key (caller's transaction): what another domain's
    rows keep of a match is its key (a report's, a review's)."""
    return store.ids_of(match_pks)


def match_pk(tenant: int, match_id: str) -> int | None:
    """The key of the front end's match ``match_id`` (caller's transaction), for another
    domain's row to keep."""
    return store.pk_of(tenant, match_id)


def games_of(match_pks: Iterable[int]) -> dict[int, GameFacts]:
    """What tournament games show of their matches, by key (caller's transaction)."""
    return store.games_of(match_pks)


def states_of(match_pks: Iterable[int]) -> dict[int, State]:
    """The engine states of these matches, by key (caller's transaction): a duplicate
    event's tables compared."""
    return store.states_of(match_pks)
