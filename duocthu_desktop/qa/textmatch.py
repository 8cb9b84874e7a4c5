"""Phrase matching that works whether or not the person typed diacritics.

A question typed with diacritics is matched with them ("bé" is not "bể"); one typed without ("lieu metformin
nguoi lon") is matched on folded text. Short one-syllable phrases need the accented form when the question has
diacritics, so "bỏ" never reads as "bò".
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from duocthu_desktop.text import fold, squash_spaces


def normalize(text: str) -> str:
    """NFC, lower case, single spaces."""
    return squash_spaces(unicodedata.normalize("NFC", text)).lower()


def has_diacritics(text: str) -> bool:
    return fold(text) != text.lower()


@dataclass(frozen=True)
class Text:
    """A question in the two forms phrases are matched against."""

    raw: str
    norm: str
    folded: str
    accented: bool

    @classmethod
    def of(cls, raw: str) -> Text:
        norm = normalize(raw)
        return cls(raw=raw, norm=norm, folded=fold(norm), accented=has_diacritics(norm))


@lru_cache(maxsize=4096)
def _pattern(phrase: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w])" + re.escape(phrase) + r"(?![\w])")


def find(text: Text, phrase: str, strict: bool = False) -> re.Match[str] | None:
    """The first whole-word occurrence of `phrase` (written with diacritics) in `text`, or None.

    Matches on accented text when the person typed diacritics; on folded text otherwise. A multi-word phrase is
    also tried folded on accented text (people drop some diacritics), a one-word phrase never is, nor any phrase
    when `strict` (words whose folded form is another word: "chó con" folds to "cho con").
    """
    phrase = normalize(phrase)
    if text.accented:
        m = _pattern(phrase).search(text.norm)
        if m or " " not in phrase or strict:
            return m
    return _pattern(fold(phrase)).search(text.folded)


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
