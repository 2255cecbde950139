"""What a match holds, read for others: its move log, the history listing and a player's
matches, a finished match's plays for its review, a match's whole record for staff, a
player's chat lines for their export and their pseudonym on erasure, and the keys and
facts other domains ask of matches."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..engine import Move, State, apply_move, move_from_parts, new_match
from ..live.listener import CHANNEL, payload
from ..players import service as players
from ..players.service import Credential
from ..settings import Settings
from ..storage import writes
from ..storage.db import after_commit, on_replica, transaction
from ..tenants.service import sender_digest
from . import cache, chat_store, clocks, history, saves, store
from .enums import MatchStatus, MoveKind
from .errors import MatchNotFinished
from .models import MoveRecord
from .results import (
    HistoryPage,
    MatchSummary,
    MatchView,
    as_spectators_see,
    match_view,
    shown_records,
    shown_version,
)
from .rows import ChatLineRow, GameFacts, MatchRow
from .rows import facts as match_facts
from .seats import PUBLIC, SERVER, Viewer, seat_of, spectates


def playing_in(tenant: int, player_id: str, besides: str | None = None) -> str | None:
    """An active match (other than ``besides``) where the vouched player holds a seat,
    its id, or None (caller's transaction)."""
    found = store.matches_of(tenant, player_id, [MatchStatus.ACTIVE], limit=2)
    return next((match_id for match_id in found if match_id != besides), None)


def match_ids(match_pks: Iterable[int]) -> dict[int, str]:
    """The ids of these matches, by key (caller's transaction): what another domain's
    rows keep of a match is its key (a report's, a review's)."""
    return store.ids_of(match_pks)


def match_pk(tenant: int, match_id: str) -> int | None:
    """The key of the front end's match ``match_id`` (caller's transaction), for another
    domain's row to keep."""
    return store.pk_of(tenant, match_id)


def ended_of(match_pks: Iterable[int]) -> set[int]:
    """Of these matches' keys, those whose match is over (finished or aborted), or gone
    (caller's transaction): the ledger's checker asks, a hold of one must have ended."""
    return store.ended_of(match_pks)


def games_of(match_pks: Iterable[int]) -> dict[int, GameFacts]:
    """What tournament games show of their matches, by key (caller's transaction)."""
    return store.games_of(match_pks)


def states_of(match_pks: Iterable[int]) -> dict[int, State]:
    """The engine states of these matches, by key (caller's transaction): a duplicate
    event's tables compared."""
    return store.states_of(match_pks)


def pseudonymize(tenant: int, player_id: str, pseudonym: str,
                 name: str, words: str) -> saves.Pseudonymized:
    """Replace an erased player's id and name in every match of theirs, and the texts
    they said at a table by ``words``, and forget their creates' keys (caller's write
    transaction): each match a version on, heard by every process's listener (their kept
    views lapse); this process's kept matches forgotten."""
    done = saves.pseudonymize(tenant, player_id, pseudonym, name,
                              sender_digest(f"player:{player_id}"), words)
    writes.write([], CHANNEL, [payload(match_id, version, *match_facts(status, turn, deadline))
                              for match_id, version, status, turn, deadline in done.versions])
    if done.versions:
        after_commit(cache.reset)
    return done


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
    times: tuple[float, ...] = ()
    """Each play's moment (POSIX seconds, as logged): fair play's think times."""


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
                  tuple(move_from_parts(r.seat, r.card, r.captured) for r in plays), by,
                  tuple(r.created_at.timestamp() for r in plays))


def ended_rated_or_staked(first: int, limit: int) -> tuple[list[tuple[int, int]], int]:
    """Fair play's look at the finished rated or staked matches from key ``first``: (key, tenant)
    of up to ``limit`` of them, and the key to look from next time (every match below
    it had ended by now). Read on the primary."""
    with transaction():
        below = store.open_from()
        found = store.ended_rated_or_staked(first, below, limit)
    if len(found) == limit:
        return found, found[-1][0] + 1
    return found, below if below is not None else (found[-1][0] + 1 if found else first)


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
        said = chat_store.chat_lines(match.pk, 0, 10**6)  # a match holds a bounded number
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


@on_replica
def match_history(query: history.HistoryQuery, viewer: Viewer, *,
                  settings: Settings) -> HistoryPage:
    """A page of the match history, newest first (waiting tables past their time left
    out); a player's page (``query.player_id``) only if the front end vouched for them.
    Each match as ``viewer`` may see it (:func:`.seats.spectates`): a sealed or delayed
    one that is not theirs as its spectators see it."""
    with transaction():
        rows, nxt = history.history(query, settings.secret_key,
                                    clocks.waiting_since(settings))
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
        return chat_store.chat_said_by(tenant, player_id, CHAT_EXPORTED)


def player_matches(tenant: int, player_id: str, cursor: str | None = None,
                   limit: int = 20, viewer: Viewer = SERVER, *,
                   settings: Settings) -> HistoryPage:
    """A page of the matches a vouched player sat in, newest first (by default as the
    front end's server sees them: their export, a report's evidence)."""
    return match_history(history.HistoryQuery(tenant, player_id=player_id, cursor=cursor,
                                              limit=limit), viewer, settings=settings)


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
