"""EmbeddingGemma-300M on the CPU through sentence-transformers, behind the `Embedder` protocol.

The weights' sha256 is checked (`models.embedding_gemma.check_assembled`, about 1 s) before anything is
loaded, at every load: a missing, truncated or tampered model raises ModelError (the message `duocthu-models
verify` gives) instead of loading, and a copied folder with the right hash loads whatever its file dates.
Weights that pass but still fail inside the library raise ModelError too, never a library's own exception.
Nothing is ever fetched from a hub. `LazyEmbedder` defers the ~10 s load until a dense search really needs
it, and remembers a failed load so later questions are not slowed by retrying (or re-hashing) it.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from duocthu_desktop.errors import ModelError
from duocthu_desktop.retrieval.types import EmbedKind
from duocthu_desktop.settings import ENV_THREADS
from models.embedding_gemma import MODEL_ID, WEIGHTS_SHA256, check_assembled, model_dir

DIMENSIONS = 768
BATCH_SIZE = 8
# Texts are cut at 512 tokens: on two CPU cores a full 2048-token window costs about twice the build time for
# the few long chunks, and dense search is only the fallback (framed and lexical retrieval read whole text).
MAX_SEQ_LENGTH = 512
EMBEDDER_ID = f"{MODEL_ID}/seq{MAX_SEQ_LENGTH}"  # vectors depend on the cut, so the cache and manifest key on it
# A query is a few tokens: one thread answers it in ~0.1 s, while torch's default pool spin-waits on a busy
# machine (measured 3 s with 2 threads on 2 loaded cores). Documents use the pool unless overridden.
QUERY_THREADS = 1


class SentenceTransformerEmbedder:
    """The real embedder: the model's own `query` / `document` prompts, batched, L2-normalised."""

    model_id = EMBEDDER_ID
    weights_sha256 = WEIGHTS_SHA256
    dimensions = DIMENSIONS

    def __init__(self, folder: Path | None = None, batch_size: int = BATCH_SIZE) -> None:
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        folder = check_assembled(folder or model_dir())
        self._batch_size = batch_size
        self._lock = threading.Lock()  # one encode at a time: torch already uses every core
        try:
            self._load(folder)
            self.embed(["khởi động"], "query")  # warm-up, so the first real question is not the slow one
        except ModelError:
            raise
        except Exception as err:  # noqa: BLE001 - corrupt weights fail inside torch/safetensors in many ways
            detail = " ".join(str(err).split())  # one line: torch's messages span several
            raise ModelError(f"Embedding model at {folder} cannot be loaded ({type(err).__name__}: {detail}); "
                             "run `duocthu-models verify`, then `duocthu-models prepare`.") from err

    def _load(self, folder: Path) -> None:
        from sentence_transformers import SentenceTransformer  # heavy import, only when really loading

        self._model = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
        self._model.max_seq_length = MAX_SEQ_LENGTH
        dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dimensions = int(dim() or DIMENSIONS)
        import torch

        self._torch = torch
        self._document_threads = int(os.environ.get(ENV_THREADS) or torch.get_num_threads())

    def embed(self, texts: list[str], kind: EmbedKind) -> list[list[float]]:
        if not texts:
            return []
        threads = QUERY_THREADS if kind == "query" and len(texts) <= 4 else self._document_threads
        with self._lock:
            if self._torch.get_num_threads() != threads:
                self._torch.set_num_threads(threads)
            vectors = self._model.encode(
                list(texts),
                prompt_name=kind,
                batch_size=self._batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return vectors.astype("float32").tolist()


class LazyEmbedder:
    """Looks like the real embedder (same model_id and dimensions) but loads it on first use."""

    model_id = EMBEDDER_ID
    weights_sha256 = WEIGHTS_SHA256
    dimensions = DIMENSIONS

    def __init__(self, folder: Path | None = None) -> None:
        self._folder = folder
        self._inner: SentenceTransformerEmbedder | None = None
        self._error: ModelError | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._inner is not None

    def load(self) -> SentenceTransformerEmbedder:
        """The loaded model; ModelError (the same one again, without retrying) when it cannot be loaded."""
        with self._lock:
            if self._inner is None:
                if self._error is not None:
                    raise self._error
                try:
                    self._inner = SentenceTransformerEmbedder(self._folder)
                except ModelError as err:
                    self._error = err
                    raise
            return self._inner

    def embed(self, texts: list[str], kind: EmbedKind) -> list[list[float]]:
        return self.load().embed(texts, kind)
