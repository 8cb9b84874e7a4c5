"""Stage 2: running headers, found by position (top band) and repetition, and what they tell us.

The header is removed from the text (spans.read_spans already keeps it apart) and read: the folio gives the
page map (null where a page has none: front matter), the drug name cross-checks monograph boundaries.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from duocthu_desktop.text import fold, squash_spaces
from ingestion.spans import PageLayout, join_spans

_FOLIO = re.compile(r"^\d{1,4}$")
_MARGIN = 0.2  # folios sit in the outer fifth of the page width


@dataclass
class PageHeader:
    physical: int
    printed: int | None
    drug_name: str | None  # the running head's drug name, as printed
    raw: str


def _repeated_marks(layouts: list[PageLayout]) -> set[str]:
    """Header texts repeated on at least half of the pages that have a header (e.g. 'DTQGVN 2')."""
    counts: Counter[str] = Counter()
    with_header = 0
    for lay in layouts:
        texts = {squash_spaces(s.text) for s in lay.header_spans if s.text.strip()}
        if texts:
            with_header += 1
        counts.update(t for t in texts if not _FOLIO.match(t))
    return {t for t, n in counts.items() if with_header and n >= max(2, with_header // 2)}


def read_headers(layouts: list[PageLayout]) -> list[PageHeader]:
    marks = _repeated_marks(layouts)
    out: list[PageHeader] = []
    for lay in layouts:
        spans = [s for s in lay.header_spans if s.text.strip()]
        printed: int | None = None
        rest = []
        for s in sorted(spans, key=lambda sp: sp.x0):
            text = squash_spaces(s.text)
            at_margin = s.x0 < lay.width * _MARGIN or s.x1 > lay.width * (1 - _MARGIN)
            if printed is None and _FOLIO.match(text) and at_margin:
                printed = int(text)
            else:
                rest.append(s)
        # the drug name is centred; a repeated edition mark ("DTQGVN 2") sits at a margin
        centred = [s for s in rest if abs(s.cx - lay.width / 2) < lay.width * 0.15]
        name = join_spans(centred or [s for s in rest if squash_spaces(s.text) not in marks]) or None
        out.append(PageHeader(lay.physical, printed, name, join_spans(spans)))
    return out


def header_matches(drug_name: str | None, titles: list[str]) -> bool:
    """Does a running head name one of the monographs present on its page?"""
    if not drug_name:
        return False
    head = fold(drug_name)
    for t in titles:
        ft = fold(t)
        if head == ft or head in ft or ft.split(" (")[0] in head:
            return True
    return False
