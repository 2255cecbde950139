"""Fair play's detector, pure (issue 58, item 1): a player's agreement against a cohort of
similar rating as a z-score that counts their number of plays; a pair's meetings against
random pairing, one-sided results and the loser's play there against elsewhere."""

from __future__ import annotations

import random

from service.bots.grading import PlayGrade
from service.fairplay import picture
from service.fairplay.signals import (
    CAP,
    MATTERS,
    MatchSignals,
    SeatSignals,
    from_dict,
    seat_signals,
    time_regularity,
    to_dict,
)


def _seat(player: str, seat: int, mattered: int, agreed: int, lost: float = 10.0,
          result: float = 0.5, score: int = 0) -> SeatSignals:
    lost_sq = lost * lost / max(1, mattered) * 2
    return SeatSignals(player, seat, seat % 2, mattered + 4, mattered, agreed, lost,
                       lost_sq, 0.5, score, result, capped=lost, capped_sq=lost_sq)


def test_forced_plays_and_those_whose_options_all_lose_the_same_are_left_out() -> None:
    grades = [PlayGrade(0, 0, True, 0.0, 0.0), PlayGrade(1, 0, False, 0.0, MATTERS / 2),
              PlayGrade(2, 0, False, 0.0, 3.0), PlayGrade(3, 0, False, 2.0, 3.0)]
    s = seat_signals("ann", 0, 0, grades, [1.0, 2.0, 3.0], 40, 1.0)
    assert (s.plays, s.mattered, s.agreed, s.lost) == (4, 2, 1, 2.0)
    assert from_dict(to_dict(MatchSignals("m", "v2", (s,)))).seats == (s,)
    assert time_regularity([2.0, 2.0, 2.0]) == 0.0 and time_regularity([1.0]) is None


def test_deep_plays_and_the_capped_loss_are_counted_apart() -> None:
    """A deep play: the expert's choice is not greedy's; a slip counts at most CAP."""
    grades = [PlayGrade(0, 0, False, 0.0, 3.0, obvious=False),
              PlayGrade(1, 0, False, 9.0, 12.0, obvious=False),
              PlayGrade(2, 0, False, 0.0, 3.0), PlayGrade(3, 0, False, 1.0, 0.2)]
    s = seat_signals("ann", 0, 0, grades, [], 0, 0.5)
    assert (s.mattered, s.agreed, s.deep, s.deep_agreed) == (3, 2, 2, 1)
    assert (s.lost, s.capped, s.capped_sq) == (9.0, CAP, CAP ** 2)
    older = {k: v for k, v in to_dict(MatchSignals("m", "v2", (s,)))["seats"][0].items()
             if k not in ("deep", "deep_agreed", "capped", "capped_sq")}
    kept = from_dict({"match_id": "m", "pool": "v2", "seats": [older]}).seats[0]
    assert (kept.deep, kept.capped) == (0, 0.0)  # signals kept before these were counted


def _population(rng: random.Random, cheat_rate: float, cheat_plays: int,
                matches: int = 40) -> tuple[list[MatchSignals], dict[str, float]]:
    """60 honest players (agreement 0.55 +- 0.03) and one 'cheat', all rated 1500."""
    out = []
    players = [f"h{i}" for i in range(60)]
    rate = {p: rng.gauss(0.55, 0.03) for p in players}
    for k in range(matches):
        seats = []
        for i, p in enumerate(players):
            n = 8
            seats.append(_seat(p, i, n, sum(rng.random() < rate[p] for _ in range(n))))
        n = cheat_plays // matches
        seats.append(_seat("cheat", 99, n, sum(rng.random() < cheat_rate for _ in range(n))))
        out.append(MatchSignals(f"m{k}", "v2", tuple(seats)))
    return out, {p: 1500.0 for p in [*players, "cheat"]}


def test_a_player_far_above_their_cohort_is_flagged_with_enough_plays_only() -> None:
    rng = random.Random(1)
    matches, ratings = _population(rng, 0.8, 400)
    seen = picture.players(matches, ratings)
    cheat = seen["cheat"]
    assert cheat.flagged and cheat.z is not None and cheat.z > 4
    assert cheat.cohort >= 30 and abs(cheat.cohort_agreement - 0.55) < 0.03
    assert not any(p.flagged for name, p in seen.items() if name != "cheat")
    few, ratings = _population(rng, 0.8, 40)  # the same play on a tenth of the plays
    small = picture.players(few, ratings)["cheat"]
    assert not small.flagged and small.se > cheat.se


def test_the_cohort_is_players_of_similar_rating() -> None:
    """Strong players agree more: a strong honest player is compared with the strong."""
    rng = random.Random(2)
    matches, seats = [], []
    ratings = {}
    for i in range(40):
        weak, strong = f"w{i}", f"s{i}"
        ratings[weak], ratings[strong] = 1200.0 + i, 2000.0 + i
        seats.append(_seat(weak, i, 200, sum(rng.random() < 0.4 for _ in range(200))))
        seats.append(_seat(strong, 100 + i, 200, sum(rng.random() < 0.8 for _ in range(200))))
    matches.append(MatchSignals("m", "v2", tuple(seats)))
    seen = picture.players(matches, ratings)
    assert not any(p.flagged for p in seen.values())
    assert abs(seen["s0"].cohort_agreement - 0.8) < 0.05


def test_a_rating_held_down_by_luck_is_lifted_by_its_uncertainty() -> None:
    """An honest strong player whose results lagged (rated among the weak, an uncertain
    rating): flagged against the weak; with the cohort lifted by a quarter of the
    rating's spread, compared with the strong and not flagged. A player as far above
    the strong, whatever their spread, still is."""
    rng = random.Random(3)
    seats, ratings = [], {}
    for i in range(40):
        for name, rating, rate in ((f"w{i}", 1200.0, 0.45), (f"s{i}", 1600.0, 0.6)):
            ratings[name] = rating + i
            seats.append(_seat(name, len(seats), 1000, sum(rng.random() < rate
                                                           for _ in range(1000))))
    seats.append(_seat("unlucky", 98, 1000, 600))  # plays as the strong do, rated 1,250
    seats.append(_seat("helped", 99, 1000, 750))  # far above the strong, rated 1,700
    ratings |= {"unlucky": 1250.0, "helped": 1700.0}
    matches = [MatchSignals("m", "v2", tuple(seats))]
    spreads = {p: 150.0 for p in ratings} | {"unlucky": 1600.0}
    level = picture.players(matches, ratings, picture.Thresholds(lift=0), spreads)
    assert level["unlucky"].flagged and level["helped"].flagged
    lifted = picture.players(matches, ratings, picture.Thresholds(), spreads)
    assert not lifted["unlucky"].flagged and lifted["helped"].flagged
    assert abs(lifted["unlucky"].cohort_agreement - 0.6) < 0.05


def test_a_pair_that_meets_often_one_sided_with_the_loser_playing_worse_is_flagged() -> None:
    matches = []
    others = [f"o{i}" for i in range(100)]
    for k in range(60):
        seats = [_seat(others[(k + i) % 100], i, 10, 5, 10.0) for i in range(40)]
        if k % 4 == 0:  # the pair meets every fourth round: the feeder throws
            seats += [_seat("feeder", 50, 10, 2, 40.0, result=0.0, score=10),
                      _seat("taker", 51, 10, 5, 10.0, result=1.0, score=60)]
            seats += [_seat("friend", 52, 10, 5, 10.0, result=0.5),
                      _seat("mate", 53, 10, 5, 10.0, result=0.5)]
        else:
            seats += [_seat("feeder", 50, 10, 5, 10.0), _seat(others[k % 100], 51, 10, 5),
                      _seat("taker", 52, 10, 5, 10.0), _seat(others[(k + 50) % 100], 53, 10, 5),
                      _seat("friend", 54, 10, 5), _seat(others[(k + 7) % 100], 55, 10, 5),
                      _seat("mate", 56, 10, 5), _seat(others[(k + 9) % 100], 57, 10, 5)]
        matches.append(MatchSignals(f"m{k}", "v2", tuple(seats)))
    # opponents: by team; make each pair its own 2-seat match instead
    split = []
    for m in matches:
        seats = list(m.seats)
        for j in range(0, len(seats) - 1, 2):
            a, b = seats[j], seats[j + 1]
            split.append(MatchSignals(f"{m.match_id}-{j}", "v2", (
                SeatSignals(**{**a.__dict__, "team": 0}),
                SeatSignals(**{**b.__dict__, "team": 1}))))
    pairs = {(p.winner, p.loser): p for p in picture.pairs(split)}
    dumped = pairs[("taker", "feeder")]
    assert dumped.flagged and dumped.meetings == 15 and dumped.wins == 15
    assert dumped.points == 15 * 50 and dumped.drop_z is not None and dumped.drop_z > 3
    friends = next(p for k, p in pairs.items() if set(k) == {"friend", "mate"})
    assert friends.meet_p < 1e-6 and not friends.flagged  # meeting often alone flags nobody


def test_poisson_tail() -> None:
    assert picture.poisson_tail(0, 2.0) == 1.0
    assert abs(picture.poisson_tail(1, 2.0) - (1 - 2.718281828 ** -2)) < 1e-9
    assert 0 < picture.poisson_tail(40, 0.5) < 1e-40
