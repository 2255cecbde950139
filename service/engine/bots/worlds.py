"""Sampled worlds: full states consistent with what a seat has seen (the unseen cards
dealt to the other hands and the stock), at random or weighted by what the others'
plays this deal say about their hands."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from math import exp, log

from ..captures import capturer_for
from ..cards import DECK, Card
from ..game import State
from ..rules import Rules
from ..view import SeatView
from .heuristics import Pause, chance_of_any, is_sweeper, no_pause, taken_points


def determinize(view: SeatView, rng: random.Random) -> State:
    """A full state consistent with everything the seat has seen: the unseen cards dealt
    at random to the other hands and the stock. Uses nothing the seat cannot see."""
    assert view.seat is not None
    unseen = sorted(view.unseen())
    rng.shuffle(unseen)
    return dealt(view, unseen, {})


def dealt(view: SeatView, cards: Sequence[Card], fixed: Mapping[int, tuple[Card, ...]]) -> State:
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
    return dealt(view, rest, {seat: held})


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
    takes (:func:`cards_value`, basras), less the basra the next seat may make on the
    floor it leaves; a jack or the 7D thrown away costs a little (as :func:`greedy_score`)."""

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
            points = taken_points(self.rules, card, outcome)
            gone = set(outcome.capture)
            left = tuple(c for c in floor if c not in gone)
        else:
            points = -0.5 if is_sweeper(card) else 0.0
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
            points -= chance_of_any(n, threats, min(faced.next_held, n)) \
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


Sampler = Callable[[SeatView, random.Random, int, Pause], Iterable[State]]
"""``sample(view, rng, count, pause)``: the worlds an expert plays out, in order (it may
stop asking early)."""


def chance_worlds(view: SeatView, rng: random.Random, count: int,
                  pause: Pause = no_pause) -> Iterator[State]:
    """``count`` worlds of :func:`determinize`, each drawn when it is asked for."""
    for _ in range(count):
        yield determinize(view, rng)
