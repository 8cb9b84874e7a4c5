"""Where a citation's quote sits in the formulary PDF, as line rectangles the viewer highlights.

The chunk's `page_spans` say which part of its text lies on which physical page, so the quote is cut at page
breaks and each piece is looked for on its own page. A piece is matched on the page's words with all but
letters and digits dropped (diacritics too; a ligature counts as its letters), so line breaks, a word hyphenated
at a line end, spacing and the order in which a PDF draws its columns do not matter, and a running header
printed between two columns is jumped over. Where a short piece occurs more than once, the chunk's own text
around it picks the occurrence. PyMuPDF's `search_for` then gives exact glyph boxes for those lines where its
hits hold exactly the piece's letters; the word boxes serve elsewhere.

Rectangles are (x0, y0, x1, y1) in PDF points, PyMuPDF's page space: origin at the top left, y downwards.
Highlight only on the PDF the index was built from (duocthu_desktop.pdf_check). A `Locator` keeps one PDF
open and each page's words once read; `locate` is the one-off form.
"""

from __future__ import annotations

import os
import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from duocthu_desktop.artifacts import Chunk

if TYPE_CHECKING:  # imported where a PDF is opened: the app's own process only starts the worker (pymupdf and its
    import pymupdf  # layout package are 60 % of the window's imports, 1 s of CPU, before typing is taken)

Rect = tuple[float, float, float, float]
PageRects = tuple[int, list[Rect]]

CONTEXT_CHARS = 160  # key characters of the chunk on either side of a piece, to choose among its occurrences
MAX_GAP = 80  # key characters of other text (a running header, a footnote mark) a quote may jump over
MAX_GAPS = 4
RESYNC = 10  # key characters that must agree to pick a quote up again after a gap


class CitationLike(Protocol):
    quote: str
    physical_page: int


# ---- matching keys: letters and digits only ------------------------------------------------------------


def _key_chars(text: str) -> Iterable[tuple[int, str]]:
    """(index in `text`, key character) for each letter or digit: compatibility-decomposed (a ligature is its
    letters), case folded, marks dropped, so composed and decomposed Vietnamese letters agree."""
    for i, ch in enumerate(text):
        for k in unicodedata.normalize("NFKD", ch).casefold():
            if k.isalnum():
                yield i, k


def text_key(text: str) -> tuple[str, list[int]]:
    """The key of `text` and, for each key character, the index in `text` of the character it came from."""
    pairs = list(_key_chars(text))
    return "".join(k for _, k in pairs), [i for i, _ in pairs]


Box = tuple[float, float, float, float]


def _union(boxes: Iterable[Box]) -> Box:
    x0s, y0s, x1s, y1s = zip(*boxes, strict=True)
    return min(x0s), min(y0s), max(x1s), max(y1s)


@dataclass
class _Line:
    words: list[tuple[Box, str]]
    box: Box = (0.0, 0.0, 0.0, 0.0)

    def close(self) -> _Line:
        self.box = _union(b for b, _ in self.words)
        return self


class _PageText:
    """A page's words in one reading order, with the key over them and each key character's word."""

    def __init__(self, lines: list[_Line]) -> None:
        self.lines = lines
        chars: list[str] = []
        self.owner: list[tuple[int, int]] = []  # (line, word) of each key character
        for li, line in enumerate(lines):
            for wi, (_, word) in enumerate(line.words):
                key, _ = text_key(word)
                chars.append(key)
                self.owner.extend([(li, wi)] * len(key))
        self.key = "".join(chars)

    def rects(self, spans: list[tuple[int, int]]) -> list[Box]:
        """One box per line for the words holding the key characters of `spans`, in reading order."""
        by_line: dict[int, set[int]] = {}
        for start, end in spans:
            for li, wi in self.owner[start:end]:
                by_line.setdefault(li, set()).add(wi)
        return [_union(self.lines[li].words[wi][0] for wi in wis) for li, wis in by_line.items()]


def _lines(page: pymupdf.Page) -> list[_Line]:
    """The page's text lines as PyMuPDF extracts them (content-stream order)."""
    grouped: dict[tuple[int, int], _Line] = {}
    for x0, y0, x1, y1, text, block, line, _ in page.get_text("words"):
        grouped.setdefault((block, line), _Line([])).words.append(((x0, y0, x1, y1), text))
    return [line.close() for line in grouped.values()]


def _column_order(lines: list[_Line], width: float) -> list[_Line]:
    """Lines as a two-column book is read: left column top to bottom, then the right one; lines sharing a row
    (table cells) left to right. A line reaching well across the middle counts as the left column's."""
    mid = width / 2

    def column(line: _Line) -> int:
        x0, _, x1, _ = line.box
        if x0 < mid < x1 and x1 - x0 > width / 3:
            return 0
        return 0 if (x0 + x1) / 2 < mid else 1

    ordered = sorted(lines, key=lambda ln: (column(ln), ln.box[1], ln.box[0]))
    rows: list[list[_Line]] = []
    for line in ordered:
        last = rows[-1][-1] if rows else None
        if last is not None and column(last) == column(line) and _same_row(last.box, line.box):
            rows[-1].append(line)
        else:
            rows.append([line])
    return [ln for row in rows for ln in sorted(row, key=lambda ln: ln.box[0])]


def _same_row(a: Box, b: Box) -> bool:
    overlap = min(a[3], b[3]) - max(a[1], b[1])
    return overlap > 0.6 * min(a[3] - a[1], b[3] - b[1])


class _Page:
    """One PDF page's words in the orders worth trying: column order first, then the PDF's own."""

    def __init__(self, page: pymupdf.Page) -> None:
        self.page = page
        self._orders: list[_PageText] = []
        self._chars: list[tuple[float, float, str]] | None = None

    @property
    def orders(self) -> list[_PageText]:
        if not self._orders:
            stream = _lines(self.page)
            self._orders = [_PageText(_column_order(stream, self.page.rect.width)), _PageText(stream)]
        return self._orders

    def _centres(self) -> list[tuple[float, float, str]]:
        """Every character as (centre y, centre x, char), by centre y (to check what a search hit covers)."""
        if self._chars is None:
            self._chars = sorted(
                ((ch["bbox"][1] + ch["bbox"][3]) / 2, (ch["bbox"][0] + ch["bbox"][2]) / 2, ch["c"])
                for block in self.page.get_text("rawdict")["blocks"]
                for line in block.get("lines", [])
                for span in line["spans"]
                for ch in span["chars"]
            )
        return self._chars

    def key_within(self, boxes: list[Box]) -> str:
        """The key of the characters whose centre lies in each box, box after box, left to right."""
        chars = self._centres()
        ys = [y for y, _, _ in chars]
        text = []
        for x0, y0, x1, y1 in boxes:
            inside = [(x, c) for y, x, c in chars[bisect_left(ys, y0):bisect_right(ys, y1)] if x0 <= x <= x1]
            text.append("".join(c for _, c in sorted(inside, key=lambda xc: xc[0])))
        return text_key(" ".join(text))[0]


# ---- finding one piece on one page ---------------------------------------------------------------------


def _agree(hay: str, at: int, text: str, step: int) -> int:
    """How many characters of `text` agree with `hay` from `at` going by `step` (+1 forwards, -1 backwards)."""
    n = 0
    chars = text if step > 0 else reversed(text)
    for ch in chars:
        i = at + step * n
        if not 0 <= i < len(hay) or hay[i] != ch:
            break
        n += 1
    return n


def _best_occurrence(hay: str, needle: str, before: str, after: str) -> int | None:
    """Start of the occurrence of `needle` in `hay` whose surroundings agree most with `before`/`after`."""
    best, best_score = None, -1
    pos = hay.find(needle)
    while pos >= 0:
        score = _agree(hay, pos - 1, before, -1) + _agree(hay, pos + len(needle), after, 1)
        if score > best_score:
            best, best_score = pos, score
        pos = hay.find(needle, pos + 1)
    return best


def _follow(hay: str, needle: str, pos: int) -> list[tuple[int, int]] | None:
    """The needle matched from `pos` on, jumping over up to MAX_GAPS runs of other text of up to MAX_GAP key
    characters each (a running header or a folio between two columns); [(start, end)] or None. Where the other
    text happens to begin like the needle goes on, the cut that lets the needle go on longest wins."""
    spans: list[tuple[int, int]] = []
    done = 0
    while True:
        n = _agree(hay, pos, needle[done:], 1)
        if n == 0:
            return None
        if done + n == len(needle):
            return [*spans, (pos, pos + n)]
        if len(spans) >= MAX_GAPS:
            return None
        best: tuple[int, int, int] | None = None  # (run after the gap, back, where)
        for back in range(min(n, RESYNC)):
            rest = needle[done + n - back:]
            start = pos + n - back + 1
            where = hay.find(rest[:RESYNC], start, start + MAX_GAP + RESYNC)
            if where >= 0 and (best is None or _agree(hay, where, rest, 1) > best[0]):
                best = (_agree(hay, where, rest, 1), back, where)
        if best is None:
            return None
        _, back, where = best
        spans.append((pos, pos + n - back))
        done += n - back
        pos = where


def _gapped(text: _PageText, needle: str, before: str, after: str) -> list[tuple[int, int]] | None:
    """Like `_best_occurrence`, for a needle broken by other text on the page (see `_follow`): anchored on its
    head, else on its tail (the gap may come within the head)."""
    if len(needle) < 2 * RESYNC:
        return None
    found = _gapped_forward(text.key, needle, before, after)
    if found is not None:
        return found
    size = len(text.key)
    back = _gapped_forward(text.key[::-1], needle[::-1], after[::-1], before[::-1])
    return None if back is None else [(size - end, size - start) for start, end in reversed(back)]


def _gapped_forward(hay: str, needle: str, before: str, after: str) -> list[tuple[int, int]] | None:
    best, best_score = None, -1
    pos = hay.find(needle[:RESYNC])
    while pos >= 0:
        spans = _follow(hay, needle, pos)
        if spans is not None:
            score = _agree(hay, pos - 1, before, -1) + _agree(hay, spans[-1][1], after, 1)
            if score > best_score:
                best, best_score = spans, score
        pos = hay.find(needle[:RESYNC], pos + 1)
    return best


def _find(page: _Page, needle: str, before: str = "", after: str = "") -> tuple[_PageText, list[tuple[int, int]]] | None:
    """Where the needle is on the page, as key spans of one reading order: whole if it can be, else gapped."""
    for text in page.orders:
        pos = _best_occurrence(text.key, needle, before, after)
        if pos is not None:
            return text, [(pos, pos + len(needle))]
    for text in page.orders:
        spans = _gapped(text, needle, before, after)
        if spans is not None:
            return text, spans
    return None


def _sharpen(page: _Page, printed: str, key: str, lines: list[Box]) -> list[Box]:
    """PyMuPDF's own boxes for `printed` on the matched lines, where they hold exactly the piece's letters and
    digits (its search can be off by a character across a hyphenated line end); else the word boxes."""
    needle = " ".join(printed.split())
    if not needle:
        return lines
    try:
        hits = [tuple(h) for h in page.page.search_for(needle)]
    except Exception:  # noqa: BLE001 - a search failure only costs the sharper boxes
        return lines
    grown = [(x0 - 1, y0 - 1, x1 + 1, y1 + 1) for x0, y0, x1, y1 in lines]
    kept = [h for h in hits if any(_inside(((h[0] + h[2]) / 2, (h[1] + h[3]) / 2), g) for g in grown)]
    if kept and page.key_within(kept) == key:
        return kept
    return lines


def _inside(point: tuple[float, float], box: Box) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _piece_rects(page: _Page, key: str, printed: str, before: str, after: str) -> list[Box]:
    found = _find(page, key, before, after)
    if found is None:
        return []
    text, spans = found
    return _sharpen(page, printed, key, text.rects(spans))


# ---- the quote: where it is in the chunk, and its pieces per page ----------------------------------------


def _quote_span(chunk: Chunk, quote: str, physical: int | None) -> tuple[int, int] | None:
    """(start, end) of the quote in the chunk text; the occurrence on the cited page if there are several."""
    words = quote.split()
    spans: list[tuple[int, int]] = []
    if words:
        pattern = re.compile(r"\s+".join(re.escape(w) for w in words))
        spans = [(m.start(), m.end()) for m in pattern.finditer(chunk.text)]
    if not spans:  # spelled differently (spacing, punctuation): match on the key
        hay, origin = text_key(chunk.text)
        needle, _ = text_key(quote)
        pos = hay.find(needle) if needle else -1
        if pos < 0:
            return None
        spans = [(origin[pos], origin[pos + len(needle) - 1] + 1)]
    for start, end in spans:
        if physical is not None and _page_at(chunk, start) == physical:
            return start, end
    return spans[0]


def _page_at(chunk: Chunk, offset: int) -> int | None:
    for span in chunk.page_spans:
        if len(span) == 3 and span[1] <= offset < span[2]:
            return span[0]
    return None


def _pieces(chunk: Chunk, start: int, end: int) -> list[tuple[int, int, int, int, int]]:
    """(physical, piece start, piece end, page-span start, page-span end) for each page the quote touches."""
    out = []
    for span in chunk.page_spans:
        if len(span) != 3:
            continue
        physical, s0, s1 = span
        a, b = max(start, s0), min(end, s1)
        if a < b:
            out.append((physical, a, b, s0, s1))
    return out


def _context(text: str, start: int, end: int, lo: int, hi: int) -> tuple[str, str]:
    before, _ = text_key(text[max(lo, start - 4 * CONTEXT_CHARS):start])
    after, _ = text_key(text[end:min(hi, end + 4 * CONTEXT_CHARS)])
    return before[-CONTEXT_CHARS:], after[:CONTEXT_CHARS]


def _longest_prefix(page: _Page, key: str) -> int:
    """Length of the longest prefix of `key` found on the page (binary search: prefixes of a found one are)."""
    lo, hi = 0, len(key)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _find(page, key[:mid]) is not None:
            lo = mid
        else:
            hi = mid - 1
    return lo


# ---- the public functions ----------------------------------------------------------------------------


def locate(citation: CitationLike, chunk: Chunk | None, pdf: Path | str | pymupdf.Document) -> list[PageRects]:
    """[(physical page, [line rects])] where the citation's quote is printed, in reading order; a quote across
    a page break gives both pages. [] when the quote is not found (the viewer then opens the cited page
    without a highlight). For many quotes in one PDF, keep a `Locator`: it reads each page once."""
    if not isinstance(pdf, (str, Path)):  # an open pymupdf.Document
        return Locator(pdf).locate(citation, chunk)
    with Locator.open(pdf) as locator:
        return locator.locate(citation, chunk)


class Locator:
    """One open PDF and the words of the pages read so far. Use it from one thread at a time."""

    def __init__(self, doc: pymupdf.Document, owned: bool = False) -> None:
        self.doc = doc
        self._owned = owned
        self._pages: dict[int, _Page] = {}

    @classmethod
    def open(cls, path: Path | str) -> Locator:
        import pymupdf

        return cls(pymupdf.open(path), owned=True)

    def close(self) -> None:
        self._pages.clear()
        if self._owned:
            self.doc.close()

    def __enter__(self) -> Locator:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def page(self, physical: int) -> _Page | None:
        if not 1 <= physical <= self.doc.page_count:
            return None
        if physical not in self._pages:
            self._pages[physical] = _Page(self.doc[physical - 1])
        return self._pages[physical]

    def locate(self, citation: CitationLike, chunk: Chunk | None) -> list[PageRects]:
        """See `locate`."""
        span = _quote_span(chunk, citation.quote, citation.physical_page) if chunk is not None else None
        pieces = _pieces(chunk, *span) if chunk is not None and span is not None else []
        found: list[PageRects] = []
        for physical, a, b, lo, hi in pieces:
            target = self.page(physical)
            key, _ = text_key(chunk.text[a:b])
            if target is None or not key:
                continue
            before, after = _context(chunk.text, a, b, lo, hi)
            rects = _piece_rects(target, key, chunk.text[a:b], before, after)
            if rects:
                found.append((physical, [_plain(r) for r in rects]))
        return found or _locate_loose(citation, chunk, self.page)


def _locate_loose(citation: CitationLike, chunk: Chunk | None, page) -> list[PageRects]:
    """Without usable page spans: the whole quote on the cited page (or the chunk's pages), else its head at
    the end of one page and the rest on the next."""
    key, origin = text_key(citation.quote)
    if not key:
        return []
    candidates = [citation.physical_page] + ([p for p in chunk.physical_pages if p != citation.physical_page]
                                             if chunk is not None else [])
    for physical in candidates:
        target = page(physical)
        if target is not None and (rects := _piece_rects(target, key, citation.quote, "", "")):
            return [(physical, [_plain(r) for r in rects])]
    first, second = page(citation.physical_page), page(citation.physical_page + 1)
    if first is None or second is None:
        return []
    head = _longest_prefix(first, key)
    if head == 0 or head == len(key):
        return []
    cut = origin[head]
    rects_a = _piece_rects(first, key[:head], citation.quote[:cut], "", "")
    rects_b = _piece_rects(second, key[head:], citation.quote[cut:], "", "")
    if not rects_a or not rects_b:
        return []
    return [(citation.physical_page, [_plain(r) for r in rects_a]),
            (citation.physical_page + 1, [_plain(r) for r in rects_b])]


def _plain(r: Box) -> Rect:
    return (round(r[0], 2), round(r[1], 2), round(r[2], 2), round(r[3], 2))


# ---- in a process of its own ---------------------------------------------------------------------------------
#
# PyMuPDF holds Python's lock while it reads a page, so a Locator on a background thread still stalls the thread
# that draws the window (about 300 ms for the first quote of a PDF, measured by bench/app_bench.py). Reading the
# PDF in a worker process leaves the caller's thread waiting on a pipe, which holds no lock.

_WORKER: dict[str, Locator] = {}
WORKER_NICENESS = 5


def lower_priority() -> None:
    """In a worker process: yield the cores to the process that draws the window (it finds a quote while the
    answer is shown, and the window must not wait for a core behind it)."""
    try:
        os.nice(WORKER_NICENESS)
    except (AttributeError, OSError):  # no nice() on Windows; a refusal only keeps the normal priority
        pass


def _locate_in_worker(pdf_path: str, citation: CitationLike, chunk: Chunk | None) -> list[PageRects]:
    locator = _WORKER.get(pdf_path)
    if locator is None:
        locator = _WORKER[pdf_path] = Locator.open(pdf_path)
    return locator.locate(citation, chunk)


def _open_in_worker(pdf_path: str) -> int:
    if pdf_path not in _WORKER:
        _WORKER[pdf_path] = Locator.open(pdf_path)
    return _WORKER[pdf_path].doc.page_count


class LocatorProcess:
    """A Locator in a worker process (spawned, so it shares no thread or lock with the caller). `locate` waits for
    the worker; when the worker cannot run (no process can be started, it died), quotes are found in-process."""

    TIMEOUT_S = 60.0

    def __init__(self, path: Path | str) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.path = str(path)
        self._pool: ProcessPoolExecutor | None = ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=lower_priority
        )
        self._local: Locator | None = None

    def warm(self) -> None:
        """Start the worker and open the PDF there now, so the first quote does not wait for either."""
        self._call(_open_in_worker, self.path)

    def locate(self, citation: CitationLike, chunk: Chunk | None) -> list[PageRects]:
        found = self._call(_locate_in_worker, self.path, citation, chunk)
        if found is None:
            if self._local is None:
                self._local = Locator.open(self.path)
            found = self._local.locate(citation, chunk)
        return found

    def _call(self, fn, *args):
        if self._pool is None:
            return None
        try:
            return self._pool.submit(fn, *args).result(timeout=self.TIMEOUT_S)
        except Exception:  # noqa: BLE001 - a worker that cannot start or died: the quote is found in-process
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
            return None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._local is not None:
            self._local.close()
            self._local = None
