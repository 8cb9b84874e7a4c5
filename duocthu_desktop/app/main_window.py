"""The main window: the chat and the formulary browser on the left, the source viewer on the right.

Every call into the core goes through app.operations: opening the index, each turn, finding a quote on its page,
rebuilding. The window only shows what comes back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from duocthu_desktop import in_use
from duocthu_desktop.app import heap, operations, rebuild, style, window_state
from duocthu_desktop.app.answer_card import PastAnswer
from duocthu_desktop.app.browser import FormularyBrowser
from duocthu_desktop.app.busy import BusyLabel
from duocthu_desktop.app.chat_view import ChatView
from duocthu_desktop.app.conversations import ConversationList, beside, when
from duocthu_desktop.app.question_box import QuestionBox
from duocthu_desktop.app.rebuild_dialog import RebuildDialog
from duocthu_desktop.app.session import SAMPLE_INDEX, Session, default_index, find_pdf
from duocthu_desktop.app.settings_dialog import SettingsDialog
from duocthu_desktop.app.source_viewer import SourceViewer
from duocthu_desktop.errors import DuocthuError
from duocthu_desktop.payload import AnswerPayload, Citation
from duocthu_desktop.qa.conversation.memory import ConversationSummary, store_key
from duocthu_desktop.settings import ONE_OFF, Settings, apply_threads, data_dir, settings_file

log = logging.getLogger(__name__)

TITLE = "Dược thư Quốc gia Việt Nam 2018 — tra cứu"
OPENING = "Đang mở chỉ mục…"
WARMING = "Đang tải mô hình tìm kiếm (câu hỏi vẫn được trả lời)…"
BUSY = "Đang tra cứu…"
STILL_WORKING = "đang chạy"
SEND = "Gửi"
CANCEL = "Hủy"
NEW_CHAT = "Hội thoại mới"
TAB_CHAT = "Hỏi đáp"
TAB_BROWSE = "Tra cứu chuyên luận"
CANCELLED = "Đã hủy câu hỏi. Câu hỏi tiếp theo sẽ bắt đầu một hội thoại mới."
# the book's answer is shown and the language model rewrites it (generative engine)
MODEL_WRITING = "Mô hình ngôn ngữ đang viết lại câu trả lời từ sách…"
MODEL_STOPPED = "Đã dừng mô hình ngôn ngữ: câu trả lời trích nguyên văn từ sách ở trên được giữ nguyên."
TURN_FAILED = "Không trả lời được do lỗi kỹ thuật ({kind}: {reason}). Hãy thử lại; nếu vẫn lỗi, xem nhật ký."
NO_INDEX = "Chưa mở được chỉ mục Dược thư: {reason}"
BUILD_INDEX = "Dựng chỉ mục từ tệp PDF…"
REOPENING = "Đang mở lại chỉ mục mới…"
REOPENED = "Đã mở chỉ mục mới."
STATUS = "Chỉ mục: {monographs} chuyên luận · {chunks} đoạn · dựng {built} · mô hình {model}   |   Chế độ: {engine}"
ENGINES = {"extractive": "trích nguyên văn", "generative": "mô hình ngôn ngữ"}
ENGINE_UNAVAILABLE = (" — KHÔNG dùng được: không tải được tệp GGUF (chạy `duocthu-models prepare` hoặc chọn tệp "
                      "trong Cài đặt; mọi câu trả lời sẽ bị từ chối cho đến khi sửa)")
MENU_FILE, MENU_VIEW = "&Tệp", "&Xem"
ACT_OPEN_PDF, ACT_REBUILD, ACT_QUIT = "Mở tệp PDF…", "Xây dựng lại chỉ mục…", "Thoát"
ACT_BIGGER, ACT_SMALLER = "Chữ to hơn", "Chữ nhỏ hơn"
ACT_SETTINGS = "Cài đặt…"
ACT_CONVERSATIONS = "Danh sách hội thoại"
NARROW_PX = 1300  # narrower than this, the list of conversations puts itself away (Xem > Danh sách: F9)
CHAT_SHARE = 0.56  # of the window's width, at first: the chat and its claims get the room, the PDF the rest
LIST_PX = 190  # the list of conversations' width, at first
CONTINUING = "Tiếp tục hội thoại «{title}». Câu hỏi trước (đã che thông tin cá nhân): {question}"
REOPEN_KEYS = ("index_dir", "engine", "gguf_model")  # a change of these opens the index again
PDF_FILTER = "Tệp PDF (*.pdf)"
SECTION_ABOVE = 0.05  # a section's heading near the top of the view, a line of what precedes it above

Opener = Callable[[Settings, Path | None], Session]


def open_session(settings: Settings, pdf: Path | None) -> Session:
    apply_threads(settings)
    session = Session.open(settings, pdf, warm_up=False, embed_in_worker=True)
    # what the open index holds (every chunk, the catalog) stays for the session: out of the collector's sight, a
    # full collection no longer walks it and stops every thread for ~0.2-0.4 s at some turn (bench/app_bench.py)
    heap.freeze_loaded(collect=False)
    return session


def warm_up(session: Session) -> None:
    """On the model's lane: load the models and read what every turn reads, then freeze what that loaded (app.heap),
    so no later pass of the collector walks it while a turn runs."""
    try:
        session.assistant.warm_up()
    finally:
        heap.freeze_loaded()


def same_folder(a: Path, b: Path) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def remember_index(index_dir: Path, replace: bool = False) -> bool:
    """A first build's folder is saved in settings, so the next start opens it (an index already set is kept,
    unless a rebuild into another folder `replace`s it: the old folder no longer is the one in use); True when
    it was saved."""
    saved = Settings.read_saved(settings_file())
    if saved.get("index_dir") == str(index_dir) or (saved.get("index_dir") and not replace):
        return False
    if not saved.get("index_dir") and index_dir == data_dir() / SAMPLE_INDEX:
        return False
    try:
        Settings.save_changes(index_dir=str(index_dir))  # only this key: nothing a flag or the environment gave
    except (OSError, ValueError) as err:
        log.warning("index folder not saved in settings: %s", err)
        return False
    return True


class MainWindow(QMainWindow):
    session_ready = Signal()
    session_failed = Signal(str)
    warmed_up = Signal()  # the models loaded and what the session keeps frozen (app.heap): turns run at full speed
    answer_arrived = Signal()  # a turn's answer reached the UI thread: its card is being built and shown
    answer_shown = Signal(object)  # the AnswerCard, built, its first citation's page opened
    answer_replaced = Signal(object)  # the AnswerCard with the model's checked wording, built where the book's was
    turn_failed = Signal(str)
    citation_located = Signal(object)  # the Citation, once its page is open and its quote highlighted
    past_shown = Signal(int)  # a continued conversation's earlier turns are in the chat (how many)
    citation_gone = Signal(object)  # a chip of a replaced index was clicked: the Citation, its page not opened
    section_shown = Signal(object)  # (file page, y) of a section heading the viewer scrolled to, or None

    def __init__(self, settings: Settings | None = None, pdf: Path | None = None,
                 opener: Opener | None = None, warm_up: bool = True) -> None:
        super().__init__()
        self.settings = settings or Settings.load()
        self.pdf = Path(pdf) if pdf else None
        self.opener = opener or open_session
        self.warm_up = warm_up
        self.session: Session | None = None
        self.conversation_id = Session.new_conversation()
        self.turn: operations.Operation | None = None
        self.turn_question = ""
        self.book_card = None  # the book's answer shown while the model writes (generative engine)
        self.setWindowTitle(TITLE)
        self.text_pt = self.settings.text_size or self._system_text_pt()
        style.set_text_size(self, self.text_pt)
        self._fit_to_screen(1440, 900)
        self._build()
        self._menus()

    # ---- layout -------------------------------------------------------------------------------------------

    def _build(self) -> None:
        self.chat = ChatView(drug_title=self._drug_title)
        self.chat.citation_clicked.connect(self.open_citation)
        self.chat.reply_clicked.connect(self.send)
        self.question_box = QuestionBox()
        self.question_box.submitted.connect(self.send)
        self.send_button = QPushButton(SEND)
        self.send_button.clicked.connect(self.question_box.submit)
        new_chat = QPushButton(NEW_CHAT)
        new_chat.clicked.connect(self.new_conversation)
        self.busy_label = BusyLabel(BUSY)
        self.cancel_button = QPushButton(CANCEL)
        self.cancel_button.setShortcut(QKeySequence(Qt.Key.Key_Escape))
        self.cancel_button.clicked.connect(self.cancel_turn)
        self.busy_row = QWidget()
        busy = QHBoxLayout(self.busy_row)
        busy.setContentsMargins(0, 0, 0, 0)
        busy.addWidget(self.busy_label, 1)
        busy.addWidget(self.cancel_button)
        self.busy_row.hide()
        ask_row = QHBoxLayout()
        ask_row.addWidget(self.question_box, 1)
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(new_chat)
        ask_row.addLayout(buttons)
        chat_tab = QWidget()
        chat_layout = QVBoxLayout(chat_tab)
        chat_layout.setContentsMargins(4, 4, 4, 4)
        chat_layout.addWidget(self.chat, 1)
        chat_layout.addWidget(self.busy_row)
        chat_layout.addLayout(ask_row)
        self.browser = FormularyBrowser()
        self.browser.open_page.connect(self.open_page)
        self.browser.open_section.connect(self.open_section)
        self.browser.ask_about.connect(self.ask_about)
        self.browser.open_citation.connect(self.open_citation)
        self.tabs = QTabWidget()
        self.conversations = ConversationList()
        self.conversations.chosen.connect(self.continue_conversation)
        self.conversations.new_requested.connect(self.new_conversation)
        self.conversations.deleted.connect(self._conversation_deleted)
        self.session_ready.connect(self._conversations_ready)
        self.answer_shown.connect(lambda _card: self._conversation_changed())
        self.list_splitter = beside(self.conversations, chat_tab)
        self.tabs.addTab(self.list_splitter, TAB_CHAT)
        self.tabs.addTab(self.browser, TAB_BROWSE)
        self.viewer = SourceViewer()
        self.viewer.page_caption = self._page_caption
        self.chat.cleared.connect(self.viewer.drop_citation)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.tabs)
        self.splitter.addWidget(self.viewer)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        chat = round(self.width() * CHAT_SHARE)
        self.splitter.setSizes([chat, self.width() - chat])
        self.list_splitter.setSizes([LIST_PX, chat - LIST_PX])
        self._restore_layout()
        self.setCentralWidget(self.splitter)
        self.status_label = QLabel(OPENING)
        self.status_bar_busy = BusyLabel(STILL_WORKING)
        self.statusBar().addWidget(self.status_label, 1)
        self.statusBar().addPermanentWidget(self.status_bar_busy)
        self._set_ready(False)

    def _fit_to_screen(self, width: int, height: int) -> None:
        """The window's first size, within the screen's free area (a 1366 x 768 laptop, a screen scaled x2)."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        room = screen.availableGeometry() if screen is not None else None
        real = QGuiApplication.platformName() not in ("offscreen", "minimal")  # their 800 x 600 is no screen
        if real and room is not None and room.width() > 0 and room.height() > 0:
            width, height = min(width, room.width()), min(height, room.height())
        self.resize(width, height)

    def _menus(self) -> None:
        file_menu = self.menuBar().addMenu(MENU_FILE)
        file_menu.addAction(ACT_OPEN_PDF, self.choose_pdf)
        file_menu.addAction(ACT_REBUILD, self.show_rebuild)
        file_menu.addAction(ACT_SETTINGS, QKeySequence(QKeySequence.StandardKey.Preferences), self.show_settings)
        file_menu.addSeparator()
        file_menu.addAction(ACT_QUIT, QKeySequence(QKeySequence.StandardKey.Quit), self.close)
        view_menu = self.menuBar().addMenu(MENU_VIEW)
        bigger = QAction(ACT_BIGGER, self)
        bigger.setShortcuts([QKeySequence(QKeySequence.StandardKey.ZoomIn), QKeySequence("Ctrl+=")])
        bigger.triggered.connect(lambda: self.text_size(1))
        smaller = QAction(ACT_SMALLER, self)
        smaller.setShortcut(QKeySequence(QKeySequence.StandardKey.ZoomOut))
        smaller.triggered.connect(lambda: self.text_size(-1))
        view_menu.addActions([bigger, smaller])
        self.list_action = QAction(ACT_CONVERSATIONS, self, checkable=True)
        self.list_action.setShortcut(QKeySequence(Qt.Key.Key_F9))
        self.list_action.toggled.connect(self.conversations.setVisible)
        self._narrow = self.width() < NARROW_PX
        self.list_action.setChecked(not self._narrow)  # a narrow window gives the chat its room
        self.conversations.setVisible(self.list_action.isChecked())
        view_menu.addAction(self.list_action)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """Crossing NARROW_PX puts the list of conversations away or brings it back; in between, what the person
        chose with F9 stays."""
        super().resizeEvent(event)
        narrow = event.size().width() < NARROW_PX
        if hasattr(self, "list_action") and narrow != self._narrow:
            self._narrow = narrow
            self.list_action.setChecked(not narrow)

    # ---- what the window remembers of its layout (app.window_state) ---------------------------------------

    def _restore_layout(self) -> None:
        state = window_state.read_state(self.settings.data_dir)
        if "main" in state:
            self.splitter.setSizes(state["main"][:2])
        if "conversations" in state:
            self.list_splitter.setSizes(state["conversations"][:2])

    def layout_state(self) -> dict[str, list[int]]:
        state = window_state.read_state(self.settings.data_dir)
        state["main"] = self.splitter.sizes()
        if self.conversations.isVisible():  # a hidden list's zero width is not the width it had
            state["conversations"] = self.list_splitter.sizes()
        return state

    def text_size(self, step: int) -> None:
        self.text_pt = min(28.0, max(7.0, self.text_pt + step))
        style.set_text_size(self, self.text_pt)

    def _set_ready(self, ready: bool) -> None:
        self.send_button.setEnabled(ready and self.turn is None)
        self.question_box.setEnabled(ready)
        self.status_bar_busy.setVisible(not ready)

    def _drug_title(self, drug_id: str) -> str | None:
        mono = self.session.monograph(drug_id) if self.session is not None else None
        return mono.title.capitalize() if mono is not None else None

    # ---- opening the index --------------------------------------------------------------------------------

    def start(self) -> None:
        """Open the index off the UI thread; the window stays usable meanwhile."""
        self.status_label.setText(OPENING)
        self._set_ready(False)
        settings, pdf, opener = self.settings, self.pdf, self.opener
        operations.run(lambda task: opener(settings, pdf), on_success=self._opened, on_failure=self._open_failed,
                       name="open-index")

    def _opened(self, session: Session) -> None:
        self.session = session
        self.viewer.printed_for = session.printed_for
        self.viewer.physical_for = session.physical_for
        self.viewer.set_warning(session.pdf_message)
        self.browser.set_monographs(session.monographs, session.physical_for,
                                    getattr(session.assistant, "catalog", None))
        self.browser.load_dosing(session.index_dir)
        self._show_status()
        self._set_ready(True)
        self.question_box.setFocus()
        self.session_ready.emit()
        self.load_pdf(session.pdf_path)  # after the list of monographs is built: both want Python's lock
        # the quote finder starts in its own process now, so the first chip clicked neither waits nor freezes
        operations.run(lambda task: session.warm_locator(), on_success=lambda _r: None, on_failure=lambda _e: None,
                       lane=operations.PDF, name="warm-locator")
        if self.warm_up:
            self.status_bar_busy.show()
            self.status_label.setText(WARMING)
            operations.run(lambda task: warm_up(session), on_success=lambda _s: self._warmed(),
                           on_failure=lambda _err: self._warmed(), lane=operations.MODEL, name="warm-up")

    def load_pdf(self, path: Path | None) -> None:
        """Read the PDF on a worker, then show it: questions can be asked meanwhile (reading every page's size
        takes about 1 ms a page, 1.5 s for a book the real size, on the UI thread or before the window is usable);
        a citation opened before it arrives is shown when it does."""
        if path is None:
            self.viewer.open_pdf(None)
            return
        self.viewer.loading()
        operations.run(lambda task: SourceViewer.load_document(path), lane=operations.PDF, name="load-pdf",
                       on_success=self.viewer.open_pdf, on_failure=lambda _err: self.viewer.open_pdf(None))

    def _warmed(self) -> None:
        self.status_bar_busy.hide()
        self._show_status()
        self.warmed_up.emit()

    def _show_status(self) -> None:
        if self.session is None:
            return
        facts = self.session.facts()
        engine = self.session.engine()
        shown = ENGINES.get(engine, engine)
        error = self.session.engine_error()
        if error:  # the person sees why every answer abstains, and what to do
            shown += ENGINE_UNAVAILABLE
            self.status_label.setToolTip(error)
        self.status_label.setText(STATUS.format(monographs=facts.monographs, chunks=facts.chunks or "?",
                                                built=facts.built_at or "?", model=facts.model or "?",
                                                engine=shown))

    def _open_failed(self, err: BaseException) -> None:
        reason = str(err) if isinstance(err, DuocthuError) else f"{type(err).__name__}: {err}"
        log.warning("index not opened: %s", reason)
        self.status_label.setText(NO_INDEX.format(reason=reason))
        self.status_bar_busy.hide()
        self.chat.add_note(NO_INDEX.format(reason=reason))
        self.chat.add_button(BUILD_INDEX, self.show_rebuild)
        self.session_failed.emit(reason)

    # ---- a turn -------------------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.turn is not None

    def send(self, text: str) -> None:
        text = text.strip()
        if text and self.busy and self.book_card is not None:
            self.cancel_turn()  # the book's answer is shown: the next question need not wait for the model's wording
        if not text or self.session is None or self.busy:
            return
        self.question_box.clear()
        self.chat.add_question(text)
        session, conversation = self.session, self.conversation_id
        self.turn_question = text
        self.book_card = None
        self.busy_label.base = BUSY

        def to_check(payload: AnswerPayload) -> set[int]:
            return session.quarantined(payload) if payload.decision == "verify_pdf" else set()

        def work(task: operations.Task) -> tuple[AnswerPayload, set[int]]:
            payload = session.ask(text, conversation, task.cancel_event,
                                  on_extractive=lambda book: task.progress(book, to_check(book)))
            return payload, to_check(payload)

        self.turn = operations.run(work, on_success=self._answered, on_failure=self._turn_failed,
                                   on_progress=self._book_answer, name="turn")
        self._show_busy(True)

    def _show_busy(self, busy: bool) -> None:
        self.busy_row.setVisible(busy)
        self.send_button.setEnabled(not busy and self.session is not None)

    def cancel_turn(self) -> None:
        if self.turn is None:
            return
        self.turn.cancel()
        self.turn = None
        self._show_busy(False)
        if self.book_card is not None:  # only the model is stopped: the book's answer stands, and is remembered
            self.book_card = None
            self.chat.add_note(MODEL_STOPPED)
            return
        self.conversation_id = Session.new_conversation()  # the dropped turn may have been remembered
        self.chat.add_note(CANCELLED)

    def _book_answer(self, payload: AnswerPayload, to_check: set[int]) -> None:
        """The book's answer, shown at once while the language model writes its wording of it."""
        self.busy_label.base = MODEL_WRITING
        self.send_button.setEnabled(True)  # a next question stops the model and keeps this answer
        self.answer_arrived.emit()
        index_id = self.session.index_id if self.session is not None else None
        card = self.chat.add_answer(payload, self.turn_question, to_check, index_id)
        self.book_card = card
        card.when_built(lambda: self._open_first_citation(card))

    def _answered(self, result: tuple[AnswerPayload, set[int]]) -> None:
        payload, to_check = result
        self.turn = None
        self._show_busy(False)
        book, self.book_card = self.book_card, None
        if book is not None and book in self.chat.cards:
            # the model's checked wording, or the book's answer with the line saying why it stays: in place
            index_id = self.session.index_id if self.session is not None else None
            card, opened = self.chat.replace_answer(book, payload, to_check, index_id), book.complete
            card.when_built(lambda: self._replaced(card, opened))
            return
        self.answer_arrived.emit()
        index_id = self.session.index_id if self.session is not None else None
        card = self.chat.add_answer(payload, self.turn_question, to_check, index_id)
        # the card fills in over a few turns of the event loop, and the cited page opens after it, so that no one
        # step holds the UI thread for long (bench/app_bench.py measures the longest)
        card.when_built(lambda: self._open_first_citation(card))

    def _replaced(self, card, opened: bool) -> None:
        """The replacing card is built: its page opens only if the book's card had not opened one yet."""
        if not opened:
            self._open_first_citation(card)
        else:  # the page the book's card opened stays: its chip in the new card is the open one
            shown = getattr(self.viewer, "citation", None)
            same = next((c for c in card.payload.citations if shown is not None and c.chunk_id == shown.chunk_id
                         and c.quote == shown.quote), None)
            if same is not None:
                self.chat.mark_open(same)
        self.answer_replaced.emit(card)

    def _open_first_citation(self, card) -> None:
        payload = card.payload
        if payload.citations and card in self.chat.cards:  # the first page to check, else the first cited
            first = next((c for c in payload.citations if c.index in card.to_check), payload.citations[0])
            self.open_citation(first)
        if card in self.chat.cards:  # not a card replaced before it was built
            QTimer.singleShot(0, self, lambda: self.answer_shown.emit(card))

    def _turn_failed(self, err: BaseException) -> None:
        self.turn = None
        self._show_busy(False)
        log.error("turn failed", exc_info=err)
        self.chat.add_note(TURN_FAILED.format(kind=type(err).__name__, reason=err))
        self.turn_failed.emit(f"{type(err).__name__}: {err}")

    def new_conversation(self) -> None:
        if self.busy:
            self.cancel_turn()
        self.conversation_id = Session.new_conversation()
        self.conversations.set_current(None)
        self.chat.clear()
        self.question_box.setFocus()

    def ask_about(self, title: str) -> None:
        self.tabs.setCurrentIndex(0)
        self.question_box.setPlainText(f"{title.capitalize()}: ")
        self.question_box.setFocus()
        self.question_box.moveCursor(self.question_box.textCursor().MoveOperation.End)

    # ---- the source viewer --------------------------------------------------------------------------------

    def open_citation(self, citation: Citation, index_id: str | None = None) -> None:
        """Open the cited page; a chip of an index since replaced (`index_id` not the open one's) says so
        instead of opening a page of another book."""
        if self.session is not None and not self.session.same_index(index_id):
            self.viewer.show_gone(citation)
            self.chat.mark_open(None)
            self.citation_gone.emit(citation)
            return
        self.viewer.show_citation(citation, self._drug_title(citation.drug_id))
        self.chat.mark_open(citation)
        session = self.session
        if session is None or not session.may_highlight:  # the page opens, but nothing may be highlighted
            self.viewer.set_warning(session.pdf_message if session is not None else None)
            self.citation_located.emit(citation)
            return
        operations.run(lambda task: session.locate(citation),
                       on_success=lambda located: self._located(citation, located),
                       on_failure=lambda err: self._located(citation, []), lane=operations.PDF, name="locate")

    def _located(self, citation: Citation, located) -> None:
        if self.viewer.show_located(citation, located):
            self.citation_located.emit(citation)

    def open_page(self, physical: int) -> None:
        self.viewer.go_to_page(physical)

    def open_section(self, drug_id: str, section_key: str, physical: int) -> None:
        """The section's page at once, then down to its heading once the quote finder has found it there."""
        self.viewer.go_to_page(physical)
        session = self.session
        if session is None:
            return
        operations.run(lambda task: session.section_start(drug_id, section_key), lane=operations.PDF,
                       on_success=lambda found: self._section_found(physical, found),
                       on_failure=lambda err: log.warning("section heading not found: %s", err), name="section")

    def _section_found(self, physical: int, found: tuple[int, float] | None) -> None:
        if found is not None and self.viewer.current_page() == physical:  # unless the person went elsewhere
            self.viewer.go_to_page(found[0], found[1], above=SECTION_ABOVE)
        self.section_shown.emit(found)

    def _page_caption(self, physical: int) -> str | None:
        return self.session.page_caption(physical) if self.session is not None else None

    def choose_pdf(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, ACT_OPEN_PDF, str(self.pdf or ""), PDF_FILTER)
        if path and self.session is not None:
            self.session.set_pdf(Path(path))
            self.load_pdf(Path(path))
            self.viewer.set_warning(self.session.pdf_message)

    # ---- rebuilding ---------------------------------------------------------------------------------------

    def index_in_use(self) -> Path | None:
        if self.session is not None and self.session.index_dir is not None:
            return self.session.index_dir
        return default_index(self.settings)

    def rebuild_target(self) -> Path:
        """A new folder beside the index in use (swapped in when the build succeeds); the data folder's own when
        the index in use is the bundle's or read-only; the first one when none is in use. In server mode the
        session reads the server's files, never rebuilt here: the local fallback folder (or the data folder's
        own) is the target."""
        if self.settings.chroma_url:
            return Path(self.settings.index_dir) if self.settings.index_dir else data_dir() / "index"
        current = self.index_in_use()
        writable = in_use.rebuild_target(self.settings, current)
        if current is not None and same_folder(writable, current):
            return rebuild.default_out(current, data_dir() / "index")
        return writable if current is not None else rebuild.default_out(None, data_dir() / "index")

    def show_rebuild(self) -> RebuildDialog:
        pdf = self.session.pdf_path if self.session is not None else self.pdf
        session = self.session
        embedder = getattr(getattr(getattr(session, "assistant", None), "service", None), "embedder", None)
        dialog = RebuildDialog(self.rebuild_target(), pdf, self, in_use=self.index_in_use(),
                               release_index=lambda out: self._release_for_swap(session, out), embedder=embedder)
        dialog.setFont(self.font())  # a dialog is a window of its own: the text size does not reach it by itself
        dialog.rebuilt.connect(lambda out, built_from: self.reopen(out, built_from, rebuilt=True))
        dialog.released_then_failed.connect(lambda folder: self.reopen(folder, remember=False))
        dialog.show()
        return dialog

    @staticmethod
    def _release_for_swap(session: Session | None, target: Path) -> None:
        """On the build's thread, once the new index is whole: close the index open in the folder the build
        replaces (after any turn in flight), so the swap can rename it on every system."""
        if session is not None and session.index_dir is not None and same_folder(session.index_dir, target):
            session.release()

    def reopen(self, index_dir: Path, pdf: Path | None = None, remember: bool = True, rebuilt: bool = False) -> None:
        """Close the old index (after any turn in flight, on the same lane) and open the rebuilt one; `remember`
        saves a first build's folder in the settings, and a rebuild into another folder as the index to open from
        now on (a one-off --index or DUOCTHU_INDEX is never written into the settings)."""
        old = self.session
        self.session = None
        self._set_ready(False)
        self.status_label.setText(REOPENING)
        source = self.settings.source_of("index_dir")
        moved = rebuilt and not (old is not None and old.index_dir is not None
                                 and same_folder(old.index_dir, index_dir))  # the admin chose a new folder
        if remember and (moved or source not in ONE_OFF) and remember_index(Path(index_dir), replace=moved):
            source = "saved"  # a one-off --index or DUOCTHU_INDEX is never written into the settings
        self.settings = self.settings.with_value("index_dir", Path(index_dir), source)
        self.pdf = Path(pdf) if pdf else self.pdf
        settings, opener, chosen = self.settings, self.opener, self.pdf

        def work(task: operations.Task) -> Session:
            heap.thaw()  # the old index's objects may be collected once closed; the new ones are frozen again
            if old is not None:
                old.close()
            return opener(settings, chosen)

        operations.run(work, on_success=self._reopened, on_failure=self._open_failed, name="reopen-index")

    def _reopened(self, session: Session) -> None:
        self._opened(session)
        self.chat.add_note(REOPENED)

    # ---- past conversations (app.conversations) and settings (app.settings_dialog) --------------------------

    def _conversations_ready(self) -> None:
        self.conversations.set_store(getattr(self.session.assistant, "conversations", None))
        self.conversations.set_current(self.conversation_id)

    def _conversation_changed(self) -> None:
        self.conversations.set_current(self.conversation_id)
        self.conversations.refresh()

    def continue_conversation(self, summary: ConversationSummary) -> None:
        """The next question is read as a follow-up of this conversation (its answers are not stored)."""
        if self.busy:
            self.cancel_turn()
        self.conversation_id = summary.conversation_id
        self.chat.clear()
        self.chat.add_note(CONTINUING.format(title=summary.title, question=summary.last_question))
        self.tabs.setCurrentIndex(0)
        self.question_box.setFocus()
        session, key, chosen = self.session, summary.key, summary.conversation_id
        if session is not None:  # its earlier turns, read back from the traces, go above the note
            operations.run(lambda task: session.history(key), on_success=lambda turns: self._show_past(chosen, turns),
                           on_failure=lambda err: log.warning("past turns not read: %s", err), name="history")

    def _show_past(self, conversation_id: str, turns) -> None:
        if conversation_id != self.conversation_id:
            return  # another conversation was chosen meanwhile
        for turn, citations in turns:
            self.chat.add_past(turn.question, PastAnswer(turn.decision, turn.reason, citations, when(turn.asked_at),
                                                         self._drug_title, answer=turn.answer,
                                                         question=turn.question), turn.index_id)
        self.past_shown.emit(len(turns))

    def _conversation_deleted(self, key: str) -> None:
        if store_key(self.conversation_id) == key:
            self.new_conversation()

    @staticmethod
    def _system_text_pt() -> float:
        return QApplication.font().pointSizeF() if QApplication.font().pointSizeF() > 0 else 10.0

    def show_settings(self) -> SettingsDialog:
        dialog = SettingsDialog(self, in_use=in_use.in_use(self.settings))
        dialog.setFont(self.font())
        dialog.saved.connect(self.settings_saved)
        dialog.show()
        return dialog

    def settings_saved(self, changed: dict) -> None:
        """Apply what the dialog changed: the text size and the PDF at once; the index reopened for the rest."""
        self.settings = self.settings.with_saved(changed)
        if "text_size" in changed:
            self.text_pt = self.settings.text_size or self._system_text_pt()
            style.set_text_size(self, self.text_pt)
        if "pdf_path" in changed:
            self.pdf = self.settings.pdf_path
            pdf = find_pdf(self.settings, self.session.index_dir) if self.session is not None else None
            if pdf is not None:
                self.session.set_pdf(pdf)
                self.load_pdf(pdf)
                self.viewer.set_warning(self.session.pdf_message)
        if any(key in changed for key in REOPEN_KEYS):
            index_dir = default_index(self.settings)
            if index_dir is not None:
                self.reopen(index_dir, remember=False)

    # ---- closing ------------------------------------------------------------------------------------------

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        window_state.save_state(self.settings.data_dir, self.layout_state())
        if self.turn is not None:
            self.turn.cancel()
        operations.wait_all(10000)
        if self.session is not None:
            self.session.close()
            self.session = None
        super().closeEvent(event)
