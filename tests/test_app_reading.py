"""Reading in the window (issue 19): the chat gets the width, the list of conversations puts itself away in a
narrow window, quick replies wrap and no card overflows the chat, the caption follows the page shown, a section
jump lands on its heading. Off-screen with pytest-qt; waits on signals and conditions, never sleeps."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before pytest-qt makes the QApplication

import pytest  # noqa: E402
from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtWidgets import QPushButton  # noqa: E402

from duocthu_desktop.app import window_state  # noqa: E402
from duocthu_desktop.app.main_window import NARROW_PX, MainWindow  # noqa: E402
from duocthu_desktop.app.session import Session  # noqa: E402
from duocthu_desktop.messages import DISCLAIMER, message_for  # noqa: E402
from duocthu_desktop.payload import AnswerPayload, Block, Claim  # noqa: E402
from duocthu_desktop.settings import Settings  # noqa: E402
from tests import app_fixtures  # noqa: E402
from tests.app_fixtures import ScriptedAssistant, send  # noqa: E402
from tests.test_app_window import _real_citation, citation, dose_answer, verify_answer  # noqa: E402

make_window = app_fixtures.make_window  # the shared fixture: a shown window over an assistant
LONG_REPLIES = ["Uống", "Tiêm tĩnh mạch chậm trong 3 - 5 phút", "Tiêm bắp sâu", "Truyền tĩnh mạch liên tục",
                "Đặt trực tràng", "Dùng ngoài da, bôi lên vùng tổn thương", "Nhỏ mắt", "Khí dung qua mặt nạ"]


def clarify_many() -> AnswerPayload:
    return AnswerPayload(decision="clarify", reason="missing_route", message=message_for("missing_route"),
                         quick_replies=LONG_REPLIES, disclaimer=DISCLAIMER)


def test_the_chat_gets_the_width_and_the_splitter_is_remembered(qtbot, make_window):
    window = make_window(ScriptedAssistant(lambda q: dose_answer()))
    chat_side, pdf_side = window.splitter.sizes()
    assert chat_side > pdf_side  # the PDF pane is the narrower one by default
    chat_column = window.chat.viewport().width()
    assert chat_column >= 500, chat_column  # at 1440 px, beside the list of conversations
    window.splitter.setSizes([700, window.splitter.width() - 700])
    window.list_splitter.setSizes([240, window.list_splitter.width() - 240])
    moved, listed = window.splitter.sizes(), window.list_splitter.sizes()
    window.close()
    saved = window_state.read_state(window.settings.data_dir)
    assert saved["main"] == moved and saved["conversations"] == listed
    again = MainWindow(window.settings, opener=lambda _s, _p: Session(ScriptedAssistant(lambda q: dose_answer())),
                       warm_up=False)
    qtbot.addWidget(again)
    again.show()
    assert abs(again.splitter.sizes()[0] - moved[0]) <= 2
    assert abs(again.list_splitter.sizes()[0] - listed[0]) <= 2


def test_a_damaged_window_state_leaves_the_default_layout(qtbot, tmp_path):
    (tmp_path / window_state.STATE_FILE).write_text("{not json", encoding="utf-8")
    window = MainWindow(Settings(data_dir=tmp_path), opener=lambda _s, _p: None, warm_up=False)
    qtbot.addWidget(window)
    window.show()
    assert window.splitter.sizes()[0] > window.splitter.sizes()[1]


def test_the_list_of_conversations_puts_itself_away_below_1300_px_and_can_be_shown_again(qtbot, make_window):
    window = make_window(ScriptedAssistant(lambda q: dose_answer()))
    assert window.conversations.isVisible()
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: not window.conversations.isVisible(), timeout=3000)
    assert not window.list_action.isChecked()
    window.list_action.trigger()  # Xem > Danh sách hội thoại (F9): shown again, even narrow
    assert window.conversations.isVisible()
    window.resize(1100, 700)  # still narrow: the person's choice stays
    qtbot.waitUntil(lambda: window.width() == 1100, timeout=3000)
    assert window.conversations.isVisible()
    window.resize(NARROW_PX + 100, 800)
    qtbot.waitUntil(lambda: window.width() == NARROW_PX + 100, timeout=3000)
    assert window.conversations.isVisible()
    window.resize(NARROW_PX - 50, 800)
    qtbot.waitUntil(lambda: not window.conversations.isVisible(), timeout=3000)


def _right_edge_in_viewport(widget, viewport) -> int:
    return widget.mapTo(viewport, QPoint(widget.width(), 0)).x()


def many_chips() -> AnswerPayload:
    """One claim citing eight pages: its chips wrap under each other beside it."""
    cites = [citation(i, 1100 + i, 40 + i, f"đoạn {i}") for i in range(1, 9)]
    return AnswerPayload(decision="answerable", citations=cites, disclaimer=DISCLAIMER,
                         blocks=[Block(title="Paracetamol — Người lớn · uống", kind="dosage",
                                       claims=[Claim(text="Liều như các trang đã dẫn.", citations=list(range(1, 9)))])])


def test_quick_replies_wrap_and_no_card_overflows_the_chat_at_1024_px(qtbot, make_window):
    answers = iter([clarify_many(), verify_answer(), dose_answer(), many_chips()])
    window = make_window(ScriptedAssistant(lambda q: next(answers)))
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: not window.conversations.isVisible(), timeout=3000)
    cards = [send(qtbot, window, q) for q in ("Liều paracetamol?", "Liều paracetamol trẻ em uống?", "Còn viên?",
                                              "Còn người lớn?")]
    viewport = window.chat.viewport()
    qtbot.waitUntil(lambda: all(_right_edge_in_viewport(c, viewport) <= viewport.width() for c in cards),
                    timeout=3000)
    assert window.chat.horizontalScrollBar().maximum() == 0  # nothing wider than the column
    for card in cards:
        for button in card.findChildren(QPushButton):
            assert _right_edge_in_viewport(button, viewport) <= viewport.width(), button.text()
    replies = cards[0].reply_buttons
    assert len({b.y() for b in replies}) > 1  # they wrapped onto further rows
    assert len(cards[3].chips) == 8 and len({c.y() for c in cards[3].chips}) > 1
    assert all(b.width() >= min(b.sizeHint().width(), b.minimumSizeHint().width()) for b in replies)


@pytest.mark.integration
def test_a_quick_reply_and_a_title_tag_are_one_line_where_the_book_broke_the_label(qtbot, make_window, assistant):
    """Captopril's indications in the sample book: one label breaks over two printed lines (\"... sau nhồi\" /
    \"máu cơ tim\"); its button was drawn two lines high in a one-line pill, its tag split the title."""
    window = make_window(assistant, owns_index=False)  # the session's shared index stays open
    card = send(qtbot, window, "Liều captopril người lớn?")
    replies = card.reply_buttons
    assert card.payload.decision == "clarify" and len(replies) > 1
    broken = [b.text() for b in replies if "\n" in b.text()]
    assert not broken and any("nhồi máu cơ tim" in b.text() for b in replies)
    assert all(b.height() >= b.fontMetrics().height() for b in replies)
    reply = next(b for b in replies if "nhồi máu cơ tim" in b.text())
    with qtbot.waitSignal(window.answer_shown, timeout=10000) as shown:
        qtbot.mouseClick(reply, Qt.MouseButton.LeftButton)
    answer = shown.args[0].payload
    assert answer.decision == "answerable"
    assert any("nhồi máu cơ tim" in b.title for b in answer.blocks) and not [b for b in answer.blocks if "\n" in b.title]


def _window_with_a_citation_open(qtbot, make_window, sample_pdf, sample_build, sample_chunks, sample_monographs):
    """A window over the real sample book whose one dose answer's chip [1] is open in the PDF pane."""
    from duocthu_desktop.artifacts import PAGES_FILE, read_pages

    pages = read_pages(sample_build / PAGES_FILE)
    cite = _real_citation(sample_chunks, pages)
    window = make_window(ScriptedAssistant(lambda q: dose_answer([cite]), sample_monographs, sample_chunks),
                         pdf=sample_pdf, index_dir=sample_build)
    qtbot.waitUntil(lambda: window.viewer.document.pageCount() > 0, timeout=10000)
    with qtbot.waitSignal(window.citation_located, timeout=10000):
        send(qtbot, window, "Liều paracetamol cho trẻ 5 tuổi?")
    return window, cite


def test_the_caption_follows_the_page_shown_not_the_last_citation(
        qtbot, make_window, sample_pdf, sample_build, sample_chunks, sample_monographs):
    window, cite = _window_with_a_citation_open(
        qtbot, make_window, sample_pdf, sample_build, sample_chunks, sample_monographs)
    viewer = window.viewer
    assert viewer.caption.text().startswith("[1] ")
    elsewhere = next(m for m in sample_monographs if m.drug_id != cite.drug_id)
    viewer.go_to_page(elsewhere.start_physical)  # as ◀ ▶, the page box or scrolling do
    assert "[1]" not in viewer.caption.text()
    assert elsewhere.title.capitalize() in viewer.caption.text()
    assert f"trang {window.session.printed_for(elsewhere.start_physical)}" in viewer.caption.text()
    viewer.go_to_page(cite.physical_page)
    assert viewer.caption.text().startswith("[1] ")


def test_a_cleared_chat_takes_the_open_citations_number_and_highlight_with_it(
        qtbot, make_window, sample_pdf, sample_build, sample_chunks, sample_monographs):
    """A new or a past conversation clears the chat: the caption's "[1]" and the band would name a chip no longer
    shown (in a past conversation, another answer's [1]); the page stays, captioned by what it holds."""
    window, cite = _window_with_a_citation_open(
        qtbot, make_window, sample_pdf, sample_build, sample_chunks, sample_monographs)
    viewer = window.viewer
    assert viewer.caption.text().startswith("[1] ") and viewer.view.highlights
    with qtbot.waitSignal(window.chat.cleared, timeout=3000):
        window.new_conversation()
    assert viewer.current_page() == cite.physical_page  # the page stays
    assert "[1]" not in viewer.caption.text() and not viewer.view.highlights and viewer.citation is None
    assert f"trang {cite.printed_page}" in viewer.caption.text()
    assert window.session.page_caption(cite.physical_page) in viewer.caption.text()


def test_a_section_jump_lands_on_its_heading_not_the_page_top(
        qtbot, make_window, sample_pdf, sample_build, sample_chunks, sample_monographs):
    window = make_window(ScriptedAssistant(lambda q: dose_answer(), sample_monographs, sample_chunks),
                         pdf=sample_pdf, index_dir=sample_build)
    qtbot.waitUntil(lambda: window.viewer.document.pageCount() > 0, timeout=10000)
    session = window.session
    mono, section = next((m, s) for m in sample_monographs for s in m.sections
                         if s.key == "chi_dinh" and s.start_printed is not None)
    top = next(window.browser.tree.topLevelItem(i) for i in range(window.browser.tree.topLevelItemCount())
               if window.browser.tree.topLevelItem(i).text(0) == mono.title)
    item = next(top.child(j) for j in range(top.childCount()) if top.child(j).text(0) == section.heading)
    physical = session.physical_for(section.start_printed)
    with qtbot.waitSignal(window.section_shown, timeout=20000) as blocker:
        window.browser._activated(item)
    found = blocker.args[0]
    assert found is not None and found[0] == physical and found[1] > 0
    view = window.viewer.view
    heading_y = view.to_view(physical - 1, (0, found[1], 1, found[1] + 1)).y()
    page_top = view.page_rect(physical - 1).y()
    assert 0 <= heading_y <= view.viewport().height() * 0.2  # the heading near the top of the view
    assert page_top < -20 or found[1] < 60  # scrolled past the page's top, unless the heading is at its top


def test_the_viewer_lays_its_pages_out_from_the_sizes_read_where_the_pdf_was_loaded(qtbot, sample_pdf):
    from duocthu_desktop.app.source_viewer import SourceViewer

    viewer = SourceViewer()
    qtbot.addWidget(viewer)
    viewer.resize(500, 700)
    viewer.show()
    document = SourceViewer.load_document(sample_pdf)  # on the PDF lane's worker in the window
    assert len(document.page_points) == document.pageCount() > 0
    asked: list[int] = []
    real = document.pagePointSize
    document.pagePointSize = lambda page: (asked.append(page), real(page))[1]
    assert viewer.open_pdf(document)
    viewer.zoom(1.2)  # a new zoom lays every page out again
    viewer.go_to_page(30, 200.0)
    rect = viewer.view.page_rect(29)
    size = real(29) * viewer.view.scale()
    assert (rect.width(), rect.height()) == (round(size.width()), round(size.height()))
    assert asked == []  # no page's size read again on the UI thread (1,700 of them at full size, at each zoom)
