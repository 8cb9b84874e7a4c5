"""The admin's "Xây dựng lại chỉ mục" (and the first run's "Dựng chỉ mục"): pick a PDF and the folder to write,
watch the stages with the time spent and left, cancel. The build runs on its own lane, so the index in use keeps
answering until the new one is swapped in (by default a new folder beside it: app.rebuild.default_out)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from duocthu_desktop.app import operations, rebuild
from duocthu_desktop.errors import InputRefused

TITLE = "Xây dựng lại chỉ mục"
CHOOSE = "Chọn tệp PDF…"
CHOOSE_OUT = "Chọn thư mục…"
PDF_LABEL = "Tệp PDF:"
OUT_LABEL = "Ghi chỉ mục vào:"
START = "Bắt đầu"
CANCEL = "Hủy"
CLOSE = "Đóng"
PDF_FILTER = "Tệp PDF (*.pdf)"
WAITING = "Chọn tệp PDF của Dược thư rồi bấm Bắt đầu."
STARTING = "Đang bắt đầu…"
CANCELLING = "Đang hủy…"
IN_USE = "Chỉ mục đang dùng: {path}. Chỉ mục mới thay nó khi dựng xong; đến lúc đó vẫn hỏi đáp như thường."
NO_OUT = "chưa chọn thư mục ghi chỉ mục."
TICK_MS = 1000


def _wrapping(text: str = "", name: str = "") -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    if name:
        label.setObjectName(name)
    return label


class RebuildDialog(QDialog):
    rebuilt = Signal(object, object)  # (index folder, PDF)
    released_then_failed = Signal(object)  # the index folder: its index was closed for a swap that then failed

    def __init__(self, out: Path, pdf: Path | None = None, parent=None, in_use: Path | None = None,
                 release_index: Callable[[Path], None] | None = None, embedder=None) -> None:
        """`release_index(out)` (on the build's thread, just before the swap) closes the index open at `out`;
        `embedder`, the open index's embedding worker, is lent to the build (app.rebuild.run_build)."""
        super().__init__(parent)
        self.embedder = embedder
        self.setWindowTitle(TITLE)
        self.setMinimumWidth(560)
        self.in_use = Path(in_use) if in_use else None
        self.release_index = release_index
        self.released: Path | None = None  # the folder whose index was closed for the swap
        self.operation: operations.Operation | None = None
        self.outcome: str = ""
        self.timing: rebuild.Timing | None = None
        self.pdf_edit = QLineEdit(str(pdf) if pdf else "")
        self.out_edit = QLineEdit(str(out))
        choose = QPushButton(CHOOSE)
        choose.clicked.connect(self._choose)
        choose_out = QPushButton(CHOOSE_OUT)
        choose_out.clicked.connect(self._choose_out)
        self.stage = _wrapping(WAITING, "stage")
        self.elapsed = _wrapping("", "elapsed")
        self.bar = QProgressBar()
        self.bar.setRange(0, 1)
        self.bar.setValue(0)
        self.start_button = QPushButton(START)
        self.start_button.setDefault(True)
        self.start_button.clicked.connect(self.start)
        self.cancel_button = QPushButton(CLOSE)
        self.cancel_button.clicked.connect(self._cancel_or_close)
        self.ticker = QTimer(self)
        self.ticker.setInterval(TICK_MS)
        self.ticker.timeout.connect(self._tick)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow(PDF_LABEL, _row(self.pdf_edit, choose))
        form.addRow(OUT_LABEL, _row(self.out_edit, choose_out))
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        if self.in_use is not None:
            layout.addWidget(_wrapping(IN_USE.format(path=self.in_use), "inUse"))
        layout.addWidget(self.stage)
        layout.addWidget(self.bar)
        layout.addWidget(self.elapsed)
        layout.addLayout(buttons)

    @property
    def out(self) -> Path:
        return Path(self.out_edit.text().strip()).expanduser()

    def _choose(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, CHOOSE, self.pdf_edit.text(), PDF_FILTER)
        if path:
            self.pdf_edit.setText(path)

    def _choose_out(self) -> None:
        start = self.out if self.out.exists() else self.out.parent
        path = QFileDialog.getExistingDirectory(self, CHOOSE_OUT, str(start))
        if path:
            self.out_edit.setText(path)

    @property
    def running(self) -> bool:
        return self.operation is not None and not self.operation.done

    def start(self) -> None:
        pdf = Path(self.pdf_edit.text().strip())
        if not pdf.is_file():
            self._finish(rebuild.REFUSED.format(reason="không tìm thấy tệp."))
            return
        if not self.out_edit.text().strip():
            self._finish(rebuild.REFUSED.format(reason=NO_OUT))
            return
        out = self.out
        self.start_button.setEnabled(False)
        self.out_edit.setEnabled(False)
        self.cancel_button.setText(CANCEL)
        self._say(STARTING)
        self.bar.setRange(0, 0)  # busy until the first count
        self.timing = rebuild.Timing()
        self.ticker.start()
        self._tick()

        def before_swap() -> None:
            if self.release_index is not None:
                self.released = out
                self.release_index(out)

        def work(task: operations.Task):
            if self.embedder is None:
                return rebuild.run_build(pdf, out, task.progress, task.cancel_event, before_swap=before_swap)
            return rebuild.run_build(pdf, out, task.progress, task.cancel_event, before_swap=before_swap,
                                     shared=self.embedder)

        self.operation = operations.run(
            work, on_success=lambda result: self._built(result, pdf, out), on_failure=self._failed,
            on_progress=self._progress, lane=operations.BUILD, name="rebuild")

    def _progress(self, stage: str, done: int, total: int) -> None:
        step = rebuild.Step(stage, done, total)
        if self.timing is not None:
            self.timing.report(stage, done, total)
        if self.stage.text() != CANCELLING:
            self._say(step.label())
        if step.done is not None and step.total:
            self.bar.setRange(0, step.total)
            self.bar.setValue(step.done)
        else:
            self.bar.setRange(0, 0)
        self._tick()

    def _tick(self) -> None:
        if self.timing is not None:
            self.elapsed.setText(self.timing.text())

    def _built(self, result, pdf: Path, out: Path) -> None:
        report = getattr(result, "report", None)
        text = rebuild.DONE.format(monographs=getattr(report, "monographs", "?"), chunks=getattr(report, "chunks", "?"))
        if self.in_use is not None and out.resolve() != self.in_use.resolve() and self.in_use.exists():
            text += rebuild.KEPT.format(old=self.in_use)
        self._finish(text, done=True)
        self.rebuilt.emit(out, pdf)

    def _failed(self, err: BaseException) -> None:
        if self.released is not None:  # the swap failed after the index was closed for it: the folder holds it
            folder, self.released = self.released, None
            self.released_then_failed.emit(folder)
        if rebuild.is_cancelled(err):
            self._finish(rebuild.CANCELLED)
        elif isinstance(err, InputRefused):
            self._finish(rebuild.REFUSED.format(reason=str(err)))
        else:
            self._finish(rebuild.FAILED.format(kind=type(err).__name__, reason=str(err)))

    def _finish(self, text: str, done: bool = False) -> None:
        self.ticker.stop()
        if self.timing is not None:  # the time it took; no estimate once it has ended
            self.elapsed.setText(self.timing.text(final=True))
        self.outcome = text
        self._say(text)
        self.bar.setRange(0, 1)
        self.bar.setValue(1 if done else 0)
        self.start_button.setEnabled(not done)
        self.out_edit.setEnabled(not done)
        self.cancel_button.setText(CLOSE)
        self.cancel_button.setEnabled(True)

    def _say(self, text: str) -> None:
        """The stage or outcome, in full: the dialog grows to the lines a long message wraps onto."""
        self.stage.setText(text)
        layout = self.layout()
        needed = layout.totalHeightForWidth(self.width()) if layout.hasHeightForWidth() else layout.sizeHint().height()
        if needed > self.height():
            self.resize(self.width(), needed)

    def _cancel_or_close(self) -> None:
        if self.running:
            self._say(CANCELLING)
            self.cancel_button.setEnabled(False)
            self.operation.cancel(drop=False)  # the build's BuildCancelled must still reach _failed
        else:
            self.accept()

    def reject(self) -> None:  # Esc or the window's close button
        if self.running:
            self._cancel_or_close()
        else:
            super().reject()


MAX_PATH_PX = 620  # a path field grows to show its whole path up to this width (the dialog fits a 1024 px screen)


def _fit_path(edit: QLineEdit) -> None:
    """Wide enough for the whole path (a person checks where the index goes by its start and its end), up to
    MAX_PATH_PX; a longer one is whole in the tooltip."""
    text = edit.text()
    edit.setMinimumWidth(min(MAX_PATH_PX, edit.fontMetrics().horizontalAdvance(text) + 16))
    edit.setToolTip(text)


def _row(edit: QLineEdit, button: QPushButton) -> QWidget:
    row = QWidget()
    box = QHBoxLayout(row)
    box.setContentsMargins(0, 0, 0, 0)
    box.addWidget(edit, 1)
    box.addWidget(button)
    _fit_path(edit)
    edit.textChanged.connect(lambda _text: _fit_path(edit))
    return row
