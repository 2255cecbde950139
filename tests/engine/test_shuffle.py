"""Fair shuffles (RULES.md): seeded, documented, unbiased, verifiable."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import struct
from collections import Counter
from collections.abc import Iterator

import pytest

from service.engine import DECK, InvalidDeck, commitment, deck_for_round, new_match, new_seed
from service.engine.shuffle import _drawn, _words, check_deck
from tests.helpers import SEED, rules_of


def test_deck_is_a_deterministic_function_of_seed_and_round() -> None:
    """RULES.md Fair shuffles: round k's deck is derived from the seed and k."""
    assert deck_for_round(SEED, 1) == deck_for_round(SEED, 1)
    assert deck_for_round(SEED, 1) != deck_for_round(SEED, 2)
    assert sorted(deck_for_round(SEED, 3)) == list(DECK)


def test_deck_derivation_known_answer() -> None:
    """The documented shuffle gives this exact deck: a change to it breaks old matches."""
    first = [str(c) for c in deck_for_round(bytes.fromhex("00ff"), 2)[:8]]
    assert first == ["4D", "5S", "5C", "10S", "10H", "KC", "9S", "KH"]


@pytest.mark.parametrize("seed", [bytes.fromhex("00ff"), SEED, bytes(range(32)) * 3])
def test_deck_words_are_the_documented_hmac_stream(seed: bytes) -> None:
    """The words the shuffle draws are HMAC-SHA256(seed, b"basra-deck" || k || n), as the
    module documents, whichever HMAC implementation computes them (blocks past the
    first seven too, drawn when words are rejected)."""
    for round_number in (1, 2, 300):
        blocks = b"".join(
            hmac.new(seed, b"basra-deck" + struct.pack(">II", round_number, n), "sha256").digest()
            for n in range(9))
        expected = struct.unpack(">72I", blocks)
        assert _words(seed, round_number, 0, 7) == expected[:56]
        assert _words(seed, round_number, 7, 2) == expected[56:]


def _documented_deck(seed: bytes, round_number: int) -> list[str]:
    """The shuffle exactly as shuffle.py's docstring (and the README) words it, with the
    hmac module: one block at a time, a word at a time."""
    def words() -> Iterator[int]:
        for n in itertools.count():
            block = hmac.new(seed, b"basra-deck" + struct.pack(">II", round_number, n),
                             "sha256").digest()
            yield from struct.unpack(">8I", block)

    deck, stream = list(DECK), words()
    for i in range(51, 0, -1):
        word = next(stream)
        while word >= 2**32 - 2**32 % (i + 1):
            word = next(stream)
        j = word % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return [str(c) for c in deck]


# 009fcb99's round 1 rejects its 30th word (4294967292 at position 22, bound 4294967284):
# found by search, as a real rejection comes about once in seven million decks
@pytest.mark.parametrize(("seed", "round_number"), [
    (bytes.fromhex("00ff"), 2), (SEED, 1), (SEED, 9), (bytes(range(32)) * 3, 300),
    (bytes.fromhex("009fcb99"), 1),
])
def test_deck_is_the_documented_shuffle(seed: bytes, round_number: int) -> None:
    """RULES.md Fair shuffles: the deck is the documented Fisher-Yates over the HMAC
    stream, rejected words included."""
    assert [str(c) for c in deck_for_round(seed, round_number)] == \
        _documented_deck(seed, round_number)


@pytest.mark.parametrize("seed", [bytes.fromhex("00ff"), SEED])
def test_rejected_words_are_skipped(seed: bytes) -> None:
    """Fisher-Yates draws again when a word is at or above the position's bound: a deck
    drawn with a rejected word in front, or in the middle, is the deck drawn without it
    (the step-by-step drawing the usual case falls back to; a real rejection comes about
    once in three million decks)."""
    words = _words(seed, 2, 0, 7)
    assert _drawn(seed, 2, words) == deck_for_round(seed, 2)
    # 2**32 - 1 is rejected at positions 51 (of 52) and 30 (of 31): neither divides 2**32
    assert _drawn(seed, 2, (2**32 - 1, *words[:55])) == deck_for_round(seed, 2)
    assert _drawn(seed, 2, (*words[:21], 2**32 - 1, *words[21:55])) == deck_for_round(seed, 2)
    # eight rejected words in place of block 0: the deck of blocks 1 .. 8, block 7 drawn
    # from the same stream once the first seven run out
    rejected = (2**32 - 1,) * 8
    assert _drawn(seed, 2, (*rejected, *words[8:])) == _drawn(seed, 2, _words(seed, 2, 1, 8))
    assert _drawn(seed, 2, (*rejected, *words[8:])) != deck_for_round(seed, 2)


def test_commitment_is_sha256_of_the_seed() -> None:
    """RULES.md: a hash of the seed is published when the match is created."""
    seed = new_seed()
    assert len(seed) == 32 and new_seed() != seed
    assert commitment(seed) == hashlib.sha256(seed).hexdigest()


def test_seeded_match_deals_from_the_seed() -> None:
    """A match without explicit decks deals round 1 from deck_for_round(seed, 1)."""
    state = new_match(rules_of(), SEED)
    deck = deck_for_round(SEED, 1)
    assert state.hands[0] == deck[:4] and state.hands[1] == deck[4:8]


def test_shuffle_is_unbiased_in_the_top_position() -> None:
    """Fisher-Yates with rejection sampling: each card tops the deck about equally often."""
    tops = Counter(deck_for_round(i.to_bytes(4, "big"), 1)[0] for i in range(5200))
    expected = 100
    chi2 = sum((tops[c] - expected) ** 2 / expected for c in DECK)
    assert chi2 < 90  # 51 degrees of freedom: p ~ 0.001


def test_explicit_decks_must_be_52_distinct_cards() -> None:
    """RULES.md: decks given explicitly are one list of 52 cards per round."""
    with pytest.raises(InvalidDeck, match="52 cards"):
        check_deck(tuple(DECK[:51]))
    with pytest.raises(InvalidDeck, match="twice: AC"):
        check_deck((DECK[0],) + tuple(DECK[:51]))
