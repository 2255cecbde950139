"""What may be said at a table: the fixed phrases (English and Arabic), and the word
filter over free text, written for Arabic script, Latin script and Arabizi (Arabic in
Latin letters and digits: ``3`` for ع, ``7`` for ح, ``5`` for خ).

The filter normalises the text, then splits it into words, and normalises its words
the same way: format (Cf) and combining (Mn, Me) characters and tatweel dropped (Arabic
diacritics, a zero-width space inside a word), compatibility forms (fullwidth, styled)
and case folded, Persian and Urdu letter forms and the alef, ya and ta marbuta forms read
as the Arabic the list is written in, ``@`` and ``$`` for ``a`` and ``s``, and every
character as its Unicode confusable prototype (UTS #39 skeletons: Cyrillic ``с`` is
``c``). A word is also found in leet (``sh1t``), with an Arabic prefix attached
(و ف ب ل ال يا), stretched (``fuuuck``), or spelled out letter by letter (``f u c k``,
``f.u.c.k``). A word found is masked with ``*`` as written, the rest of the line kept.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Phrase:
    """A fixed phrase: its id (what a client sends) and its texts."""

    id: str
    en: str
    ar: str


PHRASES: tuple[Phrase, ...] = (
    Phrase("hello", "Hello!", "أهلًا!"),
    Phrase("good_luck", "Good luck!", "بالتوفيق!"),
    Phrase("have_fun", "Have fun!", "استمتعوا!"),
    Phrase("basra", "Basra!", "بصرة!"),
    Phrase("nice_basra", "Nice basra!", "بصرة حلوة!"),
    Phrase("well_played", "Well played!", "لعب حلو!"),
    Phrase("nice_partner", "Nice one, partner!", "حلوة يا شريكي!"),
    Phrase("unlucky", "Unlucky!", "حظ وحش!"),
    Phrase("wow", "Wow!", "واو!"),
    Phrase("oops", "Oops!", "أوبس!"),
    Phrase("sorry", "Sorry!", "آسف!"),
    Phrase("thanks", "Thanks!", "شكرًا!"),
    Phrase("thinking", "Let me think…", "ثانية أفكر…"),
    Phrase("hurry", "Please hurry.", "بسرعة لو سمحت."),
    Phrase("good_game", "Good game!", "ماتش حلو!"),
    Phrase("rematch", "Rematch?", "ماتش تاني؟"),
    Phrase("bye", "Bye!", "سلام!"),
)
BY_ID = {phrase.id: phrase for phrase in PHRASES}

WORDS: tuple[str, ...] = (
    # Latin script
    "fuck", "fucker", "fucking", "motherfucker", "shit", "bitch", "bastard", "asshole",
    "dick", "cunt", "whore", "slut", "faggot", "nigger", "nigga", "retard", "wanker",
    # Arabizi (Egyptian Arabic in Latin letters)
    "a7a", "a7eh", "5awal", "khawal", "sharmouta", "sharmoota", "sharmota", "metnak",
    "metnaka", "3ars", "kos", "koss", "kosomak", "kosomk", "zeb", "zob", "manyak",
    "manyook", "ibnelkalb", "ebnelkalb", "wes5", "weskh",
    # Arabic script
    "احا", "خول", "شرموط", "شرموطه", "متناك", "متناكه", "عرص", "كس", "كسمك", "كسم", "زب",
    "منيوك", "منيك", "لبوه", "وسخه", "معرص", "قحبه",
)
PREFIXES = ("وال", "بال", "فال", "يا", "ال", "و", "ف", "ب", "ل")
"""Arabic prefixes written joined to the word they lead."""

_IGNORED = frozenset("\u0640\u115f\u1160\u3164\uffa0")  # tatweel, Hangul fillers
"""Letters that draw nothing (or only stretch a joined Arabic word): dropped like the
format (Cf) and combining (Mn, Me) characters."""
_FOLD = str.maketrans({
    "ى": "ي", "ة": "ه", "ٱ": "ا", "@": "a", "$": "s",
    # Persian and Urdu letter forms, as the Arabic the word list is written in
    "ک": "ك", "ڪ": "ك", "ی": "ي", "ې": "ي", "ۍ": "ي", "ے": "ي", "ہ": "ه", "ھ": "ه",
    "ە": "ه", "ۃ": "ه", "ں": "ن",
})
_LEET = str.maketrans("013457!|", "oieastii")
"""Digits and signs written for letters (``sh1t``); tried besides the word as written,
since Arabizi spells letters with digits (``a7a``, ``3ars``)."""
_INNER = frozenset("!|")
"""Signs that are part of a word only between two letters (``sh!t``, not ``fuck!``)."""
_RUN = re.compile(r"(.)\1+")


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Unicode's confusable prototype (UTS #39) of each character that has one, from
    confusable-homoglyphs' copy of ``confusables.txt``; ASCII digits keep their own
    (Arabizi and leet read them as letters)."""
    # loaded at the first chat line, not at every process's start (90 ms of its import)
    from confusable_homoglyphs.confusables import confusables_data

    marks = "\u200e\u200f"  # the library keeps right-to-left glyphs wrapped in these
    pairs = {k.strip(marks): [e["c"].strip(marks) for e in v]
             for k, v in confusables_data.items()}
    out: dict[str, str] = {}
    for char, glyphs in pairs.items():
        # a source appears on one line, as the one glyph of its own entry; of a pair
        # each of which names only the other, the lower code point is the prototype
        if len(char) != 1 or len(glyphs) != 1 or char.isdigit() and char.isascii():
            continue
        target = glyphs[0]
        if target and target != char and (len(pairs.get(target, ())) != 1 or
                                          len(target) > 1 or target < char):
            out[char] = target
    return out


@lru_cache(maxsize=4096)
def _folded(char: str) -> str:
    """A character as the filter compares it (possibly none, or several)."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", char)
                    if c not in _IGNORED and unicodedata.category(c) not in ("Cf", "Mn", "Me"))
    plain = unicodedata.normalize("NFKC", plain).translate(_FOLD)
    return unicodedata.normalize("NFKC", "".join(_skeleton(c) for c in plain))


def _skeleton(char: str) -> str:
    """A character's prototype, lower case: a capital of another script as the capital
    it looks like (Cyrillic ``Н`` is ``h``), a Latin capital as its own small letter
    (``I`` is ``i``, not the ``l`` it may look like)."""
    prototypes = _prototypes()
    if not char.isascii() and char in prototypes:
        return "".join(prototypes.get(c, c) for c in prototypes[char].casefold())
    return "".join(prototypes.get(c, c) for c in char.casefold())


def _letter(char: str) -> bool:
    return char.isalnum() or unicodedata.category(char) == "Mn"


def _normalised(text: str) -> tuple[str, list[int]]:
    """The text with every character folded (:func:`_folded`), and for each character
    of that the index of the one it came from, so a word found is masked as written."""
    out: list[str] = []
    origin: list[int] = []
    for i, char in enumerate(text):
        folded = _folded(char)
        out.append(folded)
        origin.extend([i] * len(folded))
    return "".join(out), origin


def normal(word: str) -> str:
    """A word as the filter compares it."""
    return _normalised(word)[0]


def _tokens(text: str) -> list[tuple[int, int]]:
    """The spans of the words of a normalised text: letters, digits and (between two of
    them) the signs of :data:`_INNER`."""
    spans: list[tuple[int, int]] = []
    start = None
    for i, char in enumerate(text):
        inner = (char in _INNER and start is not None and i + 1 < len(text)
                 and _letter(text[i + 1]))
        if _letter(char) or inner:
            start = i if start is None else start
        elif start is not None:
            spans.append((start, i))
            start = None
    if start is not None:
        spans.append((start, len(text)))
    return spans


def _squeezed(word: str) -> str:
    return _RUN.sub(r"\1", word)


@dataclass(frozen=True)
class WordList:
    """Words to mask, normalised, and the same squeezed (runs of a letter as one)."""

    words: frozenset[str]
    squeezed: frozenset[str]
    prefixes: tuple[str, ...] = tuple(PREFIXES)

    def bad(self, token: str) -> bool:
        """Whether a token (normalised) is a word of the list, as written or with leet
        read as letters, with an Arabic prefix joined, or stretched."""
        forms = {token, token.translate(_LEET), token.replace("l", "i")}  # I looks like l
        candidates = forms | {form[len(p):] for form in forms for p in self.prefixes
                              if form.startswith(p) and len(form) > len(p) + 1}
        return any(c in self.words or (_RUN.search(c) is not None and
                                       _squeezed(c) in self.squeezed) for c in candidates)


@lru_cache(maxsize=64)
def word_list(extra: tuple[str, ...] = ()) -> WordList:
    """The built-in words with a front end's own (kept per list: lists are few)."""
    words = frozenset(normal(w) for w in (*WORDS, *extra) if w.strip())
    return WordList(words, frozenset(_squeezed(w) for w in words),
                    tuple(normal(p) for p in PREFIXES))


def masked(text: str, words: WordList) -> tuple[str, bool]:
    """The text with each word of the list masked, and whether one was: the text is
    normalised first (format and combining characters dropped, confusables and letter
    forms folded), then split into words."""
    norm, origin = _normalised(text)
    spans = _tokens(norm)
    hits: list[tuple[int, int]] = []
    i = 0
    while i < len(spans):
        start, end = spans[i]
        if words.bad(norm[start:end]):
            hits.append((start, end))
            i += 1
            continue
        # a word spelled out, one letter a token (f u c k, f.u.c.k): joined, tested
        j = i
        while j < len(spans) and spans[j][1] - spans[j][0] == 1 and (
                j == i or spans[j][0] - spans[j - 1][1] <= 3):
            j += 1
        if j - i >= 2 and words.bad("".join(norm[s:e] for s, e in spans[i:j])):
            hits.append((spans[i][0], spans[j - 1][1]))
            i = j
            continue
        i += 1
    if not hits:
        return text, False
    out = list(text)
    for start, end in hits:
        last = origin[end - 1]
        while last + 1 < len(text) and not _folded(text[last + 1]):  # its marks too
            last += 1
        for k in range(origin[start], last + 1):
            if not out[k].isspace():
                out[k] = "*"
    return "".join(out), True


def clean_words(words: Iterable[str]) -> tuple[str, ...]:
    """A front end's words as kept: stripped, distinct, in order."""
    seen: dict[str, None] = {}
    for word in words:
        if word.strip():
            seen.setdefault(word.strip(), None)
    return tuple(seen)
