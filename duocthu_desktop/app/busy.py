"""A busy indicator that costs almost nothing to draw: its text and the seconds gone by, redrawn twice a second.

An indeterminate QProgressBar repaints itself (and what is behind it) many times a second for as long as it
shows; on a machine whose cores are busy that painting was a large share of the UI thread's work during a turn
(bench/app_bench.py), and the seconds tell a person more than a moving bar does.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel

SECONDS = "{text} {seconds} giây"
TICK_MS = 500


class BusyLabel(QLabel):
    def __init__(self, text: str = "", parent=None) -> None:
        super().__init__(text, parent)
        self.base = text
        self._started = time.monotonic()
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """Shown (itself or with its row): counts from zero; hidden: stops counting."""
        self._started = time.monotonic()
        self._tick()
        self._timer.start()
        super().showEvent(event)

    def hideEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self._timer.stop()
        super().hideEvent(event)

    def _tick(self) -> None:
        seconds = int(time.monotonic() - self._started)
        self.setText(SECONDS.format(text=self.base, seconds=seconds) if seconds >= 1 else self.base)
