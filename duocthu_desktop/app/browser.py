"""The formulary browser: every monograph A to Z, each opening as its sections in the book's order; activating
one opens its first page in the viewer. The search box finds a drug by any name the catalog knows it by (title,
INN, trade names), with or without diacritics. The dosage section also reads as an outline (group -> indication
-> route -> the statements of dosing.jsonl), each statement opening its page with the statement highlighted."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

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
from duocthu_desktop.dosage.rows import DOSING_FILE, DoseRow
from duocthu_desktop.dosage.stored import book_rows
from duocthu_desktop.dosage.titles import KIND_NAMES, NO_ROUTE, POPULATION_NAMES, indication_name
from duocthu_desktop.dosage.words import ROUTE_NAMES
from duocthu_desktop.payload import Citation
from duocthu_desktop.text import fold

log = logging.getLogger(__name__)

SEARCH = "Tìm thuốc: tên, tên gốc hoặc tên thương mại (có hoặc không dấu)…"
ASK = "Hỏi về thuốc này"
HEADERS = ["Chuyên luận / mục", "Trang"]
ANY_GROUP = "Chung (không ghi đối tượng)"
ANY_INDICATION = "Chỉ định chung"
CHECK_PDF = "Bảng hoặc đoạn chưa chắc đọc đúng: hãy đọc trên trang PDF."
DOSAGE_KEY = "lieu_luong_cach_dung"  # the section whose statements dosing.jsonl holds (a CONTRACT section key)
PAGE_ROLE = Qt.ItemDataRole.UserRole
TITLE_ROLE = Qt.ItemDataRole.UserRole + 1
DRUG_ROLE = Qt.ItemDataRole.UserRole + 2
ROW_ROLE = Qt.ItemDataRole.UserRole + 3  # a dose statement's DoseRow
OUTLINE_ROLE = Qt.ItemDataRole.UserRole + 4  # marks the outline's items, rebuilt when dosing.jsonl arrives
PENDING_ROLE = Qt.ItemDataRole.UserRole + 5  # a dosage section whose outline is made when it is first opened


class FormularyBrowser(QWidget):
    open_page = Signal(int)  # physical page
    open_section = Signal(str, str, int)  # drug id, section key, the section's first physical page
    open_citation = Signal(object)  # a Citation made from a dose statement: its page, the statement highlighted
    ask_about = Signal(str)  # the drug's name, as the catalog titles it
    outline_ready = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.catalog = None  # the Assistant's Catalog: every name a drug is found by
        self.physical_for: Callable[[int], int | None] = lambda _printed: None
        self.rows_by_drug: dict[str, list[DoseRow]] = {}
        self._names: dict[str, str] = {}  # drug_id -> its names, folded, for typing part of a name
        self.search = QLineEdit()
        self.search.setPlaceholderText(SEARCH)
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.filter)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(HEADERS)
        self.tree.setColumnWidth(0, 360)
        self.tree.itemActivated.connect(self._activated)
        self.tree.itemClicked.connect(self._activated)
        self.tree.itemExpanded.connect(self._expanded)
        self.ask_button = QPushButton(ASK)
        self.ask_button.clicked.connect(self._ask)
        row = QHBoxLayout()
        row.addWidget(self.search, 1)
        row.addWidget(self.ask_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.tree, 1)

    # ---- the monographs -----------------------------------------------------------------------------------

    def set_monographs(self, monographs: list[Monograph], physical_for: Callable[[int], int | None],
                       catalog=None) -> None:
        self.catalog = catalog
        self.physical_for = physical_for
        self._names = {}
        self.tree.clear()
        tops = []
        for mono in sorted(monographs, key=lambda m: fold(m.title)):
            top = QTreeWidgetItem([mono.title, _folio(mono.start_printed)])
            top.setData(0, PAGE_ROLE, mono.start_physical)
            top.setData(0, TITLE_ROLE, mono.title)
            top.setData(0, DRUG_ROLE, mono.drug_id)
            top.setToolTip(0, " · ".join(x for x in (mono.inn, mono.drug_class) if x))
            names = [mono.title, mono.inn or ""] + (catalog.names_for(mono.drug_id) if catalog is not None else [])
            self._names[mono.drug_id] = fold(" | ".join(names))
            for section in mono.sections:
                physical = physical_for(section.start_printed) if section.start_printed is not None else None
                child = QTreeWidgetItem([section.heading, _folio(section.start_printed)])
                child.setData(0, PAGE_ROLE, physical or mono.start_physical)
                child.setData(0, TITLE_ROLE, mono.title)
                child.setData(0, DRUG_ROLE, mono.drug_id)
                child.setData(0, OUTLINE_ROLE, section.key)
                top.addChild(child)
            tops.append(top)
        self.tree.addTopLevelItems(tops)  # one insertion: one by one, the shown tree laid itself out 680 times
        self._add_outlines()
        self.filter(self.search.text())

    def filter(self, text: str) -> None:
        """Show the drugs one of whose names holds what is typed, or that the catalog finds named in it."""
        key = fold(text.strip())
        named = set(self.catalog.resolve(text).drug_ids) if key and self.catalog is not None else set()
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            drug_id = item.data(0, DRUG_ROLE)
            item.setHidden(bool(key) and key not in self._names.get(drug_id, "") and drug_id not in named)

    def visible_titles(self) -> list[str]:
        return [self.tree.topLevelItem(i).text(0) for i in range(self.tree.topLevelItemCount())
                if not self.tree.topLevelItem(i).isHidden()]

    # ---- the dosage outline -------------------------------------------------------------------------------

    def load_dosing(self, index_dir: Path | None) -> None:
        """Read the index's dosing.jsonl off the UI thread; the outline appears under each dosage section."""
        from duocthu_desktop.app import operations

        path = Path(index_dir) / DOSING_FILE if index_dir is not None else None
        if path is None or not path.is_file():
            return
        operations.run(lambda task: by_drug(book_rows(path.parent)), on_success=self.set_dose_rows,
                       on_failure=lambda err: log.warning("no dosage outline: %s", err),
                       lane=operations.PDF, name="read-dosing")

    def set_dose_rows(self, rows_by_drug: dict[str, list[DoseRow]]) -> None:
        """The statements, grouped by drug on the worker (25,000 rows grouped here held the window 0.12 s)."""
        self.rows_by_drug = rows_by_drug
        self._add_outlines()
        self.outline_ready.emit()

    def _add_outlines(self) -> None:
        """Mark each dosage section that has statements; its outline is made when it is first opened (every
        statement of the book at once held the window for ~60 ms with 17 monographs, seconds with 684)."""
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            rows = self.rows_by_drug.get(top.data(0, DRUG_ROLE), [])
            for j in range(top.childCount()):
                section = top.child(j)
                if section.data(0, OUTLINE_ROLE) == DOSAGE_KEY:
                    section.takeChildren()
                    section.setData(0, PENDING_ROLE, bool(rows))
                    section.setChildIndicatorPolicy(
                        QTreeWidgetItem.ChildIndicatorPolicy.ShowIndicator if rows
                        else QTreeWidgetItem.ChildIndicatorPolicy.DontShowIndicatorWhenChildless)
                    if rows and section.isExpanded():
                        self._expanded(section)

    def _expanded(self, item: QTreeWidgetItem) -> None:
        if item.data(0, PENDING_ROLE):
            item.setData(0, PENDING_ROLE, False)
            self._outline(item, self.rows_by_drug.get(item.data(0, DRUG_ROLE), []))

    def _outline(self, section: QTreeWidgetItem, rows: list[DoseRow]) -> None:
        """group -> indication -> route -> statements, each level in the order the book first prints it."""
        levels: dict[tuple, QTreeWidgetItem] = {}

        def node(parent: QTreeWidgetItem, key: tuple, label: str) -> QTreeWidgetItem:
            if key not in levels:
                levels[key] = QTreeWidgetItem(parent, [label, ""])
                levels[key].setData(0, PAGE_ROLE, parent.data(0, PAGE_ROLE))
                levels[key].setData(0, DRUG_ROLE, parent.data(0, DRUG_ROLE))
                levels[key].setData(0, TITLE_ROLE, parent.data(0, TITLE_ROLE))
            return levels[key]

        for row in rows:
            group = POPULATION_NAMES.get(row.population or "", ANY_GROUP)
            route = ", ".join(ROUTE_NAMES[r] for r in row.route) if row.route else NO_ROUTE.capitalize()
            indication = indication_name(row.indication or ANY_INDICATION)
            at = node(section, (group,), group)
            at = node(at, (group, indication), indication)
            at = node(at, (group, indication, route), route)
            label = f"{KIND_NAMES[row.kind]}: {row.text}" if row.kind in KIND_NAMES else row.text
            leaf = QTreeWidgetItem(at, [label, _folio(row.printed_page)])
            leaf.setData(0, ROW_ROLE, row)
            leaf.setData(0, DRUG_ROLE, row.drug_id)
            leaf.setData(0, TITLE_ROLE, section.data(0, TITLE_ROLE))
            leaf.setToolTip(0, CHECK_PDF if row.quarantined else row.text)
            if row.quarantined:
                leaf.setForeground(0, Qt.GlobalColor.darkRed)

    def statement_citation(self, row: DoseRow) -> Citation | None:
        """The statement as a citation of its own page, so the viewer opens and highlights it."""
        physical = self.physical_for(row.printed_page) if row.printed_page is not None else None
        if physical is None:
            return None
        return Citation(index=1, chunk_id=row.chunk_id, drug_id=row.drug_id, section_key=DOSAGE_KEY,
                        printed_page=row.printed_page, physical_page=physical, quote=row.text)

    # ---- activating ---------------------------------------------------------------------------------------

    def _activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        row = item.data(0, ROW_ROLE)
        citation = self.statement_citation(row) if isinstance(row, DoseRow) else None
        if citation is not None:
            self.open_citation.emit(citation)
            return
        page = item.data(0, PAGE_ROLE)
        section = item.data(0, OUTLINE_ROLE)
        if page and section and item.parent() is not None and item.parent().parent() is None:
            self.open_section.emit(item.data(0, DRUG_ROLE), section, int(page))  # lands on its heading
        elif page:
            self.open_page.emit(int(page))

    def _ask(self) -> None:
        item = self.tree.currentItem()
        if item is None:
            return
        drug_id = item.data(0, DRUG_ROLE)
        self.ask_about.emit(self.catalog.title(drug_id) if self.catalog is not None else item.data(0, TITLE_ROLE))


def by_drug(rows: list[DoseRow]) -> dict[str, list[DoseRow]]:
    grouped: dict[str, list[DoseRow]] = {}
    for row in rows:
        grouped.setdefault(row.drug_id, []).append(row)
    return grouped


def _folio(printed: int | None) -> str:
    return f"tr. {printed}" if printed is not None else ""
