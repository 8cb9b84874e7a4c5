"""The conversation: questions and answer cards, newest at the bottom, in a scroll area."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QScrollArea, QVBoxLayout, QWidget

from duocthu_desktop.app import style
from duocthu_desktop.app.answer_card import AnswerCard, PastAnswer, QuestionBubble
from duocthu_desktop.payload import AnswerPayload

WELCOME = (
    "Hỏi về liều dùng, chỉ định, chống chỉ định, tương tác, thời kỳ mang thai/cho con bú… của một thuốc trong "
    "Dược thư. Mỗi ý trả lời có số trang sách; bấm vào số trang để mở trang đó bên cạnh."
)


class ChatView(QScrollArea):
    citation_clicked = Signal(object, object)  # Citation, the identity of the index its card was answered from
    reply_clicked = Signal(str)
    cleared = Signal()  # every card gone (a new or a past conversation): no chip shown names an open page now

    def __init__(self, drug_title: Callable[[str], str | None] | None = None, parent=None) -> None:
        super().__init__(parent)
        self.drug_title = drug_title
        self.cards: list[AnswerCard] = []
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)  # a narrow chat scrolls, not clips
        # always there: a scroll bar that appears once the chat outgrows the view narrows it, and every card's
        # wrapped text is laid out again at the new width (about 190 ms for five cards, bench/app_bench.py)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.setFrameShape(QFrame.Shape.NoFrame)
        body = QWidget()
        body.setAttribute(Qt.WidgetAttribute.WA_StaticContents)  # paints nothing itself: growing repaints nothing
        self._layout = QVBoxLayout(body)
        self._layout.setContentsMargins(8, 8, 8, 8)
        self._layout.setSpacing(10)
        self._layout.addStretch(1)
        self.setWidget(body)
        self._target: QWidget | None = None
        self._last_question: QWidget | None = None
        self._settle = QTimer(self)  # while active, a growing scroll range re-applies the last scroll
        self._settle.setSingleShot(True)
        self._settle.setInterval(400)
        self.verticalScrollBar().rangeChanged.connect(self._scroll)
        self.past: list[PastAnswer] = []
        self.add_note(WELCOME)
        self._past_at = self._layout.count() - 1  # where a continued conversation's past turns go

    def _append(self, widget: QWidget, show_from: QWidget | None = None, at: int | None = None) -> None:
        """Add `widget` (at the end, or at position `at`) and bring it into view: from the top of `show_from` (an
        answer is read from its question down), else the bottom. Applied again as the layout settles and the
        scroll range grows."""
        self._layout.insertWidget(self._layout.count() - 1 if at is None else at, widget)
        self._target = show_from
        self._settle.start()
        QTimer.singleShot(0, self._scroll)

    def _scroll(self, *_args) -> None:
        if not self._settle.isActive():
            return
        bar = self.verticalScrollBar()
        target = self._target
        bar.setValue(min(bar.maximum(), target.y() - 6) if target is not None else bar.maximum())

    def add_question(self, text: str) -> QuestionBubble:
        bubble = QuestionBubble(text)
        self._append(bubble)
        self._last_question = bubble
        return bubble

    def add_answer(self, payload: AnswerPayload, question: str = "", to_check: set[int] | None = None,
                   index_id: str | None = None) -> AnswerCard:
        for card in self.cards:
            card.disable_replies()
        card = AnswerCard(payload, question, self.drug_title, to_check, stepwise=True)
        card.citation_clicked.connect(lambda citation: self.citation_clicked.emit(citation, index_id))
        card.reply_clicked.connect(self.reply_clicked)
        self.cards.append(card)
        self._append(card, show_from=self._last_question or card)
        return card

    def replace_answer(self, old: AnswerCard, payload: AnswerPayload, to_check: set[int] | None = None,
                       index_id: str | None = None) -> AnswerCard:
        """A new card for `payload` where `old` stood (the book's answer, replaced by the model's checked wording
        or kept with the line saying why), without moving the view the person is reading."""
        card = AnswerCard(payload, old.question, self.drug_title, to_check, stepwise=True)
        card.citation_clicked.connect(lambda citation: self.citation_clicked.emit(citation, index_id))
        card.reply_clicked.connect(self.reply_clicked)
        self._layout.insertWidget(self._layout.indexOf(old), card)
        self._layout.removeWidget(old)
        old.hide()
        old.deleteLater()
        self.cards[self.cards.index(old)] = card
        return card

    def add_past(self, question: str, answer: PastAnswer, index_id: str | None = None) -> None:
        """A past turn of a continued conversation, above the note that says it continues (after the welcome)."""
        bubble = QuestionBubble(question)
        for widget in (bubble, answer):
            self._append(widget, at=self._past_at)
            self._past_at += 1
        answer.citation_clicked.connect(lambda citation: self.citation_clicked.emit(citation, index_id))
        self.past.append(answer)

    def mark_open(self, citation) -> None:
        """Outline the chips of the citation the viewer shows, so the reader sees which one is open."""
        for card in (*self.cards, *self.past):
            for chip in card.chips:
                chip.set_active(chip.citation is citation)  # repaints only the chips that change

    def add_note(self, text: str) -> QLabel:
        label = QLabel(text)
        label.setWordWrap(True)
        label.setObjectName("note")
        style.emphasise(label, style.NOTE_FG, italic=True)
        self._append(label)
        return label

    def clear(self) -> None:
        while self._layout.count() > 1:
            item = self._layout.takeAt(0)
            if item.widget() is not None:
                item.widget().hide()  # gone from view now, not when the event loop deletes it
                item.widget().deleteLater()
        self.cards.clear()
        self.past.clear()
        self._last_question = None
        self.add_note(WELCOME)
        self._past_at = self._layout.count() - 1
        self.cleared.emit()

    def add_button(self, text: str, slot) -> QPushButton:
        button = QPushButton(text)
        button.clicked.connect(slot)
        self._append(button)
        return button
