"""The desktop window, off-screen with pytest-qt: a scripted assistant for the chat's behaviour, the real sample
PDF and chunks for the viewer, and the real Assistant over the sample book for one whole turn."""

from __future__ import annotations

import os
import threading

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before pytest-qt makes the QApplication

from PySide6.QtCore import Qt, QThread  # noqa: E402
from PySide6.QtWidgets import QApplication, QLabel, QWidget  # noqa: E402

from duocthu_desktop.app import main as app_main  # noqa: E402
from duocthu_desktop.app import operations, rebuild, style  # noqa: E402
from duocthu_desktop.app.answer_card import AnswerCard  # noqa: E402
from duocthu_desktop.app.main_window import CANCELLED, MainWindow  # noqa: E402
from duocthu_desktop.app.rebuild_dialog import RebuildDialog  # noqa: E402
from duocthu_desktop.app.session import Session  # noqa: E402
from duocthu_desktop.artifacts import Chunk, Monograph  # noqa: E402
from duocthu_desktop.errors import InputRefused  # noqa: E402
from duocthu_desktop.messages import DISCLAIMER, message_for  # noqa: E402
from duocthu_desktop.payload import AnswerPayload, Block, Citation, Claim  # noqa: E402
from duocthu_desktop.settings import Settings  # noqa: E402
from tests import app_fixtures  # noqa: E402
from tests.app_fixtures import ScriptedAssistant, label_texts, send, wait_laid_out  # noqa: E402

make_window = app_fixtures.make_window  # the shared fixture: a shown window over an assistant
QUOTE = "Trẻ em 4 - 6 tuổi: 240 mg"
DOSE_CHUNK = "paracetamol__lieu_luong_cach_dung__0"


# ---- payloads ---------------------------------------------------------------------------------------------


def citation(index=1, printed=1120, physical=46, quote=QUOTE, chunk_id=DOSE_CHUNK) -> Citation:
    return Citation(index=index, chunk_id=chunk_id, drug_id="paracetamol", section_key="lieu_luong_cach_dung",
                    printed_page=printed, physical_page=physical, quote=quote)


def dose_answer(cites: list[Citation] | None = None) -> AnswerPayload:
    cites = cites or [citation(1, 1119, 45, "Uống: ..."), citation(2)]
    return AnswerPayload(
        decision="answerable",
        blocks=[Block(title="Paracetamol (acetaminophen) — Trẻ em · uống · Đau, sốt", kind="dosage",
                      claims=[Claim(text=c.quote, citations=[c.index]) for c in cites])],
        citations=cites, disclaimer=DISCLAIMER)


def clarify_answer() -> AnswerPayload:
    return AnswerPayload(decision="clarify", reason="missing_route", message=message_for("missing_route"),
                         quick_replies=["Uống", "Tiêm tĩnh mạch"], disclaimer=DISCLAIMER)


def abstain_answer() -> AnswerPayload:
    return AnswerPayload(decision="abstain", reason="out_of_scope", message=message_for("out_of_scope"),
                         disclaimer=DISCLAIMER)


TABLE_CHUNK = "paracetamol__lieu_luong_cach_dung__block__t1"


def verify_answer() -> AnswerPayload:
    cites = [citation(1, 1120, 46, "Trẻ em"), citation(2, 1121, 47, "Bảng 2", TABLE_CHUNK),
             citation(3, 1121, 47, "Bảng 2, dòng 3", TABLE_CHUNK)]
    return AnswerPayload(decision="verify_pdf", reason="quarantined_evidence",
                         message=message_for("quarantined_evidence"), citations=cites, disclaimer=DISCLAIMER,
                         blocks=[Block(title="Paracetamol (acetaminophen) — Trẻ em · uống", kind="dosage",
                                       claims=[Claim(text=c.quote, citations=[c.index]) for c in cites])])


# ---- the operations helper ----------------------------------------------------------------------------------


def test_operations_deliver_success_failure_and_progress_on_the_ui_thread(qtbot):
    ui = QThread.currentThread()
    seen: list[tuple[str, object, bool]] = []

    def work(task):
        task.progress("embed", 1, 2)
        assert QThread.currentThread() is not ui
        return 42

    op = operations.run(work, on_success=lambda v: seen.append(("ok", v, QThread.currentThread() is ui)),
                        on_progress=lambda *v: seen.append(("progress", v, QThread.currentThread() is ui)))
    qtbot.waitUntil(lambda: op.done, timeout=5000)

    def boom(task):
        raise InputRefused("không phải PDF")

    failed = operations.run(boom, on_failure=lambda e: seen.append(("fail", e, QThread.currentThread() is ui)))
    qtbot.waitUntil(lambda: failed.done, timeout=5000)
    assert [(kind, ui_thread) for kind, _, ui_thread in seen] == [("progress", True), ("ok", True), ("fail", True)]
    assert seen[0][1] == ("embed", 1, 2) and seen[1][1] == 42 and isinstance(seen[2][1], InputRefused)


def test_a_cancelled_operation_drops_its_result(qtbot):
    gate, seen = threading.Event(), []
    op = operations.run(lambda task: gate.wait(5) and "late", on_success=seen.append, on_failure=seen.append)
    op.cancel()
    assert op.task.cancelled
    gate.set()
    qtbot.waitUntil(lambda: op.done, timeout=5000)
    assert seen == []


# ---- the chat -------------------------------------------------------------------------------------------------


def test_sending_shows_the_answer_with_chips_tags_and_disclaimer(qtbot, make_window):
    assistant = ScriptedAssistant(lambda q: dose_answer())
    window = make_window(assistant)
    card = send(qtbot, window, "Liều paracetamol cho trẻ 5 tuổi?")
    assert assistant.asked[0][0] == "Liều paracetamol cho trẻ 5 tuổi?"
    assert [chip.text() for chip in card.chips] == ["[1] tr. 1119", "[2] tr. 1120"]
    texts = label_texts(card)
    assert DISCLAIMER in texts and QUOTE in texts
    tags = card.findChild(QLabel, "tags")
    assert tags.accessibleName() == "Trẻ em · uống · Đau, sốt"
    html = tags.text()  # the group and the route in their own colours, ahead of the indication
    assert html.index(style.POPULATION) < html.index("Trẻ&nbsp;em") < html.index(style.ROUTE) < html.index("uống")
    assert window.question_box.toPlainText() == "" and not window.busy
    claim = next(label for label in card.findChildren(QLabel) if label.text() == QUOTE)
    before = claim.font().pointSizeF()
    window.activateWindow()
    qtbot.waitActive(window)
    qtbot.keyClick(window.question_box, Qt.Key.Key_Plus, Qt.KeyboardModifier.ControlModifier)  # Ctrl +
    assert claim.font().pointSizeF() == before + 1


def test_a_long_answer_is_built_in_steps_into_the_same_card(qtbot):
    cites = [citation(i, 1100 + i, 40 + i, f"Câu {i}: " + "liều dùng theo cân nặng " * 12) for i in range(1, 9)]
    payload = dose_answer(cites)
    whole = AnswerCard(payload)
    stepped = AnswerCard(payload, stepwise=True)
    qtbot.addWidget(whole)
    qtbot.addWidget(stepped)
    assert whole.complete and not stepped.complete and 0 < len(stepped.chips) < len(whole.chips)
    with qtbot.waitSignal(stepped.built, timeout=2000):
        pass
    assert stepped.complete
    assert [c.text() for c in stepped.chips] == [c.text() for c in whole.chips] == [f"[{i}] tr. {1100 + i}"
                                                                                    for i in range(1, 9)]
    assert [lb.text() for lb in stepped.findChildren(QLabel)] == [lb.text() for lb in whole.findChildren(QLabel)]
    seen = []
    stepped.when_built(lambda: seen.append("built"))  # already built: still called, on a later turn of the loop
    qtbot.waitUntil(lambda: seen == ["built"], timeout=1000)


def test_the_window_uses_no_style_sheet_and_the_open_chip_is_drawn_apart(qtbot, make_window):
    from PySide6.QtWidgets import QWidget

    window = make_window(ScriptedAssistant(lambda q: dose_answer()))
    card = send(qtbot, window, "Liều paracetamol cho trẻ 5 tuổi?")
    # a style sheet anywhere puts the whole chat under QStyleSheetStyle, whose relayouts grow with the chat
    assert window.styleSheet() == "" and not any(w.styleSheet() for w in window.findChildren(QWidget))
    qtbot.waitUntil(lambda: card.chips[0].property("open"), timeout=5000)  # the first citation opens itself
    assert not card.chips[1].property("open")

    def fill(chip):
        image = chip.grab().toImage()
        return image.pixelColor(image.width() // 2, 2 * int(image.devicePixelRatio())).name()

    assert fill(card.chips[0]) == style.CHIP_OPEN.bg and fill(card.chips[1]) == style.CHIP.bg
    disclaimer = card.findChild(QLabel, "disclaimer")
    claim = next(label for label in card.findChildren(QLabel) if label.text() == QUOTE)
    assert disclaimer.font().pointSizeF() == claim.font().pointSizeF() - 1
    window.text_size(2)
    assert disclaimer.font().pointSizeF() == claim.font().pointSizeF() - 1  # the quieter text follows the size


def test_the_busy_indicator_counts_seconds_only_while_shown(qtbot):
    from duocthu_desktop.app.busy import BusyLabel

    label = BusyLabel("Đang tra cứu…")
    qtbot.addWidget(label)
    label.show()
    assert label.text() == "Đang tra cứu…" and label._timer.isActive()
    label._started -= 3
    label._tick()
    assert label.text() == "Đang tra cứu… 3 giây"
    label.hide()
    assert not label._timer.isActive()
    label.show()
    assert label.text() == "Đang tra cứu…"  # counted from zero again


def test_shift_enter_breaks_the_line_and_does_not_send(qtbot, make_window):
    assistant = ScriptedAssistant(lambda q: dose_answer())
    window = make_window(assistant)
    window.question_box.setPlainText("Liều paracetamol")
    qtbot.keyClick(window.question_box, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert assistant.asked == [] and "\n" in window.question_box.toPlainText()


def test_a_quick_reply_is_sent_as_the_next_turn_of_the_conversation(qtbot, make_window):
    assistant = ScriptedAssistant(lambda q: clarify_answer() if q.startswith("Liều") else dose_answer())
    window = make_window(assistant)
    card = send(qtbot, window, "Liều paracetamol người lớn")
    assert message_for("missing_route") in label_texts(card)
    assert [b.text() for b in card.reply_buttons] == ["Uống", "Tiêm tĩnh mạch"]
    with qtbot.waitSignal(window.answer_shown, timeout=10000):
        qtbot.mouseClick(card.reply_buttons[0], Qt.MouseButton.LeftButton)
    (first, conv1), (second, conv2) = assistant.asked
    assert second == "Uống" and conv1 == conv2
    assert not card.reply_buttons[1].isEnabled()  # spent once answered
    assert len(window.chat.cards) == 2


def test_a_cancelled_turn_never_lands_in_the_chat(qtbot, make_window):
    assistant = ScriptedAssistant(lambda q: dose_answer())
    assistant.gate = threading.Event()
    window = make_window(assistant)
    window.question_box.setPlainText("Liều paracetamol cho trẻ 5 tuổi?")
    qtbot.keyClick(window.question_box, Qt.Key.Key_Return)
    assert window.busy and window.busy_row.isVisible() and window.cancel_button.isVisible()
    turn = window.turn
    qtbot.mouseClick(window.cancel_button, Qt.MouseButton.LeftButton)
    assert not window.busy and not window.busy_row.isVisible()
    with qtbot.waitSignal(turn.finished, timeout=10000):  # on the UI thread, once its result was dropped
        assistant.gate.set()
    assert turn.done and turn.dropped
    assert window.chat.cards == [] and CANCELLED in label_texts(window.chat)
    assistant.gate = None
    send(qtbot, window, "Liều paracetamol cho trẻ 6 tuổi?")
    assert len(window.chat.cards) == 1
    assert assistant.asked[1][1] != assistant.asked[0][1]  # the dropped turn's memory is not continued


def test_an_abstention_shows_its_message_in_its_own_style(qtbot, make_window):
    window = make_window(ScriptedAssistant(lambda q: abstain_answer()))
    card = send(qtbot, window, "Giá vàng hôm nay?")
    assert card.property("decision") == "abstain"
    assert message_for("out_of_scope") in label_texts(card) and DISCLAIMER in label_texts(card)
    assert card.chips == [] and card.findChild(QLabel, "abstainHeading") is not None


def _chunk(chunk_id: str, quarantined: bool) -> Chunk:
    return Chunk(chunk_id=chunk_id, drug_id="paracetamol", section_key="lieu_luong_cach_dung", part_index=0,
                 text="...", printed_pages=[1121], physical_pages=[47], quarantined=quarantined)


def test_the_verify_pdf_notice_opens_the_pages_to_check(qtbot, make_window):
    chunks = [_chunk(DOSE_CHUNK, False), _chunk(TABLE_CHUNK, True)]
    window = make_window(ScriptedAssistant(lambda q: verify_answer(), chunks=chunks))
    card = send(qtbot, window, "Bảng liều paracetamol?")
    assert card.property("decision") == "verify_pdf" and message_for("quarantined_evidence") in label_texts(card)
    assert [b.text() for b in card.page_buttons] == ["Mở tr. 1121"]  # the table's page, once
    assert window.viewer.citation.index == 2  # opened by itself: the first thing to check
    qtbot.mouseClick(card.chips[0], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(card.page_buttons[0], Qt.MouseButton.LeftButton)
    assert window.viewer.citation.index == 2


def test_copy_puts_the_answer_and_its_citations_on_the_clipboard(qtbot, make_window):
    window = make_window(ScriptedAssistant(lambda q: dose_answer()))
    card = send(qtbot, window, "Liều paracetamol cho trẻ 5 tuổi?")
    qtbot.mouseClick(card.copy_button, Qt.MouseButton.LeftButton)
    text = QApplication.clipboard().text()
    assert "Câu hỏi: Liều paracetamol cho trẻ 5 tuổi?" in text
    assert f"- {QUOTE} [2]" in text
    assert f'[2] Dược thư Quốc gia Việt Nam 2018, paracetamol, Liều lượng và cách dùng, tr. 1120: "{QUOTE}"' in text
    assert text.rstrip().endswith(DISCLAIMER)


def test_reopening_after_a_rebuild_closes_the_old_index_first(qtbot, make_window, tmp_path, monkeypatch):
    from duocthu_desktop.settings import ENV_CONFIG_DIR

    monkeypatch.setenv(ENV_CONFIG_DIR, str(tmp_path / "config"))
    monkeypatch.delenv("DUOCTHU_INDEX", raising=False)
    old = ScriptedAssistant(lambda q: dose_answer())
    window = make_window(old)
    new = ScriptedAssistant(lambda q: abstain_answer())
    window.opener = lambda settings, pdf: Session(new, settings)
    with qtbot.waitSignal(window.session_ready, timeout=5000):
        window.reopen(tmp_path / "index")
    assert old.service.closed == 1 and window.session.assistant is new
    assert window.settings.index_dir == tmp_path / "index"
    assert Settings.load().index_dir == tmp_path / "index"  # the next start opens it
    assert send(qtbot, window, "Giá vàng?").property("decision") == "abstain"


def test_no_index_offers_to_build_one(qtbot, tmp_path):
    from duocthu_desktop.errors import IndexError_

    def fail(_settings, _pdf):
        raise IndexError_("No index at /nowhere")

    window = MainWindow(Settings(data_dir=tmp_path), opener=fail, warm_up=False)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.session_failed, timeout=5000):
        window.start()
    assert any("Dựng chỉ mục" in b.text() for b in window.chat.findChildren(type(window.send_button)))
    assert not window.send_button.isEnabled()


def test_the_browser_finds_drugs_with_or_without_diacritics_and_opens_pages(qtbot, make_window):
    from duocthu_desktop.artifacts import SectionSpan

    monographs = [
        Monograph(drug_id="paracetamol", title="PARACETAMOL (Acetaminophen)", start_physical=44, end_physical=47,
                  start_printed=1118, end_printed=1121,
                  sections=[SectionSpan(key="chi_dinh", heading="Chỉ định", start_printed=1118, end_printed=1118)]),
        Monograph(drug_id="kem_oxyd", title="KẼM OXYD", start_physical=50, end_physical=50, start_printed=1400,
                  end_printed=1400),
    ]
    window = make_window(ScriptedAssistant(lambda q: dose_answer(), monographs))
    browser = window.browser
    for typed, found in [("paracetamol", ["PARACETAMOL (Acetaminophen)"]), ("Paracetamol", None),
                         ("kem", ["KẼM OXYD"]), ("kẽm", ["KẼM OXYD"]), ("", ["KẼM OXYD", "PARACETAMOL (Acetaminophen)"])]:
        browser.search.setText(typed)
        assert browser.visible_titles() == (found or ["PARACETAMOL (Acetaminophen)"]), typed
    browser.search.setText("para")
    top = browser.tree.topLevelItem(1)
    assert [top.child(0).text(0), top.child(0).text(1)] == ["Chỉ định", "tr. 1118"]
    with qtbot.waitSignal(browser.open_page, timeout=2000) as opened:
        browser._activated(top)
    assert opened.args == [44]
    browser.tree.setCurrentItem(top)
    qtbot.mouseClick(browser.ask_button, Qt.MouseButton.LeftButton)
    assert window.question_box.toPlainText() == "Paracetamol (acetaminophen): "


# ---- what the collector walks while turns run (app.heap) ----------------------------------------------------


class Kept:
    """An object the warm-up loads for the session, tracked by the cycle collector."""


def test_what_the_warm_up_loads_is_frozen_and_its_garbage_collected_first(qtbot, tmp_path):
    import gc
    import weakref

    from duocthu_desktop.app import heap

    found: dict[str, object] = {}

    class Warming(ScriptedAssistant):
        def warm_up(self) -> float:
            self.kept = Kept()  # what every turn reads, kept for the session
            dropped = Kept()
            dropped.itself = dropped  # a cycle only the collector frees
            found["dropped"] = weakref.ref(dropped)
            return 0.0

    assistant = Warming(lambda q: dose_answer())
    settings = Settings(data_dir=tmp_path)
    window = MainWindow(settings, opener=lambda _s, _p: Session(assistant, settings), warm_up=True)
    qtbot.addWidget(window)
    window.show()
    try:
        with qtbot.waitSignal(window.warmed_up, timeout=10000):
            window.start()
        assert not any(o is assistant.kept for o in gc.get_objects())  # frozen: no pass walks it again
        assert found["dropped"]() is None  # the warm-up's garbage was collected, not kept for good
    finally:
        heap.thaw()


# ---- the rebuild dialog (the build itself scripted) ---------------------------------------------------------


class BuildCancelled(Exception):
    """Stands in for ingestion's BuildCancelled (matched by name)."""


def test_the_rebuild_dialog_shows_progress_and_cancels(qtbot, monkeypatch, tmp_path):
    pdf = tmp_path / "book.pdf"
    pdf.write_bytes(b"%PDF-1.4")
    started = threading.Event()

    def fake_build(pdf, out, on_progress, cancel, before_swap=None):
        on_progress("embed", 3, 10)
        started.set()
        cancel.wait(5)
        raise BuildCancelled()

    monkeypatch.setattr(rebuild, "run_build", fake_build)
    dialog = RebuildDialog(tmp_path / "index", pdf)
    qtbot.addWidget(dialog)
    dialog.start()
    qtbot.waitUntil(lambda: dialog.bar.maximum() == 10, timeout=5000)
    assert dialog.bar.value() == 3 and dialog.stage.text() == "Tạo vector ngữ nghĩa: 3/10"
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running, timeout=5000)
    assert dialog.outcome == rebuild.CANCELLED


def test_a_rebuild_closes_the_index_in_use_just_before_its_swap_and_reopens_it_when_the_swap_fails(
        qtbot, make_window, monkeypatch, tmp_path):
    """Windows cannot rename a folder whose files are open: the window's index is closed on the build's thread
    once the new one is whole; a swap that then fails leaves the old folder, which the window opens again."""
    from duocthu_desktop.settings import ENV_CONFIG_DIR

    monkeypatch.setenv(ENV_CONFIG_DIR, str(tmp_path / "config"))
    index = tmp_path / "index"
    index.mkdir()
    pdf = tmp_path / "book.pdf"
    pdf.write_bytes(b"%PDF-1.4")
    old = ScriptedAssistant(lambda q: dose_answer())
    window = make_window(old, index_dir=index)
    closed_at_swap: list[int] = []

    def swap_fails(pdf, out, on_progress, cancel, before_swap=None):
        before_swap()
        closed_at_swap.append(old.service.closed)
        raise PermissionError(13, "the folder is in use", str(out))

    monkeypatch.setattr(rebuild, "run_build", swap_fails)
    reopened = ScriptedAssistant(lambda q: dose_answer())
    window.opener = lambda settings, pdf: Session(reopened, settings, index)
    dialog = window.show_rebuild()
    qtbot.addWidget(dialog)
    dialog.pdf_edit.setText(str(pdf))
    dialog.out_edit.setText(str(index))  # into the folder in use (the default is a new folder beside it)
    with qtbot.waitSignal(window.session_ready, timeout=5000):
        dialog.start()
    assert closed_at_swap == [1]  # closed before the swap was tried, not after
    assert window.session.assistant is reopened and window.settings.index_dir == index
    assert "PermissionError" in dialog.outcome
    assert not (tmp_path / "config" / "settings.json").exists()  # the folder in use was not saved as if new


def test_the_rebuild_dialog_reports_a_refused_pdf(qtbot, monkeypatch, tmp_path):
    pdf = tmp_path / "scan.pdf"
    pdf.write_bytes(b"%PDF-1.4")

    def refuse(pdf, out, on_progress, cancel, before_swap=None):
        raise InputRefused("the PDF has no text layer")

    monkeypatch.setattr(rebuild, "run_build", refuse)
    dialog = RebuildDialog(tmp_path / "index", pdf)
    qtbot.addWidget(dialog)
    dialog.start()
    qtbot.waitUntil(lambda: not dialog.running, timeout=5000)
    assert "the PDF has no text layer" in dialog.outcome and dialog.start_button.isEnabled()


# ---- the command line without a display ---------------------------------------------------------------------


def test_without_a_display_the_sample_question_is_answered_in_the_terminal(monkeypatch, capsys, tmp_path):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(app_main.sys, "platform", "linux")
    asked: list[str] = []

    def fake_open(settings, pdf=None, warm_up=True):
        assistant = ScriptedAssistant(lambda q: asked.append(q) or dose_answer())
        return Session(assistant, Settings(data_dir=tmp_path))

    monkeypatch.setattr(Session, "open", staticmethod(fake_open))
    assert app_main.main([]) == 0
    captured = capsys.readouterr()
    assert "không có màn hình" in captured.err
    assert asked == [app_main.SAMPLE_QUESTION]
    assert "[2] Dược thư Quốc gia Việt Nam 2018" in captured.out and DISCLAIMER in captured.out


def test_screenshot_mode_asks_opens_the_first_citation_and_saves(qtbot, monkeypatch, tmp_path):
    from duocthu_desktop.app import main_window

    asked: list[str] = []
    assistant = ScriptedAssistant(lambda q: asked.append(q) or dose_answer())
    monkeypatch.setattr(main_window, "open_session", lambda settings, pdf: Session(assistant, settings))
    png = tmp_path / "shot.png"
    assert app_main.main(["--screenshot", str(png), "--ask", "Liều paracetamol?"]) == 0
    from PySide6.QtGui import QImage

    image = QImage(str(png))
    assert asked == ["Liều paracetamol?"] and image.width() >= 800 and image.height() >= 500


# ---- the viewer on the real sample PDF ----------------------------------------------------------------------


def _real_citation(chunks: list[Chunk], pages, quote: str = QUOTE, index: int = 1) -> Citation:
    chunk = next(c for c in chunks if c.chunk_id == DOSE_CHUNK)
    at = chunk.text.index(quote)
    physical = next(p for p, a, b in chunk.page_spans if a <= at < b)
    return Citation(index=index, chunk_id=chunk.chunk_id, drug_id=chunk.drug_id, section_key=chunk.section_key,
                    printed_page=pages.printed_for(physical), physical_page=physical, quote=quote)


@pytest.mark.integration
def test_a_chip_opens_the_cited_physical_page_with_the_quote_highlighted(
        qtbot, make_window, sample_pdf, sample_build, sample_chunks, sample_monographs):
    import pymupdf

    from duocthu_desktop.artifacts import PAGES_FILE, read_pages

    pages = read_pages(sample_build / PAGES_FILE)
    cite = _real_citation(sample_chunks, pages)
    first = _real_citation(sample_chunks, pages, "Uống", 1)
    cite = cite.model_copy(update={"index": 2})
    payload = dose_answer([first, cite])
    window = make_window(ScriptedAssistant(lambda q: payload, sample_monographs, sample_chunks),
                         pdf=sample_pdf, index_dir=sample_build)
    card = send(qtbot, window, "Liều paracetamol cho trẻ 5 tuổi?")
    qtbot.waitUntil(lambda: window.viewer.citation is first, timeout=5000)  # the first citation opens itself
    chip = card.chips[1]
    assert chip.text() == f"[2] tr. {cite.printed_page}"
    with qtbot.waitSignal(window.citation_located, timeout=10000, check_params_cb=lambda c: c is cite):
        qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    viewer = window.viewer
    assert viewer.current_page() == cite.physical_page
    assert viewer.folio.text() == f"trang {cite.printed_page}"
    assert list(viewer.view.highlights) == [cite.physical_page - 1]
    with pymupdf.open(sample_pdf) as doc:
        truth = doc[cite.physical_page - 1].search_for("240 mg")
    band = viewer.view.highlights[cite.physical_page - 1]
    assert any(r.x0 < b[2] and b[0] < r.x1 and r.y0 < b[3] and b[1] < r.y1 for r in truth for b in band)
    drawn = [rect.toRect() for _page, rect in viewer.view.highlight_rects()]
    assert any(viewer.view.viewport().rect().intersects(rect) for rect in drawn)  # scrolled into view
    # the band is drawn over printed text (the view's page layout was repeated right), once the page renders
    qtbot.waitUntil(lambda: _ink(viewer.view.viewport(), drawn[0]) > 20, timeout=5000)
    assert card.chips[1].property("open") and not card.chips[0].property("open")


def _ink(widget, rect) -> int:
    """Dark pixels inside `rect` of what `widget` shows (text stays darker than the translucent band over white;
    every pixel, since the PDF pane fits its page to a narrower width than the chat's)."""
    image = widget.grab().toImage()
    rect = rect.intersected(widget.rect())
    dark = 0
    for x in range(rect.left(), rect.right()):
        for y in range(rect.top(), rect.bottom()):
            c = image.pixelColor(x, y)
            dark += 0.299 * c.red() + 0.587 * c.green() + 0.114 * c.blue() < 160
    return dark


@pytest.mark.integration
def test_a_real_turn_over_the_sample_book(qtbot, make_window, assistant, sample_pdf):
    window = make_window(assistant, pdf=sample_pdf, owns_index=False)  # the session's shared index stays open
    card = send(qtbot, window, "Liều paracetamol cho bé 5 tuổi nặng 18 kg, đường uống?")
    payload = card.payload
    assert payload.decision == "answerable" and card.chips
    assert any("240 mg" in claim.text for block in payload.blocks for claim in block.claims)
    assert DISCLAIMER in label_texts(card)
    qtbot.waitUntil(lambda: bool(window.viewer.view.highlights), timeout=10000)
    assert window.viewer.current_page() == payload.citations[0].physical_page
    window.close()
    assert assistant.service.all_chunks()  # closing the window left the index it was handed open


def test_the_list_of_conversations_can_be_put_away_for_a_narrow_window(qtbot, make_window):
    window = make_window(ScriptedAssistant(lambda q: dose_answer()))
    assert window.width() >= 1200 and window.list_action.isChecked() and window.conversations.isVisible()
    window.list_action.trigger()  # Xem > Danh sách hội thoại (F9); a window under 1200 px opens without it
    assert not window.conversations.isVisible()
    window.list_action.trigger()
    assert window.conversations.isVisible()


def test_questions_can_be_asked_while_the_pdf_is_still_loading_and_a_citation_waits_for_it(
        qtbot, make_window, monkeypatch, sample_pdf, sample_build, sample_chunks, sample_monographs):
    """The index opening makes the window usable; the PDF (1.5 s of page sizes for a book the real size) follows
    on a worker, and a citation opened before it arrives is shown on its page when it does."""
    from duocthu_desktop.app.source_viewer import LOADING_PDF, SourceViewer

    gate = threading.Event()
    real_load = SourceViewer.load_document

    def slow_load(path):
        gate.wait(10)
        return real_load(path)

    monkeypatch.setattr(SourceViewer, "load_document", staticmethod(slow_load))
    window = make_window(ScriptedAssistant(lambda q: dose_answer(), sample_monographs, sample_chunks),
                         pdf=sample_pdf, index_dir=sample_build)
    assert window.question_box.isEnabled() and window.viewer.document.pageCount() == 0
    assert window.viewer.folio.text() == LOADING_PDF
    window.viewer.go_to_page(47)  # as a citation chip does
    gate.set()
    qtbot.waitUntil(lambda: window.viewer.document.pageCount() > 0, timeout=10000)
    assert window.viewer.current_page() == 47


def test_a_built_answer_is_not_laid_out_again_when_the_chat_grows_but_is_at_a_new_width(qtbot, monkeypatch):
    """A Qt layout asks each item for its height at the width, and a wrapped label lays its text out to answer:
    without settling, every answer shown before was laid out again at each step of a new one (app.settled)."""
    from duocthu_desktop.app import answer_card
    from duocthu_desktop.app.chat_view import ChatView

    asked: list[QLabel] = []

    class CountingLabel(answer_card.WrappedLabel):
        watched = False

        def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt's name
            if self.watched:
                asked.append(self)
            return super().heightForWidth(width)

    monkeypatch.setattr(answer_card, "WrappedLabel", CountingLabel)
    cites = [citation(i, 1100 + i, 40 + i, f"Câu {i}: " + "suy thận nặng, độ thanh thải creatinin thấp " * 6)
             for i in range(1, 13)]
    chat = ChatView()
    qtbot.addWidget(chat)
    chat.resize(700, 600)
    chat.show()
    first = chat.add_answer(dose_answer(cites), "Chống chỉ định?")
    wait_laid_out(qtbot, first)
    claims = [lb for lb in first.findChildren(QLabel) if lb.objectName() == "claim"]
    assert len(claims) == 12 and not first.hasHeightForWidth()
    assert first.height() == first.minimumHeight() == first.maximumHeight()
    for label in claims:
        label.watched = True

    second = chat.add_answer(dose_answer(cites), "Thận trọng?")
    wait_laid_out(qtbot, second)
    assert asked == []  # the first answer kept its height: none of its labels was laid out again

    wide = first.height()
    chat.resize(420, 600)  # narrower: the text wraps onto more lines, laid out once more, then settled again
    qtbot.waitUntil(lambda: first.width() < 420, timeout=10000)
    wait_laid_out(qtbot, first)
    assert asked and first.height() > wide
    for label in claims:  # every line of each claim fits in its row at the new width
        assert label.height() >= label.heightForWidth(label.width())


def test_the_claims_on_screen_are_not_painted_again_while_a_long_answer_fills_in_below_them(qtbot):
    """Each step of a long answer made the card (and the chat) taller: Qt repainted the whole of a widget that
    grew, and the card first laid its content out squeezed into its old height, so every claim on screen was
    painted again at every step. A growing card paints only what is new (app.style.Panel, AnswerCard._grow)."""
    from PySide6.QtCore import QEvent, QObject

    from duocthu_desktop.app.chat_view import ChatView

    cites = [citation(i, 1100 + i, 40 + i, f"Câu {i}: " + "suy thận nặng, độ thanh thải creatinin thấp " * 5)
             for i in range(1, 201)]
    blocks = [Block(title=f"Thuốc {n} — Chống chỉ định", kind="prose",
                    claims=[Claim(text=c.quote, citations=[c.index]) for c in cites[2 * n:2 * n + 2]])
              for n in range(100)]
    payload = AnswerPayload(decision="answerable", blocks=blocks, citations=cites, disclaimer=DISCLAIMER)
    chat = ChatView()
    qtbot.addWidget(chat)
    chat.resize(700, 500)
    chat.show()
    question = chat.add_question("Chống chỉ định?")
    card = chat.add_answer(payload, "Chống chỉ định?")
    bar = chat.verticalScrollBar()
    # the view stops at the question's top once the chat is taller than it; from then on, nothing on screen moves
    qtbot.waitUntil(lambda: card.height() > 2 * chat.viewport().height() and bar.value() == question.y() - 6,
                    timeout=10000)
    shown = [lb for lb in card.findChildren(QLabel) if lb.objectName() == "claim" and lb.visibleRegion().isEmpty()
             is False]
    assert shown and not card.complete

    class Paints(QObject):
        count = 0

        def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
            if event.type() == QEvent.Type.Paint:
                Paints.count += 1
            return False

    counter = Paints()
    for label in shown:
        label.installEventFilter(counter)
    at = bar.value()
    wait_laid_out(qtbot, card, timeout=20000)
    assert bar.value() == at and card.complete and len(card.chips) == 200
    assert Paints.count == 0


def test_a_step_of_a_long_answer_does_not_walk_the_blocks_of_a_full_run(qtbot, monkeypatch):
    """A Qt layout walks every item it holds each time it lays out, and each step of a long answer lays out the
    card: the blocks stand in runs that settle once full, so a step walks the card's few runs, not every block
    shown before (answer_card.BLOCKS_PER_RUN)."""
    from duocthu_desktop.app import answer_card
    from duocthu_desktop.app.chat_view import ChatView

    asked: list[QWidget] = []

    class CountingPart(answer_card.SettledPart):
        watched = False

        def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt's name
            if self.watched:
                asked.append(self)
            return super().hasHeightForWidth()

    monkeypatch.setattr(answer_card, "SettledPart", CountingPart)
    per_run = answer_card.AnswerCard.BLOCKS_PER_RUN
    cites = [citation(i, 1100 + i, 40 + i, f"Câu {i}: " + "suy thận nặng " * 8) for i in range(1, 6 * per_run + 1)]
    payload = AnswerPayload(decision="answerable", citations=cites, disclaimer=DISCLAIMER,
                            blocks=[Block(title=f"Thuốc {c.index} — Chống chỉ định", kind="prose",
                                          claims=[Claim(text=c.quote, citations=[c.index])]) for c in cites])
    chat = ChatView()
    qtbot.addWidget(chat)
    chat.resize(700, 600)
    chat.show()
    card = chat.add_answer(payload, "Chống chỉ định?")
    runs = lambda: [w for w in card.findChildren(QWidget) if w.parentWidget() is card  # noqa: E731
                    and isinstance(w, CountingPart)]
    qtbot.waitUntil(lambda: len(runs()) >= 2 and runs()[0].settled, timeout=10000)
    first_run = runs()[0]
    wait_laid_out(qtbot, first_run)  # and the layouts its settling asked for, done
    blocks = [w for w in first_run.findChildren(CountingPart) if w.parentWidget() is first_run]
    assert len(blocks) == per_run and not card.complete  # runs are still to come
    for block in blocks:
        block.watched = True
    wait_laid_out(qtbot, card, timeout=20000)
    assert len(card.chips) == len(cites) and len(runs()) == 6
    assert asked == []


def test_a_wrapped_label_lays_its_text_out_once_per_width_until_its_font_or_text_changes(qtbot, monkeypatch):
    """QLabel lays its whole text out at each ask for its height (and again at the width it had): a layout pass
    asks each label several times at the same width. The answer's labels keep their height per width."""
    from PySide6.QtGui import QFont

    from duocthu_desktop.app.answer_card import WrappedLabel, _label

    text = "Suy thận nặng, độ thanh thải creatinin dưới 30 ml/phút; " * 8
    plain = QLabel(text)
    plain.setWordWrap(True)
    qtbot.addWidget(plain)
    label = _label(text, "claim")
    qtbot.addWidget(label)
    assert isinstance(label, WrappedLabel)
    laid_out: list[int] = []
    qlabel_height = QLabel.heightForWidth
    monkeypatch.setattr(QLabel, "heightForWidth", lambda self, w: laid_out.append(w) or qlabel_height(self, w))

    narrow, wide = label.heightForWidth(300), label.heightForWidth(600)
    assert label.heightForWidth(300) == narrow and label.heightForWidth(600) == wide
    assert laid_out == [300, 600]  # once per width
    assert narrow > wide and (narrow, wide) == (qlabel_height(plain, 300), qlabel_height(plain, 600))

    font = QFont(label.font())
    font.setPointSizeF(font.pointSizeF() * 2)
    label.setFont(font)  # larger text: more lines at the same width, laid out again
    assert label.heightForWidth(300) > narrow and laid_out[-1] == 300
    label.setText("Một dòng.")
    assert label.heightForWidth(300) < narrow and laid_out[-1] == 300
