"""An in-memory ChunkStore over a list of chunks: unit tests, and the reference the Chroma stores must match."""

from __future__ import annotations

import math

from duocthu_desktop.artifacts import Chunk


def _matches(chunk: Chunk, where: dict | None) -> bool:
    return all(getattr(chunk, k) == v for k, v in (where or {}).items())


class InMemoryStore:
    def __init__(self, chunks: list[Chunk], vectors: list[list[float]] | None = None) -> None:
        self._chunks = list(chunks)
        self._vectors = vectors

    def get(self, where: dict) -> list[Chunk]:
        return [c for c in self._chunks if _matches(c, where)]

    def all(self) -> list[Chunk]:
        return list(self._chunks)

    def get_by_id(self, chunk_id: str) -> Chunk | None:
        return next((c for c in self._chunks if c.chunk_id == chunk_id), None)

    def query(self, vector: list[float], k: int, where: dict | None = None) -> list[tuple[Chunk, float]]:
        if self._vectors is None:
            return []
        scored = []
        for chunk, vec in zip(self._chunks, self._vectors, strict=True):
            if _matches(chunk, where):
                dot = sum(a * b for a, b in zip(vector, vec, strict=True))
                scored.append((chunk, 1.0 - dot))
        scored.sort(key=lambda pair: pair[1])
        return scored[:k] if k > 0 else []


def cosine(a: list[float], b: list[float]) -> float:
    na = math.sqrt(sum(x * x for x in a)) or 1.0
    nb = math.sqrt(sum(x * x for x in b)) or 1.0
    return sum(x * y for x, y in zip(a, b, strict=True)) / (na * nb)
