"""Stage 7: one monograph's items -> its CONTRACT record and its chunks, in the book's order.

Sections come from sectioning, paragraphs from paragraphs, prose parts from the chunker; tables are lifted out
whole (a table broken over a column or page is kept as one). Every part of a section, prose or table, takes the
next part_index; tables also get a table_id for their `__block__` chunk id.
"""

from __future__ import annotations

from duocthu_desktop.artifacts import Chunk, Monograph, SectionSpan
from ingestion.chunker import pack_prose
from ingestion.monographs import RawMonograph, atc_codes, clean_field, identity_entries, parse_identity
from ingestion.paragraphs import Paragraph, to_paragraphs
from ingestion.sectioning import THONG_TIN_CHUNG, RawSection, identity_lines, split_sections
from ingestion.spans import Line
from ingestion.tables import TableBlock


def _section_content(section: RawSection, column_right) -> list[Paragraph | TableBlock]:
    out: list[Paragraph | TableBlock] = []
    run: list[Line] = []
    for it in section.items:
        if isinstance(it, TableBlock):
            out.extend(to_paragraphs(run, column_right))
            run = []
            out.append(it)
        else:
            run.append(it)
    out.extend(to_paragraphs(run, column_right))
    return out


def _merge_continued_tables(blocks: list[Paragraph | TableBlock]) -> list[Paragraph | list[TableBlock]]:
    """A table broken over a column or page comes as consecutive blocks with the same column count:
    keep them together as one table (its header row stays with its rows)."""
    out: list[Paragraph | list[TableBlock]] = []
    for b in blocks:
        if isinstance(b, TableBlock):
            prev = out[-1] if out else None
            if (
                isinstance(prev, list)
                and prev[-1].n_cols == b.n_cols
                and (prev[-1].physical, prev[-1].column)
                != (
                    b.physical,
                    b.column,
                )
            ):
                prev.append(b)
            else:
                out.append([b])
        else:
            out.append(b)
    return out


def _table_text(blocks: list[TableBlock]) -> tuple[str, list[list[int]]]:
    text = ""
    spans: list[list[int]] = []
    for b in blocks:
        if text:
            text += "\n"
        start = len(text)
        text += b.text
        if spans and spans[-1][0] == b.physical:
            spans[-1][2] = len(text)
        else:
            spans.append([b.physical, start, len(text)])
    return text, spans


def pages_of(mono: RawMonograph) -> list[int]:
    pages = {mono.title_line.physical}
    pages.update(it.physical for it in mono.items)
    return sorted(pages)


def _chunk(
    mono: RawMonograph,
    section: RawSection,
    index: int,
    text: str,
    page_spans: list[list[int]],
    printed: dict[int, int | None],
    suspect_pages: set[int],
    table: TableBlock | None = None,
    table_id: str | None = None,
    flags: frozenset[str] = frozenset(),
) -> Chunk:
    physical = sorted({p for p, _, _ in page_spans})
    printed_pages = [printed[p] for p in physical if printed.get(p) is not None]
    reason = None
    if table is not None:
        reason = "table"
    elif suspect_pages.intersection(physical):
        reason = "reading_order_guessed"
    elif flags:
        reason = ",".join(sorted(flags))
    cid = f"{mono.drug_id}__{section.key}__" + (f"block__{table_id}" if table_id else str(index))
    return Chunk(
        chunk_id=cid,
        drug_id=mono.drug_id,
        section_key=section.key,
        part_index=index,
        text=text,
        printed_pages=printed_pages,
        physical_pages=physical,
        kind="table" if table is not None else "prose",
        quarantined=reason is not None,
        quarantine_reason=reason,
        heading=section.heading,
        table_id=table_id,
        page_spans=page_spans,
    )


def _identity_part(section: RawSection) -> tuple[str, list[list[int]], dict[str, str]]:
    """The block under the title as one text, with the page each stretch of it is printed on."""
    lines = identity_lines(section)
    _, fields = parse_identity(lines)
    text = ""
    spans: list[list[int]] = []
    for entry, (_, pieces) in enumerate(identity_entries(lines)):
        if entry:
            text += "\n"
        for piece, physical in pieces:
            start = len(text)
            text += piece
            if spans and spans[-1][0] == physical:
                spans[-1][2] = len(text)
            else:
                spans.append([physical, start, len(text)])
    return text, spans, fields


def _section_parts(
    mono: RawMonograph,
    section: RawSection,
    printed: dict[int, int | None],
    column_right,
    suspect_pages: set[int],
    table_counter: int,
) -> tuple[list[Chunk], int]:
    """One section's chunks in book order: prose parts and lifted tables share one part_index sequence."""
    parts: list[Chunk] = []
    prose: list[Paragraph] = []

    def flush() -> None:
        for part in pack_prose(prose):
            parts.append(
                _chunk(
                    mono,
                    section,
                    len(parts),
                    part.text,
                    part.page_spans,
                    printed,
                    suspect_pages,
                    flags=part.flags,
                )
            )
        prose.clear()

    for block in _merge_continued_tables(_section_content(section, column_right)):
        if isinstance(block, list):
            flush()
            table_counter += 1
            text, page_spans = _table_text(block)
            parts.append(
                _chunk(
                    mono,
                    section,
                    len(parts),
                    text,
                    page_spans,
                    printed,
                    suspect_pages,
                    table=block[0],
                    table_id=f"t{table_counter}",
                )
            )
        else:
            prose.append(block)
    flush()
    return parts, table_counter


def build_monograph(
    mono: RawMonograph,
    printed: dict[int, int | None],
    column_right,
    suspect_pages: set[int],
) -> tuple[Monograph, list[Chunk]]:
    sections = split_sections(mono)
    chunks: list[Chunk] = []
    spans_out: list[SectionSpan] = []
    fields: dict[str, str] = {}
    table_counter = 0
    for section in sections:
        if section.key == THONG_TIN_CHUNG:
            text, page_spans, fields = _identity_part(section)
            parts = [_chunk(mono, section, 0, text, page_spans, printed, suspect_pages)] if text else []
        else:
            parts, table_counter = _section_parts(
                mono, section, printed, column_right, suspect_pages, table_counter
            )
        chunks.extend(parts)
        pages = sorted({p for c in parts for p in c.physical_pages} | {section.start_physical or 0} - {0})
        folios = [printed.get(p) for p in pages if printed.get(p) is not None]
        spans_out.append(
            SectionSpan(
                key=section.key,
                heading=section.heading,
                start_printed=printed.get(section.start_physical or 0),
                end_printed=folios[-1] if folios else None,
            )
        )
    pages = pages_of(mono)
    monograph = Monograph(
        drug_id=mono.drug_id,
        title=mono.title,
        inn=clean_field(fields.get("inn")),
        atc=atc_codes(fields.get("atc")),
        drug_class=clean_field(fields.get("drug_class")),
        start_physical=pages[0],
        end_physical=pages[-1],
        start_printed=printed.get(pages[0]),
        end_printed=printed.get(pages[-1]),
        sections=spans_out,
    )
    return monograph, chunks
