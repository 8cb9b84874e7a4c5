"""The app's rebuild reads the PDF's pages in a process of their own (ingestion.page_process): the same
artifacts as a build in-process, a refusal as the build gives it, a cancel that ends the reader at once, and a
reader that dies reported in one line instead of taking the app down (CI saw a segfault in PyMuPDF on the
rebuild's worker thread)."""

from __future__ import annotations

import os
import threading
import time

import pytest

from duocthu_desktop.errors import DuocthuError, InputRefused
from ingestion import page_process, pipeline
from ingestion.progress import BuildCancelled, Progress


def _dies(pdf, conn) -> None:
    """A reader that crashes as PyMuPDF did (SIGSEGV's exit), after saying how many pages there are."""
    conn.send(("count", 3))
    os._exit(139)


def test_pages_read_apart_give_the_same_chunks_and_progress_as_in_process(excerpt_pdf):
    seen: list[tuple[str, int, int]] = []
    apart = pipeline.run(excerpt_pdf, steps=Progress(lambda *step: seen.append(step)), isolated=True)
    here = pipeline.run(excerpt_pdf)
    assert [c.model_dump() for c in apart.chunks] == [c.model_dump() for c in here.chunks]
    assert [m.model_dump() for m in apart.monographs] == [m.model_dump() for m in here.monographs]
    pages = [step for step in seen if step[0] == "pages"]
    assert pages[0] == ("pages", 0, 6) and pages[-1] == ("pages", 6, 6)
    assert [done for _, done, _ in pages] == sorted(done for _, done, _ in pages)


def test_a_file_that_is_not_a_pdf_is_refused_from_the_reader_as_in_process(tmp_path):
    bad = tmp_path / "notes.pdf"
    bad.write_text("not a pdf", encoding="utf-8")
    with pytest.raises(InputRefused, match="not a PDF file"):
        pipeline.run(bad, isolated=True)


def test_a_cancel_ends_the_reader_at_once(sample_pdf):
    cancel = threading.Event()
    steps = Progress(lambda stage, done, total: done >= 2 and cancel.set(), cancel)
    started = time.monotonic()
    with pytest.raises(BuildCancelled):
        page_process.read_pages(sample_pdf, steps)
    assert time.monotonic() - started < 30
    assert not [p for p in __import__("multiprocessing").active_children() if p.name == "duocthu-pdf-reader"]


def test_a_reader_that_dies_is_one_line_with_its_exit_code(monkeypatch, excerpt_pdf):
    monkeypatch.setattr(page_process, "_serve", _dies)
    with pytest.raises(DuocthuError) as raised:
        page_process.read_pages(excerpt_pdf, Progress())
    text = str(raised.value)
    assert "exit code 139" in text and "page 1" in text and "index in use is kept" in text
