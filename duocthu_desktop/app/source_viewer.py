"""The source viewer beside the chat: the formulary PDF, opened at the cited page with the quote highlighted.

It shows the book's own folio ("trang 1120") and the file page, pages back and forth, zooms, searches the PDF,
and says when quotes cannot be highlighted (a different PDF than the index was built from, or none).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QModelIndex, Qt
from PySide6.QtGui import QIntValidator, QKeySequence, QShortcut
from PySide6.QtPdf import QPdfDocument, QPdfSearchModel
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from duocthu_desktop.app import style
from duocthu_desktop.app.answer_text import page_label
from duocthu_desktop.app.pdf_view import HighlightPdfView
from duocthu_desktop.payload import Citation
from duocthu_desktop.sections import SECTION_BY_KEY

NO_PDF = "Chưa mở tệp PDF của Dược thư."
LOADING_PDF = "Đang mở tệp PDF…"
FOLIO = "trang {folio}"
NO_FOLIO = "trang không số"
FILE_PAGE = "tệp: trang"
OF_PAGES = "/ {count}"
SEARCH = "Tìm trong PDF…"
GO_FOLIO = "Đến trang sách…"
NOT_FOUND = "Không tìm thấy"
INDEX_GONE = ("[{index}] thuộc chỉ mục cũ, đã được thay bằng chỉ mục của một bản sách khác: trang của nó có thể "
              "không còn là trang của sách đang mở. Hãy hỏi lại để có trích dẫn của chỉ mục mới.")
QUOTE_NOT_FOUND = "Không định vị được đoạn trích trên trang; hãy đọc trang {page}."
ZOOM_STEP = 1.2
YIELD_EVERY, YIELD_SECONDS = 8, 0.001  # reading page sizes on a worker: pages between pauses, and each pause


def _tool(text: str, tip: str, slot) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tip)
    button.setAccessibleName(tip)
    button.clicked.connect(slot)
    return button


class SourceViewer(QWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.document = QPdfDocument(self)
        self._pending: tuple[int, float] | None = None  # (file page, y) asked for before the PDF was loaded
        self.view = HighlightPdfView(self)
        self.view.setDocument(self.document)
        self.search_model = QPdfSearchModel(self)
        self.search_model.setDocument(self.document)
        self.view.setSearchModel(self.search_model)
        self.printed_for: Callable[[int], int | None] = lambda _physical: None
        self.physical_for: Callable[[int], int | None] = lambda _printed: None
        self.page_caption: Callable[[int], str | None] = lambda _physical: None  # what a page holds (the core's)
        self._cited_pages: set[int] = set()  # the open citation's file pages: its caption stays while one is shown
        self._citation_caption = ""
        self.citation: Citation | None = None
        self._fit_width = True
        self._search_index = -1

        self.folio = QLabel(NO_PDF)
        self.folio.setObjectName("folio")
        style.emphasise(self.folio, style.ACCENT, bold=True)
        self.page_box = QSpinBox()
        self.page_box.setMinimum(1)
        self.page_box.setAccessibleName("Trang trong tệp PDF")
        self.page_box.valueChanged.connect(lambda v: self.go_to_page(v) if v != self.current_page() else None)
        self.page_count = QLabel("")
        self.go_folio = QLineEdit()
        self.go_folio.setPlaceholderText(GO_FOLIO)
        self.go_folio.setValidator(QIntValidator(1, 99999, self))
        self.go_folio.setMaximumWidth(120)
        self.go_folio.returnPressed.connect(self._go_to_folio)
        self.search_box = QLineEdit()
        self.search_box.setPlaceholderText(SEARCH)
        self.search_box.setClearButtonEnabled(True)
        self.search_box.returnPressed.connect(lambda: self.find_next(1))
        self.search_box.textChanged.connect(self._search_changed)
        self.search_count = QLabel("")
        self.caption = QLabel("")
        self.caption.setWordWrap(True)
        self.warning = QLabel("")
        self.warning.setObjectName("pdfWarning")
        style.emphasise(self.warning, style.WARNING_FG)
        self.warning.setWordWrap(True)
        self.warning.hide()

        nav = QHBoxLayout()
        nav.addWidget(self.folio)
        nav.addSpacing(8)
        nav.addWidget(_tool("◀", "Trang trước", lambda: self.go_to_page(self.current_page() - 1)))
        nav.addWidget(QLabel(FILE_PAGE))
        nav.addWidget(self.page_box)
        nav.addWidget(self.page_count)
        nav.addWidget(_tool("▶", "Trang sau", lambda: self.go_to_page(self.current_page() + 1)))
        nav.addWidget(self.go_folio)
        nav.addStretch(1)
        nav.addWidget(_tool("−", "Thu nhỏ", lambda: self.zoom(1 / ZOOM_STEP)))
        nav.addWidget(_tool("+", "Phóng to", lambda: self.zoom(ZOOM_STEP)))
        nav.addWidget(_tool("↔", "Vừa chiều rộng", self.fit_width))
        find = QHBoxLayout()
        find.addWidget(self.search_box, 1)
        find.addWidget(_tool("↑", "Kết quả trước", lambda: self.find_next(-1)))
        find.addWidget(_tool("↓", "Kết quả sau", lambda: self.find_next(1)))
        find.addWidget(self.search_count)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(nav)
        layout.addLayout(find)
        layout.addWidget(self.warning)
        layout.addWidget(self.caption)
        layout.addWidget(self.view, 1)

        self.view.pageNavigator().currentPageChanged.connect(self._page_changed)
        self.search_model.rowsInserted.connect(self._count_results)
        self.search_model.modelReset.connect(self._count_results)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Find), self, self.search_box.setFocus)

    # ---- the document -------------------------------------------------------------------------------------

    @staticmethod
    def load_document(path: Path | None) -> QPdfDocument | None:
        """The PDF loaded on a worker thread and handed to the UI thread's, for `open_pdf`; None if it cannot be."""
        if path is None or not Path(path).is_file():
            return None
        document = QPdfDocument()
        if document.load(str(path)) != QPdfDocument.Error.None_:
            return None
        points = []  # read once here: the view lays out every page by its size (HighlightPdfView.page_points),
        for page in range(document.pageCount()):  # ~1 ms a page the first time (64 ms for the 56-page sample)
            size = document.pagePointSize(page)
            points.append((size.width(), size.height()))
            if page % YIELD_EVERY == YIELD_EVERY - 1:
                time.sleep(YIELD_SECONDS)  # let the UI thread have Python's lock (1.5 s for 1,900 pages without)
        document.page_points = points  # kept with the document: the view's layout reads no page size again
        document.moveToThread(QCoreApplication.instance().thread())
        return document

    def open_pdf(self, loaded: QPdfDocument | None) -> bool:
        """Show the document `load_document` read on a worker; None says there is no PDF to show."""
        if self._pending is None:  # a citation opened while this PDF loaded keeps its bands for it
            self.view.set_highlights({})
        if loaded is None:
            self.document.close()
            self.folio.setText(NO_PDF)
            self._pending = None
            return False
        self._adopt(loaded)
        self.page_box.setMaximum(max(1, self.document.pageCount()))
        self.page_count.setText(OF_PAGES.format(count=self.document.pageCount()))
        self.fit_width()
        self._page_changed(self.view.pageNavigator().currentPage())
        pending, self._pending = self._pending, None
        if pending is not None:
            self.go_to_page(*pending)
        return True

    def _adopt(self, document: QPdfDocument) -> None:
        old, self.document = self.document, document
        document.setParent(self)
        self.view.setDocument(document)
        self.search_model.setDocument(document)
        old.deleteLater()

    def set_warning(self, text: str | None) -> None:
        self.warning.setText(text or "")
        self.warning.setVisible(bool(text))

    def current_page(self) -> int:
        """The 1-based file page in view."""
        return self.view.pageNavigator().currentPage() + 1

    def loading(self) -> None:
        """Say the PDF is on its way (it is read off the UI thread after the index opens)."""
        self.folio.setText(LOADING_PDF)

    def go_to_page(self, physical: int, y_points: float = 0.0, above: float | None = None) -> None:
        """Show file page `physical` (1-based) from `y_points` down, `above` of the view's height left above it
        (a quarter by default, for a quote read in its context)."""
        if self.document.pageCount() == 0:
            self._pending = (physical, y_points)  # a citation opened before the PDF arrived: shown when it does
            return
        physical = min(max(1, physical), self.document.pageCount())
        self.view.show_point(physical - 1, y_points, above=(0.25 if above is None else above) if y_points else 0.0)
        self._page_changed(physical - 1)

    def _go_to_folio(self) -> None:
        text = self.go_folio.text().strip()
        physical = self.physical_for(int(text)) if text.isdigit() else None
        if physical is not None:
            self.go_to_page(physical)
        else:
            self.go_folio.selectAll()

    def _page_changed(self, page: int) -> None:
        physical = page + 1
        printed = self.printed_for(physical)
        self.folio.setText(FOLIO.format(folio=printed) if printed is not None else NO_FOLIO)
        self.page_box.blockSignals(True)
        self.page_box.setValue(physical)
        self.page_box.blockSignals(False)
        self._caption_for(physical)

    def _caption_for(self, physical: int) -> None:
        """The open citation's caption on its own pages; elsewhere, what the page shown holds."""
        if physical in self._cited_pages:
            text = self._citation_caption
        else:
            text = self.page_caption(physical) or ""
            if text:
                printed = self.printed_for(physical)
                text += " · " + (FOLIO.format(folio=printed) if printed is not None else NO_FOLIO)
        if self.caption.text() != text:
            self.caption.setText(text)

    # ---- citations ----------------------------------------------------------------------------------------

    def show_citation(self, citation: Citation, title: str | None = None) -> None:
        """Open the cited page at once; the highlight follows when the quote is found (`show_located`)."""
        self.citation = citation
        section = SECTION_BY_KEY.get(citation.section_key)
        parts = [f"[{citation.index}]", title or citation.drug_id]
        if section is not None:
            parts.append(section.heading)
        self._citation_caption = " · ".join(parts) + f" · {page_label(citation)}"
        self._cited_pages = {citation.physical_page}
        self.caption.setText(self._citation_caption)
        self.view.set_highlights({})
        self.go_to_page(citation.physical_page)

    def drop_citation(self) -> None:
        """The chip of the open citation is no longer in the chat (it was cleared): its number and highlight would
        name an answer no longer shown; the page stays, captioned by what it holds."""
        if self.citation is None and not self._cited_pages:
            return
        self.citation = None
        self._cited_pages = set()
        self._citation_caption = ""
        self.view.set_highlights({})
        self._caption_for(self.current_page())

    def show_gone(self, citation: Citation) -> None:
        """A chip from an index since replaced: say so, and leave the page shown as it is."""
        self.citation = None
        self._cited_pages = {self.current_page()}  # the words stay while this page is shown
        self._citation_caption = INDEX_GONE.format(index=citation.index)
        self.view.set_highlights({})
        self.caption.setText(self._citation_caption)

    def show_located(self, citation: Citation, located: list[tuple[int, list[tuple]]]) -> bool:
        """Highlight the quote's lines (pages 1-based, rects in points) and scroll to its first line; False when
        another citation was opened since."""
        if citation is not self.citation:
            return False
        highlights = {physical - 1: list(rects) for physical, rects in located if rects}
        self.view.set_highlights(highlights)
        self._cited_pages |= {page + 1 for page in highlights}
        if not highlights:
            self._citation_caption += "\n" + QUOTE_NOT_FOUND.format(page=page_label(citation))
            self.caption.setText(self._citation_caption)
            return True
        first_page, first_rects = located[0][0], located[0][1]
        self.go_to_page(first_page, min(r[1] for r in first_rects))
        return True

    # ---- zoom and search ----------------------------------------------------------------------------------

    def zoom(self, factor: float) -> None:
        self._fit_width = False
        page = self.current_page()
        self.view.setZoomFactor(min(6.0, max(0.25, self.view.zoomFactor() * factor)))
        self.go_to_page(page)

    def fit_width(self) -> None:
        self._fit_width = True
        if self.document.pageCount() == 0:
            return
        widest = max(width for width, _ in HighlightPdfView.page_points(self.document)[:8])
        margins = self.view.documentMargins()
        room = self.view.viewport().width() - margins.left() - margins.right() - 2
        if widest > 0 and room > 50:
            self.view.setZoomFactor(room / (widest * self.view.scale() / self.view.zoomFactor()))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if self._fit_width:
            page = self.current_page()
            self.fit_width()
            if self.citation is None or not self.view.highlights:
                self.go_to_page(page)
            else:
                page0 = min(self.view.highlights)
                self.go_to_page(page0 + 1, min(r[1] for r in self.view.highlights[page0]))

    def _search_changed(self, text: str) -> None:
        self._search_index = -1
        self.search_model.setSearchString(text)
        self._count_results()

    def _count_results(self, *_args) -> None:
        count = self.search_model.rowCount(QModelIndex())
        text = self.search_box.text()
        if not text:
            self.search_count.setText("")
        elif count == 0:
            self.search_count.setText(NOT_FOUND)
        else:
            shown = self._search_index + 1 if self._search_index >= 0 else "–"
            self.search_count.setText(f"{shown}/{count}")

    def find_next(self, step: int) -> None:
        count = self.search_model.rowCount(QModelIndex())
        if count == 0:
            self._count_results()
            return
        self._search_index = (self._search_index + step) % count
        self.view.setCurrentSearchResultIndex(self._search_index)
        link = self.search_model.resultAtIndex(self._search_index)
        rects = link.rectangles()
        self.go_to_page(link.page() + 1, rects[0].top() if rects else link.location().y())
        self._count_results()

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if event.key() == Qt.Key.Key_PageDown:
            self.go_to_page(self.current_page() + 1)
        elif event.key() == Qt.Key.Key_PageUp:
            self.go_to_page(self.current_page() - 1)
        else:
            super().keyPressEvent(event)
