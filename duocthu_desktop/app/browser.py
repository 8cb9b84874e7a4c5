"""The formulary browser: every monograph A to Z, each opening as its sections in the book's order; activating
one opens its first page in the viewer. The search box finds titles and INNs with or without diacritics."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from duocthu_desktop.artifacts import Monograph
from duocthu_desktop.text import fold

SEARCH = "Tìm thuốc (có hoặc không dấu)…"
ASK = "Hỏi về thuốc này"
HEADERS = ["Chuyên luận / mục", "Trang"]
PAGE_ROLE = Qt.ItemDataRole.UserRole
TITLE_ROLE = Qt.ItemDataRole.UserRole + 1


class FormularyBrowser(QWidget):
    open_page = Signal(int)  # physical page
    ask_about = Signal(str)  # the monograph's title

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.search = QLineEdit()
        self.search.setPlaceholderText(SEARCH)
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.filter)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(HEADERS)
        self.tree.setColumnWidth(0, 320)
        self.tree.itemActivated.connect(self._activated)
        self.tree.itemClicked.connect(self._activated)
        self.ask_button = QPushButton(ASK)
        self.ask_button.clicked.connect(self._ask)
        row = QHBoxLayout()
        row.addWidget(self.search, 1)
        row.addWidget(self.ask_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.tree, 1)

    def set_monographs(self, monographs: list[Monograph], physical_for: Callable[[int], int | None]) -> None:
        self.tree.clear()
        for mono in sorted(monographs, key=lambda m: fold(m.title)):
            top = QTreeWidgetItem([mono.title, _folio(mono.start_printed)])
            top.setData(0, PAGE_ROLE, mono.start_physical)
            top.setData(0, TITLE_ROLE, mono.title)
            top.setToolTip(0, " · ".join(x for x in (mono.inn, mono.drug_class) if x))
            for section in mono.sections:
                physical = physical_for(section.start_printed) if section.start_printed is not None else None
                child = QTreeWidgetItem([section.heading, _folio(section.start_printed)])
                child.setData(0, PAGE_ROLE, physical or mono.start_physical)
                child.setData(0, TITLE_ROLE, mono.title)
                top.addChild(child)
            self.tree.addTopLevelItem(top)
        self.filter(self.search.text())

    def filter(self, text: str) -> None:
        key = fold(text.strip())
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            words = fold(" ".join([item.text(0), item.toolTip(0)]))
            item.setHidden(bool(key) and key not in words)

    def visible_titles(self) -> list[str]:
        return [self.tree.topLevelItem(i).text(0) for i in range(self.tree.topLevelItemCount())
                if not self.tree.topLevelItem(i).isHidden()]

    def _activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        page = item.data(0, PAGE_ROLE)
        if page:
            self.open_page.emit(int(page))

    def _ask(self) -> None:
        item = self.tree.currentItem()
        if item is not None:
            self.ask_about.emit(item.data(0, TITLE_ROLE))


def _folio(printed: int | None) -> str:
    return f"tr. {printed}" if printed is not None else ""
