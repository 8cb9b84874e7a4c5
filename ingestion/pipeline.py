"""The whole ingest run: PDF -> monographs, chunks, page map and report, in memory; then written atomically.

Stages, in data-flow order: spans (lines in reading order) -> tables (lifted out) -> headers (page map) ->
monographs -> sectioning -> paragraphs -> chunker, tied together per monograph by assemble. Bad input raises InputRefused with a one-line reason.

`build` only ever replaces a folder a build made (see ingestion.out_folder); a failed write leaves it as it
was, and so does a cancel (`cancel` event, BuildCancelled); `on_progress(stage, done, total)` follows it
(ingestion.progress).
"""

from __future__ import annotations

import hashlib
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

from duocthu_desktop import artifacts, atomic
from duocthu_desktop.artifacts import Chunk, Monograph, PageEntry, PageMap, Report
from duocthu_desktop.dosage.parser import read_book
from duocthu_desktop.dosage.rows import DOSING_FILE, write_dosing
from duocthu_desktop.dosage.stored import dosing_code_sha256
from duocthu_desktop.errors import DuocthuError, InputRefused
from duocthu_desktop.retrieval.types import Embedder
from ingestion import gates, out_folder
from ingestion.assemble import build_monograph, pages_of
from ingestion.chunker import MAX_TOKENS
from ingestion.headers import PageHeader, read_headers
from ingestion.monographs import RawMonograph, split_monographs
from ingestion.progress import BuildCancelled, Progress, ProgressFn, TerminalBar
from ingestion.spans import Line, PageLayout, group_lines, read_spans, reading_order
from ingestion.tables import TableBlock, find_tables

try:  # Unix only; on Windows the report has no peak memory rather than the ingest not importing
    import resource
except ImportError:  # pragma: no cover - exercised on Windows
    resource = None  # type: ignore[assignment]

__all__ = ["BuildCancelled", "BuildResult", "build", "run"]  # BuildCancelled: what a caller of build catches


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


def _steps(progress: bool, on_progress: ProgressFn | None, cancel: threading.Event | None) -> Progress:
    """The build's progress: the caller's callback, else a terminal bar when `progress` and stderr is one."""
    if on_progress is None and progress and sys.stderr.isatty():
        on_progress = TerminalBar()
    return Progress(on_progress, cancel)


# ---- pages -> item stream -------------------------------------------------------------------------


@dataclass
class PageRead:
    layout: PageLayout
    items: list[Line | TableBlock]
    gutter_lines: int


def read_page(page: pymupdf.Page, physical: int) -> PageRead:
    layout = read_spans(page, physical)
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


def _refuse_textless_pages(pdf: Path, reads: list[PageRead], raw: list[RawMonograph]) -> None:
    """A page without a text layer inside the monographs (or a book with no text at all) is a scan: refuse it.
    A textless cover or plate outside the monographs is allowed (the real book's cover is an image)."""
    textless = [r.layout.physical for r in reads if not r.layout.body_spans and not r.layout.header_spans]
    if not textless:
        return
    first = raw[0].title_line.physical if raw else None
    last = max(pages_of(raw[-1])) if raw else None
    inside = [p for p in textless if first is None or first <= p <= last]
    if inside:
        pages = ", ".join(str(p) for p in inside[:5]) + (" ..." if len(inside) > 5 else "")
        raise InputRefused(
            f"{pdf}: page(s) {pages} have no text layer (scanned images); run OCR on the PDF "
            "(e.g. ocrmypdf --language vie) or use the publisher's text PDF"
        )


def _peak_memory_mb() -> float | None:
    """This process's peak resident memory in MB (Linux reports ru_maxrss in KB); None where unknown."""
    if resource is None:
        return None
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _column_right(items: list[Line | TableBlock]) -> dict[tuple[int, int], float]:
    right: dict[tuple[int, int], float] = {}
    for it in items:
        if isinstance(it, Line):
            k = (it.physical, it.column)
            right[k] = max(right.get(k, 0.0), it.x1)
    return right


def read_pages(pdf: Path, steps: Progress) -> list[PageRead]:
    """Every page of the PDF read, in this process (the command line's build: PyMuPDF has the process alone)."""
    doc = open_pdf(pdf)
    reads: list[PageRead] = []
    try:
        for i in range(doc.page_count):
            steps.step("pages", i, doc.page_count)
            reads.append(read_page(doc[i], i + 1))
        steps.step("pages", doc.page_count, doc.page_count)
    finally:
        doc.close()
    return reads


def run(pdf: Path, progress: bool = False, steps: Progress | None = None, isolated: bool = False) -> BuildResult:
    """Read the PDF and build every artifact in memory; raises InputRefused for input it will not take, and
    BuildCancelled when `steps` is cancelled. `isolated` reads the pages in a process of their own
    (ingestion.page_process): a build inside a program whose other threads may use PyMuPDF too (the app)."""
    own_bar = steps is None
    steps = steps or _steps(progress, None, None)
    started = time.perf_counter()
    pdf = Path(pdf)
    if isolated:
        from ingestion import page_process

        reads = page_process.read_pages(pdf, steps)
    else:
        reads = read_pages(pdf, steps)
    headers: list[PageHeader] = read_headers([r.layout for r in reads])
    printed = {h.physical: h.printed for h in headers}
    items = [it for r in reads for it in r.items]
    raw = split_monographs(items)
    _refuse_textless_pages(pdf, reads, raw)
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
    for done, mono in enumerate(raw):
        steps.step("monographs", done, len(raw))
        m, cs = build_monograph(mono, printed, column_right, suspect)
        monographs.append(m)
        chunks.extend(cs)
        for p in range(m.start_physical, m.end_physical + 1):
            facts[p - 1].monographs.append(m.title)
    steps.step("monographs", len(raw), len(raw))
    if own_bar and isinstance(steps.on_progress, TerminalBar):
        steps.on_progress.close()
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
        peak_memory_mb=_peak_memory_mb(),
        page_facts=[f.__dict__ for f in facts],
    )
    return BuildResult(monographs, chunks, page_map, report, facts)


def write_artifacts(result: BuildResult, folder: Path) -> None:
    folder = Path(folder)
    dosing = read_book(result.chunks)
    result.report.dosing_rows = len(dosing)
    result.report.dosing_code_sha256 = dosing_code_sha256()  # the index build records it in manifest.json
    artifacts.write_jsonl(folder / artifacts.MONOGRAPHS_FILE, result.monographs)
    artifacts.write_chunks(folder / artifacts.CHUNKS_FILE, result.chunks)
    write_dosing(folder / DOSING_FILE, dosing)
    artifacts.write_model(folder / artifacts.PAGES_FILE, result.pages)
    artifacts.write_model(folder / artifacts.REPORT_FILE, result.report)


def build(pdf: Path, out: Path, embed: bool = True, progress: bool = False,
          on_progress: ProgressFn | None = None, cancel: threading.Event | None = None,
          embedder: Embedder | None = None, before_swap: Callable[[], None] | None = None,
          isolated: bool = False) -> BuildResult:
    """Run, then write every artifact into a staging folder swapped in for `out` only when all succeeded.

    `out` is locked (`<out>.lock`) from start to swap; a second build into it is refused at once rather than
    left to wait: a build can take many minutes, and the waiting one would silently replace the first's
    index when it finally ran. A write that fails (disk full, no permission) is InputRefused; `out` stays.
    `on_progress(stage, done, total)` follows the stages (ingestion.progress.STAGES; a terminal bar when
    `progress` and no callback); setting `cancel` stops at the next step with BuildCancelled, `out` as it was.
    `embedder` (e.g. the app's, already loaded) embeds what the cache lacks; by default the model loads if needed.
    `before_swap()` runs once the new index is complete, just before it replaces `out`: the app closes the old
    index there (it serves until then; some systems cannot replace a folder whose files are open). `isolated`:
    the pages are read in a process of their own (see `run`).
    """
    steps = _steps(progress, on_progress, cancel)
    out = Path(out).resolve()
    out_folder.refuse_foreign(out)
    try:
        with out_folder.claimed(out):
            result = run(pdf, steps=steps, isolated=isolated)
            out_folder.refuse_foreign(out)  # again, now under the lock
            try:
                _write(result, out, embed, progress, steps, embedder, before_swap)
            except OSError as err:
                raise out_folder.write_refused(out, err) from err
    finally:
        if isinstance(steps.on_progress, TerminalBar):
            steps.on_progress.close()
    return result


def _write(result: BuildResult, out: Path, embed: bool, progress: bool, steps: Progress | None = None,
           embedder: Embedder | None = None, before_swap: Callable[[], None] | None = None) -> None:
    steps = steps or Progress()
    with atomic.staged_dir(out, owned=out_folder.owned) as staging:
        steps.step("write", 0, 1)
        write_artifacts(result, staging)
        steps.step("write", 1, 1)
        if embed:
            try:
                from ingestion.index_build import build_index
            except ImportError as exc:
                raise DuocthuError(
                    "the index builder (ingestion.index_build) is not installed; rerun with --no-embed"
                ) from exc
            extra = {"steps": steps} if steps.active else {}
            if embedder is not None:
                extra["embedder"] = embedder
            try:
                build_index(staging, result.chunks, result.monographs, progress=progress and sys.stderr.isatty(),
                            **extra)
            except Exception as err:  # a full disk, wherever Chroma noticed it (its reopen check included)
                disk = None if isinstance(err, (BuildCancelled, InputRefused)) else out_folder.disk_failure(err, staging)
                if disk is None:  # judged here, while the half-written staging folder still holds the space
                    raise
                raise disk from err
        steps.step("swap", 0, 1)  # the last moment a cancel leaves the previous index in place
        if before_swap is not None:
            before_swap()
    steps.report("swap", 1, 1)
