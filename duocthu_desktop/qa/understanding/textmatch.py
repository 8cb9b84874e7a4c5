"""Phrase matching with diacritics where the person typed them, folded only where they did not.

Each word of the question is met on its own terms: a word typed with diacritics ("gần") must equal the phrase's
word as written ("gan" is not "gần", so "gần đây" never reads as "suy gan"); a word typed without them ("gan",
"lieu") is compared folded. A one-word phrase written with diacritics is not read from a plain word of a question
that has diacritics elsewhere ("bỏ" is not "bò", and a plain "cho" there is "cho", not "chó").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from duocthu_desktop.text import fold, squash_spaces

_WORD = re.compile(r"\w+")


def normalize(text: str) -> str:
    """NFC, lower case, single spaces."""
    return squash_spaces(unicodedata.normalize("NFC", text)).lower()


def has_diacritics(text: str) -> bool:
    return fold(text) != text.lower()


@dataclass(frozen=True)
class Text:
    """A question in the two forms phrases are matched against (`folded` has `norm`'s length and positions)."""

    raw: str
    norm: str
    folded: str
    accented: bool

    @classmethod
    def of(cls, raw: str) -> Text:
        norm = normalize(raw)
        folded = fold(norm)
        if len(folded) != len(norm):  # a character that folds to another length: keep positions aligned
            folded = "".join(fold(ch)[:1] or ch for ch in norm)
        return cls(raw=raw, norm=norm, folded=folded, accented=has_diacritics(norm))


@lru_cache(maxsize=4096)
def _pattern(phrase: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w])" + re.escape(phrase) + r"(?![\w])")


def words_agree(typed: str, written: str, loose: bool = True) -> bool:
    """A typed word meets a phrase word: equal as typed, or folded-equal when typed without diacritics."""
    if typed == written:
        return True
    return loose and not has_diacritics(typed) and fold(typed) == fold(written)


def find(text: Text, phrase: str, strict: bool = False) -> re.Match[str] | None:
    """The first whole-word occurrence of `phrase` (written with diacritics) in `text`, or None.

    A question with no diacritics at all is matched folded. In a question with diacritics every typed-accented
    word must match as written; a plain word may stand for an accented one only inside a multi-word phrase, and
    never when `strict` (words whose folded form is another word: "chó con" folds to "cho con").
    """
    phrase = normalize(phrase)
    folded_phrase = fold(phrase)
    if not text.accented:
        return _pattern(folded_phrase).search(text.folded)
    written = _WORD.findall(phrase)
    loose = len(written) > 1 and not strict
    for m in _pattern(folded_phrase).finditer(text.folded):
        typed = _WORD.findall(text.norm[m.start() : m.end()])
        if len(typed) == len(written) and all(words_agree(t, w, loose) for t, w in zip(typed, written, strict=True)):
            return m
    return None


def first_of(text: Text, phrases: tuple[str, ...] | list[str]) -> tuple[str, re.Match[str]] | None:
    """The phrase of `phrases` found earliest in the text (longer phrase first on a tie)."""
    best: tuple[str, re.Match[str]] | None = None
    for phrase in phrases:
        m = find(text, phrase)
        if m and (best is None or m.start() < best[1].start() or (
            m.start() == best[1].start() and len(m.group(0)) > len(best[1].group(0))
        )):
            best = (phrase, m)
    return best


def any_of(text: Text, phrases: tuple[str, ...] | list[str]) -> bool:
    return any(find(text, p) for p in phrases)


def without_terms(text: Text, terms: tuple[str, ...]) -> Text:
    """The text with each of `terms` blanked where it stands ("ngủ gà" before animals, "gây mê" before causes)."""
    norm = text.norm
    for term in terms:
        m = find(Text.of(norm), term)
        while m is not None:
            norm = norm[: m.start()] + " " * (m.end() - m.start()) + norm[m.end() :]
            m = find(Text.of(norm), term)
    return text if norm == text.norm else Text.of(norm)
