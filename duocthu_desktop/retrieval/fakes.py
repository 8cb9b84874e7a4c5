"""A deterministic embedder for unit tests: hashed word and character-trigram counts, no model needed.

Texts sharing words land near each other, so dense-search tests behave sensibly without the real model.
"""

from __future__ import annotations

import hashlib
import math
import re

from duocthu_desktop.retrieval.types import EmbedKind
from duocthu_desktop.text import fold

_WORD = re.compile(r"[a-z0-9]+")


class HashingEmbedder:
    def __init__(self, dimensions: int = 64) -> None:
        self.dimensions = dimensions
        self.model_id = f"hashing-fake-{dimensions}"
        self.calls: list[tuple[int, str]] = []  # (number of texts, kind) per call, for cache tests

    def _bucket(self, feature: str) -> int:
        return int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=4).digest(), "big") % self.dimensions

    def embed_one(self, text: str) -> list[float]:
        vec = [0.0] * self.dimensions
        for word in _WORD.findall(fold(text)):
            vec[self._bucket("w:" + word)] += 1.0
            padded = f"#{word}#"
            for i in range(len(padded) - 2):
                vec[self._bucket("t:" + padded[i : i + 3])] += 0.3
        norm = math.sqrt(sum(x * x for x in vec)) or 1.0
        return [x / norm for x in vec]

    def embed(self, texts: list[str], kind: EmbedKind) -> list[list[float]]:
        self.calls.append((len(texts), kind))
        return [self.embed_one(t) for t in texts]
