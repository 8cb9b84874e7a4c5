"""Embed the chunks (through the on-disk cache) and write the Chroma index + manifest into a staging folder.

`duocthu-ingest build` calls `build_index` on the staging folder that already holds the artifacts, then swaps
the whole folder in (duocthu_desktop.atomic.staged_dir). A kill at any moment leaves the previous index in
place; because every embedded batch is committed to the cache at once, a rerun only embeds what is missing.
The manifest is written last, after the index was reopened and checked, so its presence means "complete".
Only the chunks of the sections a dense search ranks (`DENSE_SECTIONS`) are embedded; every other chunk is
stored with a placeholder vector (`placeholder_vector`), which cuts a full-size build from an hour to minutes.
A disk that fills up or refuses writes while Chroma writes comes out as OSError, like any other failed write.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from pathlib import Path

import numpy as np

from duocthu_desktop.artifacts import CATALOG_FILE, PAGES_FILE, REPORT_FILE, Chunk, Monograph
from duocthu_desktop.dosage.rows import DOSING_FILE
from duocthu_desktop.errors import IndexError_
from duocthu_desktop.qa.understanding.stored_catalog import catalog_code_sha256, write_catalog
from duocthu_desktop.retrieval.chroma_store import ChromaStore
from duocthu_desktop.retrieval.embed_cache import EmbeddingCache, embed_cached, text_key
from duocthu_desktop.retrieval.manifest import (
    CHROMA_DIR,
    MANIFEST_FILE,
    IndexManifest,
    chunk_digests,
    chunks_sha256,
    collection_name,
    count_rows,
    file_digests,
    write_manifest,
)
from duocthu_desktop.retrieval.service import INDICATION_SECTION
from duocthu_desktop.retrieval.types import Embedder, EmbedKind
from ingestion.out_folder import disk_failure
from ingestion.progress import Progress

# The sections a dense search ranks: today only Chỉ định (RetrievalService._dense_indication), so only their
# chunks are embedded; a section added here is embedded at the next build (the cache keeps the rest). Measured
# (bench/embed_options.py, BENCHMARKS.md): embedding every chunk of the full-size book took 64 minutes, and Chỉ
# định is 5 % of its tokens. Framed and lexical retrieval read the chunks' text and metadata, never a vector.
DENSE_SECTIONS = frozenset({INDICATION_SECTION})


def document_text(chunk: Chunk, title: str | None) -> str:
    """What is embedded for a chunk: drug title and section heading first, so a part far from the title
    still carries which drug and which section it belongs to."""
    head = " — ".join(x for x in (title, chunk.heading) if x)
    return f"{head}\n{chunk.text}" if head else chunk.text


def placeholder_vector(chunk_id: str, dimensions: int) -> list[float]:
    """The vector stored for a chunk that is not embedded: a unit vector drawn from its chunk id. Distinct for
    every chunk (a chunk's own vector finds it, as the index checks expect) and, in hundreds of dimensions,
    nearly orthogonal to any real embedding (cosine distance about 1, far beyond any match threshold), so no
    query comes near it; the same on every build, so rebuilding changes nothing."""
    seed = int.from_bytes(hashlib.sha256(chunk_id.encode("utf-8")).digest()[:8], "big")
    vector = np.random.default_rng(seed).standard_normal(dimensions)
    return (vector / np.linalg.norm(vector)).astype(np.float32).tolist()


def _corpus_sha256(stage_dir: Path, fallback: str) -> str:
    try:
        return json.loads((stage_dir / PAGES_FILE).read_text(encoding="utf-8"))["source_sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return fallback


def _code_digests(stage_dir: Path) -> dict[str, str] | None:
    """The digest of the code that computed each artifact the app may read instead of computing it: the catalog
    (written here) and the dose rows (as report.json records them: `write_artifacts` wrote both, maybe in an
    earlier process). An artifact whose code is unknown is left out: the app computes it."""
    found = {CATALOG_FILE: catalog_code_sha256()}
    try:
        report = json.loads((stage_dir / REPORT_FILE).read_text(encoding="utf-8"))
        found[DOSING_FILE] = report.get("dosing_code_sha256") if (stage_dir / DOSING_FILE).is_file() else None
    except (OSError, ValueError, AttributeError):
        pass
    return {name: digest for name, digest in found.items() if isinstance(digest, str)} or None


def _source_pdf(stage_dir: Path) -> tuple[str | None, str | None]:
    """(file name, sha256) of the PDF pages.json says the artifacts were read from; the name only, never the
    build machine's folder."""
    try:
        pages = json.loads((stage_dir / PAGES_FILE).read_text(encoding="utf-8"))
        return Path(pages["source_pdf"]).name or None, pages["source_sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return None, None


class _Reporting:
    """The embedder, reporting each batch as "embed" progress and stopping at a cancel before the next batch
    (never between embedding a batch and the cache storing it)."""

    def __init__(self, inner: Embedder, progress: Progress, done: int, total: int) -> None:
        self.inner, self.progress, self.done, self.total = inner, progress, done, total
        self.model_id, self.dimensions = inner.model_id, inner.dimensions

    def embed(self, texts: list[str], kind: EmbedKind) -> list[list[float]]:
        self.progress.step("embed", self.done, self.total)
        vectors = self.inner.embed(texts, kind)
        self.done += len(texts)
        self.progress.report("embed", self.done, self.total)
        return vectors


def _embed(embedder: Embedder, texts: list[str], cache: EmbeddingCache, progress: bool, steps: Progress
           ) -> tuple[list[list[float]], int]:
    if not steps.active:
        return embed_cached(embedder, texts, "document", cache, progress=progress)
    keys = {text_key(t) for t in texts}
    cached = len(cache.lookup(embedder.model_id, "document", list(keys)))
    steps.step("embed", cached, len(keys))
    vectors, fresh = embed_cached(_Reporting(embedder, steps, cached, len(keys)), texts, "document", cache,
                                  progress=progress and steps.on_progress is None)
    steps.step("embed", len(keys), len(keys))
    return vectors, fresh


def _default_embedder() -> Embedder:
    from duocthu_desktop.retrieval.embedder import LazyEmbedder

    return LazyEmbedder()  # loads only if some chunk is not in the cache yet


def build_index(
    stage_dir: Path,
    chunks: list[Chunk],
    monographs: list[Monograph],
    progress: bool = True,
    embedder: Embedder | None = None,
    cache: EmbeddingCache | None = None,
    steps: Progress | None = None,
) -> IndexManifest:
    """Write `stage_dir/chroma` and `stage_dir/manifest.json` for `chunks`; IndexError_ if the check fails.
    `steps` reports the embed, index and check stages and stops the build at a cancel (BuildCancelled)."""
    steps = steps or Progress()
    started = time.monotonic()
    stage_dir = Path(stage_dir)
    ids = [c.chunk_id for c in chunks]
    if len(set(ids)) != len(ids):
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        raise ValueError(f"duplicate chunk ids would overwrite each other in the index: {dupes[:5]}")
    embedder = embedder or _default_embedder()
    titles = {m.drug_id: m.title for m in monographs}
    dense = [i for i, c in enumerate(chunks) if c.section_key in DENSE_SECTIONS]
    texts = [document_text(chunks[i], titles.get(chunks[i].drug_id)) for i in dense]

    own_cache = cache is None
    cache = cache or EmbeddingCache()
    try:
        embedded, embedded_now = _embed(embedder, texts, cache, progress, steps)
    finally:
        if own_cache:
            cache.close()
    dimensions = len(embedded[0]) if embedded else embedder.dimensions
    vectors: list[list[float]] = [[] for _ in chunks]
    for i, vector in zip(dense, embedded, strict=True):
        vectors[i] = vector
    for i, chunk in enumerate(chunks):
        if not vectors[i]:
            vectors[i] = placeholder_vector(chunk.chunk_id, dimensions)

    chunks_sha = chunks_sha256(chunks)
    corpus_sha = _corpus_sha256(stage_dir, chunks_sha)
    manifest_path = stage_dir / MANIFEST_FILE
    manifest_path.unlink(missing_ok=True)
    chroma_dir = stage_dir / CHROMA_DIR
    shutil.rmtree(chroma_dir, ignore_errors=True)
    pdf_name, pdf_sha = _source_pdf(stage_dir)
    write_catalog(stage_dir, monographs, chunks)  # read at open instead of computed from every chunk
    manifest = IndexManifest(
        corpus_sha256=corpus_sha,
        chunks_sha256=chunks_sha,
        model_id=embedder.model_id,
        weights_sha256=getattr(embedder, "weights_sha256", None),
        dimensions=dimensions,
        collection=collection_name(corpus_sha, chunks_sha, embedder.model_id),
        chunk_count=len(chunks),
        monograph_count=len(monographs),
        dosing_rows=count_rows(stage_dir / DOSING_FILE) if (stage_dir / DOSING_FILE).is_file() else None,
        source_pdf_name=pdf_name,
        source_pdf_sha256=pdf_sha,
        file_sha256=file_digests(stage_dir),  # every open checks these; every chunk read from Chroma its own
        chunk_sha256=chunk_digests(chunks),
        code_sha256=_code_digests(stage_dir),
    )

    try:
        with ChromaStore.create_persistent(chroma_dir, manifest.collection) as store:
            if steps.active:
                store.add(chunks, vectors, on_batch=lambda done, total: steps.step("index", done, total))
            else:
                store.add(chunks, vectors)
        ChromaStore.persist_vector_log(chroma_dir, manifest.collection)  # else each open replays the last ones
    except Exception as err:
        disk = disk_failure(err, chroma_dir)
        if disk is None:
            raise
        raise disk from err
    steps.step("check", 0, 1)
    _check(chroma_dir, manifest, chunks, vectors)
    steps.step("check", 1, 1)
    manifest.build_seconds = round(time.monotonic() - started, 2)
    write_manifest(stage_dir, manifest)
    if progress:
        print(
            f"[index] {len(chunks)} chunks, {len(texts)} of them embedded ({embedded_now} embedded now, "
            f"{len(texts) - embedded_now} from the cache) in {manifest.build_seconds:.1f} s -> {chroma_dir}",
            flush=True,
        )
    return manifest


def _check(
    chroma_dir: Path, manifest: IndexManifest, chunks: list[Chunk], vectors: list[list[float]]
) -> None:
    """Reopen what was written: every chunk is there, and a chunk's own vector finds that chunk."""
    with ChromaStore.open_persistent(chroma_dir, manifest.collection) as store:
        count = store.count()
        if count != len(chunks):
            raise IndexError_(f"index check failed: {count} chunks in Chroma, {len(chunks)} expected")
        if not chunks:
            return
        probe = chunks[len(chunks) // 2]
        found = store.query(vectors[len(chunks) // 2], k=3)
        if not found or probe.chunk_id not in {c.chunk_id for c, _ in found}:
            raise IndexError_(
                f"index check failed: a query by {probe.chunk_id}'s own vector does not find it"
            )
        framed = store.get({"drug_id": probe.drug_id, "section_key": probe.section_key})
        if probe not in framed:
            raise IndexError_(f"index check failed: {probe.chunk_id} does not read back as it was written")
