"""The chunk index in Chroma: embedded (`PersistentClient` in the index folder) or a Chroma server.

Each chunk is one record: id uuid5(chunk_id) (loading twice overwrites), the text as the document, scalar
metadata to filter on (drug_id, section_key, part_index, kind, quarantined, first/last pages) and the full
Chunk JSON so a chunk read back equals the chunk written. `ordinal` keeps the book's order.
"""

from __future__ import annotations

import gc
import json
import uuid
import warnings
from collections.abc import Callable
from pathlib import Path

import chromadb
from chromadb.config import Settings as ChromaSettings

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.errors import IndexError_, ServerUnavailable

NAMESPACE = uuid.UUID("6f1c2a4e-3b1d-5c7a-9e0f-d0c7a1b2e3f4")
LOAD_BATCH = 256
READ_PAGE = 2000
HNSW_SYNC_THRESHOLD, HNSW_BATCH_SIZE = 1000, 100  # Chroma's defaults, which create_persistent keeps
FILTER_KEYS = ("drug_id", "section_key", "part_index", "kind", "quarantined", "table_id")


def point_id(chunk_id: str) -> str:
    return str(uuid.uuid5(NAMESPACE, chunk_id))


def _client_settings() -> ChromaSettings:
    return ChromaSettings(anonymized_telemetry=False, allow_reset=False)


def _forget_dead_system(path: Path) -> None:
    """Drop chromadb's cached client system for `path` if no client holds it.

    chromadb caches one system per folder; when opening a damaged folder fails, the half-started system stays
    cached and every later client for that folder fails too, even after the folder was rebuilt.
    """
    from chromadb.api.shared_system_client import SharedSystemClient as Shared

    key = str(path)
    with Shared._refcount_lock:
        if Shared._identifier_to_refcount.get(key, 0) <= 0:
            Shared._identifier_to_system.pop(key, None)
            Shared._identifier_to_refcount.pop(key, None)


def chunk_metadata(chunk: Chunk, ordinal: int) -> dict:
    meta: dict = {
        "chunk_id": chunk.chunk_id,
        "drug_id": chunk.drug_id,
        "section_key": chunk.section_key,
        "part_index": chunk.part_index,
        "kind": chunk.kind,
        "quarantined": chunk.quarantined,
        "ordinal": ordinal,
        "printed_pages": json.dumps(chunk.printed_pages),
        "physical_pages": json.dumps(chunk.physical_pages),
        "chunk_json": chunk.model_dump_json(),
    }
    if chunk.table_id:
        meta["table_id"] = chunk.table_id
    for name in ("printed", "physical"):
        pages = getattr(chunk, f"{name}_pages")
        if pages:
            meta[f"{name}_first"], meta[f"{name}_last"] = min(pages), max(pages)
    return meta


def where_clause(where: dict | None) -> dict | None:
    """Our flat {key: value} filter in Chroma's syntax ($and for more than one key)."""
    if not where:
        return None
    unknown = set(where) - set(FILTER_KEYS)
    if unknown:
        raise ValueError(f"cannot filter on {sorted(unknown)}; known keys: {FILTER_KEYS}")
    items = [{key: value} for key, value in where.items()]
    return items[0] if len(items) == 1 else {"$and": items}


def _chunks_from(metadatas: list) -> list[Chunk]:
    rows = sorted(metadatas, key=lambda m: m.get("ordinal", 0))
    return [Chunk.model_validate_json(m["chunk_json"]) for m in rows]


class ChromaStore:
    """A ChunkStore over one Chroma collection (implements retrieval.types.ChunkStore)."""

    def __init__(self, client, collection, location: str) -> None:
        self._client = client
        self._collection = collection
        self.location = location

    # ---- opening ----------------------------------------------------------------------------------

    @classmethod
    def create_persistent(cls, path: Path, collection: str) -> ChromaStore:
        Path(path).mkdir(parents=True, exist_ok=True)
        _forget_dead_system(path)
        client = chromadb.PersistentClient(path=str(path), settings=_client_settings())
        col = client.get_or_create_collection(collection, configuration={"hnsw": {"space": "cosine"}},
                                              embedding_function=None)
        return cls(client, col, str(path))

    @classmethod
    def open_persistent(cls, path: Path, collection: str) -> ChromaStore:
        path = Path(path)
        if not (path / "chroma.sqlite3").is_file():
            raise IndexError_(f"No Chroma database in {path}: rebuild the index with `duocthu-ingest build`.")
        client = None
        try:
            _forget_dead_system(path)
            client = chromadb.PersistentClient(path=str(path), settings=_client_settings())
            col = client.get_collection(collection, embedding_function=None)
        except Exception as err:  # chromadb raises many types for a damaged folder
            if client is not None:
                client.close()
            _forget_dead_system(path)
            raise IndexError_(
                f"The Chroma index in {path} cannot be opened ({type(err).__name__}: {err}): rebuild it with "
                f"`duocthu-ingest build`."
            ) from err
        return cls(client, col, str(path))

    @classmethod
    def connect(cls, url: str, collection: str, create: bool = False, address=None) -> ChromaStore:
        """Server mode: a Chroma server at `url` (http://host:port) holding the collection; every call limited
        in time, the bearer token sent (retrieval.server; `address` or DUOCTHU_CHROMA_TOKEN/_TIMEOUT)."""
        from duocthu_desktop.retrieval.server import address_from, http_client

        client = http_client(address or address_from(url))
        try:
            if create:
                col = client.get_or_create_collection(collection, configuration={"hnsw": {"space": "cosine"}},
                                                      embedding_function=None)
            else:
                col = client.get_collection(collection, embedding_function=None)
        except Exception as err:
            raise ServerUnavailable(
                f"The Chroma server at {url} is unreachable or lacks collection {collection} "
                f"({type(err).__name__}: {err}): start the server or publish the index to it."
            ) from err
        return cls(client, col, url)

    def close(self) -> None:
        """Release the client. Its SQLite files are closed when this returns (chromadb leaves some of them to
        reference cycles, hence the collection), so a rebuilt index can replace the folder and be reopened."""
        close = getattr(self._client, "close", None)
        if close is not None:
            try:
                close()
            except Exception:  # closing twice or a dead server is not worth an error
                pass
        gc.collect()

    def __enter__(self) -> ChromaStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- writing ----------------------------------------------------------------------------------

    def add(self, chunks: list[Chunk], vectors: list[list[float]], batch: int = LOAD_BATCH,
            on_batch: Callable[[int, int], None] | None = None) -> None:
        """Upsert in batches; `on_batch(done, total)` before each batch and after the last (it may raise to
        stop, e.g. a cancelled build)."""
        if len(chunks) != len(vectors):
            raise ValueError(f"{len(chunks)} chunks but {len(vectors)} vectors")
        for start in range(0, len(chunks), batch):
            if on_batch is not None:
                on_batch(start, len(chunks))
            part = chunks[start : start + batch]
            self._collection.upsert(
                ids=[point_id(c.chunk_id) for c in part],
                embeddings=vectors[start : start + batch],
                documents=[c.text for c in part],
                metadatas=[chunk_metadata(c, start + i) for i, c in enumerate(part)],
            )
        if on_batch is not None:
            on_batch(len(chunks), len(chunks))

    @classmethod
    def persist_vector_log(cls, path: Path, collection: str) -> None:
        """Write into the embedded store's vector index the records Chroma still holds only in its log. It keeps
        up to `sync_threshold` newest records there and replays them into the vector index at every open: 1 s of
        each open of the full book (its last 512). Reopened with the threshold lowered, loading the vector index
        replays them once more and persists them; the thresholds are then set back to what create_persistent
        left (Chroma's defaults). Call it once a bulk load is done."""
        with cls.open_persistent(path, collection) as store, warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # chromadb: "legacy embedding function config"
            store._collection.modify(configuration={"hnsw": {"sync_threshold": 2, "batch_size": 2}})
            try:
                store.count()  # loads the vector index: the log is replayed and, now, persisted
            finally:
                store._collection.modify(configuration={"hnsw": {"sync_threshold": HNSW_SYNC_THRESHOLD,
                                                                 "batch_size": HNSW_BATCH_SIZE}})

    def vectors(self) -> tuple[list[Chunk], list[list[float]]]:
        """Every chunk with its stored vector, in book order (to publish an index to a server)."""
        rows: list[tuple[dict, list[float]]] = []
        total = self.count()
        for offset in range(0, total, READ_PAGE):
            got = self._collection.get(include=["metadatas", "embeddings"], limit=READ_PAGE, offset=offset)
            rows.extend(zip(got["metadatas"], [list(map(float, e)) for e in got["embeddings"]], strict=True))
        rows.sort(key=lambda r: r[0].get("ordinal", 0))
        return [Chunk.model_validate_json(m["chunk_json"]) for m, _ in rows], [v for _, v in rows]

    def documents(self) -> dict[str, str]:
        """chunk_id -> the record's document (its text, what Chroma's full-text index holds), for the checks."""
        found: dict[str, str] = {}
        total = self.count()
        for offset in range(0, total, READ_PAGE):
            got = self._collection.get(include=["metadatas", "documents"], limit=READ_PAGE, offset=offset)
            for meta, document in zip(got["metadatas"], got["documents"], strict=True):
                found[str(meta.get("chunk_id"))] = document or ""
        return found

    # ---- reading (the ChunkStore protocol) --------------------------------------------------------

    def count(self) -> int:
        return self._collection.count()

    def get(self, where: dict) -> list[Chunk]:
        got = self._collection.get(where=where_clause(where), include=["metadatas"])
        return _chunks_from(got["metadatas"])

    def get_by_id(self, chunk_id: str) -> Chunk | None:
        """One chunk by its chunk_id (its point id is derived from it), or None."""
        got = self._collection.get(ids=[point_id(chunk_id)], include=["metadatas"])
        chunks = _chunks_from(got["metadatas"])
        return chunks[0] if chunks and chunks[0].chunk_id == chunk_id else None

    def all(self) -> list[Chunk]:
        metadatas: list = []
        total = self.count()
        for offset in range(0, total, READ_PAGE):
            got = self._collection.get(include=["metadatas"], limit=READ_PAGE, offset=offset)
            metadatas.extend(got["metadatas"])
        return _chunks_from(metadatas)

    def query(self, vector: list[float], k: int, where: dict | None = None) -> list[tuple[Chunk, float]]:
        if k <= 0:
            return []
        got = self._collection.query(
            query_embeddings=[list(vector)], n_results=k, where=where_clause(where),
            include=["metadatas", "distances"],
        )
        metas, dists = got["metadatas"][0], got["distances"][0]
        return [(Chunk.model_validate_json(m["chunk_json"]), float(d)) for m, d in zip(metas, dists, strict=True)]

