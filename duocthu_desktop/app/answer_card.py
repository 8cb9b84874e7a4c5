"""One turn of the chat: the question as typed, and the answer card built from its payload.

The card only shows what the payload says: blocks with their titles (group and route as coloured tags), each
claim with its citation chips, the clarifying question's quick replies, an abstention in its own grey style, the
verify-PDF notice with a button for each page to check, the disclaimer, and "Sao chép".
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from duocthu_desktop.app import style
from duocthu_desktop.app.answer_text import page_label, plain_text, title_parts
from duocthu_desktop.app.flow_layout import FlowLayout
from duocthu_desktop.app.settled import SettledPart, Settling
from duocthu_desktop.messages import DISCLAIMER, message_for
from duocthu_desktop.payload import AnswerBody, AnswerPayload, Citation
from duocthu_desktop.sections import SECTION_BY_KEY

ABSTAIN_HEADING = "Không trả lời được câu hỏi này"
PAST_DECISIONS = {"answerable": "Đã trả lời", "verify_pdf": "Đã trả lời, cần đối chiếu trang PDF",
                  "clarify": "Đã hỏi lại để làm rõ", "abstain": "Không trả lời được"}
PAST_HEADING = "{decision} · {when}"
PAST_NOTE = "Lời trả lời trước đây không được lưu, chỉ lưu các đoạn sách đã trích; hỏi lại để xem đầy đủ."
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
        text = html.escape(part.text)
        if part.kind != "other":  # a group or a route stays in one piece (breaking only after a comma of a
            text = text.replace(" ", "&nbsp;").replace(",&nbsp;", ", ")  # list of routes); an indication wraps
        spans.append(f'<span style="color:{colour}; background-color:{background}; font-weight:{weight};">'
                     f"&nbsp;{text}&nbsp;</span>")
    return "&nbsp; ".join(spans)


class WrappedLabel(QLabel):
    """A word-wrapped label that keeps its height at each width it was asked for. QLabel answers every ask by
    laying its whole text out at that width and then again at the width it had, and one layout pass asks each
    label several times (its row's minimum, its height, the part's height): most of the UI thread's time while
    an answer is shown went to laying the same text out at the same width again (perf, bench/app_bench.py)."""

    _CHANGES = (QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.ContentsRectChange,
                QEvent.Type.LayoutDirectionChange)

    def __init__(self, text: str = "", parent=None) -> None:
        super().__init__(text, parent)
        self._heights: dict[int, int] = {}

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt's name
        height = self._heights.get(width)
        if height is None:
            if len(self._heights) >= 8:  # a window dragged through many widths
                self._heights.clear()
            height = self._heights[width] = super().heightForWidth(width)
        return height

    def forget_heights(self) -> None:
        self._heights.clear()

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        self._heights.clear()
        super().setText(text)

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if event.type() in self._CHANGES:  # the text is laid out anew: another height at each width
            self._heights.clear()
        super().changeEvent(event)


def _label(text: str, name: str = "", rich: bool = False, colour: str | None = None, bold: bool = False,
           selectable: bool = True, label: QLabel | None = None) -> QLabel:
    """A word-wrapped label; selectable ones (the claims, the messages) cost a text document each to lay out and
    paint, so headings and tags are not."""
    label = label or WrappedLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    if name:
        label.setObjectName(name)
    style.emphasise(label, colour, bold=bold)
    if isinstance(label, WrappedLabel):
        label.forget_heights()  # nothing asked yet; the format and flags set above are part of its height
    return label


def _flow_row(spacing: int = 6) -> QWidget:
    """A widget whose buttons wrap onto further rows when the column is narrow (app.flow_layout)."""
    row = QWidget()
    FlowLayout(row, spacing)
    policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
    policy.setHeightForWidth(True)
    row.setSizePolicy(policy)
    return row


def _counts_hidden(widget: QWidget) -> None:
    """Laid out with its size before its (queued) show, so that the card grows to hold it at once (_grow)."""
    policy = widget.sizePolicy()
    policy.setRetainSizeWhenHidden(True)
    widget.setSizePolicy(policy)


def _bullet() -> QLabel:
    return QLabel("•")  # not selectable: a plain label draws without a text document


class QuestionBubble(Settling, style.Panel):
    """The question as typed: final when made, so it settles (app.settled)."""

    _may_settle = True

    def __init__(self, question: str, parent=None) -> None:
        super().__init__(style.QUESTION, parent)
        self.setObjectName("questionBubble")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.addWidget(_label(question))


class CitationChip(style.Pill):
    """[1] tr. 1120: opens the cited page in the viewer."""

    def __init__(self, citation: Citation, parent=None) -> None:
        super().__init__(f"[{citation.index}] {page_label(citation)}", (style.CHIP, style.CHIP_HOVER, style.CHIP_OPEN),
                         parent)
        self.citation = citation
        self.setObjectName("chip")
        self.setToolTip(" ".join(citation.quote.split())[:300])
        self.setAccessibleName(f"Trích dẫn {citation.index}, {page_label(citation)}")


class AnswerCard(Settling, style.Panel):
    """Built in steps: the heading, the disclaimer and "Sao chép" at once, then the claims a few at a time on
    later turns of the event loop (`stepwise`), so a long answer never holds the UI thread in one piece;
    `when_built` runs a callback once every claim and chip is there. Each block settles once its last claim is
    in, and the card once built (app.settled), so that a later step or turn does not lay them out again."""

    citation_clicked = Signal(object)  # Citation
    reply_clicked = Signal(str)
    built = Signal()
    # claims added per step, by the length of their text: showing a selectable label lays its text out several
    # times, a few ms for a long claim on a busy machine, so a step stops once this much text is in
    CHARS_PER_STEP = 300
    # blocks stand in runs of this many, each settling once full: a step lays out the run it adds to and the
    # card's few runs, not every block shown so far (a 120-block answer: 15 runs instead of 120 items a step)
    BLOCKS_PER_RUN = 8

    def __init__(self, payload: AnswerPayload, question: str = "",
                 drug_title: Callable[[str], str | None] | None = None, to_check: set[int] | None = None,
                 parent=None, stepwise: bool = False) -> None:
        super().__init__(style.PANELS.get(payload.decision, style.PANELS["answerable"]), parent)
        self.payload = payload
        self.to_check = to_check or set()  # citation indexes of untrusted text: the pages the notice opens
        self.question = question
        self._drug_title = drug_title
        self.chips: list[CitationChip] = []
        self.reply_buttons: list[QPushButton] = []
        self.page_buttons: list[QPushButton] = []
        self._by_index = {c.index: c for c in payload.citations}
        self._last_head = ""  # a drug named once, not again on each of its dose blocks
        self._run: SettledPart | None = None  # the run of blocks the next block joins
        self._run_blocks = 0
        self.complete = False
        self.setObjectName("answerCard")
        self.setProperty("decision", payload.decision)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 8)
        layout.setSpacing(6)
        if payload.decision == "abstain":
            layout.addWidget(_label(ABSTAIN_HEADING, "abstainHeading", colour=style.ABSTAIN_FG, bold=True,
                                    selectable=False))
            layout.addWidget(_label(payload.message, "abstainMessage", colour=style.ABSTAIN_FG))
        elif payload.decision == "verify_pdf":
            layout.addWidget(self._verify_notice())
        elif payload.message:
            layout.addWidget(_label(payload.message, "message"))
        self._blocks_at = layout.count()  # where the next block goes: above the replies and the disclaimer
        if payload.quick_replies:
            layout.addWidget(self._replies())
        layout.addWidget(_label(payload.disclaimer, "disclaimer", selectable=False,
                                label=style.QuietLabel(payload.disclaimer)))
        layout.addLayout(self._footer())
        self._steps = self._build_steps()
        if stepwise:
            self._step()
        else:
            for _ in self._steps:
                pass
            self._end_run()
            self.complete = True
            self.allow_settle()

    # ---- building in steps --------------------------------------------------------------------------------

    def _build_steps(self):
        for block in self.payload.blocks:
            widget, box = self._block(block)
            part, chars = [], 0
            for n, claim in enumerate(block.claims, 1):
                part.append(claim)
                chars += len(claim.text)
                if chars >= self.CHARS_PER_STEP or n == len(block.claims):
                    self._claims(box, part)
                    self._grow(widget)
                    if n == len(block.claims):
                        widget.allow_settle()
                    yield
                    part, chars = [], 0
            if not block.claims:
                widget.allow_settle()

    def _grow(self, block: QWidget) -> None:
        """The block and the card take their new height at once. Left to Qt, each lays its content out first at
        its old height, squeezing the spacing between the items above the new one by a few pixels, and then again
        at the new height once its parent has re-laid out: every claim on screen moved twice, and was painted
        twice, at each step of a long answer. The parts not yet shown count with the size they will have."""
        for widget in (block, self._run, self):
            width = widget.width()
            if width <= 0 or not widget.isVisible() or widget.settled:
                continue
            height = widget.heightForWidth(width)
            if height > widget.height():
                widget.resize(width, height)

    def _step(self) -> None:
        if next(self._steps, StopIteration) is StopIteration:
            self._end_run()
            self.complete = True
            self.allow_settle()
            self.built.emit()
        else:
            QTimer.singleShot(0, self, self._step)

    def when_built(self, callback: Callable[[], None]) -> None:
        """`callback()` once the card holds every claim (on a later turn of the event loop either way)."""
        if self.complete:
            QTimer.singleShot(0, self, callback)
        else:
            self.built.connect(callback, Qt.ConnectionType.QueuedConnection)

    # ---- parts --------------------------------------------------------------------------------------------

    def _verify_notice(self) -> style.Panel:
        notice = style.Panel(style.VERIFY)
        notice.setObjectName("verifyNotice")
        box = QVBoxLayout(notice)
        box.addWidget(_label(VERIFY_HEADING, bold=True, selectable=False))
        box.addWidget(_label(self.payload.message))
        pages = _flow_row()
        seen: set[int] = set()
        untrusted = [c for c in self.payload.citations if c.index in self.to_check]
        for citation in untrusted or self.payload.citations:
            if citation.physical_page in seen:
                continue
            seen.add(citation.physical_page)
            button = QPushButton(OPEN_PAGE.format(page=page_label(citation)))
            button.clicked.connect(lambda _=False, c=citation: self.citation_clicked.emit(c))
            self.page_buttons.append(button)
            pages.layout().addWidget(button)
        box.addWidget(pages)
        return notice

    def _block(self, block) -> tuple[SettledPart, QVBoxLayout]:
        """A block's title and tags, added above the disclaimer; its claims go in the layout returned."""
        widget = SettledPart(final=False)  # settles once its last claim is in
        _counts_hidden(widget)
        box = QVBoxLayout(widget)
        box.setContentsMargins(0, 4, 0, 0)
        box.setSpacing(3)
        head, parts = title_parts(block.title)
        if head != self._last_head or not parts:
            box.addWidget(_label(head if parts else block.title, "blockTitle", bold=True, selectable=False))
        self._last_head = head
        if parts:
            tags = _label(tags_html(parts), "tags", rich=True, selectable=False)
            tags.setAccessibleName(" · ".join(part.text for part in parts))
            box.addWidget(tags)
        if self._run is None or self._run_blocks >= self.BLOCKS_PER_RUN:
            self._end_run()  # its last block is complete: the blocks are built one after the other
            self._run = SettledPart(final=False)
            _counts_hidden(self._run)
            run = QVBoxLayout(self._run)
            run.setContentsMargins(0, 0, 0, 0)
            run.setSpacing(self.layout().spacing())  # spaced as if each block stood in the card itself
            self.layout().insertWidget(self._blocks_at, self._run)
            self._blocks_at += 1
            self._run_blocks = 0
        self._run.layout().addWidget(widget)
        self._run_blocks += 1
        return widget, box

    def _end_run(self) -> None:
        if self._run is not None:
            self._run.allow_settle()

    def _claims(self, box: QVBoxLayout, claims) -> None:
        """The claims' rows in one widget built whole before it is added: a widget shown inside a visible one lays
        out every visible ancestor, the whole window, so one show per step, not one per label and chip."""
        part = SettledPart()  # final as made
        _counts_hidden(part)
        rows = QVBoxLayout(part)
        rows.setContentsMargins(0, 0, 0, 0)
        rows.setSpacing(3)
        for claim in claims:
            row = QHBoxLayout()
            row.setSpacing(4)
            row.addWidget(_bullet(), 0, Qt.AlignmentFlag.AlignTop)
            claim_label = _label(claim.text, "claim")
            claim_label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)  # level with the bullet
            row.addWidget(claim_label, 1)
            made = []
            for index in claim.citations:
                citation = self._by_index.get(index)
                if citation is None:
                    continue
                chip = CitationChip(citation)
                chip.clicked.connect(lambda _=False, c=citation: self.citation_clicked.emit(c))
                made.append(chip)
            self.chips += made
            if len(made) == 1:
                row.addWidget(made[0], 0, Qt.AlignmentFlag.AlignTop)
            elif made:  # several chips wrap under each other in a narrow chat
                chips = _flow_row(spacing=4)
                for chip in made:
                    chips.layout().addWidget(chip)
                row.addWidget(chips, 0, Qt.AlignmentFlag.AlignTop)
            rows.addLayout(row)
        box.addWidget(part)

    def _replies(self) -> QWidget:
        row = _flow_row()
        for reply in self.payload.quick_replies:
            button = style.Pill(reply, (style.REPLY, style.REPLY_HOVER, style.REPLY))
            button.setObjectName("quickReply")
            button.clicked.connect(lambda _=False, r=reply: self.reply_clicked.emit(r))
            self.reply_buttons.append(button)
            row.layout().addWidget(button)
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


def _message(reason: str | None) -> str | None:
    try:
        return message_for(reason) if reason else None
    except (ValueError, KeyError):  # a reason this version does not know: the heading says enough
        return None


class PastAnswer(style.Panel):
    """A past turn as the traces keep it (app.history): what was decided and when, then the answer as it was
    shown (masked as stored), its chips quoting what they quoted; a turn traced before answers were kept has
    only the reason's message and a chip for each passage it cited."""

    citation_clicked = Signal(object)  # Citation

    def __init__(self, decision: str, reason: str | None, citations: list[Citation], when: str,
                 drug_title: Callable[[str], str | None] | None = None, parent=None,
                 answer: AnswerBody | None = None, question: str = "") -> None:
        super().__init__(style.PAST, parent)
        self.setObjectName("pastAnswer")
        self.chips: list[CitationChip] = []
        self.card: AnswerCard | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(4)
        heading = PAST_HEADING.format(decision=PAST_DECISIONS.get(decision, decision), when=when)
        layout.addWidget(_label(heading, "pastHeading", colour=style.ABSTAIN_FG, bold=True, selectable=False))
        if answer is not None:
            payload = AnswerPayload(**answer.model_dump(), disclaimer=DISCLAIMER)
            self.card = AnswerCard(payload, question, drug_title, stepwise=True)  # many past answers never
            # hold the UI thread in one piece: each fills in over later turns of the event loop
            self.card.disable_replies()  # answered then: a reply now would be read as this turn's
            self.card.citation_clicked.connect(self.citation_clicked)
            self.chips = self.card.chips
            layout.addWidget(self.card)
            return
        message = _message(reason) if decision in ("abstain", "clarify", "verify_pdf") else None
        if message:
            layout.addWidget(_label(message, "pastMessage", colour=style.ABSTAIN_FG))
        for citation in citations:
            row = QHBoxLayout()
            row.setSpacing(6)
            chip = CitationChip(citation)
            chip.clicked.connect(lambda _=False, c=citation: self.citation_clicked.emit(c))
            self.chips.append(chip)
            row.addWidget(chip, 0, Qt.AlignmentFlag.AlignTop)
            section = SECTION_BY_KEY.get(citation.section_key)
            title = (drug_title(citation.drug_id) if drug_title else None) or citation.drug_id
            where = " · ".join(x for x in (title, section.heading if section else "") if x)
            row.addWidget(_label(where, "pastWhere", selectable=False), 1)
            layout.addLayout(row)
        note = style.QuietLabel(PAST_NOTE)
        layout.addWidget(_label(PAST_NOTE, "pastNote", selectable=False, label=note))
