"""A player's fair-play picture and a pair's, from the signals of their recent matches.
Pure: signals and ratings in, pictures and flags out.

A player: agreement with the expert on the plays where the choice mattered, and points
lost a play (each play's capped), against the players of similar rating (a cohort by
rating band, centred a little above the player's rating by its uncertainty; never an
absolute cut). Each is a z-score: (the player's value - the cohort's median) /
sqrt(tau^2 + se^2), where se is the player's standard error from their n plays
(sqrt(a(1-a)/n) for agreement) and tau the spread of the cohort's true values (their
observed spread, by the interquartile range, less their median squared standard error):
few plays, a small z. The two are joined into one (see :func:`players`).

A pair: how often they met against what random pairing in the pool would give (Poisson,
each player's matches as they were), how one-sided the results were, and the loser's
play in those matches against their own elsewhere (points lost a play, a z-score)."""

from __future__ import annotations

import math
import statistics
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .signals import MatchSignals, SeatSignals


@dataclass(frozen=True)
class Thresholds:
    """What flags a player or a pair (a front end's settings may change them)."""

    z: float = 2.7
    """A player's z-score (agreement and capped loss joined) at or above which they are
    flagged."""
    min_plays: int = 100
    """Plays that mattered a player needs before a flag (and to be in a cohort: a third)."""
    band: float = 100.0
    """A cohort: the players within this many display points of the player's rating..."""
    cohort: int = 30
    """... or, where fewer, this many nearest by rating."""
    lift: float = 0.25
    """... the band centred this many of the player's rating's standard deviations above
    their rating: an honest player whose results lagged their play (a rating luck held
    down) meets the players they may be level with, where a helped player's rating has
    risen with the help (the simulator's honest players flagged at 50 matches were two
    such, rated 1,140 and 1,170 among players rated 1,000-1,300)."""
    meetings: int = 5
    """A pair needs this many meetings..."""
    meet_p: float = 1e-6
    """... each as unlikely as this under random pairing..."""
    one_sided: float = 0.75
    """... one side winning this share of the decided ones..."""
    drop_z: float = 2.0
    """... and the loser's points lost a play that much worse than their own elsewhere."""
    views: tuple[str, ...] = ("agreement", "capped")
    """What a player's z joins: ``agreement``, ``loss``, ``capped`` (the loss capped a
    play), ``deep`` (agreement on the deep plays). The simulator's best at 50 matches
    (docs/performance.md#fair-play): agreement and the capped loss."""


@dataclass(frozen=True)
class PlayerPicture:
    player: str
    rating: float
    matches: int
    plays: int
    mattered: int
    agreement: float | None
    se: float | None
    loss: float | None
    """Points lost a play that mattered."""
    time_cv: float | None
    """Median move-time regularity over their matches."""
    cohort: int
    cohort_agreement: float | None
    cohort_spread: float | None
    z: float | None
    flagged: bool


@dataclass(frozen=True)
class PairPicture:
    winner: str
    """The side the results went to (the one points and coins moved to)."""
    loser: str
    meetings: int
    expected: float
    """Meetings random pairing would give."""
    meet_p: float
    wins: int
    losses: int
    points: int
    """Points moved to the winner, in all (score margins)."""
    coins: int
    """Coins moved to the winner, in all."""
    loser_loss_pair: float | None
    loser_loss_elsewhere: float | None
    drop_z: float | None
    flagged: bool
    matches: tuple[str, ...] = field(default=())


def poisson_tail(k: int, mean: float) -> float:
    """P(X >= k) for X Poisson with that mean."""
    if k <= 0:
        return 1.0
    if mean <= 0:
        return 0.0
    term = math.exp(-mean)
    below = 0.0
    for i in range(k):
        below += term
        term *= mean / (i + 1)
    if below < 0.999:
        return max(0.0, 1.0 - below)
    tail, i = 0.0, k  # summed from k up when 1 - below would lose every digit
    term = math.exp(-mean + k * math.log(mean) - math.lgamma(k + 1))
    while term > 1e-300 and i < k + 1000:
        tail += term
        i += 1
        term *= mean / i
    return tail


DEEP = 20
"""Deep plays (the expert's choice not greedy's) a player needs for that view to count."""


@dataclass
class _Totals:
    matches: int = 0
    plays: int = 0
    mattered: int = 0
    agreed: int = 0
    lost: float = 0.0
    lost_sq: float = 0.0
    deep: int = 0
    deep_agreed: int = 0
    capped: float = 0.0
    capped_sq: float = 0.0
    cvs: list[float] = field(default_factory=list)

    def add(self, s: SeatSignals) -> None:
        self.matches += 1
        self.plays += s.plays
        self.mattered += s.mattered
        self.agreed += s.agreed
        self.lost += s.lost
        self.lost_sq += s.lost_sq
        self.deep += s.deep
        self.deep_agreed += s.deep_agreed
        self.capped += s.capped
        self.capped_sq += s.capped_sq
        if s.time_cv is not None:
            self.cvs.append(s.time_cv)

    def agreement(self) -> tuple[float, float] | None:
        """(agreement, its standard error)."""
        return _share(self.agreed, self.mattered, 1)

    def deep_agreement(self) -> tuple[float, float] | None:
        """(agreement on the deep plays, its standard error): None under :data:`DEEP`."""
        return _share(self.deep_agreed, self.deep, DEEP)

    def loss(self) -> tuple[float, float] | None:
        """(points lost a play, its standard error)."""
        return _mean(self.lost, self.lost_sq, self.mattered)

    def capped_loss(self) -> tuple[float, float] | None:
        """(points lost a play, each at most ``signals.CAP``, its standard error)."""
        return _mean(self.capped, self.capped_sq, self.mattered)


def _share(hits: int, n: int, least: int) -> tuple[float, float] | None:
    """A share of ``n`` and its standard error (None: under ``least``)."""
    if n < least:
        return None
    a = hits / n
    p = min(max(a, 0.02), 0.98)
    return a, math.sqrt(p * (1 - p) / n)


def _mean(total: float, squares: float, n: int) -> tuple[float, float] | None:
    """A mean over ``n`` from its sum and sum of squares, and its standard error."""
    if n < 2:
        return None
    mean = total / n
    var = max(0.0, squares / n - mean ** 2)
    return mean, math.sqrt(max(var, 0.01) / n)


def _spread(values: Sequence[float]) -> float:
    """A robust standard deviation: the interquartile range / 1.349."""
    if len(values) < 4:
        return statistics.pstdev(values) if len(values) > 1 else 0.0
    q = statistics.quantiles(values, n=4)
    return (q[2] - q[0]) / 1.349


def _z(value: float, se2: float, cohort: Sequence[tuple[float, float]]) -> tuple[
        float, float, float]:
    """(median, tau, z) of ``value`` (its squared standard error ``se2``) against the
    cohort's (value, squared standard error) pairs."""
    values = [v for v, _ in cohort]
    median = statistics.median(values)
    tau2 = max(0.0, _spread(values) ** 2 - statistics.median(e for _, e in cohort))
    return median, math.sqrt(tau2), (value - median) / math.sqrt(tau2 + se2)


def _views(t: _Totals, views: Sequence[str]) -> list[tuple[float, float] | None]:
    """A player's value and squared standard error in each view (None: too few plays):
    agreement, loss (negated: fewer points lost, higher) and deep agreement."""
    out: list[tuple[float, float] | None] = []
    for view in views:
        got = {"agreement": t.agreement, "loss": t.loss, "capped": t.capped_loss,
               "deep": t.deep_agreement}[view]()
        if got is None:
            out.append(None)
        else:
            out.append((-got[0] if view in ("loss", "capped") else got[0], got[1] ** 2))
    return out


def _correlation(pairs: Sequence[tuple[float, float]]) -> float:
    """Two views' correlation over a cohort, within 0 and 1 (1 when it cannot be told:
    the two then count once)."""
    if len(pairs) < 3 or len({x for x, _ in pairs}) < 2 or len({y for _, y in pairs}) < 2:
        return 1.0
    return min(1.0, max(0.0, statistics.correlation([x for x, _ in pairs],
                                                    [y for _, y in pairs])))


def players(matches: Sequence[MatchSignals], ratings: Mapping[str, float],
            th: Thresholds = Thresholds(),
            spreads: Mapping[str, float] | None = None) -> dict[str, PlayerPicture]:
    """Every player's picture over ``matches`` (their recent ones), each against the
    cohort of players of similar rating (``ratings``: display points; ``spreads``: each
    rating's standard deviation on that scale, which lifts the cohort by
    ``th.lift`` of it). A z-score for
    each of ``th.views`` (agreement, loss: fewer points lost than the cohort is
    positive, deep agreement), joined as their sum over the square root of the sum of
    their correlations over the cohort's players (the Stouffer sum for correlated
    views: two views of one skill count once)."""
    totals: dict[str, _Totals] = defaultdict(_Totals)
    for match in matches:
        for seat in match.seats:
            totals[seat.player].add(seat)
    rating_of = {p: ratings.get(p, 1500.0) for p in totals}
    measured: dict[str, list[tuple[float, float] | None]] = {}
    for p, t in totals.items():
        views = _views(t, th.views)
        if views[0] is not None:
            measured[p] = views
    member = sorted((rating_of[p], p) for p, t in totals.items()
                    if p in measured and t.mattered >= th.min_plays // 3)
    keys = [m[0] for m in member]
    out: dict[str, PlayerPicture] = {}
    for player, t in totals.items():
        rating = rating_of[player]
        centre = rating + th.lift * (spreads or {}).get(player, 0.0)
        lo, hi = bisect_left(keys, centre - th.band), bisect_right(keys, centre + th.band)
        if hi - lo < th.cohort + 1:
            at = bisect_left(keys, centre)
            lo, hi = max(0, at - th.cohort // 2 - 1), min(len(keys), at + th.cohort // 2 + 1)
        cohort = [measured[p] for _, p in member[lo:hi] if p != player]
        median = spread = z = None
        mine = measured.get(player)
        if mine is not None and len(cohort) >= 5:
            zs: dict[int, float] = {}
            for i, value in enumerate(mine):
                theirs = [c[i] for c in cohort if c[i] is not None]
                if value is None or len(theirs) < 5:
                    continue
                mid, tau, zs[i] = _z(value[0], value[1], theirs)  # type: ignore[arg-type]
                if i == 0:
                    median, spread = mid, tau
            together = len(zs) + 2 * sum(  # each pair of views once: r(i, j) = r(j, i)
                _correlation([(c[i][0], c[j][0]) for c in cohort
                              if c[i] is not None and c[j] is not None])
                for i in zs for j in zs if i < j)
            z = sum(zs.values()) / math.sqrt(together)
        loss = t.loss()
        agreement = t.agreement()
        out[player] = PlayerPicture(
            player, rating, t.matches, t.plays, t.mattered,
            None if agreement is None else round(agreement[0], 4),
            None if agreement is None else round(agreement[1], 4),
            None if loss is None else round(loss[0], 3),
            round(statistics.median(t.cvs), 3) if t.cvs else None,
            len(cohort), None if median is None else round(median, 4),
            None if spread is None else round(spread, 4),
            None if z is None else round(z, 2),
            z is not None and z >= th.z and t.mattered >= th.min_plays)
    return out


def pairs(matches: Sequence[MatchSignals], th: Thresholds = Thresholds(),
          only: set[str] | None = None) -> list[PairPicture]:
    """Every pair that met at least ``th.meetings`` times in ``matches`` (of which one is
    in ``only``, when given), with the evidence and whether it is flagged."""
    seats_of: dict[str, int] = defaultdict(int)
    met: dict[tuple[str, str], list[tuple[MatchSignals, SeatSignals, SeatSignals]]] = \
        defaultdict(list)
    for match in matches:
        for s in match.seats:
            seats_of[s.player] += 1
        for one, other in match.opponents():
            met[(one.player, other.player)].append((match, one, other))
    total = sum(seats_of.values())
    elsewhere: dict[str, _Totals] = defaultdict(_Totals)
    for match in matches:
        for s in match.seats:
            elsewhere[s.player].add(s)
    out: list[PairPicture] = []
    for (a, b), games in met.items():
        if len(games) < th.meetings or (only is not None and a not in only and b not in only):
            continue
        wins = sum(1 for _, sa, _ in games if sa.result == 1.0)
        losses = sum(1 for _, sa, _ in games if sa.result == 0.0)
        winner, loser = (a, b) if wins >= losses else (b, a)
        won, lost = max(wins, losses), min(wins, losses)
        sign = 1 if winner == a else -1
        points = sum(sign * (sa.score - sb.score) for _, sa, sb in games)
        coins = sum(sign * (m.coins.get(a, 0) - m.coins.get(b, 0)) // 2 for m, _, _ in games)
        expected = seats_of[a] * seats_of[b] / max(1, total - seats_of[a])
        meet_p = poisson_tail(len(games), expected)
        inside = _Totals()
        for _, sa, sb in games:
            inside.add(sa if sa.player == loser else sb)
        rest = elsewhere[loser]
        outside = _Totals(rest.matches - inside.matches, rest.plays - inside.plays,
                          rest.mattered - inside.mattered, rest.agreed - inside.agreed,
                          rest.lost - inside.lost, rest.lost_sq - inside.lost_sq)
        li, lo_ = inside.loss(), outside.loss()
        drop = None if li is None or lo_ is None \
            else (li[0] - lo_[0]) / math.sqrt(li[1] ** 2 + lo_[1] ** 2)
        flagged = (meet_p <= th.meet_p and won >= th.one_sided * max(1, won + lost)
                   and drop is not None and drop >= th.drop_z)
        out.append(PairPicture(
            winner, loser, len(games), round(expected, 3), meet_p, won, lost, points, coins,
            None if li is None else round(li[0], 3), None if lo_ is None else round(lo_[0], 3),
            None if drop is None else round(drop, 2), flagged,
            tuple(m.match_id for m, _, _ in games)))
    return out
