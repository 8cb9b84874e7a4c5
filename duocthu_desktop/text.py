"""Text helpers shared by ingestion and the question path: diacritic folding and ids.

Folding is how a person typing without diacritics ("lieu metformin") still finds the book's words,
and how the CONTRACT's `drug_id` is made from a monograph title.
"""

from __future__ import annotations

import re
import unicodedata

_PAREN = re.compile(r"\s*\([^)]*\)\s*")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_SPACES = re.compile(r"\s+")


class _DropMarks(dict):
    """A `str.translate` table dropping combining marks (category Mn) and keeping every other character, filled
    as characters are met: one category lookup per distinct character instead of one per character folded
    (folding every chunk of the full-size book char by char cost seconds at each index open)."""

    def __missing__(self, code: int) -> int | None:
        value = None if unicodedata.category(chr(code)) == "Mn" else code
        self[code] = value
        return value


_DROP_MARKS = _DropMarks()


def fold(text: str) -> str:
    """Lower-case ASCII fold: diacritics dropped, `đ` to `d`. Keeps every other character."""
    text = text.replace("đ", "d").replace("Đ", "D")
    if text.isascii():  # nothing to decompose or drop
        return text.lower()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFC", decomposed.translate(_DROP_MARKS)).lower()


def slug(text: str) -> str:
    """Fold, then turn every run of non-alphanumerics into `_` (no leading or trailing `_`)."""
    return _NON_ALNUM.sub("_", fold(text)).strip("_")


def drug_id_from_title(title: str, keep_parenthetical: bool = False) -> str:
    """The CONTRACT's drug_id: `PARACETAMOL (Acetaminophen)` -> `paracetamol`.

    `keep_parenthetical` is for titles that would otherwise collide in one book
    (`SALBUTAMOL (Dùng trong hô hấp)` -> `salbutamol_dung_trong_ho_hap`).
    """
    if keep_parenthetical:
        return slug(title)
    return slug(_PAREN.sub(" ", title))


def assign_drug_ids(titles: list[str]) -> list[str]:
    """drug_ids for every title of one book, collisions resolved by keeping both parentheticals."""
    plain = [drug_id_from_title(t) for t in titles]
    counts: dict[str, int] = {}
    for pid in plain:
        counts[pid] = counts.get(pid, 0) + 1
    return [drug_id_from_title(t, keep_parenthetical=counts[p] > 1) for t, p in zip(titles, plain, strict=True)]


def squash_spaces(text: str) -> str:
    """Collapse every whitespace run into one space and trim."""
    return _SPACES.sub(" ", text).strip()
