"""`manifest.json` of an index: what it was built from and with which model, so a mismatch is refused.

An index embedded with one model cannot be searched with another model's query vectors: the numbers would
compare fine and mean nothing. `check_model` turns that into a clear IndexError_.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from duocthu_desktop import atomic
from duocthu_desktop.artifacts import CHUNK_SCHEMA_VERSION, Chunk
from duocthu_desktop.errors import IndexError_

MANIFEST_FILE = "manifest.json"
CHROMA_DIR = "chroma"
FORMAT_VERSION = 1
REBUILD_HINT = "rebuild it with `duocthu-ingest build --pdf PDF --out DIR`"


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
    built_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    build_seconds: float | None = None

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
