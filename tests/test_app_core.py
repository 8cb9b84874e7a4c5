"""What the core offers the desktop app (issue 9), without Qt: where a quote sits on the PDF page, which PDF an
index was built from, a chunk by its id, progress and cancel for a build, and closing an index to reopen it.

Quotes are checked against the page itself: the characters PyMuPDF places inside the returned rectangles must
spell the quote (letters and digits, in order), on the real sample book, on a re-rendering of it with other
layout knobs (/work/shared/tools), and on small hand-made pages for hyphenation, page breaks and column order.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pymupdf
import pytest

from duocthu_desktop import artifacts, pdf_check
from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.payload import Citation
from duocthu_desktop.pdf_locate import Locator, locate, text_key
from duocthu_desktop.retrieval.embed_cache import CACHE_FILE
from duocthu_desktop.retrieval.fakes import HashingEmbedder
from duocthu_desktop.retrieval.manifest import MANIFEST_FILE, read_manifest
from duocthu_desktop.retrieval.memory_store import InMemoryStore
from duocthu_desktop.retrieval.service import RetrievalService
from duocthu_desktop.settings import Settings
from ingestion import pipeline
from ingestion.progress import STAGES, BuildCancelled, TerminalBar

# ---- helpers ----------------------------------------------------------------------------------------------


def _cite(chunk: Chunk, quote: str, physical: int | None = None) -> Citation:
    return Citation(index=1, chunk_id=chunk.chunk_id, drug_id=chunk.drug_id, section_key=chunk.section_key,
                    printed_page=None, physical_page=physical or chunk.physical_pages[0], quote=quote)


def _chars(page: pymupdf.Page) -> list[tuple[tuple[float, float, float, float], str]]:
    out = []
    for block in page.get_text("rawdict")["blocks"]:
        for line in block.get("lines", []):
            for span in line["spans"]:
                out.extend((tuple(ch["bbox"]), ch["c"]) for ch in span["chars"])
    return out


def _highlighted(doc: pymupdf.Document, located) -> str:
    """The characters whose centre lies in a returned rectangle, rectangle by rectangle, as a key."""
    text = []
    for physical, rects in located:
        chars = _chars(doc[physical - 1])
        for x0, y0, x1, y1 in rects:
            text.append("".join(c for b, c in chars if x0 <= (b[0] + b[2]) / 2 <= x1 and y0 <= (b[1] + b[3]) / 2 <= y1))
    return text_key(" ".join(text))[0]


def _covers(doc: pymupdf.Document, quote: str, located) -> bool:
    return bool(located) and text_key(quote)[0] in _highlighted(doc, located)


def _overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _page_of(chunk: Chunk, offset: int) -> int:
    return next((p for p, a, b in chunk.page_spans if a <= offset < b), chunk.physical_pages[0])


def _dev_citations(build: Path, shared: Path) -> list[tuple[Citation, Chunk]]:
    """Every distinct citation the extractive assistant gives over the dev questions, on the build's chunks."""
    from duocthu_desktop.qa.pipeline import Assistant

    chunks = artifacts.read_chunks(build / artifacts.CHUNKS_FILE)
    monographs = artifacts.read_monographs(build / artifacts.MONOGRAPHS_FILE)
    by_id = {c.chunk_id: c for c in chunks}
    with tempfile.TemporaryDirectory() as data:
        assistant = Assistant(RetrievalService(InMemoryStore(chunks), monographs), settings=Settings(data_dir=data),
                              engine_name="extractive")
        seen: dict[tuple[str, str], Citation] = {}
        for line in (shared / "eval" / "dev.jsonl").read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            for turn in case["turns"]:
                for c in assistant.ask(turn, case["id"]).citations:
                    seen.setdefault((c.chunk_id, c.quote), c)
    return [(c, by_id[c.chunk_id]) for c in seen.values()]


def _assert_all_found(pdf: Path, cited: list[tuple[Citation, Chunk]]) -> None:
    doc = pymupdf.open(pdf)
    locator = Locator(doc)
    missing = [(c.chunk_id, c.quote[:60]) for c, chunk in cited if not _covers(doc, c.quote, locator.locate(c, chunk))]
    assert len(cited) >= 40
    assert not missing, f"{len(missing)}/{len(cited)} quotes not found: {missing[:5]}"


# ---- hand-made pages: hyphenation, page breaks, columns, repeats -------------------------------------------


def _pdf(path: Path, pages: list[list[tuple[float, float, str]]], width: float = 400) -> Path:
    """A PDF with each text at (x, baseline y), in the order given (the content stream order)."""
    doc = pymupdf.open()
    for items in pages:
        page = doc.new_page(width=width, height=300)
        for x, y, text in items:
            page.insert_text((x, y), text, fontsize=10)
    doc.save(path)
    return path


def _chunk(text: str, spans: list[list[int]]) -> Chunk:
    return Chunk(chunk_id="thuoc__lieu_luong_cach_dung__0", drug_id="thuoc", section_key="lieu_luong_cach_dung",
                 part_index=0, text=text, printed_pages=[100 + p for p, _, _ in spans],
                 physical_pages=[p for p, _, _ in spans], page_spans=spans)


def test_a_quote_hyphenated_at_a_line_end_is_found_on_both_lines(tmp_path):
    pdf = _pdf(tmp_path / "h.pdf", [[(20, 40, "Adults: give 500 mg of metfor-"), (20, 52, "min twice a day with meals."),
                                     (20, 64, "Other text.")]])
    text = "Adults: give 500 mg of metformin twice a day with meals.\nOther text."
    chunk = _chunk(text, [[1, 0, len(text)]])
    got = locate(_cite(chunk, "give 500 mg of metformin twice a day"), chunk, pdf)
    assert [p for p, _ in got] == [1] and len(got[0][1]) == 2
    doc = pymupdf.open(pdf)
    assert _covers(doc, "give 500 mg of metformin twice a day", got)
    assert "other" not in _highlighted(doc, got) and "with" not in _highlighted(doc, got)


def test_a_quote_across_a_page_break_gives_both_pages(tmp_path):
    pdf = _pdf(tmp_path / "b.pdf", [[(20, 40, "Intro line."), (20, 280, "The maximum dose is")],
                                    [(20, 40, "4 g per day in adults."), (20, 52, "Next paragraph.")]])
    text = "Intro line. The maximum dose is 4 g per day in adults. Next paragraph."
    cut = text.index("4 g")
    chunk = _chunk(text, [[1, 0, cut], [2, cut, len(text)]])
    quote = "The maximum dose is 4 g per day in adults."
    got = locate(_cite(chunk, quote, physical=1), chunk, pdf)
    assert [p for p, _ in got] == [1, 2]
    doc = pymupdf.open(pdf)
    assert _overlaps(got[0][1][0], doc[0].search_for("The maximum dose is")[0])
    assert _overlaps(got[1][1][0], doc[1].search_for("4 g per day in adults.")[0])
    assert "next" not in _highlighted(doc, got) and "intro" not in _highlighted(doc, got)
    # without page spans (an older chunk, or none given) the quote is still split across the two pages
    loose = locate(_cite(chunk, quote, physical=1), None, pdf)
    assert [p for p, _ in loose] == [1, 2] and _covers(doc, quote, loose)


def test_a_repeated_phrase_is_highlighted_where_the_chunk_has_it(tmp_path):
    pdf = _pdf(tmp_path / "r.pdf", [[(20, 40, "Children: 10 mg/kg."), (20, 52, "Maximum: 4 g/day."),
                                     (20, 76, "Adults: 1 g every 6 hours."), (20, 88, "Maximum: 4 g/day.")]])
    first = "Children: 10 mg/kg.\nMaximum: 4 g/day."
    second = "Adults: 1 g every 6 hours.\nMaximum: 4 g/day."
    chunk = _chunk(second, [[1, 0, len(second)]])
    got = locate(_cite(chunk, "Maximum: 4 g/day."), chunk, pdf)
    hits = pymupdf.open(pdf)[0].search_for("Maximum: 4 g/day.")
    assert len(hits) == 2 and got[0][1] and _overlaps(got[0][1][0], hits[1]) and not _overlaps(got[0][1][0], hits[0])
    chunk = _chunk(first, [[1, 0, len(first)]])
    got = locate(_cite(chunk, "Maximum: 4 g/day."), chunk, pdf)
    assert _overlaps(got[0][1][0], hits[0])


def test_two_columns_drawn_right_first_with_a_running_header_between(tmp_path):
    """The quote runs from the left column's foot to the right column's head; the PDF draws the right column
    first and prints a running header above both: the highlight covers the quote and not the header."""
    pdf = _pdf(tmp_path / "c.pdf", [[(210, 40, "continues in the right column."), (210, 52, "Then more."),
                                     (20, 20, "1120"), (170, 20, "DTQGVN 2"), (330, 20, "Thuoc"),
                                     (20, 40, "Left column text."), (20, 280, "A dose that")]])
    text = "Left column text. A dose that continues in the right column. Then more."
    chunk = _chunk(text, [[1, 0, len(text)]])
    quote = "A dose that continues in the right column."
    got = locate(_cite(chunk, quote), chunk, pdf)
    doc = pymupdf.open(pdf)
    assert _covers(doc, quote, got)
    header = doc[0].search_for("DTQGVN 2")[0]
    assert not any(_overlaps(r, header) for _, rects in got for r in rects)


def test_a_quote_the_page_does_not_hold_is_not_found(tmp_path):
    pdf = _pdf(tmp_path / "n.pdf", [[(20, 40, "Something else entirely.")]])
    chunk = _chunk("Dose 5 mg.", [[1, 0, 10]])
    assert locate(_cite(chunk, "Dose 5 mg."), chunk, pdf) == []


def test_composed_and_decomposed_vietnamese_give_one_key():
    import unicodedata

    word = "Liều tối đa"
    assert text_key(unicodedata.normalize("NFD", word))[0] == text_key(unicodedata.normalize("NFC", word))[0]
    key, origin = text_key("Trẻ em 4 - 6 tuổi")
    assert key == "treem46tuoi" and origin[0] == 0 and origin[-1] == len("Trẻ em 4 - 6 tuổi") - 1


# ---- the real sample book, and a re-rendering of it with other layout knobs --------------------------------


@pytest.mark.integration
def test_every_dev_citation_is_found_on_the_sample_pdf(sample_build, sample_pdf, shared):
    _assert_all_found(sample_pdf, _dev_citations(sample_build, shared))


@pytest.mark.integration
def test_quotes_across_a_page_break_of_the_sample_give_both_pages(sample_chunks, sample_pdf):
    doc = pymupdf.open(sample_pdf)
    locator = Locator(doc)
    crossing = [c for c in sample_chunks if len(c.page_spans) > 1]
    assert len(crossing) >= 20
    checked = 0
    for chunk in crossing:
        (p1, _, cut), (p2, _, _) = chunk.page_spans[:2]
        start = chunk.text.rfind(" ", 0, max(0, cut - 30)) + 1
        end = chunk.text.find(" ", cut + 30)
        end = end if end > 0 else len(chunk.text)
        quote = chunk.text[start:end]
        got = locator.locate(_cite(chunk, quote, physical=p1), chunk)
        assert [p for p, _ in got] == [p1, p2], (chunk.chunk_id, quote)
        assert _covers(doc, quote, got), (chunk.chunk_id, quote)
        if chunk.kind == "table":  # its text joins cells with " | ", which the page does not print
            continue
        # each page's rectangles overlap what PyMuPDF's own search finds of that page's piece
        for (physical, rects), piece in zip(got, (chunk.text[start:cut], chunk.text[cut:end]), strict=True):
            hits = doc[physical - 1].search_for(" ".join(piece.split()).strip(" -"))  # it drops a line-end "-"
            if hits:  # its search misses a word printed with a ligature ("ﬂ"); the key above does not
                checked += 1
                assert any(_overlaps(r, h) for r in rects for h in hits), (chunk.chunk_id, piece)
    assert checked >= 30


@pytest.fixture(scope="module")
def variant_build(tmp_path_factory, shared, source_dir) -> tuple[Path, Path]:
    """The sample's monographs set again in a condensed sans face at 10 pt, with other margins and every third
    page drawing its right column first, then ingested (no index)."""
    if not Path("/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf").exists():
        pytest.skip("the layout tool needs the DejaVu fonts (fonts-dejavu)")
    base = tmp_path_factory.mktemp("variant")
    slugs = sorted(p.stem for p in source_dir.glob("*.md"))
    env = {**os.environ, "FACE": "DejaVuSansCondensed", "FONT_PT": "10", "MARGINS": "30,50,40,24",
           "SCRAMBLE_EVERY": "3"}
    subprocess.run([sys.executable, str(shared / "tools" / "build_sample_formulary.py"), str(source_dir),
                    str(base / "v.pdf"), str(base / "v.gold.json"), *slugs], check=True, env=env, capture_output=True)
    pipeline.build(base / "v.pdf", base / "out", embed=False)
    return base / "v.pdf", base / "out"


@pytest.mark.integration
def test_every_dev_citation_is_found_on_a_pdf_with_another_layout(variant_build, shared):
    pdf, build = variant_build
    _assert_all_found(pdf, _dev_citations(build, shared))


# ---- a small real build: excerpt of the sample, hashing embedder, cache in tmp ----------------------------


@pytest.fixture()
def cache_dir(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("DUOCTHU_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _cached_vectors(cache: Path, model_id: str) -> int:
    with sqlite3.connect(cache / CACHE_FILE) as db:
        return db.execute("SELECT COUNT(*) FROM vectors WHERE model_id=?", (model_id,)).fetchone()[0]


def _answer(service: RetrievalService, data: Path) -> str:
    from duocthu_desktop.qa.pipeline import Assistant

    payload = Assistant(service, settings=Settings(data_dir=data), engine_name="extractive").ask(
        "Liều acarbose cho người lớn?", f"c{id(service)}")
    assert payload.decision == "answerable" and payload.citations
    return payload.citations[0].chunk_id


def test_the_index_records_its_pdf_and_check_pdf_refuses_another(tmp_path, excerpt_pdf, sample_b_pdf, cache_dir):
    out = tmp_path / "index"
    pipeline.build(excerpt_pdf, out, embed=True, embedder=HashingEmbedder())
    manifest = read_manifest(out)
    assert manifest.source_pdf_name == "duocthu-excerpt.pdf"
    assert manifest.source_pdf_sha256 == pdf_check.file_sha256(excerpt_pdf)
    assert pdf_check.check_pdf(out, excerpt_pdf) is None
    assert pdf_check.check_pdf(out, sample_b_pdf) == pdf_check.MSG_PDF_DIFFERENT
    assert not pdf_check.may_highlight(pdf_check.MSG_PDF_DIFFERENT)
    assert pdf_check.check_pdf(out, tmp_path / "gone.pdf") == pdf_check.MSG_PDF_MISSING
    # a copy of the same PDF under another name and folder is the same PDF
    copy = tmp_path / "elsewhere" / "renamed.pdf"
    copy.parent.mkdir()
    shutil.copy(excerpt_pdf, copy)
    assert pdf_check.check_pdf(out, copy) is None
    # an older index: the manifest without the fields is still verified through pages.json ...
    raw = json.loads((out / MANIFEST_FILE).read_text(encoding="utf-8"))
    for key in ("source_pdf_name", "source_pdf_sha256"):
        raw.pop(key)
    (out / MANIFEST_FILE).write_text(json.dumps(raw), encoding="utf-8")
    read_manifest(out)  # still opens
    assert pdf_check.check_pdf(out, sample_b_pdf) == pdf_check.MSG_PDF_DIFFERENT
    # ... and one that records no PDF at all cannot be verified, but the page may still open
    pages = json.loads((out / artifacts.PAGES_FILE).read_text(encoding="utf-8"))
    pages.pop("source_sha256")
    (out / artifacts.PAGES_FILE).write_text(json.dumps(pages), encoding="utf-8")
    message = pdf_check.check_pdf(out, excerpt_pdf)
    assert message == pdf_check.MSG_PDF_UNVERIFIED and pdf_check.may_highlight(message)


def test_a_chunk_by_its_id_from_both_stores(tmp_path, excerpt_pdf, cache_dir):
    out = tmp_path / "index"
    pipeline.build(excerpt_pdf, out, embed=True, embedder=HashingEmbedder())
    chunks = artifacts.read_chunks(out / artifacts.CHUNKS_FILE)
    monographs = artifacts.read_monographs(out / artifacts.MONOGRAPHS_FILE)
    wanted = [chunks[0], chunks[len(chunks) // 2], chunks[-1]]
    chroma = RetrievalService.open(out, embedder=HashingEmbedder())
    try:
        for service in (chroma, RetrievalService(InMemoryStore(chunks), monographs)):
            for chunk in wanted:
                assert service.chunk(chunk.chunk_id) == chunk
            assert service.chunk("no_such_drug__chi_dinh__0") is None
    finally:
        chroma.close()


def _open_files_under(folder: Path) -> list[str]:
    found = []
    for fd in Path("/proc/self/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith(str(folder) + os.sep):
            found.append(target)
    return found


def test_close_rebuild_into_the_same_folder_and_reopen_without_restarting(tmp_path, excerpt_pdf, cache_dir):
    out = tmp_path / "index"
    embedder = HashingEmbedder()
    pipeline.build(excerpt_pdf, out, embed=True, embedder=embedder)
    service = RetrievalService.open(out, embedder=embedder)
    first = _answer(service, tmp_path / "data1")
    service.close()
    if Path("/proc/self/fd").is_dir():
        assert _open_files_under(out.resolve()) == [], "the closed service still holds files of the index"
    folder = out.stat().st_ino
    pipeline.build(excerpt_pdf, out, embed=True, embedder=embedder)  # swapped in at the same path
    assert out.stat().st_ino != folder
    reopened = RetrievalService.open(out, embedder=embedder)
    try:
        assert _answer(reopened, tmp_path / "data2") == first
        assert reopened.chunk(first) is not None
    finally:
        reopened.close()


def test_the_old_index_serves_during_a_rebuild_and_is_closed_just_before_the_swap(tmp_path, excerpt_pdf, cache_dir):
    out = tmp_path / "index"
    embedder = HashingEmbedder()
    pipeline.build(excerpt_pdf, out, embed=True, embedder=embedder)
    service = RetrievalService.open(out, embedder=embedder)
    first = _answer(service, tmp_path / "data1")
    answered: list[str] = []

    def on_progress(stage: str, done: int, total: int) -> None:
        if stage == "index" and not answered:
            answered.append(_answer(service, tmp_path / "data2"))  # the old index still answers

    def before_swap() -> None:
        service.close()
        if Path("/proc/self/fd").is_dir():
            assert _open_files_under(out.resolve()) == []

    pipeline.build(excerpt_pdf, out, embed=True, embedder=embedder, on_progress=on_progress, before_swap=before_swap)
    assert answered == [first]
    reopened = RetrievalService.open(out, embedder=embedder)
    try:
        assert _answer(reopened, tmp_path / "data3") == first
    finally:
        reopened.close()


# ---- progress and cancel --------------------------------------------------------------------------------------


def test_build_reports_each_stage_with_counts(tmp_path, excerpt_pdf, cache_dir):
    seen: list[tuple[str, int, int]] = []
    pipeline.build(excerpt_pdf, tmp_path / "index", embed=True, embedder=HashingEmbedder(),
                   on_progress=lambda stage, done, total: seen.append((stage, done, total)))
    stages = list(dict.fromkeys(s for s, _, _ in seen))
    assert stages == list(STAGES)
    assert seen[-1] == ("swap", 1, 1)
    for stage in stages:
        counts = [(d, t) for s, d, t in seen if s == stage]
        assert all(0 <= d <= t for d, t in counts) and [d for d, _ in counts] == sorted(d for d, _ in counts)
        assert counts[-1][0] == counts[-1][1], (stage, counts)
    assert ("pages", 6, 6) in seen


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_cancel_keeps_the_previous_index_and_the_embedding_cache_keeps_what_was_done(
    tmp_path, excerpt_pdf, cache_dir, monkeypatch
):
    from functools import partial

    from ingestion import index_build

    # one text a batch: the excerpt's two monographs have two Chỉ định chunks, the only chunks a build embeds
    monkeypatch.setattr(index_build, "embed_cached", partial(index_build.embed_cached, batch=1))
    out = tmp_path / "index"
    pipeline.build(excerpt_pdf, out, embed=True, embedder=HashingEmbedder(64))
    before = _snapshot(out)

    # a build with another model (nothing cached for it) is cancelled after its first batch
    cancel = threading.Event()
    other = HashingEmbedder(32)

    def on_progress(stage: str, done: int, total: int) -> None:
        if stage == "embed" and len(other.calls) >= 1:
            cancel.set()

    with pytest.raises(BuildCancelled) as caught:
        pipeline.build(excerpt_pdf, out, embed=True, embedder=other, on_progress=on_progress, cancel=cancel)
    assert "chỉ mục cũ" in str(caught.value)
    assert _snapshot(out) == before
    assert not list(out.parent.glob(f".{out.name}.*")), "a staging folder was left behind"
    done = _cached_vectors(cache_dir, other.model_id)
    assert done == sum(n for n, _ in other.calls) == 1

    # the old index still answers; the next build embeds only what the cancelled one had not
    service = RetrievalService.open(out, embedder=HashingEmbedder(64))
    try:
        _answer(service, tmp_path / "data")
    finally:
        service.close()
    again = HashingEmbedder(32)
    pipeline.build(excerpt_pdf, out, embed=True, embedder=again)  # the lock was released too
    assert sum(n for n, _ in again.calls) == _cached_vectors(cache_dir, other.model_id) - done
    assert read_manifest(out).dimensions == 32


def test_cancel_before_the_first_page_is_read(tmp_path, excerpt_pdf, cache_dir):
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(BuildCancelled):
        pipeline.build(excerpt_pdf, tmp_path / "index", embed=False, cancel=cancel)
    assert not (tmp_path / "index").exists()


def test_the_cli_shows_the_build_through_the_same_callback(tmp_path, excerpt_pdf, monkeypatch):
    from ingestion import cli

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    given: dict = {}
    real = pipeline.build

    def spy(*args, **kwargs):
        given.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "build", spy)
    assert cli.main(["build", "--pdf", str(excerpt_pdf), "--out", str(tmp_path / "out"), "--no-embed"]) == 0
    assert isinstance(given["on_progress"], TerminalBar)
    shown = terminal.getvalue()
    assert f"{STAGES['pages']}: 100%" in shown and "6/6" in shown and "built " in shown


# ---- the embedding model in a worker process (app.embed_process) ---------------------------------------------


def test_the_embedder_worker_reports_a_missing_model_once_and_never_loads_torch_here(tmp_path):
    from duocthu_desktop.app.embed_process import EmbedderProcess
    from duocthu_desktop.errors import ModelError
    from duocthu_desktop.retrieval.embedder import DIMENSIONS, EMBEDDER_ID

    torch_here = "torch" in sys.modules
    embedder = EmbedderProcess(tmp_path / "no-model")
    try:
        assert (embedder.model_id, embedder.dimensions) == (EMBEDDER_ID, DIMENSIONS)  # what the manifest checks
        with pytest.raises(ModelError) as first:
            embedder.load()  # raised in the worker, handed back as itself
        assert "no-model" in str(first.value)
        with pytest.raises(ModelError) as again:
            embedder.embed(["liều paracetamol"], "query")
        assert again.value is first.value and not embedder.loaded  # remembered, not retried
        assert ("torch" in sys.modules) == torch_here  # whatever loading was tried, it was not tried here
    finally:
        embedder.close()


def test_without_a_worker_the_embedder_loads_in_process(monkeypatch):
    from duocthu_desktop.app import embed_process

    class Local:
        loaded = False

        def load(self):
            self.loaded = True
            return self

        def embed(self, texts, kind):
            return [[float(len(t)), 1.0] for t in texts]

    class DeadPool:
        def submit(self, *args):
            from concurrent.futures.process import BrokenProcessPool

            raise BrokenProcessPool("the worker died")

        def shutdown(self, **kwargs):
            pass

    monkeypatch.setattr(embed_process, "LazyEmbedder", lambda folder: Local())
    embedder = embed_process.EmbedderProcess()
    embedder.close()
    embedder._pool = DeadPool()
    assert embedder.embed(["abc"], "query") == [[3.0, 1.0]]
    assert embedder.loaded and embedder._pool is None  # a dead worker is not tried again
