"""A stored match as immutable values: the row and its seats as read or as just saved,
and the entries a change appends to its move log. A change makes a new row
(:meth:`MatchRow.after`); nothing is changed in place, so a row may be kept and shared
(:mod:`.cache`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ..engine import Play, State, team_of
from ..live.listener import NOBODY, UNKNOWN
from ..tenants.economy import Economy
from .enums import ClockTimeout, EndReason, MatchStatus, MoveKind

STAND_IN = "greedy"
"""The bot level that keeps a dropped seat when its match names none."""

SeatKey = tuple[int, str, str | None]
"""(seat, token hash, vouched player id or None) of a taken seat: what a bearer is
checked against."""
Lag = tuple[bool, int]
"""(sealed, spectator delay) of a match: whether its spectators may see it late (sealed
goes false once, as its duplicate round ends; the delay never changes)."""


@dataclass(frozen=True, slots=True)
class Stake:
    """What each seat of a staked table holds in its escrow, and the rake the front end's
    settings gave it when it was made (kept with it: a settings change never alters a
    table already made)."""

    currency: str
    amount: int
    rake_share_bp: int = 0
    """The house's share of the pot, in basis points (1/100 of a percent)."""
    rake_cap: int | None = None
    """The most the house takes of one pot (None: no cap)."""

    @property
    def rake(self) -> dict[str, int | None]:
        """The rake as the views show it."""
        return {"share_bp": self.rake_share_bp, "cap": self.rake_cap}

    def rake_of(self, pot: int) -> int:
        """The house's take of ``pot``: its share rounded down, at most the cap."""
        return Economy(self.rake_share_bp, self.rake_cap).rake(pot)


@dataclass(frozen=True, slots=True)
class SeatRow:
    """A seat: who sits there (all None while it is open) and the hash of its token."""

    seat: int
    name: str | None
    player_id: str | None
    bot: str | None
    token_hash: str | None
    vouched: bool
    """Its ``player_id`` was proven (a player token, or a server key naming it): that
    player's tokens then act for the seat."""

    @property
    def open(self) -> bool:
        """Whether the seat waits for a player."""
        return self.name is None


@dataclass(frozen=True, slots=True)
class MatchRow:
    """A match's row and seats (its snapshot apart: the engine :class:`State`)."""

    pk: int
    id: str
    tenant: int
    variant: str
    rules_hash: str
    status: MatchStatus
    version: int
    seed: bytes
    commitment: str
    explicit_decks: bool
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    scores: tuple[int, ...]
    winner: int | None
    draw: bool
    end_reason: EndReason | None
    rounds: int
    turn: int | None
    """The seat to play (None once over, or while waiting for players)."""
    rated: bool
    rating_changes: tuple[dict[str, Any], ...] | None
    quick: bool
    tournament_game: bool
    """A tournament's game: its seats cannot abort it (their opponents' results stand)."""
    rematch_id: str | None
    clock_seconds: int | None
    clock_timeout: ClockTimeout | None
    deadline: datetime | None
    """When the seat to play runs out of time (None without a clock, or not playing)."""
    timeouts: tuple[int, ...]
    """Each seat's timeouts in a row."""
    seats: tuple[SeatRow, ...]
    voided_at: datetime | None = None
    """When its front end voided its result (None: it stands)."""
    void_reason: str | None = None
    stand_in: str = STAND_IN
    """The bot level that keeps a dropped seat."""
    dropped: tuple[int, ...] = ()
    """The seats a stand-in bot keeps now, until their players come back."""
    spectator_delay: int = 0
    """Plays a spectator's view lags behind while the match goes on."""
    sealed: bool = False
    """A duplicate round's table while the round goes on: its seed and plays kept from
    everyone but its seats and the front end's server (every table holds the same
    cards)."""
    stake: Stake | None = None
    """What each seat holds in the table's escrow (None: an unstaked table)."""

    @property
    def seat_keys(self) -> tuple[SeatKey, ...]:
        """What the bearers of the taken seats are checked against."""
        return tuple((s.seat, s.token_hash, s.player_id if s.vouched else None)
                     for s in self.seats if s.token_hash is not None)

    @property
    def bots(self) -> dict[int, str]:
        """seat -> bot level of the seats a bot plays: bot seats, and dropped seats (their
        stand-in)."""
        levels = {s.seat: s.bot for s in self.seats if s.bot}
        for seat in self.dropped:
            levels[seat] = self.stand_in
        return levels

    def logged(self, plays: Sequence[Play]) -> list[LogEntry]:
        """Log entries of bots' plays, those of a dropped seat's stand-in marked."""
        return [LogEntry.of(p, stand_in=p.seat in self.dropped) for p in plays]

    @property
    def holders(self) -> tuple[tuple[int, str], ...]:
        """(seat, player id) of the seats that hold the stake of a staked table: its
        vouched players' (a staked table seats no one else). Empty when unstaked."""
        return self.vouched if self.stake is not None else ()

    @property
    def vouched(self) -> tuple[tuple[int, str], ...]:
        """(seat, player id) of the seats of players the front end vouched for."""
        return tuple((s.seat, s.player_id) for s in self.seats
                     if s.vouched and s.player_id is not None)

    @property
    def facts(self) -> tuple[int, int]:
        """(turn, deadline in epoch ms) as a version's NOTIFY carries them: turn UNKNOWN
        while waiting for players (anything may change), NOBODY once over; deadline 0
        with no clock running."""
        return facts(self.status, self.turn, self.deadline)

    @property
    def delays_spectators(self) -> bool:
        """Whether spectators see it some plays late now: in play, with a delay; or
        sealed (they see none of its plays)."""
        return delays(self.sealed, self.status, self.spectator_delay)

    @property
    def seed_shown(self) -> bool:
        """Whether its seed is public: once over, unless sealed."""
        return self.status.over and not self.sealed

    def due(self, now: datetime) -> bool:
        """Whether the seat to play has run out of time."""
        return self.status == MatchStatus.ACTIVE and self.deadline is not None \
            and self.deadline <= now

    def after(self, state: State, version: int, now: datetime, *,
              status: MatchStatus | None = None, end_reason: EndReason | None = None,
              **changed: Any) -> MatchRow:
        """The row once ``state`` is saved at ``version`` (the status follows the state,
        unless given; a finished match ended by the target score, or its deals, unless
        said), with the
        ``changed`` columns (seats, timeouts, rating changes, a rematch)."""
        if status is None:
            status = MatchStatus.FINISHED if state.finished else MatchStatus.ACTIVE
        if status == MatchStatus.FINISHED and end_reason is None:
            end_reason = finished_by(state)
        playing = status == MatchStatus.ACTIVE
        if status.over:
            changed["dropped"] = ()  # nobody keeps a seat of a match that is over
        return dataclasses.replace(
            self, version=version, status=status, end_reason=end_reason,
            rounds=state.round, turn=state.turn if playing else None,
            scores=tuple(state.scores), winner=state.winner, draw=state.draw,
            updated_at=now, finished_at=(self.finished_at if self.status.over else now)
            if status.over else None,
            # the seat to play has the clock's time from now on
            deadline=now + timedelta(seconds=self.clock_seconds)
            if self.clock_seconds and playing else None, **changed)


def facts(status: MatchStatus, turn: int | None, deadline: datetime | None) -> tuple[int, int]:
    """:attr:`MatchRow.facts` of a status, turn and deadline."""
    if status == MatchStatus.WAITING:
        return UNKNOWN, 0
    ms = 0
    if deadline is not None and status == MatchStatus.ACTIVE:
        ms = int(deadline.timestamp() * 1000)
    return (NOBODY if turn is None else turn), ms


@dataclass(frozen=True, slots=True)
class LogEntry:
    """An entry a change appends to the move log: a play (with what it took), or a
    seat's join, leave, resignation, forfeit, abort or rematch."""

    kind: MoveKind
    seat: int
    round: int
    play: Play | None = None
    timeout: bool = False
    """Played on the seat's behalf when its time ran out."""
    stand_in: bool = False
    """Played by the stand-in bot that keeps the seat while its player is away."""

    @classmethod
    def of(cls, play: Play, timeout: bool = False, stand_in: bool = False) -> LogEntry:
        return cls(MoveKind.PLAY, play.seat, play.round, play, timeout, stand_in)


def delays(sealed: bool, status: MatchStatus | str, spectator_delay: int) -> bool:
    """Whether a match's spectators see it some plays late now: sealed (they see none of
    its plays), or in play with a delay."""
    return sealed or (status == MatchStatus.ACTIVE and spectator_delay > 0)


def finished_by(state: State) -> EndReason:
    """Why a match the engine finished ended: its set number of deals played short of the
    target, or the target score."""
    rules = state.rules
    if rules.max_rounds and len(state.results) >= rules.max_rounds \
            and max(state.scores) < rules.target_score:
        return EndReason.DEALS
    return EndReason.TARGET_SCORE


def team_won(row: MatchRow, seat: int) -> tuple[bool, bool]:
    """(won, lost) of a seat's team in a finished match."""
    team = team_of(seat)
    won = not row.draw and row.winner == team
    return won, not row.draw and row.winner is not None and not won


@dataclass(frozen=True, slots=True)
class ChatLineRow:
    """A line said at a match's table (``seat`` None: a spectator's)."""

    id: int
    seat: int | None
    player_id: str | None
    name: str
    phrase: str | None
    text: str | None
    filtered: bool
    at: datetime


@dataclass(frozen=True, slots=True)
class ChatReader:
    """Who reads a match's chat: its row, and the players whose lines they never see
    (those they blocked)."""

    match_pk: int
    blocked: frozenset[str]

    @property
    def key(self) -> str:
        """The listener's key for the match's chat (a NOTIFY per line)."""
        return chat_key(self.match_pk)

    def sees(self, line: ChatLineRow) -> bool:
        """Whether the reader is shown the line."""
        return line.player_id is None or line.player_id not in self.blocked


def chat_key(match_pk: int) -> str:
    """The listener's key for a match's chat lines."""
    return f"c{match_pk}"


@dataclass(frozen=True, slots=True)
class GameFacts:
    """What a tournament's game shows of its match: its id, where it stands, its result,
    its deal's commitment and what spectators may see of it."""

    id: str
    status: str
    winner: int | None
    draw: bool
    commitment: str
    sealed: bool
    spectator_delay: int
