"""Self-play: run matches between policies and summarise what players care about."""

from __future__ import annotations

import gc
import hashlib
import math
import random
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from .board import Board
from .bots import Policy, policy_named
from .game import apply_move, new_match
from .rules import Rules, team_of
from .state import RoundResult
from .view import observe


@dataclass
class SimulationReport:
    """Totals of a simulation; the derived figures are properties."""

    policies: tuple[str, ...]
    matches: int = 0
    rounds: int = 0
    plies: int = 0
    seconds: float = 0.0
    wins: list[int] = field(default_factory=list)
    """Matches won per policy slot (slots alternate seats from match to match)."""
    draws: int = 0
    match_points: list[int] = field(default_factory=lambda: [0, 0])
    """Final scores summed per policy slot over finished matches."""
    first_player_wins: int = 0
    basras: int = 0
    points: int = 0
    match_rounds: int = 0

    @property
    def rounds_per_second(self) -> float:
        """Rounds played per wall-clock second."""
        return self.rounds / self.seconds if self.seconds else 0.0

    def win_rate(self, slot: int) -> tuple[float, float, float]:
        """Share of finished matches slot won, with a 95% Wilson interval."""
        return wilson(self.wins[slot], self.matches)

    def as_dict(self) -> dict[str, object]:
        """The figures as JSON-able data."""
        finished = max(self.matches, 1)
        rounds = max(self.rounds, 1)
        return {
            "policies": list(self.policies),
            "matches": self.matches,
            "rounds": self.rounds,
            "seconds": round(self.seconds, 3),
            "rounds_per_second": round(self.rounds_per_second, 1),
            "first_player_win_rate": round(self.first_player_wins / finished, 4),
            "draws": self.draws,
            "mean_basras_per_round": round(self.basras / rounds, 4),
            "mean_points_per_round": round(self.points / rounds, 3),
            "mean_match_rounds": round(self.match_rounds / finished, 3),
            "mean_match_points": {
                f"{i}:{p}": round(self.match_points[i] / finished, 2)
                for i, p in enumerate(self.policies)
            },
            "win_rates": {
                f"{i}:{p}": [round(x, 4) for x in self.win_rate(i)]
                for i, p in enumerate(self.policies)
            },
        }


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float, float]:
    """Proportion and its Wilson score interval."""
    if n == 0:
        return (0.0, 0.0, 0.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (p, max(0.0, centre - half), min(1.0, centre + half))


def match_seed(seed: str, index: int) -> bytes:
    """The deck seed of the ``index``-th simulated match: SHA-256 of seed and index."""
    return hashlib.sha256(f"{seed}/{index}".encode()).digest()


def simulate(
    rules: Rules,
    seed: str,
    policies: Sequence[str] = ("random", "random"),
    rounds: int | None = None,
    matches: int | None = None,
    first_match: int = 0,
) -> SimulationReport:
    """Play until ``rounds`` rounds or ``matches`` matches are done.

    Policy slot ``i`` sits at seat ``(i + m) % 2`` (and its partner seat in
    4-player games) in match ``m``, so both policies lead equally often.
    Unfinished matches count towards rounds but not towards win rates. Each match
    draws its deals and moves from its own index (:func:`match_seed`), so a match
    plays the same whether it runs here or in :func:`simulate_parallel`.
    """
    if len(policies) != 2:
        raise ValueError("give two policies, one per team")
    chosen: list[Policy] = [policy_named(p) for p in policies]
    report = SimulationReport(tuple(policies), wins=[0, 0])
    fast_random = all(p == "random" for p in policies)
    with _older_objects_frozen():
        started = time.perf_counter()
        m = first_match
        while (rounds is None or report.rounds < rounds) and (
            matches is None or m < first_match + matches
        ):
            state = new_match(rules, match_seed(seed, m))
            board = Board(state)
            rng = random.Random(f"{seed}/{m}")
            done_rounds = 0
            while not board.finished and (rounds is None or report.rounds < rounds):
                seat = board.turn
                assert seat is not None
                before = board.round
                if fast_random:  # uniform like random_policy, without building a view: a round
                    draw = rng.random
                    while board.round == before and not board.finished:
                        board.play_at(draw())
                        report.plies += 1
                else:
                    slot = (team_of(seat) + m) % 2
                    state = apply_move(state, chosen[slot](observe(state, seat), rng))
                    board = Board(state)
                    report.plies += 1
                if board.round != before or board.finished:
                    _count_round(report, board.results[-1])
                    done_rounds += 1
            if board.finished:
                report.matches += 1
                report.match_rounds += done_rounds
                for team, score in enumerate(board.scores):
                    report.match_points[(team + m) % 2] += score
                if board.winner is None:
                    report.draws += 1
                else:
                    report.wins[(board.winner + m) % 2] += 1
                    report.first_player_wins += board.winner == 0
            m += 1
    report.seconds = time.perf_counter() - started
    return report


@contextmanager
def _older_objects_frozen() -> Iterator[None]:
    """Keep the cyclic collector off everything that existed before the run (modules, the
    capture tables made so far): scanning them again every few thousand plays cost about
    a fifth of a random-play run, measured. What the run makes is collected as usual."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _merge(into: SimulationReport, part: SimulationReport) -> None:
    for name in ("matches", "rounds", "plies", "draws", "first_player_wins", "basras", "points",
                 "match_rounds"):
        setattr(into, name, getattr(into, name) + getattr(part, name))
    into.wins = [a + b for a, b in zip(into.wins, part.wins, strict=True)]
    into.match_points = [
        a + b for a, b in zip(into.match_points, part.match_points, strict=True)
    ]


def _one_match(args: tuple[Rules, str, tuple[str, ...], int]) -> SimulationReport:
    rules, seed, policies, index = args
    return simulate(rules, seed, policies, matches=1, first_match=index)


def simulate_parallel(
    rules: Rules, seed: str, policies: Sequence[str], matches: int, jobs: int
) -> SimulationReport:
    """``matches`` whole matches spread over ``jobs`` processes: the same counts as
    :func:`simulate` with ``matches=`` (each match depends only on its index); only
    ``seconds`` differs."""
    from multiprocessing import Pool

    report = SimulationReport(tuple(policies), wins=[0, 0])
    started = time.perf_counter()
    with Pool(jobs) as pool:
        tasks = [(rules, seed, tuple(policies), m) for m in range(matches)]
        for part in pool.imap_unordered(_one_match, tasks):
            _merge(report, part)
    report.seconds = time.perf_counter() - started
    return report


def _count_round(report: SimulationReport, result: RoundResult) -> None:
    report.rounds += 1
    report.basras += sum(result.basras) + sum(result.jack_basras)
    report.points += sum(result.points)
