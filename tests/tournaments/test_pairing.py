"""Swiss pairing and standings, pure (issue "Tournaments", item 2), as hypothesis
invariants: everybody plays once a round or has the bye, byes go to the lowest placed
without one, and no two players meet again while a pairing without a repeat exists."""

from __future__ import annotations

import random

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from service.tournaments import pairing
from service.tournaments.pairing import Game


def _perfect_without_repeats(players: list[str], met: set[frozenset[str]]) -> bool:
    graph = nx.Graph()
    graph.add_nodes_from(players)
    graph.add_edges_from((a, b) for i, a in enumerate(players) for b in players[i + 1:]
                         if frozenset((a, b)) not in met)
    return 2 * len(nx.max_weight_matching(graph, maxcardinality=True)) == len(players)


@settings(max_examples=60, deadline=None)
@given(count=st.integers(2, 24), rounds=st.integers(1, 7), seed=st.integers(0, 10**6))
def test_every_round_seats_everybody_once_without_avoidable_repeats(
        count: int, rounds: int, seed: int) -> None:
    rng = random.Random(seed)
    players = [f"p{i}" for i in range(count)]
    games: list[Game] = []
    met: set[frozenset[str]] = set()
    byes: list[str] = []
    for number in range(1, rounds + 1):
        order = pairing.standings(players, pairing.swiss_results(games))
        planned = pairing.swiss_round(order, number)
        seated = [p for pair in planned.pairs for p in pair] + ([planned.bye] if planned.bye else [])
        assert sorted(seated) == sorted(players)
        assert (planned.bye is not None) == (count % 2 == 1)
        if planned.bye is not None:
            without = [s.player_id for s in order if s.player_id not in byes]
            assert planned.bye == (without[-1] if without else order[-1].player_id)
            byes.append(planned.bye)
            games.append(Game(planned.bye, None, None))
        rest = [p for p in players if p != planned.bye]
        if _perfect_without_repeats(rest, met):
            assert not any(frozenset(pair) in met for pair in planned.pairs), planned
        for a, b in planned.pairs:
            met.add(frozenset((a, b)))
            draw = rng.random() < 0.1
            games.append(Game(a, b, None if draw else rng.choice([a, b]), draw))
    final = pairing.standings(players, pairing.swiss_results(games))
    assert sum(s.points for s in final) == len([g for g in games])  # 1 a game or a bye
    assert [s.rank for s in final] == list(range(1, count + 1))


def test_the_arena_doubles_a_win_after_two_wins_in_a_row() -> None:
    games = [Game("a", "b", "a"), Game("a", "c", "a"), Game("a", "b", "a"),
             Game("a", "c", None, draw=True), Game("a", "b", "a")]
    counted = pairing.arena_results(games)
    assert [g.first_points for g in counted] == [2, 2, 4, 1, 2]
    assert [g.second_points for g in counted] == [0, 0, 0, 1, 0]


def test_duplicate_matchpoints_compare_each_deal_with_the_same_cards_elsewhere() -> None:
    from service.tournaments.pairing import Table, duplicate_standings, matchpoints

    # one round, one deal, three tables: team 0's margins 10, 0 and 0
    tables = [Table(1, ("a", "b"), ((20, 10),), 0, False, 1),
              Table(1, ("c", "d"), ((5, 5),), None, True, 1),
              Table(1, ("e", "f"), ((5, 5),), None, True, 1)]
    assert matchpoints(tables) == {"a": 4, "b": 0, "c": 1, "d": 3, "e": 1, "f": 3}
    # a side that concedes before its last deal loses it to every table, the other wins it
    two = [Table(1, ("a", "b"), ((10, 0), (0, 10)), None, True, 2),
           Table(1, ("c", "d"), ((10, 0),), 0, False, 2, conceded=1)]
    assert matchpoints(two) == {"a": 1 + 0, "b": 1 + 2, "c": 1 + 2, "d": 1 + 0}
    # who sits out scores the round's average a player
    ranked = duplicate_standings(["a", "b", "c", "d", "e", "f", "g"], tables, {1: ["g"]})
    rows = {s.player_id: s for s in ranked}
    assert rows["g"].points == round(12 / 6, 2) and rows["g"].byes == 1
    assert [s.player_id for s in ranked][:2] == ["a", "d"]
