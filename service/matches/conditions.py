"""What a request on a match must hold before a use case acts on it: the match in play
(at the version its If-Match names), and its Idempotency-Key (the body's fingerprint,
how long a key is honoured, the purge of expired ones), for creates and moves alike."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from ..engine import MatchFinished
from ..settings import Settings
from ..storage.base import utcnow
from ..storage.db import transaction
from . import idempotency
from .enums import MatchStatus
from .errors import MatchNotStarted, VersionMismatch
from .rows import MatchRow


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


def fingerprint(payload: Mapping[str, Any]) -> str:
    """A stable hash of a request body, to tell a retry from a different request."""
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def idempotency_since(settings: Settings) -> datetime:
    """The oldest moment an Idempotency-Key is honoured from (BASRA_IDEMPOTENCY_HOURS)."""
    return utcnow() - timedelta(hours=settings.idempotency_hours)


_purged = [0.0]


def purge_expired(settings: Settings) -> None:
    """Remove expired Idempotency-Key records (the worker's chore, and at most hourly
    per process a keyed move's)."""
    _purged[0] = time.monotonic()
    with transaction(write=True):
        idempotency.purge_idempotency(idempotency_since(settings))


def purge_hourly(settings: Settings) -> None:
    """:func:`purge_expired`, at most hourly in this process (a keyed move's chore)."""
    if time.monotonic() - _purged[0] > 3600:
        purge_expired(settings)
