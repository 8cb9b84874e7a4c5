"""`duocthu --screenshot PNG --ask "..."`: open, ask, open the first citation, save the whole window, quit.

The exit code says whether every step happened: 0, or 1 when the index did not open, the turn failed or
gave no citation to open, the save failed, or it all took longer than the timeout.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QEventLoop, QTimer

log = logging.getLogger(__name__)
SETTLE_MS = 400  # let the page render and the highlight paint before the grab


class Screenshot:
    """Runs its own event loop (`run`), so the application's state is left as it was (a test can go on)."""

    def __init__(self, window, path: Path, question: str, timeout_ms: int) -> None:
        self.window = window
        self.loop = QEventLoop()
        self.timeout_ms = timeout_ms
        self.path = Path(path)
        self.question = question
        self.exit_code = 1
        window.session_ready.connect(lambda: window.send(question))
        window.session_failed.connect(lambda reason: self._fail(f"index not opened: {reason}"))
        window.answer_shown.connect(self._answered)
        window.turn_failed.connect(lambda reason: self._fail(f"turn failed: {reason}"))
        window.citation_located.connect(lambda _c: QTimer.singleShot(SETTLE_MS, self._save))

    def run(self) -> int:
        timer = QTimer()
        timer.setSingleShot(True)
        timer.timeout.connect(lambda: self._fail("timed out"))
        timer.start(self.timeout_ms)
        self.window.show()
        self.window.start()
        self.loop.exec()
        timer.stop()
        return self.exit_code

    def _answered(self, card) -> None:
        if not card.payload.citations:
            log.warning("the answer (%s) has no citation to open", card.payload.decision)
            QTimer.singleShot(SETTLE_MS, lambda: self._save(ok=False))

    def _save(self, ok: bool = True) -> None:
        if not self.loop.isRunning():
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        saved = self.window.grab().save(str(self.path))
        self.exit_code = 0 if ok and saved else 1
        log.info("screenshot %s saved=%s", self.path, saved)
        self.loop.quit()

    def _fail(self, why: str) -> None:
        log.error("screenshot failed: %s", why)
        self.exit_code = 1
        self.loop.quit()
