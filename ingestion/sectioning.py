"""Stage 5: a monograph's items -> its sections, keyed by the CONTRACT's section keys.

A heading is only ever a line that opens with bold, upright text in the heading size; its bold prefix must
match a known heading (duocthu_desktop.sections.match_heading, which tolerates spelling variants and OCR
slips). What follows the heading on the same printed line ("Liều lượng và cách dùng Cách dùng: ...") is split
off and kept as the section's first line. Sub-headings (Cách dùng, Liều dùng, Người lớn, Trẻ em, ...) are
italic or smaller and so never open a section: they stay in the text exactly as printed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from duocthu_desktop.sections import match_heading
from ingestion.monographs import Item, RawMonograph, identity_label
from ingestion.spans import Line, join_spans

_HEADING_MIN_SIZE = 8.7
THONG_TIN_CHUNG = "thong_tin_chung"


@dataclass
class RawSection:
    key: str
    heading: str
    start_physical: int | None = None  # the page the heading is printed on
    items: list[Item] = field(default_factory=list)


def _heading_prefix(line: Line) -> tuple[list, list]:
    """Split a line's spans into the leading bold upright heading-size spans and the rest."""
    spans = sorted(line.spans, key=lambda s: s.x0)
    n = 0
    while n < len(spans) and spans[n].bold and not spans[n].italic and spans[n].size >= _HEADING_MIN_SIZE:
        n += 1
    return spans[:n], spans[n:]


def as_heading(line: Line) -> tuple[str, str, Line | None] | None:
    """(key, heading as printed, the rest of the line as its own Line or None) if `line` is a heading."""
    if not isinstance(line, Line):
        return None
    head, rest = _heading_prefix(line)
    if not head:
        return None
    head_text = join_spans(head)
    hit = match_heading(head_text)
    if hit is None:
        return None
    key, heading, _ = hit
    tail_text = head_text[len(heading) :].strip()
    rest_line = None
    if rest:
        rest_line = Line(spans=rest, physical=line.physical, column=line.column, text=join_spans(rest))
    elif tail_text:
        # the bold run itself runs on past the heading words: keep that tail as text
        rest_line = Line(spans=head, physical=line.physical, column=line.column, text=tail_text)
    return key, heading, rest_line


def as_styled_heading(line: Line, seen: set[str]) -> tuple[str, str, Line | None] | None:
    """Fallback for a heading set in the wrong style (bold italic, as sample-b prints one "Tác dụng không
    mong muốn"): a whole bold line that is exactly a heading not seen yet in this monograph, no colon."""
    if not isinstance(line, Line) or not all(s.bold for s in line.spans) or line.text.endswith(":"):
        return None
    hit = match_heading(line.text)
    if hit is None or hit[2] or hit[0] in seen or len(hit[1]) != len(line.text.strip()):
        return None
    return hit[0], hit[1], None


def split_sections(mono: RawMonograph) -> list[RawSection]:
    """The identity block becomes `thong_tin_chung`; every heading after it opens a section."""
    sections = [RawSection(THONG_TIN_CHUNG, "Thông tin chung", mono.title_line.physical)]
    for item in mono.items:
        hit = as_heading(item) if isinstance(item, Line) else None
        if hit is None and isinstance(item, Line) and not identity_label(item):
            hit = as_styled_heading(item, {s.key for s in sections})
        if hit is not None:
            key, heading, rest = hit
            sections.append(RawSection(key, heading, item.physical))
            if rest is not None and rest.text:
                sections[-1].items.append(rest)
            continue
        sections[-1].items.append(item)
    return sections


def identity_lines(section: RawSection) -> list[Line]:
    return [it for it in section.items if isinstance(it, Line)]


def stray_identity(section: RawSection) -> bool:
    """True when the identity section holds something other than the identity block (a layout problem)."""
    lines = identity_lines(section)
    return bool(lines) and identity_label(lines[0]) is None
