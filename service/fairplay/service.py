"""Fair play's use cases: the worker's grading of each rated match (:func:`grade_next`),
a player's picture (:func:`picture_of`), and the flags filed in the reports queue as the
pictures cross a front end's thresholds (:func:`judge`)."""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from ..bots import helpers
from ..bots.grading import PlayGrade
from ..engine.rules import team_of
from ..matches import service as matches
from ..players import ratings
from ..safety import reports
from ..settings import Settings
from ..storage.base import utcnow
from ..storage.db import transaction
from ..tenants.economy import economy_of
from . import picture, store
from .signals import MatchSignals, seat_signals

log = logging.getLogger(__name__)

PAGE = 50
"""Finished rated matches looked at a step."""
EVIDENCE = 20
"""The most matches a flag's evidence names."""
KEYS = ("z", "min_plays", "band", "cohort", "lift", "meetings", "meet_p", "one_sided", "drop_z")
"""The thresholds a front end may set (``fair_play`` in ``/v1/settings``)."""


@dataclass(frozen=True)
class FairPlaySettings:
    """A front end's fair play: on or off, its pools (None: every one), how far back a
    picture looks, and its thresholds."""

    enabled: bool = True
    pools: frozenset[str] | None = None
    window_days: int = 90
    thresholds: picture.Thresholds = picture.Thresholds()
    seats: int = 20_000
    """The most graded seats of a pool a picture is made from (the newest)."""


def settings_of(tenant: int) -> FairPlaySettings:
    """The front end's fair play as set in ``/v1/settings`` (caller's transaction); a
    value of the wrong type is left at its default."""
    given: Mapping[str, Any] = economy_of(tenant).fair_play
    th = picture.Thresholds()
    changed = {k: type(getattr(th, k))(given[k]) for k in KEYS
               if isinstance(given.get(k), int | float) and not isinstance(given[k], bool)}
    pools = given.get("pools")
    days = given.get("window_days")
    return FairPlaySettings(
        bool(given.get("enabled", True)),
        frozenset(str(p) for p in pools) if isinstance(pools, list) else None,
        int(days) if isinstance(days, int) and days > 0 else 90,
        replace(th, **changed))


def grade_next(settings: Settings) -> bool:
    """Grade one finished rated or staked match not graded yet (the worker's step, in a bot helper
    at its lower priority, every play within ``BASRA_BOT_CPU_MS`` as a review's), then
    judge its players; whether one was graded."""
    with transaction():
        first = store.next_pk()
    found, after = matches.ended_rated_or_staked(first, PAGE)
    with transaction():
        done = store.graded(pk for pk, _ in found)
        wanted = {t: settings_of(t) for t in {t for _, t in found}}
    todo = [(pk, t) for pk, t in found if pk not in done and wanted[t].enabled]
    if not todo:
        with transaction(write=True):
            store.move_on(after)
        return False
    pk, tenant = todo[0]
    with transaction():
        match_id = matches.match_ids([pk])[pk]
    graded = grade(tenant, match_id, settings, wanted[tenant])
    if graded is None:  # not one for fair play (a pool left out, no player seated)
        with transaction(write=True):
            store.skip(tenant, pk, match_id)
        return True
    judge(tenant, graded.pool, [s.player for s in graded.seats], wanted[tenant])
    return True


def grade(tenant: int, match_id: str, settings: Settings,
          fair: FairPlaySettings) -> MatchSignals | None:
    """A finished match's signals, kept (None: not a match fair play grades)."""
    played = matches.played(match_id, tenant)
    match = played.match
    if fair.pools is not None and match.variant not in fair.pools:
        return None
    players = {s.seat: s.player_id for s in match.seats if s.player_id and s.vouched}
    if not players:
        return None
    mine = [i for i, m in enumerate(played.moves)
            if played.by[i] == "player" and m.seat in players]
    made = helpers.grade(played.start, played.moves, mine, owner=str(tenant),
                         settings=settings)
    grades = [PlayGrade(*graded) for graded in made["grades"]]
    think: dict[int, list[float]] = {seat: [] for seat in players}
    for i in mine:
        if 0 < i < len(played.times):
            think[played.moves[i].seat].append(played.times[i] - played.times[i - 1])
    seats = []
    for seat, player in sorted(players.items()):
        team = team_of(seat)
        result = 0.5 if match.draw else float(match.winner == team)
        seats.append(seat_signals(player, seat, team, [g for g in grades if g.seat == seat],
                                  think[seat], match.scores[team], result))
    signals = MatchSignals(match_id, match.variant, tuple(seats), matches.coins_won(match))
    with transaction(write=True):
        store.add(tenant, match.pk, match.finished_at or utcnow(), signals)
    return signals


def _pictures(tenant: int, pool: str, fair: FairPlaySettings) -> tuple[
        list[MatchSignals], dict[str, picture.PlayerPicture]]:
    with transaction():
        recent = store.pool_recent(tenant, pool, utcnow() - timedelta(days=fair.window_days),
                                   fair.seats)
        everyone = sorted({s.player for m in recent for s in m.seats})
        rated = ratings.current(tenant, pool, everyone)
    shown = {p: float(ratings.skill_display(mu)) for p, (mu, _) in rated.items()}
    spreads = {p: ratings.display_spread(sigma) for p, (_, sigma) in rated.items()}
    return recent, picture.players(recent, shown, fair.thresholds, spreads)


def judge(tenant: int, pool: str, players: Collection[str], fair: FairPlaySettings) -> int:
    """Flag those of ``players`` (and their pairs) past the thresholds in ``pool``, each
    once, as a report in the reports queue with the evidence; how many flagged."""
    recent, pictures = _pictures(tenant, pool, fair)
    filed = 0
    for player in players:
        seen = pictures.get(player)
        if seen is None or not seen.flagged:
            continue
        theirs = [m.match_id for m in recent if any(s.player == player for s in m.seats)]
        evidence = {"kind": "player", "pool": pool, "picture": seen.__dict__,
                    "matches": theirs[-EVIDENCE:], "plays_agreed": _agreed(recent, player)}
        filed += _flag(tenant, "player", player, player, theirs[-EVIDENCE:],
                       f"fair play: agreement with the expert {seen.agreement} against "
                       f"{seen.cohort_agreement} for players of similar rating "
                       f"(z {seen.z}, {seen.mattered} plays)", evidence)
    for pair in picture.pairs(recent, fair.thresholds, only=set(players)):
        if not pair.flagged:
            continue
        evidence = {"kind": "pair", "pool": pool, "pair": {
            **pair.__dict__, "matches": list(pair.matches)}}
        filed += _flag(tenant, "pair", f"{pair.winner}|{pair.loser}", pair.winner,
                       list(pair.matches[-EVIDENCE:]),
                       f"fair play: {pair.loser} lost {pair.losses + pair.wins} meetings "
                       f"to {pair.winner} {pair.wins}-{pair.losses} (random pairing: "
                       f"{pair.expected}), playing worse than elsewhere (z {pair.drop_z})",
                       evidence)
    return filed


def _agreed(recent: list[MatchSignals], player: str) -> dict[str, int]:
    """The player's plays that mattered and agreed with the expert, match by match."""
    return {m.match_id: s.agreed for m in recent for s in m.seats if s.player == player}


def _flag(tenant: int, kind: str, subject: str, player: str, match_ids: list[str],
          text: str, evidence: dict[str, Any]) -> int:
    with transaction(write=True):
        if store.flagged(tenant, kind, subject):
            return 0
        report = reports.flag(tenant, match_ids, player, text[:1000], evidence)
        store.add_flag(tenant, kind, subject, report, utcnow(), evidence)
    log.info("fair play flagged", extra={"kind": kind, "subject": subject})
    return 1


def picture_of(tenant: int, player_id: str) -> dict[str, Any]:
    """A player's fair-play picture in each pool they have graded matches in, their
    pairs met often, and the flags filed about them."""
    with transaction():
        pools = store.pools_of(tenant, player_id)
        fair = settings_of(tenant)
        flags = store.flags_of(tenant, player_id)
    out = []
    for pool in pools:
        recent, pictures = _pictures(tenant, pool, fair)
        seen = pictures.get(player_id)
        out.append({"pool": pool, "picture": None if seen is None else seen.__dict__,
                    "pairs": [{**p.__dict__, "matches": list(p.matches)}
                              for p in picture.pairs(recent, fair.thresholds, {player_id})]})
    return {"player_id": player_id, "enabled": fair.enabled, "pools": out, "flags": flags}
