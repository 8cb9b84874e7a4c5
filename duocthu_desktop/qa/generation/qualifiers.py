"""Two slips a model makes while every number stays right: a dropped qualifier and a swapped bound.

A claim that restates a sentence of its cited evidence must keep the words that narrow it: a hedge ("Nói chung",
"thường dùng", "có thể"), the form or product a restriction names ("các dạng phối hợp"), the group it is for
("trẻ", "phụ nữ"). Without them "the combination product is not for children under 40 kg" reads as "the drug is
not for children under 40 kg". And a bound printed before a number keeps its direction: "dưới 40 kg" is never
"trên 40 kg", "tối đa" never "tối thiểu". Both are deterministic (word lists and positions, no model), so a
slip costs a fallback to the book's own words, never a wrong answer.
"""

from __future__ import annotations

import re
import unicodedata

# Words that narrow what a sentence says. `chỉ` is "only" but not the first syllable of "chỉ định".
QUALIFIERS = tuple(re.compile(rf"(?<!\w){p}(?!\w)") for p in (
    "nói chung", "thường dùng", "thông thường", "có thể", "nếu cần", "khi cần", "tùy theo", "tuỳ theo",
    r"chỉ(?!\s+định)", "đôi khi", "hiếm khi", "một số", "dạng", "phối hợp", "trẻ", "người lớn", "người cao tuổi",
    "phụ nữ", "sơ sinh",
))
# A claim restates a sentence when it keeps at least this share of the sentence's words.
RESTATES = 0.5

# A bound printed before a number, by the direction it gives: the value is at most (max) or at least (min) it.
_BOUNDS = (
    ("max", ("tối đa", "không quá", "không vượt quá", "dưới", "nhỏ hơn", "thấp hơn", "ít hơn", "<", "≤", "<=")),
    ("min", ("tối thiểu", "ít nhất", "trên", "lớn hơn", "cao hơn", "nhiều hơn", ">", "≥", ">=")),
)
_BOUND = re.compile("|".join(rf"(?<!\w){re.escape(w)}(?!\w)" if w[0].isalpha() else re.escape(w)
                             for _, words in _BOUNDS for w in sorted(words, key=len, reverse=True)))
_DIRECTION = {w: d for d, words in _BOUNDS for w in words}
_OPPOSITE = {"max": "min", "min": "max"}
_NUMBER = re.compile(r"(?<![\d.,])\d+(?:[.,]\d+)*")
_WORDS_BACK = 5  # how far before a number its bound may stand ("Liều tối đa mỗi ngày là 4 g")
_STOP = re.compile(r"[;.!?\n]|(?<![\d.,])\d[\d.,]*")  # a clause ends, or another number stands between
_SENTENCE = re.compile(r"(?<=[.;!?])\s+|\n+")
_LETTERS = re.compile(r"[^\W\d_]+")


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).lower().split())


def _letters(text: str) -> set[str]:
    return set(_LETTERS.findall(text))


def dropped_qualifier(claims: list[str], quote: str) -> str:
    """The first qualifier a sentence of `quote` prints that the claims restating that sentence left out ("" if
    none). `claims`: the texts of the claims that cite the quote's block."""
    said = [_norm(c) for c in claims]
    for sentence in _SENTENCE.split(_norm(quote)):
        words = _letters(sentence)
        if not words:
            continue
        restating = [c for c in said if len(words & _letters(c)) / len(words) >= RESTATES]
        if not restating:
            continue
        text = " ".join(restating)
        for qualifier in QUALIFIERS:
            found = qualifier.search(sentence)
            if found and not qualifier.search(text):
                return found.group(0)
    return ""


def bounds(text: str) -> list[tuple[str, str | None]]:
    """(number, direction or None) for each number of `text`: the direction of the bound printed just before
    it, inside its clause and with no other number between."""
    text = _norm(text)
    out = []
    for m in _NUMBER.finditer(text):
        before = text[:m.start()]
        stop = max((s.end() for s in _STOP.finditer(before)), default=0)
        window = before[stop:]
        words = window.split()
        window = " ".join(words[-_WORDS_BACK:]) if len(words) > _WORDS_BACK else window
        found = list(_BOUND.finditer(window))
        out.append((m.group(0), _DIRECTION[found[-1].group(0)] if found else None))
    return out


def swapped_bound(claim: str, quotes: list[str]) -> str:
    """The claim's first bound that turns the cited quotes' bound on the same number around ("" if none):
    'dưới 40' where the quotes print only 'trên 40'; or a number the quotes always bound, said with no bound of
    that direction anywhere in the claim ('4 g/ngày' for 'tối đa 4 g/ngày')."""
    printed: dict[str, set[str | None]] = {}
    for quote in quotes:
        for number, direction in bounds(quote):
            printed.setdefault(number, set()).add(direction)
    said = _norm(claim)
    directions_said = {_DIRECTION[m.group(0)] for m in _BOUND.finditer(said)}
    for number, direction in bounds(claim):
        seen = printed.get(number)
        if not seen:
            continue
        if direction is not None and direction not in seen and _OPPOSITE[direction] in seen:
            return f"says {number} is a {direction} bound where the book prints a {_OPPOSITE[direction]} one"
        if direction is None and None not in seen and not (seen & directions_said):
            return f"drops the bound the book prints before {number}"
    return ""
