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


def _has_rules(page: pymupdf.Page, layout: PageLayout) -> bool:
    """At least two ruled lines below the running-header band (its own rule does not count)."""
    band = layout.height * 0.06
    rules = 0
    for d in page.get_drawings():
        r = d["rect"]
        if r.y0 > band and ((r.height < 2 and r.width > 5) or (r.width < 2 and r.height > 5)):
            rules += 1
            if rules >= 2:
                return True
    return False


def find_tables(page: pymupdf.Page, layout: PageLayout) -> list[TableBlock]:
    """The page's tables with their rows; body spans inside them are recorded on each block."""
    if not _has_rules(page, layout):
        return []  # the finder reads every character of the page: only pay for it where rules are drawn
    blocks: list[TableBlock] = []
    try:
        found = page.find_tables(use_layout=False)  # line-based only: ruled tables, no ONNX layout model
    except Exception:  # noqa: BLE001 - the finder is heuristic; a failure means "no table we can read"
        return []
    for tab in found.tables:
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
