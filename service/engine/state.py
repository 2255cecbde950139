"""The values of a match: :class:`Move`, :class:`Play`, :class:`RoundResult` and the
immutable :class:`State` that is stored and handed out (play itself runs on a
:class:`~.board.Board`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .captures import BasraKind
from .cards import Card, format_cards
from .rules import Rules


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

    Immutable and built with keywords only; the next state is made on a
    :class:`~.board.Board` (``Board(state)``, ``play``, ``state()``).
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
    deal_plays: tuple[Play, ...] = ()
    """The plays since this deal's cards were dealt, in order: public (every seat saw
    them), so a player can reason about what the others kept in hand."""


def first_seat(rules: Rules, dealer: int) -> int:
    """The seat after the dealer, who leads each deal of the round."""
    return (dealer + 1) % rules.players
