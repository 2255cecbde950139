"""Presence, as a player's friends see it: ``playing`` (seated in an active match, its
id given), ``online`` (a player stream open on some instance: a lease,
:mod:`service.players.presence`), or ``offline``.

What friends were last told is kept, one row a player. It is worked out again (under
that row's lock) when the player's first stream opens on a process, when a match of
theirs starts or ends (in the match change's own write), and by the worker's sweep of
players told ``online`` whose leases all ran out, which comes after the grace a closed
stream keeps: a reconnect is no change. A change is a ``presence`` event on each
friend's stream and a webhook.
"""

from __future__ import annotations

from ..events import event, told
from ..live.listener import CHANNEL
from ..matches import service as matches
from ..matches.changes import MatchChanged
from ..matches.enums import MatchStatus
from ..players import presence as leases
from ..players.enums import PresenceStatus
from ..players.presence import Seen
from ..storage import writes
from ..storage.base import utcnow
from ..storage.db import transaction
from ..web.settings import current
from .friends import friend_ids

SWEEP_BATCH = 500
"""Players found gone by one sweep at most (more: the next)."""


def _changes(tenant: int, player_id: str, before: Seen, now_seen: Seen) -> list[writes.Rows]:
    """The rows that keep ``now_seen`` and tell the player's friends, if it differs from
    what they were told."""
    if now_seen == before:
        return []
    status, match_id = now_seen
    return [leases.keep(tenant, player_id, now_seen), *told(tenant, [event("presence", {
        "player_id": player_id, "status": status, "match_id": match_id},
        friend_ids(tenant, player_id))])]


def _now(tenant: int, player_id: str, besides: str | None = None) -> Seen:
    """The player's presence as the database has it (an active match other than
    ``besides`` first)."""
    playing = matches.playing_in(tenant, player_id, besides)
    if playing is not None:
        return PresenceStatus.PLAYING, playing
    online = leases.live_lease(tenant, player_id, utcnow())
    return (PresenceStatus.ONLINE if online else PresenceStatus.OFFLINE), None


def reconcile(tenant: int, player_id: str) -> None:
    """Work the player's presence out again and tell their friends if it changed (under
    its row's lock: concurrent callers queue)."""
    with transaction(write=True):
        before = leases.lock_told(tenant, player_id)
        writes.write(_changes(tenant, player_id, before, _now(tenant, player_id)), CHANNEL)


def on_match(change: MatchChanged) -> list[writes.Rows]:
    """A match starting or ending changes its vouched players' presence (a subscriber to
    every match change: the rows go with the change)."""
    if not current().presence_on:  # a subscriber deep in every save: looked up here
        return []
    match = change.match
    started = change.before in (None, MatchStatus.WAITING) and match.status == MatchStatus.ACTIVE
    if not (started or change.ended) or not match.vouched:
        return []
    rows: list[writes.Rows] = []
    for player_id in sorted({player for _, player in match.vouched}):
        before = leases.told(match.tenant, player_id)
        now_seen: Seen = ((PresenceStatus.PLAYING, match.id) if started
                          else _now(match.tenant, player_id, besides=match.id))
        rows += _changes(match.tenant, player_id, before, now_seen)
    return rows


def sweep() -> int:
    """Players told ``online`` whose every lease ran out: worked out again (``offline``,
    or ``playing``), friends told; each once, whichever worker (rows others hold are
    skipped); how many."""
    with transaction(write=True):
        gone = leases.gone_online(SWEEP_BATCH)
        rows = [row for tenant, player_id, before in gone for row in _changes(
            tenant, player_id, before, _now(tenant, player_id))]
        writes.write(rows, CHANNEL)
    return len(gone)

