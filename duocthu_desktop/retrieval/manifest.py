"""`manifest.json` of an index: what it was built from and with which model, so a mismatch is refused.

An index embedded with one model cannot be searched with another model's query vectors: the numbers would
compare fine and mean nothing. `check_model` turns that into a clear IndexError_. The manifest also records
how many rows the build wrote into each artifact; `check_artifacts` refuses a folder whose files no longer
hold them (an emptied monographs.jsonl must not read as "no drug is in the formulary"). It records the sha256
of every artifact file answers are read from (`file_sha256`: monographs, chunks, dose rows, page map), checked at
every open, and of every chunk (`chunk_sha256`), which each chunk read from Chroma (folder or server) must hash to
(RetrievalService): an edited dose or page is refused in one line, never shown. A manifest of an older build
records neither: such an index opens as before, its digests "not recorded".
"""

from __future__ import annotations

import hashlib
import json
import logging
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from duocthu_desktop import atomic
from duocthu_desktop.artifacts import (
    CATALOG_FILE,
    CHUNK_SCHEMA_VERSION,
    CHUNKS_FILE,
    MONOGRAPHS_FILE,
    PAGES_FILE,
    REPORT_FILE,
    Chunk,
)
from duocthu_desktop.dosage.rows import DOSING_FILE
from duocthu_desktop.errors import IndexError_

log = logging.getLogger(__name__)
MANIFEST_FILE = "manifest.json"
CHROMA_DIR = "chroma"
FORMAT_VERSION = 1
REBUILD_HINT = "rebuild it with `duocthu-ingest build --pdf PDF --out DIR`"
# The artifact files answers are read from, each digested into the manifest at build and checked at every open:
# the monographs (drug list), the chunks (texts), the dose rows (the browser's outline, and the turns' rows), the
# page map (citations), the catalog of drug names (read at open instead of computed from every chunk).
DIGESTED_FILES = (MONOGRAPHS_FILE, CHUNKS_FILE, DOSING_FILE, PAGES_FILE, CATALOG_FILE)
NOT_RECORDED = "not recorded"


class IndexManifest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format_version: int = FORMAT_VERSION
    corpus_sha256: str = Field(description="sha256 of the source PDF (from pages.json), or of the chunks if unknown")
    chunks_sha256: str = Field(description="sha256 over every chunk's JSON, in order")
    chunk_schema_version: int = CHUNK_SCHEMA_VERSION
    model_id: str
    weights_sha256: str | None = Field(None, description="sha256 of the embedding weights; None for test fakes")
    dimensions: int
    distance: str = "cosine"
    collection: str = Field(description="Chroma collection name (unique per corpus and model, for server mode)")
    chunk_count: int
    monograph_count: int | None = Field(None, description="rows of monographs.jsonl; None for older builds")
    dosing_rows: int | None = Field(None, description="rows of dosing.jsonl; None when the build wrote none")
    built_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    build_seconds: float | None = None
    source_pdf_name: str | None = Field(None, description="file name of the PDF it was built from (no folder); "
                                        "None for older builds")
    source_pdf_sha256: str | None = Field(None, description="sha256 of that PDF: the viewer highlights quotes only "
                                          "on the same file; None for older builds")
    file_sha256: dict[str, str] | None = Field(None, description="sha256 of each artifact file the answers are "
                                               "read from (DIGESTED_FILES present at build); None for older builds")
    chunk_sha256: dict[str, str] | None = Field(None, description="chunk_id -> sha256 of the chunk's JSON (its text "
                                                "and pages), what a chunk read from Chroma must hash to; None for "
                                                "older builds")
    code_sha256: dict[str, str] | None = Field(None, description="artifact file -> sha256 of the code that computed "
                                               "it (duocthu_desktop.code_digest), for the artifacts the app reads "
                                               "instead of computing them (dose rows, catalog) only while its own "
                                               "code's digest is the same; None for older builds")

    def check_model(self, model_id: str, dimensions: int, where: Path | str = "index") -> None:
        if self.model_id != model_id or self.dimensions != dimensions:
            raise IndexError_(
                f"The index at {where} was built with embedding model {self.model_id} ({self.dimensions} dims) but "
                f"the configured model is {model_id} ({dimensions} dims): {REBUILD_HINT}."
            )


def chunks_sha256(chunks: list[Chunk]) -> str:
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(chunk.model_dump_json().encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


def chunk_digest(chunk: Chunk) -> str:
    """sha256 of one chunk's JSON: its text, pages and metadata, as chunks.jsonl and Chroma's chunk_json hold it."""
    return hashlib.sha256(chunk.model_dump_json().encode("utf-8")).hexdigest()


def chunk_digests(chunks: list[Chunk]) -> dict[str, str]:
    return {c.chunk_id: chunk_digest(c) for c in chunks}


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_digests(index_dir: Path) -> dict[str, str]:
    """sha256 of each of DIGESTED_FILES the folder holds (dosing.jsonl is absent from builds without dose rows)."""
    return {name: file_sha256(Path(index_dir) / name) for name in DIGESTED_FILES if (Path(index_dir) / name).is_file()}


def collection_name(corpus_sha: str, chunks_sha: str, model_id: str) -> str:
    """3-512 chars of [a-zA-Z0-9._-]; distinct per content and model so a server can hold many indexes."""
    model = hashlib.sha256(model_id.encode()).hexdigest()[:8]
    return f"duocthu-{corpus_sha[:10]}-{chunks_sha[:10]}-{model}"


def write_manifest(index_dir: Path, manifest: IndexManifest) -> None:
    atomic.write_text(Path(index_dir) / MANIFEST_FILE, manifest.model_dump_json(indent=1) + "\n")


def read_manifest(index_dir: Path) -> IndexManifest:
    path = Path(index_dir) / MANIFEST_FILE
    if not path.is_file():
        raise IndexError_(f"The index at {index_dir} has no {MANIFEST_FILE} (not built, or built with --no-embed): "
                          f"{REBUILD_HINT}.")
    try:
        manifest = IndexManifest.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, ValidationError) as err:
        raise IndexError_(f"The index at {index_dir} has an unreadable {MANIFEST_FILE} ({type(err).__name__}): "
                          f"{REBUILD_HINT}.") from err
    if manifest.chunk_schema_version != CHUNK_SCHEMA_VERSION:
        raise IndexError_(f"The index at {index_dir} holds chunk schema {manifest.chunk_schema_version}; this "
                          f"version reads {CHUNK_SCHEMA_VERSION}: {REBUILD_HINT}.")
    return manifest


# ---- do the artifacts still hold what the build wrote? ----------------------------------------------------


def count_rows(path: Path) -> int:
    """Rows of a JSONL artifact, counted without parsing: non-blank lines, less chunks.jsonl's header line."""
    rows, first = 0, True
    with open(path, "rb") as fh:
        for line in fh:
            if not line.strip():
                continue
            if first and b'"schema_version"' in line and b'"chunk_id"' not in line:
                first = False
                continue
            first = False
            rows += 1
    return rows


def _report_counts(index_dir: Path) -> dict:
    try:
        report = json.loads((Path(index_dir) / REPORT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return report if isinstance(report, dict) else {}


def recorded_counts(index_dir: Path, manifest: IndexManifest | None) -> list[tuple[str, int, str]]:
    """(artifact, rows the build wrote, where that is recorded): from report.json and from the manifest,
    each where it holds the figure (older builds recorded fewer)."""
    report = _report_counts(index_dir)
    found: list[tuple[str, int, str]] = []
    for name, key in ((MONOGRAPHS_FILE, "monographs"), (CHUNKS_FILE, "chunks"), (DOSING_FILE, "dosing_rows")):
        value = report.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            found.append((name, value, REPORT_FILE))
    if manifest is not None:
        for name, value in ((MONOGRAPHS_FILE, manifest.monograph_count), (CHUNKS_FILE, manifest.chunk_count),
                            (DOSING_FILE, manifest.dosing_rows)):
            if value is not None:
                found.append((name, value, MANIFEST_FILE))
    return found


def count_mismatches(index_dir: Path, manifest: IndexManifest | None, known: dict[str, int] | None = None,
                     optional: tuple[str, ...] = ()) -> list[str]:
    """One line per artifact whose rows differ from what the build recorded. `known` holds rows already
    read by the caller; an artifact named in `optional` may be missing (the app does not read it)."""
    known = dict(known or {})
    lines: list[str] = []
    for name, expected, source in recorded_counts(index_dir, manifest):
        if name not in known:
            path = Path(index_dir) / name
            if not path.is_file():
                if name not in optional:
                    lines.append(f"{name} is missing, {source} records {expected} rows")
                known[name] = -1
                continue
            try:
                known[name] = count_rows(path)
            except OSError as err:
                lines.append(f"{name} cannot be read ({err.strerror or type(err).__name__})")
                known[name] = -1
                continue
        if known[name] >= 0 and known[name] != expected:
            lines.append(f"{name} has {known[name]} rows, {source} records {expected}")
    return lines


def digest_mismatches(index_dir: Path, manifest: IndexManifest | None) -> list[str]:
    """One English line per artifact file whose sha256 differs from the manifest's (or that is gone); [] when
    they agree or the manifest records none (an index built before digests: see `digests_recorded`)."""
    if manifest is None or manifest.file_sha256 is None:
        return []
    lines: list[str] = []
    for name, expected in manifest.file_sha256.items():
        path = Path(index_dir) / name
        try:
            actual = file_sha256(path)
        except FileNotFoundError:
            lines.append(f"{name} is missing, {MANIFEST_FILE} records its sha256")
            continue
        except OSError as err:
            lines.append(f"{name} cannot be read ({err.strerror or type(err).__name__})")
            continue
        if actual != expected:
            lines.append(f"{name} differs from the file that was indexed (sha256 {actual[:12]}…, "
                         f"{MANIFEST_FILE} records {expected[:12]}…)")
    return lines


def digests_recorded(manifest: IndexManifest | None) -> str:
    """What the manifest records of digests, for a log or `check` line: 'files and chunks', or 'not recorded'."""
    if manifest is None or (manifest.file_sha256 is None and manifest.chunk_sha256 is None):
        return NOT_RECORDED
    return ", ".join(x for x, v in (("files", manifest.file_sha256), ("chunks", manifest.chunk_sha256)) if v)


TAMPERED = ("Chỉ mục tại {where} đã bị sửa hoặc hỏng sau khi dựng ({what} không khớp mã sha256 đã ghi khi dựng): "
            "không dùng chỉ mục này; hãy dựng lại bằng `duocthu-ingest build --pdf PDF --out DIR`.")


def refuse_tampered(where: Path | str, what: list[str], reasons: list[str]) -> IndexError_:
    """The IndexError_ a digest mismatch raises: one Vietnamese line for the person naming `what` differs (file
    names, or the chunks); the English reasons go to the log."""
    log.warning("index at %s refused: %s", where, "; ".join(reasons))
    return IndexError_(TAMPERED.format(where=where, what=", ".join(what)))


def check_artifacts(index_dir: Path, manifest: IndexManifest, monographs: int) -> None:
    """IndexError_ unless the folder's artifacts hold the rows its build recorded and hash to the sha256 it
    recorded. Cheap (line counts and one digest per file, no Chroma scan), so every open runs it; `monographs` is
    the number of monographs the caller read."""
    problems: list[str] = []
    for line in count_mismatches(index_dir, manifest, {MONOGRAPHS_FILE: monographs}, optional=(DOSING_FILE,)):
        if not any(p.split()[0] == line.split()[0] for p in problems):  # one line per file is enough here
            problems.append(line)
    if monographs == 0 and not problems:
        problems.append(f"{MONOGRAPHS_FILE} has no rows")
    if not problems:
        if manifest.file_sha256 is None:  # built before digests: opened as before, said so in the log
            log.info("index at %s: artifact digests %s (built before they were)", index_dir, NOT_RECORDED)
        elif tampered := digest_mismatches(index_dir, manifest):
            raise refuse_tampered(index_dir, [line.split()[0] for line in tampered], tampered)
    if problems:
        raise IndexError_(
            f"Chỉ mục tại {index_dir} đã bị hỏng hoặc bị sửa sau khi dựng ({'; '.join(problems)}): "
            f"hãy dựng lại bằng `duocthu-ingest build --pdf PDF --out DIR`."
        )
