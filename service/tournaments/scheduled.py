"""The tournaments' steps for ``basra worker``: start or cancel, pair (a Swiss round, or
an arena's free players), finish.

Each step runs in one write transaction holding the tournament's row lock (``FOR UPDATE
SKIP LOCKED`` on PostgreSQL, SQLite's single writer) and looks at the stored state again
under it, so with any number of workers each step happens once; a worker killed
mid-step rolls back and the next pass takes the step again. Matches are created in the
same transaction as the pairing that names them; a game's result is written as its
match ends (:func:`.service.results`).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select, update

from ..engine import Rules, load_variant, new_seed, with_house_rules
from ..matches.enums import MatchStatus
from ..matches.rows import MatchRow
from ..matches.seats import PlayerSpec
from ..matches.service import deal_match, games_of, insert_match, unseal
from ..settings import Settings
from ..storage.base import as_utc, utcnow
from ..storage.db import DISCONNECTED, db, transaction
from ..storage.errors import DatabaseUnavailable
from . import pairing
from .enums import PairingStatus, TournamentStatus, TournamentSystem
from .models import Entrant, Pairing, Tournament
from .results import announce, end, result_of
from .service import OVER
from .standings import Loaded, counted_games, is_bye, load, names_of, seated, standings_of

log = logging.getLogger(__name__)
STEPS_SECONDS = 5.0
"""A worker pass takes tournament steps for at most this long, then turns to its other
chores (the rest wait for the next pass)."""
MAX_TARGET = 10_000
"""A duplicate table's target score: out of reach, so its deals alone end it."""
REMATCH_AFTER_SECONDS = 3.0
"""An arena pairs last opponents again only once one of them has waited this long."""


DUE_LOOKED_AT = 1000
"""A pass reads at most this many due tournaments (the per-front-end cap keeps them few)."""


def due(now: datetime, limit: int = DUE_LOOKED_AT) -> list[tuple[int, int]]:
    """Tournaments with a step to look at (scheduled ones whose start has come, running
    ones) as (tournament, front end), the front ends in turn: each one's first, then
    each one's second, ... so no front end's count pushes another's out of a pass."""
    turn = func.row_number().over(partition_by=Tournament.tenant_pk,
                                  order_by=Tournament.pk).label("turn")
    looked = select(Tournament.pk, Tournament.tenant_pk, turn).where(
        ((Tournament.status == TournamentStatus.SCHEDULED) & (Tournament.starts_at <= now))
        | (Tournament.status == TournamentStatus.RUNNING)).subquery()
    with transaction():
        return [(int(pk), int(tenant)) for pk, tenant in db.session.execute(
            select(looked.c.pk, looked.c.tenant_pk).order_by(looked.c.turn, looked.c.pk)
            .limit(limit))]


_served: dict[int, float] = {}
"""When this worker last took each due tournament's step (monotonic seconds)."""
_front_ends_served: dict[int, float] = {}
"""When this worker last took a step of each front end's (monotonic seconds)."""


def in_turn(found: list[tuple[int, int]]) -> list[int]:
    """Due tournaments in the order this worker serves them: the front ends in turn (the
    one served longest ago first), one tournament of each a round, each front end's own
    the longest unserved first (never served: first of all); so a front end with many
    tournaments gets no more of a pass than one with a single one, and a pass cut short
    by :data:`STEPS_SECONDS` resumes where it stopped."""
    mine: dict[int, list[int]] = {}
    for pk, tenant in found:
        mine.setdefault(tenant, []).append(pk)
    for gone in _served.keys() - {pk for pk, _ in found}:
        del _served[gone]
    for gone in _front_ends_served.keys() - mine.keys():
        del _front_ends_served[gone]
    for pks in mine.values():
        pks.sort(key=lambda pk: _served.get(pk, 0.0))
    order = sorted(mine, key=lambda tenant: _front_ends_served.get(tenant, 0.0))
    rounds = max(map(len, mine.values()), default=0)
    return [mine[tenant][n] for n in range(rounds) for tenant in order
            if n < len(mine[tenant])]


def step(pk: int, settings: Settings) -> bool:
    """Take the tournament's next step, unless another worker is taking one now; whether
    it changed anything."""
    with transaction(write=True):
        t = db.session.execute(
            select(Tournament).where(Tournament.pk == pk)
            .with_for_update(skip_locked=True)).scalar_one_or_none()
        if t is None or t.status in OVER:
            return False
        now = utcnow()
        if t.status == TournamentStatus.SCHEDULED:
            if as_utc(t.starts_at) > now:
                return False
            _start(t, now, settings)
            return True
        return _advance(t, now, settings)


def _start(t: Tournament, now: datetime, settings: Settings) -> None:
    """Start the tournament (pairing its first round or its first games), or cancel it
    below ``min_players``."""
    loaded = load(t)
    entrants = [e.player_id for e in loaded.entrants]
    if len(entrants) < max(t.min_players, _least(t)):
        end(t, now, TournamentStatus.CANCELLED, loaded)
        return
    t.status = TournamentStatus.RUNNING
    if t.system == TournamentSystem.ARENA:
        assert t.duration_minutes is not None
        t.ends_at = now + timedelta(minutes=t.duration_minutes)
    announce(t, "tournament.started", {"name": t.name, "system": t.system,
                                        "entrants": entrants, "names": names_of(loaded)},
              {p: {"name": t.name, "system": t.system} for p in entrants})
    _pair(t, loaded, now, settings)


def _advance(t: Tournament, now: datetime, settings: Settings) -> bool:
    """Pair what can be paired, or finish (results are recorded as matches end:
    :func:`results`). A pass with nothing to pair reads only who is playing (not every
    game so far)."""
    busy = _playing(t, now)
    if t.system != TournamentSystem.ARENA:  # by rounds: the next once all have ended
        if busy:
            return False
        assert t.rounds is not None
        if t.system == TournamentSystem.DUPLICATE:  # the round is over: its tables public
            unseal([pk for pk in db.session.execute(select(Pairing.match_pk).where(
                Pairing.tournament_pk == t.pk)).scalars() if pk is not None])
        loaded = load(t)  # after: the round's tables count now
        if t.round >= t.rounds or sum(e.withdrawn_at is None for e in loaded.entrants) \
                < _least(t):
            end(t, now, TournamentStatus.FINISHED, loaded)
        else:
            _pair(t, loaded, now, settings)
        return True
    assert t.ends_at is not None
    if as_utc(t.ends_at) <= now:
        db.session.execute(update(Pairing).where(
            Pairing.tournament_pk == t.pk, Pairing.status == PairingStatus.PLAYING
        ).values(status=PairingStatus.VOID))
        end(t, now, TournamentStatus.FINISHED, load(t))
        return True
    free = db.session.execute(select(func.count()).where(
        Entrant.tournament_pk == t.pk, Entrant.withdrawn_at.is_(None),
        Entrant.player_id.not_in(busy))).scalar_one()
    if free < 2:
        return False
    return _pair(t, load(t), now, settings)


def _playing(t: Tournament, now: datetime) -> list[str]:
    """The players of the tournament's games under way. A game whose match ended without
    its result (saved by a process of a version before results went with the match) is
    given it now."""
    busy = []
    playing = db.session.execute(select(Pairing).where(
        Pairing.tournament_pk == t.pk, Pairing.status == PairingStatus.PLAYING,
        Pairing.match_pk.is_not(None))).scalars().all()
    games = games_of(p.match_pk for p in playing)
    for p in playing:
        game = games[p.match_pk]
        if game.status in (MatchStatus.FINISHED, MatchStatus.ABORTED):
            for name, value in result_of(game.status, game.winner, game.draw,
                                         seated(p)).items():
                setattr(p, name, value)
            p.finished_at = now
        else:
            busy.extend(seated(p))
    return busy


def _rules(t: Tournament) -> Rules:
    """The rules of the tournament's matches: its variant and house rules; a duplicate
    event's tables play its deals, whatever the scores, and a tie on cards carries
    nothing into the next deal (its stakes would differ from table to table)."""
    overrides = dict(t.rules or {})
    if t.system == TournamentSystem.DUPLICATE:
        overrides.update(max_rounds=t.deals or 1, target_score=MAX_TARGET)
        overrides["scoring"] = {**overrides.get("scoring", {}), "most_cards_tie": "none"}
    return with_house_rules(load_variant(t.variant).rules, overrides)


def _table_size(t: Tournament) -> int:
    return _rules(t).players if t.system == TournamentSystem.DUPLICATE else 2


def _least(t: Tournament) -> int:
    """The fewest players it starts (or plays a round) with: two tables at a duplicate
    event (one table has nobody to be compared with), else two players."""
    return 2 * _table_size(t) if t.system == TournamentSystem.DUPLICATE else 2


def _open_match(t: Tournament, players: Sequence[str], names: dict[str, str],
                settings: Settings, seed: bytes | None = None) -> MatchRow:
    """The match of a pairing, its seats bound to its players (their player tokens act
    for them), with the tournament's clock and rules (``seed``: a duplicate round's,
    its match sealed until the round is over)."""
    new = deal_match(t.variant, _rules(t), [
        PlayerSpec(name=names[p], player_id=p, vouched=True) for p in players],
        tenant=t.tenant_pk, seed=seed)
    return insert_match(new, t.tenant_pk, clock=(t.clock_seconds, t.clock_timeout),
                        rated=t.rated, tournament_game=True, sealed=seed is not None,
                        settings=settings)


def _pair_duplicate(t: Tournament, loaded: Loaded, now: datetime,
                    settings: Settings) -> bool:
    """A duplicate event's next round: every table dealt from one new seed, so every
    table holds the same cards, its match sealed until the round is over; the players
    drawn into tables and seats by the round's secret seed, those who sat out least
    sitting out when some are left over (:func:`pairing.duplicate_tables`)."""
    t.round += 1
    active = [e.player_id for e in loaded.entrants if e.withdrawn_at is None]
    seed = new_seed()
    sat_out: dict[str, int] = {}
    for p, _ in loaded.pairings:
        if is_bye(p):
            sat_out[p.first] = sat_out.get(p.first, 0) + 1
    tables, out = pairing.duplicate_tables(active, _table_size(t), seed.hex(), sat_out)
    names = names_of(loaded)
    made: list[tuple[Pairing, MatchRow | None]] = [
        (Pairing(tournament_pk=t.pk, round=t.round, first=who, second=None,
                 status=PairingStatus.FINISHED, created_at=now, finished_at=now), None)
        for who in out]
    for table in tables:
        match = _open_match(t, table, names, settings, seed)
        seats = dict(zip(("first", "second", "third", "fourth"), table, strict=False))
        made.append((Pairing(tournament_pk=t.pk, round=t.round, match_pk=match.pk,
                             status=PairingStatus.PLAYING, created_at=now, **seats), match))
    db.session.add_all([p for p, _ in made])
    db.session.flush()
    personal: dict[str, dict[str, Any]] = {
        who: {"round": t.round, "bye": True, "match_id": None} for who in out}
    for p, m in made:
        if m is not None:
            table = seated(p)
            for seat, me in enumerate(table):
                personal[me] = {"round": t.round, "bye": False, "match_id": m.id,
                                "seat": seat, "table": table}
    games = [{"match_id": m.id, "players": seated(p)} for p, m in made if m is not None]
    announce(t, "tournament.round", {
        "round": t.round, "pairings": games, "bye": out[0] if out else None, "byes": out,
        "names": {who: names[who] for who in (*out, *(p for g in games for p in g["players"]))},
    }, personal)
    return True


def _pair(t: Tournament, loaded: Loaded, now: datetime, settings: Settings) -> bool:
    """The next Swiss or duplicate round, or games for the arena's free players; whether
    any."""
    if t.system == TournamentSystem.DUPLICATE:
        return _pair_duplicate(t, loaded, now, settings)
    games = counted_games(t, loaded)
    order = [s for s in standings_of(t, loaded, games) if not s.withdrawn]
    names = names_of(loaded)
    made: list[tuple[Pairing, MatchRow | None]] = []
    bye: str | None = None
    if t.system == TournamentSystem.SWISS:
        t.round += 1
        planned = pairing.swiss_round(order, t.round)
        pairs, bye = planned.pairs, planned.bye
        if bye is not None:
            made.append((Pairing(tournament_pk=t.pk, round=t.round, first=bye, second=None,
                                 status=PairingStatus.FINISHED, created_at=now,
                                 finished_at=now), None))
    else:
        playing = {name for p, _ in loaded.pairings if p.status == PairingStatus.PLAYING
                   for name in (p.first, p.second)}
        free = [s for s in order if s.player_id not in playing]
        pairs = pairing.arena_pairs(free, pairing.last_opponents(games),
                                    _waited(loaded, now), REMATCH_AFTER_SECONDS)
        if not pairs:
            return False
        t.round += 1
    for first, second in pairs:
        match = _open_match(t, (first, second), names, settings)
        made.append((Pairing(tournament_pk=t.pk, round=t.round, first=first, second=second,
                             match_pk=match.pk, status=PairingStatus.PLAYING, created_at=now),
                     match))
    db.session.add_all([p for p, _ in made])
    db.session.flush()
    games = [{"match_id": m.id, "players": [p.first, p.second]} for p, m in made
             if m is not None]
    personal: dict[str, dict[str, Any]] = {}
    for p, m in made:
        if m is None:
            personal[p.first] = {"round": t.round, "bye": True, "match_id": None}
            continue
        for seat, (me, other) in enumerate(((p.first, p.second), (p.second, p.first))):
            assert me is not None
            personal[me] = {"round": t.round, "bye": False, "match_id": m.id, "seat": seat,
                            "opponent": other, "opponent_name": names[other or ""]}
    announce(t, "tournament.round", {
        "round": t.round if t.system == TournamentSystem.SWISS else None,
        "pairings": games, "bye": bye,
        "names": {who: names[who] for who in (bye, *(p for g in games for p in g["players"]))
                  if who is not None},
    }, personal)
    return True


def _waited(loaded: Loaded, now: datetime) -> dict[str, float]:
    """Seconds each arena player has been free: since their last game ended (an arena
    player plays one game at a time, so the pairings in order end in order), or, before
    their first, since they joined."""
    since = {e.player_id: as_utc(e.joined_at) for e in loaded.entrants}
    for p, _ in loaded.pairings:
        if p.finished_at is not None:
            since.update((who, as_utc(p.finished_at)) for who in (p.first, p.second)
                         if who is not None)
    return {who: (now - at).total_seconds() for who, at in since.items()}


FAILED_RETRY_SECONDS = 60.0
"""A tournament whose step failed is tried again at the next pass, then after 1, 2, 4, ...
seconds, at most this long; its failure is logged at most once this long."""


@dataclass
class _Failing:
    """A tournament whose last steps failed: how often in a row, when it is tried again,
    when its failure was last logged (monotonic seconds)."""

    times: int
    retry_at: float
    logged_at: float


_failing: dict[int, _Failing] = {}
"""The tournaments this worker backs off from."""


def _failed(pk: int, now: float) -> None:
    """A failed step: the tournament backed off from, the failure logged (with its
    traceback) at most once a :data:`FAILED_RETRY_SECONDS`."""
    was = _failing.get(pk) or _Failing(0, now, -math.inf)
    times = was.times + 1
    log_now = now - was.logged_at >= FAILED_RETRY_SECONDS
    wait = 0.0 if times == 1 else min(FAILED_RETRY_SECONDS, 2.0 ** (times - 2))
    _failing[pk] = _Failing(times, now + wait, now if log_now else was.logged_at)
    if log_now:
        log.exception("tournament step failed (%d times in a row; backing off)", times,
                      extra={"tournament_pk": pk, "failures": times})


def run_tournaments(settings: Settings) -> int:
    """Every due tournament's step (the worker's pass); how many changed. A step that
    fails is rolled back and logged, the tournament backed off from (:func:`_failed`),
    and the others go on (a lost database is the worker's to retry)."""
    started = time.monotonic()
    changed = 0
    found = due(utcnow())
    front_end = dict(found)
    for gone in _failing.keys() - front_end.keys():
        del _failing[gone]
    for pk in in_turn(found):
        failing = _failing.get(pk)
        if failing is not None and failing.retry_at > time.monotonic():
            continue
        try:
            changed += step(pk, settings)
            _failing.pop(pk, None)
        except (DatabaseUnavailable, *DISCONNECTED):
            raise
        except Exception:
            _failed(pk, time.monotonic())
        _served[pk] = _front_ends_served[front_end[pk]] = time.monotonic()
        if _served[pk] - started > STEPS_SECONDS:  # the clocks' turn comes round too
            break
    return changed
