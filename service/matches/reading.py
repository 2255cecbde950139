"""Reading a match: a seat's (or a spectator's) view, ``304 Not Modified`` while the
client's copy is current (usually without a query), long polls and event streams that
sleep until a change's NOTIFY."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass

from ..engine import State
from ..live import listener, waiters
from ..live.listener import NOBODY
from ..live.single_flight import SingleFlight
from ..live.yielding import after_requests_under_way
from ..ops import metrics
from ..players.service import Credential
from ..settings import Settings
from ..storage.db import on_replica, statement_connection, transaction
from . import cache, chat_store, polls, store
from .models import MoveRecord
from .results import LoggedMove, MatchView, Seen, Unchanged, match_view
from .rows import ChatLineRow, ChatReader, MatchRow
from .seats import PUBLIC, SERVER, Viewer, placed


@dataclass(frozen=True)
class Event:
    """One event of a match's stream: its view after a change, chat lines, or a
    heartbeat (neither)."""

    view: MatchView | None
    chat: tuple[ChatLineRow, ...] = ()
    moves: tuple[LoggedMove, ...] = ()
    """With a view: the log entries the viewer is shown since its previous view."""


def follow_match(match_id: str, tenant: int, token: Credential | None, last_seen: int | None,
                 heartbeat: float, client: str, chat: ChatReader | None = None,
                 viewer: Viewer = PUBLIC, *, settings: Settings) -> Iterator[Event]:
    """The events of a match for the token's seat (or a spectator): its view now (unless
    ``last_seen`` is the current version), then one per change, each with the log entries
    since the previous one (every play, though changes come faster than the stream
    wakes), and the chat lines ``chat`` (its reader, if any) sees as they are said; a
    heartbeat (``Event(None)``) when ``heartbeat`` seconds pass without either; it ends
    once the match is over. A spectator shown the match late (:func:`.seats.placed`) follows it
    by :func:`_follow_late`. The stream holds one of ``client``'s parking places
    (:mod:`service.live.waiters`)."""
    peeked = polls.peek(match_id, tenant)
    seat, late = placed(peeked.seats, token, peeked.delays_spectators, viewer)
    version = peeked.version
    said = _chat_now(chat)
    with waiters.parked(client, settings), metrics.WAITERS.labels("stream").track_inprogress():
        if late:
            yield from _follow_late(match_id, tenant, version, last_seen, heartbeat, chat, said,
                                    viewer, sealed=peeked.lags[0], settings=settings)
            return
        fresh = last_seen != version
        shown = last_seen  # the last log entry the client was shown (None: a new client)
        if not fresh:
            yield Event(None)  # resumed and current: answer at once, then wait
            if peeked.turn == NOBODY:
                return  # ...unless it is over: its last event was had, no other follows
        while True:
            if not fresh:
                current, lines, said = _wait(match_id, version, heartbeat, chat, said,
                                             settings)
                if lines:
                    yield Event(None, lines)
                if current == version:
                    if not lines:
                        yield Event(None)
                    continue
                version = current
            view = _view_at(match_id, tenant, seat, version, shared=not fresh, viewer=viewer)
            fresh = False
            version = view.version
            moves, shown = _moves_since(match_id, tenant, view, shown)
            yield Event(view, moves=moves)
            if view.status.over:
                return


def _follow_late(match_id: str, tenant: int, version: int, shown: int | None,
                 heartbeat: float, chat: ChatReader | None, said: tuple[int, int],
                 viewer: Viewer, sealed: bool, settings: Settings) -> Iterator[Event]:
    """:func:`follow_match` for a spectator shown the match late: an event only when what
    its view shows changes (each event's id the version it shows; a sealed table's
    once, as its round ends), heartbeats on their own clock, so that neither tells when
    a play was made. ``version``: the match's, which the stream waits on."""
    view = _view_at(match_id, tenant, None, version, shared=False, viewer=viewer)
    if view.version == shown:
        yield Event(None)  # resumed and current
        if view.status.over:
            return
    beat = time.monotonic() + heartbeat
    while True:
        if view.version != shown:
            moves, shown = _moves_since(match_id, tenant, view, shown)
            yield Event(view, moves=moves)
            if view.status.over:
                return
            beat = time.monotonic() + heartbeat
        left = beat - time.monotonic()
        if left <= 0:
            yield Event(None)
            beat = time.monotonic() + heartbeat
            if sealed:  # the round's end moves no version: read the view again
                view = _view_at(match_id, tenant, None, version, shared=False, viewer=viewer)
            continue
        current, lines, said = _wait(match_id, version, left, chat, said, settings)
        if lines:
            yield Event(None, lines)
        if current != version:
            version = current
            view = _view_at(match_id, tenant, None, version, shared=True, viewer=viewer)


def _wait(match_id: str, version: int, timeout: float, chat: ChatReader | None,
          said: tuple[int, int], settings: Settings
          ) -> tuple[int, tuple[ChatLineRow, ...], tuple[int, int]]:
    """A stream's wait for a change, or with ``chat`` also for a line said: the version
    then, the new lines its reader sees, and the chat's mark (``said``) after them."""
    current = polls.wait_for_change(match_id, version, timeout, chat, said, settings=settings)
    if chat is None:
        return current, (), said
    lines, said = _chat_since(chat, said[0])
    return current, lines, said


def _moves_since(match_id: str, tenant: int, view: MatchView, shown: int | None
                 ) -> tuple[tuple[LoggedMove, ...], int]:
    """The log entries ``view`` shows after entry ``shown`` (None: a new client, owed
    none), and the last entry it shows: its version's (a spectator's late view shows
    the entries up to its version, and owes the others to a later view)."""
    if shown is None or shown >= view.version:
        return (), view.version
    return _entries(match_id, tenant, shown, view.version), view.version


_move_reads = SingleFlight()
"""Stretches of log entries a stream of this process is reading right now."""


def _entries(match_id: str, tenant: int, after: int, last: int) -> tuple[LoggedMove, ...]:
    """The match's log entries after ``after`` up to ``last``: read once for every stream
    of this process that one change woke (they were shown the same entries before)."""
    key = (tenant, match_id, after, last)

    def read() -> tuple[LoggedMove, ...]:
        with transaction(one_statement=True):
            found = tuple(LoggedMove.of(r)
                          for r in store.moves_between(match_id, tenant, after, last))
        cache.moves.put(key, found)
        return found
    return cache.moves.get(key) or _move_reads.do(key, read)


def _chat_now(chat: ChatReader | None) -> tuple[int, int]:
    """(the newest line of the match's chat, the listener's number for it read first)."""
    if chat is None:
        return 0, -1
    heard = listener.heard(chat.key)
    with transaction():
        return chat_store.newest_chat_line(chat.match_pk), heard


def _chat_since(chat: ChatReader, after: int) -> tuple[tuple[ChatLineRow, ...], tuple[int, int]]:
    """The lines the reader sees after ``after``, and (the newest read, the listener's
    number read first)."""
    heard = listener.heard(chat.key)
    read: list[ChatLineRow] = []
    with transaction():
        while True:
            batch = chat_store.chat_lines(chat.match_pk, after, 100)
            read += batch
            after = batch[-1].id if batch else after
            if len(batch) < 100:
                break
    return tuple(line for line in read if chat.sees(line)), (after, heard)


def read_match(match_id: str, tenant: int, token: Credential | None, seen: Seen, wait: float,
               client: str = "", viewer: Viewer = PUBLIC, *,
               settings: Settings) -> MatchView | Unchanged:
    """The token's seat view (a spectator's without a token), or :class:`Unchanged`
    while the client's copy is current; with ``wait`` seconds, first wait that long
    for a change, unless nothing can change without the viewer (the match is over, or
    it is the viewer's turn). Answering "unchanged" usually needs no query at all; to a
    spectator shown the match late, it is keyed on what the view shows
    (:func:`_read_late`). A wait holds one of ``client``'s parking places
    (:mod:`service.live.waiters`)."""
    # a read applies what time decided first; never older than what the client holds
    peeked = polls.peek(match_id, tenant, seen.newest())
    seat, late = placed(peeked.seats, token, peeked.delays_spectators, viewer)
    version, turn = peeked.version, peeked.turn
    if late:
        return _read_late(match_id, tenant, seen, version, wait, client, viewer, settings)
    idle = turn == NOBODY or (seat is not None and turn == seat)
    woken = False
    if seen.holds(version, seat) and wait > 0 and not idle:
        with waiters.parked(client, settings), metrics.WAITERS.labels("poll").track_inprogress():
            version = polls.wait_for_change(match_id, version, wait, settings=settings)
        woken = not seen.holds(version, seat)
    if seen.holds(version, seat):
        version = polls.settled(match_id, version)  # never hide a committed move
        if seen.holds(version, seat):
            return Unchanged(version, seat)
    return _view_at(match_id, tenant, seat, version, shared=woken, viewer=viewer)


def _read_late(match_id: str, tenant: int, seen: Seen, version: int, wait: float,
               client: str, viewer: Viewer, settings: Settings) -> MatchView | Unchanged:
    """:func:`read_match` for a spectator shown the match late: the view (of the match's
    ``version`` or later), unchanged while the client holds the version it shows,
    waiting (``wait``) through the changes that do not move it; never answered by the
    match's version, which would tell how far it is, and the whole wait even once it
    ended (a sealed table's end does not show)."""
    until = time.monotonic() + min(wait, settings.max_wait)
    if seen.views or seen.anything:  # a 304 never hides a committed move
        version = max(version, polls.settled(match_id, version))
    view = _view_at(match_id, tenant, None, version, shared=False, viewer=viewer)
    parked = False
    with ExitStack() as stack:
        while seen.holds(view.version, None):
            left = until - time.monotonic()
            if left <= 0:
                return Unchanged(view.version, None)
            if not parked:  # the first wait takes a parking place, the last gives it back
                stack.enter_context(waiters.parked(client, settings))
                stack.enter_context(metrics.WAITERS.labels("poll").track_inprogress())
                parked = True
            current = polls.wait_for_change(match_id, version, left, settings=settings)
            if current != version:
                version = current
                view = _view_at(match_id, tenant, None, version, shared=True, viewer=viewer)
    return view


_view_reads = SingleFlight()
"""Views a woken request of this process is reading right now."""


def _view_at(match_id: str, tenant: int, seat: int | None, version: int,
             shared: bool, viewer: Viewer = PUBLIC) -> MatchView:
    """The seat's view of the match at ``version`` or later, read from the database.

    ``shared`` (requests woken by the notification of ``version``): the waiters of one
    match that a move wakes together read the database once, each after the requests
    under way in its worker (:func:`after_requests_under_way`), and the views read lately
    are kept (:mod:`.cache`). Other reads always read the database: a version heard here
    may lag one that the client saw acknowledged elsewhere."""
    server = seat is None and viewer.server
    if not shared:
        return _read_view(match_id, tenant, seat, version, server)
    after_requests_under_way()
    key = (tenant, match_id, version, seat, server)
    return _view_reads.do(
        key, lambda: cache.views.get(key) or _read_view(match_id, tenant, seat, version,
                                                        server))


def _read_view(match_id: str, tenant: int, seat: int | None, at_least: int,
               server: bool) -> MatchView:
    """The seat's view (``server``: the front end's server's) from the database at
    ``at_least`` or later (from a standby that has it, else the primary), kept for the
    waiters woken by the match's version."""
    match, state, log = _stored(match_id, tenant, seat is None and not server,
                                at_least=at_least)
    view = match_view(match, state, seat, log=log, viewer=SERVER if server else PUBLIC)
    cache.views.put((tenant, match_id, match.version, seat, server), view)
    return view


@on_replica(version=lambda stored: stored[0].version)
def _stored(match_id: str, tenant: int,
            spectator: bool) -> tuple[MatchRow, State, list[MoveRecord] | None]:
    """The match as the database has it now (a standby's when it has the version asked
    for), and for a spectator of a match that delays them its log up to that
    version. One this process saved last, still at that version in the database, is not
    read again: one small query says so (every change moves the version)."""
    written = cache.written.get((tenant, match_id))
    if written is not None and not (spectator and written[0].delays_spectators):
        with statement_connection(write=False) as alone:
            if store.version_of(match_id, tenant, alone) == written[0].version:
                return (*written, None)
    with transaction(one_statement=True):  # one SELECT (two for a delayed spectator)
        match, state = store.read(match_id, tenant)
        # the log is append-only: up to the row's version it is the row's, read apart
        log = store.move_log(match.pk, last=match.version) \
            if spectator and match.delays_spectators else None
    return match, state, log
