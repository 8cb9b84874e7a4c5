"""The records of an embedded Chroma index read straight from its chroma.sqlite3, without importing chromadb.

Importing chromadb is half of a `duocthu-ask` (1.1 s of CPU of 2.3 at full size) and most of the app's wait for
its index, yet a turn needs Chroma's vector index only for the dense fallback of a condition search. Everything
else it reads (a drug's sections, a chunk by id, the count) is the records' metadata, which Chroma keeps in
SQLite tables. `ChromaFile` reads those, read-only; `FileFirstStore` serves the ChunkStore reads from it and opens
Chroma itself on the first nearest-neighbour query. Every chunk read either way is verified against the
manifest's sha256 (RetrievalService._verified), so a record edited in the file is refused as before.

The tables are Chroma's, not a promise: `ChromaFile.open` returns None, and Chroma is used as before, unless the
file has the shape this reader knows and its metadata segment has applied every record Chroma logged.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

from duocthu_desktop.artifacts import Chunk

DATABASE = "chroma.sqlite3"
_TABLES = {"collections", "segments", "embeddings", "embedding_metadata", "max_seq_id", "embeddings_queue"}


class ChromaFile:
    """One collection's records in an embedded Chroma folder, read with the standard library's sqlite3."""

    def __init__(self, connection: sqlite3.Connection, segment: str, location: str) -> None:
        self._db = connection
        self._segment = segment
        self._lock = threading.Lock()
        self.location = location

    @classmethod
    def open(cls, path: Path, collection: str) -> ChromaFile | None:
        """The reader, or None when the file is not one it can read completely (absent, damaged, another
        layout, records Chroma has logged but not yet applied): the caller then opens Chroma."""
        database = Path(path) / DATABASE
        if not database.is_file():
            return None
        try:
            db = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
        except sqlite3.Error:
            return None
        try:
            tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not _TABLES <= tables:
                raise LookupError("not the layout this reader knows")
            found = db.execute("SELECT s.id, c.id FROM segments s JOIN collections c ON s.collection = c.id "
                               "WHERE c.name = ? AND s.scope = 'METADATA'", (collection,)).fetchall()
            if len(found) != 1:
                raise LookupError("no single metadata segment")
            segment, collection_id = found[0]
            applied = db.execute("SELECT seq_id FROM max_seq_id WHERE segment_id = ?", (segment,)).fetchone()
            logged = db.execute("SELECT MAX(seq_id) FROM embeddings_queue WHERE topic LIKE ?",
                                (f"%{collection_id}",)).fetchone()
            if applied is None or not isinstance(applied[0], int) or (logged[0] or 0) > applied[0]:
                raise LookupError("records logged but not applied")
        except (sqlite3.Error, LookupError, TypeError):
            db.close()
            return None
        return cls(db, segment, str(path))

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _rows(self, sql: str, params: tuple) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def count(self) -> int:
        return self._rows("SELECT COUNT(*) FROM embeddings WHERE segment_id = ?", (self._segment,))[0][0]

    def _chunks(self, ids: str = "", params: tuple = ()) -> list[Chunk]:
        """The chunks of the records whose id `ids` (a subquery) selects, or of every record, in the book's
        order (`ordinal`)."""
        chosen = f"({ids}) AS f CROSS JOIN " if ids else ""  # CROSS JOIN: SQLite starts from the chosen ids
        rows = self._rows(
            f"SELECT j.string_value, o.int_value FROM {chosen}embedding_metadata j "
            "JOIN embeddings e ON e.id = j.id AND e.segment_id = ? "
            "LEFT JOIN embedding_metadata o ON o.id = j.id AND o.key = 'ordinal' "
            f"WHERE j.key = 'chunk_json' {'AND j.id = f.id' if ids else ''}", (*params, self._segment))
        rows.sort(key=lambda r: r[1] or 0)
        return [Chunk.model_validate_json(text) for text, _ in rows]

    def get(self, where: dict) -> list[Chunk]:
        """Every chunk whose metadata holds each `where` item (the scalar keys chroma_store.FILTER_KEYS, each also
        a field of the chunk): the first found through Chroma's own (key, value) index, the rest on the chunks."""
        if not where:
            return self.all()
        (key, value), *rest = where.items()
        column = ("bool_value" if isinstance(value, bool) else "int_value" if isinstance(value, int)
                  else "float_value" if isinstance(value, float) else "string_value")
        chunks = self._chunks(f"SELECT id FROM embedding_metadata WHERE key = ? AND {column} = ?",
                              (key, int(value) if isinstance(value, bool) else value))
        return [c for c in chunks if all(getattr(c, k, None) == v for k, v in rest)]

    def get_by_id(self, chunk_id: str) -> Chunk | None:
        found = self.get({"chunk_id": chunk_id})
        return found[0] if found and found[0].chunk_id == chunk_id else None

    def all(self) -> list[Chunk]:
        return self._chunks()


class FileFirstStore:
    """A ChunkStore over an embedded index: reads from `ChromaFile`, nearest-neighbour queries from Chroma, opened
    (and chromadb imported) on the first query."""

    def __init__(self, reader: ChromaFile, open_chroma: Callable[[], object]) -> None:
        self._reader = reader
        self._open_chroma = open_chroma
        self._chroma = None
        self._lock = threading.Lock()
        self.location = reader.location

    def open_vectors(self) -> None:
        """Open Chroma now (it takes a second or more), so the first dense search does not wait for it."""
        self._vectors()

    def _vectors(self):
        with self._lock:
            if self._chroma is None:
                self._chroma = self._open_chroma()
            return self._chroma

    def count(self) -> int:
        return self._reader.count()

    def get(self, where: dict) -> list[Chunk]:
        return self._reader.get(where)

    def get_by_id(self, chunk_id: str) -> Chunk | None:
        return self._reader.get_by_id(chunk_id)

    def all(self) -> list[Chunk]:
        return self._reader.all()

    def query(self, vector: list[float], k: int, where: dict | None = None) -> list[tuple[Chunk, float]]:
        return self._vectors().query(vector, k, where)

    def vectors(self):
        """Every chunk with its stored vector (ChromaStore.vectors): from Chroma itself."""
        return self._vectors().vectors()

    def documents(self) -> dict[str, str]:
        return self._vectors().documents()

    def close(self) -> None:
        self._reader.close()
        with self._lock:
            chroma, self._chroma = self._chroma, None
        if chroma is not None:
            chroma.close()

    def __enter__(self) -> FileFirstStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
