"""The named gates `duocthu-ingest check` prints; every one must be 0 for a build to be trusted.

Computed from the artifacts alone (monographs, chunks, page map, and the per-page facts kept in report.json),
so `check` recomputes them from a built folder rather than echoing what `build` said.
"""

from __future__ import annotations

from collections import Counter

from duocthu_desktop.artifacts import Chunk, Monograph, PageMap
from ingestion.chunker import MAX_TOKENS, count_tokens
from ingestion.headers import header_matches

GATE_NAMES = (
    "monographs_without_sections",
    "sections_without_text",
    "chunks_over_token_ceiling",
    "chunks_without_pages",
    "monograph_pages_without_folio",
    "duplicate_chunk_ids",
    "replacement_characters",
    "reading_order_jumps",
    "header_drug_mismatches",
)


def compute(
    monographs: list[Monograph], chunks: list[Chunk], pages: PageMap, page_facts: list[dict]
) -> tuple[dict[str, int], dict[str, list[str]]]:
    details: dict[str, list[str]] = {name: [] for name in GATE_NAMES}
    with_text = {(c.drug_id, c.section_key) for c in chunks if c.text.strip()}
    for m in monographs:
        if not [s for s in m.sections if s.key != "thong_tin_chung"]:
            details["monographs_without_sections"].append(m.drug_id)
        for s in m.sections:
            if (m.drug_id, s.key) not in with_text:
                details["sections_without_text"].append(f"{m.drug_id}/{s.key}")
    for c in chunks:
        n = count_tokens(c.text)
        if n > MAX_TOKENS:
            details["chunks_over_token_ceiling"].append(f"{c.chunk_id} ({n})")
        if not c.printed_pages or not c.physical_pages:
            details["chunks_without_pages"].append(c.chunk_id)
        if "\ufffd" in c.text:
            details["replacement_characters"].append(c.chunk_id)
    for m in monographs:
        for field in (m.title, m.inn or "", m.drug_class or ""):
            if "\ufffd" in field:
                details["replacement_characters"].append(m.drug_id)
    folio = {p.physical: p.printed for p in pages.pages}
    for m in monographs:
        for p in range(m.start_physical, m.end_physical + 1):
            if folio.get(p) is None:
                details["monograph_pages_without_folio"].append(f"{m.drug_id}: physical {p}")
    counts = Counter(c.chunk_id for c in chunks)
    details["duplicate_chunk_ids"] = sorted(cid for cid, n in counts.items() if n > 1)
    by_page = {f["physical"]: f for f in page_facts}
    monograph_pages = {p for m in monographs for p in range(m.start_physical, m.end_physical + 1)}
    for p in sorted(monograph_pages):
        fact = by_page.get(p)
        if fact is None:
            continue
        if fact.get("gutter_lines"):
            details["reading_order_jumps"].append(
                f"physical {p}: {fact['gutter_lines']} lines cross the gutter"
            )
        titles = [m.title for m in monographs if m.start_physical <= p <= m.end_physical]
        if not header_matches(fact.get("header_drug"), titles):
            details["header_drug_mismatches"].append(f"physical {p}: header {fact.get('header_drug')!r}")
    return {name: len(details[name]) for name in GATE_NAMES}, {k: v for k, v in details.items() if v}
