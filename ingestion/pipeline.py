"""The whole ingest run: PDF -> monographs, chunks, page map and report, in memory; then written atomically.

Stages, in data-flow order: spans (lines in reading order) -> tables (lifted out) -> headers (page map) ->
monographs -> sectioning -> paragraphs -> chunker. Bad input raises InputRefused with a one-line reason.
"""

from __future__ import annotations

import hashlib
import resource
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

from duocthu_desktop import artifacts
from duocthu_desktop.artifacts import Chunk, Monograph, PageEntry, PageMap, Report, SectionSpan
from duocthu_desktop.atomic import staged_dir
from duocthu_desktop.errors import DuocthuError, InputRefused
from ingestion import gates
from ingestion.chunker import MAX_TOKENS, pack_prose
from ingestion.headers import PageHeader, read_headers
from ingestion.monographs import RawMonograph, atc_codes, clean_field, parse_identity, split_monographs
from ingestion.paragraphs import Paragraph, to_paragraphs
from ingestion.sectioning import THONG_TIN_CHUNG, RawSection, identity_lines, split_sections
from ingestion.spans import Line, PageLayout, group_lines, read_spans, reading_order
from ingestion.tables import TableBlock, find_tables


@dataclass
class PageFacts:
    """What the run learned about one physical page (kept in report.json so `check` can recompute gates)."""

    physical: int
    printed: int | None
    header_drug: str | None
    gutter_lines: int  # body lines crossing the gutter: their reading order had to be guessed
    monographs: list[str] = field(default_factory=list)


@dataclass
class BuildResult:
    monographs: list[Monograph]
    chunks: list[Chunk]
    pages: PageMap
    report: Report
    page_facts: list[PageFacts]


# ---- input --------------------------------------------------------------------------------------


def open_pdf(path: Path) -> pymupdf.Document:
    path = Path(path)
    if not path.is_file():
        raise InputRefused(f"{path}: file not found; give the path of the formulary PDF")
    with open(path, "rb") as fh:
        magic = fh.read(1024)
    if b"%PDF-" not in magic:
        raise InputRefused(f"{path}: not a PDF file; export or download the formulary as PDF and try again")
    try:
        doc = pymupdf.open(path)
    except Exception as exc:  # noqa: BLE001 - any open failure is a damaged file to the admin
        raise InputRefused(
            f"{path}: the PDF is damaged or truncated ({exc}); download or copy the file again"
        ) from exc
    if doc.needs_pass or doc.is_encrypted:
        raise InputRefused(f"{path}: the PDF is encrypted; save an unprotected copy (no password) and retry")
    if getattr(doc, "is_repaired", False):
        raise InputRefused(
            f"{path}: the PDF is damaged or truncated (had to be repaired); copy the file again"
        )
    if doc.page_count == 0:
        raise InputRefused(f"{path}: the PDF has no pages; check that it is the formulary")
    return doc


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _progress(iterable, total: int, enabled: bool):
    if enabled and sys.stderr.isatty():
        from tqdm import tqdm

        return tqdm(iterable, total=total, unit="page", desc="duocthu-ingest", file=sys.stderr)
    return iterable


# ---- pages -> item stream -------------------------------------------------------------------------


@dataclass
class PageRead:
    layout: PageLayout
    items: list[Line | TableBlock]
    gutter_lines: int


def read_page(page: pymupdf.Page, physical: int) -> PageRead:
    layout = read_spans(page, physical)
    if not layout.body_spans and not layout.header_spans:
        raise InputRefused(
            f"page {physical} has no text layer (a scanned image?); run OCR on the PDF "
            "(e.g. ocrmypdf) or use the publisher's text PDF"
        )
    tables = find_tables(page, layout)
    in_tables = {id(s) for t in tables for s in t.spans}
    body = [s for s in layout.body_spans if id(s) not in in_tables]
    lines = reading_order(group_lines(body, physical, layout.gutter))
    items: list[Line | TableBlock] = list(lines)
    items.extend(tables)

    def key(it: Line | TableBlock) -> tuple[int, float]:
        col = it.column
        y = it.baseline if isinstance(it, Line) else it.y0
        return (1 if col == 1 else 0, y)

    items.sort(key=key)
    gutter_lines = sum(1 for ln in lines if ln.column == -1)
    return PageRead(layout, items, gutter_lines)


def _column_right(items: list[Line | TableBlock]) -> dict[tuple[int, int], float]:
    right: dict[tuple[int, int], float] = {}
    for it in items:
        if isinstance(it, Line):
            k = (it.physical, it.column)
            right[k] = max(right.get(k, 0.0), it.x1)
    return right


# ---- monographs -> artifacts ----------------------------------------------------------------------


def _section_content(section: RawSection, column_right) -> list[Paragraph | TableBlock]:
    out: list[Paragraph | TableBlock] = []
    run: list[Line] = []
    for it in section.items:
        if isinstance(it, TableBlock):
            out.extend(to_paragraphs(run, column_right))
            run = []
            out.append(it)
        else:
            run.append(it)
    out.extend(to_paragraphs(run, column_right))
    return out


def _merge_continued_tables(blocks: list[Paragraph | TableBlock]) -> list[Paragraph | list[TableBlock]]:
    """A table broken over a column or page comes as consecutive blocks with the same column count:
    keep them together as one table (its header row stays with its rows)."""
    out: list[Paragraph | list[TableBlock]] = []
    for b in blocks:
        if isinstance(b, TableBlock):
            prev = out[-1] if out else None
            if (
                isinstance(prev, list)
                and prev[-1].n_cols == b.n_cols
                and (prev[-1].physical, prev[-1].column)
                != (
                    b.physical,
                    b.column,
                )
            ):
                prev.append(b)
            else:
                out.append([b])
        else:
            out.append(b)
    return out


def _table_text(blocks: list[TableBlock]) -> tuple[str, list[list[int]]]:
    text = ""
    spans: list[list[int]] = []
    for b in blocks:
        if text:
            text += "\n"
        start = len(text)
        text += b.text
        if spans and spans[-1][0] == b.physical:
            spans[-1][2] = len(text)
        else:
            spans.append([b.physical, start, len(text)])
    return text, spans


def _pages_of(mono: RawMonograph) -> list[int]:
    pages = {mono.title_line.physical}
    pages.update(it.physical for it in mono.items)
    return sorted(pages)


def _chunk(
    mono: RawMonograph,
    section: RawSection,
    index: int,
    text: str,
    page_spans: list[list[int]],
    printed: dict[int, int | None],
    suspect_pages: set[int],
    table: TableBlock | None = None,
    table_id: str | None = None,
    flags: frozenset[str] = frozenset(),
) -> Chunk:
    physical = sorted({p for p, _, _ in page_spans})
    printed_pages = [printed[p] for p in physical if printed.get(p) is not None]
    reason = None
    if table is not None:
        reason = "table"
    elif suspect_pages.intersection(physical):
        reason = "reading_order_guessed"
    elif flags:
        reason = ",".join(sorted(flags))
    cid = f"{mono.drug_id}__{section.key}__" + (f"block__{table_id}" if table_id else str(index))
    return Chunk(
        chunk_id=cid,
        drug_id=mono.drug_id,
        section_key=section.key,
        part_index=index,
        text=text,
        printed_pages=printed_pages,
        physical_pages=physical,
        kind="table" if table is not None else "prose",
        quarantined=reason is not None,
        quarantine_reason=reason,
        heading=section.heading,
        table_id=table_id,
        page_spans=page_spans,
    )


def _identity_part(section: RawSection) -> tuple[str, list[list[int]], dict[str, str]]:
    lines = identity_lines(section)
    texts, fields = parse_identity(lines)
    text = ""
    spans: list[list[int]] = []
    physical = lines[0].physical if lines else section.start_physical or 0
    text = "\n".join(texts)
    if text:
        spans.append([physical, 0, len(text)])
    return text, spans, fields


def _section_parts(
    mono: RawMonograph,
    section: RawSection,
    printed: dict[int, int | None],
    column_right,
    suspect_pages: set[int],
    table_counter: int,
) -> tuple[list[Chunk], int]:
    """One section's chunks in book order: prose parts and lifted tables share one part_index sequence."""
    parts: list[Chunk] = []
    prose: list[Paragraph] = []

    def flush() -> None:
        for part in pack_prose(prose):
            parts.append(
                _chunk(
                    mono,
                    section,
                    len(parts),
                    part.text,
                    part.page_spans,
                    printed,
                    suspect_pages,
                    flags=part.flags,
                )
            )
        prose.clear()

    for block in _merge_continued_tables(_section_content(section, column_right)):
        if isinstance(block, list):
            flush()
            table_counter += 1
            text, page_spans = _table_text(block)
            parts.append(
                _chunk(
                    mono,
                    section,
                    len(parts),
                    text,
                    page_spans,
                    printed,
                    suspect_pages,
                    table=block[0],
                    table_id=f"t{table_counter}",
                )
            )
        else:
            prose.append(block)
    flush()
    return parts, table_counter


def build_monograph(
    mono: RawMonograph,
    printed: dict[int, int | None],
    column_right,
    suspect_pages: set[int],
) -> tuple[Monograph, list[Chunk]]:
    sections = split_sections(mono)
    chunks: list[Chunk] = []
    spans_out: list[SectionSpan] = []
    fields: dict[str, str] = {}
    table_counter = 0
    for section in sections:
        if section.key == THONG_TIN_CHUNG:
            text, page_spans, fields = _identity_part(section)
            parts = [_chunk(mono, section, 0, text, page_spans, printed, suspect_pages)] if text else []
        else:
            parts, table_counter = _section_parts(
                mono, section, printed, column_right, suspect_pages, table_counter
            )
        chunks.extend(parts)
        pages = sorted({p for c in parts for p in c.physical_pages} | {section.start_physical or 0} - {0})
        folios = [printed.get(p) for p in pages if printed.get(p) is not None]
        spans_out.append(
            SectionSpan(
                key=section.key,
                heading=section.heading,
                start_printed=printed.get(section.start_physical or 0),
                end_printed=folios[-1] if folios else None,
            )
        )
    pages = _pages_of(mono)
    monograph = Monograph(
        drug_id=mono.drug_id,
        title=mono.title,
        inn=clean_field(fields.get("inn")),
        atc=atc_codes(fields.get("atc")),
        drug_class=clean_field(fields.get("drug_class")),
        start_physical=pages[0],
        end_physical=pages[-1],
        start_printed=printed.get(pages[0]),
        end_printed=printed.get(pages[-1]),
        sections=spans_out,
    )
    return monograph, chunks


def run(pdf: Path, progress: bool = False) -> BuildResult:
    """Read the PDF and build every artifact in memory; raises InputRefused for input it will not take."""
    started = time.perf_counter()
    pdf = Path(pdf)
    doc = open_pdf(pdf)
    try:
        reads = [read_page(doc[i], i + 1) for i in _progress(range(doc.page_count), doc.page_count, progress)]
    finally:
        doc.close()
    headers: list[PageHeader] = read_headers([r.layout for r in reads])
    printed = {h.physical: h.printed for h in headers}
    items = [it for r in reads for it in r.items]
    raw = split_monographs(items)
    if not raw:
        raise InputRefused(
            f"{pdf}: no monographs found (no title followed by 'Tên chung quốc tế'); "
            "check that this is the Dược thư Quốc gia PDF"
        )
    column_right = _column_right(items)
    suspect = {r.layout.physical for r in reads if r.gutter_lines}
    monographs: list[Monograph] = []
    chunks: list[Chunk] = []
    facts = [
        PageFacts(h.physical, h.printed, h.drug_name, r.gutter_lines)
        for h, r in zip(headers, reads, strict=True)
    ]
    for mono in raw:
        m, cs = build_monograph(mono, printed, column_right, suspect)
        monographs.append(m)
        chunks.extend(cs)
        for p in range(m.start_physical, m.end_physical + 1):
            facts[p - 1].monographs.append(m.title)
    sha = _sha256(pdf)
    page_map = PageMap(
        source_pdf=str(pdf.resolve()),
        source_sha256=sha,
        pages=[PageEntry(physical=h.physical, printed=h.printed) for h in headers],
    )
    seconds = time.perf_counter() - started
    gate_values, details = gates.compute(monographs, chunks, page_map, [f.__dict__ for f in facts])
    report = Report(
        source_pdf=str(pdf.resolve()),
        source_sha256=sha,
        max_chunk_tokens=MAX_TOKENS,
        pages=len(reads),
        monographs=len(monographs),
        chunks=len(chunks),
        tables=sum(1 for c in chunks if c.kind == "table"),
        quarantined=sum(1 for c in chunks if c.quarantined),
        seconds=round(seconds, 3),
        gates=gate_values,
        gate_details=details,
        pages_per_second=round(len(reads) / seconds, 2) if seconds else None,
        peak_memory_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        page_facts=[f.__dict__ for f in facts],
    )
    return BuildResult(monographs, chunks, page_map, report, facts)


def write_artifacts(result: BuildResult, folder: Path) -> None:
    folder = Path(folder)
    artifacts.write_jsonl(folder / artifacts.MONOGRAPHS_FILE, result.monographs)
    artifacts.write_chunks(folder / artifacts.CHUNKS_FILE, result.chunks)
    artifacts.write_model(folder / artifacts.PAGES_FILE, result.pages)
    artifacts.write_model(folder / artifacts.REPORT_FILE, result.report)


def build(pdf: Path, out: Path, embed: bool = True, progress: bool = False) -> BuildResult:
    """Run, then write every artifact into a staging folder swapped in for `out` only when all succeeded."""
    result = run(pdf, progress=progress)
    with staged_dir(Path(out)) as staging:
        write_artifacts(result, staging)
        if embed:
            try:
                from ingestion.index_build import build_index
            except ImportError as exc:
                raise DuocthuError(
                    "the index builder (ingestion.index_build) is not installed; rerun with --no-embed"
                ) from exc
            build_index(staging, result.chunks, result.monographs, progress=progress)
    return result
