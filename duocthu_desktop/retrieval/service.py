"""The retrieval service: whole sections by metadata, indication search, dense search, and the decision
whether what was found may be answered from. No Qt; the question path and the app both call this.

Failures are reasons: a store that fails while reading raises IndexError_ (the turn turns it into an
abstention); an embedder that cannot load or run leaves the dense fallback empty, with a warning.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from duocthu_desktop.artifacts import MONOGRAPHS_FILE, Chunk, Monograph, read_monographs
from duocthu_desktop.errors import DuocthuError, IndexError_
from duocthu_desktop.payload import Reason
from duocthu_desktop.retrieval.manifest import CHROMA_DIR, REBUILD_HINT, read_manifest
from duocthu_desktop.retrieval.types import (
    ChunkStore,
    Embedder,
    IndicationHit,
    RetrievalDecision,
    SectionResult,
)
from duocthu_desktop.settings import ENV_CHROMA_URL, Settings
from duocthu_desktop.text import fold

log = logging.getLogger(__name__)
T = TypeVar("T")

INDICATION_SECTION = "chi_dinh"
# Cosine distance (1 - cos) above which a dense indication match is treated as unrelated. Calibrated on the
# sample book's chi_dinh chunks with EmbeddingGemma: true matches 0.52-0.64 ("cao huyết áp" -> captopril
# 0.60, "tiểu đường" -> metformin 0.60, "nhiễm virus HIV" -> abacavir 0.52, "đông máu" -> warfarin 0.63);
# wrong or unrelated ones from 0.68 ("bệnh gout" -> aspirin 0.68, "ung thư vú" 0.75, "sửa xe máy" 0.79).
DENSE_INDICATION_MAX_DISTANCE = 0.66
# Nearest-by-meaning indication hits kept when no phrase matched (a fallback, said so in the answer).
DENSE_INDICATION_K = 10
_ALNUM = "a-z0-9"


def fold_with_offsets(text: str) -> tuple[str, list[int]]:
    """`fold(text)` and, for each folded character, the index of the original character it came from."""
    out: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        piece = fold(ch)
        out.append(piece)
        origin.extend([i] * len(piece))
    return "".join(out), origin


def _read_store(what: str, call: Callable[[], T], location: str = "the index") -> T:
    """`call()`, with any failure of the store (a damaged Chroma page, a lost server) as IndexError_."""
    try:
        return call()
    except IndexError_:
        raise
    except Exception as err:  # noqa: BLE001 - chromadb and sqlite raise many types for one broken index
        raise IndexError_(f"Reading {what} from {location} failed ({type(err).__name__}: {err}): "
                          f"{REBUILD_HINT}.") from err


def phrase_pattern(condition: str) -> re.Pattern[str] | None:
    """Whole words of the folded condition, any whitespace between them, bounded by non-alphanumerics."""
    words = re.findall(f"[{_ALNUM}]+", fold(condition))
    if not words:
        return None
    body = r"[\s\-]+".join(re.escape(w) for w in words)
    return re.compile(f"(?<![{_ALNUM}]){body}(?![{_ALNUM}])")


class RetrievalService:
    def __init__(self, store: ChunkStore, monographs: list[Monograph], embedder: Embedder | None = None) -> None:
        self.store = store
        self.monographs = list(monographs)
        self.embedder = embedder
        self._by_id = {m.drug_id: m for m in self.monographs}
        self._all: list[Chunk] | None = None
        self._folded: dict[str, tuple[str, list[int]]] = {}
        self._lock = threading.Lock()
        self.manifest = None  # the IndexManifest when opened from a folder

    # ---- opening an index folder ------------------------------------------------------------------

    @classmethod
    def open(cls, index_dir: Path, settings: Settings | None = None, embedder: Embedder | None = None
             ) -> RetrievalService:
        """The service over a folder `duocthu-ingest build` made: its monographs and manifest, and its chunks in
        the embedded Chroma store, or on a Chroma server when `settings.chroma_url` (or, without settings,
        DUOCTHU_CHROMA_URL) names one. The embedder loads on the first dense search unless one is given.
        IndexError_ (saying how to rebuild) for a missing, damaged or other-model index."""
        from duocthu_desktop.retrieval.chroma_store import ChromaStore

        index_dir = Path(index_dir)
        if not index_dir.is_dir():
            raise IndexError_(f"No index at {index_dir}: build one with `duocthu-ingest build --pdf PDF --out DIR`.")
        manifest = read_manifest(index_dir)
        try:
            monographs = read_monographs(index_dir / MONOGRAPHS_FILE)
        except (OSError, ValueError) as err:
            raise IndexError_(f"The index at {index_dir} has a missing or unreadable {MONOGRAPHS_FILE} "
                              f"({type(err).__name__}): {REBUILD_HINT}.") from err
        if embedder is None:
            from duocthu_desktop.retrieval.embedder import LazyEmbedder

            embedder = LazyEmbedder(settings.embedding_model_dir if settings else None)
        manifest.check_model(embedder.model_id, embedder.dimensions, index_dir)
        url = settings.chroma_url if settings is not None else os.environ.get(ENV_CHROMA_URL)
        if url:
            store = ChromaStore.connect(url, manifest.collection)
        else:
            store = ChromaStore.open_persistent(index_dir / CHROMA_DIR, manifest.collection)
        try:
            count = store.count()
        except Exception as err:
            store.close()
            raise IndexError_(f"The index at {store.location} cannot be read ({type(err).__name__}): "
                              f"{REBUILD_HINT}.") from err
        if count != manifest.chunk_count:
            store.close()
            raise IndexError_(f"The index at {store.location} holds {count} chunks, its manifest says "
                              f"{manifest.chunk_count} (incomplete or damaged): {REBUILD_HINT}.")
        service = cls(store, monographs, embedder)
        service.manifest = manifest
        return service

    def close(self) -> None:
        close = getattr(self.store, "close", None)
        if close is not None:
            close()

    # ---- lookups ----------------------------------------------------------------------------------

    def monograph(self, drug_id: str) -> Monograph | None:
        return self._by_id.get(drug_id)

    def all_chunks(self) -> list[Chunk]:
        with self._lock:
            if self._all is None:
                self._all = _read_store("every chunk", self.store.all, self._location)
            return self._all

    def retrieve_framed(self, drug_id: str, section_key: str) -> SectionResult:
        """The whole section, every part (tables in their place) in part_index order."""
        where = {"drug_id": drug_id, "section_key": section_key}
        chunks = _read_store(f"{drug_id}/{section_key}", lambda: self.store.get(where), self._location)
        chunks = sorted(chunks, key=lambda c: c.part_index)  # stable: ties keep the store's book order
        return SectionResult(drug_id=drug_id, section_key=section_key, chunks=chunks)

    def dense_search(self, query: str, k: int = 8, where: dict | None = None) -> list[tuple[Chunk, float]]:
        """The k nearest chunks by meaning; none when there is no embedder or it cannot load or run."""
        if self.embedder is None:
            return []
        try:
            vector = self.embedder.embed([query], "query")[0]
        except DuocthuError as err:
            log.warning("dense search skipped, embedding model unavailable: %s", err)
            return []
        except Exception as err:  # noqa: BLE001 - a broken model fails inside torch in many ways
            log.warning("dense search skipped, embedding failed (%s: %s)", type(err).__name__, err)
            return []
        return _read_store("nearest chunks", lambda: self.store.query(vector, k, where), self._location)

    @property
    def _location(self) -> str:
        return str(getattr(self.store, "location", "the index"))

    # ---- indication search ------------------------------------------------------------------------

    def _folded_text(self, chunk: Chunk) -> tuple[str, list[int]]:
        cached = self._folded.get(chunk.chunk_id)
        if cached is None:
            cached = self._folded[chunk.chunk_id] = fold_with_offsets(chunk.text)
        return cached

    def _lexical_indication(self, condition: str, k: int) -> list[IndicationHit]:
        pattern = phrase_pattern(condition)
        if pattern is None:
            return []
        hits: list[IndicationHit] = []
        seen: set[str] = set()
        for chunk in self.all_chunks():  # book order
            if chunk.section_key != INDICATION_SECTION or chunk.drug_id in seen:
                continue
            folded, origin = self._folded_text(chunk)
            match = pattern.search(folded)
            if match is None:
                continue
            matched = chunk.text[origin[match.start()] : origin[match.end() - 1] + 1]
            hits.append(IndicationHit(drug_id=chunk.drug_id, chunk=chunk, matched=matched, method="lexical",
                                      score=1.0))
            seen.add(chunk.drug_id)
            if len(hits) >= k:
                break
        return hits

    def _dense_indication(self, condition: str, k: int) -> list[IndicationHit]:
        hits: list[IndicationHit] = []
        seen: set[str] = set()
        for chunk, distance in self.dense_search(condition, k=max(k * 4, 16), where={"section_key": INDICATION_SECTION}):
            if distance > DENSE_INDICATION_MAX_DISTANCE or chunk.drug_id in seen:
                continue
            seen.add(chunk.drug_id)
            hits.append(IndicationHit(drug_id=chunk.drug_id, chunk=chunk, matched=chunk.text[:200], method="dense",
                                      score=1.0 - distance))
            if len(hits) >= k:
                break
        return hits

    def search_indication(self, condition: str, k: int | None = None) -> list[IndicationHit]:
        """Drugs whose Chỉ định names the condition: every whole-phrase folded match in book order (no cut unless
        `k` is given: a list of drugs must be complete); if none, the nearest chi_dinh chunks by meaning (score
        order), only those within the distance threshold, at most `k` or DENSE_INDICATION_K."""
        lexical = self._lexical_indication(condition, k if k is not None else len(self.all_chunks()))
        return lexical or self._dense_indication(condition, k if k is not None else DENSE_INDICATION_K)

    # ---- may this be answered from? ---------------------------------------------------------------

    def decide(self, result: SectionResult) -> RetrievalDecision:
        if not result.chunks:
            return RetrievalDecision(decision="abstain", reason=Reason.PARENT_HYDRATION_FAILED.value)
        if any(not c.printed_pages or not c.physical_pages for c in result.chunks):
            return RetrievalDecision(decision="abstain", reason=Reason.MISSING_PROVENANCE.value)
        if result.quarantined:
            return RetrievalDecision(decision="verify_pdf", reason=Reason.QUARANTINED_EVIDENCE.value)
        return RetrievalDecision(decision="answerable", reason=None)
