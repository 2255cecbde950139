"""What a played card takes from the floor (RULES.md "A turn").

The search for sum captures is complete, never greedy, and never enumerates
subsets of the floor: :mod:`.sums` searches the floor's value counts. A card
lists at most :data:`~.sums.MAX_LISTED` captures (its default first); any other
capture the rules allow can still be named (:meth:`Capturer.named`). Outcomes
are cached by (card, floor).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, Literal

from .cards import DECK, RANKS, SEVEN_OF_DIAMONDS, Card
from .rules import Rules, derived
from .sums import COUNT_BITS, SumSearch

BasraKind = Literal["basra", "jack_basra"]


class Outcome:
    """One possible result of playing a card: what it takes and what it scores.

    A value, equal to another with the same fields. Not a frozen dataclass: its
    ``__init__`` stays interpreted Python in the mypyc build, where making outcomes cost
    7% of a random-play round; ``Final`` attributes are read-only there, and mypy holds
    pure Python to them."""

    __slots__ = ("capture", "basra")

    def __init__(self, capture: tuple[Card, ...], basra: BasraKind | None) -> None:
        self.capture: Final = capture
        """Captured floor cards in card order; empty when the card stays on the floor."""
        self.basra: Final = basra

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Outcome):
            return NotImplemented
        return self.capture == other.capture and self.basra == other.basra

    def __hash__(self) -> int:
        return hash((self.capture, self.basra))

    def __repr__(self) -> str:
        return f"Outcome(capture={self.capture!r}, basra={self.basra!r})"


# A stand-in card of each face rank for "what would a card of rank r do here" (the 7D
# acting as any rank); spades are never the special card.
_FACE_STAND_INS: Final[tuple[Card, ...]] = tuple(
    DECK[i * 4 + 3] for i in range(len(RANKS)) if RANKS[i] in ("J", "Q", "K")
)
_VALUES: Final[tuple[int, ...]] = tuple(c.value for c in DECK)
_JACK: Final = RANKS.index("J")


class Capturer:
    """The capture rules of one rule set, with a cache of (card, floor) -> outcomes."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        sod = rules.seven_of_diamonds
        self._special = sod.special
        self._wild = sod.special and sod.on_floor == "wild"
        self._union = rules.capture.groups == "union"
        self._choose = rules.capture.mode == "choose"
        self._compulsory = rules.capture.compulsory
        # Cards that behave the same share a cache key: a number card's value
        # (1-10), 11/12/13 for J/Q/K, and 0 for a special 7D.
        self._key: tuple[int, ...] = tuple(
            0 if self._special and c == SEVEN_OF_DIAMONDS else (_VALUES[c] or 11 + (c >> 2) - 10)
            for c in DECK
        )
        self.units: tuple[int, ...] = tuple(
            _WILD_ON_FLOOR if self._is_wild(c) else _UNITS[_VALUES[c] - 1] if _VALUES[c] else 0
            for c in DECK
        )
        """What each card adds to the floor's packed value counts while it lies there
        (nothing for a face card; a wild 7D sets a field of its own above the values, so
        the packed counts also say whether it is there): a board keeps their sum up to
        date."""
        # the value a card takes sums with; 0 for faces and a special 7D
        self._sum_value: tuple[int, ...] = tuple(
            0 if self._key[c] > 10 else self._key[c] for c in DECK
        )
        self._cache: dict[tuple[int, tuple[Card, ...]], tuple[Outcome, ...]] = {}
        # the packed value counts of a floor, shared by every card played onto it
        self._packed_floors: dict[tuple[Card, ...], int] = {}
        self._sums = SumSearch(self._union, self._choose, self._compulsory)

    def outcomes(self, card: Card, floor: tuple[Card, ...]) -> tuple[Outcome, ...]:
        """The outcomes of playing ``card`` onto ``floor`` to list, default first (at most
        :data:`~.sums.MAX_LISTED`; :meth:`named` accepts any other valid capture)."""
        index: int = card  # typed int: a native table look-up in the mypyc build
        key = (self._key[index], floor)
        found = self._cache.get(key)
        if found is None:
            if len(self._cache) > _CACHE_LIMIT:
                # floors rarely come back: keep the tables small
                self._cache.clear()
                self._packed_floors.clear()
            found = self._cache[key] = self._outcomes(card, floor)
        return found

    def named(
        self, card: Card, floor: tuple[Card, ...], capture: tuple[Card, ...]
    ) -> Outcome | None:
        """The outcome of ``card`` taking exactly ``capture`` (sorted), or None when the
        rules do not allow that capture."""
        for o in self.outcomes(card, floor):
            if o.capture == capture:
                return o
        value = _VALUES[card]
        if not value or (self._special and card == SEVEN_OF_DIAMONDS) or not floor:
            return None  # faces and the 7D have one outcome each, listed above
        if not self._sums.is_capture(value, self._by_value(value, floor), capture):
            return None
        return Outcome(capture, "basra" if len(capture) == len(floor) else None)

    def counts(self, hand: Sequence[Card], floor: tuple[Card, ...]) -> list[int]:
        """How many outcomes each card of ``hand`` lists on ``floor`` (the lengths of
        :meth:`outcomes`), without building any capture."""
        return self.counts_on(list(hand), floor, self._packed_floor(floor))

    def counts_on(self, hand: list[Card], floor: Sequence[Card], packed: int) -> list[int]:
        """:meth:`counts` on a floor whose packed value counts are known (the sum of
        :attr:`units` over its cards)."""
        if not floor:
            return [1] * len(hand)
        wild = packed & _WILD_ON_FLOOR
        sums = self._sums
        known = sums.known
        sum_value = self._sum_value
        out = []
        for card in hand:
            # declared int where it is assigned (a separate declaration would narrow it to
            # Card again): the mypyc build then indexes its tables natively
            index: int = card
            v = sum_value[index]
            if v:  # _reach and SumSearch.entry inlined: this loop is the hottest there is
                reach = (packed & _LOWER[v]) + _UNITS[v - 1] if wild else packed & _LOWER[v]
                found = known.get(reach << 4 | v)
                if found is None:
                    found = sums.entry(v, reach)
                out.append(found[1])
            else:
                out.append(1)
        return out

    def outcome_on(self, card: Card, floor: Sequence[Card], packed: int, k: int) -> Outcome:
        """The ``k``-th of :meth:`outcomes` on a floor whose packed value counts are known,
        worked out afresh (a board's floors rarely come back, so they are not cached)."""
        if not floor:
            return _NOTHING[0]
        index: int = card  # typed int: the mypyc build indexes the tables natively
        v = self._sum_value[index]
        if v:  # _sum_outcomes answers "nothing" first, before looking at the floor's cards
            reach = _reach(v, packed, bool(packed & _WILD_ON_FLOOR))
            return self._sum_outcomes(v, floor, reach)[k]
        if _VALUES[index]:  # a special 7D
            return self._outcomes(card, tuple(floor))[k]
        return self._face(card, floor)  # a face card has one outcome

    def _is_wild(self, card: Card) -> bool:
        return self._wild and card == SEVEN_OF_DIAMONDS

    def _outcomes(self, card: Card, floor: tuple[Card, ...]) -> tuple[Outcome, ...]:
        if not floor:
            return _NOTHING
        if self._special and card == SEVEN_OF_DIAMONDS:
            return (self._seven_of_diamonds(floor),)
        return self._plain(card, floor)

    def packed_counts(self, floor: Iterable[Card]) -> int:
        """The packed value counts of these floor cards: the sum of their :attr:`units`."""
        units = self.units
        packed = 0
        for c in floor:
            index: int = c
            packed += units[index]
        return packed

    def _packed_floor(self, floor: tuple[Card, ...]) -> int:
        """:meth:`packed_counts`, cached by floor."""
        packed = self._packed_floors.get(floor)
        if packed is None:
            packed = self._packed_floors[floor] = self.packed_counts(floor)
        return packed

    def _packed(self, value: int, floor: tuple[Card, ...]) -> int:
        """The packed counts of what a number card of ``value`` may take in a sum."""
        packed = self._packed_floor(floor)
        return _reach(value, packed, bool(packed & _WILD_ON_FLOOR))

    def _by_value(self, value: int, floor: tuple[Card, ...]) -> list[list[Card]]:
        """The floor's cards that a number card of ``value`` may take in a sum, by value
        (index i holds value i+1), in card order; a wild 7D counts as ``value``."""
        by_value: list[list[Card]] = [[] for _ in range(value)]
        for c in sorted(floor):
            v = _VALUES[c]
            if self._is_wild(c):
                by_value[value - 1].append(c)
            elif 0 < v <= value:
                by_value[v - 1].append(c)
        if self._wild and SEVEN_OF_DIAMONDS in floor:
            by_value[-1].sort()
        return by_value

    def _plain(self, card: Card, floor: tuple[Card, ...]) -> tuple[Outcome, ...]:
        index: int = card
        value = _VALUES[index]
        if not value:
            return (self._face(card, floor),)
        return self._sum_outcomes(value, floor, self._packed(value, floor))

    def _sum_outcomes(
        self, value: int, floor: Sequence[Card], packed: int
    ) -> tuple[Outcome, ...]:
        """A number card's outcomes; ``packed`` holds the counts it may take from."""
        choices, count = self._sums.entry(value, packed)
        if not choices:
            return _NOTHING  # the common play: no need to sort the floor by value
        whole = len(floor)
        if count == 1:
            # one capture listed: every card of each value it takes (no choice of cards)
            taken = choices[0]
            units = self.units
            wild_unit = _UNITS[value - 1]  # a wild 7D counts as one more of the card's value
            listed = []
            for c in floor:
                index: int = c
                unit = units[index]
                if taken & (wild_unit if unit == _WILD_ON_FLOOR else unit) * _FIELD:
                    listed.append(c)
            listed.sort()
            capture = tuple(listed)
            return (Outcome(capture, "basra" if len(capture) == whole else None),)
        by_value = self._by_value(value, tuple(floor))
        return tuple(
            Outcome(taken_cards, "basra" if len(taken_cards) == whole else None)
            for taken_cards in self._sums.captures(value, packed, by_value)
        )

    def _face(self, card: Card, floor: Sequence[Card]) -> Outcome:
        """A jack, queen or king."""
        played: int = card
        rank = played >> 2
        if rank == _JACK and self.rules.jack.sweeps:
            return Outcome(tuple(sorted(floor)), self._jack_basra_kind(floor, None))
        wild = SEVEN_OF_DIAMONDS if self._wild else -1  # a wild 7D counts as this rank
        listed = []
        for c in floor:
            index: int = c
            if index >> 2 == rank or index == wild:
                listed.append(c)
        if not listed:
            return _NOTHING[0]
        listed.sort()
        taken = tuple(listed)
        kind: BasraKind | None = None
        if len(taken) == len(floor):
            kind = self._jack_basra_kind(floor, "basra") if rank == _JACK else "basra"
        return Outcome(taken, kind)

    def _jack_basra_kind(
        self, floor: Sequence[Card], otherwise: BasraKind | None
    ) -> BasraKind | None:
        lone = len(floor) == 1 and (floor[0] >> 2 == _JACK or self._is_wild(floor[0]))
        if lone and self.rules.jack.lone_jack_basra:
            return "jack_basra"
        return otherwise

    def _seven_of_diamonds(self, floor: tuple[Card, ...]) -> Outcome:
        """The 7D always takes the whole non-empty floor; only the basra kind varies."""
        whole = tuple(sorted(floor))
        mode = self.rules.seven_of_diamonds.basra
        if mode == "sum_at_most_10":
            numbers = all(_VALUES[c] for c in floor)
            small = numbers and sum(_VALUES[c] for c in floor) <= 10
            return Outcome(whole, "basra" if small else None)
        if mode == "never":
            return Outcome(whole, None)
        values = [_VALUES[c] for c in floor]
        if all(values):
            # number cards only (no wild 7D lies there: it is the card played): no face card
            # takes any, and a number card of value v takes them all when its largest
            # capture does, for v from the floor's highest value up
            packed = self.packed_counts(floor)
            for v in range(max(values), 11):
                choices = self._sums.entry(v, packed)[0]
                if choices and choices[0] == packed:
                    return Outcome(whole, "basra")
            return Outcome(whole, None)
        # a face card lies there: no number card takes it, so only J, Q or K could
        kinds = set()
        for stand_in in _FACE_STAND_INS:
            o = self._face(stand_in, floor)
            if o.basra is not None and len(o.capture) == len(floor):
                kinds.add(o.basra)
        # a plain basra where a Q or K would make one; else a jack's
        kind: BasraKind | None = (
            "basra" if "basra" in kinds else ("jack_basra" if "jack_basra" in kinds else None)
        )
        return Outcome(whole, kind)


def _reach(value: int, packed: int, wild: bool) -> int:
    """The packed counts a number card of ``value`` may take in a sum from a floor of
    ``packed`` counts: values up to its own, and a wild 7D as one more of its value."""
    return (packed & _LOWER[value]) + _UNITS[value - 1] if wild else packed & _LOWER[value]


_CACHE_LIMIT: Final = 8_192
"""(card, floor) outcomes a capturer keeps before it starts again: a round makes about a
thousand and floors rarely come back after it, while each entry costs about 385 bytes
in every web worker (50,000 were 18 MB a worker, a soak's slow growth)."""
_FIELD: Final = (1 << COUNT_BITS) - 1
_UNITS: Final = tuple(1 << (COUNT_BITS * i) for i in range(10))
_LOWER: Final = tuple((1 << (COUNT_BITS * v)) - 1 for v in range(11))
"""Masks of the counts of values 1..v."""
_WILD_ON_FLOOR: Final = 1 << (COUNT_BITS * 10)
"""The field above value 10's count: set while a wild 7D lies on the floor."""
_NOTHING: Final = (Outcome((), None),)


def capturer_for(rules: Rules) -> Capturer:
    """The capturer of a rule set, made once per Rules object."""
    return derived(rules, Capturer)
