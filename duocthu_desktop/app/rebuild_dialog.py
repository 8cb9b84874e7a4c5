"""The admin's "Xây dựng lại chỉ mục" (and the first run's "Dựng chỉ mục"): pick a PDF, watch the stages,
cancel. The build runs on its own lane, so the old index keeps answering until the new one is swapped in."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
)

from duocthu_desktop.app import operations, rebuild
from duocthu_desktop.errors import InputRefused

TITLE = "Xây dựng lại chỉ mục"
CHOOSE = "Chọn tệp PDF…"
START = "Bắt đầu"
CANCEL = "Hủy"
CLOSE = "Đóng"
PDF_FILTER = "Tệp PDF (*.pdf)"
WAITING = "Chọn tệp PDF của Dược thư rồi bấm Bắt đầu."
STARTING = "Đang bắt đầu…"
CANCELLING = "Đang hủy…"
INTO = "Chỉ mục sẽ được ghi vào: {out}"


class RebuildDialog(QDialog):
    rebuilt = Signal(object, object)  # (index folder, PDF)
    released_then_failed = Signal(object)  # the index folder: its index was closed for a swap that then failed

    def __init__(self, out: Path, pdf: Path | None = None, parent=None,
                 release_index: Callable[[], None] | None = None) -> None:
        """`release_index()` (on the build's thread, just before the swap) closes the index open at `out`."""
        super().__init__(parent)
        self.setWindowTitle(TITLE)
        self.setMinimumWidth(520)
        self.out = Path(out)
        self.release_index = release_index
        self.released = False
        self.operation: operations.Operation | None = None
        self.outcome: str = ""
        self.pdf_edit = QLineEdit(str(pdf) if pdf else "")
        choose = QPushButton(CHOOSE)
        choose.clicked.connect(self._choose)
        self.stage = QLabel(WAITING)
        self.stage.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1)
        self.bar.setValue(0)
        self.start_button = QPushButton(START)
        self.start_button.setDefault(True)
        self.start_button.clicked.connect(self.start)
        self.cancel_button = QPushButton(CLOSE)
        self.cancel_button.clicked.connect(self._cancel_or_close)
        pick = QHBoxLayout()
        pick.addWidget(self.pdf_edit, 1)
        pick.addWidget(choose)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addLayout(pick)
        layout.addWidget(QLabel(INTO.format(out=self.out)))
        layout.addWidget(self.stage)
        layout.addWidget(self.bar)
        layout.addLayout(buttons)

    def _choose(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, CHOOSE, self.pdf_edit.text(), PDF_FILTER)
        if path:
            self.pdf_edit.setText(path)

    @property
    def running(self) -> bool:
        return self.operation is not None and not self.operation.done

    def start(self) -> None:
        pdf = Path(self.pdf_edit.text().strip())
        if not pdf.is_file():
            self._finish(rebuild.REFUSED.format(reason="không tìm thấy tệp."))
            return
        self.start_button.setEnabled(False)
        self.cancel_button.setText(CANCEL)
        self.stage.setText(STARTING)
        self.bar.setRange(0, 0)  # busy until the first count

        def before_swap() -> None:
            if self.release_index is not None:
                self.released = True
                self.release_index()

        def work(task: operations.Task):
            return rebuild.run_build(pdf, self.out, task.progress, task.cancel_event, before_swap)

        self.operation = operations.run(
            work, on_success=lambda result: self._built(result, pdf), on_failure=self._failed,
            on_progress=self._progress, lane=operations.BUILD, name="rebuild")

    def _progress(self, stage: str, done: int, total: int) -> None:
        step = rebuild.Step(stage, done, total)
        self.stage.setText(step.label())
        if step.done is not None and step.total:
            self.bar.setRange(0, step.total)
            self.bar.setValue(step.done)
        else:
            self.bar.setRange(0, 0)

    def _built(self, result, pdf: Path) -> None:
        report = getattr(result, "report", None)
        self._finish(rebuild.DONE.format(monographs=getattr(report, "monographs", "?"),
                                         chunks=getattr(report, "chunks", "?")), done=True)
        self.rebuilt.emit(self.out, pdf)

    def _failed(self, err: BaseException) -> None:
        if self.released:  # the swap failed after the index was closed for it: the folder still holds it
            self.released = False
            self.released_then_failed.emit(self.out)
        if rebuild.is_cancelled(err):
            self._finish(rebuild.CANCELLED)
        elif isinstance(err, InputRefused):
            self._finish(rebuild.REFUSED.format(reason=str(err)))
        else:
            self._finish(rebuild.FAILED.format(kind=type(err).__name__, reason=str(err)))

    def _finish(self, text: str, done: bool = False) -> None:
        self.outcome = text
        self.stage.setText(text)
        self.bar.setRange(0, 1)
        self.bar.setValue(1 if done else 0)
        self.start_button.setEnabled(not done)
        self.cancel_button.setText(CLOSE)
        self.cancel_button.setEnabled(True)

    def _cancel_or_close(self) -> None:
        if self.running:
            self.stage.setText(CANCELLING)
            self.cancel_button.setEnabled(False)
            self.operation.cancel(drop=False)  # the build's BuildCancelled must still reach _failed
        else:
            self.accept()

    def reject(self) -> None:  # Esc or the window's close button
        if self.running:
            self._cancel_or_close()
        else:
            super().reject()
