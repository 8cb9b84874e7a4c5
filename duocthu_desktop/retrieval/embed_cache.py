"""Vectors on disk keyed by (model id, kind, sha256 of the text), so a rebuild embeds only what changed.

SQLite under `settings.cache_dir()`; every batch is committed as soon as it is embedded, so a build killed
half-way (even `kill -9`) resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import sqlite3
from array import array
from pathlib import Path

from tqdm import tqdm

from duocthu_desktop import settings
from duocthu_desktop.retrieval.types import Embedder, EmbedKind

CACHE_FILE = "embeddings.sqlite3"
# Texts embedded and committed together: the model's own batch (embedder.BATCH_SIZE), so a kill loses at most
# that many texts' work and the progress bar moves every few seconds; SQLite commits cost nothing beside it.
BATCH = 8

_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    model_id TEXT NOT NULL, kind TEXT NOT NULL, text_sha256 TEXT NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (model_id, kind, text_sha256)
) WITHOUT ROWID
"""


def default_path() -> Path:
    return settings.cache_dir() / CACHE_FILE


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path or default_path())
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=60)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(_SCHEMA)
        self._db.commit()

    def close(self) -> None:
        self._db.close()

    def lookup(self, model_id: str, kind: str, keys: list[str]) -> dict[str, list[float]]:
        found: dict[str, list[float]] = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), 500):
            part = unique[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = self._db.execute(
                f"SELECT text_sha256, vector FROM vectors WHERE model_id=? AND kind=? AND text_sha256 IN ({marks})",
                [model_id, kind, *part],
            )
            for key, blob in rows:
                found[key] = array("f", blob).tolist()
        return found

    def store(self, model_id: str, kind: str, pairs: list[tuple[str, list[float]]]) -> None:
        self._db.executemany(
            "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)",
            [(model_id, kind, key, array("f", vec).tobytes()) for key, vec in pairs],
        )
        self._db.commit()


def embed_cached(
    embedder: Embedder,
    texts: list[str],
    kind: EmbedKind,
    cache: EmbeddingCache,
    progress: bool = True,
    batch: int = BATCH,
) -> tuple[list[list[float]], int]:
    """Vectors for `texts` (in order) and how many had to be embedded now; the rest came from the cache."""
    keys = [text_key(t) for t in texts]
    have = cache.lookup(embedder.model_id, kind, keys)
    todo: dict[str, str] = {}
    for key, text in zip(keys, texts, strict=True):
        if key not in have and key not in todo:
            todo[key] = text
    pending = sorted(todo.items(), key=lambda item: len(item[1]))  # similar lengths batch with less padding
    bar = tqdm(total=len(pending), desc="embedding", unit="chunk", disable=not progress or not pending)
    try:
        for start in range(0, len(pending), batch):
            part = pending[start : start + batch]
            vectors = embedder.embed([text for _, text in part], kind)
            if len(vectors) != len(part):
                raise ValueError(f"embedder returned {len(vectors)} vectors for {len(part)} texts")
            pairs = [(key, vec) for (key, _), vec in zip(part, vectors, strict=True)]
            cache.store(embedder.model_id, kind, pairs)
            have.update(pairs)
            bar.update(len(part))
    finally:
        bar.close()
    return [have[key] for key in keys], len(pending)
