"""What a poll needs of a match, usually without a query: its version, the seat to play,
the clock's deadline and the seat keys, from this process's listener (the versions every
instance announces) and cache (the seat keys of a started match), else from the
database; a wait for its next version; and the check that makes a 304 safe. A poll
never writes: what time decides is applied by ``basra worker``."""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..errors import InvalidToken, MatchNotFound
from ..live.listener import NOBODY, VersionListener, listener
from ..live.single_flight import SingleFlight
from ..settings import Settings
from ..storage.db import has_replica, on_replica, transaction
from ..storage.errors import DatabaseUnavailable
from . import cache, chat_store, store
from .enums import MatchStatus
from .rows import ChatReader, Lag, SeatKey, facts
from .seats import require_seat

UNSETTLED = -3
"""The version :func:`settled` gives when it cannot prove a version current."""


@dataclass(frozen=True)
class Peek:
    """What a poll needs of a match, without loading it."""

    version: int
    turn: int
    """The seat to play: NOBODY once over, UNKNOWN if not known (or waiting)."""
    deadline: int
    """When that seat runs out of time, epoch milliseconds; 0 for no clock running."""
    seats: tuple[SeatKey, ...]
    """(seat, token hash, vouched player) of the taken seats."""
    lags: Lag = (False, 0)
    """(sealed, spectator delay)."""

    @property
    def delays_spectators(self) -> bool:
        """Whether its spectators may see it late (sealed, or a delay while it is not
        over): their 304s are then keyed on what their view shows, never on
        :attr:`version`, which would tell how far it is."""
        sealed, delay = self.lags
        return sealed or (delay > 0 and self.turn != NOBODY)


_first_reads = SingleFlight()
"""Matches whose facts a request of this process is reading right now."""


def peek(match_id: str, tenant: int, at_least: int = -1) -> Peek:
    """A tenant's match's version, turn, deadline and seat keys; another tenant's match is
    not found. Never older than ``at_least`` (a version the client holds): a standby
    that is behind is passed over for the primary.

    On PostgreSQL usually from this process's listener and cache, with no query; the
    requests that find a match new to this process together (its spectators, connecting
    at once) share the first one's read."""
    heard = listener()
    kept = cache.seats.get(match_id) if heard is not None else None
    if kept is not None:
        if kept[0] != tenant:
            raise MatchNotFound(f"no match with id {match_id!r}")
        version, (turn, deadline) = _current(heard, match_id, at_least)
        return Peek(version, turn, deadline, kept[1], kept[2])
    found = _first_reads.do(match_id, lambda: _read(heard, match_id, at_least)) \
        if heard is not None else _read(None, match_id, at_least)
    if found.version < at_least:  # the crowd's read came from a standby behind this caller
        found = _read(heard, match_id, at_least)
    if found.tenant != tenant:
        raise MatchNotFound(f"no match with id {match_id!r}")
    return Peek(found.version, *facts(found.status, found.turn, found.deadline), found.seats,
                found.lags)


def seat_tenant(match_id: str, token: str) -> int | None:
    """The front end of a match that ``token`` (a seat token sent alone) holds a seat of;
    None if there is no such match or the token holds none of its seats. A started
    match's seat keys are kept, so this usually needs no query."""
    kept = cache.seats.get(match_id)
    if kept is None:
        try:
            found = _facts_now(match_id)
        except MatchNotFound:
            return None
        kept = _keep_seats(match_id, found)
    try:
        require_seat(kept[1], token)
    except InvalidToken:
        return None
    return kept[0]


def _read(heard: VersionListener | None, match_id: str, at_least: int) -> store.Facts:
    """The match's facts from the database (a standby that has them at ``at_least`` or
    later, else the primary); the listener and the cache learn them."""
    epoch = heard.epoch if heard else 0
    found = _facts(match_id, at_least=at_least)
    if heard is not None:
        _keep_seats(match_id, found)
        _learn(heard, match_id, found, epoch)
    return found


def _keep_seats(match_id: str, found: store.Facts) -> tuple[int, tuple[SeatKey, ...], Lag]:
    """The match's (tenant, seat keys, lags), kept in the process's cache once it has
    started (seats change only while it waits)."""
    kept = (found.tenant, found.seats, found.lags)
    if found.status != MatchStatus.WAITING:
        cache.seats.put(match_id, kept)
    return kept


def _facts_now(match_id: str) -> store.Facts:
    """The match's facts as the primary has them now."""
    with transaction():
        return store.facts(match_id)


_facts = on_replica(_facts_now, version=lambda found: found.version)
"""The match's facts from a standby that has them at ``at_least`` or later, else the
primary."""


def _learn(heard: VersionListener, match_id: str, found: store.Facts, epoch: int) -> None:
    """Tell the listener of a version read from the database; not one that may have come
    from a standby, which can be older than a notification the listener missed while it
    reconnected (it then learns the match from its next notification)."""
    if not has_replica():
        heard.saw_read(match_id, found.version,
                       facts(found.status, found.turn, found.deadline), epoch)


def _current(heard: VersionListener | None, match_id: str,
             at_least: int = -1) -> tuple[int, tuple[int, int]]:
    """The version and (turn, deadline) from the listener while it is live and knows the
    match, else from the database, never older than ``at_least``."""
    if heard is not None and heard.live:
        known = heard.version(match_id)
        if known is not None:
            return known, heard.facts(match_id)
    epoch = heard.epoch if heard else 0
    found = _facts(match_id, at_least=at_least)
    if heard is not None:
        _learn(heard, match_id, found, epoch)
    return found.version, facts(found.status, found.turn, found.deadline)


def settled(match_id: str, version: int) -> int:
    """The match's version as :func:`peek` or :func:`wait_for_change` gave it, made safe to
    answer a 304 with: a version from the listener is trusted only once it has heard
    every notification committed before now (else the primary is read), so a 304 never
    hides a move another instance acknowledged. While the primary does not answer and
    standbys are configured: :data:`UNSETTLED`."""
    heard = listener()
    if heard is None:
        return version  # it was read from the database just now
    if heard.settle():
        known = heard.version(match_id)
        if known is not None:
            return known
    epoch = heard.epoch
    try:  # only the primary can tell that nothing newer was committed
        found = _facts_now(match_id)
    except DatabaseUnavailable:
        if not has_replica():
            raise
        return UNSETTLED  # the primary is gone: the client gets the view, never a 304
    heard.saw_read(match_id, found.version, facts(found.status, found.turn, found.deadline),
                   epoch)
    return found.version


def wait_for_change(match_id: str, version: int, timeout: float,
                    chat: ChatReader | None = None, said: tuple[int, int] = (0, 0), *,
                    settings: Settings) -> int:
    """Block until the match is past ``version`` or the wait (capped by BASRA_MAX_WAIT)
    ends; the version then. With ``chat``, also woken by a chat line of the match (the
    version then unchanged, the caller reads the lines): one heard past ``said[1]`` (the
    listener's number read before the caller's read of the lines up to ``said[0]``), or,
    without a live listener, one in the database.

    On PostgreSQL it sleeps until the match's NOTIFY arrives (from any instance);
    otherwise, while this process's listener is still connecting, or while it has not
    heard of the match since it connected, it polls the database in short transactions,
    holding no connection while it sleeps."""
    deadline = time.monotonic() + min(timeout, settings.max_wait)
    interval = settings.poll_interval
    chat_after, chat_heard = said
    heard = listener()
    while True:
        left = deadline - time.monotonic()
        current = _current(heard, match_id, version)[0]
        if current != version or left <= 0:
            return current
        if heard is not None and heard.live and heard.version(match_id) is not None:
            heard.wait_either({match_id: version} if chat is None
                              else {match_id: version, chat.key: chat_heard}, left)
            if chat is not None and (heard.version(chat.key) or -1) != chat_heard:
                return current
            continue
        # a listener that is still connecting will be live within moments
        time.sleep(min(interval, left, 0.25 if heard is not None else interval))
        if chat is not None:
            with transaction():
                if chat_store.newest_chat_line(chat.match_pk) > chat_after:
                    return current
