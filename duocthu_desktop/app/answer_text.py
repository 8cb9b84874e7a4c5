"""An answer as words, without Qt: the plain text "Sao chép" puts on the clipboard, and a block title cut
into the parts the card shows as tags (the group and the route a dose applies to must stand out)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from duocthu_desktop.dosage.titles import NO_ROUTE, POPULATION_NAMES
from duocthu_desktop.dosage.words import ROUTE_NAMES
from duocthu_desktop.payload import AnswerPayload, Citation
from duocthu_desktop.sections import SECTION_BY_KEY

BOOK = "Dược thư Quốc gia Việt Nam 2018"
TITLE_SEPARATOR = " — "
PART_SEPARATOR = " · "
_POPULATIONS = {name.lower() for name in POPULATION_NAMES.values()}
_ROUTES = {name.lower() for name in ROUTE_NAMES.values()} | {NO_ROUTE}


@dataclass(frozen=True)
class TitlePart:
    text: str
    kind: str  # "population", "route" or "other"


def title_parts(title: str) -> tuple[str, list[TitlePart]]:
    """("Paracetamol (acetaminophen)", [Trẻ em (population), uống (route), Đau, sốt (other)]) for a dose
    block's title as dosage.titles writes it; (title, []) for any other title."""
    head, sep, tail = title.partition(TITLE_SEPARATOR)
    if not sep:
        return title, []
    parts = []
    for text in tail.split(PART_SEPARATOR):
        low = text.strip().lower()
        if low.split(" (")[0] in _POPULATIONS or low.startswith("đối tượng"):
            kind = "population"
        elif all(piece.strip() in _ROUTES for piece in low.split(",")):
            kind = "route"
        else:
            kind = "other"
        parts.append(TitlePart(text.strip(), kind))
    return head.strip(), parts


def page_label(citation: Citation) -> str:
    """How a citation's page is shown: the printed folio, or the file page for front matter without one."""
    if citation.printed_page is not None:
        return f"tr. {citation.printed_page}"
    return f"trang tệp {citation.physical_page}"


def citation_line(citation: Citation, drug_title: Callable[[str], str | None] | None = None) -> str:
    section = SECTION_BY_KEY.get(citation.section_key)
    where = [BOOK]
    title = drug_title(citation.drug_id) if drug_title is not None else None
    where.append(title or citation.drug_id)
    if section is not None:
        where.append(section.heading)
    where.append(page_label(citation))
    return f"[{citation.index}] " + ", ".join(where) + f": \"{' '.join(citation.quote.split())}\""


def plain_text(payload: AnswerPayload, question: str = "",
               drug_title: Callable[[str], str | None] | None = None) -> str:
    """The answer with its citations, for a note in the patient record."""
    lines: list[str] = []
    if question:
        lines += [f"Câu hỏi: {question}", ""]
    if payload.message:
        lines += [payload.message, ""]
    for block in payload.blocks:
        lines.append(block.title)
        for claim in block.claims:
            marks = "".join(f"[{i}]" for i in claim.citations)
            lines.append(f"- {claim.text} {marks}".rstrip())
        lines.append("")
    if payload.quick_replies:
        lines += ["Gợi ý trả lời: " + "; ".join(payload.quick_replies), ""]
    if payload.citations:
        lines.append("Trích dẫn:")
        lines += [citation_line(c, drug_title) for c in payload.citations]
        lines.append("")
    lines.append(payload.disclaimer)
    return "\n".join(lines).strip() + "\n"
