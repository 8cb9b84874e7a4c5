"""`python -m ingestion.measure`: the figures issue 2 asks for, measured on the shared sample PDFs.

Prints: gold agreement (drug_id, title, first folio, section keys, page folios), sample-b's monographs,
per-monograph text similarity against source/*.md, source numbers missing from the chunks, the Vancomycin and
Warfarin table rows, pages/second and peak memory. Each figure is also a function the tests call.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from pathlib import Path

from duocthu_desktop.artifacts import Chunk, Monograph
from duocthu_desktop.sections import match_heading
from ingestion.pipeline import BuildResult, run

_LEAK_AFTER = re.compile(r"\b\d{1,4}\s+(?:\*\*)?[A-ZĐ][^\n*\d|]{0,60}?(?:\*\*)?\s+DTQGVN 2")
_LEAK_BEFORE = re.compile(r"DTQGVN 2\s+(?:\*\*)?[A-ZĐ][^\n*\d|]{0,60}?(?:\*\*)?\s+\d{1,4}\b(?:\s+\d{1,4}\b)?")
_MARKUP = re.compile(r"</?sup>|</?sub>|<br>|\*\*|\*|^#+\s*|^\|?[-| :]+\|?\s*$", re.M)
_NUMBER = re.compile(
    r"\d+/\d+(?: \d{3})+|\d+(?:[.,]\d+)*(?:\s?[-–]\s?\d+(?:[.,]\d+)*)?"
    r"(?:\s?(?:%|mg|g|ml|mcg|microgam|kg|lít|mmol|mEq|IU|đvqt|đơn vị|giờ|ngày|tuần|tháng|tuổi|phút|lần)"
    r"(?:/(?:kg|ngày|lần|ml|giờ|m2|phút|lít|24 giờ|liều))*)?"
)
_WS = re.compile(r"\s+")


def default_corpus() -> Path:
    return Path(__file__).resolve().parents[2] / "shared" / "corpus"


def strip_source(md: str) -> str:
    """Source markdown -> plain text: leaked running headers and markup removed, table pipes dropped."""
    text = _LEAK_BEFORE.sub(" ", _LEAK_AFTER.sub(" ", md))
    text = _LEAK_BEFORE.sub(" ", text).replace("DTQGVN 2", " ")
    text = text.replace("\\*", "\x00")  # an escaped asterisk is the book's own ("CYP2C9*2", footnote marks)
    text = _MARKUP.sub(" ", text)
    text = re.sub(r"^\s*>\s?", "", text, flags=re.M)  # blockquote markers
    return text.replace("\x00", "*").replace("|", " ")


def monograph_text(mono: Monograph, chunks: list[Chunk]) -> str:
    """Title, then each section's heading and chunk texts in book order (what a reader of the page sees)."""
    parts = [mono.title]
    mine = [c for c in chunks if c.drug_id == mono.drug_id]
    for s in mono.sections:
        if s.key != "thong_tin_chung":
            parts.append(s.heading)
        parts.extend(c.text.replace(" | ", " ") for c in mine if c.section_key == s.key)
    return "\n".join(parts)


def _squeeze(text: str) -> str:
    return _WS.sub("", text)


def similarity(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, _squeeze(a), _squeeze(b), autojunk=False).ratio()


def source_files(corpus: Path) -> dict[str, Path]:
    """drug_id -> source markdown, from MANIFEST.tsv (slug, title, ...)."""
    from duocthu_desktop.text import drug_id_from_title

    out: dict[str, Path] = {}
    manifest = corpus / "source" / "MANIFEST.tsv"
    for line in manifest.read_text(encoding="utf-8").splitlines():
        cols = line.split("\t")
        if len(cols) >= 2:
            out[drug_id_from_title(cols[1])] = corpus / "source" / f"{cols[0]}.md"
    return out


def source_numbers(text: str) -> list[str]:
    return sorted({_WS.sub(" ", m.group()).strip() for m in _NUMBER.finditer(text)})


def number_misses(
    result: BuildResult, corpus: Path, counted: list[int] | None = None
) -> dict[str, list[str]]:
    """Source numbers (with units and ranges) not found verbatim in the drug's chunks; `counted` gets the total."""
    misses: dict[str, list[str]] = {}
    sources = source_files(corpus)
    for m in result.monographs:
        src = sources.get(m.drug_id)
        if not src:
            continue
        hay = _WS.sub(" ", "\n".join(c.text for c in result.chunks if c.drug_id == m.drug_id) + " " + m.title)
        numbers = source_numbers(strip_source(src.read_text(encoding="utf-8")))
        if counted is not None:
            counted.append(len(numbers))
        miss = [n for n in numbers if n not in hay]
        if miss:
            misses[m.drug_id] = miss
    return misses


def similarities(result: BuildResult, corpus: Path) -> dict[str, float]:
    sources = source_files(corpus)
    out: dict[str, float] = {}
    for m in result.monographs:
        src = sources.get(m.drug_id)
        if src:
            out[m.drug_id] = round(
                similarity(monograph_text(m, result.chunks), strip_source(src.read_text(encoding="utf-8"))), 4
            )
    return out


def gold_agreement(result: BuildResult, gold: dict) -> dict[str, list[str]]:
    """Every disagreement with the gold file, by kind (empty lists mean full agreement): each monograph's
    drug_id, title, first physical page and folio, its headings with their section keys in order, which
    monographs start on each page, and each page's folio."""
    out: dict[str, list[str]] = {"monographs": [], "section_keys": [], "headings": [], "folios": []}
    got = result.monographs
    if len(got) != len(gold["monographs"]):
        out["monographs"].append(f"count {len(got)} != gold {len(gold['monographs'])}")
    for m, g in zip(got, gold["monographs"], strict=False):
        for name, mine, theirs in (
            ("drug_id", m.drug_id, g["drug_id"]),
            ("title", m.title, g["title"]),
            ("start_printed", m.start_printed, g["start_printed"]),
            ("start_physical", m.start_physical, g["start_physical"]),
        ):
            if mine != theirs:
                out["monographs"].append(f"{g['drug_id']}: {name} {mine!r} != {theirs!r}")
        keys = [s.key for s in m.sections]
        if keys != g["section_keys"]:
            out["section_keys"].append(f"{g['drug_id']}: {keys} != {g['section_keys']}")
        # the gold names each heading in the book's usual wording; ours is as printed ("Bảo quản"): both must
        # land on the same key, in the same order
        mine_keys = [(match_heading(s.heading) or ("?",))[0] for s in m.sections if s.key != "thong_tin_chung"]
        gold_keys = [(match_heading(h) or ("?",))[0] for h in g.get("sections", [])]
        if "sections" in g and mine_keys != gold_keys:
            out["headings"].append(f"{g['drug_id']}: {mine_keys} != {gold_keys}")
    folios = {p.physical: p.printed for p in result.pages.pages}
    slug = {g["drug_id"]: g.get("slug", g["drug_id"]) for g in gold["monographs"]}  # pages name slugs
    starts: dict[int, list[str]] = {}
    for m in got:
        starts.setdefault(m.start_physical, []).append(slug.get(m.drug_id, m.drug_id))
    for p in gold["pages"]:
        if folios.get(p["physical"]) != p["printed"]:
            out["folios"].append(f"physical {p['physical']}: {folios.get(p['physical'])} != {p['printed']}")
        if "starts" in p and starts.get(p["physical"], []) != p["starts"]:
            out["monographs"].append(f"physical {p['physical']} starts {starts.get(p['physical'], [])} != {p['starts']}")
    return out


def _md_table_rows(md: str) -> list[str]:
    return [ln for ln in md.splitlines() if ln.startswith("|") and not re.match(r"^\|[-| :]+\|\s*$", ln)]


def table_rows(result: BuildResult, corpus: Path, drug_id: str) -> dict[str, int]:
    """Source table rows of one drug, and how many of them appear (cells in order) in its table chunks."""
    src = source_files(corpus).get(drug_id)
    rows = _md_table_rows(src.read_text(encoding="utf-8")) if src else []
    tables = [c for c in result.chunks if c.drug_id == drug_id and c.kind == "table"]
    hay = _squeeze("\n".join(c.text for c in tables)).replace("|", "")
    found = 0
    for row in rows:
        cells = _squeeze(strip_source(row))
        if cells and cells in hay:
            found += 1
    return {
        "source_rows": len(rows),
        "rows_found_verbatim": found,
        "table_chunks": len(tables),
        "chunk_rows": sum(c.text.count("\n") + 1 for c in tables),
    }


def character_balance(result: BuildResult, pdf: Path) -> dict[str, int]:
    """For a book without source text: every non-space character printed in the monographs' page bodies
    (header band excluded, PyMuPDF's plain text) against the characters in titles, headings and chunks.
    `missing` counts characters on the page that no artifact holds, `extra` the reverse."""
    from collections import Counter

    import pymupdf

    pages = sorted({p for m in result.monographs for p in range(m.start_physical, m.end_physical + 1)})
    printed: Counter[str] = Counter()
    with pymupdf.open(pdf) as doc:
        for p in pages:
            page = doc[p - 1]
            clip = pymupdf.Rect(0, page.rect.height * 0.06, page.rect.width, page.rect.height)
            flags = pymupdf.TEXTFLAGS_TEXT & ~pymupdf.TEXT_PRESERVE_LIGATURES  # "ﬂ" counted as "fl", as we read it
            printed.update(_squeeze(page.get_text(clip=clip, flags=flags)))
    got: Counter[str] = Counter()
    for m in result.monographs:
        got.update(_squeeze(m.title))
        got.update(_squeeze("".join(s.heading for s in m.sections if s.key != "thong_tin_chung")))
    for c in result.chunks:
        got.update(_squeeze(c.text.replace(" | ", " ")))
    return {
        "printed": sum(printed.values()),
        "missing": sum((printed - got).values()),
        "extra": sum((got - printed).values()),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ingestion.measure")
    ap.add_argument("--corpus", type=Path, default=default_corpus())
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = ap.parse_args(argv)
    corpus = args.corpus
    res = run(corpus / "duocthu-2018-sample.pdf")
    gold = json.loads((corpus / "duocthu-2018-sample.gold.json").read_text(encoding="utf-8"))
    res_b = run(corpus / "duocthu-2018-sample-b.pdf")
    sims = similarities(res, corpus)
    worst = min(sims, key=sims.get) if sims else None
    sources = source_files(corpus)
    figures = {
        "sample": {
            "monographs": len(res.monographs),
            "gold_disagreements": gold_agreement(res, gold),
            "gates": res.report.gates,
            "chunks": len(res.chunks),
            "tables": res.report.tables,
            "quarantined": res.report.quarantined,
            "pages_per_second": res.report.pages_per_second,
            "seconds": res.report.seconds,
            "peak_memory_mb": res.report.peak_memory_mb,
        },
        "similarity": {"worst": [worst, sims.get(worst)] if worst else None, "per_monograph": sims},
        "number_misses": number_misses(res, corpus, counted := []),
        "numbers_checked": sum(counted),
        "tables": {d: table_rows(res, corpus, d) for d in ("vancomycin", "warfarin")},
        "character_balance": character_balance(res, corpus / "duocthu-2018-sample.pdf"),
        "sample_b": {
            "monographs": [
                {
                    "drug_id": m.drug_id,
                    "title": m.title,
                    "start_printed": m.start_printed,
                    "end_printed": m.end_printed,
                    "sections": [s.key for s in m.sections],
                    "in_source": m.drug_id in sources,
                }
                for m in res_b.monographs
            ],
            "gates": res_b.report.gates,
            "folios": [p.printed for p in res_b.pages.pages],
            "similarity": similarities(res_b, corpus),
            "character_balance": character_balance(res_b, corpus / "duocthu-2018-sample-b.pdf"),
            "pages_per_second": res_b.report.pages_per_second,
        },
    }
    if args.json:
        print(json.dumps(figures, ensure_ascii=False, indent=1))
        return 0
    s = figures["sample"]
    print(
        f"sample: {s['monographs']} monographs, {s['chunks']} chunks, {s['tables']} tables, {s['quarantined']} quarantined"
    )
    for kind, items in s["gold_disagreements"].items():
        print(f"gold {kind} disagreements: {len(items)}" + "".join(f"\n  {i}" for i in items))
    print(f"gates: {s['gates']}")
    print(f"speed: {s['pages_per_second']} pages/s ({s['seconds']} s); peak memory {s['peak_memory_mb']} MB")
    print(f"similarity worst: {figures['similarity']['worst']}")
    print("similarity per monograph: " + ", ".join(f"{k} {v:.4f}" for k, v in sims.items()))
    misses = figures["number_misses"]
    print(f"numbers checked: {figures['numbers_checked']} distinct per monograph")
    print(
        f"number misses: {sum(len(v) for v in misses.values())}"
        + "".join(f"\n  {k}: {v}" for k, v in misses.items())
    )
    for d, t in figures["tables"].items():
        print(f"table {d}: {t}")
    b = figures["sample_b"]
    print(f"sample-b: {len(b['monographs'])} monographs, gates {b['gates']}, folios {b['folios']}")
    for m in b["monographs"]:
        print(
            f"  {m['drug_id']} {m['title']!r} printed {m['start_printed']}-{m['end_printed']} "
            f"in_source={m['in_source']} sections={len(m['sections'])} {m['sections']}"
        )
    print(
        f"  sample-b character balance vs the page bodies: {b['character_balance']} "
        f"(sample: {figures['character_balance']})"
    )
    if b["similarity"]:
        print(f"  sample-b similarity: {b['similarity']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["main", "similarity", "strip_source"]
