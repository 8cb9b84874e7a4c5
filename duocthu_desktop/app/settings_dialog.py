"""The settings dialog: the formulary PDF, the index folder, the engine and its GGUF model, threads, text size.

Its fields show and write the saved settings (the platformdirs config file), not values a flag or the environment
gave this run, so saving never freezes a one-off `--index` into the file. Beside them, "Đang dùng" says what this
run uses and where each came from (duocthu_desktop.in_use decides; this only shows it).
"""

from __future__ import annotations

import logging
from pathlib import Path

from pydantic import ValidationError
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from duocthu_desktop import in_use as in_use_
from duocthu_desktop.app import style
from duocthu_desktop.settings import InUse, Settings, settings_file

log = logging.getLogger(__name__)

TITLE = "Cài đặt"
PDF, INDEX, ENGINE, MODEL = "Tệp PDF Dược thư", "Thư mục chỉ mục", "Chế độ trả lời", "Mô hình GGUF"
THREADS, TEXT_SIZE = "Số luồng CPU", "Cỡ chữ"
CHOOSE = "Chọn…"
SAVE, CANCEL = "Lưu", "Hủy"
AUTO, SYSTEM = "Tự động", "Theo hệ thống"
FROM_INDEX = "(tệp mà chỉ mục được dựng từ)"
INDEX_DEFAULT = "(mặc định: xem « Đang dùng »)"
MODEL_DEFAULT = "(mặc định: {name})"
IN_USE = "Đang dùng"
ENGINES = (("extractive", "Trích nguyên văn"), ("generative", "Mô hình ngôn ngữ (tệp GGUF)"))
LATER = "Chỉ mục, chế độ và mô hình: chỉ mục được mở lại khi lưu. Số luồng: có hiệu lực khi khởi động lại."
NOT_FILE = "{what}: không tìm thấy tệp {path}"
NOT_DIR = "{what}: không tìm thấy thư mục {path}"
NEEDS_MODEL = ("Chế độ mô hình ngôn ngữ cần một tệp GGUF: chọn tệp, hoặc chạy `duocthu-models prepare` để có mô hình "
               "mặc định (Qwen2.5-Coder-1.5B).")
NOT_SAVED = "Không lưu được cài đặt ({reason})."
PDF_FILTER, GGUF_FILTER = "Tệp PDF (*.pdf)", "Mô hình GGUF (*.gguf)"


class SettingsDialog(QDialog):
    """Edits the saved settings; `saved` carries what changed (field -> new value, None when cleared)."""

    saved = Signal(dict)

    def __init__(self, parent=None, in_use: list[InUse] | None = None) -> None:
        """`in_use`: what this run uses (duocthu_desktop.in_use.in_use), shown under "Đang dùng"."""
        super().__init__(parent)
        self.setWindowTitle(TITLE)
        self.setMinimumWidth(560)
        self.before = Settings.read_saved(settings_file())
        self.in_use = in_use if in_use is not None else in_use_.in_use(Settings.load())
        gguf = next((item for item in self.in_use if item.key == "gguf_model"), None)
        self.pdf = self._path_row(PDF_FILTER, FROM_INDEX)
        self.index = self._path_row(None, INDEX_DEFAULT)
        self.model = self._path_row(GGUF_FILTER, MODEL_DEFAULT.format(name=gguf.name) if gguf and gguf.name else "")
        self.engine = QComboBox()
        for value, label in ENGINES:
            self.engine.addItem(label, value)
        self.threads = QSpinBox()
        self.threads.setRange(0, 256)
        self.threads.setSpecialValueText(AUTO)
        self.text_size = QDoubleSpinBox()
        self.text_size.setRange(5, 40)
        self.text_size.setDecimals(0)
        self.text_size.setSuffix(" pt")
        self.text_size.setSpecialValueText(SYSTEM)
        self._fill()
        form = QFormLayout()
        form.addRow(PDF, self.pdf.parentWidget())
        form.addRow(INDEX, self.index.parentWidget())
        form.addRow(ENGINE, self.engine)
        form.addRow(MODEL, self.model.parentWidget())
        form.addRow(THREADS, self.threads)
        form.addRow(TEXT_SIZE, self.text_size)
        note = QLabel(LATER)
        note.setWordWrap(True)
        self.in_use_labels: dict[str, QLabel] = {}
        used = QFormLayout()
        for item in self.in_use:
            title, text = in_use_.describe(item)
            label = QLabel(text)
            label.setObjectName(f"inUse_{item.key}")
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.in_use_labels[item.key] = label
            used.addRow(title, label)
        used_box = QGroupBox(IN_USE)
        used_box.setLayout(used)
        self.error = QLabel()
        self.error.setObjectName("pdfWarning")
        style.emphasise(self.error, style.WARNING_FG)
        self.error.setWordWrap(True)
        self.error.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Save).setText(SAVE)
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setText(CANCEL)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(used_box)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """Tall enough for every wrapped line at this width: a dialog's own minimum height counts each wrapped
        label as one line, and "Đang dùng" was cut at 1024x700 under Xvfb (its sources' second lines)."""
        super().resizeEvent(event)
        need = self.layout().totalHeightForWidth(event.size().width())
        if need > self.minimumHeight():
            self.setMinimumHeight(need)

    def _path_row(self, file_filter: str | None, placeholder: str) -> QLineEdit:
        """A path field with its "Chọn…" button (a file with `file_filter`, else a folder)."""
        row = QWidget(self)
        edit = QLineEdit(row)
        edit.setPlaceholderText(placeholder)
        choose = QPushButton(CHOOSE, row)
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(edit, 1)
        layout.addWidget(choose)

        def pick() -> None:
            start = edit.text().strip()
            if file_filter is None:
                path = QFileDialog.getExistingDirectory(self, CHOOSE, start)
            else:
                path, _ = QFileDialog.getOpenFileName(self, CHOOSE, start, file_filter)
            if path:
                edit.setText(path)

        choose.clicked.connect(pick)
        return edit

    def _fill(self) -> None:
        saved = self.before
        self.pdf.setText(str(saved.get("pdf_path") or ""))
        self.index.setText(str(saved.get("index_dir") or ""))
        self.model.setText(str(saved.get("gguf_model") or ""))
        self.engine.setCurrentIndex(max(0, self.engine.findData(saved.get("engine") or "extractive")))
        self.threads.setValue(int(saved.get("threads") or 0))
        self.text_size.setValue(float(saved.get("text_size") or self.text_size.minimum()))

    # ---- saving ---------------------------------------------------------------------------------------------

    def values(self) -> dict:
        """The fields as settings values (None for an empty field: the default)."""
        def path(edit: QLineEdit) -> str | None:
            text = edit.text().strip()
            return str(Path(text).expanduser()) if text else None

        return {
            "pdf_path": path(self.pdf),
            "index_dir": path(self.index),
            "engine": self.engine.currentData(),
            "gguf_model": path(self.model),
            "threads": self.threads.value() or None,
            "text_size": self.text_size.value() if self.text_size.value() > self.text_size.minimum() else None,
        }

    def problems(self, values: dict) -> list[str]:
        found = []
        for key, what in (("pdf_path", PDF), ("gguf_model", MODEL)):
            if values[key] and not Path(values[key]).is_file():
                found.append(NOT_FILE.format(what=what, path=values[key]))
        if values["index_dir"] and not Path(values["index_dir"]).is_dir():
            found.append(NOT_DIR.format(what=INDEX, path=values["index_dir"]))
        if values["engine"] == "generative" and not values["gguf_model"] and not default_gguf().is_file():
            found.append(NEEDS_MODEL)
        return found

    def save(self) -> bool:
        """Write the settings and close; a field that cannot be used is said in the dialog, which stays open."""
        values = self.values()
        problems = self.problems(values)
        if not problems:
            try:
                after = Settings.save_changes(**values)
            except (OSError, ValidationError) as err:
                log.warning("settings not saved: %s", err)
                problems = [NOT_SAVED.format(reason=type(err).__name__)]
        if problems:
            self.error.setText("\n".join(problems))
            self.error.show()
            return False
        defaults = {k: Settings.model_fields[k].default for k in values}
        changed = {k: after.get(k) for k in values if after.get(k, defaults[k]) != self.before.get(k, defaults[k])}
        self.before = after
        if changed:
            self.saved.emit(changed)
        self.accept()
        return True


def default_gguf() -> Path:
    """The default language model `duocthu-models prepare` assembles (used when no GGUF is chosen)."""
    from models import gguf

    return gguf.model_path()
