"""What the window's tests share: a stand-in retrieval service, a scripted assistant, and a shown window over a
Session around an assistant, its index already open (`make_window`: import it into a test module to use it)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before pytest-qt makes the QApplication

from PySide6.QtCore import QEvent, QObject, Qt  # noqa: E402
from PySide6.QtWidgets import QApplication, QLabel, QWidget  # noqa: E402

from duocthu_desktop.app import operations  # noqa: E402
from duocthu_desktop.app.answer_card import AnswerCard  # noqa: E402
from duocthu_desktop.app.main_window import MainWindow  # noqa: E402
from duocthu_desktop.app.session import Session  # noqa: E402
from duocthu_desktop.app.settled import Settling  # noqa: E402
from duocthu_desktop.artifacts import Chunk  # noqa: E402
from duocthu_desktop.payload import AnswerPayload  # noqa: E402
from duocthu_desktop.settings import Settings  # noqa: E402


class FakeService:
    def __init__(self, monographs=(), chunks=()) -> None:
        self.monographs = list(monographs)
        self._chunks = list(chunks)
        self.manifest = None
        self.closed = 0

    def all_chunks(self) -> list[Chunk]:
        return self._chunks

    def close(self) -> None:
        self.closed += 1


class ScriptedAssistant:
    """Answers from a script (question -> payload); `gate`, when set, holds each turn until released."""

    engine_name = "extractive"

    def __init__(self, script, monographs=(), chunks=()) -> None:
        self.script = script
        self.asked: list[tuple[str, str | None]] = []
        self.gate: threading.Event | None = None
        self.service = FakeService(monographs, chunks)

    def ask(self, question: str, conversation_id: str | None = None, cancel=None) -> AnswerPayload:
        self.asked.append((question, conversation_id))
        if self.gate is not None:
            self.gate.wait(10)
        return self.script(question)

    def warm_up(self) -> float:
        return 0.0


def started_window(qtbot, settings: Settings, opener: Callable[[Settings, Path | None], Session]) -> MainWindow:
    """A shown window whose session `opener` makes, once the session is ready (no model warm-up)."""
    window = MainWindow(settings, opener=opener, warm_up=False)
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.session_ready, timeout=5000):
        window.start()
    return window


@pytest.fixture
def make_window(qtbot, tmp_path: Path):
    """A shown window over a Session around `assistant`, its index already open; a turn an assistant's `gate`
    still holds is released when the test ends."""
    made: list = []

    def make(assistant, pdf: Path | None = None, index_dir: Path | None = None, owns_index: bool = True) -> MainWindow:
        settings = Settings(data_dir=tmp_path)
        session = Session(assistant, settings, index_dir, pdf, owns_index=owns_index)
        window = started_window(qtbot, settings, lambda _s, _p: session)
        made.append(assistant)
        return window

    yield make
    for assistant in made:  # no turn left waiting when the test ends
        if getattr(assistant, "gate", None) is not None:
            assistant.gate.set()
    operations.wait_all(5000)


def send(qtbot, window: MainWindow, text: str) -> AnswerCard:
    """Type `text`, press Enter, and return the card once it is shown."""
    with qtbot.waitSignal(window.answer_shown, timeout=10000) as blocker:
        window.question_box.setPlainText(text)
        qtbot.keyClick(window.question_box, Qt.Key.Key_Return)
    return blocker.args[0]


def label_texts(widget) -> list[str]:
    return [label.text() for label in widget.findChildren(QLabel)]


def laid_out(widget: QWidget) -> bool:
    """`widget` and every part of it that settles (app.settled) keep the height of their last layout."""
    if not getattr(widget, "complete", True) or not getattr(widget, "settled", True):
        return False  # before walking every part
    return all(part.settled for part in widget.findChildren(QWidget) if isinstance(part, Settling))


def wait_laid_out(qtbot, *widgets: QWidget, timeout: int = 10000) -> None:
    """Wait until each widget is built and laid out: every part of it settled, then the layouts their settling
    asked for delivered (a layout request is a posted event: under load it can still be queued when the last
    part settles, and would be taken for a later step laying the part out again)."""
    qtbot.waitUntil(lambda: all(laid_out(w) for w in widgets), timeout=timeout)
    drain_layouts()


class _LayoutRequests(QObject):
    seen = False

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.LayoutRequest:
            self.seen = True
        return False


def drain_layouts(passes: int = 50) -> None:
    """Deliver the posted layout requests until a pass delivers none: a layout done posts the next one on its way
    up (a part that settles asks its parent to lay out again). Only layout requests: a card still being built
    takes no step meanwhile; no timer, no waiting."""
    watcher = _LayoutRequests()
    app = QApplication.instance()
    app.installEventFilter(watcher)
    try:
        for _ in range(passes):
            watcher.seen = False
            QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
            if not watcher.seen:
                return
    finally:
        app.removeEventFilter(watcher)
