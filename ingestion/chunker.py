"""Stage 6: sections -> chunks, never across a section, at most MAX_TOKENS tokens each.

Tokenizer (`count_tokens`): word pieces, i.e. every run of letters/digits is one token and every other
non-space character is one token. It is deterministic, needs no model, and over-counts compared with the
embedding model's word-piece tokenizer on Vietnamese (one syllable = one token here), so the ceiling holds
for the index too.

Splits fall at paragraph ends first, then at sentence ends (". " before a capital); a dose band such as
"Trẻ em 4 - 6 tuổi: 240 mg" holds no sentence end, so it is never cut, and a chunk never ends on a
sub-heading line ("Trẻ em:") left without its content.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ingestion.paragraphs import Paragraph, Piece

MAX_TOKENS = 800
_TOKEN = re.compile(r"\w+|[^\w\s]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-ZÀ-ỸĐ(\"“])")


def count_tokens(text: str) -> int:
    """Word-piece count: runs of \\w plus single punctuation characters."""
    return len(_TOKEN.findall(text))


@dataclass
class Unit:
    """A paragraph, or a sentence of an over-long paragraph; `joiner` is what goes before it in a chunk."""

    pieces: list[Piece]
    joiner: str  # "\n" starts a paragraph, " " continues one
    flags: frozenset[str] = frozenset()

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.pieces)


@dataclass
class ProsePart:
    text: str
    page_spans: list[list[int]]  # [[physical, start, end], ...]
    flags: frozenset[str] = frozenset()  # from its paragraphs, e.g. "formula_layout"

    @property
    def physical_pages(self) -> list[int]:
        out: list[int] = []
        for p, _, _ in self.page_spans:
            if p not in out:
                out.append(p)
        return out


def _slice_pieces(pieces: list[Piece], start: int, end: int) -> list[Piece]:
    out: list[Piece] = []
    pos = 0
    for p in pieces:
        a, b = pos, pos + len(p.text)
        lo, hi = max(a, start), min(b, end)
        if lo < hi:
            out.append(Piece(p.text[lo - a : hi - a], p.physical))
        pos = b
    return out


def _strip_pieces(pieces: list[Piece]) -> list[Piece]:
    text = "".join(p.text for p in pieces)
    lead = len(text) - len(text.lstrip())
    trail = len(text.rstrip())
    return _slice_pieces(pieces, lead, trail)


def _hard_split(text: str) -> list[tuple[int, int]]:
    """Last resort for one sentence over the ceiling: cut at spaces, MAX_TOKENS tokens at most each."""
    spans: list[tuple[int, int]] = []
    start = 0
    words = [m for m in re.finditer(r"\S+", text)]
    count = 0
    last_end = 0
    for m in words:
        n = count_tokens(m.group())
        if count + n > MAX_TOKENS and count:
            spans.append((start, last_end))
            start, count = m.start(), 0
        count += n
        last_end = m.end()
    spans.append((start, len(text)))
    return spans


def _units(paragraph: Paragraph) -> list[Unit]:
    text = paragraph.text
    if count_tokens(text) <= MAX_TOKENS:
        return [Unit(_strip_pieces(paragraph.pieces), "\n", frozenset(paragraph.flags))]
    bounds = [0] + [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]
    units: list[Unit] = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        if b <= a:
            continue
        for x, y in _hard_split(text[a:b]) if count_tokens(text[a:b]) > MAX_TOKENS else [(0, b - a)]:
            pieces = _strip_pieces(_slice_pieces(paragraph.pieces, a + x, a + y))
            if pieces:
                units.append(Unit(pieces, "\n" if not units else " ", frozenset(paragraph.flags)))
    return units


def _render(units: list[Unit]) -> ProsePart:
    text = ""
    spans: list[list[int]] = []
    for i, u in enumerate(units):
        if i:
            text += u.joiner
        for p in u.pieces:
            start = len(text)
            text += p.text
            if spans and spans[-1][0] == p.physical and spans[-1][2] >= start - 1:
                spans[-1][2] = len(text)
            else:
                spans.append([p.physical, start, len(text)])
    return ProsePart(text, spans, frozenset().union(*(u.flags for u in units)))


def pack_prose(paragraphs: list[Paragraph]) -> list[ProsePart]:
    """Paragraphs of one section (no table between them) -> prose parts within the token ceiling."""
    units = [u for p in paragraphs for u in _units(p) if u.text.strip()]
    groups: list[list[Unit]] = []
    current: list[Unit] = []
    tokens = 0
    for u in units:
        n = count_tokens(u.text)
        if current and tokens + n > MAX_TOKENS:
            carried: list[Unit] = []
            # never leave a sub-heading ("Trẻ em:") as the last line of a chunk
            while len(current) > 1 and current[-1].text.rstrip().endswith(":"):
                carried.insert(0, current.pop())
            groups.append(current)
            current = carried
            tokens = sum(count_tokens(c.text) for c in current)
            if current and tokens + n > MAX_TOKENS:
                groups.append(current)
                current, tokens = [], 0
        current.append(u)
        tokens += n
    if current:
        groups.append(current)
    return [_render(g) for g in groups]
