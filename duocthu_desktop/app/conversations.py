"""The side list of past conversations: the core's conversation store, read and changed through app.operations.

The store keeps each conversation's clinical frame (masked), so picking one continues it (the next question is
read as its follow-up); its earlier answers come back from the turn traces, as they were shown (app.history).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from duocthu_desktop.app import operations, style
from duocthu_desktop.qa.conversation.memory import ConversationStore, ConversationSummary, store_key

LANE = "conversations"  # the store is a small SQLite file: its reads never wait behind a turn
HEADING = "Hội thoại"
NEW, RENAME, DELETE = "Mới", "Đổi tên", "Xóa"
RENAME_TITLE, RENAME_LABEL = "Đổi tên hội thoại", "Tên mới (để trống: dùng câu hỏi đầu tiên):"
DELETE_TITLE = "Xóa hội thoại"
DELETE_ASK = "Xóa hội thoại «{title}»? Không thể hoàn tác."
EMPTY = "Chưa có hội thoại nào."
NO_STORE = "Không đọc được danh sách hội thoại."
ITEM = "{title}\n{when} · {turns} lượt"
TIP = "Câu hỏi gần nhất (đã che thông tin cá nhân): {question}"


def when(stamp: float, now: float | None = None) -> str:
    """Today's time as "14:05", an earlier day as "28/11 14:05", another year with its year."""
    local, today = time.localtime(stamp), time.localtime(now if now is not None else time.time())
    if local[:3] == today[:3]:
        return time.strftime("%H:%M", local)
    return time.strftime("%d/%m %H:%M" if local.tm_year == today.tm_year else "%d/%m/%Y", local)


class ConversationList(QWidget):
    """Past conversations, latest first. Enter or a click continues one; F2 renames it; Delete deletes it."""

    chosen = Signal(object)  # the ConversationSummary to continue
    new_requested = Signal()
    deleted = Signal(str)  # the deleted conversation's key
    refreshed = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.store: ConversationStore | None = None
        self.current_key: str | None = None
        self.summaries: list[ConversationSummary] = []
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.itemActivated.connect(self._activated)
        self.list.itemClicked.connect(self._activated)
        self.empty = QLabel(EMPTY)
        self.empty.setWordWrap(True)
        self.new_button, self.rename_button, self.delete_button = (QPushButton(t) for t in (NEW, RENAME, DELETE))
        self.new_button.clicked.connect(self.new_requested)
        self.rename_button.clicked.connect(lambda: self.rename())
        self.delete_button.clicked.connect(lambda: self.delete())
        QShortcut(QKeySequence(Qt.Key.Key_F2), self.list, self.rename, context=Qt.ShortcutContext.WidgetShortcut)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), self.list, self.delete,
                  context=Qt.ShortcutContext.WidgetShortcut)
        buttons = QHBoxLayout()
        for button in (self.new_button, self.rename_button, self.delete_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        heading = QLabel(HEADING)
        heading.setObjectName("blockTitle")
        style.emphasise(heading, bold=True)
        layout.addWidget(heading)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.empty)
        layout.addLayout(buttons)
        self._show([])

    # ---- reading the store ------------------------------------------------------------------------------------

    def set_store(self, store: ConversationStore | None) -> None:
        self.store = store
        self.refresh()

    def set_current(self, conversation_id: str | None) -> None:
        """Mark the conversation the chat is in (a new one is not listed until its first turn is stored)."""
        self.current_key = store_key(conversation_id) if conversation_id else None
        self._mark_current()

    def refresh(self) -> operations.Operation | None:
        store = self.store
        if store is None:
            self._show([])
            return None
        return operations.run(lambda task: store.recent(), on_success=self._show,
                              on_failure=lambda err: self._show([], NO_STORE), lane=LANE, name="conversations")

    def _show(self, summaries: list[ConversationSummary], empty: str = EMPTY) -> None:
        chosen = self.selected()
        self.summaries = list(summaries)
        self.list.clear()
        for summary in self.summaries:
            item = QListWidgetItem(ITEM.format(title=summary.title, when=when(summary.updated),
                                               turns=summary.turns))
            item.setData(Qt.ItemDataRole.UserRole, summary)
            item.setToolTip(TIP.format(question=summary.last_question))
            self.list.addItem(item)
            if chosen is not None and summary.key == chosen.key:  # a refresh keeps the row a person is on
                self.list.setCurrentItem(item)
        self.empty.setText(empty)
        self.empty.setVisible(not self.summaries)
        self._mark_current()
        self.refreshed.emit()

    def _mark_current(self) -> None:
        for row in range(self.list.count()):
            item = self.list.item(row)
            bold = item.data(Qt.ItemDataRole.UserRole).key == self.current_key
            font = item.font()
            if font.bold() != bold:  # a changed item relays the list out: only the ones that change
                font.setBold(bold)
                item.setFont(font)

    def titles(self) -> list[str]:
        return [s.title for s in self.summaries]

    # ---- acting on one ----------------------------------------------------------------------------------------

    def selected(self) -> ConversationSummary | None:
        item = self.list.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else None

    def select(self, key: str) -> bool:
        """Continue the conversation with this key, as a click on it would."""
        for row in range(self.list.count()):
            if self.list.item(row).data(Qt.ItemDataRole.UserRole).key == key:
                self.list.setCurrentRow(row)
                self._activated(self.list.item(row))
                return True
        return False

    def _activated(self, item: QListWidgetItem) -> None:
        summary = item.data(Qt.ItemDataRole.UserRole)
        if summary.key == self.current_key:
            return  # already the chat's conversation (a click also activates, on some platforms)
        self.current_key = summary.key
        self._mark_current()
        self.chosen.emit(summary)

    def rename(self, title: str | None = None) -> operations.Operation | None:
        summary, store = self.selected(), self.store
        if summary is None or store is None:
            return None
        if title is None:
            title, ok = QInputDialog.getText(self, RENAME_TITLE, RENAME_LABEL, text=summary.title)
            if not ok:
                return None
        return self._change(lambda: store.rename(summary.conversation_id, title), "rename")

    def delete(self, confirm: bool = True) -> operations.Operation | None:
        summary, store = self.selected(), self.store
        if summary is None or store is None:
            return None
        if confirm:
            answer = QMessageBox.question(self, DELETE_TITLE, DELETE_ASK.format(title=summary.title))
            if answer != QMessageBox.StandardButton.Yes:
                return None

        def done(_ok) -> None:
            self.deleted.emit(summary.key)
            self.refresh()

        return operations.run(lambda task: store.forget(summary.conversation_id), on_success=done,
                              on_failure=lambda err: self.refresh(), lane=LANE, name="conversation-delete")

    def _change(self, work: Callable[[], bool], name: str) -> operations.Operation:
        return operations.run(lambda task: work(), on_success=lambda _ok: self.refresh(),
                              on_failure=lambda err: self.refresh(), lane=LANE, name=f"conversation-{name}")


def beside(conversations: ConversationList, chat: QWidget) -> QSplitter:
    """The list at the chat's left, narrow, which a person can drag wider or shut."""
    splitter = QSplitter(Qt.Orientation.Horizontal)
    splitter.addWidget(conversations)
    splitter.addWidget(chat)
    splitter.setStretchFactor(0, 0)  # a wider window widens the chat, not the list
    splitter.setStretchFactor(1, 1)
    splitter.setSizes([170, 450])
    return splitter
