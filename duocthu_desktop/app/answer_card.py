"""One turn of the chat: the question as typed, and the answer card built from its payload.

The card only shows what the payload says: blocks with their titles (group and route as coloured tags), each
claim with its citation chips, the clarifying question's quick replies, an abstention in its own grey style, the
verify-PDF notice with a button for each page to check, the disclaimer, and "Sao chép".
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from duocthu_desktop.app import style
from duocthu_desktop.app.answer_text import page_label, plain_text, title_parts
from duocthu_desktop.payload import AnswerPayload, Citation

ABSTAIN_HEADING = "Không trả lời được câu hỏi này"
VERIFY_HEADING = "Cần đối chiếu trang PDF"
COPY = "Sao chép"
COPIED = "Đã sao chép"
OPEN_PAGE = "Mở {page}"
TAG_COLOURS = {  # (text, background): the group and the route stand out, the rest is quiet
    "population": ("white", style.POPULATION),
    "route": ("white", style.ROUTE),
    "other": ("#333333", "#e8e8e8"),
}


def tags_html(parts) -> str:
    """A block title's parts as coloured tags in one word-wrapped label (a row of widgets would not wrap and
    would widen the whole chat)."""
    spans = []
    for part in parts:
        colour, background = TAG_COLOURS[part.kind]
        weight = "bold" if part.kind != "other" else "normal"
        text = html.escape(part.text).replace(" ", "&nbsp;")
        spans.append(f'<span style="color:{colour}; background-color:{background}; font-weight:{weight};">'
                     f"&nbsp;{text}&nbsp;</span>")
    return "&nbsp; ".join(spans)


def _label(text: str, name: str = "", rich: bool = False) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    if name:
        label.setObjectName(name)
    return label


class QuestionBubble(QFrame):
    def __init__(self, question: str, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("questionBubble")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.addWidget(_label(question))


class CitationChip(QPushButton):
    """[1] tr. 1120: opens the cited page in the viewer."""

    def __init__(self, citation: Citation, parent=None) -> None:
        super().__init__(f"[{citation.index}] {page_label(citation)}", parent)
        self.citation = citation
        self.setObjectName("chip")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip(" ".join(citation.quote.split())[:300])
        self.setAccessibleName(f"Trích dẫn {citation.index}, {page_label(citation)}")


class AnswerCard(QFrame):
    citation_clicked = Signal(object)  # Citation
    reply_clicked = Signal(str)

    def __init__(self, payload: AnswerPayload, question: str = "",
                 drug_title: Callable[[str], str | None] | None = None, to_check: set[int] | None = None,
                 parent=None) -> None:
        super().__init__(parent)
        self.payload = payload
        self.to_check = to_check or set()  # citation indexes of untrusted text: the pages the notice opens
        self.question = question
        self._drug_title = drug_title
        self.chips: list[CitationChip] = []
        self.reply_buttons: list[QPushButton] = []
        self.page_buttons: list[QPushButton] = []
        self._by_index = {c.index: c for c in payload.citations}
        self._last_head = ""  # a drug named once, not again on each of its dose blocks
        self.setObjectName("answerCard")
        self.setProperty("decision", payload.decision)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 8)
        layout.setSpacing(6)
        if payload.decision == "abstain":
            layout.addWidget(_label(ABSTAIN_HEADING, "abstainHeading"))
            layout.addWidget(_label(payload.message, "abstainMessage"))
        elif payload.decision == "verify_pdf":
            layout.addWidget(self._verify_notice())
        elif payload.message:
            layout.addWidget(_label(payload.message, "message"))
        for block in payload.blocks:
            layout.addWidget(self._block(block))
        if payload.quick_replies:
            layout.addLayout(self._replies())
        layout.addWidget(_label(payload.disclaimer, "disclaimer"))
        layout.addLayout(self._footer())

    # ---- parts --------------------------------------------------------------------------------------------

    def _verify_notice(self) -> QFrame:
        notice = QFrame()
        notice.setObjectName("verifyNotice")
        box = QVBoxLayout(notice)
        box.addWidget(_label(f"<b>{VERIFY_HEADING}</b>", rich=True))
        box.addWidget(_label(self.payload.message))
        row = QHBoxLayout()
        seen: set[int] = set()
        untrusted = [c for c in self.payload.citations if c.index in self.to_check]
        for citation in untrusted or self.payload.citations:
            if citation.physical_page in seen:
                continue
            seen.add(citation.physical_page)
            button = QPushButton(OPEN_PAGE.format(page=page_label(citation)))
            button.clicked.connect(lambda _=False, c=citation: self.citation_clicked.emit(c))
            self.page_buttons.append(button)
            row.addWidget(button)
        row.addStretch(1)
        box.addLayout(row)
        return notice

    def _block(self, block) -> QWidget:
        widget = QWidget()
        box = QVBoxLayout(widget)
        box.setContentsMargins(0, 4, 0, 0)
        box.setSpacing(3)
        head, parts = title_parts(block.title)
        if head != self._last_head or not parts:
            box.addWidget(_label(head if parts else block.title, "blockTitle"))
        self._last_head = head
        if parts:
            tags = _label(tags_html(parts), "tags", rich=True)
            tags.setAccessibleName(" · ".join(part.text for part in parts))
            box.addWidget(tags)
        for claim in block.claims:
            row = QHBoxLayout()
            row.setSpacing(4)
            row.addWidget(_label("•"), 0, Qt.AlignmentFlag.AlignTop)
            row.addWidget(_label(claim.text, "claim"), 1)
            for index in claim.citations:
                citation = self._by_index.get(index)
                if citation is None:
                    continue
                chip = CitationChip(citation)
                chip.clicked.connect(lambda _=False, c=citation: self.citation_clicked.emit(c))
                self.chips.append(chip)
                row.addWidget(chip, 0, Qt.AlignmentFlag.AlignTop)
            box.addLayout(row)
        return widget

    def _replies(self) -> QHBoxLayout:
        row = QHBoxLayout()
        for reply in self.payload.quick_replies:
            button = QPushButton(reply)
            button.setObjectName("quickReply")
            button.clicked.connect(lambda _=False, r=reply: self.reply_clicked.emit(r))
            self.reply_buttons.append(button)
            row.addWidget(button)
        row.addStretch(1)
        return row

    def _footer(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addStretch(1)
        self.copy_button = QPushButton(COPY)
        self.copy_button.setToolTip("Sao chép câu trả lời kèm trích dẫn dưới dạng văn bản")
        self.copy_button.clicked.connect(self.copy)
        row.addWidget(self.copy_button)
        return row

    # ---- actions ------------------------------------------------------------------------------------------

    def copy_text(self) -> str:
        return plain_text(self.payload, self.question, self._drug_title)

    def copy(self) -> None:
        QApplication.clipboard().setText(self.copy_text())
        self.copy_button.setText(COPIED)

    def disable_replies(self) -> None:
        """Once one quick reply is sent, the others of this card are spent."""
        for button in self.reply_buttons:
            button.setEnabled(False)
