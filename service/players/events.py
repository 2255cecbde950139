"""A player's own event stream (``GET /v1/players/{id}/events``): their matches starting,
their turns, their matches ending, their tournaments', friends' and challenges' events.

Events are rows written in the transaction of the change that caused them (like the
webhooks' outbox: both subscribe to the event door, :mod:`service.events`), numbered
by the table's sequence: a stream resumes after its ``Last-Event-ID`` exactly. A stream
sleeps on this process's listener (the change notifies the player's key) and reads its new
rows when woken; without PostgreSQL it polls.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Text, bindparam, cast, func, literal_column, select

from ..events import Published
from ..live import keeper, listener, waiters
from ..ops import metrics
from ..settings import Settings
from ..storage import partitions
from ..storage.base import utcnow
from ..storage.db import db, postgresql_text, statement_connection
from ..storage.writes import Rows
from .models import PlayerEvent

EVENT_DAYS = 7
"""Events are kept this long unless BASRA_RETENTION_DAYS_PLAYER_EVENTS says: a stream
resumes within a week."""
REPLAY_ROWS = 200
"""At most this many events are read at once (a stream resuming far back pages)."""


def wake_key(tenant: int, player_id: str) -> str:
    """The key the listener wakes a player's streams with (no colon: a NOTIFY's fields are
    colon-separated); :func:`_wake` computes the same in SQL."""
    return "p" + hashlib.md5(f"{tenant}:{player_id}".encode()).hexdigest()


def _wake(columns: Any) -> Any:
    """An inserted event's NOTIFY payload: its player's wake key and its number."""
    colon = literal_column("':'")
    return func.concat(literal_column("'p'"), func.md5(func.concat(
        cast(columns.tenant_pk, Text), colon, columns.player_id)), colon, columns.pk)


def for_streams(tenant: int, happened: Sequence[Published]) -> list[Rows]:
    """Published events (:mod:`service.events`, whose door checked them) as events on
    the streams of the players each names, to write in the publisher's transaction: the
    event door's subscriber (wired by the composition root), and the only writer of
    player events. On PostgreSQL each wakes its player's streams when it commits."""
    told = [(player_id, p.kind, data) for p in happened for player_id, data in p.to]
    if not told:
        return []
    now = utcnow()
    return [Rows(PlayerEvent.__table__, tuple(
        {"tenant_pk": tenant, "player_id": player_id, "type": kind,
         "body": json.dumps(data, separators=(",", ":")), "created_at": now}
        for player_id, kind, data in told), wake=_wake)]


@dataclass(frozen=True)
class Event:
    """One event of a player's stream."""

    id: int
    type: str
    data: str
    """The JSON body as stored."""


_AFTER = (select(PlayerEvent.pk, PlayerEvent.type, PlayerEvent.body)
          .where(PlayerEvent.tenant_pk == bindparam("tenant"),
                 PlayerEvent.player_id == bindparam("player"),
                 PlayerEvent.pk > bindparam("last"))
          .order_by(PlayerEvent.pk).limit(bindparam("rows")))
_NEWEST = select(func.max(PlayerEvent.pk)).where(
    PlayerEvent.tenant_pk == bindparam("tenant"), PlayerEvent.player_id == bindparam("player"))


def _read(stmt: Any, params: dict[str, Any]) -> Sequence[Sequence[Any]]:
    """One SELECT of a woken stream: on PostgreSQL in autocommit, straight on psycopg
    (a presence change wakes 50 friends' streams: the ORM session's bookkeeping would
    cost more than the query)."""
    with statement_connection(write=False) as alone:
        if alone is None:
            return db.session.execute(stmt, params).all()
        return alone.execute(postgresql_text(stmt), params).fetchall()


def _after(tenant: int, player_id: str, last: int) -> list[Event]:
    found = _read(_AFTER, {"tenant": tenant, "player": player_id, "last": last,
                           "rows": REPLAY_ROWS})
    return [Event(pk, kind, body) for pk, kind, body in found]


def _newest(tenant: int, player_id: str) -> int:
    found = _read(_NEWEST, {"tenant": tenant, "player": player_id})
    return int(found[0][0] or 0) if found else 0


def follow(tenant: int, player_id: str, last_seen: int | None, heartbeat: float,
           client: str, still: Callable[[], bool] = lambda: True, *,
           settings: Settings) -> Iterator[list[Event]]:
    """The player's events after ``last_seen`` (none: only those from now on), in
    batches as they come; an empty batch is a heartbeat (after ``heartbeat`` seconds
    without an event, and once at the start). It sleeps until an event, the heartbeat or
    the stream keeper's poke (:mod:`service.live.keeper` asks ``still()`` once a second
    for every stream at once), and ends when ``still()`` says no: an idle stream costs
    no wake. Holds one of ``client``'s parking places (:mod:`service.live.waiters`)
    while it runs."""
    key = wake_key(tenant, player_id)
    with waiters.parked(client, settings), metrics.WAITERS.labels("player").track_inprogress(), \
            keeper.holding(key, still):
        last = _newest(tenant, player_id) if last_seen is None else last_seen
        yield []
        spoke = time.monotonic()
        unread = True
        while True:
            heard = listener.heard(key)  # before the read: a later event wakes the wait
            epoch = listener.epoch()
            if unread:
                batch = _after(tenant, player_id, last)
                if batch:
                    last = batch[-1].id
                    yield batch
                    spoke = time.monotonic()
                    if len(batch) == REPLAY_ROWS:
                        continue
            left = heartbeat - (time.monotonic() - spoke)
            if left <= 0:
                yield []
                spoke = time.monotonic()
            else:
                listener.wait_for_key(key, heard, left, settings.poll_interval)
                if not still():
                    return
            # a wake reads nothing while the listener, live since, heard nothing new
            unread = epoch is None or listener.epoch() != epoch or listener.heard(key) != heard


def purge(before: datetime) -> int:
    """Remove the events made before ``before``: on PostgreSQL each day wholly older
    dropped (and the default partition's old rows deleted), on SQLite deleted; how many
    rows were deleted one by one."""
    return partitions.expire("player_events", "created_at", before).rows


def make_days() -> list[str]:
    """The events' days ahead, made (PostgreSQL)."""
    return partitions.make_ahead("player_events", "created_at")
