"""Fair, verifiable shuffles.

A match has a secret 32-byte seed from :mod:`secrets`; its commitment is the
hex SHA-256 of the seed. Round ``k``'s deck (k = 1, 2, ...) is

1. start from the canonical deck order (``AC AD AH AS 2C ... KS``);
2. draw 32-bit big-endian words from the stream
   ``HMAC-SHA256(seed, b"basra-deck" || k as 4 bytes BE || n as 4 bytes BE)``
   for n = 0, 1, 2, ... (each block gives eight words, in order);
3. Fisher-Yates: for i from 51 down to 1, draw words until one is below
   ``2**32 - (2**32 % (i + 1))`` (rejection sampling, so no bias) and swap
   position i with position ``word % (i + 1)``.

The resulting list is the deck, top card first. ``basra deck --seed HEX
--round K`` prints it, so anyone can check a finished match.
"""

from __future__ import annotations

import hashlib
import secrets
import struct
from typing import Final

from .cards import DECK, Card
from .errors import InvalidDeck

try:
    # CPython's one-shot C functions: a round's whole stream in two calls (one HMAC object
    # per block, copied, fed and finished, was a sixth of a compiled random-play round)
    from _hashlib import hmac_digest as _hmac
    from _hashlib import pbkdf2_hmac as _pbkdf2
except ImportError:  # pragma: no cover - a Python without OpenSSL
    from hashlib import pbkdf2_hmac as _pbkdf2
    from hmac import digest as _hmac  # type: ignore[assignment]

SEED_BYTES: Final = 32
_DOMAIN: Final = b"basra-deck"


def new_seed() -> bytes:
    """A fresh secret seed from a cryptographically secure source."""
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> str:
    """The public commitment to a seed: hex SHA-256 of the seed bytes."""
    return hashlib.sha256(seed).hexdigest()


def parse_seed(text: str) -> bytes:
    """A seed from its hex form."""
    try:
        seed = bytes.fromhex(text)
    except ValueError as exc:
        raise InvalidDeck(f"seed must be hex digits: {exc}") from exc
    if not seed:
        raise InvalidDeck("seed must not be empty")
    return seed


def _stream(seed: bytes, round_number: int, blocks: int) -> bytes:
    """Blocks 0 .. ``blocks - 1`` of the round's stream, joined.

    Block 0 is one HMAC; blocks 1, 2, ... are PBKDF2-HMAC-SHA256 of the same prefix with
    one iteration, which is by definition (RFC 8018, 5.2) the concatenation of
    ``HMAC(seed, prefix || INT(i))`` for i = 1, 2, ...: the documented stream, two C calls
    instead of one HMAC object per block."""
    prefix = _DOMAIN + struct.pack(">I", round_number)
    first = _hmac(seed, prefix + _BLOCK_ZERO, "sha256")
    if blocks == 1:
        return first
    return first + _pbkdf2("sha256", seed, prefix, 1, 32 * (blocks - 1))


def _words(seed: bytes, round_number: int, start: int, blocks: int) -> tuple[int, ...]:
    """Words of blocks ``start`` .. ``start + blocks - 1`` of the round's stream."""
    stream = _stream(seed, round_number, start + blocks)[32 * start:]
    return struct.unpack(f">{8 * blocks}I", stream)


# (position i, bound below which a word is kept) for i = 51 .. 1
_DRAWS: Final = tuple((i, (1 << 32) - ((1 << 32) % (i + 1))) for i in range(51, 0, -1))
_LIMITS: Final[tuple[int, ...]] = tuple(limit for _, limit in _DRAWS)
_FIRST_BLOCKS: Final = 7
"""Blocks drawn at once: 51 words and five spare (a word is rejected about once in
ten million)."""
_BLOCK_ZERO: Final = struct.pack(">I", 0)
_FIRST_WORDS: Final = struct.Struct(f">{8 * _FIRST_BLOCKS}I").unpack


def deck_for_round(seed: bytes, round_number: int) -> tuple[Card, ...]:
    """The shuffled deck of round ``round_number`` (1-based), top card first."""
    if round_number < 1:
        raise InvalidDeck("rounds are numbered from 1")
    words: tuple[int, ...] = _FIRST_WORDS(_stream(seed, round_number, _FIRST_BLOCKS))
    deck = list(DECK)
    # the usual case: none of the first 51 words is rejected, so word w is position 51 - w's
    for w in range(51):
        word = words[w]
        if word >= _LIMITS[w]:
            return _drawn(seed, round_number, words)
        i = 51 - w
        j = word % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def _drawn(seed: bytes, round_number: int, words: tuple[int, ...]) -> tuple[Card, ...]:
    """:func:`deck_for_round` step by step, rejected words skipped (from the start)."""
    deck = list(DECK)
    w = 0
    for i, limit in _DRAWS:
        while True:
            if w == len(words):
                words += _words(seed, round_number, len(words) // 8, 1)
            word = words[w]
            w += 1
            if word < limit:
                break
        j = word % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def check_deck(cards: tuple[Card, ...], where: str = "deck") -> tuple[Card, ...]:
    """Check that ``cards`` is 52 distinct cards."""
    if len(cards) != 52:
        raise InvalidDeck(f"{where}: a deck is 52 cards, got {len(cards)}")
    if len(set(cards)) != 52:
        seen: set[Card] = set()
        dupes = sorted({str(c) for c in cards if c in seen or seen.add(c)})  # type: ignore[func-returns-value]
        raise InvalidDeck(f"{where}: cards appear twice: {', '.join(dupes)}")
    return cards
