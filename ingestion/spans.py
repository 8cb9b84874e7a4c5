"""Stage 1: text spans from PyMuPDF, grouped into printed lines in the book's two-column reading order.

PyMuPDF's block order is not the reading order (a right column can come first, and one printed line can be
split into several blocks), so we throw blocks away and rebuild lines from spans: spans of one column that
share a baseline are one line; lines are read left column top to bottom, then right column.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pymupdf

# Ligatures expanded ("ﬁ" -> "fi"): the source text spells them out.
_TEXT_FLAGS = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_LIGATURES & ~pymupdf.TEXT_PRESERVE_IMAGES
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
    """One printed line of one column (or of the header band)."""

    spans: list[Span]
    physical: int  # 1-based page index
    column: int  # 0 left, 1 right, -1 spans the gutter
    text: str = ""

    @property
    def x0(self) -> float:
        return min(s.x0 for s in self.spans)

    @property
    def x1(self) -> float:
        return max(s.x1 for s in self.spans)

    @property
    def y0(self) -> float:
        return min(s.y0 for s in self.spans)

    @property
    def y1(self) -> float:
        return max(s.y1 for s in self.spans)

    @property
    def baseline(self) -> float:
        main = max(self.spans, key=lambda s: (s.size, len(s.text)))
        return main.baseline

    @property
    def first(self) -> Span:
        return next((s for s in self.spans if s.text.strip()), self.spans[0])

    @property
    def stacked(self) -> bool:
        """Full-size spans on different baselines within one line: a fraction or formula layout, whose
        linear reading order had to be guessed (superscripts are smaller and do not count)."""
        big = [s for s in self.spans if s.text.strip() and s.size >= 0.9 * self.size]
        return bool(big) and max(b.baseline for b in big) - min(b.baseline for b in big) > 1.5

    @property
    def size(self) -> float:
        return max(s.size for s in self.spans if s.text.strip()) if self.text.strip() else 0.0


@dataclass
class PageLayout:
    """What one page holds: header-band lines, body spans, page geometry."""

    physical: int
    width: float
    height: float
    header_spans: list[Span] = field(default_factory=list)
    body_spans: list[Span] = field(default_factory=list)
    image_count: int = 0

    @property
    def gutter(self) -> float:
        return self.width / 2


def read_spans(page: pymupdf.Page, physical: int) -> PageLayout:
    """All non-empty spans of a page, split into the running-header band and the body."""
    layout = PageLayout(physical=physical, width=page.rect.width, height=page.rect.height)
    data = page.get_text("dict", flags=_TEXT_FLAGS)
    band = page.rect.height * _HEADER_BAND
    for block in data["blocks"]:
        if block.get("type") == 1:
            layout.image_count += 1
            continue
        for line in block.get("lines", []):
            for s in line["spans"]:
                if not s["text"]:
                    continue
                font = s["font"]
                flags = s["flags"]
                span = Span(
                    text=s["text"],
                    font=font,
                    size=round(s["size"], 1),
                    bold=bool(flags & 16) or "Bold" in font,
                    italic=bool(flags & 2) or "Italic" in font or "Oblique" in font,
                    x0=s["bbox"][0],
                    y0=s["bbox"][1],
                    x1=s["bbox"][2],
                    y1=s["bbox"][3],
                    baseline=s["origin"][1],
                )
                (layout.header_spans if span.baseline < band else layout.body_spans).append(span)
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
