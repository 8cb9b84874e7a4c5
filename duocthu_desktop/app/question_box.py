"""The question box: Enter sends, Shift+Enter breaks the line."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QPlainTextEdit

PLACEHOLDER = "Nhập câu hỏi về thuốc (Enter để gửi, Shift+Enter để xuống dòng)…"


class QuestionBox(QPlainTextEdit):
    submitted = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setPlaceholderText(PLACEHOLDER)
        self.setTabChangesFocus(True)
        self.setAccessibleName("Ô nhập câu hỏi")
        self.setFixedHeight(self.fontMetrics().lineSpacing() * 3 + 16)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if enter and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            self.submit()
            return
        super().keyPressEvent(event)

    def submit(self) -> None:
        text = self.toPlainText().strip()
        if text:
            self.submitted.emit(text)
