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
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from duocthu_desktop.artifacts import (
    CHUNKS_FILE,
    MONOGRAPHS_FILE,
    Chunk,
    Monograph,
    read_chunks,
    read_monographs,
)
from duocthu_desktop.errors import DuocthuError, IndexError_, ServerUnavailable
from duocthu_desktop.payload import Reason
from duocthu_desktop.qa.understanding.lexicon import CONDITION_GAP_WORDS, condition_variants
from duocthu_desktop.retrieval.manifest import (
    CHROMA_DIR,
    REBUILD_HINT,
    check_artifacts,
    chunk_digest,
    chunks_sha256,
    read_manifest,
    refuse_tampered,
)
from duocthu_desktop.retrieval.server import SERVER_HINT
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
# Drugs whose sections `retrieve_framed` keeps (a few MB at most: the whole book is 16 MB of JSON).
FRAMED_CACHE_DRUGS = 1000
_ALNUM = "a-z0-9"
# Up to this many words of the book between two words of a condition: only CONDITION_GAP_WORDS ("nhiễm khuẩn
# [đường] tiết niệu", "giảm [các cơn] đau"), or organs sharing the head word over hyphens ("viêm [não -] màng não",
# "viêm [tai - mũi -] họng"). Never across other punctuation.
INDICATION_GAP_WORDS = 2
_GAP_WORDS = frozenset(w for phrase in CONDITION_GAP_WORDS for w in fold(phrase).split())
# Vietnamese tone marks (combining): where they sit on a syllable varies ("hoá"/"hóa", "thuỷ"/"thủy").
_TONE_MARKS = frozenset("\u0300\u0301\u0303\u0309\u0323")


_FOLDED_CHARS: dict[str, str] = {}  # fold of one character, by character (a few hundred distinct in the book)


def fold_with_offsets(text: str) -> tuple[str, list[int]]:
    """`fold(text)` and, for each folded character, the index of the original character it came from."""
    out: list[str] = []
    origin: list[int] = []
    folded_chars = _FOLDED_CHARS
    for i, ch in enumerate(text):
        piece = folded_chars.get(ch)
        if piece is None:
            piece = folded_chars[ch] = fold(ch)
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
        if _is_server(location):  # a server that stops answering is down, not a damaged index
            raise ServerUnavailable(f"The Chroma server at {location} does not answer while reading {what} "
                                    f"({type(err).__name__}: {err}): {SERVER_HINT}.") from err
        raise IndexError_(f"Reading {what} from {location} failed ({type(err).__name__}: {err}): "
                          f"{REBUILD_HINT}.") from err


def _open_folder_store(chroma_dir: Path, collection: str):
    """The embedded index: read from its SQLite file without chromadb where it can be (chroma_file), Chroma itself
    opened for the first nearest-neighbour query; else Chroma, as before."""
    from duocthu_desktop.retrieval.chroma_file import ChromaFile, FileFirstStore

    def open_chroma():
        from duocthu_desktop.retrieval.chroma_store import ChromaStore

        return ChromaStore.open_persistent(chroma_dir, collection)

    reader = ChromaFile.open(chroma_dir, collection)
    return FileFirstStore(reader, open_chroma) if reader is not None else open_chroma()



def _is_server(location: str) -> bool:
    return location.startswith(("http://", "https://")) or "://" in location


def phrase_pattern(condition: str, gap: int = 0) -> re.Pattern[str] | None:
    """Whole words of the folded condition, any whitespace between them, bounded by non-alphanumerics; with `gap`,
    up to that many other words between two of them. Group i holds the i-th word."""
    words = re.findall(f"[{_ALNUM}]+", fold(condition))
    if not words:
        return None
    between = r"[\s\-]+" if not gap else rf"(?:[\s\-]+[{_ALNUM}]+){{0,{gap}}}?[\s\-]+"
    body = between.join(f"({re.escape(w)})" for w in words)
    return re.compile(f"(?<![{_ALNUM}]){body}(?![{_ALNUM}])")


def _accent_key(word: str) -> tuple[str, str]:
    """A word's letters with their shape marks, and its tone mark apart (placement-free: "hoá" is "hóa")."""
    chars = unicodedata.normalize("NFD", word.lower())
    letters = "".join(ch for ch in chars if ch not in _TONE_MARKS)
    return unicodedata.normalize("NFC", letters), "".join(sorted(ch for ch in chars if ch in _TONE_MARKS))


def _typed_words(condition: str) -> list[str]:
    """The condition's words as typed (NFC), one for each folded word of `phrase_pattern`; [] if they differ."""
    typed = re.findall(r"[^\W_]+", unicodedata.normalize("NFC", condition))
    folded = [w for t in typed for w in re.findall(f"[{_ALNUM}]+", fold(t))]
    return typed if len(folded) == len(typed) else []


def _word_agrees(typed: str, written: str, accented: bool) -> bool:
    """A condition typed with diacritics means them on every word, its plain words included ("bệnh than" is
    anthrax, not "bệnh thận"); one typed with none is matched folded."""
    return not accented or _accent_key(typed) == _accent_key(written)


class _Matcher:
    """One wording of a condition met in a chi_dinh chunk: the whole phrase, or its words with a short gap of the
    book's own words between them; typed with diacritics, every word must be the book's as typed."""

    def __init__(self, typed: list[str], exact: re.Pattern[str], gapped: re.Pattern[str]) -> None:
        self.typed, self.exact, self.gapped = typed, exact, gapped
        self.accented = any(fold(w) != w.lower() for w in typed)

    @classmethod
    def of(cls, condition: str) -> _Matcher | None:
        exact, gapped = phrase_pattern(condition), phrase_pattern(condition, INDICATION_GAP_WORDS)
        if exact is None or gapped is None:
            return None
        return cls(_typed_words(condition), exact, gapped)

    def find(self, text: str, folded: str, origin: list[int]) -> tuple[int, int] | None:
        """The (start, end) in `text` of the first acceptable occurrence, or None."""
        for pattern in (self.exact, self.gapped):
            pos = 0
            while (m := pattern.search(folded, pos)) is not None:
                pos = m.start() + 1
                if self._acceptable(m, text, folded, origin):
                    return origin[m.start()], origin[m.end() - 1] + 1
        return None

    def _acceptable(self, m: re.Match[str], text: str, folded: str, origin: list[int]) -> bool:
        for i in range(1, (m.lastindex or 0)):
            gap = folded[m.end(i) : m.start(i + 1)]
            words = set(re.findall(f"[{_ALNUM}]+", gap))
            if words and not words <= _GAP_WORDS and not gap.rstrip().endswith("-"):
                return False
        for i, typed in enumerate(self.typed, start=1):
            written = text[origin[m.start(i)] : origin[m.end(i) - 1] + 1]
            if not _word_agrees(typed, written, self.accented):
                return False
        return True


def url_of(settings: Settings | None) -> str | None:
    """The Chroma server the settings name (without settings, DUOCTHU_CHROMA_URL), or None for the folder."""
    return settings.chroma_url if settings is not None else os.environ.get(ENV_CHROMA_URL)


class RetrievalService:
    def __init__(self, store: ChunkStore, monographs: list[Monograph], embedder: Embedder | None = None) -> None:
        self.store = store
        self.monographs = list(monographs)
        self.embedder = embedder
        self._by_id = {m.drug_id: m for m in self.monographs}
        self._all: list[Chunk] | None = None
        self._folded: dict[str, tuple[str, list[int]]] = {}
        self._framed: dict[str, dict[str, list[Chunk]]] = {}  # drug_id -> section_key -> chunks, as verified
        self._lock = threading.Lock()
        self.manifest = None  # the IndexManifest when opened from a folder
        self.index_dir: Path | None = None  # that folder
        self.dense_error: str | None = None  # why the last dense search could not run (a turn says so)
        self.notice: str | None = None  # said once to the person: e.g. opened the fallback, the server being down
        self.stored_rows = None  # the build's dose rows (dosage.stored.StoredRows), when they may be used

    # ---- opening an index folder ------------------------------------------------------------------

    @classmethod
    def open(cls, index_dir: Path | None, settings: Settings | None = None, embedder: Embedder | None = None
             ) -> RetrievalService:
        """The service over a folder `duocthu-ingest build` made: its monographs and manifest, and its chunks in
        the embedded Chroma store; or, when `settings.chroma_url` (or, without settings, DUOCTHU_CHROMA_URL)
        names a Chroma server, over the index `duocthu-ingest publish` put there (retrieval.shared), with
        `index_dir` as the fallback when one is given. The embedder loads on the first dense search unless one is
        given. IndexError_ (saying how to rebuild) for a missing, damaged or other-model index."""
        url = url_of(settings)
        if url:
            from duocthu_desktop.retrieval.shared import open_shared

            return open_shared(cls, url, Path(index_dir) if index_dir else None, settings, embedder)
        if index_dir is None:
            raise IndexError_("No index given: pass --index DIR or set DUOCTHU_INDEX (or DUOCTHU_CHROMA_URL).")
        return cls.open_folder(Path(index_dir), settings, embedder)

    @classmethod
    def open_folder(cls, index_dir: Path, settings: Settings | None = None, embedder: Embedder | None = None,
                    store_for=None, location: str | None = None) -> RetrievalService:
        """The service over the artifacts in `index_dir` and the chunks of `store_for(manifest)` (default: the
        folder's embedded Chroma store); `location` names where they come from in messages."""
        from duocthu_desktop.retrieval import index_folder

        index_dir = Path(index_dir)
        where = location or index_dir
        local = store_for is None  # the folder's own Chroma store, not a server's
        if local:
            index_folder.settle(index_dir)  # a swap a killed build left half-done is finished or rolled back
        if not index_dir.is_dir():
            raise IndexError_(f"No index at {index_dir}: build one with `duocthu-ingest build --pdf PDF --out DIR`.")
        if local and not index_folder.writable(index_dir):  # Chroma must write its database
            index_dir = index_folder.readable_copy(index_dir, settings.data_dir if settings else None)
        manifest = read_manifest(index_dir)
        try:
            monographs = read_monographs(index_dir / MONOGRAPHS_FILE)
        except (OSError, ValueError) as err:
            raise IndexError_(f"The index at {where} has a missing or unreadable {MONOGRAPHS_FILE} "
                              f"({type(err).__name__}): {REBUILD_HINT}.") from err
        check_artifacts(index_dir, manifest, len(monographs))  # an emptied file is refused, not "no drug"
        if embedder is None:
            from duocthu_desktop.retrieval.embedder import LazyEmbedder

            embedder = LazyEmbedder(settings.embedding_model_dir if settings else None)
        manifest.check_model(embedder.model_id, embedder.dimensions, where)
        if not local:
            store = store_for(manifest)
        else:
            try:
                store = _open_folder_store(index_dir / CHROMA_DIR, manifest.collection)
            except IndexError_ as err:  # read-only where `writable` could not tell (Windows' Program Files)
                if not index_folder.refused_as_read_only(err):
                    raise
                index_dir = index_folder.readable_copy(index_dir, settings.data_dir if settings else None)
                store = _open_folder_store(index_dir / CHROMA_DIR, manifest.collection)
        server = _is_server(str(getattr(store, "location", "")))
        try:
            count = store.count()
        except Exception as err:
            store.close()
            if server:
                raise ServerUnavailable(f"The Chroma server at {store.location} does not answer "
                                        f"({type(err).__name__}): {SERVER_HINT}.") from err
            raise IndexError_(f"The index at {store.location} cannot be read ({type(err).__name__}): "
                              f"{REBUILD_HINT}.") from err
        if count != manifest.chunk_count:
            store.close()
            raise IndexError_(f"The index at {store.location} holds {count} chunks, its manifest says "
                              f"{manifest.chunk_count} (incomplete or damaged): {REBUILD_HINT}.")
        service = cls(store, monographs, embedder)
        service.manifest, service.index_dir = manifest, index_dir
        service._use_stored_rows()
        return service

    def take_notice(self) -> str | None:
        """A one-line notice for the person, said once (the index fell back from the server to the folder)."""
        take = getattr(self.store, "take_notice", None)
        notice, self.notice = self.notice, None
        later = take() if callable(take) else None
        return " ".join(n for n in (notice, later) if n) or None
    def _use_stored_rows(self) -> None:
        """Have the turns read this index's dose rows from dosing.jsonl (dosage.stored) when the build's parser is
        the running one, once every chunk is in memory."""
        from duocthu_desktop.dosage import stored
        from duocthu_desktop.dosage.rows import DOSING_FILE

        recorded = (self.manifest.code_sha256 or {}).get(DOSING_FILE)
        self.stored_rows = stored.open_stored(self.index_dir, recorded, lambda: self._all)
        stored.use(self.stored_rows, self._monograph_route)

    def _monograph_route(self, drug_id: str) -> tuple[str, ...]:
        """The route the drug's INN line names (`words.monograph_route`), () when it names none."""
        from duocthu_desktop.dosage.parser import IDENTITY_KEY
        from duocthu_desktop.dosage.words import monograph_route

        chunks = self.retrieve_framed(drug_id, IDENTITY_KEY).chunks
        return tuple(monograph_route(chunks[0].text)) if chunks else ()

    def warm_up(self) -> None:
        """What a first turn would otherwise wait for, done now (the app calls it in the background): every chunk
        read, and Chroma's vector index opened when the store defers it."""
        self.all_chunks()
        open_vectors = getattr(self.store, "open_vectors", None)
        if callable(open_vectors):
            _read_store("the vector index", open_vectors, self._location)

    def close(self) -> None:
        """Release the store (the Chroma client and its files), so a rebuilt index can be swapped in at the
        same folder; then `RetrievalService.open` it again."""
        from duocthu_desktop.dosage import stored

        if self.stored_rows is not None and stored.current() is self.stored_rows:
            stored.use(None)
        close = getattr(self.store, "close", None)
        if close is not None:
            close()

    # ---- lookups ----------------------------------------------------------------------------------

    def monograph(self, drug_id: str) -> Monograph | None:
        return self._by_id.get(drug_id)

    def chunk(self, chunk_id: str) -> Chunk | None:
        """One chunk by its chunk_id (the source viewer and the browser), or None when the index has none."""
        by_id = getattr(self.store, "get_by_id", None)
        if by_id is not None:
            chunk = _read_store(f"chunk {chunk_id}", lambda: by_id(chunk_id), self._location)
            return self._verified([chunk])[0] if chunk is not None else None
        return next((c for c in self.all_chunks() if c.chunk_id == chunk_id), None)

    def all_chunks(self) -> list[Chunk]:
        with self._lock:
            if self._all is None:
                self._all = self._indexed_chunks_file()
            if self._all is None:
                self._all = self._verified(_read_store("every chunk", self.store.all, self._location))
            return self._all

    def _verified(self, chunks: list[Chunk]) -> list[Chunk]:
        """`chunks` as read from the store, if each hashes to the sha256 its build recorded in the manifest
        (`chunk_sha256`), else IndexError_ refusing the index: a dose edited in Chroma's copy of a chunk (in the
        folder's chroma.sqlite3 or on a server) is never answered from nor cited. Every chunk a turn cites was
        read through here. An index built before the digests (none recorded) is read as before."""
        digests = self.manifest.chunk_sha256 if self.manifest is not None else None
        if not digests:
            return chunks
        changed = [c.chunk_id for c in chunks if digests.get(c.chunk_id) != chunk_digest(c)]
        if changed:
            raise refuse_tampered(self._location, [f"nội dung {len(changed)} đoạn ({', '.join(changed[:3])})"], [
                f"the store's copy of {len(changed)} chunks does not hash to the sha256 in manifest.json "
                f"({', '.join(changed[:3])})"])
        return chunks

    def _indexed_chunks_file(self) -> list[Chunk] | None:
        """Every chunk from the folder's chunks.jsonl when it is exactly what was indexed (the manifest's
        chunks_sha256): the chunks the store holds, in the same order, read in a fifth of the time (0.4 s
        against 2 s for the full book's 12,800, at every open). None to read them from the store."""
        if self.manifest is None or self.index_dir is None:
            return None
        try:
            chunks = read_chunks(self.index_dir / CHUNKS_FILE)
        except (OSError, ValueError):
            return None
        return chunks if chunks_sha256(chunks) == self.manifest.chunks_sha256 else None

    def retrieve_framed(self, drug_id: str, section_key: str) -> SectionResult:
        """The whole section, every part (tables in their place) in part_index order.

        The store is read once per drug (every section of it, each chunk verified), and kept: a turn reads
        several sections of a drug (dosage, forms, contraindications), a condition list three of each of up to a
        hundred drugs, and each filtered read of Chroma costs as much as the drug's whole monograph."""
        with self._lock:
            sections = self._framed.get(drug_id)
        if sections is None:
            where = {"drug_id": drug_id}
            chunks = self._verified(_read_store(f"{drug_id}/{section_key}", lambda: self.store.get(where),
                                                self._location))
            sections = {}
            for chunk in chunks:  # the store's book order
                sections.setdefault(chunk.section_key, []).append(chunk)
            with self._lock:
                if len(self._framed) >= FRAMED_CACHE_DRUGS:
                    self._framed.clear()
                self._framed[drug_id] = sections
        chunks = sorted(sections.get(section_key, ()), key=lambda c: c.part_index)  # stable: ties keep book order
        return SectionResult(drug_id=drug_id, section_key=section_key, chunks=chunks)

    def dense_search(self, query: str, k: int = 8, where: dict | None = None) -> list[tuple[Chunk, float]]:
        """The k nearest chunks by meaning; none when there is no embedder or it cannot load or run. Only the
        sections the build embeds (ingestion.index_build.DENSE_SECTIONS: Chỉ định) are ranked by meaning; any other
        chunk holds a placeholder vector that no query comes near, so filter on an embedded section."""
        self.dense_error = None
        if self.embedder is None:
            return []
        try:
            vector = self.embedder.embed([query], "query")[0]
        except DuocthuError as err:
            log.warning("dense search skipped, embedding model unavailable: %s", err)
            self.dense_error = str(err)
            return []
        except Exception as err:  # noqa: BLE001 - a broken model fails inside torch in many ways
            log.warning("dense search skipped, embedding failed (%s: %s)", type(err).__name__, err)
            self.dense_error = f"{type(err).__name__}: {err}"
            return []
        found = _read_store("nearest chunks", lambda: self.store.query(vector, k, where), self._location)
        self._verified([c for c, _ in found])
        return found

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
        """Drugs whose Chỉ định names the condition or a book name for it (`condition_variants`), in book order,
        one hit per drug (its first matching chunk), at most `k`."""
        matchers = [m for v in condition_variants(condition) if (m := _Matcher.of(v)) is not None]
        if not matchers:
            return []
        hits: list[IndicationHit] = []
        seen: set[str] = set()
        for chunk in self.all_chunks():  # book order
            if chunk.section_key != INDICATION_SECTION or chunk.drug_id in seen:
                continue
            folded, origin = self._folded_text(chunk)
            span = next((sp for m in matchers if (sp := m.find(chunk.text, folded, origin)) is not None), None)
            if span is None:
                continue
            hits.append(IndicationHit(drug_id=chunk.drug_id, chunk=chunk, matched=chunk.text[span[0] : span[1]],
                                      method="lexical", score=1.0))
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
        """Drugs whose Chỉ định names the condition under any of its wordings (`_Matcher`), in book order (no cut
        unless `k` is given: a list of drugs must be complete); if none, the nearest chi_dinh chunks by meaning
        (score order), only those within the distance threshold, at most `k` or DENSE_INDICATION_K."""
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
