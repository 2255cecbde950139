"""Computer opponents. A policy sees only a :class:`SeatView`, never hidden cards.

Every policy is ``policy(view, rng, pause) -> Move`` with ``rng`` a seeded
:class:`random.Random`, so a match with bots still replays exactly. A policy that
searches calls ``pause()`` between steps, so a caller serving others meanwhile (a
gevent worker) can let them run; ``pause()`` answers whether the search must stop now
(a caller's CPU budget is spent): the policy then plays the best move it has found so
far. A pause that never says stop changes nothing, and ``pause`` may be left out.
(The moves a match's bots played are kept in its move log, so a budget cut that
depends on the machine's speed never changes how a stored match replays.)
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from math import comb, exp, log
from typing import Protocol

from .board import Board
from .captures import Outcome, capturer_for
from .cards import DECK, RANKS, SEVEN_OF_DIAMONDS, Card
from .game import Move, Play, State, apply_move, check_move
from .rules import Rules, derived, points_by_card, team_of
from .view import SeatView, observe

_JACK_RANK = RANKS.index("J")

Pause = Callable[[], bool]
"""Called by a searching policy between steps; True: stop searching now (see the
module's docstring)."""


def no_pause() -> bool:
    """The pause of a caller that has nothing else to run and no budget."""
    return False


class Policy(Protocol):
    """``policy(view, rng, pause) -> Move``."""

    def __call__(self, view: SeatView, rng: random.Random, pause: Pause = ..., /) -> Move: ...


def random_policy(view: SeatView, rng: random.Random, pause: Pause = no_pause, /) -> Move:
    """A uniformly random legal move."""
    moves = view.legal_moves
    return moves[rng.randrange(len(moves))]


def _cards_value(rules: Rules, cards: Sequence[Card]) -> float:
    """What taking ``cards`` is worth: each about its share of the most-cards bonus, plus
    its card points."""
    value = len(cards) * rules.scoring.most_cards / 26.0
    if rules.scoring.cards:
        worth = derived(rules, points_by_card)
        value += sum(worth[c] for c in cards)
    return value


def _is_sweeper(card: Card) -> bool:
    """A jack or the 7D: worth keeping for a capture rather than throwing away."""
    return card >> 2 == _JACK_RANK or card == SEVEN_OF_DIAMONDS


def _move_gain(view: SeatView, move: Move) -> float:
    """Points a move earns at once: cards taken, card points and basra bonus."""
    rules = view.rules
    capture = move.capture or ()
    if not capture:
        return 0.0
    outcome = next(
        o for o in capturer_for(rules).outcomes(move.card, view.floor) if o.capture == capture
    )
    return _taken_points(rules, move.card, outcome)


def _taken_points(rules: Rules, card: Card, outcome: Outcome) -> float:
    """What ``card`` taking ``outcome``'s capture earns: the cards (:func:`_cards_value`)
    and the basra bonus."""
    gain = _cards_value(rules, (*outcome.capture, card))
    if outcome.basra == "basra":
        gain += rules.scoring.basra
    elif outcome.basra == "jack_basra":
        gain += rules.scoring.jack_basra
    return gain


def _chance_of_any(unseen: int, wanted: int, hand: int) -> float:
    """The chance that a hand of ``hand`` cards dealt from ``unseen`` holds at least one
    of ``wanted`` of them."""
    return 1.0 - comb(unseen - wanted, hand) / comb(unseen, hand) if unseen >= hand else 1.0


def basra_risk(view: SeatView, floor: tuple[Card, ...], unseen: frozenset[Card]) -> float:
    """Expected basra points the next seat scores on ``floor`` (chance it holds a card)."""
    if not floor or view.turn is None:
        return 0.0
    rules = view.rules
    capturer = capturer_for(rules)
    threats = 0
    points = 0.0
    for card in unseen:
        outcome = capturer.outcomes(card, floor)[0]
        if outcome.basra is not None and len(outcome.capture) == len(floor):
            threats += 1
            value = rules.scoring.basra if outcome.basra == "basra" else rules.scoring.jack_basra
            points = max(points, float(value))
    if not threats:
        return 0.0
    nxt = (view.turn + 1) % view.players
    hand = view.hand_counts[nxt] or min(rules.hand_size, len(unseen))
    n = len(unseen)
    return _chance_of_any(n, threats, min(hand, n)) * points


def _floor_after(view: SeatView, move: Move) -> tuple[Card, ...]:
    if move.capture:
        gone = set(move.capture)
        return tuple(c for c in view.floor if c not in gone)
    return (*view.floor, move.card)


def _greedy_score(view: SeatView, move: Move, unseen: frozenset[Card]) -> float:
    """Points now, less the basra the move may hand the next seat; a jack or the 7D is
    worth keeping rather than throwing away on a floor it cannot take from."""
    score = _move_gain(view, move) - basra_risk(view, _floor_after(view, move), unseen)
    if not move.capture and _is_sweeper(move.card):
        score -= 0.5
    return score


def greedy_policy(view: SeatView, rng: random.Random, pause: Pause = no_pause, /) -> Move:
    """The move that scores best now, less the basra it may hand the next seat (see
    :func:`_greedy_score`); ties are broken at random."""
    unseen = view.unseen()
    best: list[Move] = []
    best_score = float("-inf")
    for move in view.legal_moves:
        score = _greedy_score(view, move, unseen)
        if score > best_score + 1e-9:
            best, best_score = [move], score
        elif abs(score - best_score) <= 1e-9:
            best.append(move)
    return best[rng.randrange(len(best))]


# --- expert: determinized Monte Carlo search ---------------------------------------


def _rollout_choice(board: Board, rng: random.Random) -> tuple[int, Outcome]:
    """The policy inside a sampled world (where every hand is known): take the most cards
    (a basra counts extra); when nothing can be taken, trail a card that leaves the next
    seat no basra, keeping jacks and the 7D; break ties at random."""
    outcomes = board.capturer.outcomes
    floor = tuple(board.floor)
    seat = board.turn
    assert seat is not None
    nxt = board.hands[(seat + 1) % board.rules.players]
    best: list[tuple[int, Outcome]] = []
    best_score = -100.0
    for at, card in enumerate(board.hands[seat]):
        for o in outcomes(card, floor):
            if o.capture:
                score = len(o.capture) + (8.0 if o.basra else 0.0)
            else:
                score = -0.5 if _is_sweeper(card) else 0.0
                left = (*floor, card)
                if any(outcomes(c, left)[0].basra for c in nxt):
                    score -= 8.0
            if score > best_score:
                best, best_score = [(at, o)], score
            elif score == best_score:
                best.append((at, o))
    return best[rng.randrange(len(best))]


def determinize(view: SeatView, rng: random.Random) -> State:
    """A full state consistent with everything the seat has seen: the unseen cards dealt
    at random to the other hands and the stock. Uses nothing the seat cannot see."""
    assert view.seat is not None
    unseen = sorted(view.unseen())
    rng.shuffle(unseen)
    return _dealt(view, unseen, {})


def _dealt(view: SeatView, cards: Sequence[Card], fixed: Mapping[int, tuple[Card, ...]]) -> State:
    """The view's state with the seat's own hand, the hands ``fixed`` gives, and
    ``cards`` dealt in order to the other hands, then the stock."""
    hands: list[tuple[Card, ...]] = []
    at = 0
    for seat, count in enumerate(view.hand_counts):
        if seat == view.seat:
            hands.append(view.hand)
        elif seat in fixed:
            hands.append(fixed[seat])
        else:
            hands.append(tuple(cards[at : at + count]))
            at += count
    stock = tuple(cards[at : at + view.stock_count])
    return State(
        rules=view.rules, seed=b"determinized", decks=(), round=view.round, dealer=view.dealer,
        turn=view.turn, hands=tuple(hands), floor=view.floor, stock=stock, piles=view.piles,
        basras=view.basras, jack_basras=view.jack_basras, last_capturer=view.last_capturer,
        scores=view.scores, carry=view.carry, results=view.results, ply=view.ply,
        last_play=view.last_play, finished=view.finished, winner=view.winner, draw=view.draw,
        deal_plays=view.deal_plays,
    )


def _not_held(view: SeatView) -> tuple[int, frozenset[Card]] | None:
    """(seat, cards) the seat that played last is taken not to hold: it left the floor it
    faced without the basra those cards would have made, so (a player takes a basra
    when it can) it held none of them, and still holds none if no deal came since."""
    last = view.last_play
    if last is None or last.round != view.round or last.basra is not None \
            or last.seat == view.seat or view.seat is None:
        return None
    if view.hand_counts[last.seat] >= view.rules.hand_size:
        return None  # dealt anew since it played
    if last.captured:
        faced = (*view.floor, *last.captured)
    else:
        faced = tuple(c for c in view.floor if c != last.card)
    if not faced:
        return None
    outcomes = capturer_for(view.rules).outcomes
    sweeping = frozenset(c for c in view.unseen()
                         if any(o.basra is not None for o in outcomes(c, faced)))
    return (last.seat, sweeping) if sweeping else None


def determinize_inferring(view: SeatView, rng: random.Random) -> State:
    """As :func:`determinize`, but the seat that played last is dealt none of the cards
    :func:`_not_held` says it would have swept with, while the other unseen cards can
    fill its hand."""
    inferred = _not_held(view)
    if inferred is None:
        return determinize(view, rng)
    seat, sweeping = inferred
    others = sorted(view.unseen() - sweeping)
    if len(others) < view.hand_counts[seat]:
        return determinize(view, rng)
    rng.shuffle(others)
    held = tuple(others[:view.hand_counts[seat]])
    rest = others[view.hand_counts[seat]:] + sorted(sweeping)
    rng.shuffle(rest)
    return _dealt(view, rest, {seat: held})


# --- what the others' plays this deal say about their hands -----------------------

INFERENCE_SHARPNESS = 1.0
"""How surely a player is taken to play the card that scores best at once, as the
inverse temperature of a softmax over points (:func:`_deal_likelihood`): 1 measured
best of 1, 3 and 10 (docs/computer.md)."""
INFERENCE_DRAWS = 2
"""Deals sampled for each world the expert keeps: the kept ones are drawn from them by
how likely they make the others' plays."""


_ALL_CARDS = frozenset(DECK)


class _Faced:
    """What a seat faced when it played this deal: the floor, the cards it could not see
    (all but the floor and the piles; its own hand among them), and how many cards the
    next seat held."""

    __slots__ = ("seat", "floor", "unseen", "next_held", "card")

    def __init__(self, seat: int, floor: tuple[Card, ...], unseen: frozenset[Card],
                 next_held: int, card: Card) -> None:
        self.seat = seat
        self.floor = floor
        self.unseen = unseen
        self.next_held = next_held
        self.card = card


def _deal_story(view: SeatView) -> list[_Faced]:
    """The other seats' plays this deal, with what each faced: the floor and piles are
    worked back from today's through the deal's plays (a deal adds nothing to the
    floor after its first)."""
    floor = set(view.floor)
    piles: set[Card] = set()
    for pile in view.piles:
        piles.update(pile)
    held = list(view.hand_counts)
    story: list[_Faced] = []
    players = view.players
    for play in reversed(view.deal_plays):
        if play.captured:
            floor.update(play.captured)
            piles.difference_update(play.captured)
            piles.discard(play.card)
        else:
            floor.discard(play.card)
        nxt = (play.seat + 1) % players
        if play.seat != view.seat:
            story.append(_Faced(play.seat, tuple(sorted(floor)), _ALL_CARDS - floor - piles,
                                held[nxt], play.card))
        held[play.seat] += 1
    story.reverse()
    return story


class _Judge:
    """Scores a card as a player who takes what scores best at once would: the points it
    takes (:func:`_cards_value`, basras), less the basra the next seat may make on the
    floor it leaves; a jack or the 7D thrown away costs a little (as :func:`_greedy_score`)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.outcomes = capturer_for(rules).outcomes
        self._now: dict[tuple[Card, tuple[Card, ...]], tuple[float, tuple[Card, ...]]] = {}
        self._threats: dict[tuple[Card, ...], frozenset[Card]] = {}

    def now(self, card: Card, floor: tuple[Card, ...]) -> tuple[float, tuple[Card, ...]]:
        """(points the card scores at once, the floor it leaves)."""
        key = (card, floor)
        known = self._now.get(key)
        if known is not None:
            return known
        outcome = self.outcomes(card, floor)[0]
        if outcome.capture:
            points = _taken_points(self.rules, card, outcome)
            gone = set(outcome.capture)
            left = tuple(c for c in floor if c not in gone)
        else:
            points = -0.5 if _is_sweeper(card) else 0.0
            left = tuple(sorted((*floor, card)))
        self._now[key] = known = (points, left)
        return known

    def threats(self, floor: tuple[Card, ...]) -> frozenset[Card]:
        """The cards that would sweep ``floor`` for a basra."""
        known = self._threats.get(floor)
        if known is None:
            known = frozenset(
                c for c in DECK
                if floor and (o := self.outcomes(c, floor)[0]).basra is not None
                and len(o.capture) == len(floor))
            self._threats[floor] = known
        return known

    def score(self, card: Card, faced: _Faced, hidden: frozenset[Card]) -> float:
        """The card's score for a player who could not see ``hidden``."""
        points, left = self.now(card, faced.floor)
        if not left:
            return points
        threats = len(self.threats(left) & hidden)
        if threats:
            n = len(hidden)
            scoring = self.rules.scoring
            points -= _chance_of_any(n, threats, min(faced.next_held, n)) \
                * max(scoring.basra, scoring.jack_basra)
        return points


def _deal_likelihood(judge: _Judge, story: Sequence[_Faced],
                     hands: Sequence[Sequence[Card]]) -> float:
    """Log-likelihood of the others' plays this deal had they held ``hands`` now: each
    play a softmax choice (:data:`INFERENCE_SHARPNESS`) among the cards the seat held
    then (its hand now and the cards it played since) by :meth:`_Judge.score`."""
    total = 0.0
    beta = INFERENCE_SHARPNESS
    held: dict[int, list[Card]] = {}
    for faced in reversed(story):
        hand = held.get(faced.seat)
        if hand is None:
            hand = held[faced.seat] = list(hands[faced.seat])
        hand.append(faced.card)
        hidden = faced.unseen.difference(hand)
        scores = [judge.score(c, faced, hidden) for c in hand]
        top = max(scores)
        total += beta * (scores[-1] - top) - log(sum(exp(beta * (x - top)) for x in scores))
    return total


def inferred_worlds(view: SeatView, rng: random.Random, count: int,
                    pause: Pause = no_pause) -> list[State]:
    """``count`` full states consistent with the view, drawn in proportion to how likely
    each makes the others' plays this deal (:func:`_deal_likelihood`): of
    ``INFERENCE_DRAWS x count`` deals of the unseen cards, the likelier are kept more
    often (systematic resampling). Without a play by another seat this deal, plain
    :func:`determinize` draws. ``pause()`` saying stop keeps the deals drawn so far."""
    story = _deal_story(view)
    if not story:
        return list(chance_worlds(view, rng, count))
    judge = _Judge(view.rules)
    drawn: list[State] = []
    logs: list[float] = []
    for k in range(INFERENCE_DRAWS * count):
        if k and k % 16 == 0 and pause():
            break
        world = determinize(view, rng)
        drawn.append(world)
        logs.append(_deal_likelihood(judge, story, world.hands))
    top = max(logs)
    weights = [exp(x - top) for x in logs]
    step = sum(weights) / count
    at, reached = 0, weights[0]
    mark = rng.random() * step
    kept: list[State] = []
    for _ in range(count):
        while reached < mark and at + 1 < len(weights):
            at += 1
            reached += weights[at]
        kept.append(drawn[at])
        mark += step
    return kept


def _margin(before: SeatView, after: Board, team: int) -> float:
    """Points the team gained over the other since ``before``: exact when the round ended,
    else cards (each worth a share of the most-cards bonus), basras and card points."""
    if after.round != before.round or after.finished:
        points = after.results[len(before.results)].points
        return float(points[team] * 2 - sum(points))
    rules = after.rules
    s = rules.scoring
    value = 0.0
    for t in range(rules.teams):
        v = _cards_value(rules, after.piles[t][len(before.piles[t]):])
        v += (after.basras[t] - before.basras[t]) * s.basra
        v += (after.jack_basras[t] - before.jack_basras[t]) * s.jack_basra
        value += v if t == team else -v
    return value


def _playout(board: Board, rng: random.Random) -> None:
    """Play on in a sampled world until the current deal (or the round) is over."""
    start_round, stock = board.round, len(board.stock)
    while (not board.finished and board.round == start_round and len(board.stock) == stock
           and any(board.hands)):
        at, outcome = _rollout_choice(board, rng)
        board.play(at, outcome)


EXPERT_CANDIDATES = 12
"""The most moves the expert plays out: on a floor with many captures (``choose``
mode) it first keeps the moves :func:`_greedy_score` ranks best, so its work stays
bounded by ``worlds x EXPERT_CANDIDATES`` playouts."""


EXPERT_WORLDS = 100
"""Worlds the expert samples: 40 until play moved onto the board made playouts about
1.5x cheaper; 100 keeps p95 well under 100 ms (``make bench``)."""


Sampler = Callable[[SeatView, random.Random, int, Pause], Iterable[State]]
"""``sample(view, rng, count, pause)``: the worlds an expert plays out, in order (it may
stop asking early)."""


def chance_worlds(view: SeatView, rng: random.Random, count: int,
                  pause: Pause = no_pause) -> Iterator[State]:
    """``count`` worlds of :func:`determinize`, each drawn when it is asked for."""
    for _ in range(count):
        yield determinize(view, rng)


def make_expert(worlds: int = EXPERT_WORLDS, sample: Sampler = inferred_worlds) -> Policy:
    """An expert policy: perfect-information Monte Carlo over sampled worlds.

    Each of ``worlds`` worlds from ``sample`` deals the unseen cards to the other hands
    and the stock: in proportion to how likely they make the others' plays this deal
    (:func:`inferred_worlds`), or uniformly at random (:func:`chance_worlds`, the expert
    of 2026); every legal move is played in every world and the
    deal is played out with :func:`_rollout_move` using the same random numbers for each
    move (common random numbers, so moves are compared on equal terms). The move with the
    best total margin wins. Deterministic for a given ``rng``, so bot moves replay.
    """

    def expert_policy(view: SeatView, rng: random.Random, pause: Pause = no_pause, /) -> Move:
        moves = view.legal_moves
        if len(moves) == 1:
            return moves[0]
        if len(moves) > EXPERT_CANDIDATES:
            unseen = view.unseen()
            scores: list[float] = []
            for m in moves:
                if scores and pause():  # the moves scored so far are the candidates
                    break
                scores.append(_greedy_score(view, m, unseen))
            ranked = sorted(range(len(scores)), key=lambda i: -scores[i])
            moves = tuple(moves[i] for i in ranked[:EXPERT_CANDIDATES])
        assert view.seat is not None
        team = team_of(view.seat)
        totals = [0.0] * len(moves)
        sampled = iter(sample(view, rng, worlds, pause))
        for w in range(worlds):
            if pause() and w:
                break
            world = next(sampled)
            if w == 0:  # a move's card and capture are the same in every world
                checked = [check_move(world, move) for move in moves]
            start = Board(world)
            luck = rng.getrandbits(64)
            for k, (at, outcome) in enumerate(checked):
                after = start.copy()
                after.play(at, outcome)
                _playout(after, random.Random(luck))
                totals[k] += _margin(view, after, team)
        best = max(range(len(moves)), key=lambda j: totals[j])
        return moves[best]

    return expert_policy


# --- the expert: every deal searched to its end in sampled worlds ---------------------


class _Stop(Exception):
    """The caller's budget is spent: the search unwinds and the best so far is played."""


class _DealSearch:
    """Alpha-beta over a board whose hands are all known (a sampled world, or the last
    deal of two players, where the other hand is exactly the unseen cards), to the end
    of the deal, or of the round in the last deal (then the value is the round's exact
    points). Values are the margin of ``team`` over the other since ``before``."""

    CHECK_EVERY = 64
    """Nodes between two calls of ``pause``."""

    def __init__(self, before: SeatView, team: int, pause: Pause) -> None:
        self.before = before
        self.team = team
        self.pause = pause
        self.nodes = 0

    def value(self, board: Board, stock: int, alpha: float, beta: float) -> float:
        """The margin with best play by both sides from ``board``; ``stock``: the stock's
        size while this deal lasts."""
        before = self.before
        if board.finished or board.round != before.round:
            return _margin(before, board, self.team)
        if len(board.stock) != stock:  # the next deal is dealt: its leader may sweep
            return _deal_end_value(before, board, self.team) + _sweep_threat(board, self.team)
        self.nodes += 1
        if self.nodes % self.CHECK_EVERY == 0 and self.pause():
            raise _Stop
        seat = board.turn
        assert seat is not None
        mine = team_of(seat) == self.team
        best = float("-inf") if mine else float("inf")
        for at, outcome in _ordered_children(board):
            after = board.copy()
            after.play(at, outcome)
            v = self.value(after, stock, alpha, beta)
            if mine:
                if v > best:
                    best = v
                if best > alpha:
                    alpha = best
            else:
                if v < best:
                    best = v
                if best < beta:
                    beta = best
            if alpha >= beta:
                break
        return best


DECK_SIZE = 52


def _deal_end_value(before: SeatView, board: Board, team: int) -> float:
    """What a deal's end is worth to ``team`` over the other, with the round to go on:
    the basras and card points made since ``before``, and the most-cards bonus as
    expected from the piles so far (each card still to be taken as likely to go to
    either side), not a flat value a card: past half the deck more cards are worth
    nothing, near the line each one counts."""
    rules = board.rules
    s = rules.scoring
    value = 0.0
    mine = 0
    theirs = 0
    for t in range(rules.teams):
        sign = 1.0 if t == team else -1.0
        value += sign * (board.basras[t] - before.basras[t]) * s.basra
        value += sign * (board.jack_basras[t] - before.jack_basras[t]) * s.jack_basra
        if s.cards:
            worth = derived(rules, points_by_card)
            value += sign * sum(worth[c] for c in board.piles[t][len(before.piles[t]):])
        if t == team:
            mine += len(board.piles[t])
        else:
            theirs += len(board.piles[t])
    return value + s.most_cards * _lead_chance(mine, theirs, DECK_SIZE - mine - theirs)


_LEADS: dict[tuple[int, int, int], float] = {}


def _lead_chance(mine: int, theirs: int, left: int) -> float:
    """P(more cards at the end) - P(fewer), each of ``left`` cards going either way."""
    key = (mine, theirs, left)
    cached = _LEADS.get(key)
    if cached is not None:
        return cached
    win = lose = 0
    for x in range(left + 1):
        ways = comb(left, x)
        a, b = mine + x, theirs + left - x
        if a > b:
            win += ways
        elif a < b:
            lose += ways
    chance = (win - lose) / float(1 << left)
    _LEADS[key] = chance
    return chance


def _sweep_threat(board: Board, team: int) -> float:
    """What the floor left at a deal's end is worth to ``team``: the basra the next
    deal's leader makes with its first card if its new hand (known in a sampled world)
    can sweep it; positive if the leader is on ``team``."""
    seat = board.turn
    if seat is None or not board.floor:
        return 0.0
    floor = tuple(board.floor)
    outcomes = board.capturer.outcomes
    scoring = board.rules.scoring
    best = 0.0
    for card in board.hands[seat]:
        kind = outcomes(card, floor)[0].basra
        if kind is not None:
            best = max(best, float(scoring.basra if kind == "basra" else scoring.jack_basra))
    return best if team_of(seat) == team else -best


def _ordered_children(board: Board) -> list[tuple[int, Outcome]]:
    """Every (hand index, outcome) of the seat to play, the largest captures first (so
    alpha-beta finds good lines early); cards of one rank with the same outcomes are
    tried once."""
    seat = board.turn
    assert seat is not None
    floor = tuple(board.floor)
    outcomes = board.capturer.outcomes
    seen: set[Card] = set()
    children: list[tuple[int, Outcome]] = []
    for at, card in enumerate(board.hands[seat]):
        if card in seen:
            continue
        seen.add(card)
        for o in outcomes(card, floor):
            children.append((at, o))
    children.sort(key=lambda c: -len(c[1].capture) - (8 if c[1].basra else 0))
    return children


SEARCH_WORLDS = 24
"""Worlds the expert samples before the last deal (each searched to the deal's end)."""
SEARCH_CARDS = 8
"""The most cards left in the deal's hands for a sampled world to be searched to the
deal's end; with more (a four-player deal's first plays), each move is played out by
the rollout policy, as ``expert-2026`` does."""


def make_searcher(worlds: int = SEARCH_WORLDS, search_cards: int = SEARCH_CARDS) -> Policy:
    """The expert: the last deal of a two-player round solved exactly (every unseen card
    is in the other hand, so the rest of the round is a game of perfect information);
    otherwise perfect-information Monte Carlo where each sampled world (the unseen cards
    dealt at random, :func:`determinize`) is searched to the end of the deal by
    alpha-beta (:class:`_DealSearch`), or, while the deal has more than
    ``search_cards`` cards in hand, played out by the rollout policy. A move's total over
    the worlds decides, ties by :func:`_greedy_score`. ``pause()`` saying stop ends the
    search after the worlds finished so far (at least one)."""
    playouts = make_expert(sample=chance_worlds)

    def expert_policy(view: SeatView, rng: random.Random, pause: Pause = no_pause, /) -> Move:
        moves = view.legal_moves
        if len(moves) == 1:
            return moves[0]
        assert view.seat is not None
        exact = view.stock_count == 0 and view.players == 2
        if not exact and sum(view.hand_counts) > search_cards:
            return playouts(view, rng, pause)
        team = team_of(view.seat)
        unseen = view.unseen()
        totals = [0.0] * len(moves)
        for w in range(1 if exact else worlds):
            world = determinize_inferring(view, rng)
            if w == 0:
                checked = [check_move(world, move) for move in moves]
            start = Board(world)
            search = _DealSearch(view, team, pause)
            values = []
            try:
                for at, outcome in checked:
                    after = start.copy()
                    after.play(at, outcome)
                    values.append(search.value(after, view.stock_count, float("-inf"),
                                               float("inf")))
            except _Stop:
                if w:
                    break  # the worlds searched so far decide
                return greedy_policy(view, rng)  # not one world searched in the budget
            for k, v in enumerate(values):
                totals[k] += v
            if pause() and w + 1 < worlds and not exact:
                break
        best = max(range(len(moves)),
                   key=lambda j: (round(totals[j], 9), _greedy_score(view, moves[j], unseen)))
        return moves[best]

    return expert_policy


SEARCHING = frozenset({"expert", "expert-2026", "expert-search"})
"""The levels that search (and so cost CPU worth budgeting)."""

POLICIES: dict[str, Policy] = {
    "random": random_policy,
    "greedy": greedy_policy,
    "expert": make_expert(),
    # the expert of December 2026 (no inference) under a name that stays, to measure a
    # new one against
    "expert-2026": make_expert(sample=chance_worlds),
    # deal-by-deal search and the exact last deal: as strong as the expert against it,
    # weaker against greedy (docs/computer.md), so not the default
    "expert-search": make_searcher(),
}
"""The bot levels a seat or a hint may name."""


def policy_named(name: str) -> Policy:
    """The policy of that level; raises ``KeyError`` naming the known ones."""
    try:
        return POLICIES[name]
    except KeyError:
        raise KeyError(f"unknown bot {name!r} (known: {', '.join(POLICIES)})") from None


# --- bot seats in a match -------------------------------------------------------


def bot_rng(state: State) -> random.Random:
    """The bot's randomness at this ply: derived from the match seed, so matches replay."""
    digest = hashlib.sha256(state.seed + b"/bot/" + state.ply.to_bytes(4, "big")).digest()
    return random.Random(digest)


def bot_move(state: State, seat: int, level: str, pause: Pause = no_pause) -> Move:
    """The move bot ``level`` plays for ``seat``; it sees only that seat's view."""
    return policy_named(level)(observe(state, seat), bot_rng(state), pause)


Decide = Callable[[State, int, str], Move]
"""Works out a bot's move: (state, seat, level) -> the move :func:`bot_move` plays."""


def run_bots(state: State, bots: Mapping[int, str],
             pauses: Callable[[], Pause] = lambda: no_pause,
             decide: Decide | None = None) -> tuple[State, list[Play]]:
    """Let bot seats (seat -> level) play while it is their turn, each move with a pause
    of its own from ``pauses`` (a budget a move), or worked out by ``decide`` (another
    process, say); returns the new state and their plays."""
    plays: list[Play] = []
    while not state.finished and state.turn is not None and state.turn in bots:
        seat, level = state.turn, bots[state.turn]
        move = decide(state, seat, level) if decide is not None \
            else bot_move(state, seat, level, pauses())
        state = apply_move(state, move)
        assert state.last_play is not None
        plays.append(state.last_play)
    return state, plays
