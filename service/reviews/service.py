"""Review use cases: a finished match's review for a seat (its own plays) or the front
end's server (all), asked for at the first read and made by the worker (:func:`make_next`),
the front ends taking turns."""

from __future__ import annotations

import logging
import math
import time
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ..bots import helpers
from ..errors import MissingToken
from ..matches import service as matches
from ..players.service import Credential
from ..settings import Settings
from ..storage.base import utcnow
from ..storage.db import DISCONNECTED, transaction
from ..storage.errors import DatabaseUnavailable
from ..tenants import limits
from ..tenants.errors import BudgetSpent
from . import store
from .enums import ReviewStatus

log = logging.getLogger(__name__)

GRADED = ("best", "good", "inaccuracy", "mistake", "blunder")
"""The grades a seat's summary counts (forced plays apart)."""

TAKEN_FOR = timedelta(minutes=10)
"""A review a worker took and has not kept after this is taken again (its worker is
gone): far longer than any match's review takes (each play at most BASRA_BOT_CPU_MS)."""
ATTEMPTS = 3
"""Takes of a review before it is given up as ``failed``."""
PLAYS_A_UNIT = 20
"""Plays of a match a unit of ``expensive`` pays for: a review searches each play about
as an expert's move does, but in the worker's helper at its lower priority, never in the
web workers where the front ends' moves are."""


@dataclass(frozen=True)
class SeatSummary:
    """A seat's plays in a review, added up."""

    seat: int
    plays: int
    points_lost: float
    grades: dict[str, int]


@dataclass(frozen=True)
class MatchReview:
    """A match's review as the asker may see it: all plays for the server, a seat's own
    for its token; ``status`` pending until the worker made it."""

    match_id: str
    status: ReviewStatus
    seat: int | None
    asked_at: datetime
    ready_at: datetime | None
    plays: tuple[dict[str, Any], ...]
    seats: tuple[SeatSummary, ...]


def review_of(match_id: str, tenant: int, token: Credential | None,
              server: bool) -> MatchReview:
    """The review of a finished match, asked for if nobody had: a seat's token sees its
    own plays, the server key every play. Asking spends a unit of the caller's
    ``expensive`` budget for every :data:`PLAYS_A_UNIT` entries of the match's log
    (refused with :class:`BudgetSpent` once it is spent, nothing asked)."""
    match, seat = matches.finished_match(match_id, tenant, token)
    if seat is None and not server:
        raise MissingToken("a review is for a seat's token (its own plays) or the front "
                           "end's server key (every play)")
    with transaction(write=True):
        kept = store.get(match.pk)
        if kept is None:
            wait = limits.budget_retry_after("expensive")
            if wait is not None:
                raise BudgetSpent(f"reviews spend your expensive budget; try again in {wait} s",
                                  retry_after=wait)
            now = utcnow()
            if store.ask(match.pk, tenant, now):
                limits.charge("expensive", math.ceil(match.version / PLAYS_A_UNIT))
            kept = store.get(match.pk)
            assert kept is not None
    plays = tuple(p for p in kept.plays if seat is None or p["seat"] == seat)
    return MatchReview(match.id, kept.status, seat, kept.asked_at, kept.ready_at, plays,
                       _summaries(plays))


def _summaries(every: tuple[dict[str, Any], ...]) -> tuple[SeatSummary, ...]:
    """Each seat's own plays added up (not those a bot, a stand-in or the clock made)."""
    plays = [p for p in every if p.get("played_by", "player") == "player"]
    seats = sorted({p["seat"] for p in plays})
    return tuple(SeatSummary(
        seat, sum(1 for p in plays if p["seat"] == seat),
        round(sum(p["points_lost"] for p in plays if p["seat"] == seat), 2),
        {grade: n for grade, n in Counter(p["grade"] for p in plays if p["seat"] == seat
                                          ).items() if grade in GRADED})
        for seat in seats)


_served: dict[int, float] = {}
"""When this process last made a review of each front end (monotonic seconds)."""


def make_next(settings: Settings) -> bool:
    """Make one review (the worker's step): the front end served longest ago first, its
    review asked longest ago; whether one was made."""
    now = utcnow()
    with transaction():
        waiting = store.waiting_tenants(now - TAKEN_FOR)
    for tenant in sorted(waiting, key=lambda t: _served.get(t, 0.0)):
        with transaction(write=True):
            taken = store.claim(tenant, now, now - TAKEN_FOR, matches.match_ids)
        if taken is None:
            continue
        _served[tenant] = time.monotonic()
        try:
            played = matches.played(taken.match_id, tenant)
            made = helpers.review(played.start, played.moves, owner=str(tenant),
                                  settings=settings)
        except (DatabaseUnavailable, *DISCONNECTED):
            raise  # the claim lapses; the worker retries
        except Exception:
            log.exception("a review failed", extra={"match_id": taken.match_id,
                                                    "attempt": taken.attempts})
            with transaction(write=True):
                store.give_up(taken, failed=taken.attempts >= ATTEMPTS)
            return True
        for play in made["plays"]:
            play["played_by"] = played.by[play["index"]]
        with transaction(write=True):
            store.keep(taken, made["plays"], made["cpu_ms"], utcnow())
        return True
    return False
