"""Stage 1b: printed lines -> paragraphs, undoing the layout's line breaks.

A paragraph ends where the vertical gap grows past the line spacing, where a sub-heading (bold italic) starts a
line, or, across a column or page break, where the last line stops short with a sentence end. Joining undoes
the layout's wraps: "cyclooxygenase-" + "1" -> "cyclooxygenase-1", "mg/" + "kg" -> "mg/kg", while a spaced
dash ("acid -" + "base") keeps its space.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ingestion.spans import Line

_GAP_FACTOR = (
    1.3  # baseline gap over font size that means a new paragraph (lines are ~1.17, paragraphs ~1.46)
)
_SHORT_LINE = 12.0  # points short of the column's right edge that mark a paragraph's last line
FORMULA_LAYOUT = "formula_layout"
_SENTENCE_END = (".", ":", ";", "!", "?", ")", "…")


@dataclass
class Piece:
    """A run of text from one physical page."""

    text: str
    physical: int


@dataclass
class Paragraph:
    pieces: list[Piece] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)  # why its text may not be trusted as read

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.pieces)

    @property
    def pages(self) -> list[int]:
        out: list[int] = []
        for p in self.pieces:
            if p.physical not in out:
                out.append(p.physical)
        return out

    def append(self, text: str, physical: int) -> None:
        if self.pieces and self.pieces[-1].physical == physical:
            self.pieces[-1].text += text
        else:
            self.pieces.append(Piece(text, physical))


def glue(prev: str, nxt: str) -> str:
    """What goes between two wrapped lines of one paragraph: '' or ' '."""
    if prev.endswith("/"):
        return ""
    if prev.endswith("-") and len(prev) >= 2 and not prev[-2].isspace() and nxt[:1].strip():
        # the book never prints a bare digit range "3-4": a wrapped "3-" + "4,5" keeps its space ("3- 4,5")
        return " " if prev[-2].isdigit() and nxt[:1].isdigit() else ""
    return " "


def starts_subheading(line: Line) -> bool:
    first = line.first
    return first.bold and first.italic


def subheading_line(line: Line) -> bool:
    """A line that is only an italic sub-heading ("Người lớn:", "Liều lượng:"): a paragraph of its own."""
    return all(s.italic for s in line.spans if s.text.strip()) and line.text.rstrip().endswith(":")


def is_break(prev: Line, nxt: Line, column_right: dict[tuple[int, int], float]) -> bool:
    if starts_subheading(nxt) or subheading_line(nxt) or subheading_line(prev):
        return True
    if prev.physical == nxt.physical and prev.column == nxt.column:
        return (nxt.baseline - prev.baseline) > _GAP_FACTOR * max(prev.size, nxt.size, 1.0)
    right = column_right.get((prev.physical, prev.column), prev.x1)
    return prev.x1 < right - _SHORT_LINE and prev.text.rstrip().endswith(_SENTENCE_END)


def to_paragraphs(lines: list[Line], column_right: dict[tuple[int, int], float]) -> list[Paragraph]:
    paragraphs: list[Paragraph] = []
    prev: Line | None = None
    for line in lines:
        if prev is None or is_break(prev, line, column_right):
            paragraphs.append(Paragraph())
            paragraphs[-1].append(line.text, line.physical)
        else:
            paragraphs[-1].append(glue(prev.text, line.text) + line.text, line.physical)
        if line.stacked:
            paragraphs[-1].flags.add(FORMULA_LAYOUT)
        prev = line
    return paragraphs
