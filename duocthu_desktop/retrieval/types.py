"""Protocols and result types at retrieval's swap points; tests put fakes here, production real parts.

    Embedder      texts -> vectors (EmbeddingGemma in production; a hashing fake in unit tests)
    ChunkStore    chunks by metadata filter, and by vector (Chroma embedded, Chroma server, in-memory)
"""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from duocthu_desktop.artifacts import Chunk

EmbedKind = Literal["query", "document"]


@runtime_checkable
class Embedder(Protocol):
    model_id: str  # names the weights, e.g. "embeddinggemma-300m@cbf5a783..."
    dimensions: int

    def embed(self, texts: list[str], kind: EmbedKind) -> list[list[float]]:
        """One vector per text, L2-normalised, using the model's query or document prompt."""
        ...


@runtime_checkable
class ChunkStore(Protocol):
    def get(self, where: dict) -> list[Chunk]:
        """Every chunk whose metadata equals each `where` item (keys: drug_id, section_key, kind, ...)."""
        ...

    def query(self, vector: list[float], k: int, where: dict | None = None) -> list[tuple[Chunk, float]]:
        """The k nearest chunks (with distances, smaller is nearer), optionally filtered by metadata."""
        ...

    def all(self) -> list[Chunk]:
        """Every chunk (the catalog and the lexical indication search read this once at start-up)."""
        ...


class SectionResult(BaseModel):
    """One monograph section, whole, parts in the book's order (tables in their place)."""

    model_config = ConfigDict(extra="forbid")
    drug_id: str
    section_key: str
    chunks: list[Chunk] = Field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(c.text for c in self.chunks)

    @property
    def quarantined(self) -> bool:
        return any(c.quarantined for c in self.chunks)


class IndicationHit(BaseModel):
    model_config = ConfigDict(extra="forbid")
    drug_id: str
    chunk: Chunk
    matched: str = Field(description="The words of the chunk that matched the condition.")
    method: Literal["lexical", "dense"]
    score: float = 0.0


class RetrievalDecision(BaseModel):
    """`RetrievalService.decide`: may this evidence be answered from?"""

    model_config = ConfigDict(extra="forbid")
    decision: Literal["answerable", "verify_pdf", "abstain"]
    reason: str | None = None  # quarantined_evidence | missing_provenance | parent_hydration_failed
