"""Sum captures of a number card, searched over the floor's value counts.

A number card of value v takes groups of floor number cards adding up to v
(RULES.md "Number card of value v"). Cards of one value are interchangeable in a
sum, so the search runs on how many cards of each value 1..v lie on the floor
(at most 4 each, 5 with a wild 7D), never on subsets of cards: the largest value
left either sits in a group with a *partner* partition of the rest of v into
values no larger than itself, or stays on the floor. Memoised per value, the
worst floor there is (all 40 number cards) takes a few thousand states; the
cost does not grow with the number of cards.

Counts are packed into one int, five bits a value, so that "does this group fit"
is one subtraction with a guard bit per value.

How many captures a card may list is bounded (:data:`MAX_LISTED`); the default
capture (largest, then first in deck order) is always listed first, and any
other valid capture can still be named: :meth:`SumSearch.is_capture` checks a
named capture exactly.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from math import comb, prod
from typing import Final

from .cards import Card

MAX_LISTED: Final = 64
"""The most captures listed for one card (the default first); more may be named."""

COUNT_BITS: Final = 5
"""Bits a value's count takes in a packed vector."""
_BITS: Final = COUNT_BITS
_FIELD: Final = (1 << _BITS) - 1
_GUARD: Final = sum(16 << (_BITS * i) for i in range(10))
_UNIT: Final = tuple(1 << (_BITS * i) for i in range(10))
# score of a capture: its size first, then more of the smaller values (which puts
# the capture whose cards come first in deck order ahead); counts stay below 8
_SIZE: Final = 8**11
_TIE: Final = tuple(8 ** (10 - i) for i in range(1, 11))
_MEMO_LIMIT: Final = 200_000
_WALK_LIMIT: Final = 4_000


def pack(counts: Sequence[int]) -> int:
    """Counts of values 1, 2, ... packed into one int."""
    return sum(n << (_BITS * i) for i, n in enumerate(counts))


def unpack(packed: int, values: int) -> list[int]:
    """The counts of values 1..``values`` of a packed vector."""
    return [(packed >> (_BITS * i)) & _FIELD for i in range(values)]


def _largest(packed: int) -> int:
    """The largest value with a nonzero count (packed must be nonzero)."""
    return (packed.bit_length() - 1) // _BITS + 1


def _partitions(total: int, most: int) -> Iterator[tuple[int, ...]]:
    """Partitions of ``total`` into parts of at most ``most``, largest parts first."""
    if total == 0:
        yield ()
        return
    for part in range(min(total, most), 0, -1):
        for rest in _partitions(total - part, part):
            yield (part, *rest)


def _partners(value: int) -> list[list[tuple[int, int, int]]]:
    """For each largest card L (index L), every group summing to ``value`` whose largest
    card is L, as (packed counts, size, score)."""
    table: list[list[tuple[int, int, int]]] = [[] for _ in range(value + 1)]
    for largest in range(1, value + 1):
        for rest in _partitions(value - largest, largest):
            counts = [0] * value
            for part in (largest, *rest):
                counts[part - 1] += 1
            score = len(rest) * _SIZE + _SIZE + sum(n * _TIE[i] for i, n in enumerate(counts))
            table[largest].append((pack(counts), len(rest) + 1, score))
    return table


_PARTNERS: Final = [_partners(v) if v else [] for v in range(11)]
_BEST: Final[list[dict[int, int]]] = [{} for _ in range(11)]
_EXACT: Final[list[dict[int, bool]]] = [{} for _ in range(11)]


def best_score(value: int, counts: int) -> int:
    """The score of the best disjoint capture: its size times ``8**11`` plus a tie-break
    that prefers more of the smaller values."""
    memo = _BEST[value]
    found = memo.get(counts)
    if found is not None:
        return found
    if not counts:
        return 0
    if len(memo) > _MEMO_LIMIT:
        memo.clear()
    largest = _largest(counts)
    best = best_score(value, counts - _UNIT[largest - 1])  # this card stays on the floor
    guarded = counts + _GUARD
    for group, _size, score in _PARTNERS[value][largest]:
        left = guarded - group
        if left & _GUARD == _GUARD:
            total = score + best_score(value, left - _GUARD)
            if total > best:
                best = total
    memo[counts] = best
    return best


def best_size(value: int, counts: int) -> int:
    """The most cards one disjoint capture can take."""
    return best_score(value, counts) // _SIZE


def best_capture(value: int, counts: int) -> int:
    """The counts of the default disjoint capture: largest, then most small values."""
    taken = 0
    while counts:
        target = best_score(value, counts)
        if not target:
            break
        largest = _largest(counts)
        rest = counts - _UNIT[largest - 1]
        if best_score(value, rest) == target:
            counts = rest
            continue
        guarded = counts + _GUARD
        for group, _size, score in _PARTNERS[value][largest]:
            left = guarded - group
            if left & _GUARD == _GUARD and score + best_score(value, left - _GUARD) == target:
                taken += group
                counts = left - _GUARD
                break
    return taken


def splits_exactly(value: int, counts: int) -> bool:
    """Whether these cards split into disjoint groups, each adding up to ``value``."""
    if not counts:
        return True
    memo = _EXACT[value]
    found = memo.get(counts)
    if found is not None:
        return found
    if len(memo) > _MEMO_LIMIT:
        memo.clear()
    guarded = counts + _GUARD
    found = False
    for group, _size, _score in _PARTNERS[value][_largest(counts)]:
        left = guarded - group
        if left & _GUARD == _GUARD and splits_exactly(value, left - _GUARD):
            found = True
            break
    memo[counts] = found
    return found


def _sums_reachable(counts: Sequence[int], value: int) -> int:
    """Bit s set when some of these cards (counts of values 1..) add up to s <= value."""
    reach = 1
    mask = (1 << (value + 1)) - 1
    for i, n in enumerate(counts):
        for _ in range(n):
            reach = (reach | reach << (i + 1)) & mask
    return reach


def _in_some_group(counts: Sequence[int], value: int) -> list[bool]:
    """For each value i, whether a card of value i belongs to a group within ``counts``."""
    out = []
    for i, n in enumerate(counts):
        if not n:
            out.append(False)
            continue
        others = list(counts)
        others[i] -= 1
        out.append(bool(_sums_reachable(others, value) >> (value - i - 1) & 1))
    return out


class _Walk:
    """One search of the disjoint captures of a card of ``value``: the captures found
    (packed), the default first, and the steps left. (A class rather than a recursive
    closure: a closure that names itself is a reference cycle, left for the cyclic
    collector after every search.)"""

    def __init__(self, value: int, default: int) -> None:
        self.value = value
        self.found = {default}
        self.out = [default]
        self.budget = _WALK_LIMIT

    def optimal(self, left: int, need: int, taken: int, at: int, since: int) -> None:
        """Collect the captures of ``need`` more cards from the counts ``left``."""
        self.budget -= 1
        if self.budget < 0 or len(self.out) >= MAX_LISTED:
            return
        if need == 0 or not left:
            if need == 0 and taken not in self.found:
                self.found.add(taken)
                self.out.append(taken)
            return
        value = self.value
        largest = _largest(left)
        field = _FIELD << (_BITS * (largest - 1))
        rest = left & ~field  # the remaining cards of this value stay
        if best_size(value, rest) == need:
            self.optimal(rest, need, taken, 0, 0)
        guarded = left + _GUARD
        partners = _PARTNERS[value][largest]
        start = since if at == largest else 0
        for k in range(start, len(partners)):
            group, size, _score = partners[k]
            after = guarded - group
            if after & _GUARD == _GUARD:
                after -= _GUARD
                if size + best_size(value, after) == need:
                    self.optimal(after, need - size, taken + group, largest, k)

    def any_disjoint(self, left: int, taken: int, at: int, since: int) -> None:
        """Collect the captures of any size from the counts ``left``."""
        self.budget -= 1
        if self.budget < 0 or len(self.found) >= MAX_LISTED:
            return
        if not left:
            if taken and taken not in self.found:
                self.found.add(taken)
                self.out.append(taken)
            return
        largest = _largest(left)
        guarded = left + _GUARD
        partners = _PARTNERS[self.value][largest]
        start = since if at == largest else 0
        for k in range(start, len(partners)):
            after = guarded - partners[k][0]
            if after & _GUARD == _GUARD:
                self.any_disjoint(after - _GUARD, taken + partners[k][0], largest, k)
        self.any_disjoint(left & ~(_FIELD << (_BITS * (largest - 1))), taken, 0, 0)


class SumSearch:
    """The sum captures of one rule set (``capture.groups`` and ``capture.mode``)."""

    def __init__(self, union: bool, choose: bool, compulsory: bool) -> None:
        self.union = union
        self.choose = choose
        self.compulsory = compulsory
        self.known: dict[int, tuple[list[int], int]] = {}
        """:meth:`entry` by ``packed << 4 | value``, read directly on the hottest path:
        floors differ, their counts recur."""

    # --- which value counts may be taken ---------------------------------------

    def entry(self, value: int, packed: int) -> tuple[list[int], int]:
        """(the packed captures to list, best first, empty when nothing can be taken; how
        many captures :meth:`captures` lists) for a card of ``value`` on these counts."""
        key = packed << 4 | value
        found = self.known.get(key)
        if found is None:
            if len(self.known) > _MEMO_LIMIT:
                self.known.clear()
            counts = unpack(packed, value)
            choices = self._search(value, counts)
            found = self.known[key] = (choices, self._listed(value, counts, choices))
        return found

    def _choices(self, value: int, counts: list[int]) -> list[int]:
        """Packed counts of the captures to list, best first, at most a bounded number;
        empty when nothing can be taken."""
        return self.entry(value, pack(counts))[0]

    def _listed(self, value: int, counts: list[int], choices: list[int]) -> int:
        """How many captures :meth:`captures` lists for these choices."""
        if not choices:
            return 1
        total = 0
        for packed in choices:
            wanted = unpack(packed, value)
            total += min(MAX_LISTED, prod(comb(n, k) for n, k in zip(counts, wanted, strict=True)))
            if total >= MAX_LISTED:
                break
        if self.choose and not self.compulsory:
            return min(total, MAX_LISTED - 1) + 1
        return min(total, MAX_LISTED)

    def _search(self, value: int, counts: list[int]) -> list[int]:
        packed = pack(counts)
        if self.union:
            member = _in_some_group(counts, value)
            full = pack([n if m else 0 for n, m in zip(counts, member, strict=True)])
            if not full:
                return []
            if not self.choose:
                return [full]
            return self._union_subsets(value, counts, member)
        if not best_score(value, packed):
            return []
        default = best_capture(value, packed)
        if not self.choose:
            return self._optimal(value, packed, default)
        return self._any_disjoint(value, packed, default)

    def _optimal(self, value: int, counts: int, default: int) -> list[int]:
        """Every capture of the largest size (bounded), the default first."""
        walk = _Walk(value, default)
        walk.optimal(counts, best_size(value, counts), 0, 0, 0)
        return walk.out

    def _any_disjoint(self, value: int, counts: int, default: int) -> list[int]:
        """Captures of any size (bounded), the default first."""
        walk = _Walk(value, default)
        walk.any_disjoint(counts, 0, 0, 0)
        return walk.out

    def _union_subsets(self, value: int, counts: list[int], member: list[bool]) -> list[int]:
        """Unions of groups (bounded), the whole union first."""
        ranges = [range(n if m else 0, -1, -1) for n, m in zip(counts, member, strict=True)]
        out = []
        for chosen in itertools.islice(itertools.product(*ranges), _WALK_LIMIT):
            if not any(chosen):
                continue
            grouped = _in_some_group(chosen, value)  # once per union, not once per value
            if all(grouped[i] for i, n in enumerate(chosen) if n):
                out.append(pack(chosen))
                if len(out) >= MAX_LISTED:
                    break
        return out

    # --- cards ---------------------------------------------------------------------

    def captures(
        self, value: int, packed: int, by_value: Sequence[Sequence[Card]]
    ) -> list[tuple[Card, ...]]:
        """The captures to list for a number card of ``value``: sorted card tuples, largest
        first, then first in deck order, at most :data:`MAX_LISTED`; ``[()]`` when it can
        take nothing. ``by_value[i]`` holds the floor's cards of value i+1, in card order,
        and ``packed`` their counts."""
        choices = self.entry(value, packed)[0]
        if not choices:
            return [()]
        if len(choices) == 1 and choices[0] == packed:  # everything goes: the common case
            whole = tuple(sorted(c for cards in by_value for c in cards))
            return [whole, ()] if self.choose and not self.compulsory else [whole]
        out: list[tuple[Card, ...]] = []
        for packed in choices:
            wanted = unpack(packed, value)
            combos = itertools.product(*(
                itertools.combinations(cards, n) for cards, n in zip(by_value, wanted, strict=True)
            ))
            for combo in itertools.islice(combos, MAX_LISTED):
                out.append(tuple(sorted(c for part in combo for c in part)))
            if len(out) >= 4 * MAX_LISTED:
                break
        # the default (first choice, first cards of each value) sorts first
        out.sort(key=lambda taken: (-len(taken), taken))
        if self.choose and not self.compulsory:
            return [*out[: MAX_LISTED - 1], ()]  # taking nothing is listed last
        return out[:MAX_LISTED]

    def is_capture(
        self, value: int, by_value: Sequence[Sequence[Card]], named: Sequence[Card]
    ) -> bool:
        """Whether ``named`` (distinct cards) is a capture the rules allow, listed or not."""
        if not named:
            counts = [len(cards) for cards in by_value]
            return not self._choices(value, counts) or (self.choose and not self.compulsory)
        where = {c: i for i, cards in enumerate(by_value) for c in cards}
        if len(set(named)) != len(named) or any(c not in where for c in named):
            return False
        taken = [0] * value
        for c in named:
            taken[where[c]] += 1
        counts = [len(cards) for cards in by_value]
        if self.union:
            inside = _in_some_group(taken, value)
            if not all(inside[i] for i, n in enumerate(taken) if n):
                return False
            if self.choose:
                return True
            member = _in_some_group(counts, value)
            return taken == [n if m else 0 for n, m in zip(counts, member, strict=True)]
        if not splits_exactly(value, pack(taken)):
            return False
        return self.choose or len(named) == best_size(value, pack(counts))
