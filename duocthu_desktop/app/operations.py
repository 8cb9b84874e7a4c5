"""One way to run core work off the UI thread, like Anki's `aqt.operations`.

`run(work, on_success=..., on_failure=..., on_progress=..., lane=...)` runs `work(task)` on a worker thread and
delivers its result, its exception or its progress reports on the UI thread. `work` never touches a widget: it
calls `task.progress(...)` and looks at `task.cancelled`. Each lane is a one-thread pool, so work sharing a
lane (every turn reads the same Assistant) runs one at a time, in order, while lanes run side by side (a PDF
lookup never waits behind a turn). `Operation.cancel()` sets `task.cancel_event` and drops the result: neither
callback runs, whatever the work returns, so a cancelled turn never lands in the chat. `cancel(drop=False)`
only asks the work to stop, for work that reports how it stopped (a build raising BuildCancelled).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

log = logging.getLogger(__name__)

ASSISTANT = "assistant"  # turns, opening and closing the index: one Assistant, one caller at a time
MODEL = "model"  # loading the embedding model in the background (its own lock guards it), turns not waiting
PDF = "pdf"  # finding a quote on its page
BUILD = "build"  # rebuilding the index

_pools: dict[str, QThreadPool] = {}
_running: set[Operation] = set()  # kept alive until their result is delivered


class Task:
    """What the work sees of its operation: progress reports and the cancel flag."""

    def __init__(self, operation: Operation) -> None:
        self._operation = operation
        self.cancel_event = threading.Event()

    @property
    def cancelled(self) -> bool:
        return self.cancel_event.is_set()

    def progress(self, *values: Any) -> None:
        """Report progress; the UI thread's `on_progress` gets the values (none once the result is dropped)."""
        if not self._operation.dropped:
            self._operation._progressed.emit(values)


class Operation(QObject):
    """One piece of work in flight. Its signals are emitted from the worker and received by this object, which
    lives on the UI thread, so Qt queues them there."""

    _done = Signal(bool, object)
    _progressed = Signal(object)
    finished = Signal()  # on the UI thread, after the callbacks (or instead of them, when cancelled)

    def __init__(self, work: Callable[[Task], Any], on_success: Callable[[Any], None] | None,
                 on_failure: Callable[[BaseException], None] | None,
                 on_progress: Callable[..., None] | None, name: str) -> None:
        super().__init__()
        self.name = name
        self.task = Task(self)
        self._work = work
        self._on_success = on_success
        self._on_failure = on_failure
        self._on_progress = on_progress
        self.done = False
        self.dropped = False
        self._done.connect(self._deliver)
        self._progressed.connect(self._report)

    def cancel(self, drop: bool = True) -> None:
        """Ask the work to stop (it may look at `task.cancelled`) and, with `drop`, drop whatever it returns."""
        self.dropped = self.dropped or drop
        self.task.cancel_event.set()

    def _execute(self) -> None:  # on the worker thread
        try:
            result = self._work(self.task)
        except BaseException as err:  # noqa: BLE001 - every failure goes to the UI, a native panic included
            self._done.emit(False, err)
        else:
            self._done.emit(True, result)

    @Slot(bool, object)
    def _deliver(self, ok: bool, value: Any) -> None:
        self.done = True
        _running.discard(self)
        try:
            if self.dropped:
                log.info("operation %s finished after cancel: result dropped", self.name)
            elif ok:
                if self._on_success is not None:
                    self._on_success(value)
            elif self._on_failure is not None:
                self._on_failure(value)
            else:
                log.error("operation %s failed: %r", self.name, value, exc_info=value)
        finally:
            self.finished.emit()

    @Slot(object)
    def _report(self, values: tuple) -> None:
        if not self.dropped and self._on_progress is not None:
            self._on_progress(*values)


class _Runnable(QRunnable):
    def __init__(self, operation: Operation) -> None:
        super().__init__()
        self._operation = operation

    def run(self) -> None:
        self._operation._execute()


def pool(lane: str) -> QThreadPool:
    """The one-thread pool of a lane."""
    if lane not in _pools:
        created = QThreadPool()
        created.setMaxThreadCount(1)
        _pools[lane] = created
    return _pools[lane]


def run(work: Callable[[Task], Any], *, on_success: Callable[[Any], None] | None = None,
        on_failure: Callable[[BaseException], None] | None = None,
        on_progress: Callable[..., None] | None = None, lane: str = ASSISTANT, name: str = "") -> Operation:
    """Start `work(task)` on `lane`; call this on the UI thread. The callbacks run on the UI thread."""
    operation = Operation(work, on_success, on_failure, on_progress, name or getattr(work, "__name__", "work"))
    _running.add(operation)
    pool(lane).start(_Runnable(operation))
    return operation


def wait_all(timeout_ms: int = 30000) -> bool:
    """Wait for every lane's work to end (at exit: no worker may run Python while the app is torn down)."""
    return all(p.waitForDone(timeout_ms) for p in _pools.values())
