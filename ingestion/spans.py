"""Stage 1: text spans from PyMuPDF, grouped into printed lines in the book's two-column reading order.

PyMuPDF's block order is not the reading order (a right column can come first, and one printed line can be
split into several blocks), so we throw blocks away and rebuild lines from spans: spans of one column that
share a baseline are one line; lines are read left column top to bottom, then right column.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import pymupdf

# Ligatures expanded ("ﬁ" -> "fi"): the source text spells them out. Vector paths are collected in the same
# pass (their boxes only): where a page draws rules is then known without reading its drawings a second time.
_COLLECT_VECTORS = getattr(pymupdf, "TEXT_COLLECT_VECTORS", 0)  # PyMuPDF 1.24.x before it: read the drawings
_TEXT_FLAGS = (
    pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_LIGATURES & ~pymupdf.TEXT_PRESERVE_IMAGES
) | _COLLECT_VECTORS
_VECTOR_BLOCK = 3
_BASELINE_TOLERANCE = 4.5  # points; superscripts sit ~3pt above the baseline, lines are ~10pt apart
_HEADER_BAND = 0.06  # fraction of page height where running headers live


@dataclass
class Span:
    text: str
    font: str
    size: float
    bold: bool
    italic: bool
    x0: float
    y0: float
    x1: float
    y1: float
    baseline: float

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2


@dataclass
class Line:
    """One printed line of one column (or of the header band). Its spans are fixed once it is made, so what
    is derived from them is computed once (the later stages ask for a line's size and baseline many times)."""

    spans: list[Span]
    physical: int  # 1-based page index
    column: int  # 0 left, 1 right, -1 spans the gutter
    text: str = ""

    @cached_property
    def x0(self) -> float:
        return min(s.x0 for s in self.spans)

    @cached_property
    def x1(self) -> float:
        return max(s.x1 for s in self.spans)

    @cached_property
    def y0(self) -> float:
        return min(s.y0 for s in self.spans)

    @cached_property
    def y1(self) -> float:
        return max(s.y1 for s in self.spans)

    @cached_property
    def baseline(self) -> float:
        main = max(self.spans, key=lambda s: (s.size, len(s.text)))
        return main.baseline

    @cached_property
    def first(self) -> Span:
        return next((s for s in self.spans if s.text.strip()), self.spans[0])

    @cached_property
    def stacked(self) -> bool:
        """Full-size spans on different baselines within one line: a fraction or formula layout, whose
        linear reading order had to be guessed (superscripts are smaller and do not count)."""
        big = [s for s in self.spans if s.text.strip() and s.size >= 0.9 * self.size]
        return bool(big) and max(b.baseline for b in big) - min(b.baseline for b in big) > 1.5

    @cached_property
    def size(self) -> float:
        return max((s.size for s in self.spans if s.text.strip()), default=0.0)


@dataclass
class PageLayout:
    """What one page holds: header-band lines, body spans, page geometry."""

    physical: int
    width: float
    height: float
    header_spans: list[Span] = field(default_factory=list)
    body_spans: list[Span] = field(default_factory=list)
    image_count: int = 0
    vectors: list[tuple[float, float, float, float]] = field(default_factory=list)  # each drawn path's box

    @property
    def gutter(self) -> float:
        return self.width / 2


def read_spans(page: pymupdf.Page, physical: int) -> PageLayout:
    """All non-empty spans of a page, split into the running-header band and the body; and the boxes of the
    vector paths it draws."""
    layout = PageLayout(physical=physical, width=page.rect.width, height=page.rect.height)
    data = page.get_text("dict", flags=_TEXT_FLAGS)
    band = page.rect.height * _HEADER_BAND
    header, body = layout.header_spans, layout.body_spans
    for block in data["blocks"]:
        kind = block.get("type")
        if kind == _VECTOR_BLOCK:
            layout.vectors.append(block["bbox"])
            continue
        if kind == 1:
            layout.image_count += 1
            continue
        for line in block.get("lines", ()):
            for s in line["spans"]:
                text = s["text"]
                if not text:
                    continue
                font, flags = s["font"], s["flags"]
                x0, y0, x1, y1 = s["bbox"]
                baseline = s["origin"][1]
                span = Span(text, font, round(s["size"], 1), bool(flags & 16) or "Bold" in font,
                            bool(flags & 2) or "Italic" in font or "Oblique" in font, x0, y0, x1, y1, baseline)
                (header if baseline < band else body).append(span)
    if not _COLLECT_VECTORS:
        layout.vectors = [tuple(d["rect"]) for d in page.get_drawings()]
    layout.image_count += len(page.get_images())
    return layout


def column_of(span_x0: float, span_x1: float, gutter: float) -> int:
    if span_x1 <= gutter + 2:
        return 0
    if span_x0 >= gutter - 2:
        return 1
    return -1


def join_spans(spans: list[Span]) -> str:
    """Concatenate the spans of one line left to right, putting back spaces the layout shows as gaps."""
    out = ""
    prev: Span | None = None
    for s in sorted(spans, key=lambda sp: sp.x0):
        text = s.text
        if prev is not None and out and not out.endswith(" ") and not text.startswith(" "):
            gap = s.x0 - prev.x1
            if gap > 0.15 * max(s.size, prev.size):
                out += " "
        out += text
        prev = s
    return " ".join(out.split()) if out.strip() else ""


def group_lines(spans: list[Span], physical: int, gutter: float) -> list[Line]:
    """Spans -> lines: same column, baselines within tolerance. Returned in reading order."""
    by_col: dict[int, list[Span]] = {}
    for s in spans:
        if not s.text.strip():
            continue  # blank spans carry no text; word gaps are measured from the x positions instead
        by_col.setdefault(column_of(s.x0, s.x1, gutter), []).append(s)
    lines: list[Line] = []
    for col in sorted(by_col, key=lambda c: (c == -1, c)):
        col_spans = sorted(by_col[col], key=lambda s: (s.baseline, s.x0))
        current: list[Span] = []
        anchor = None
        for s in col_spans:
            if current and anchor is not None and abs(s.baseline - anchor) <= _BASELINE_TOLERANCE:
                current.append(s)
                if s.size > max(c.size for c in current[:-1]):
                    anchor = s.baseline
                continue
            if current:
                lines.append(Line(spans=current, physical=physical, column=col))
            current, anchor = [s], s.baseline
        if current:
            lines.append(Line(spans=current, physical=physical, column=col))
    for line in lines:
        line.text = join_spans(line.spans)
    return [ln for ln in lines if ln.text]


def reading_order(lines: list[Line]) -> list[Line]:
    """Left column top to bottom, then right; a gutter-crossing line is placed by its top among the left."""

    def key(ln: Line) -> tuple[int, float]:
        return (1 if ln.column == 1 else 0, ln.baseline)

    return sorted(lines, key=key)
