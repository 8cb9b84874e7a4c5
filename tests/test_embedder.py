"""The real EmbeddingGemma embedder: normalised 768-dim vectors, the query and document prompts, batching."""

from __future__ import annotations

import numpy as np
import pytest

from duocthu_desktop.retrieval.embedder import EMBEDDER_ID, LazyEmbedder
from duocthu_desktop.retrieval.types import Embedder

pytestmark = pytest.mark.integration


def test_vectors_are_normalised_and_prompted(embedder):
    assert isinstance(embedder, Embedder) and embedder.model_id == EMBEDDER_ID and embedder.dimensions == 768
    texts = ["Paracetamol — Chỉ định\nGiảm đau nhẹ và vừa; hạ sốt.", "Captopril — Chỉ định\nTăng huyết áp."]
    docs = np.array(embedder.embed(texts, "document"))
    assert docs.shape == (2, 768)
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-4)
    alone = np.array(embedder.embed(texts[1:], "document"))[0]
    assert np.allclose(alone, docs[1], atol=1e-4)  # batching does not change a vector
    query = np.array(embedder.embed(["thuốc hạ sốt"], "query"))[0]
    as_document = np.array(embedder.embed(["thuốc hạ sốt"], "document"))[0]
    assert not np.allclose(query, as_document, atol=1e-3)  # the prompts differ
    assert query @ docs[0] > query @ docs[1]  # fever query is nearer Paracetamol than Captopril


def test_lazy_embedder_loads_only_when_used():
    lazy = LazyEmbedder()
    assert not lazy.loaded and lazy.model_id == EMBEDDER_ID and lazy.dimensions == 768
