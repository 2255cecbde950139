"""What a played card takes from the floor (RULES.md "A turn").

The search for sum captures is complete, never greedy: it lists every group
(set of floor number cards adding up to the played value) and then every
union of groups the rules allow (pairwise disjoint groups, or any groups
under ``capture.groups: union``). Results are cached twice: by the value
multiset of the floor (the expensive search) and by (card, floor).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .cards import DECK, RANKS, SEVEN_OF_DIAMONDS, Card
from .rules import Rules

BasraKind = Literal["basra", "jack_basra"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """One possible result of playing a card: what it takes and what it scores."""

    capture: tuple[Card, ...]
    """Captured floor cards in card order; empty when the card stays on the floor."""
    basra: BasraKind | None


def _groups(value: int, values: tuple[int, ...]) -> list[int]:
    """Bitmasks of every subset of ``values`` (sorted ascending) summing to ``value``."""
    found: list[int] = []
    n = len(values)

    def walk(start: int, total: int, mask: int) -> None:
        for i in range(start, n):
            t = total + values[i]
            if t > value:
                return  # sorted ascending: nothing further fits
            m = mask | (1 << i)
            if t == value:
                found.append(m)
            else:
                walk(i + 1, t, m)

    walk(0, 0, 0)
    return found


def sum_captures(
    value: int, values: tuple[int, ...], union: bool, choose: bool, compulsory: bool
) -> tuple[int, ...]:
    """Every capture a number card of ``value`` may make, as bitmasks over ``values``.

    ``values`` are the floor's number-card values sorted ascending. The result
    is ordered largest capture first, then by mask; ``0`` (take nothing) is
    included only when no capture exists, or in ``choose`` mode when capture
    is not compulsory.
    """
    groups = _groups(value, values)
    if not groups:
        return (0,)
    reach = {0}
    for g in groups:
        if union:
            reach |= {m | g for m in reach}
        else:
            reach |= {m | g for m in reach if not m & g}
    reach.discard(0)
    if not choose:
        if union:
            full = 0
            for g in groups:
                full |= g
            reach = {full}
        else:
            best = max(m.bit_count() for m in reach)
            reach = {m for m in reach if m.bit_count() == best}
    ordered = sorted(reach, key=lambda m: (-m.bit_count(), m))
    if choose and not compulsory:
        ordered.append(0)
    return tuple(ordered)


# A stand-in card of each rank for "what would a card of rank r do here"
# (the 7D acting as any rank); spades are never the special card.
_STAND_INS: tuple[Card, ...] = tuple(DECK[i * 4 + 3] for i in range(len(RANKS)))
_VALUES: tuple[int, ...] = tuple(c.value for c in DECK)
_JACK = RANKS.index("J")


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
        self._key = tuple(
            0 if self._special and c == SEVEN_OF_DIAMONDS else (_VALUES[c] or 11 + (c >> 2) - 10)
            for c in DECK
        )
        self._cache: dict[tuple[int, tuple[Card, ...]], tuple[Outcome, ...]] = {}
        # a floor's number cards in value order, shared by every card played onto it
        self._numbers: dict[tuple[Card, ...], tuple[list[Card], tuple[int, ...]]] = {}
        # (played value, floor values) -> capture masks
        self._sums: dict[tuple[int, tuple[int, ...]], tuple[int, ...]] = {}

    def outcomes(self, card: Card, floor: tuple[Card, ...]) -> tuple[Outcome, ...]:
        """Every distinct outcome of playing ``card`` onto ``floor``, default first."""
        key = (self._key[card], floor)
        found = self._cache.get(key)
        if found is None:
            if len(self._cache) > _CACHE_LIMIT:
                # floors rarely come back: keep the table small; sums by value do recur
                self._cache.clear()
                self._numbers.clear()
                if len(self._sums) > _CACHE_LIMIT:
                    self._sums.clear()
            found = self._cache[key] = self._outcomes(card, floor)
        return found

    def _is_wild(self, card: Card) -> bool:
        return self._wild and card == SEVEN_OF_DIAMONDS

    def _outcomes(self, card: Card, floor: tuple[Card, ...]) -> tuple[Outcome, ...]:
        if not floor:
            return _NOTHING
        if self._special and card == SEVEN_OF_DIAMONDS:
            return (self._seven_of_diamonds(floor),)
        return self._plain(card, floor)

    def _numbers_of(self, floor: tuple[Card, ...]) -> tuple[list[Card], tuple[int, ...]]:
        """The floor's number cards in value order, and their values (no wild 7D)."""
        numbers = self._numbers.get(floor)
        if numbers is None:
            # card order is rank-major, so sorting cards sorts them by value
            ordered = sorted(c for c in floor if _VALUES[c])
            numbers = self._numbers[floor] = (ordered, tuple(_VALUES[c] for c in ordered))
        return numbers

    def _masks(self, value: int, values: tuple[int, ...]) -> tuple[int, ...]:
        """Capture masks of a number card of ``value`` over floor ``values``; ``(0,)``
        when it can take nothing."""
        if not values or values[0] > value:
            return (0,)
        masks = self._sums.get((value, values))
        if masks is None:
            masks = self._sums[(value, values)] = sum_captures(
                value, values, self._union, self._choose, self._compulsory
            )
        return masks

    def _sum_masks(
        self, value: int, floor: tuple[Card, ...]
    ) -> tuple[list[Card], tuple[int, ...]]:
        """The floor's number cards (in value order) and the capture masks over them of a
        number card of ``value``."""
        if self._wild and SEVEN_OF_DIAMONDS in floor:
            # the wild 7D counts as a card of the played value
            pairs = sorted(
                (value if c == SEVEN_OF_DIAMONDS else _VALUES[c], c) for c in floor if _VALUES[c]
            )
            return [c for _, c in pairs], self._masks(value, tuple(v for v, _ in pairs))
        candidates, values = self._numbers_of(floor)
        return candidates, self._masks(value, values)

    def counts(self, hand: tuple[Card, ...], floor: tuple[Card, ...]) -> list[int]:
        """How many distinct outcomes each card of ``hand`` has on ``floor``: the lengths
        of :meth:`outcomes`, without building any capture."""
        if not floor:
            return [1] * len(hand)
        wild = self._wild and SEVEN_OF_DIAMONDS in floor
        values = () if wild else self._numbers_of(floor)[1]
        out = []
        for card in hand:
            value = _VALUES[card]
            if not value or (self._special and card == SEVEN_OF_DIAMONDS):
                out.append(1)
            elif wild:
                out.append(len(self._sum_masks(value, floor)[1]))
            else:
                out.append(len(self._masks(value, values)))
        return out

    def _plain(self, card: Card, floor: tuple[Card, ...]) -> tuple[Outcome, ...]:
        value = _VALUES[card]
        if not value:
            return (self._face(card, floor),)
        candidates, masks = self._sum_masks(value, floor)
        if masks == (0,):
            return _NOTHING
        whole = len(floor)
        out = []
        for mask in masks:
            if mask & (mask - 1) == 0:  # a single card: the common case
                taken: tuple[Card, ...] = (candidates[mask.bit_length() - 1],) if mask else ()
            else:
                taken = tuple(sorted(c for i, c in enumerate(candidates) if mask >> i & 1))
            out.append(Outcome(taken, "basra" if len(taken) == whole else None))
        # the documented default order: largest first, then the capture whose cards come
        # first in deck order (A..K, suits C D H S)
        if len(out) > 1:
            out.sort(key=lambda o: (-len(o.capture), o.capture))
        return tuple(out)

    def _face(self, card: Card, floor: tuple[Card, ...]) -> Outcome:
        """A jack, queen or king."""
        rank = card >> 2
        if rank == _JACK and self.rules.jack.sweeps:
            return Outcome(tuple(sorted(floor)), self._jack_basra_kind(floor, None))
        wild = SEVEN_OF_DIAMONDS if self._wild else None  # a wild 7D counts as this rank
        taken = tuple(sorted(c for c in floor if c >> 2 == rank or c == wild))
        kind: BasraKind | None = None
        if taken and len(taken) == len(floor):
            kind = self._jack_basra_kind(floor, "basra") if rank == _JACK else "basra"
        return Outcome(taken, kind)

    def _jack_basra_kind(
        self, floor: tuple[Card, ...], otherwise: BasraKind | None
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
        kinds = set()
        for stand_in in _STAND_INS:
            for o in self._plain(stand_in, floor):
                if o.basra is not None and len(o.capture) == len(floor):
                    kinds.add(o.basra)
        # a plain basra where a number card, Q or K would make one; else a jack's
        kind: BasraKind | None = (
            "basra" if "basra" in kinds else ("jack_basra" if "jack_basra" in kinds else None)
        )
        return Outcome(whole, kind)


_CACHE_LIMIT = 50_000
_NOTHING = (Outcome((), None),)
_CAPTURERS: dict[int, tuple[Rules, Capturer]] = {}


def capturer_for(rules: Rules) -> Capturer:
    """The capturer of a rule set, made once per Rules object."""
    entry = _CAPTURERS.get(id(rules))
    if entry is not None and entry[0] is rules:
        return entry[1]
    if len(_CAPTURERS) > 256:
        _CAPTURERS.clear()
    capturer = Capturer(rules)
    _CAPTURERS[id(rules)] = (rules, capturer)
    return capturer
