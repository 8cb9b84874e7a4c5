"""QPdfView with the cited quote drawn over its page: yellow bands on the lines `pdf_locate.locate` found.

QPdfView draws pages but says nowhere where a page sits in the viewport, so `page_rect` repeats its layout
(continuous pages, custom zoom: QPdfViewPrivate::calculateDocumentLayout, Qt 6.6+): a page is its size in points
x the screen's logical dpi / 72 x the zoom, pages stacked with the view's spacing inside its margins, each
centred across, less the scroll bars' values. tests/test_app_window.py checks a band against the page's words.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSizeF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPen
from PySide6.QtPdf import QPdfDocument
from PySide6.QtPdfWidgets import QPdfView

from duocthu_desktop.app import style

Rect = tuple[float, float, float, float]


class HighlightPdfView(QPdfView):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setPageMode(QPdfView.PageMode.MultiPage)
        self.setZoomMode(QPdfView.ZoomMode.Custom)
        # always there, so fitting the page to the width never makes it appear and the page overflow
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.highlights: dict[int, list[Rect]] = {}  # 0-based page -> rects in PDF points
        self._layout_key: tuple = ()
        self._tops: list[float] = []  # each page's top in document coordinates
        self._sizes: list[QSizeF] = []
        self._width = 0.0

    # ---- geometry ---------------------------------------------------------------------------------------

    def _resolution(self) -> float:
        screen = QGuiApplication.primaryScreen()
        return (screen.logicalDotsPerInch() if screen is not None else 96.0) / 72.0

    @staticmethod
    def page_points(doc: QPdfDocument) -> list[tuple[float, float]]:
        """Every page's size in points, read once per document: by the worker that loaded it
        (SourceViewer.load_document), else here the first time. QtPdf takes its lock and Python's for each page,
        about 0.1 ms a page: 200 ms of the UI thread for a book the real size at each zoom, before."""
        points = getattr(doc, "page_points", None)
        if points is None or len(points) != doc.pageCount():
            points = [(size.width(), size.height()) for size in map(doc.pagePointSize, range(doc.pageCount()))]
            doc.page_points = points
        return points

    def scale(self) -> float:
        """Viewport pixels per PDF point."""
        return self._resolution() * self.zoomFactor()

    def _layout(self) -> tuple[list[float], list[QSizeF], float]:
        """Each page's top and size in document coordinates, and the document's width (cached per zoom)."""
        doc = self.document()
        margins = self.documentMargins()
        key = (id(doc), doc.pageCount(), self.zoomFactor(), self._resolution(), self.pageSpacing(),
               margins.top(), margins.left(), margins.right())
        if key != self._layout_key:
            resolution, zoom, spacing = self._resolution(), self.zoomFactor(), self.pageSpacing()
            # each side rounded to the nearest pixel as QSizeF.toSize does, as QPdfView's own layout does
            self._sizes = [QSizeF(int(w * resolution * zoom + 0.5), int(h * resolution * zoom + 0.5))
                           for w, h in self.page_points(doc)]
            self._tops, y = [], float(margins.top())
            for size in self._sizes:
                self._tops.append(y)
                y += size.height() + spacing
            # the widest page once per layout, not at each band drawn (1,700 pages at full size)
            self._width = max((s.width() for s in self._sizes), default=0) + margins.left() + margins.right()
            self._layout_key = key
        return self._tops, self._sizes, self._width

    def page_rect(self, page: int) -> QRectF:
        """Where 0-based `page` is drawn, in viewport coordinates."""
        doc = self.document()
        if doc is None or not 0 <= page < doc.pageCount():
            return QRectF()
        tops, sizes, total_width = self._layout()
        width = sizes[page].width()
        x = int((max(total_width, self.viewport().width()) - width) / 2)
        return QRectF(x - self.horizontalScrollBar().value(), tops[page] - self.verticalScrollBar().value(),
                      width, sizes[page].height())

    def to_view(self, page: int, rect: Rect) -> QRectF:
        """A rectangle in PDF points (origin top left) as viewport pixels."""
        origin = self.page_rect(page)
        scale = self.scale()
        x0, y0, x1, y1 = rect
        return QRectF(origin.x() + x0 * scale, origin.y() + y0 * scale, (x1 - x0) * scale, (y1 - y0) * scale)

    # ---- moving and marking -----------------------------------------------------------------------------

    def show_point(self, page: int, y_points: float = 0.0, above: float = 0.25) -> None:
        """Scroll so that `y_points` down `page` sits a quarter down the viewport."""
        if self.document() is None or self.document().status() != QPdfDocument.Status.Ready:
            return
        top = self.page_rect(page).y() + self.verticalScrollBar().value()
        target = top + y_points * self.scale() - self.viewport().height() * above
        self.verticalScrollBar().setValue(int(max(0, target)))
        self.viewport().update()

    def set_highlights(self, highlights: dict[int, list[Rect]]) -> None:
        self.highlights = dict(highlights)
        self.viewport().update()

    def highlight_rects(self) -> list[tuple[int, QRectF]]:
        """Every band as drawn now: (0-based page, viewport rectangle)."""
        return [(page, self.to_view(page, r)) for page, rects in self.highlights.items() for r in rects]

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().paintEvent(event)
        if not self.highlights or self.document() is None:
            return
        painter = QPainter(self.viewport())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(QColor(*style.HIGHLIGHT_EDGE), 1.2))
        painter.setBrush(QColor(*style.HIGHLIGHT))
        for _, rect in self.highlight_rects():
            painter.drawRoundedRect(rect.adjusted(-2, -1, 2, 1), 2, 2)
        painter.end()
