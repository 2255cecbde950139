"""Match state and play: ``new_match``, ``legal_moves``, ``apply_move``, ``replay``.

A match is fully determined by (rules, seed, explicit decks, moves): every
function here is pure, and the only randomness is the seeded shuffle.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from random import Random
from typing import NamedTuple

from .captures import BasraKind, Outcome, capturer_for
from .cards import Card, card_matches, format_cards
from .errors import CardNotInHand, IllegalCapture, IllegalMove, MatchFinished, NotYourTurn
from .rules import Rules, team_of
from .shuffle import check_deck, deck_for_round, new_seed


@dataclass(frozen=True, slots=True)
class Move:
    """A seat plays a card; ``capture`` names one of its legal captures (or None)."""

    seat: int
    card: Card
    capture: tuple[Card, ...] | None = None

    def __str__(self) -> str:
        took = "" if self.capture is None else " takes " + " ".join(format_cards(self.capture))
        return f"seat {self.seat}: {self.card}{took}"


@dataclass(frozen=True, slots=True)
class Play:
    """A move as it happened: what the card took and whether it was a basra."""

    round: int
    seat: int
    card: Card
    captured: tuple[Card, ...]
    basra: BasraKind | None


@dataclass(frozen=True, slots=True)
class RoundResult:
    """The score sheet of one finished round, per team."""

    round: int
    cards: tuple[int, ...]
    basras: tuple[int, ...]
    jack_basras: tuple[int, ...]
    card_points: tuple[int, ...]
    points: tuple[int, ...]
    carried: int
    """Most-cards points carried into the next round (``carry_over`` on a tie)."""


class State(NamedTuple):
    """Everything about a match at one moment, hidden parts included.

    Immutable; built with keywords only: ``State(...)`` for a new match and
    ``state._replace(...)`` for the next one (a NamedTuple builds about twice as
    fast as a frozen dataclass, and a state is built on every play).
    """

    rules: Rules
    seed: bytes
    decks: tuple[tuple[Card, ...], ...]
    round: int
    dealer: int
    turn: int | None
    hands: tuple[tuple[Card, ...], ...]
    floor: tuple[Card, ...]
    stock: tuple[Card, ...]
    piles: tuple[tuple[Card, ...], ...]
    basras: tuple[int, ...]
    jack_basras: tuple[int, ...]
    last_capturer: int | None
    scores: tuple[int, ...]
    carry: int
    results: tuple[RoundResult, ...]
    ply: int
    last_play: Play | None
    finished: bool
    winner: int | None
    draw: bool


def first_seat(rules: Rules, dealer: int) -> int:
    """The seat after the dealer, who leads each deal of the round."""
    return (dealer + 1) % rules.players


def _deck(rules: Rules, seed: bytes, decks: tuple[tuple[Card, ...], ...], rnd: int) -> list[Card]:
    return list(decks[rnd - 1] if rnd <= len(decks) else deck_for_round(seed, rnd))


def _deal_hands(
    stock: list[Card], players: int, size: int, first: int
) -> list[tuple[Card, ...]]:
    """Deal ``size`` cards to each seat as one packet; a short stock goes one at a time."""
    hands: list[list[Card]] = [[] for _ in range(players)]
    order = [(first + i) % players for i in range(players)]
    if len(stock) >= players * size:
        for seat in order:
            hands[seat] = stock[:size]
            del stock[:size]
    else:
        i = 0
        while stock:
            hands[order[i % players]].append(stock.pop(0))
            i += 1
    return [tuple(h) for h in hands]


def _starting_floor(rules: Rules, floor: list[Card], stock: list[Card]) -> None:
    """Send listed cards (default J and 7D) from the floor to the stock's bottom.

    Each position is settled in floor order: its card goes to the bottom and
    the top card of the stock takes its place, until that position holds an
    unlisted card; then the next position. (A house rule that lists nearly
    every card could leave no unlisted card in the stock: then a position keeps
    what it has after one full turn of the stock.)
    """
    listed = rules.initial_floor.return_to_deck
    if not listed:
        return

    def is_listed(card: Card) -> bool:
        return any(card_matches(card, e) for e in listed)

    for i in range(len(floor)):
        for _ in range(len(stock)):
            if not is_listed(floor[i]):
                break
            stock.append(floor[i])
            floor[i] = stock.pop(0)


def _start_round(
    rules: Rules, seed: bytes, decks: tuple[tuple[Card, ...], ...], rnd: int, dealer: int
) -> tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...], tuple[Card, ...]]:
    stock = _deck(rules, seed, decks, rnd)
    hands = _deal_hands(stock, rules.players, rules.hand_size, first_seat(rules, dealer))
    floor = stock[: rules.floor_size]
    del stock[: rules.floor_size]
    _starting_floor(rules, floor, stock)
    return tuple(hands), tuple(floor), tuple(stock)


def new_match(
    rules: Rules, seed: bytes | None = None, decks: Iterable[Sequence[Card]] = ()
) -> State:
    """A match at the start of round 1: dealt from ``decks[0]`` if given, else the seed."""
    seed = new_seed() if seed is None else seed
    checked = tuple(
        check_deck(tuple(d), f"decks[{i}]") for i, d in enumerate(decks)
    )
    dealer = rules.players - 1
    hands, floor, stock = _start_round(rules, seed, checked, 1, dealer)
    teams = rules.teams
    zero = (0,) * teams
    return State(
        rules=rules,
        seed=seed,
        decks=checked,
        round=1,
        dealer=dealer,
        turn=first_seat(rules, dealer),
        hands=hands,
        floor=floor,
        stock=stock,
        piles=((),) * teams,
        basras=zero,
        jack_basras=zero,
        last_capturer=None,
        scores=zero,
        carry=0,
        results=(),
        ply=0,
        last_play=None,
        finished=False,
        winner=None,
        draw=False,
    )


def legal_moves(state: State) -> tuple[Move, ...]:
    """The moves of the seat to play: one per card and distinct capture, in hand order.

    Empty only when the match is finished.
    """
    if state.finished or state.turn is None:
        return ()
    seat = state.turn
    outcomes = capturer_for(state.rules).outcomes
    floor = state.floor
    return tuple(
        Move(seat, card, o.capture) for card in state.hands[seat] for o in outcomes(card, floor)
    )


def _random_choice(state: State, rng: Random) -> tuple[int, Outcome]:
    """(hand index, outcome) of a uniformly random legal move: the same distribution as
    picking from :func:`legal_moves`, without building the whole list (only the chosen
    card's captures are worked out)."""
    if state.finished or state.turn is None:
        raise MatchFinished("the match is finished")
    capturer = capturer_for(state.rules)
    floor = state.floor
    hand = state.hands[state.turn]
    counts = capturer.counts(hand, floor)
    k = rng.randrange(sum(counts))
    for at, n in enumerate(counts):
        if k < n:
            return at, capturer.outcomes(hand[at], floor)[k]
        k -= n
    raise AssertionError("unreachable")  # pragma: no cover


def random_move(state: State, rng: Random) -> Move:
    """A uniformly random legal move (see :func:`play_random` to also play it)."""
    at, outcome = _random_choice(state, rng)
    seat = state.turn
    assert seat is not None
    return Move(seat, state.hands[seat][at], outcome.capture)


def play_random(state: State, rng: Random) -> State:
    """The state after a uniformly random legal move: :func:`random_move` then
    :func:`apply_move` without checking again what was just chosen among the legal
    moves (random self-play, ``basra simulate``)."""
    at, outcome = _random_choice(state, rng)
    assert state.turn is not None
    return _advance(state, state.turn, at, outcome)


def _choose_outcome(state: State, move: Move) -> Outcome:
    capturer = capturer_for(state.rules)
    if move.capture is None:
        return capturer.outcomes(move.card, state.floor)[0]
    wanted = tuple(sorted(move.capture))
    found = capturer.named(move.card, state.floor, wanted)
    if found is not None:
        return found
    options = capturer.outcomes(move.card, state.floor)
    allowed = "; ".join(" ".join(format_cards(o.capture)) or "nothing" for o in options[:8])
    if len(options) > 8:
        allowed += f"; and {len(options) - 8} more"
    named = " ".join(format_cards(wanted)) or "nothing"
    raise IllegalCapture(f"{move.card} cannot take {named} here; it can take: {allowed}")


def apply_move(state: State, move: Move) -> State:
    """The state after ``move``; raises a typed :class:`IllegalMove` and changes nothing."""
    if state.finished:
        raise MatchFinished("the match is finished")
    seat = move.seat
    if seat != state.turn:
        raise NotYourTurn(f"it is seat {state.turn}'s turn, not seat {seat}'s")
    hand = state.hands[seat]
    card = move.card
    try:
        at = hand.index(card)
    except ValueError:
        raise CardNotInHand(f"seat {seat} does not hold {card}") from None
    return _advance(state, seat, at, _choose_outcome(state, move))


def _advance(state: State, seat: int, at: int, outcome: Outcome) -> State:
    """The state after the seat plays its ``at``-th card with a legal ``outcome``."""
    hand = state.hands[seat]
    card = hand[at]
    rules = state.rules
    players = rules.players
    team = team_of(seat)
    new_hand = hand[:at] + hand[at + 1 :]
    hands = state.hands[:seat] + (new_hand,) + state.hands[seat + 1 :]
    captured = outcome.capture
    piles = state.piles
    last_capturer = state.last_capturer
    if captured:
        taken = set(captured)
        floor = tuple(c for c in state.floor if c not in taken)
        piles = piles[:team] + (piles[team] + captured + (card,),) + piles[team + 1 :]
        last_capturer = team
    else:
        floor = state.floor + (card,)
    kind = outcome.basra
    round_over = not state.stock and not any(hands)
    if kind is not None and round_over and not rules.basra.last_play_counts:
        kind = None
    basras, jack_basras = state.basras, state.jack_basras
    if kind == "basra":
        basras = basras[:team] + (basras[team] + 1,) + basras[team + 1 :]
    elif kind == "jack_basra":
        jack_basras = jack_basras[:team] + (jack_basras[team] + 1,) + jack_basras[team + 1 :]

    play = Play(state.round, seat, card, captured, kind)
    stock = state.stock
    turn = (seat + 1) % players
    if round_over:
        return _end_round(
            state, hands, floor, piles, basras, jack_basras, last_capturer, play
        )
    if not any(hands):
        rest = list(stock)
        turn = first_seat(rules, state.dealer)
        hands = tuple(_deal_hands(rest, players, rules.hand_size, turn))
        stock = tuple(rest)
    else:
        while not hands[turn]:
            turn = (turn + 1) % players
    return state._replace(
        turn=turn, hands=hands, floor=floor, stock=stock, piles=piles, basras=basras,
        jack_basras=jack_basras, last_capturer=last_capturer, ply=state.ply + 1, last_play=play,
    )


def score_round(
    rules: Rules,
    round_number: int,
    piles: Sequence[Sequence[Card]],
    basras: Sequence[int],
    jack_basras: Sequence[int],
    carry: int,
) -> RoundResult:
    """Round points per team from its pile and basras, with the most-cards rule."""
    scoring = rules.scoring
    teams = len(piles)
    cards = tuple(len(p) for p in piles)
    card_points = tuple(
        sum(rules.card_points(str(c), c.rank) for c in p) for p in piles
    ) if scoring.cards else (0,) * teams
    points = [
        basras[t] * scoring.basra + jack_basras[t] * scoring.jack_basra + card_points[t]
        for t in range(teams)
    ]
    best = max(cards)
    leaders = [t for t in range(teams) if cards[t] == best]
    carried = 0
    if len(leaders) == 1:
        points[leaders[0]] += scoring.most_cards + carry
    elif scoring.most_cards_tie == "split":
        for t in leaders:
            points[t] += scoring.most_cards // len(leaders)
    elif scoring.most_cards_tie == "carry_over":
        carried = carry + scoring.most_cards
    return RoundResult(
        round_number, cards, tuple(basras), tuple(jack_basras), card_points, tuple(points), carried
    )


def _end_round(
    state: State,
    hands: tuple[tuple[Card, ...], ...],
    floor: tuple[Card, ...],
    piles: tuple[tuple[Card, ...], ...],
    basras: tuple[int, ...],
    jack_basras: tuple[int, ...],
    last_capturer: int | None,
    play: Play,
) -> State:
    rules = state.rules
    # leftovers go to the last capturer; if nobody captured all round they stay uncounted
    if floor and rules.leftover == "last_capturer" and last_capturer is not None:
        t = last_capturer
        piles = piles[:t] + (piles[t] + floor,) + piles[t + 1 :]
        floor = ()
    result = score_round(rules, state.round, piles, basras, jack_basras, state.carry)
    scores = tuple(s + p for s, p in zip(state.scores, result.points, strict=True))
    results = state.results + (result,)
    top = max(scores)
    leaders = [t for t, s in enumerate(scores) if s == top]
    finished = top >= rules.target_score and (len(leaders) == 1 or rules.target_tie == "draw")
    if finished:
        return state._replace(
            turn=None, hands=hands, floor=floor, stock=(), piles=piles, basras=basras,
            jack_basras=jack_basras, last_capturer=last_capturer, scores=scores, carry=0,
            results=results, ply=state.ply + 1, last_play=play, finished=True,
            winner=leaders[0] if len(leaders) == 1 else None, draw=len(leaders) > 1,
        )
    rnd = state.round + 1
    dealer = (state.dealer + 1) % rules.players
    new_hands, new_floor, stock = _start_round(rules, state.seed, state.decks, rnd, dealer)
    zero = (0,) * rules.teams
    return state._replace(
        round=rnd, dealer=dealer, turn=first_seat(rules, dealer), hands=new_hands,
        floor=new_floor, stock=stock, piles=((),) * rules.teams, basras=zero, jack_basras=zero,
        last_capturer=None, scores=scores, carry=result.carried, results=results,
        ply=state.ply + 1, last_play=play,
    )


def resign(state: State, seat: int) -> State:
    """The seat's team concedes: the match ends and the other team wins."""
    if state.finished:
        raise MatchFinished("the match is finished")
    if not 0 <= seat < state.rules.players:
        raise IllegalMove(f"there is no seat {seat}", reason="no_such_seat")
    winner = (team_of(seat) + 1) % state.rules.teams
    return state._replace(turn=None, ply=state.ply + 1, finished=True, winner=winner)


def replay(
    rules: Rules,
    seed: bytes,
    decks: Iterable[Sequence[Card]],
    moves: Iterable[Move],
) -> State:
    """Rebuild a match from its rules, seed, explicit decks and moves."""
    state = new_match(rules, seed, decks)
    for move in moves:
        state = apply_move(state, move)
    return state


def cards_accounted(state: State) -> int:
    """How many distinct cards are in hands, floor, stock and piles (always 52)."""
    seen: set[Card] = set(state.floor) | set(state.stock)
    for h in state.hands:
        seen.update(h)
    for p in state.piles:
        seen.update(p)
    return len(seen)
