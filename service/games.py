"""Match use cases: the one-way flow request -> store (lock) -> engine -> store -> view.

The web layer calls these with parsed input; they speak engine values and
return :class:`MatchView` objects for the schemas to render.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import secrets
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flask import current_app
from sqlalchemy.engine import make_url

from . import store
from .engine import (
    Card,
    MatchFinished,
    Move,
    NotYourTurn,
    Play,
    SeatView,
    State,
    apply_move,
    commitment,
    load_variant,
    new_match,
    new_seed,
    observe,
    resign,
    with_house_rules,
)
from .engine.bots import POLICIES, policy_named
from .engine.codec import move_from_parts
from .models import Match, MoveRecord
from .problems import ApiProblem
from .versions import VersionBoard, board_for

BOT_LEVELS = tuple(POLICIES)


@dataclass(frozen=True)
class SeatInfo:
    """A seat as everyone may see it."""

    seat: int
    team: int
    name: str
    player_id: str | None
    bot: str | None


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


def seat_infos(match: Match) -> tuple[SeatInfo, ...]:
    """The public facts of a match's seats (a seat's team is seat % 2: 0+2 against 1+3)."""
    return tuple(SeatInfo(s.seat, s.seat % 2, s.name, s.player_id, s.bot) for s in match.seats)


def match_view(match: Match, state: State, seat: int | None) -> MatchView:
    """The view of ``seat`` of a stored match in ``state``."""
    finished = state.finished
    return MatchView(
        id=match.id,
        variant=match.variant,
        status="finished" if finished else "active",
        version=state.ply,
        seats=seat_infos(match),
        commitment=match.commitment,
        explicit_decks=match.explicit_decks,
        created_at=match.created_at,
        view=observe(state, seat),
        seed=state.seed.hex() if finished else None,
    )


def hash_token(token: str) -> str:
    """SHA-256 of a seat token: only this is stored."""
    return hashlib.sha256(token.encode()).hexdigest()


def seat_of_token(match: Match, token: str) -> int:
    """The seat a bearer token belongs to (constant-time compare), or 403."""
    return _seat_among([(s.seat, s.token_hash) for s in match.seats], token)


def _seat_among(seats: Sequence[tuple[int, str]], token: str) -> int:
    digest = hash_token(token)
    found = None
    for seat, token_hash in seats:  # compare with every seat: no early exit
        if hmac.compare_digest(token_hash, digest):
            found = seat
    if found is None:
        raise ApiProblem(403, "invalid_token", "this token is not a seat of this match")
    return found


def require_seat(match: Match, token: str | None) -> int:
    """The seat of a required token: 401 when missing, 403 when wrong."""
    if not token:
        raise ApiProblem(
            401, "missing_token", "send the seat token as 'Authorization: Bearer <token>'",
            headers={"WWW-Authenticate": 'Bearer realm="basra"'},
        )
    return seat_of_token(match, token)


# --- bots -----------------------------------------------------------------


def bot_rng(state: State) -> random.Random:
    """The bot's randomness at this ply: derived from the match seed, so matches replay."""
    digest = hashlib.sha256(state.seed + b"/bot/" + state.ply.to_bytes(4, "big")).digest()
    return random.Random(digest)


def bot_move(state: State, seat: int, level: str) -> Move:
    """The move the bot ``level`` plays for ``seat`` (it sees only that seat's view)."""
    return policy_named(level)(observe(state, seat), bot_rng(state))


def run_bots(state: State, bots: Mapping[int, str]) -> tuple[State, list[Play]]:
    """Let bot seats play while it is their turn; returns the new state and their plays."""
    plays: list[Play] = []
    while not state.finished and state.turn is not None and state.turn in bots:
        state = apply_move(state, bot_move(state, state.turn, bots[state.turn]))
        assert state.last_play is not None
        plays.append(state.last_play)
    return state, plays


def _bots_of(match: Match) -> dict[int, str]:
    return {s.seat: s.bot for s in match.seats if s.bot}


# --- use cases --------------------------------------------------------------


@dataclass(frozen=True)
class PlayerSpec:
    """A seat requested at creation: a human's name (and front-end id) or a bot level."""

    name: str | None = None
    player_id: str | None = None
    bot: str | None = None


def create_match(
    variant: str,
    overrides: Mapping[str, Any] | None,
    players: Sequence[PlayerSpec],
    decks: Sequence[Sequence[Card]] | None,
) -> tuple[MatchView, list[tuple[int, str, str | None]]]:
    """Create a match (bots that lead play at once); returns the spectator view and
    (seat, name, token) per seat, the token None for bot seats."""
    rules = with_house_rules(load_variant(variant).rules, overrides)
    if len(players) != rules.players:
        raise ApiProblem(
            422, "wrong_player_count",
            f"{variant} with these rules is for {rules.players} players, got {len(players)}",
            errors=[{"field": "players", "message": f"must list {rules.players} players"}],
        )
    if all(p.bot for p in players):
        raise ApiProblem(
            422, "no_human_seat", "a match needs at least one human seat",
            errors=[{"field": "players", "message": "at least one player must not be a bot"}],
        )
    seed = new_seed()
    initial = new_match(rules, seed, decks or ())
    tokens: list[tuple[int, str, str | None]] = []
    seats: list[store.NewSeat] = []
    for i, p in enumerate(players):
        token = secrets.token_urlsafe(32)
        name = p.name or (f"{p.bot} bot" if p.bot else f"seat {i}")
        seats.append(store.NewSeat(name, p.player_id, p.bot, hash_token(token)))
        tokens.append((i, name, None if p.bot else token))
    bots = {i: p.bot for i, p in enumerate(players) if p.bot}
    state, plays = run_bots(initial, bots)
    match = store.create_match(
        str(uuid.uuid4()), variant, initial, seats, commitment(seed), bool(decks)
    )
    if plays:
        store.append_plays(match, plays, state)
    store.commit()
    return match_view(match, state, None), tokens


def _board() -> VersionBoard | None:
    """This process's version board, on PostgreSQL with BASRA_LISTEN on (else None)."""
    ext = current_app.extensions
    if "basra_board_dsn" not in ext:
        url = make_url(current_app.config["SQLALCHEMY_DATABASE_URI"])
        listen = current_app.config.get("BASRA_LISTEN", True)
        ext["basra_board_dsn"] = (
            url.set(drivername="postgresql").render_as_string(hide_password=False)
            if listen and url.get_backend_name() == "postgresql" else None
        )
    dsn = ext["basra_board_dsn"]
    return board_for(dsn) if dsn else None


def peek(match_id: str, token: str | None) -> tuple[int, int | None]:
    """(version, viewer's seat) without loading the match: enough for an ETag check.

    On PostgreSQL both usually come from this process's version board, with no query.
    """
    board = _board()
    seats = board.seats(match_id) if board else None
    if seats is None:
        epoch = board.epoch if board else 0
        version, seats = store.peek(match_id)
        if board:
            board.remember_seats(match_id, seats)
            board.saw_read(match_id, version, epoch)
    else:
        version = _current_version(board, match_id)
    return version, _seat_among(seats, token) if token else None


def _current_version(board: VersionBoard | None, match_id: str) -> int:
    """The match's version: from the board when it is live and knows it, else read (and
    remembered on the board)."""
    if board is not None and board.live:
        known = board.version(match_id)
        if known is not None:
            return known
    epoch = board.epoch if board else 0
    current = store.current_version(match_id)
    if current is None:
        raise store.not_found(match_id)
    if board is not None:
        board.saw_read(match_id, current, epoch)
    return current


def read_match(match_id: str, token: str | None) -> MatchView:
    """The seat's view (with a token) or the spectator view (without)."""
    match = store.get_match(match_id)
    seat = seat_of_token(match, token) if token else None
    view = match_view(match, store.state_of(match), seat)
    store.commit()
    return view


def wait_for_change(match_id: str, version: int, timeout: float, interval: float) -> None:
    """Block until the match's version differs from ``version`` or ``timeout`` passes.

    On PostgreSQL it sleeps until the match's NOTIFY arrives (from any instance);
    otherwise, or while this process's listener is still connecting, it polls the
    database in short transactions, holding no connection while it sleeps.
    """
    deadline = time.monotonic() + timeout
    board = _board()
    while True:
        left = deadline - time.monotonic()
        current = _current_version(board, match_id)
        if current != version or left <= 0:
            return
        if board is not None and board.live:
            board.wait(match_id, version, left)
        else:
            # a listener that is still connecting will be live within moments
            time.sleep(min(interval, left, 0.25 if board is not None else interval))


def _check_version(match: Match, if_match: int | None) -> None:
    if if_match is not None and if_match != match.version:
        raise ApiProblem(
            412, "version_mismatch",
            f"the match is at version {match.version}, not {if_match}; reload and retry",
        )


@dataclass(frozen=True)
class MoveResult:
    """A play as the API reports it, with the mover's view after any bot replies."""

    move: Play
    replies: tuple[Play, ...]
    state: MatchView


def fingerprint(payload: Mapping[str, Any]) -> str:
    """A stable hash of a request body, to tell a retry from a different request."""
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def play_move(
    match_id: str,
    token: str | None,
    card: Card,
    capture: Sequence[Card] | None,
    *,
    if_match: int | None,
    idempotency_key: str | None,
    request_fingerprint: str,
    render: Callable[[MoveResult], dict[str, Any]],
) -> tuple[int, dict[str, Any]]:
    """Apply a seat's move (and any bot replies) in one transaction.

    Returns (HTTP status, rendered body). A retried
    Idempotency-Key with the same body returns the first response unchanged.
    """
    match = store.lock_match(match_id)
    seat = require_seat(match, token)
    if idempotency_key:
        earlier = store.find_idempotent(match, seat, idempotency_key)
        if earlier is not None:
            if not hmac.compare_digest(earlier.fingerprint, request_fingerprint):
                raise ApiProblem(
                    422, "idempotency_key_reused",
                    "this Idempotency-Key was used for a different request",
                )
            body, status = earlier.body, earlier.status
            store.commit()
            return status, body
    _check_version(match, if_match)
    state = store.state_of(match)
    move = Move(seat, card, None if capture is None else tuple(capture))
    state = apply_move(state, move)
    assert state.last_play is not None
    mine = state.last_play
    state, replies = run_bots(state, _bots_of(match))
    store.append_plays(match, [mine, *replies], state)
    body = render(MoveResult(mine, tuple(replies), match_view(match, state, seat)))
    if idempotency_key:
        store.save_idempotent(match, seat, idempotency_key, request_fingerprint, 201, body)
    store.commit()
    _saw(match_id, state.ply)
    return 201, body


def resign_match(match_id: str, token: str | None, if_match: int | None) -> MatchView:
    """The token's seat resigns: the match ends, the other team wins."""
    match = store.lock_match(match_id)
    seat = require_seat(match, token)
    _check_version(match, if_match)
    state = store.state_of(match)
    rnd = state.round
    state = resign(state, seat)
    store.append_resign(match, seat, rnd, state)
    view = match_view(match, state, seat)
    store.commit()
    _saw(match_id, state.ply)
    return view


def _saw(match_id: str, version: int) -> None:
    """Tell this process's board at once (the NOTIFY reaches the other processes)."""
    board = _board()
    if board is not None:
        board.saw(match_id, version)


def hint(match_id: str, token: str | None, level: str) -> Move:
    """The move bot ``level`` would play for the token's seat now."""
    match = store.get_match(match_id)
    seat = require_seat(match, token)
    state = store.state_of(match)
    store.commit()
    if state.finished:
        raise MatchFinished("the match is finished")
    if state.turn != seat:
        raise NotYourTurn(f"it is seat {state.turn}'s turn, not seat {seat}'s")
    return bot_move(state, seat, level)


def history(query: store.HistoryQuery) -> tuple[list[Match], str | None]:
    """A page of the match history, newest first, and the cursor of the next page."""
    page = store.history(query)
    store.commit()
    return page


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


def move_log(match_id: str) -> MoveLog:
    """The match's moves in order; seed and explicit decks revealed when finished."""
    match = store.get_match(match_id)
    moves = store.move_log(match)
    finished = match.status == "finished"
    decks = match.snapshot["decks"] if finished and match.explicit_decks else None
    log = MoveLog(
        match.id, match.status, match.version, match.commitment, match.explicit_decks, moves,
        match.seed.hex() if finished else None, decks,
    )
    store.commit()
    return log


def replay_stored(match: Match) -> State:
    """Rebuild a stored match from its move log alone (rules, seed, decks, moves)."""
    start = store.state_of(match)
    state = new_match(start.rules, start.seed, start.decks)
    for record in store.move_log(match):
        if record.kind == "resign":
            state = resign(state, record.seat)
        else:
            assert record.card is not None
            state = apply_move(state, move_from_parts(record.seat, record.card, record.captured))
    return state
