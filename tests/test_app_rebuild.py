"""Rebuilding from the window (issue 19): the output folder chosen (a new one beside the index in use by default,
swapped in on success), the time spent and an estimate, a Cancel that never waits for the embedding model,
messages shown whole, and chips of a replaced index that say so instead of opening another book's pages."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before pytest-qt makes the QApplication

from PySide6.QtCore import Qt  # noqa: E402

from duocthu_desktop.app import rebuild, rebuild_dialog  # noqa: E402
from duocthu_desktop.app.embed_process import EmbedderProcess  # noqa: E402
from duocthu_desktop.app.rebuild_dialog import RebuildDialog  # noqa: E402
from duocthu_desktop.app.session import Session  # noqa: E402
from duocthu_desktop.app.source_viewer import INDEX_GONE  # noqa: E402
from duocthu_desktop.errors import InputRefused  # noqa: E402
from duocthu_desktop.settings import ENV_CONFIG_DIR, Settings  # noqa: E402
from tests import app_fixtures  # noqa: E402
from tests.app_fixtures import ScriptedAssistant, send  # noqa: E402
from tests.test_app_window import BuildCancelled, dose_answer  # noqa: E402

make_window = app_fixtures.make_window  # the shared fixture: a shown window over an assistant
def test_the_default_output_is_a_new_folder_beside_the_index_in_use(tmp_path: Path):
    in_use = tmp_path / "sample-index"
    in_use.mkdir()
    at = time.mktime((2026, 12, 1, 18, 42, 0, 0, 0, -1))
    out = rebuild.default_out(in_use, tmp_path / "first", now=at)
    assert out == tmp_path / "sample-index-20261201-1842" and not out.exists()
    out.mkdir()
    assert rebuild.default_out(in_use, tmp_path / "first", now=at).name == "sample-index-20261201-1842-2"
    assert rebuild.default_out(out, tmp_path / "first", now=at + 3600).name == "sample-index-20261201-1942"
    assert rebuild.default_out(None, tmp_path / "first") == tmp_path / "first"  # a first build


def test_the_estimate_comes_from_the_rate_of_the_stage_so_far():
    timing = rebuild.Timing(started=100.0)
    timing.report("pages", 0, 100, now=100.0)
    assert timing.remaining(now=100.5) is None  # nothing done yet: no rate to tell
    timing.report("pages", 25, 100, now=110.0)
    assert timing.remaining(now=110.0) == pytest.approx(30.0)  # 25 pages in 10 s: 75 more in 30 s
    assert timing.text(now=110.0) == "Đã chạy 0:10 · bước này còn khoảng 0:30"
    assert timing.text(now=110.0, final=True) == "Đã chạy 0:10"
    timing.report("embed", 0, 900, now=130.0)  # a new stage starts its own rate
    assert timing.remaining(now=131.0) is None and timing.text(now=131.0) == "Đã chạy 0:31"
    timing.report("embed", 90, 900, now=140.0)
    assert timing.remaining(now=140.0) == pytest.approx(90.0)
    assert rebuild.clock(3725) == "1:02:05"


def test_a_cancel_ends_the_embedding_worker_mid_call_instead_of_waiting_for_it():
    cancel = threading.Event()
    process = EmbedderProcess(cancel=cancel)
    try:
        assert process._call(30, time.sleep, 0) is None  # the worker is up and answers
        threading.Timer(0.3, cancel.set).start()
        started = time.monotonic()
        with pytest.raises(Exception) as raised:
            process._call(120, time.sleep, 120)  # a model load or a long batch
        waited = time.monotonic() - started
        assert type(raised.value).__name__ == "BuildCancelled"
        assert waited < 60, waited  # it did not wait for the call to end
        assert process._pool is None
    finally:
        process.close()


def test_the_dialog_builds_into_the_folder_chosen_and_shows_the_time(qtbot, monkeypatch, tmp_path):
    pdf = tmp_path / "book.pdf"
    pdf.write_bytes(b"%PDF-1.4")
    in_use = tmp_path / "index"
    release = threading.Event()
    written: list[Path] = []

    def fake_build(pdf, out, on_progress, cancel, before_swap=None):
        on_progress("pages", 10, 40)
        release.wait(5)
        written.append(Path(out))
        return SimpleNamespace(report=SimpleNamespace(monographs=3, chunks=40))

    monkeypatch.setattr(rebuild, "run_build", fake_build)
    dialog = RebuildDialog(rebuild.default_out(in_use, tmp_path / "x"), pdf, in_use=in_use)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.out.parent == tmp_path and dialog.out.name.startswith("index-")  # beside, not over it
    chosen = tmp_path / "chosen"
    dialog.out_edit.setText(str(chosen))
    dialog.start()
    qtbot.waitUntil(lambda: dialog.bar.maximum() == 40, timeout=5000)
    assert dialog.elapsed.text().startswith("Đã chạy 0:0")
    assert not dialog.out_edit.isEnabled()  # the folder is fixed while it builds
    with qtbot.waitSignal(dialog.rebuilt, timeout=5000) as done:
        release.set()
    assert written == [chosen] and done.args[0] == chosen
    assert dialog.outcome.startswith(rebuild.DONE.format(monographs=3, chunks=40))
    assert dialog.elapsed.text().startswith("Đã chạy") and "còn khoảng" not in dialog.elapsed.text()


def test_a_long_refusal_is_shown_whole(qtbot, monkeypatch, tmp_path):
    pdf = tmp_path / "scan.pdf"
    pdf.write_bytes(b"%PDF-1.4")
    reason = "the PDF has no text layer on pages " + ", ".join(str(n) for n in range(1, 90))

    def refuse(pdf, out, on_progress, cancel, before_swap=None):
        raise InputRefused(reason)

    monkeypatch.setattr(rebuild, "run_build", refuse)
    dialog = RebuildDialog(tmp_path / "index", pdf)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.start()
    qtbot.waitUntil(lambda: not dialog.running and bool(dialog.outcome), timeout=5000)
    label = dialog.stage
    assert reason in label.text()
    qtbot.waitUntil(lambda: label.height() >= label.heightForWidth(label.width()), timeout=3000)
    assert label.heightForWidth(label.width()) > 3 * label.fontMetrics().height()  # it wraps onto many lines


def test_cancel_says_so_and_keeps_the_index(qtbot, monkeypatch, tmp_path):
    pdf = tmp_path / "book.pdf"
    pdf.write_bytes(b"%PDF-1.4")

    def fake_build(pdf, out, on_progress, cancel, before_swap=None):
        on_progress("embed", 3, 10)
        cancel.wait(5)
        raise BuildCancelled()

    monkeypatch.setattr(rebuild, "run_build", fake_build)
    dialog = RebuildDialog(tmp_path / "new", pdf, in_use=tmp_path / "index")
    qtbot.addWidget(dialog)
    dialog.start()
    qtbot.waitUntil(lambda: dialog.bar.maximum() == 10, timeout=5000)
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running, timeout=5000)
    assert dialog.outcome == rebuild.CANCELLED and dialog.start_button.isEnabled()


def test_a_cancelled_rebuild_leaves_nothing_beside_the_index_in_use(qtbot, tmp_path, sample_pdf, sample_build):
    """The real build, cancelled from the dialog as soon as it reports progress: the index in use is as it was
    and nothing else is left in its folder (no new folder, no staging folder, no empty `<new>.lock`)."""
    import shutil

    from tests.test_ingest_cli import snapshot

    in_use = tmp_path / "index"
    shutil.copytree(sample_build, in_use)
    before = snapshot(in_use)
    out = rebuild.default_out(in_use, tmp_path / "x")
    dialog = RebuildDialog(out, sample_pdf, in_use=in_use)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.start()
    qtbot.waitUntil(lambda: dialog.stage.text() not in ("", rebuild_dialog.STARTING), timeout=60000)
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running, timeout=30000)
    assert dialog.outcome == rebuild.CANCELLED
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index"]
    assert snapshot(in_use) == before


def _with_index(assistant: ScriptedAssistant, collection: str) -> ScriptedAssistant:
    assistant.service.manifest = SimpleNamespace(collection=collection)
    return assistant


def test_after_a_swap_old_chips_say_their_index_is_gone_and_new_ones_open(qtbot, make_window, tmp_path,
                                                                          monkeypatch):
    monkeypatch.setenv(ENV_CONFIG_DIR, str(tmp_path / "config"))
    monkeypatch.delenv("DUOCTHU_INDEX", raising=False)
    window = make_window(_with_index(ScriptedAssistant(lambda q: dose_answer()), "duocthu-old-book"))
    old_card = send(qtbot, window, "Liều paracetamol?")
    new_folder = tmp_path / "index-20261201-1842"
    new = _with_index(ScriptedAssistant(lambda q: dose_answer()), "duocthu-new-book")
    window.opener = lambda settings, pdf: Session(new, settings, settings.index_dir)
    with qtbot.waitSignal(window.session_ready, timeout=5000):
        window.reopen(new_folder, rebuilt=True)  # as the dialog's success does
    assert window.session.index_dir == new_folder
    assert Settings.load().index_dir == new_folder  # the next start opens the new folder, not the old one
    window.viewer.go_to_page(3)
    with qtbot.waitSignal(window.citation_gone, timeout=5000):
        qtbot.mouseClick(old_card.chips[1], Qt.MouseButton.LeftButton)
    assert window.viewer.caption.text() == INDEX_GONE.format(index=2)
    assert window.viewer.citation is None and not old_card.chips[1].property("open")
    new_card = send(qtbot, window, "Liều paracetamol?")
    with qtbot.waitSignal(window.citation_located, timeout=5000):
        qtbot.mouseClick(new_card.chips[1], Qt.MouseButton.LeftButton)
    assert window.viewer.citation is new_card.chips[1].citation


def test_a_rebuild_of_the_same_book_keeps_old_chips_working(qtbot, make_window, tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_CONFIG_DIR, str(tmp_path / "config"))  # reopening saves the folder in settings
    window = make_window(_with_index(ScriptedAssistant(lambda q: dose_answer()), "duocthu-same-book"))
    card = send(qtbot, window, "Liều paracetamol?")
    again = _with_index(ScriptedAssistant(lambda q: dose_answer()), "duocthu-same-book")
    window.opener = lambda settings, pdf: Session(again, settings)
    with qtbot.waitSignal(window.session_ready, timeout=5000):
        window.reopen(window.settings.data_dir / "index")
    with qtbot.waitSignal(window.citation_located, timeout=5000):
        qtbot.mouseClick(card.chips[0], Qt.MouseButton.LeftButton)
    assert window.viewer.citation is card.chips[0].citation


def test_the_output_folder_is_shown_whole_and_a_chosen_one_too(qtbot, tmp_path):
    """Under Xvfb at 1440x900 the field showed ".local/share/duocthu/sample-index-20261201-2230": the start of
    the path, which says where the index goes, was cut off."""
    out = Path("/root/.local/share/duocthu/sample-index-20261201-2230")
    dialog = RebuildDialog(out, tmp_path / "book.pdf", in_use=out.with_name("sample-index"))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    edit = dialog.out_edit
    assert edit.width() >= edit.fontMetrics().horizontalAdvance(str(out)) + 8
    chosen = "/media/usb-drive/duocthu/indexes/formulary-2018-rebuilt-index"
    edit.setText(chosen)
    qtbot.waitUntil(lambda: edit.width() >= edit.fontMetrics().horizontalAdvance(chosen) + 8, timeout=2000)
    assert edit.toolTip() == chosen


class _Worker:
    """Stands in for EmbedderProcess: loads when the build embeds, counts closes."""

    made: list = []

    def __init__(self, folder=None, cancel=None) -> None:
        self.cancel, self.loaded, self.closed = cancel, False, 0
        _Worker.made.append(self)

    def release_cancel(self) -> None:
        self.cancel = None

    def close(self) -> None:
        self.closed += 1


def test_a_rebuilds_loaded_model_is_the_one_the_reopened_index_uses(monkeypatch, tmp_path):
    """The model was loaded by the rebuild and then again by the index opened after it: now once."""
    from duocthu_desktop.app import embed_process
    from duocthu_desktop.qa import pipeline as qa_pipeline
    from ingestion import pipeline

    _Worker.made = []
    monkeypatch.setattr(embed_process, "EmbedderProcess", _Worker)

    def build(pdf, out, embed, on_progress, cancel, embedder, before_swap, isolated):
        assert isolated  # the pages are read in a process of their own (PyMuPDF beside the app's threads crashed)
        embedder.loaded = True  # it embedded the new chunks
        return SimpleNamespace(report=None)

    monkeypatch.setattr(pipeline, "build", build)
    cancel = threading.Event()
    rebuild.run_build(tmp_path / "book.pdf", tmp_path / "out", lambda *a: None, cancel)
    built = _Worker.made[0]
    assert built.closed == 0 and built.cancel is None  # kept, no longer ended by the finished build's cancel

    given = []

    class Opened(Exception):
        pass

    def open_assistant(settings, embedder=None):
        given.append(embedder)
        raise Opened

    monkeypatch.setattr(qa_pipeline.Assistant, "open", staticmethod(open_assistant))
    with pytest.raises(Opened):
        Session.open(Settings(index_dir=tmp_path / "out"), embed_in_worker=True)
    assert given == [built] and len(_Worker.made) == 1  # no second worker, no second load
    assert rebuild.take_spare(None) is None  # taken once

    cancel.set()  # a cancelled build's worker is ended, never kept
    rebuild.run_build(tmp_path / "book.pdf", tmp_path / "out2", lambda *a: None, cancel)
    assert _Worker.made[-1].closed == 1 and rebuild.take_spare(None) is None


def test_a_cancel_of_a_rebuild_using_the_open_indexs_worker_leaves_that_worker_serving():
    """The open index's worker lent to a rebuild: Cancel raises BuildCancelled at once, mid-call, and the worker
    is not ended (the open index goes on embedding its questions with it)."""
    cancel = threading.Event()
    owner = EmbedderProcess()
    try:
        lent = owner.lent(cancel)
        assert lent is not None and lent.owner is owner
        threading.Timer(0.3, cancel.set).start()
        started = time.monotonic()
        with pytest.raises(Exception) as raised:
            owner._call(120, time.sleep, 3, cancel=cancel, stop=False)  # a batch of the rebuild
        assert type(raised.value).__name__ == "BuildCancelled"
        assert time.monotonic() - started < 2.5  # the batch (3 s) was not waited for
        assert owner._pool is not None
        assert owner._call(30, time.sleep, 0) is None  # the open index's next question is answered
    finally:
        owner.close()


class _Shared(_Worker):
    """The open index's worker: lends itself to a rebuild."""

    _folder = None

    def lent(self, cancel):
        self.lent_to = cancel
        return self


def test_a_rebuild_embeds_with_the_open_indexs_worker_and_hands_it_to_the_next_index(monkeypatch, tmp_path):
    """One model in memory during a rebuild: the build embeds through the worker of the index in use (no second
    worker is started), and closing that index after the swap does not end the worker the new index takes."""
    from duocthu_desktop.app import embed_process
    from ingestion import pipeline

    _Worker.made = []
    monkeypatch.setattr(embed_process, "EmbedderProcess", _Worker)
    used = []

    def build(pdf, out, embed, on_progress, cancel, embedder, before_swap, isolated):
        used.append(embedder)
        embedder.loaded = True
        return SimpleNamespace(report=None)

    monkeypatch.setattr(pipeline, "build", build)
    shared = _Shared()
    _Worker.made = []
    cancel = threading.Event()
    rebuild.run_build(tmp_path / "book.pdf", tmp_path / "out", lambda *a: None, cancel, shared=shared)
    assert used == [shared] and _Worker.made == [] and shared.lent_to is cancel
    old = Session(ScriptedAssistant(lambda q: dose_answer()), Settings(), tmp_path / "index", None, owns_index=True)
    old.assistant.service.embedder = shared
    old.close()
    assert shared.closed == 0  # kept for the index opened next
    assert rebuild.take_spare(None) is shared
    old.close()
    assert shared.closed == 1  # no longer kept: the index that owns it ends it
