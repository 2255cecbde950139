"""Cards in the notation of RULES.md: rank then suit, e.g. ``7D``, ``10H``, ``JC``.

A :class:`Card` is a plain immutable value: an ``int`` from 0 to 51 (rank-major,
so ``AC`` is 0 and ``KS`` is 51) with its rank, suit and value as properties.
There are exactly 52 card objects; :func:`parse_card` and :data:`DECK` hand
out the same instances, so cards compare, hash and sort as fast as ints.
"""

from __future__ import annotations

from collections.abc import Iterable

from .errors import InvalidCard

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("C", "D", "H", "S")
FACE_RANKS: frozenset[str] = frozenset({"J", "Q", "K"})


class Card(int):
    """One of the 52 cards; an int subclass whose ``str`` is its notation."""

    __slots__ = ()

    @property
    def rank(self) -> str:
        """The rank: ``A``, ``2`` ... ``10``, ``J``, ``Q`` or ``K``."""
        return RANKS[self >> 2]

    @property
    def suit(self) -> str:
        """The suit: ``C``, ``D``, ``H`` or ``S``."""
        return SUITS[self & 3]

    @property
    def value(self) -> int:
        """The value in sums: 1 to 10 for number cards, 0 for J, Q and K."""
        return _VALUES[self]

    def __str__(self) -> str:
        return _NAMES[self]

    def __repr__(self) -> str:
        return f"Card({_NAMES[self]!r})"


_NAMES: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
_VALUES: tuple[int, ...] = tuple(
    (i + 1 if r not in FACE_RANKS else 0) for i, r in enumerate(RANKS) for _ in SUITS
)

DECK: tuple[Card, ...] = tuple(Card(i) for i in range(52))
"""All 52 cards in canonical order (A to K, each in suits C D H S)."""

_BY_NAME: dict[str, Card] = {_NAMES[c]: c for c in DECK}
_BY_NAME.update({"1" + s: _BY_NAME["A" + s] for s in SUITS})

SEVEN_OF_DIAMONDS: Card = _BY_NAME["7D"]


def parse_card(text: object) -> Card:
    """Parse ``'7d'``, ``'10H'``, ``'jc'`` ... into a :class:`Card` (case-insensitive)."""
    if isinstance(text, Card):
        return text
    if isinstance(text, str):
        card = _BY_NAME.get(text.strip().upper())
        if card is not None:
            return card
    raise InvalidCard(
        f"{text!r} is not a card: write rank then suit, ranks A 2-10 J Q K, suits C D H S"
    )


def parse_cards(texts: Iterable[object]) -> tuple[Card, ...]:
    """Parse a sequence of card strings, keeping their order."""
    return tuple(parse_card(t) for t in texts)


def format_cards(cards: Iterable[Card]) -> list[str]:
    """The notation of each card, in the given order."""
    return [_NAMES[c] for c in cards]


def is_rank(text: str) -> bool:
    """True if ``text`` names a rank (``A``, ``2`` ... ``K``)."""
    return text.upper() in RANKS


def card_matches(card: Card, entry: str) -> bool:
    """True if ``card`` is named by ``entry``, a rank (``J``) or a card (``7D``)."""
    entry = entry.upper()
    return card.rank == entry if entry in RANKS else _NAMES[card] == entry
