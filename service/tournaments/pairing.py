"""Standings and pairings, pure: games in, standings and the next pairings out.

Swiss: 1 point a win, half a draw, 0 a loss, 1 a bye; standings by points, then
Buchholz (the points of everyone they played), then Sonneborn-Berger (the points of
everyone they beat, half of those they drew with), then rating. A round pairs by
maximum-weight matching (networkx's blossom algorithm) over the active players: a pair
weighs less the further apart their scores (score groups first), the further apart
their places, and when both are due to play first (or second); a pair that met
before is an edge only when no matching without one pairs everybody.

Arena: 2 points a win, 1 a draw, 0 a loss; a win after two wins in a row counts
double (4), for as long as the streak lasts. A free player
is paired with the free player nearest in standing who was not their last opponent;
last opponents meet again only once one of them has waited ``rematch_after`` seconds.

Duplicate: every table of a round deals the same cards; each deal's margin for a team is
compared with the other tables' for the same seats' cards (matchpoints: 2 for each
beaten, 1 for each tied; a side that conceded loses the deals left); a player who sat
a round out, or whose table was voided, scores the round's average; standings by
matchpoints, then rating.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

NEIGHBOURS = 16
"""A Swiss player's candidate opponents: this many nearest in standing not met yet,
doubled until everybody can be paired (256 players with all edges: 3 s; with 16: 0.15 s)."""


@dataclass(frozen=True)
class Game:
    """A finished game (or a bye, ``second`` None) of a tournament."""

    first: str
    second: str | None
    winner: str | None
    draw: bool = False
    first_points: float = 0.0
    second_points: float = 0.0


@dataclass
class Standing:
    """One player's line of the standings."""

    player_id: str
    points: float = 0.0
    buchholz: float = 0.0
    sonneborn_berger: float = 0.0
    rating: float | None = None
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    firsts: int = 0
    """Games they played first (seat 0)."""
    streak: int = 0
    """Wins in a row at the end (the arena's streak)."""
    opponents: list[str] = field(default_factory=list)
    rank: int = 0
    withdrawn: bool = False


def swiss_results(games: Sequence[Game]) -> list[Game]:
    """Swiss games with their points: 1 a win or a bye, half a draw, 0 a loss."""
    def points(g: Game, me: str) -> float:
        return 1.0 if g.second is None or g.winner == me else 0.5 if g.draw else 0.0

    return [Game(g.first, g.second, g.winner, g.draw, points(g, g.first),
                 0.0 if g.second is None else points(g, g.second)) for g in games]


def arena_points(won: bool, drew: bool, streak: int) -> float:
    """An arena result's points for a player with ``streak`` wins in a row before it."""
    if won:
        return 4.0 if streak >= 2 else 2.0
    return 1.0 if drew else 0.0


def standings(players: Sequence[str], games: Sequence[Game],
              ratings: Mapping[str, float] | None = None,
              withdrawn: Sequence[str] = ()) -> list[Standing]:
    """Everybody's standing after ``games`` (in the order played), ranked. The points
    are those the games carry (``first_points``, ``second_points``): Swiss or arena
    points, as the tournament counted them."""
    rows = {p: Standing(p, rating=(ratings or {}).get(p), withdrawn=p in withdrawn)
            for p in players}
    for g in games:
        first = rows[g.first]
        first.points += g.first_points
        if g.second is None:
            first.byes += 1
            continue
        second = rows[g.second]
        second.points += g.second_points
        first.firsts += 1
        for me, other in ((first, second), (second, first)):
            me.games += 1
            me.opponents.append(other.player_id)
            if g.draw:
                me.draws += 1
                me.streak = 0
            elif g.winner == me.player_id:
                me.wins += 1
                me.streak += 1
            else:
                me.losses += 1
                me.streak = 0
    for g in games:
        if g.second is None:
            continue
        first, second = rows[g.first], rows[g.second]
        for me, other in ((first, second), (second, first)):
            me.buchholz += other.points
            if g.draw:
                me.sonneborn_berger += other.points / 2
            elif g.winner == me.player_id:
                me.sonneborn_berger += other.points
    ranked = sorted(rows.values(), key=lambda s: (
        -s.points, -s.buchholz, -s.sonneborn_berger,
        -(s.rating if s.rating is not None else float("-inf")), s.player_id))
    for place, row in enumerate(ranked, 1):
        row.rank = place
    return ranked


@dataclass(frozen=True)
class Round:
    """A Swiss round's pairings (first player, second player) and its bye."""

    pairs: list[tuple[str, str]]
    bye: str | None


def _bye(order: Sequence[Standing]) -> str | None:
    """The lowest-placed player without a bye (everybody has had one: the lowest)."""
    if len(order) % 2 == 0:
        return None
    for row in reversed(order):
        if row.byes == 0:
            return row.player_id
    return order[-1].player_id


def _due(row: Standing) -> int:
    """+1: due to play first, -1: second, 0: either (firsts minus seconds)."""
    balance = row.firsts - (row.games - row.firsts)
    return -1 if balance > 0 else 1 if balance < 0 else 0


def _weight(a: Standing, b: Standing, place: Mapping[str, int], repeat: bool) -> int:
    score = round(abs(a.points - b.points) * 2)
    clash = 1 if _due(a) != 0 and _due(a) == _due(b) else 0
    return (1_000_000_000 - 100_000 * score * score - 1_000 * clash
            - abs(place[a.player_id] - place[b.player_id])
            - (500_000_000 if repeat else 0))


def _graph(order: Sequence[Standing], neighbours: int | None) -> nx.Graph:
    """Candidate pairs: each player's ``neighbours`` nearest in standing not met yet (all
    of them with None, and then pairs that met before too, weighing far less)."""
    import networkx as nx  # loaded at the first Swiss round, not at every process's start

    place = {row.player_id: i for i, row in enumerate(order)}
    graph = nx.Graph()
    graph.add_nodes_from(place)
    for i, a in enumerate(order):
        met = set(a.opponents)
        added = 0
        for b in order[i + 1:]:
            if neighbours is not None and added >= neighbours:
                break
            repeat = b.player_id in met
            if repeat and neighbours is not None:
                continue
            graph.add_edge(a.player_id, b.player_id, weight=_weight(a, b, place, repeat))
            added += 1
    return graph


def _seats(a: Standing, b: Standing, round_number: int) -> tuple[str, str]:
    """Who of a pair plays first: the one more due to (fewer firsts than seconds), then
    the one who did not play first last time... else the higher placed in odd rounds."""
    if _due(a) != _due(b):
        return (a.player_id, b.player_id) if _due(a) > _due(b) else (b.player_id, a.player_id)
    higher, lower = (a, b) if a.rank <= b.rank else (b, a)
    if round_number % 2:
        return higher.player_id, lower.player_id
    return lower.player_id, higher.player_id


def swiss_round(order: Sequence[Standing], round_number: int) -> Round:
    """The next round's pairings of the active players in ``order`` (the standings, best
    first, withdrawn players left out)."""
    bye = _bye(order)
    playing = [row for row in order if row.player_id != bye]
    if not playing:
        return Round([], bye)
    by_id = {row.player_id: row for row in playing}
    neighbours: int | None = NEIGHBOURS
    from networkx import max_weight_matching

    while True:
        matched = max_weight_matching(_graph(playing, neighbours), maxcardinality=True)
        if 2 * len(matched) == len(playing) or neighbours is None:
            break
        neighbours = neighbours * 2 if neighbours * 2 < len(playing) else None
    pairs = [_seats(by_id[a], by_id[b], round_number) for a, b in matched]
    place = {row.player_id: i for i, row in enumerate(playing)}
    pairs.sort(key=lambda pair: min(place[pair[0]], place[pair[1]]))
    return Round(pairs, bye)


def arena_pairs(free: Sequence[Standing], last_opponent: Mapping[str, str],
                waited: Mapping[str, float], rematch_after: float) -> list[tuple[str, str]]:
    """Pairs of the free players (``free`` in standing order, best first): each, from the
    top, with the nearest free player below or above who was not their last opponent;
    last opponents only once one of them has waited ``rematch_after`` seconds."""
    left = [row.player_id for row in free]
    by_id = {row.player_id: row for row in free}
    pairs: list[tuple[str, str]] = []
    while len(left) >= 2:
        me = left.pop(0)
        choice = next((other for other in left if last_opponent.get(me) != other
                       and last_opponent.get(other) != me), None)
        if choice is None and max(waited.get(me, 0.0), waited.get(left[0], 0.0)) \
                >= rematch_after:
            choice = left[0]
        if choice is None:
            continue
        left.remove(choice)
        a, b = by_id[me], by_id[choice]
        pairs.append((a.player_id, b.player_id) if _due(a) >= _due(b)
                     else (b.player_id, a.player_id))
    return pairs


def last_opponents(games: Sequence[Game]) -> dict[str, str]:
    """Each player's latest opponent (games in the order played)."""
    last: dict[str, str] = {}
    for g in games:
        if g.second is not None:
            last[g.first], last[g.second] = g.second, g.first
    return last


def arena_results(games: Sequence[Game]) -> list[Game]:
    """Arena games with their points counted in order (the streak doubling)."""
    streak: dict[str, int] = defaultdict(int)
    counted = []
    for g in games:
        assert g.second is not None, "an arena has no byes"
        points = []
        for me in (g.first, g.second):
            won = not g.draw and g.winner == me
            points.append(arena_points(won, g.draw, streak[me]))
            streak[me] = streak[me] + 1 if won else 0
        counted.append(Game(g.first, g.second, g.winner, g.draw, points[0], points[1]))
    return counted


# --- duplicate events -------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """A duplicate event's finished table: its round, its players by seat, each deal's
    points per team, its result (the winning team, or a draw), the deals it was to play
    and the team that conceded the rest, if it ended before them."""

    round: int
    seats: tuple[str, ...]
    deals: tuple[tuple[int, ...], ...]
    winner: int | None
    draw: bool
    planned: int = 0
    conceded: int | None = None


CONCEDED = 10**6
"""A conceded deal's margin: below (for the side that conceded) or above any played."""


def duplicate_tables(players: Sequence[str], size: int, secret: str,
                     sat_out: Mapping[str, int]) -> tuple[list[tuple[str, ...]], list[str]]:
    """A duplicate round's tables (players by seat) and who sits out: the players in an
    order drawn from the round's ``secret`` (its seed, unknown before the end of the
    round), those who sat out least leaving the round when some are left over; the
    rest in tables, seated in the drawn order."""
    drawn = sorted(players, key=lambda p: hashlib.sha256(f"{secret}:{p}".encode()).hexdigest())
    left = len(drawn) % size
    by_turn = sorted(drawn, key=lambda p: -sat_out.get(p, 0))  # stable: the draw within
    out = by_turn[len(by_turn) - left:] if left else []
    playing = [p for p in drawn if p not in out]
    return [tuple(playing[at:at + size]) for at in range(0, len(playing), size)], out


def matchpoints(tables: Sequence[Table]) -> dict[str, float]:
    """Each player's matchpoints over every round (:func:`round_matchpoints`)."""
    scored: dict[str, float] = defaultdict(float)
    for by_player in round_matchpoints(tables).values():
        for player, points in by_player.items():
            scored[player] += points
    return scored


def round_matchpoints(tables: Sequence[Table]) -> dict[int, dict[str, float]]:
    """Each round's matchpoints of each player: for every deal, each table's margin for a
    team (its points less the other team's in that deal) is compared with the margins of
    the other tables of the round for the same team, that is the same seats' cards: 2
    for each it beat, 1 for each it tied; every player of the team scores them. A deal a
    table did not play because one side conceded is lost by that side to every table."""
    margins: dict[tuple[int, int, int], list[tuple[int, int]]] = defaultdict(list)
    for number, table in enumerate(tables):
        for deal in range(max(table.planned, len(table.deals))):
            for team in (0, 1):
                if deal < len(table.deals):
                    points = table.deals[deal]
                    margin = points[team] - points[1 - team]
                else:
                    margin = -CONCEDED if team == table.conceded else CONCEDED
                margins[(table.round, deal, team)].append((number, margin))
    scored: dict[int, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for (number_of_round, _, team), entries in margins.items():
        for number, margin in entries:
            earned = sum(2 if margin > other else 1 if margin == other else 0
                         for at, other in entries if at != number)
            for seat, player in enumerate(tables[number].seats):
                if seat % 2 == team:
                    scored[number_of_round][player] += earned
    return scored


def duplicate_standings(players: Sequence[str], tables: Sequence[Table],
                        excused: Mapping[int, Sequence[str]],
                        ratings: Mapping[str, float] | None = None,
                        withdrawn: Sequence[str] = ()) -> list[Standing]:
    """Everybody's standing by matchpoints (:func:`matchpoints`), then rating: ``games``
    the tables played, wins, draws and losses their team's results there. A player
    ``excused`` from a round (round -> players: sat out, or their table was voided)
    scores the round's average a player (``byes`` counts the rounds sat out or voided)."""
    by_round = round_matchpoints(tables)
    rows = {p: Standing(p, rating=(ratings or {}).get(p), withdrawn=p in withdrawn)
            for p in players}
    for scored in by_round.values():
        for player, points in scored.items():
            if player in rows:
                rows[player].points += points
    for number, who in excused.items():
        seated = [p for table in tables if table.round == number for p in table.seats]
        if not seated:
            continue
        per_player = sum(by_round[number].values()) / len(seated)
        for player in who:
            if player in rows:
                rows[player].points += round(per_player, 2)
                rows[player].byes += 1
    for table in tables:
        for seat, player in enumerate(table.seats):
            me = rows.get(player)
            if me is None:
                continue
            me.games += 1
            me.firsts += seat == 0
            me.opponents.extend(p for s, p in enumerate(table.seats) if s % 2 != seat % 2)
            if table.draw:
                me.draws += 1
            elif table.winner == seat % 2:
                me.wins += 1
            else:
                me.losses += 1
    ranked = sorted(rows.values(), key=lambda s: (
        -s.points, -(s.rating if s.rating is not None else float("-inf")), s.player_id))
    for place, row in enumerate(ranked, 1):
        row.rank = place
    return ranked
