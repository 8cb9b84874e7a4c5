"""`verify`: the deterministic check every answer passes before a person sees it, whatever engine made it.

Each claim is cut at its citation markers ("... 0,5 - 1 g/lần [1]. ... [2]"); each piece is bound only to the
QUOTES of the citations it cites, not to the whole chunk. A piece fails when it cites nothing, cites a citation
that does not exist or does not point into the evidence, or carries a number that its cited quotes do not print
character for character ("7,5" is not "75", "7.5" or "1.500") with the same unit ("5 mg" is not "5 microgam",
"5 mg/kg" is not "5 mg"). A block's title is checked the same way against every quote its claims cite. With
`pages`, each citation's pages are checked too: the quote's first character must lie on the physical page the
citation names, and the printed page must be that page's folio.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.dosage.words import unlatex
from duocthu_desktop.payload import Block, Citation, Reason
from duocthu_desktop.qa.answers.engine_types import GroundingFailure
from duocthu_desktop.text import squash_spaces

# A citation marker inside a claim's text: "[1]", "[1, 3]", "[2; 4]".
CITATION_MARKER = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
# A number as printed: digits with "," or "." groups ("7,5", "1.500"), space-grouped thousands ("1 000"),
# and fractions ("1/1 000").
_NUMBER = re.compile(
    r"(?<![\d.,])\d+(?:[.,]\d+)*(?: \d{3}(?![\d.,]))*(?:/\d+(?:[.,]\d+)*(?: \d{3}(?![\d.,]))*)?"
)
_MEANINGFUL = re.compile(r"\w")

# Unit words as the book prints them, each to one key: spellings of one unit share a key, different units
# never do (g, mg, microgam and ng are four keys; ml and l two).
UNIT_KEYS: dict[str, str] = {
    **dict.fromkeys(("g", "gam", "gram"), "g"),
    **dict.fromkeys(("mg", "miligam", "milligram"), "mg"),
    **dict.fromkeys(("microgam", "microgram", "mcg", "µg", "μg", "ug"), "mcg"),
    **dict.fromkeys(("ng", "nanogam", "nanogram"), "ng"),
    "kg": "kg",
    **dict.fromkeys(("ml", "mililit", "mililít"), "ml"),
    **dict.fromkeys(("l", "lit", "lít"), "l"),
    "dl": "dl",
    **dict.fromkeys(("iu", "ui", "đvqt", "đv", "đơn"), "iu"),
    "mmol": "mmol",
    "meq": "meq",
    "%": "%",
    "phút": "min",
    "giờ": "h",
    "ngày": "d",
    "tuần": "wk",
    "tháng": "mo",
    "năm": "yr",
    "tuổi": "age",
}
# Body-size denominators are part of a dose's unit ("mg/kg" is not "mg"); time denominators are not compared.
_PER_BODY = {"kg": "/kg", "m2": "/m2", "m²": "/m2"}
_UNIT_WORD = re.compile(r"\s*(%|[^\W\d_]+)")
_PER_WORD = re.compile(r"\s*/\s*(m2|m²|[^\W\d_]+)")
# What joins the numbers of a range or list sharing one unit: "0,5 - 1 g", "5, 10 hoặc 20 mg".
_JOINER = re.compile(r"\s*(?:[-–—,]|đến|tới|hoặc|và)\s*")


def numbers_in(text: str) -> list[str]:
    """Every number of `text` as printed ("0,5", "1.500", "1/1 000"), whitespace squashed."""
    return [squash_spaces(m.group(0)) for m in _NUMBER.finditer(text)]


def _number_pattern(number: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\d.,])" + re.escape(number).replace(r"\ ", r"\s+") + r"(?![\d]|[.,]\d)")


def number_in_evidence(number: str, evidence: str) -> bool:
    """Whether `number` appears in `evidence` as a whole number, exactly as printed."""
    return bool(_number_pattern(number).search(evidence))


def unit_after(text: str, end: int) -> str | None:
    """The unit key of the number ending at `end`: the unit word after it, or after the range or list it starts
    ("0,5 - 1 g/lần" gives "g" for 0,5); "mg/kg" keeps its body-size denominator; None when no unit follows."""
    pos = end
    while True:
        joiner = _JOINER.match(text, pos)
        number = _NUMBER.match(text, joiner.end()) if joiner else None
        if number is not None:
            pos = number.end()
            continue
        word = _UNIT_WORD.match(text, pos)
        key = UNIT_KEYS.get(word.group(1).lower()) if word else None
        if word is None or key is None:
            return None
        per = _PER_WORD.match(text, word.end())
        if per and per.group(1).lower() in _PER_BODY:
            key += _PER_BODY[per.group(1).lower()]
        return key


def _numbers_with_units(text: str) -> list[tuple[str, str | None]]:
    return [(squash_spaces(m.group(0)), unit_after(text, m.end())) for m in _NUMBER.finditer(text)]


def printed_with_unit(number: str, unit: str | None, quotes: list[str]) -> bool:
    """Whether some quote prints `number`, and, when `unit` is given, prints it with that unit."""
    pattern = _number_pattern(number)
    for quote in quotes:
        # the quote read as the claim was: "$\\leq 4$ microgam/ml" prints 4 with its unit, as "≤ 4 microgam/ml"
        quote = unlatex(quote)
        for m in pattern.finditer(quote):
            if unit is None or unit_after(quote, m.end()) == unit:
                return True
    return False


def split_at_markers(text: str, default: list[int]) -> list[tuple[str, list[int]]]:
    """(piece, cited indices): text before a marker is bound to that marker; trailing text to `default`."""
    pieces: list[tuple[str, list[int]]] = []
    pos = 0
    for m in CITATION_MARKER.finditer(text):
        indices = [int(x) for x in re.split(r"\s*[,;]\s*", m.group(1))]
        pieces.append((text[pos : m.start()], indices))
        pos = m.end()
    tail = text[pos:]
    if _MEANINGFUL.search(tail) or not pieces:
        pieces.append((tail, list(default)))
    return pieces


# ---- pages ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChunkPages:
    """Where a chunk's text sits in the book: [[physical, start, end], ...] and physical -> printed folio."""

    page_spans: list[list[int]] = field(default_factory=list)
    printed: dict[int, int | None] = field(default_factory=dict)

    @classmethod
    def of(cls, chunk: Chunk) -> ChunkPages:
        if len(chunk.physical_pages) == len(chunk.printed_pages):  # aligned only when every page has a folio
            printed: dict[int, int | None] = dict(zip(chunk.physical_pages, chunk.printed_pages, strict=True))
        else:  # folios unknown: only the physical page is checked
            printed = dict.fromkeys(chunk.physical_pages)
        return cls(page_spans=[list(s) for s in chunk.page_spans], printed=printed)

    def physical_at(self, offset: int) -> set[int]:
        """The physical page of the character at `offset`; both neighbours when it falls between spans."""
        spans = [s for s in self.page_spans if len(s) == 3]
        inside = {s[0] for s in spans if s[1] <= offset < s[2]}
        if inside or not spans:
            return inside or set(self.printed)
        before = [s for s in spans if s[2] <= offset]
        after = [s for s in spans if s[1] > offset]
        near = ([max(before, key=lambda s: s[2])] if before else []) + ([min(after, key=lambda s: s[1])] if after else [])
        return {s[0] for s in near}


PagesArg = Mapping[str, "Chunk | ChunkPages"]


def _quote_starts(quote: str, text: str) -> list[int]:
    """Offsets in `text` where `quote` starts, whitespace runs matching any whitespace."""
    words = quote.split()
    if not words:
        return []
    pattern = re.compile(r"\s+".join(re.escape(w) for w in words))
    return [m.start() for m in pattern.finditer(text)]


def _page_failure(c: Citation, text: str, pages: ChunkPages) -> str | None:
    """Why the citation's pages are wrong for where its quote sits, or None."""
    starts = _quote_starts(c.quote, text)
    on_pages = set().union(*(pages.physical_at(s) for s in starts)) if starts else set()
    if on_pages and c.physical_page not in on_pages:
        return f"[{c.index}] quote starts on physical page {sorted(on_pages)}, cited {c.physical_page}"
    if c.physical_page in pages.printed and pages.printed[c.physical_page] is not None:
        if c.printed_page != pages.printed[c.physical_page]:
            return (f"[{c.index}] printed page {c.printed_page}, but physical page {c.physical_page} "
                    f"is printed {pages.printed[c.physical_page]}")
    elif pages.printed and c.physical_page not in pages.printed:
        return f"[{c.index}] physical page {c.physical_page} is not a page of {c.chunk_id}"
    return None


# ---- verify -----------------------------------------------------------------------------------------------


class Evidence(dict[str, str]):
    """What a turn read: chunk_id -> chunk text (what verify binds quotes to), and the chunks themselves in
    `chunks` (what the page check reads)."""

    def __init__(self) -> None:
        super().__init__()
        self.chunks: dict[str, Chunk] = {}


def verify(
    blocks: list[Block],
    citations: list[Citation],
    evidence: dict[str, str],
    pages: PagesArg | None = None,
    titles: Mapping[str, str] | None = None,
) -> list[GroundingFailure]:
    """Every failure found; an empty list means the answer may be shown. `evidence`: chunk_id -> chunk text;
    `pages` (optional): chunk_id -> Chunk or ChunkPages, to check each citation's page; `titles` (optional):
    drug_id -> the monograph's printed title, which a block title may repeat ("Vitamin B12" names the drug, its
    12 need not be in the quote)."""
    failures: list[GroundingFailure] = []
    by_index: dict[int, Citation] = {}
    squashed = {cid: squash_spaces(text) for cid, text in evidence.items()}
    for c in citations:
        by_index[c.index] = c
        if c.chunk_id not in evidence:
            failures.append(_fail(Reason.INVALID_CITATION, f"[{c.index}] cites {c.chunk_id}, not in the evidence"))
            continue
        if squash_spaces(c.quote) not in squashed[c.chunk_id]:
            failures.append(_fail(Reason.INVALID_CITATION, f"[{c.index}] quote is not in {c.chunk_id}"))
            continue
        where = pages.get(c.chunk_id) if pages is not None else None
        if where is not None:
            info = ChunkPages.of(where) if isinstance(where, Chunk) else where
            why = _page_failure(c, evidence[c.chunk_id], info)
            if why:
                failures.append(_fail(Reason.INVALID_CITATION, why))
    for block in blocks:
        block_quotes: list[str] = []
        block_drugs: set[str] = set()
        for claim in block.claims:
            for piece, indices in split_at_markers(claim.text, claim.citations):
                if not _MEANINGFUL.search(piece):
                    continue
                if not indices:
                    failures.append(_fail(Reason.UNCITED_CLAIM, f"{block.title}: {piece.strip()[:80]}"))
                    continue
                quotes = _quotes(block.title, indices, by_index, evidence, failures)
                block_drugs.update(by_index[i].drug_id for i in indices if i in by_index)
                block_quotes += quotes
                if quotes:
                    failures += _ungrounded(piece, quotes, f"{block.title}: cited {indices}")
        names = [titles[d] for d in block_drugs if titles and d in titles]
        failures += _ungrounded(block.title, block_quotes + names, f"title {block.title!r}")
    return failures


def _quotes(title: str, indices: list[int], by_index: dict[int, Citation], evidence: dict[str, str],
            failures: list[GroundingFailure]) -> list[str]:
    """The quotes of the cited citations that point into the evidence; a missing index is a failure."""
    quotes: list[str] = []
    for i in indices:
        cit = by_index.get(i)
        if cit is None:
            failures.append(_fail(Reason.INVALID_CITATION, f"{title}: cites [{i}], no such citation"))
        elif cit.chunk_id in evidence:
            quotes.append(cit.quote)
    return quotes


def _ungrounded(text: str, quotes: list[str], where: str) -> list[GroundingFailure]:
    out: list[GroundingFailure] = []
    for number, unit in _numbers_with_units(text):
        if not printed_with_unit(number, unit, quotes):
            shown = f"{number} {unit}" if unit else number
            out.append(_fail(Reason.UNGROUNDED_NUMBER, f"{where}: {shown!r} not printed in the cited quotes"))
    return out


def _fail(code: Reason, detail: str) -> GroundingFailure:
    return GroundingFailure(code=code.value, detail=detail)
