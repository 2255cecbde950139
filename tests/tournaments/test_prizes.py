"""A tournament's prizes, pure (issue 57, item 4): places paid by the distribution,
players level on points sharing their places' percentages, and never a coin more than
the pool; what is left over is the house's."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from service.tournaments.prizes import Finisher, shares, tied_groups


def _ranked(*points: float) -> list[Finisher]:
    return [Finisher(f"p{n}", p) for n, p in enumerate(points, 1)]


def test_places_are_paid_by_the_distribution_the_rest_to_the_house() -> None:
    assert shares(1000, [50, 30, 20], _ranked(3, 2, 1, 0)) == {"p1": 500, "p2": 300, "p3": 200}
    # a percentage that does not divide: the odd coin stays in the pool (the house's)
    assert shares(101, [50, 30, 20], _ranked(3, 2, 1)) == {"p1": 50, "p2": 30, "p3": 20}


def test_players_level_on_points_share_the_places_they_cover() -> None:
    # p2 and p3 level for second: (30 + 20) / 2 each
    assert shares(1000, [50, 30, 20], _ranked(3, 2, 2, 0)) == {"p1": 500, "p2": 250, "p3": 250}
    # three level for third, two places paid beyond it: 20% / 3 each, the odd coin the house's
    assert shares(1000, [50, 30, 20], _ranked(3, 2, 1, 1, 1)) == {
        "p1": 500, "p2": 300, "p3": 66, "p4": 66, "p5": 66}
    # everybody level: the whole distribution split evenly
    assert shares(900, [50, 30, 20], _ranked(1, 1, 1)) == {"p1": 300, "p2": 300, "p3": 300}


def test_places_nobody_holds_and_withdrawn_players_are_not_paid() -> None:
    assert shares(1000, [50, 30, 20], _ranked(1, 0)) == {"p1": 500, "p2": 300}
    standings = [Finisher("a", 3, withdrawn=True), Finisher("b", 2), Finisher("c", 1)]
    assert shares(1000, [60, 40], standings) == {"b": 600, "c": 400}
    assert tied_groups(standings) == [["b"], ["c"]]


def test_half_points_and_rounded_matchpoints_tie_as_they_show() -> None:
    assert tied_groups(_ranked(2.5, 2.5, 0.1 + 0.2, 0.3)) == [["p1", "p2"], ["p3", "p4"]]


@given(pool=st.integers(0, 10**12),
       percents=st.lists(st.integers(0, 100), min_size=1, max_size=8).filter(
           lambda p: sum(p) <= 100),
       points=st.lists(st.integers(0, 4), max_size=12))
def test_never_more_than_the_pool_and_the_distribution_allows(
        pool: int, percents: list[int], points: list[int]) -> None:
    ranked = _ranked(*sorted(points, reverse=True))
    paid = shares(pool, percents, ranked)
    assert all(amount > 0 for amount in paid.values())
    assert sum(paid.values()) <= pool * sum(percents) // 100
    if len(set(points)) == len(points):  # nobody level: each place its own percentage
        assert paid == {f"p{n}": pool * pc // 100 for n, pc in enumerate(percents, 1)
                        if n <= len(points) and pool * pc // 100 > 0}
