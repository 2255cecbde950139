"""Playing a match: ``new_match``, ``legal_moves``, ``apply_move``, ``replay``.

A match is fully determined by (rules, seed, explicit decks, moves): every
function here is pure (it takes a :class:`State` and returns a new one), and the
only randomness is the seeded shuffle. Each play runs on a :class:`~.board.Board`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from random import Random

from .board import Board, score_round, start_round
from .captures import Outcome, capturer_for
from .cards import Card, format_cards
from .errors import CardNotInHand, IllegalCapture, IllegalMove, MatchFinished, NotYourTurn
from .rules import Rules
from .shuffle import check_deck, new_seed
from .state import Move, Play, RoundResult, State, first_seat

__all__ = [
    "Move", "Play", "RoundResult", "State", "apply_move", "cards_accounted", "first_seat",
    "legal_moves", "new_match", "play_random", "random_move", "replay", "resign",
    "score_round",
]


def new_match(
    rules: Rules, seed: bytes | None = None, decks: Iterable[Sequence[Card]] = ()
) -> State:
    """A match at the start of round 1: dealt from ``decks[0]`` if given, else the seed."""
    seed = new_seed() if seed is None else seed
    checked = tuple(
        check_deck(tuple(d), f"decks[{i}]") for i, d in enumerate(decks)
    )
    dealer = rules.players - 1
    hands, floor, stock = start_round(rules, seed, checked, 1, dealer)
    zero = (0,) * rules.teams
    return State(
        rules=rules,
        seed=seed,
        decks=checked,
        round=1,
        dealer=dealer,
        turn=first_seat(rules, dealer),
        hands=tuple(tuple(h) for h in hands),
        floor=tuple(floor),
        stock=tuple(stock),
        piles=((),) * rules.teams,
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


def random_move(state: State, rng: Random) -> Move:
    """A uniformly random legal move (see :func:`play_random` to also play it)."""
    at, outcome = Board(state).random_choice(rng)
    seat = state.turn
    assert seat is not None
    return Move(seat, state.hands[seat][at], outcome.capture)


def play_random(state: State, rng: Random) -> State:
    """The state after a uniformly random legal move (:func:`random_move` then
    :func:`apply_move`, without checking again what was just chosen)."""
    board = Board(state)
    board.play_random(rng)
    return _after_play(state, board)


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


def check_move(state: State, move: Move) -> tuple[int, Outcome]:
    """(hand index, outcome) of a legal ``move``; raises a typed :class:`IllegalMove`."""
    if state.finished:
        raise MatchFinished("the match is finished")
    seat = move.seat
    if seat != state.turn:
        raise NotYourTurn(f"it is seat {state.turn}'s turn, not seat {seat}'s")
    try:
        at = state.hands[seat].index(move.card)
    except ValueError:
        raise CardNotInHand(f"seat {seat} does not hold {move.card}") from None
    return at, _choose_outcome(state, move)


def apply_move(state: State, move: Move) -> State:
    """The state after ``move``; raises a typed :class:`IllegalMove` and changes nothing."""
    at, outcome = check_move(state, move)
    board = Board(state)
    board.play(at, outcome)
    return _after_play(state, board)


def _after_play(before: State, board: Board) -> State:
    """The board's state after one play from ``before``, with this deal's plays: those
    before it and this one, or none when it emptied the hands (a new deal or round)."""
    if sum(map(len, before.hands)) == 1:
        return board.state()
    last = board.last_play
    assert last is not None
    return board.state((*before.deal_plays, last))


def resign(state: State, seat: int) -> State:
    """The seat's team concedes: the match ends and the other team wins."""
    if state.finished:
        raise MatchFinished("the match is finished")
    if not 0 <= seat < state.rules.players:
        raise IllegalMove(f"there is no seat {seat}", reason="no_such_seat")
    board = Board(state)
    board.resign(seat)
    return board.state(state.deal_plays)


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
