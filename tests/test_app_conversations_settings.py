"""The window's list of past conversations and its settings dialog, off-screen with pytest-qt: a scripted
assistant that remembers turns in a real ConversationStore, and a settings file in a temporary config folder."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before pytest-qt makes the QApplication

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QDialogButtonBox, QInputDialog, QLabel, QMessageBox  # noqa: E402

from duocthu_desktop.app import operations, settings_dialog  # noqa: E402
from duocthu_desktop.app.main_window import MainWindow  # noqa: E402
from duocthu_desktop.app.session import Session, default_index, find_pdf  # noqa: E402
from duocthu_desktop.app.settings_dialog import NOT_FILE, PDF  # noqa: E402
from duocthu_desktop.messages import DISCLAIMER, message_for  # noqa: E402
from duocthu_desktop.payload import AnswerPayload  # noqa: E402
from duocthu_desktop.qa.conversation.memory import ConversationStore, store_key  # noqa: E402
from duocthu_desktop.qa.understanding.frame import QueryFrame  # noqa: E402
from duocthu_desktop.settings import ENV_CONFIG_DIR, ENV_DATA_DIR, ENV_INDEX, Settings, apply_threads  # noqa: E402
from tests.app_fixtures import FakeService, started_window  # noqa: E402


class RememberingAssistant:
    """Answers every turn with a clarification and remembers it in `conversations`, as Assistant.ask does."""

    engine_name = "extractive"

    def __init__(self, store: ConversationStore) -> None:
        self.conversations = store
        self.service = FakeService()
        self.asked: list[tuple[str, str | None]] = []

    def ask(self, question: str, conversation_id: str | None = None, cancel=None) -> AnswerPayload:
        self.asked.append((question, conversation_id))
        prior = self.conversations.load(conversation_id) if conversation_id else None
        said = f"{prior.frame.question} {question}" if prior is not None else question
        payload = AnswerPayload(decision="clarify", reason="missing_route", message=message_for("missing_route"),
                                quick_replies=["Uống"], disclaimer=DISCLAIMER)
        if conversation_id:
            self.conversations.save(conversation_id, QueryFrame(question=said), payload.decision, payload.reason)
        return payload

    def warm_up(self) -> float:
        return 0.0


@pytest.fixture
def config(tmp_path: Path, monkeypatch) -> Path:
    """A settings file of this test's own (none of the machine's settings, environment or data read)."""
    monkeypatch.setenv(ENV_CONFIG_DIR, str(tmp_path / "config"))
    monkeypatch.setenv(ENV_DATA_DIR, str(tmp_path / "data"))
    monkeypatch.delenv(ENV_INDEX, raising=False)
    return tmp_path / "config" / "settings.json"


@pytest.fixture
def start_window(qtbot, tmp_path: Path):
    """A shown window whose opener builds a Session around the assistant the way Session.open does (the index
    from settings, the PDF found through settings), recording the settings each opening was given."""
    def start(assistant, settings: Settings | None = None) -> MainWindow:
        opened: list[Settings] = []

        def opener(given: Settings, pdf: Path | None) -> Session:
            opened.append(given)
            index_dir = default_index(given)
            return Session(assistant, given, index_dir, find_pdf(given, index_dir, pdf))

        window = started_window(qtbot, settings or Settings.load(), opener)
        window.opened = opened
        return window

    yield start
    operations.wait_all(5000)


def send(qtbot, window: MainWindow, text: str) -> None:
    with qtbot.waitSignals([window.answer_shown, window.conversations.refreshed], timeout=10000):
        window.question_box.setPlainText(text)
        qtbot.keyClick(window.question_box, Qt.Key.Key_Return)


# ---- settings -------------------------------------------------------------------------------------------------


def test_settings_saved_in_the_dialog_survive_a_restart(qtbot, config, start_window, tmp_path, sample_pdf):
    index_dir, model = tmp_path / "my-index", tmp_path / "model.gguf"
    index_dir.mkdir()
    model.write_bytes(b"GGUF")
    store = ConversationStore(tmp_path / "c.sqlite3")
    window = start_window(RememberingAssistant(store))
    dialog = window.show_settings()
    assert dialog.pdf.text() == "" and dialog.threads.text() == "Tự động"
    dialog.pdf.setText(str(sample_pdf))
    dialog.index.setText(str(index_dir))
    dialog.engine.setCurrentIndex(dialog.engine.findData("generative"))
    dialog.model.setText(str(model))
    dialog.threads.setValue(2)
    dialog.text_size.setValue(14)
    with qtbot.waitSignal(window.session_ready, timeout=5000):  # a new index folder: the index is opened again
        qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Save), Qt.MouseButton.LeftButton)
    assert not dialog.isVisible() and window.text_pt == 14
    assert window.opened[-1].index_dir == index_dir and window.session.pdf_path == sample_pdf
    saved = json.loads(config.read_text(encoding="utf-8"))
    assert saved == {"pdf_path": str(sample_pdf), "index_dir": str(index_dir), "engine": "generative",
                     "gguf_model": str(model), "threads": 2, "text_size": 14.0}
    window.close()

    again = start_window(RememberingAssistant(store))  # a restart: settings read from the file only
    given = again.opened[0]
    assert (given.pdf_path, given.index_dir, given.engine, given.gguf_model, given.threads) == (
        sample_pdf, index_dir, "generative", model, 2)
    assert again.text_pt == 14 and again.session.pdf_path == sample_pdf  # the settings' PDF is the one opened
    reopened = again.show_settings()
    assert reopened.pdf.text() == str(sample_pdf) and reopened.threads.value() == 2
    assert reopened.engine.currentData() == "generative" and reopened.text_size.value() == 14


def test_the_dialog_says_what_is_in_use_and_saving_never_writes_a_one_off_index(qtbot, config, start_window,
                                                                                 tmp_path, monkeypatch):
    """The issue's case: run on `--index` with DUOCTHU_DATA_DIR set, the dialog said "(chỉ mục mẫu)", left the
    GGUF blank, and saving the engine switch wrote the flag's folder and the data folder into settings.json."""
    from duocthu_desktop.settings import ENV_MODELS_DIR
    from models import gguf

    monkeypatch.setenv(ENV_MODELS_DIR, str(tmp_path / "models"))
    default = tmp_path / "models" / "gguf" / gguf.DEFAULT.file_name
    default.parent.mkdir(parents=True)
    default.write_bytes(b"GGUF")
    one_off = tmp_path / "one-off-index"
    one_off.mkdir()
    window = start_window(RememberingAssistant(ConversationStore(tmp_path / "c.sqlite3")), Settings.load(index=one_off))
    dialog = window.show_settings()
    qtbot.addWidget(dialog)
    index_said = dialog.in_use_labels["index_dir"].text()
    assert str(one_off) in index_said and "Nguồn: tham số dòng lệnh" in index_said
    assert dialog.index.text() == ""  # the field is the saved setting, which the flag did not change
    model_said = dialog.in_use_labels["gguf_model"].text().splitlines()
    assert model_said[:2] == [f"{gguf.DEFAULT.label} — có", str(default)]
    assert dialog.model.placeholderText() == f"(mặc định: {gguf.DEFAULT.label})"
    assert "DUOCTHU_DATA_DIR" in dialog.in_use_labels["data_dir"].text()
    dialog.engine.setCurrentIndex(dialog.engine.findData("generative"))
    with qtbot.waitSignal(window.session_ready, timeout=5000):  # the engine changed: the index is opened again
        qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Save), Qt.MouseButton.LeftButton)
    assert json.loads(config.read_text(encoding="utf-8")) == {"engine": "generative"}
    assert window.opened[-1].index_dir == one_off and window.settings.source_of("index_dir") == "flag"
    assert window.settings.source_of("engine") == "saved"
    again = window.show_settings()
    qtbot.addWidget(again)
    assert "Nguồn: tham số dòng lệnh" in again.in_use_labels["index_dir"].text()


def test_a_field_that_cannot_be_used_is_said_and_nothing_is_saved(qtbot, config, start_window, tmp_path,
                                                                   monkeypatch):
    monkeypatch.setattr(settings_dialog, "default_gguf", lambda: tmp_path / "not-prepared.gguf")
    window = start_window(RememberingAssistant(ConversationStore(tmp_path / "c.sqlite3")))
    dialog = window.show_settings()
    missing = tmp_path / "nowhere.pdf"
    dialog.pdf.setText(str(missing))
    dialog.engine.setCurrentIndex(dialog.engine.findData("generative"))
    assert not dialog.save()
    assert dialog.isVisible() and NOT_FILE.format(what=PDF, path=missing) in dialog.error.text()
    assert "GGUF" in dialog.error.text() and not config.exists()


def test_a_broken_settings_file_is_read_with_a_warning(qtbot, config, start_window, tmp_path, caplog):
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"threads": "nhiều", "colour": "xanh", "text_size": 13}), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="duocthu_desktop.settings"):
        window = start_window(RememberingAssistant(ConversationStore(tmp_path / "c.sqlite3")))
    assert window.text_pt == 13 and window.settings.threads is None
    assert "unknown key 'colour'" in caplog.text and "bad value for 'threads'" in caplog.text
    dialog = window.show_settings()
    dialog.text_size.setValue(12)
    assert dialog.save()
    assert json.loads(config.read_text(encoding="utf-8")) == {"engine": "extractive", "text_size": 12.0}


def test_saved_threads_reach_the_embedder_unless_the_environment_says(monkeypatch):
    monkeypatch.delenv("DUOCTHU_TORCH_THREADS", raising=False)
    apply_threads(Settings(threads=3))
    assert os.environ["DUOCTHU_TORCH_THREADS"] == "3"
    apply_threads(Settings(threads=1))
    assert os.environ["DUOCTHU_TORCH_THREADS"] == "3"


# ---- past conversations ---------------------------------------------------------------------------------------


@pytest.fixture
def with_past(tmp_path: Path) -> ConversationStore:
    store = ConversationStore(tmp_path / "c.sqlite3")
    store.save("earlier-1", QueryFrame(question="Liều metformin cho người suy thận?"), "clarify", "missing_route")
    store.save("earlier-2", QueryFrame(question="Chống chỉ định của aspirin?"), "answerable", None)
    return store


def shown(window: MainWindow) -> list[str]:
    return [window.conversations.list.item(i).text().split("\n")[0] for i in range(window.conversations.list.count())]


def test_the_list_shows_past_conversations_and_the_new_one(qtbot, config, start_window, with_past):
    window = start_window(RememberingAssistant(with_past))
    qtbot.waitUntil(lambda: window.conversations.list.count() == 2, timeout=5000)
    assert shown(window) == ["Chống chỉ định của aspirin?", "Liều metformin cho người suy thận?"]
    send(qtbot, window, "Liều paracetamol cho trẻ em?")
    assert shown(window)[0] == "Liều paracetamol cho trẻ em?" and len(shown(window)) == 3
    first = window.conversations.list.item(0)
    assert first.font().bold() and not window.conversations.list.item(1).font().bold()
    qtbot.mouseClick(window.conversations.new_button, Qt.MouseButton.LeftButton)
    assert not first.font().bold() and window.conversations.current_key is None


def test_selecting_a_past_conversation_continues_it(qtbot, config, start_window, with_past):
    assistant = RememberingAssistant(with_past)
    window = start_window(assistant)
    qtbot.waitUntil(lambda: window.conversations.list.count() == 2, timeout=5000)
    item = window.conversations.list.item(1)
    rect = window.conversations.list.visualItemRect(item)
    qtbot.mouseClick(window.conversations.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    notes = [label.text() for label in window.chat.findChildren(QLabel)]
    assert any("Tiếp tục hội thoại «Liều metformin cho người suy thận?»" in text for text in notes)
    send(qtbot, window, "Uống")
    question, conversation = assistant.asked[-1]
    assert question == "Uống" and store_key(conversation) == store_key("earlier-1")
    remembered = with_past.load("earlier-1")
    assert remembered.turns == 2 and remembered.frame.question == "Liều metformin cho người suy thận? Uống"
    assert shown(window)[0] == "Liều metformin cho người suy thận?" and len(shown(window)) == 2


def test_rename_and_delete_from_the_list(qtbot, config, start_window, with_past, monkeypatch):
    window = start_window(RememberingAssistant(with_past))
    qtbot.waitUntil(lambda: window.conversations.list.count() == 2, timeout=5000)
    window.conversations.select(store_key("earlier-2"))
    assert store_key(window.conversation_id) == store_key("earlier-2")
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("Aspirin — chống chỉ định", True))
    with qtbot.waitSignal(window.conversations.refreshed, timeout=5000):
        qtbot.mouseClick(window.conversations.rename_button, Qt.MouseButton.LeftButton)
    assert shown(window)[0] == "Aspirin — chống chỉ định"
    assert with_past.recent()[0].title == "Aspirin — chống chỉ định"
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    with qtbot.waitSignal(window.conversations.refreshed, timeout=5000):
        qtbot.mouseClick(window.conversations.delete_button, Qt.MouseButton.LeftButton)
    assert shown(window) == ["Liều metformin cho người suy thận?"]
    assert with_past.load("earlier-2") is None
    assert store_key(window.conversation_id) != store_key("earlier-2")  # the chat left the deleted conversation
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.No)
    window.conversations.list.setCurrentRow(0)
    assert window.conversations.delete() is None and with_past.load("earlier-1") is not None


class ChunkService(FakeService):
    def __init__(self, chunks: list) -> None:
        self._chunks = list(chunks)

    def all_chunks(self) -> list:
        return self._chunks


class TracingAssistant(RememberingAssistant):
    """RememberingAssistant with a real trace store and the chunks its traced turns cited."""

    def __init__(self, store: ConversationStore, traces, chunks: list) -> None:
        super().__init__(store)
        self.traces = traces
        self.service = ChunkService(chunks)


def test_a_continued_conversation_shows_its_earlier_turns_and_what_they_cited(
        qtbot, config, start_window, with_past, tmp_path):
    from duocthu_desktop.app.answer_card import PAST_DECISIONS, QuestionBubble
    from duocthu_desktop.artifacts import Chunk
    from duocthu_desktop.payload import Block, Citation, Claim
    from duocthu_desktop.qa.conversation.memory import handle
    from duocthu_desktop.qa.conversation.traces import TraceStore

    text = "Người lớn: uống 500 mg mỗi lần, ngày 2 lần. Suy thận: giảm liều."
    chunk = Chunk(chunk_id="metformin/lieu/0", drug_id="metformin", section_key="lieu_luong_cach_dung",
                  part_index=0, text=text, printed_pages=[990], physical_pages=[12], page_spans=[[12, 0, len(text)]])
    cite = Citation(index=1, chunk_id=chunk.chunk_id, drug_id="metformin", section_key="lieu_luong_cach_dung",
                    printed_page=990, physical_page=12, quote="uống 500 mg mỗi lần")
    again = cite.model_copy(update={"index": 2, "quote": "Suy thận: giảm liều."})  # the same passage, cited twice
    answered = AnswerPayload(decision="answerable", citations=[cite, again], disclaimer=DISCLAIMER,
                             blocks=[Block(title="Metformin — Người lớn · uống", kind="dosage",
                                           claims=[Claim(text=c.quote, citations=[c.index]) for c in (cite, again)])])
    clarified = AnswerPayload(decision="clarify", reason="missing_route", message=message_for("missing_route"),
                              disclaimer=DISCLAIMER)
    traces = TraceStore(tmp_path / "traces.sqlite3")
    # the first turn under the id the app made, the second after the conversation was continued once already
    traces.record("Liều metformin cho người suy thận?", QueryFrame(question="x"), clarified, {}, "earlier-1")
    traces.record("Uống", QueryFrame(question="x"), answered, {}, handle(store_key("earlier-1")))
    traces.record("Chống chỉ định của aspirin?", QueryFrame(question="x"), clarified, {}, "earlier-2")
    window = start_window(TracingAssistant(with_past, traces, [chunk]))
    qtbot.waitUntil(lambda: window.conversations.list.count() == 2, timeout=5000)
    with qtbot.waitSignal(window.past_shown, timeout=5000) as shown:
        window.conversations.select(store_key("earlier-1"))
    assert shown.args == [2]
    bubbles = [bubble.findChild(QLabel).text() for bubble in window.chat.findChildren(QuestionBubble)]
    assert bubbles == ["Liều metformin cho người suy thận?", "Uống"]  # not the other conversation's
    first, second = window.chat.past
    assert first.findChild(QLabel, "pastHeading").text().startswith(PAST_DECISIONS["clarify"])
    assert message_for("missing_route") in [label.text() for label in first.findChildren(QLabel)]
    assert second.findChild(QLabel, "pastHeading").text().startswith(PAST_DECISIONS["answerable"])
    # the answer as it was shown: its claims, and its chips numbered and quoting as they did
    qtbot.waitUntil(lambda: second.card.complete, timeout=5000)
    claims = [label.text() for label in second.findChildren(QLabel, "claim")]
    assert claims == ["uống 500 mg mỗi lần", "Suy thận: giảm liều."]
    assert [c.text() for c in second.chips] == ["[1] tr. 990", "[2] tr. 990"]
    chip = second.chips[1]
    assert chip.citation.quote == "Suy thận: giảm liều." and chip.citation.physical_page == 12  # not the section
    assert DISCLAIMER in [label.text() for label in second.findChildren(QLabel)]
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    assert window.viewer.citation is chip.citation and chip.property("open")
    layout = window.chat.widget().layout()
    order = [layout.itemAt(i).widget() for i in range(layout.count() - 1)]
    note = next(w for w in order if isinstance(w, QLabel) and w.text().startswith("Tiếp tục hội thoại"))
    assert order.index(second) < order.index(note)  # the earlier turns above the note that it continues


def test_a_generative_engine_with_no_loadable_model_is_said_in_the_status_bar(qtbot, config, start_window, tmp_path):
    assistant = RememberingAssistant(ConversationStore(tmp_path / "c.sqlite3"))
    assistant.engine_name = "generative"
    assistant.engine_error = "no GGUF model at /nowhere.gguf: run `duocthu-models prepare` or pass --model GGUF"
    window = start_window(assistant)
    assert "mô hình ngôn ngữ — KHÔNG dùng được" in window.status_label.text()
    assert "/nowhere.gguf" in window.status_label.toolTip()


def test_every_line_of_what_is_in_use_is_shown_at_the_dialogs_width(qtbot, config, tmp_path):
    """At 1024x700 under Xvfb the "Đang dùng" rows were cut to their first line (a source's "không lưu", the
    GGUF's file name): the dialog's height counted each wrapped label as one line."""
    from duocthu_desktop.app.settings_dialog import SettingsDialog
    from duocthu_desktop.settings import InUse

    deep = "/root/.cache/duocthu/models/gguf/qwen2.5-coder-1.5b-instruct-q4_k_m-a-long-file-name.gguf"
    items = [InUse(key="index_dir", value="/root/.local/share/duocthu/sample-index-20261201-2230", source="environment",
                   present=True),
             InUse(key="gguf_model", value=deep, source="default", present=True, name="Qwen2.5-Coder-1.5B",
                   value_is_own=False),
             InUse(key="data_dir", value=str(tmp_path / "data" / "a-folder-with-a-long-name"), source="environment",
                   present=True)]
    dialog = SettingsDialog(in_use=items)
    qtbot.addWidget(dialog)
    dialog.resize(560, 300)  # as small as a window manager may first make it
    dialog.show()
    qtbot.waitExposed(dialog)
    labels = list(dialog.in_use_labels.values())
    qtbot.waitUntil(lambda: all(lb.height() >= lb.heightForWidth(lb.width()) for lb in labels), timeout=3000)
    assert all(lb.heightForWidth(lb.width()) > lb.fontMetrics().height() * 1.5 for lb in labels)  # wrapped
