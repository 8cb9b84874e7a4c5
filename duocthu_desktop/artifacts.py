"""The ingest tool's artifacts, as CONTRACT.md defines them: the edge between ingestion and the app.

`chunks.jsonl` starts with a header line `{"schema_version": N, ...}`; every other line is one Chunk.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from duocthu_desktop import atomic

CHUNK_SCHEMA_VERSION = 1
TOKENIZER_NOTE = "whitespace-and-punctuation word pieces (see ingestion.chunker.count_tokens)"

MONOGRAPHS_FILE = "monographs.jsonl"
CHUNKS_FILE = "chunks.jsonl"
PAGES_FILE = "pages.json"
REPORT_FILE = "report.json"
CATALOG_FILE = "catalog.json"  # the catalog of drug names the build computed (qa.understanding.stored_catalog)


class SectionSpan(BaseModel):
    model_config = ConfigDict(extra="forbid")
    key: str
    heading: str
    start_printed: int | None
    end_printed: int | None


class Monograph(BaseModel):
    model_config = ConfigDict(extra="forbid")
    drug_id: str
    title: str
    inn: str | None = None
    atc: list[str] = Field(default_factory=list)
    drug_class: str | None = None
    start_physical: int
    end_physical: int
    start_printed: int | None
    end_printed: int | None
    sections: list[SectionSpan] = Field(default_factory=list)


class Chunk(BaseModel):
    model_config = ConfigDict(extra="forbid")
    chunk_id: str
    drug_id: str
    section_key: str
    part_index: int
    text: str
    printed_pages: list[int]
    physical_pages: list[int]
    kind: Literal["prose", "table"] = "prose"
    quarantined: bool = False
    quarantine_reason: str | None = None
    heading: str | None = None  # the section heading as printed
    table_id: str | None = None  # set on lifted-out tables
    # Character offsets of each physical page's text inside `text`: [[physical, start, end], ...]; lets the
    # viewer highlight the quote on the right page.
    page_spans: list[list[int]] = Field(default_factory=list)


class PageEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    physical: int
    printed: int | None


class PageMap(BaseModel):
    model_config = ConfigDict(extra="forbid")
    source_pdf: str
    source_sha256: str
    pages: list[PageEntry]

    def printed_for(self, physical: int) -> int | None:
        return self._printed_of.get(physical)

    def physical_for(self, printed: int) -> int | None:
        """The first file page carrying this folio (a scan over 1,900 pages for each of the browser's 11,000
        sections held the window 2 s at start-up: both ways are looked up in dicts, made once)."""
        return self._physical_of.get(printed)

    @functools.cached_property
    def _printed_of(self) -> dict[int, int | None]:
        out: dict[int, int | None] = {}
        for p in self.pages:
            out.setdefault(p.physical, p.printed)
        return out

    @functools.cached_property
    def _physical_of(self) -> dict[int, int]:
        out: dict[int, int] = {}
        for p in self.pages:
            if p.printed is not None:
                out.setdefault(p.printed, p.physical)
        return out


class Report(BaseModel):
    """Figures from one run, and the named gates `duocthu-ingest check` reads (each must be 0)."""

    model_config = ConfigDict(extra="allow")
    source_pdf: str
    source_sha256: str
    schema_version: int = CHUNK_SCHEMA_VERSION
    tokenizer: str = TOKENIZER_NOTE
    max_chunk_tokens: int = 800
    pages: int
    monographs: int
    chunks: int
    tables: int
    quarantined: int
    dosing_rows: int | None = None  # rows of dosing.jsonl, so `check` can tell an emptied one
    dosing_code_sha256: str | None = None  # the code that read them (dosage.stored): the app reads them, not again
    seconds: float
    gates: dict[str, int]
    gate_details: dict[str, list[str]] = Field(default_factory=dict)


# ---- reading and writing -------------------------------------------------------------------------


def write_jsonl(path: Path, rows: Iterable[BaseModel], header: dict | None = None) -> None:
    lines: list[str] = []
    if header is not None:
        lines.append(json.dumps(header, ensure_ascii=False) + "\n")
    lines.extend(r.model_dump_json() + "\n" for r in rows)
    atomic.write_lines(path, lines)


def write_chunks(path: Path, chunks: Iterable[Chunk]) -> None:
    write_jsonl(path, chunks, header={"schema_version": CHUNK_SCHEMA_VERSION, "tokenizer": TOKENIZER_NOTE})


def read_chunks(path: Path) -> list[Chunk]:
    out: list[Chunk] = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            row = json.loads(line)
            if "schema_version" in row and "chunk_id" not in row:
                if row["schema_version"] != CHUNK_SCHEMA_VERSION:
                    raise ValueError(
                        f"{path}: chunk schema {row['schema_version']}, this build reads {CHUNK_SCHEMA_VERSION}"
                    )
                continue
            out.append(Chunk.model_validate(row))
    return out


def read_monographs(path: Path) -> list[Monograph]:
    with open(path, encoding="utf-8") as fh:
        return [Monograph.model_validate_json(line) for line in fh if line.strip()]


def write_model(path: Path, model: BaseModel) -> None:
    atomic.write_text(path, model.model_dump_json(indent=1) + "\n")


def read_pages(path: Path) -> PageMap:
    return PageMap.model_validate_json(Path(path).read_text(encoding="utf-8"))
