"""Stage 3: tables, found with PyMuPDF's table finder and lifted out of the prose.

PyMuPDF's own cell text loses spaces in this book, so only the cell boxes are taken from the finder; each
body span goes to the smallest cell holding its centre and the cell's lines are rebuilt with our line logic.
A table becomes rows of cells joined with " | ", header row first. Tables are never trusted as read:
the chunk built from one is quarantined.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pymupdf

from ingestion.paragraphs import glue
from ingestion.spans import PageLayout, Span, column_of, group_lines

CELL_SEPARATOR = " | "
if hasattr(pymupdf, "no_recommend_layout"):  # the analyser is left out on purpose (ingestion/__init__.py): no
    pymupdf.no_recommend_layout()  # "Consider using the pymupdf_layout package" line on stdout from find_tables


@dataclass
class TableBlock:
    physical: int
    column: int
    bbox: tuple[float, float, float, float]
    rows: list[list[str]]
    spans: list[Span] = field(default_factory=list)

    @property
    def y0(self) -> float:
        return self.bbox[1]

    @property
    def text(self) -> str:
        return "\n".join(CELL_SEPARATOR.join(cells) for cells in self.rows)

    @property
    def n_cols(self) -> int:
        return max((len(r) for r in self.rows), default=0)


def _inside(span: Span, box: tuple[float, float, float, float], pad: float = 1.0) -> bool:
    return box[0] - pad <= span.cx <= box[2] + pad and box[1] - pad <= span.cy <= box[3] + pad


def _cell_text(spans: list[Span], physical: int, gutter: float) -> str:
    lines = group_lines(spans, physical, gutter=1e9)  # one column inside a cell
    text = ""
    for ln in lines:
        text = ln.text if not text else text + glue(text, ln.text) + ln.text
    return text


_SNAP = 3.0  # points: rules this close belong to one ruled region (the finder's own snap tolerance)
_PAD = 3.0


def _is_rule(r: pymupdf.Rect) -> bool:
    return (r.height < 2 and r.width > 5) or (r.width < 2 and r.height > 5)


def _near(a: pymupdf.Rect, b: pymupdf.Rect) -> bool:
    return a.x0 - _SNAP <= b.x1 and b.x0 - _SNAP <= a.x1 and a.y0 - _SNAP <= b.y1 and b.y0 - _SNAP <= a.y1


def ruled_regions(layout: PageLayout) -> list[pymupdf.Rect]:
    """The boxes enveloping each group of touching drawings below the running-header band that holds at
    least two ruled lines: where a ruled table can be (the header's own rule does not count). The drawings'
    boxes come with the page's text (spans.read_spans), so a page without rules costs nothing more here."""
    band = layout.height * 0.06
    groups: list[tuple[pymupdf.Rect, int]] = []
    for box in layout.vectors:
        r = pymupdf.Rect(box)
        if r.y0 <= band:
            continue
        box, rules = r, int(_is_rule(r))
        keep: list[tuple[pymupdf.Rect, int]] = []
        for g, n in groups:  # merge every group this drawing touches (it may bridge two)
            if _near(g, box):
                box, rules = box | g, rules + n
            else:
                keep.append((g, n))
        groups = [*keep, (box, rules)]
    merged = True
    while merged:  # a grown box may now touch a group it did not before
        merged = False
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                if _near(groups[i][0], groups[j][0]):
                    groups[i] = (groups[i][0] | groups[j][0], groups[i][1] + groups[j][1])
                    del groups[j]
                    merged = True
                    break
            if merged:
                break
    return [g for g, n in groups if n >= 2]


def _border_lines(box: pymupdf.Rect) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    tl, tr, bl, br = (box.x0, box.y0), (box.x1, box.y0), (box.x0, box.y1), (box.x1, box.y1)
    return [(tl, tr), (bl, br), (tl, bl), (tr, br)]


def _find(page: pymupdf.Page, layout: PageLayout, regions: list[pymupdf.Rect]):
    """PyMuPDF's line-based finder, read only inside the ruled regions.

    The finder builds a Python object for every character of the area it reads, yet only the cell boxes are
    kept here: clipping it to the ruled regions keeps that cost to the tables' own text. Each region's
    enveloping box is given as border lines (what the finder adds itself for a box with text in it), so a
    table broken over a page, its top rule on the page before, keeps its first row.
    """
    clip = pymupdf.Rect(regions[0])
    for r in regions[1:]:
        clip |= r
    clip = clip + (-_PAD, -_PAD, _PAD, _PAD)
    borders = [
        line
        for r in regions
        if any(_inside(s, tuple(r)) for s in layout.body_spans)
        for line in _border_lines(r)
    ]
    return page.find_tables(use_layout=False, clip=clip, add_lines=borders)


def find_tables(page: pymupdf.Page, layout: PageLayout) -> list[TableBlock]:
    """The page's tables with their rows; body spans inside them are recorded on each block."""
    regions = ruled_regions(layout)
    if not regions:
        return []
    blocks: list[TableBlock] = []
    try:
        found = _find(page, layout, regions)  # line-based only: ruled tables, no ONNX layout model
    except Exception:  # noqa: BLE001 - the finder is heuristic; a failure means "no table we can read"
        return []
    for tab in found.tables if found is not None else []:  # None: the finder caught its own failure
        box = tuple(tab.bbox)
        if box[3] < layout.height * 0.06:
            continue
        spans = [s for s in layout.body_spans if _inside(s, box)]
        if not spans:
            continue
        cells = [(ri, ci, tuple(c)) for ri, row in enumerate(tab.rows) for ci, c in enumerate(row.cells) if c]
        assigned: dict[tuple[int, int], list[Span]] = {}
        for s in spans:
            holding = [(r, c, b) for r, c, b in cells if _inside(s, b, pad=0.5)]
            if not holding:
                holding = sorted(cells, key=lambda rc: abs((rc[2][1] + rc[2][3]) / 2 - s.cy))[:1]
            r, c, _ = min(holding, key=lambda rc: (rc[2][2] - rc[2][0]) * (rc[2][3] - rc[2][1]))
            assigned.setdefault((r, c), []).append(s)
        rows: list[list[str]] = []
        for ri, row in enumerate(tab.rows):
            texts = [
                _cell_text(assigned.get((ri, ci), []), layout.physical, layout.gutter)
                for ci, c in enumerate(row.cells)
                if c
            ]
            if any(t for t in texts):
                rows.append(texts)
        if not rows:
            continue
        blocks.append(
            TableBlock(
                physical=layout.physical,
                column=column_of(box[0], box[2], layout.gutter),
                bbox=box,  # type: ignore[arg-type]
                rows=rows,
                spans=spans,
            )
        )
    return blocks
