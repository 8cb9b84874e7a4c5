"""The window's look in one place: colours by what they mean, and how the widgets wear them.

Set in code (a font on the window, palettes, a few painted shapes), never with a Qt style sheet: a sheet on the
window puts every widget under QStyleSheetStyle, whose polish and relayout of the whole chat grew with its length
(a 10-turn chat: 60-110 ms to add one question with a sheet, 3-8 ms without; bench/app_bench.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPalette, QPen
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QWidget

ACCENT = "#1d5f8a"  # chips, links, the user's questions
POPULATION = "#8a1d3b"  # the group a dose is for: it must stand out
ROUTE = "#1d6b3a"  # the route a dose is given by
ABSTAIN_BG, ABSTAIN_FG = "#f4f4f4", "#5a5a5a"
CLARIFY_BG = "#eef5fb"
VERIFY_BG, VERIFY_BORDER = "#fff6e0", "#d9a400"
NOTE_FG, QUIET_FG, WARNING_FG = "#666666", "#6b6b6b", "#8a5a00"
HIGHLIGHT = (255, 214, 0, 110)  # the quote on the page (RGBA)
HIGHLIGHT_EDGE = (214, 140, 0, 220)
MIN_PT = 7.0


@dataclass(frozen=True)
class Look:
    """Text, fill and edge colours of a painted shape (None: not drawn)."""

    fg: str | None = None
    bg: str | None = None
    border: str | None = None
    dashed: bool = False


QUESTION = Look(bg="#e3eef7")
PANELS = {  # an answer card by its decision
    "answerable": Look(bg="white", border="#d6dbe0"),
    "abstain": Look(bg=ABSTAIN_BG, border="#a0a0a0", dashed=True),
    "clarify": Look(bg=CLARIFY_BG, border="#d6dbe0"),
}
VERIFY = Look(bg=VERIFY_BG, border=VERIFY_BORDER)
PAST = Look(bg="#fafafa", border="#c8ccd0", dashed=True)  # a past turn read back from the traces
CHIP = Look(ACCENT, "#eaf2f8", "#b9d3e6")
CHIP_HOVER = Look(ACCENT, "#d4e6f3", "#b9d3e6")
CHIP_OPEN = Look("#5a3d00", "#fff1b8", "#d68c00")  # the citation the viewer shows
REPLY = Look(ACCENT, "white", ACCENT)
REPLY_HOVER = Look(ACCENT, "#eaf2f8", ACCENT)


# ---- text ---------------------------------------------------------------------------------------------------


def set_text_size(window: QWidget, point_size: float) -> None:
    """The window's text size (Ctrl + and Ctrl -): its font reaches every child; the quieter labels follow."""
    font = window.font()
    font.setPointSizeF(max(MIN_PT, point_size))
    window.setFont(font)
    for label in window.findChildren(QuietLabel):
        label.fit()


def emphasise(widget: QWidget, colour: str | None = None, bold: bool = False, italic: bool = False) -> QWidget:
    """Colour and weight only: the size still follows the window's font."""
    if colour is not None:
        palette = widget.palette()
        for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
            palette.setColor(role, QColor(colour))
        widget.setPalette(palette)
    if bold or italic:
        font = QFont()  # only these attributes set, so family and size still come from the window
        font.setBold(bold)
        font.setItalic(italic)
        widget.setFont(font)
    return widget


class QuietLabel(QLabel):
    """Grey text one point under the window's (the disclaimer)."""

    def __init__(self, text: str = "", parent=None) -> None:
        super().__init__(text, parent)
        emphasise(self, QUIET_FG)

    def fit(self) -> None:
        parent = self.parentWidget()
        if parent is not None:
            font = QFont()
            font.setPointSizeF(max(MIN_PT, parent.font().pointSizeF() - 1))
            self.setFont(font)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.fit()  # shown: its parent, and so the window's text size, is known
        super().showEvent(event)


# ---- painted shapes -----------------------------------------------------------------------------------------


def _paint_round(widget: QWidget, look: Look, radius: float, focus: bool = False) -> None:
    painter = QPainter(widget)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    if look.border is not None or focus:
        pen = QPen(QColor(ACCENT if focus else look.border), 2.0 if focus else 1.0)
        pen.setStyle(Qt.PenStyle.DashLine if look.dashed else Qt.PenStyle.SolidLine)
        painter.setPen(pen)
    else:
        painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(look.bg) if look.bg is not None else Qt.BrushStyle.NoBrush)
    inset = 1.0 if focus else 0.5
    painter.drawRoundedRect(QRectF(widget.rect()).adjusted(inset, inset, -inset, -inset), radius, radius)
    painter.end()


class Panel(QFrame):
    """A rounded, filled box: a question bubble, an answer card, the verify-PDF notice."""

    RADIUS = 8.0

    def __init__(self, look: Look, parent=None) -> None:
        super().__init__(parent)
        self.look = look
        self.setFrameShape(QFrame.Shape.NoFrame)
        # content laid out from the top: a panel that grows (an answer card filling in) paints only what is new
        # and the strip of its rounded bottom edge, not again every claim it shows (resizeEvent)
        self.setAttribute(Qt.WidgetAttribute.WA_StaticContents)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        old, new = event.oldSize(), event.size()
        if old.width() == new.width() and old.height() > 0:  # taller or shorter: its bottom edge moved
            top = max(0, min(old.height(), new.height()) - int(self.RADIUS) - 2)
            self.update(0, top, new.width(), max(old.height(), new.height()) - top)
        else:
            self.update()
        super().resizeEvent(event)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        _paint_round(self, self.look, self.RADIUS)


class Pill(QPushButton):
    """A rounded button drawn in its Look: a citation chip, a quick reply. `looks` = (normal, hover, active);
    `active` is the "open" property (the chip whose page the viewer shows)."""

    PAD_X, PAD_Y = 8, 2
    MIN_WIDTH = 120  # narrower than its text (a long quick reply in a narrow chat), it is drawn elided

    def __init__(self, text: str, looks: tuple[Look, Look, Look], parent=None) -> None:
        super().__init__(text, parent)
        self.looks = looks
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        metrics = self.fontMetrics()
        return QSize(metrics.horizontalAdvance(self.text()) + 2 * self.PAD_X + 4,
                     metrics.height() + 2 * self.PAD_Y + 4)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        hint = self.sizeHint()
        return QSize(min(hint.width(), self.MIN_WIDTH), hint.height())

    def set_active(self, active: bool) -> None:
        if bool(self.property("open")) != active:
            self.setProperty("open", active)
            self.update()

    def enterEvent(self, event) -> None:  # noqa: N802 - Qt's name (only these reach Python, not every event)
        self.update()
        super().enterEvent(event)

    def leaveEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.update()
        super().leaveEvent(event)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        normal, hover, active = self.looks
        look = active if self.property("open") else hover if self.underMouse() and self.isEnabled() else normal
        if not self.isEnabled():
            look = Look(NOTE_FG, "#f0f0f0", "#cccccc")
        _paint_round(self, look, self.height() / 2, focus=self.hasFocus())
        painter = QPainter(self)
        painter.setPen(QColor(look.fg))
        room = self.width() - 2 * self.PAD_X
        text = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, room)
        if text != self.text() and not self.toolTip():
            self.setToolTip(self.text())
        painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, text)
        painter.end()
