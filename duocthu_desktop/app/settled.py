"""Parts of the chat whose content no longer changes keep the height they were laid out at.

A Qt layout asks every item of a widget it re-lays out for its height at the width, and a word-wrapped label
answers by laying its text out again: so adding one block to an answer laid out every label of the whole chat
again, and showing an answer cost time in proportion to everything shown before it (a 120-block answer held
the UI thread for 300 ms and more, bench/app_bench.py). A settled part reports a fixed height instead, which
the layout takes as it is. A new width or a new text size lays it out once more, and it settles again.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QTimer
from PySide6.QtWidgets import QWidget

UNBOUNDED = 16777215  # QWIDGETSIZE_MAX


class Settling:
    """Mixed in before a QWidget class: `allow_settle()` once the content is final; from the next layout at a
    width on, the widget keeps that width's height until the width or the font changes."""

    _settled_width: int | None = None
    _may_settle: bool = False

    def allow_settle(self) -> None:
        self._may_settle = True
        if self.width() > 0 and self.isVisible():
            QTimer.singleShot(0, self, self._settle)

    @property
    def settled(self) -> bool:
        return self._settled_width is not None

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt's name
        return self._settled_width is None and super().hasHeightForWidth()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        width = event.size().width()
        if self._settled_width is not None and width != self._settled_width:
            self.unsettle()
        elif self._settled_width is None and self._may_settle and width > 0:
            QTimer.singleShot(0, self, self._settle)  # after the layout that gave this width is done

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self.unsettle()
        super().changeEvent(event)

    def _settle(self) -> None:
        width = self.width()
        if self._settled_width is not None or not self._may_settle or width <= 0:
            return
        height = self.heightForWidth(width)  # still laid out at the width: the last time for this width
        layout = self.layout()
        if height <= 0 and layout is not None and not layout.hasHeightForWidth():
            height = layout.totalSizeHint().height()  # every part inside has settled: their heights add up
        if height <= 0:
            return
        self._settled_width = width
        self.setFixedHeight(height)

    def unsettle(self) -> None:
        """Height for width again (the next layout at a width settles it anew)."""
        if self._settled_width is None:
            return
        self._settled_width = None
        self.setMinimumHeight(0)
        self.setMaximumHeight(UNBOUNDED)
        self.updateGeometry()


class SettledPart(Settling, QWidget):
    """A plain container whose content is final when it is made (a group of claims, a question)."""

    def __init__(self, parent=None, final: bool = True) -> None:
        super().__init__(parent)
        self._may_settle = final
