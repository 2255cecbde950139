"""``python -m bench fairplay``: the fair-play detector (:mod:`service.fairplay`) against a
simulated population whose cheats are known.

A fixed population (``--players``, 1,000): honest players are the ladder's levels below
the expert (random .. intermediate), each with noise (a share of their plays, drawn per
player up to :data:`SLIP`, at random); assisted players (``--assisted``, 2%) are drawn
from the same levels and play the expert's move on ``--share`` (60%) of their plays, the
expert on a fixed search budget (:data:`EXPERT_WORLDS` worlds, no clock), so runs repeat;
dumping pairs (``--dumping``, 1% of players) meet in :data:`MEET` of their rounds and one
throws those matches (plays the move that scores least now, or hands the other most);
friends (as many) meet as often and play as they always do, so meeting often alone flags
nobody. Every player's think times come from one
distribution (log-normal), so timing cannot carry the result.

Every player plays one rated match a round (one deal-out to the end of the round:
``target_score`` 1, a front end's house rule, so a match is about 48 plays), paired at
random but for the arranged pairs; ratings are the service's (openskill, the players'
model). Each match's signals come from a cheaper review than the worker's
(:func:`service.bots.grading.cheap_evaluator`: the review's evaluator on :data:`WORLDS`
worlds instead of 100, every non-forced play, or ``--graded`` N picked at random a seat a
match), then
the service's own detector (:mod:`service.fairplay.picture`) judges each player on
their first 20, 50 and 100 matches. ``--confirm`` grades a smaller run (50 players x 20
matches) with both reviews, the cheap one and the worker's (the review's evaluator, its
worlds inferred from the others' plays), and says how far they agree.

The last line: one JSON object keyed by matches a player, each with precision, recall and
honest_flagged for players, pairs and both (per player: flagged alone or in a pair)."""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from service.bots import grading
from service.engine import load_variant
from service.engine.bots import make_expert, policy_named, random_policy
from service.engine.bots.heuristics import greedy_score
from service.engine.bots.registry import bot_rng
from service.engine.game import Move, State, apply_move, legal_moves, new_match
from service.engine.rules import team_of, with_house_rules
from service.engine.view import observe
from service.fairplay import picture
from service.fairplay.signals import MatchSignals, seat_signals
from service.players.ratings import MODEL, display_spread, skill_display

LEVELS = ("random", "novice", "casual", "greedy", "intermediate")
"""The ladder's levels below the expert."""
WEIGHTS = (0.1, 0.2, 0.3, 0.25, 0.15)
"""How many players are at each level (most in the middle)."""
SLIP = 0.25
"""The most of their plays a player makes at random (each player's share drawn up to it)."""
EXPERT_WORLDS = 100
"""The assisting expert's budget: the expert's own worlds, no clock."""
WORLDS = 12
"""The cheap review's worlds (the review's evaluator, worlds inferred from the others'
plays, on 12 worlds instead of 100)."""
MEET = 0.25
"""The share of rounds an arranged pair (dumping or friends) meets."""
PREFIXES = (20, 50, 100)
THINK = (1.2, 0.6)
"""Every player's think time: log-normal, median e^1.2 s, sigma 0.6."""


@dataclass(frozen=True)
class Player:
    id: str
    level: str
    slip: float
    assisted: bool = False
    thrower: bool = False
    """In a dumping pair, the one who throws its matches to the other."""


@dataclass(frozen=True)
class Game:
    match_id: str
    seed: bytes
    seats: tuple[Player, Player]
    dumping: bool
    """The seats are a dumping pair: the thrower throws."""


_expert = None
_evaluate = None
_graded = 0
_share = 0.6


def _init(graded: int, share: float, review: str) -> None:
    global _expert, _evaluate, _graded, _share
    _expert = make_expert(EXPERT_WORLDS)
    _evaluate = grading.review_evaluator() if review == "worker" \
        else grading.cheap_evaluator(WORLDS)
    _graded, _share = graded, share


RULES = with_house_rules(load_variant("egyptian-v2").rules, {"target_score": 1})


def _choose(player: Player, state: State, rng: random.Random, throwing: bool) -> Move:
    seat = state.turn
    assert seat is not None
    view = observe(state, seat)
    if throwing:  # the move that scores least now, or hands the next seat most
        unseen = view.unseen()
        return min(view.legal_moves, key=lambda m: greedy_score(view, m, unseen))
    if player.assisted and rng.random() < _share:
        assert _expert is not None
        return _expert(view, bot_rng(state))
    if rng.random() < player.slip:
        return random_policy(view, rng)
    return policy_named(player.level)(view, rng)


def play(game: Game) -> tuple[Game, State, list[Move]]:
    """The match played out."""
    rng = random.Random(game.seed)
    state = new_match(RULES, game.seed)
    start = state
    moves: list[Move] = []
    while not state.finished:
        seat = state.turn
        assert seat is not None
        player = game.seats[seat]
        move = _choose(player, state, rng, game.dumping and player.thrower)
        moves.append(move)
        state = apply_move(state, move)
    return game, start, moves


def signals(game: Game, start: State, moves: list[Move], evaluate: Any,
            graded: int) -> MatchSignals:
    """The match's signals: every non-forced play graded (or up to ``graded`` a seat), think times
    drawn from the one distribution."""
    rng = random.Random(game.seed + b"/graded")
    state = start
    choosable: dict[int, list[int]] = {0: [], 1: []}
    for index, move in enumerate(moves):
        if len(legal_moves(state)) > 1:
            choosable[move.seat].append(index)
        state = apply_move(state, move)
    picked = {i for seat in (0, 1) for i in (choosable[seat] if not graded else rng.sample(
        choosable[seat], min(graded, len(choosable[seat]))))}
    grades = grading.grade_match(start, moves, evaluate, lambda i, s: i in picked)
    end = state
    seats = []
    for seat, player in enumerate(game.seats):
        times = [rng.lognormvariate(*THINK) for m in moves if m.seat == seat]
        team = team_of(seat)
        result = 0.5 if end.draw else float(end.winner == team)
        seats.append(seat_signals(player.id, seat, team, [g for g in grades if g.seat == seat],
                                  times, end.scores[team], result))
    return MatchSignals(game.match_id, "egyptian-v2", tuple(seats))


def run_game(game: Game) -> MatchSignals:
    game, start, moves = play(game)
    return signals(game, start, moves, _evaluate, _graded)


def population(n: int, assisted: float, dumping: float, seed: int) -> list[Player]:
    rng = random.Random(f"fairplay-population/{seed}")
    people = [Player(f"p{i:04d}", rng.choices(LEVELS, WEIGHTS)[0], rng.uniform(0, SLIP))
              for i in range(n)]
    order = list(range(n))
    rng.shuffle(order)
    cheats = round(n * assisted)
    pairs = round(n * dumping / 2)
    for i in order[:cheats]:
        people[i] = replace(people[i], assisted=True)
    for k in range(pairs):  # a thrower, then the one it feeds
        people[order[cheats + 2 * k]] = replace(people[order[cheats + 2 * k]], thrower=True)
    return people


def arranged(n: int, assisted: float, dumping: float, seed: int) -> tuple[
        list[tuple[int, int]], list[tuple[int, int]]]:
    """(dumping pairs, friends) as indexes: thrower first."""
    rng = random.Random(f"fairplay-population/{seed}")
    for _ in range(n):
        rng.choices(LEVELS, WEIGHTS)
        rng.uniform(0, SLIP)
    order = list(range(n))
    rng.shuffle(order)
    cheats, pairs = round(n * assisted), round(n * dumping / 2)
    at = cheats
    dumps = [(order[at + 2 * k], order[at + 2 * k + 1]) for k in range(pairs)]
    at += 2 * pairs
    friends = [(order[at + 2 * k], order[at + 2 * k + 1]) for k in range(pairs)]
    return dumps, friends


def schedule(people: list[Player], rounds: int, dumps: list[tuple[int, int]],
             friends: list[tuple[int, int]], seed: int) -> list[list[Game]]:
    """Each round's matches: the arranged pairs that meet, the rest paired at random."""
    rng = random.Random(f"fairplay-schedule/{seed}")
    out = []
    for r in range(rounds):
        games: list[Game] = []
        busy: set[int] = set()
        for kind, pairs in (("d", dumps), ("f", friends)):
            for a, b in pairs:
                if rng.random() < MEET:
                    busy |= {a, b}
                    games.append((a, b, kind == "d"))  # type: ignore[arg-type]
        rest = [i for i in range(len(people)) if i not in busy]
        rng.shuffle(rest)
        games.extend((rest[k], rest[k + 1], False)  # type: ignore[misc]
                     for k in range(0, len(rest) - 1, 2))
        out.append([Game(f"m{r:03d}-{k:04d}",
                         hashlib.sha256(f"fairplay/{seed}/{r}/{k}".encode()).digest(),
                         (people[a], people[b]), dump)
                    for k, (a, b, dump) in enumerate(games)])  # type: ignore[misc]
    return out


def rate(ratings: dict[str, Any], match: MatchSignals) -> None:
    """The players' openskill ratings after the match."""
    a, b = match.seats
    ranks = [1, 1] if a.result == 0.5 else ([1, 2] if a.result == 1.0 else [2, 1])
    [[ra], [rb]] = MODEL.rate([[ratings[a.player]], [ratings[b.player]]], ranks=ranks)
    ratings[a.player], ratings[b.player] = ra, rb


def scores(flagged: set[Any], positive: set[Any], honest: int) -> dict[str, float]:
    true = len(flagged & positive)
    return {"precision": round(true / len(flagged), 3) if flagged else 1.0,
            "recall": round(true / len(positive), 3) if positive else 1.0,
            "honest_flagged": round(len(flagged - positive) / max(1, honest), 4),
            "flagged": len(flagged), "positives": len(positive)}


def judge(people: list[Player], rounds: list[list[MatchSignals]], k: int,
          dumps: list[tuple[int, int]], th: picture.Thresholds) -> dict[str, Any]:
    """The detector on each player's first ``k`` matches."""
    ratings = {p.id: MODEL.rating() for p in people}
    matches = [m for r in rounds[:k] for m in r]
    for m in matches:
        rate(ratings, m)
    display = {p: float(skill_display(r.mu)) for p, r in ratings.items()}
    spreads = {p: display_spread(r.sigma) for p, r in ratings.items()}
    seen = picture.players(matches, display, th, spreads)
    pairs = picture.pairs(matches, th)
    flagged = {p for p, pic in seen.items() if pic.flagged}
    cheats = {p.id for p in people if p.assisted}
    dumping = {frozenset((people[a].id, people[b].id)) for a, b in dumps}
    considered = {frozenset((q.winner, q.loser)) for q in pairs}
    pair_flags = {frozenset((q.winner, q.loser)) for q in pairs if q.flagged}
    in_pairs = {p for pair in pair_flags for p in pair}
    both_positive = cheats | {p for pair in dumping for p in pair}
    return {
        "players": scores(flagged, cheats, len(people) - len(cheats)),
        "pairs": scores(pair_flags, dumping, len(considered - dumping)),
        "both": scores(flagged | in_pairs, both_positive, len(people) - len(both_positive)),
    }


def simulate(args: argparse.Namespace, review: str = "cheap") -> tuple[
        list[Player], list[tuple[int, int]], list[list[MatchSignals]]]:
    people = population(args.players, args.assisted, args.dumping, args.seed)
    dumps, friends = arranged(args.players, args.assisted, args.dumping, args.seed)
    plan = schedule(people, args.matches, dumps, friends, args.seed)
    flat = [g for r in plan for g in r]
    with multiprocessing.get_context("fork").Pool(
            args.processes, _init, (args.graded, args.share, review)) as pool:
        done = []
        began = time.monotonic()
        for i, signals_of in enumerate(pool.imap(run_game, flat, chunksize=20)):
            done.append(signals_of)
            if (i + 1) % max(1, len(flat) // 20) == 0:
                print(f"  {i + 1}/{len(flat)} matches, {time.monotonic() - began:.0f} s",
                      flush=True)
    at = 0
    rounds = []
    for r in plan:
        rounds.append(done[at:at + len(r)])
        at += len(r)
    return people, dumps, rounds


def confirm(args: argparse.Namespace) -> dict[str, Any]:
    """The cheap review against the worker's on a smaller run: the same matches graded
    both ways."""
    small = argparse.Namespace(**{**vars(args), "players": 50, "matches": 20})
    people, dumps, cheap = simulate(small, "cheap")
    _, _, worker = simulate(small, "worker")
    a = [s for r in cheap for m in r for s in m.seats]
    b = [s for r in worker for m in r for s in m.seats]
    rate_a = {p.id: _rate(a, p.id) for p in people}
    rate_b = {p.id: _rate(b, p.id) for p in people}
    both = [(rate_a[p], rate_b[p]) for p in rate_a if rate_a[p] is not None
            and rate_b[p] is not None]
    corr = statistics.correlation([x for x, _ in both], [y for _, y in both])
    mattered = sum(s.mattered for s in a), sum(s.mattered for s in b)
    return {"players": small.players, "matches": small.matches,
            "agreement_correlation": round(corr, 3),
            "mean_abs_difference": round(statistics.fmean(abs(x - y) for x, y in both), 4),
            "mattered_cheap": mattered[0], "mattered_worker": mattered[1]}


def _rate(seats: Sequence[Any], player: str) -> float | None:
    mine = [s for s in seats if s.player == player]
    n = sum(s.mattered for s in mine)
    return sum(s.agreed for s in mine) / n if n else None


def main(argv: list[str]) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m bench fairplay")
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--assisted", type=float, default=0.02)
    parser.add_argument("--share", type=float, default=0.6)
    parser.add_argument("--dumping", type=float, default=0.01)
    parser.add_argument("--graded", type=int, default=0,
                        help="non-forced plays graded a seat a match (0: every one)")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--confirm", action="store_true")
    parser.add_argument("--keep", help="a file the simulated signals are pickled to")
    parser.add_argument("--judge", help="judge the signals pickled by --keep (no simulation)")
    args = parser.parse_args(argv)
    th = picture.Thresholds()
    started = time.monotonic()
    cpu = time.process_time()
    if args.confirm:
        out = confirm(args)
        print(f"fairplay confirm: {out}")
        return {"confirm": out}
    if args.judge:
        import pickle
        with open(args.judge, "rb") as kept:
            people, dumps, rounds = pickle.load(kept)
        args.matches = len(rounds)
    else:
        people, dumps, rounds = simulate(args)
    if args.keep:
        import pickle
        with open(args.keep, "wb") as out:
            pickle.dump((people, dumps, rounds), out)
    simulated = time.monotonic() - started
    figures: dict[str, Any] = {}
    for k in PREFIXES:
        if k <= args.matches:
            figures[str(k)] = judge(people, rounds, k, dumps, th)
            print(f"fairplay {k} matches: {json.dumps(figures[str(k)])}")
    made = f"judged again from {args.judge}" if args.judge else \
        f"simulated and graded in {simulated:.0f} s on {args.processes} processes"
    print(f"fairplay: {len(people)} players x {args.matches} matches, {made}, judged in "
          f"{time.monotonic() - started - simulated:.1f} s (main CPU "
          f"{time.process_time() - cpu:.0f} s)")
    return figures


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])))
