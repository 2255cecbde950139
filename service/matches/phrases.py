"""What may be said at a table: the fixed phrases (English and Arabic), and the word
filter over free text, written for Arabic script, Latin script and Arabizi (Arabic in
Latin letters and digits: ``3`` for ع, ``7`` for ح, ``5`` for خ).

The filter normalises both the text and the words before comparing: case, Arabic
diacritics and tatweel, the alef, ya and ta marbuta forms, ``@`` and ``$`` for ``a`` and
``s``; a word is also found with an Arabic prefix attached (و ف ب ل ال يا), stretched
(``fuuuck``), or spelled out letter by letter (``f u c k``, ``f.u.c.k``). A word found
is masked with ``*``, the rest of the line kept.
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

_MARKS = re.compile("[\u064b-\u065f\u0670\u0640]")  # harakat, dagger alef, tatweel
_FOLD = str.maketrans({"أ": "ا", "إ": "ا", "آ": "ا", "ٱ": "ا", "ى": "ي", "ة": "ه", "ؤ": "و",
                       "ئ": "ي", "@": "a", "$": "s"})
_TOKEN = re.compile(r"[\w@$]+")
_RUN = re.compile(r"(.)\1+")


def normal(word: str) -> str:
    """A word as the filter compares it."""
    folded = unicodedata.normalize("NFKC", word).casefold()
    return _MARKS.sub("", folded).translate(_FOLD)


def _squeezed(word: str) -> str:
    return _RUN.sub(r"\1", word)


@dataclass(frozen=True)
class WordList:
    """Words to mask, normalised, and the same squeezed (runs of a letter as one)."""

    words: frozenset[str]
    squeezed: frozenset[str]

    def bad(self, token: str) -> bool:
        """Whether a token (normalised) is a word of the list, with an Arabic prefix
        joined, or stretched."""
        candidates = [token] + [token[len(p):] for p in PREFIXES
                                if token.startswith(p) and len(token) > len(p) + 1]
        return any(c in self.words or (_RUN.search(c) is not None and
                                       _squeezed(c) in self.squeezed) for c in candidates)


@lru_cache(maxsize=64)
def word_list(extra: tuple[str, ...] = ()) -> WordList:
    """The built-in words with a front end's own (kept per list: lists are few)."""
    words = frozenset(normal(w) for w in (*WORDS, *extra) if w.strip())
    return WordList(words, frozenset(_squeezed(w) for w in words))


def masked(text: str, words: WordList) -> tuple[str, bool]:
    """The text with each word of the list masked, and whether one was."""
    spans = [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
    hits: list[tuple[int, int]] = []
    i = 0
    while i < len(spans):
        start, end = spans[i]
        if words.bad(normal(text[start:end])):
            hits.append((start, end))
            i += 1
            continue
        # a word spelled out, one letter a token (f u c k, f.u.c.k): joined, tested
        j = i
        while j < len(spans) and spans[j][1] - spans[j][0] == 1 and (
                j == i or spans[j][0] - spans[j - 1][1] <= 2):
            j += 1
        if j - i >= 3 and words.bad(normal("".join(text[s:e] for s, e in spans[i:j]))):
            hits.append((spans[i][0], spans[j - 1][1]))
            i = j
            continue
        i += 1
    if not hits:
        return text, False
    out = list(text)
    for start, end in hits:
        for k in range(start, end):
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
