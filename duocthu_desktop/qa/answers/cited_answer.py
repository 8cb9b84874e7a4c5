"""What every extractive answer is built from: verbatim spans of chunks, each cited once with its printed page,
grouped into titled blocks; and the small pieces the section, interaction and condition paths share.
"""

from __future__ import annotations

import re

from duocthu_desktop import messages
from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.dosage.words import unlatex
from duocthu_desktop.payload import Block, BlockKind, Citation, Claim, Reason, decision_for
from duocthu_desktop.qa.answers.engine_types import EngineAnswer
from duocthu_desktop.qa.answers.sentences import paragraphs, split_sentences
from duocthu_desktop.qa.verification.grounding import CITATION_MARKER
from duocthu_desktop.retrieval.types import SectionResult
from duocthu_desktop.sections import SECTION_BY_KEY

QUARANTINE_QUOTE_CHARS = 160
LONG_STATEMENT_CHARS = 450


class CitedAnswer:
    """Blocks and numbered citations under construction; one citation for each distinct quoted span."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.citations: list[Citation] = []
        self._by_span: dict[tuple[str, int, int], int] = {}

    def add(self, title: str, kind: BlockKind, chunk: Chunk, start: int, end: int) -> None:
        start, end = _trim(chunk.text, start, end)
        if start >= end:
            return
        key = (chunk.chunk_id, start, end)
        index = self._by_span.get(key)
        if index is None:
            index = len(self.citations) + 1
            self._by_span[key] = index
            physical, printed = page_of(chunk, start)
            self.citations.append(
                Citation(
                    index=index,
                    chunk_id=chunk.chunk_id,
                    drug_id=chunk.drug_id,
                    section_key=chunk.section_key,
                    printed_page=printed,
                    physical_page=physical,
                    quote=chunk.text[start:end],
                )
            )
        # the quote stays the chunk's span (the viewer finds it); what a person reads shows the book's symbols
        # ("Trẻ em ≥ 6 tuổi"), not the extractor's LaTeX ("$\\geq$")
        title = unlatex(title)
        claim = Claim(text=unlatex(chunk.text[start:end]), citations=[index])
        if self.blocks and self.blocks[-1].title == title and self.blocks[-1].kind == kind:
            if claim not in self.blocks[-1].claims:
                self.blocks[-1].claims.append(claim)
        else:
            self.blocks.append(Block(title=title, kind=kind, claims=[claim]))

    def add_quarantined(self, title: str, chunk: Chunk, labs=()) -> None:
        """A table or untrusted text: quote only its first line, so the viewer opens the right place; with the
        patient's lab values, also the table's row whose first cell's band holds the value, under a header that
        names that analyte ("APTT (giây)" ... "96 - 120 | Ngừng truyền trong 30 phút ...")."""
        first = paragraphs(chunk.text)
        if not first:
            return
        start, end = first[0]
        row = _row_for_value(chunk.text, first, labs) if labs else None
        if end - start > QUARANTINE_QUOTE_CHARS and row is None:
            cut = chunk.text.rfind(" ", start, start + QUARANTINE_QUOTE_CHARS)
            end = cut if cut > start else start + QUARANTINE_QUOTE_CHARS
        self.add(title, "prose", chunk, start, end)
        if row is not None:
            self.add(title, "prose", chunk, *row)

    def result(
        self, reason: Reason | None, message: str = "", quick_replies: list[str] | None = None
    ) -> EngineAnswer:
        decision = "answerable" if reason is None else decision_for(reason)
        return EngineAnswer(
            decision=decision,
            reason=reason.value if reason is not None else None,
            message=message,
            blocks=self.blocks,
            citations=self.citations,
            quick_replies=quick_replies or [],
        )


def page_of(chunk: Chunk, offset: int) -> tuple[int, int | None]:
    """(physical, printed) page of the character at `offset` in a chunk (its first page when unknown)."""
    physical = chunk.physical_pages[0] if chunk.physical_pages else 0
    for span in chunk.page_spans:
        if len(span) == 3 and span[1] <= offset < span[2]:
            physical = span[0]
            break
    printed = None
    if physical in chunk.physical_pages:
        i = chunk.physical_pages.index(physical)
        if i < len(chunk.printed_pages):
            printed = chunk.printed_pages[i]
    elif chunk.printed_pages:
        printed = chunk.printed_pages[0]
    return physical, printed


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def section_heading(key: str) -> str:
    sdef = SECTION_BY_KEY.get(key)
    return sdef.heading if sdef else key


def ordered_chunks(section: SectionResult) -> list[Chunk]:
    return list(section.chunks)  # retrieval hands them over in the book's order, tables in place


def quarantine_message() -> str:
    return messages.message_for(Reason.QUARANTINED_EVIDENCE)


def abstain(reason: Reason, message: str | None = None) -> EngineAnswer:
    return EngineAnswer(
        decision=decision_for(reason), reason=reason.value, message=message or messages.message_for(reason)
    )


def join_messages(*parts: str) -> str:
    return " ".join(p.strip() for p in parts if p and p.strip())


def statements(text: str) -> list[tuple[int, int]]:
    """Paragraphs, or their sentences when a paragraph is long (interaction and patient-fact statements)."""
    out: list[tuple[int, int]] = []
    for span in paragraphs(text):
        if span[1] - span[0] > LONG_STATEMENT_CHARS:
            out.extend(split_sentences(text, span))
        else:
            out.append(span)
    return out


def renumbered(
    answer: EngineAnswer, offset: int, skip: frozenset[str] = frozenset()
) -> tuple[list[Block], list[Citation]]:
    """`answer`'s blocks and citations with every citation index moved up by `offset` (markers in claim text
    too), so they can follow another answer's; claims whose text is in `skip` are dropped, and so is a block left
    empty."""
    mapping = {c.index: offset + n + 1 for n, c in enumerate(answer.citations)}
    blocks = []
    for block in answer.blocks:
        claims = [
            claim.model_copy(update={
                "text": _renumber(claim.text, mapping),
                "citations": [mapping.get(i, i) for i in claim.citations],
            })
            for claim in block.claims
            if claim.text not in skip
        ]
        if claims:
            blocks.append(block.model_copy(update={"claims": claims}))
    citations = [c.model_copy(update={"index": mapping[c.index]}) for c in answer.citations]
    return blocks, citations


def _renumber(text: str, mapping: dict[int, int]) -> str:
    """Citation markers in a claim's text ("[2]", "[1, 3]") renumbered like the citations."""

    def one(m: re.Match[str]) -> str:
        indices = [int(i) for i in re.split(r"\s*[,;]\s*", m.group(1))]
        return "[" + ", ".join(str(mapping.get(i, i)) for i in indices) + "]"

    return CITATION_MARKER.sub(one, text)


def _row_for_value(text: str, lines: list[tuple[int, int]], labs) -> tuple[int, int] | None:
    """The one table line whose first cell prints a band on the analyte its header's first cell names, holding
    the patient's value; None when the header names none of the patient's analytes or not exactly one row holds
    it (the table is then shown by its first line only)."""
    # the one reader of a table's first cells, shared with the dose tables
    from duocthu_desktop.dosage.fit import header_lab_value, lines_holding

    if len(lines) < 2:
        return None
    value = header_lab_value(text, lines[0], labs)
    if value is None:
        return None
    holding = lines_holding(text, lines[1:], value)
    return holding[0] if len(holding) == 1 else None
