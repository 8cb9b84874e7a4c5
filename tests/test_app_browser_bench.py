"""The formulary browser and the viewer over the real sample book, off-screen: drugs found by any name the catalog
knows (diacritics and case aside, trade names too), the dosage section read as an outline whose statements open
their page highlighted, "Hỏi về thuốc này", and a quote across a page break highlighted on both pages."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before pytest-qt makes the QApplication

from PySide6.QtCore import Qt  # noqa: E402

from duocthu_desktop.app import operations  # noqa: E402
from duocthu_desktop.app.browser import DOSAGE_KEY, ROW_ROLE, FormularyBrowser  # noqa: E402
from duocthu_desktop.app.main_window import MainWindow  # noqa: E402
from duocthu_desktop.app.session import Session  # noqa: E402
from duocthu_desktop.artifacts import PAGES_FILE, Chunk, read_pages  # noqa: E402
from duocthu_desktop.payload import Citation  # noqa: E402
from duocthu_desktop.settings import Settings  # noqa: E402

pytestmark = pytest.mark.integration


class BookService:
    def __init__(self, monographs, chunks) -> None:
        self.monographs, self._chunks, self.manifest = list(monographs), list(chunks), None

    def all_chunks(self) -> list[Chunk]:
        return self._chunks

    def close(self) -> None:
        pass


class BookOnlyAssistant:
    """The sample book's monographs, chunks and catalog; the browser and the viewer ask no questions."""

    engine_name = "extractive"

    def __init__(self, monographs, chunks, catalog) -> None:
        self.service = BookService(monographs, chunks)
        self.catalog = catalog

    def ask(self, question, conversation_id=None, cancel=None):
        raise AssertionError("no turn in these tests")

    def warm_up(self) -> float:
        return 0.0


@pytest.fixture
def window(qtbot, tmp_path: Path, sample_pdf, sample_build, sample_chunks, sample_monographs, catalog):
    assistant = BookOnlyAssistant(sample_monographs, sample_chunks, catalog)
    settings = Settings(data_dir=tmp_path)
    session = Session(assistant, settings, sample_build, sample_pdf, owns_index=True)
    win = MainWindow(settings, opener=lambda _s, _p: session, warm_up=False)
    qtbot.addWidget(win)
    win.show()
    with qtbot.waitSignal(win.browser.outline_ready, timeout=10000), qtbot.waitSignal(win.session_ready, timeout=5000):
        win.start()
    yield win
    operations.wait_all(5000)


def _find(browser: FormularyBrowser, typed: str) -> list[str]:
    browser.search.setText(typed)
    return browser.visible_titles()


def test_the_browser_finds_a_drug_by_title_case_diacritics_and_trade_name(window, catalog):
    browser = window.browser
    assert len(browser.visible_titles()) == 17
    para = ["PARACETAMOL (Acetaminophen)"]
    trade = next(n for n in catalog.names_for("paracetamol") if n not in ("PARACETAMOL (Acetaminophen)",)
                 and n.lower() not in ("paracetamol", "acetaminophen") and len(n) >= 6 and n.isalpha())
    for typed in ("paracetamol", "Paracetamol", "PARACETAMOL", "acetaminophen", trade, trade.lower(), "Hapacol"):
        assert _find(browser, typed) == para, typed
    # the name in the title's parenthesis, a one-letter typo the catalog forgives, a part of a title being typed
    assert _find(browser, "aspirin") == _find(browser, "aspirine") == ["ACID ACETYLSALICYLIC (Aspirin)"]
    assert _find(browser, "Paracetamon") == para
    assert _find(browser, "furo") == ["FUROSEMID"]
    assert _find(browser, "không có thuốc này") == []
    assert len(_find(browser, "")) == 17


def _dosage_item(browser: FormularyBrowser, drug_id: str):
    for i in range(browser.tree.topLevelItemCount()):
        top = browser.tree.topLevelItem(i)
        for j in range(top.childCount()):
            if top.child(j).data(0, Qt.ItemDataRole.UserRole + 2) == drug_id and \
                    top.child(j).data(0, Qt.ItemDataRole.UserRole + 4) == DOSAGE_KEY:
                return top, top.child(j)
    raise AssertionError(f"no dosage section for {drug_id}")


def _leaves(item) -> list:
    if item.childCount() == 0:
        return [item]
    return [leaf for j in range(item.childCount()) for leaf in _leaves(item.child(j))]


def test_the_dosage_section_reads_as_an_outline_whose_statements_open_highlighted(qtbot, window):
    browser = window.browser
    _top, dosage = _dosage_item(browser, "paracetamol")
    assert dosage.childCount() == 0  # made when first opened, not for the whole book at start
    dosage.setExpanded(True)
    groups = [dosage.child(j).text(0) for j in range(dosage.childCount())]
    assert {"Người lớn", "Trẻ em"} <= set(groups)
    child = dosage.child(groups.index("Trẻ em"))
    route_texts = {leaf.parent().text(0) for leaf in _leaves(child)}
    assert "Uống" in {r for texts in route_texts for r in texts.split(", ")}  # group -> indication -> route
    leaf = next(leaf for leaf in _leaves(child) if "240 mg" in leaf.text(0))
    row = leaf.data(0, ROW_ROLE)
    assert row.text in leaf.text(0) and leaf.text(1) == f"tr. {row.printed_page}"  # the statement as printed
    with qtbot.waitSignal(window.citation_located, timeout=10000) as located:
        browser._activated(leaf)
    cite = located.args[0]
    assert cite.quote == row.text and cite.printed_page == row.printed_page
    assert window.viewer.folio.text() == f"trang {row.printed_page}"
    assert list(window.viewer.view.highlights) == [cite.physical_page - 1]


def test_asking_about_a_drug_scopes_the_next_question_to_it(qtbot, window):
    browser = window.browser
    browser.search.setText("Hapacol")
    browser.tree.setCurrentItem(browser.tree.topLevelItem(
        next(i for i in range(browser.tree.topLevelItemCount()) if not browser.tree.topLevelItem(i).isHidden())))
    qtbot.mouseClick(browser.ask_button, Qt.MouseButton.LeftButton)
    assert window.tabs.currentIndex() == 0
    assert window.question_box.toPlainText() == "Paracetamol: "


def _across_a_page_break(chunks: list[Chunk], pages) -> tuple[Citation, str, str]:
    """A dosage statement (one printed line) that starts on one page and ends on the next, with its parts on
    each page."""
    for chunk in chunks:
        if chunk.section_key != DOSAGE_KEY or chunk.quarantined:
            continue
        for (p1, _a1, b1), (p2, a2, _b2) in zip(chunk.page_spans, chunk.page_spans[1:], strict=False):
            if p2 != p1 + 1:
                continue
            start = chunk.text.rfind("\n", 0, b1) + 1
            end = chunk.text.find("\n", a2)
            quote = chunk.text[start:end if end > 0 else len(chunk.text)].strip()
            if start < b1 and a2 < start + len(quote) and len(quote) > 30:
                cite = Citation(index=1, chunk_id=chunk.chunk_id, drug_id=chunk.drug_id,
                                section_key=chunk.section_key, printed_page=pages.printed_for(p1),
                                physical_page=p1, quote=quote)
                return cite, chunk.text[start:b1], chunk.text[a2:start + len(quote)]
    raise AssertionError("the sample book has no dosage line across a page break")


def test_a_quote_across_a_page_break_highlights_on_both_pages(qtbot, window, sample_pdf, sample_build, sample_chunks):
    import pymupdf

    cite, on_first, on_second = _across_a_page_break(sample_chunks, read_pages(sample_build / PAGES_FILE))
    with qtbot.waitSignal(window.citation_located, timeout=10000):
        window.open_citation(cite)
    view = window.viewer.view
    first, second = cite.physical_page - 1, cite.physical_page
    assert sorted(view.highlights) == [first, second]
    viewport = view.viewport().rect()
    first_band = [rect.toRect() for page, rect in view.highlight_rects() if page == first]
    assert any(viewport.intersects(rect) for rect in first_band)  # scrolled to where the quote starts
    head, tail = on_first.split()[:3], on_second.split()[-3:]
    with pymupdf.open(sample_pdf) as doc:  # each page's band sits on that page's part of the quote
        for page, words in ((first, head), (second, tail)):
            truth = doc[page].search_for(" ".join(words))
            assert truth, (page, words)
            assert any(r.x0 < b[2] and b[0] < r.x1 and r.y0 < b[3] and b[1] < r.y1
                       for r in truth for b in view.highlights[page]), (page, words)
