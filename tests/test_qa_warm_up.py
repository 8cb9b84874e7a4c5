"""The Assistant loads the embedding model up front when asked, so no turn pays for it."""

from __future__ import annotations

from duocthu_desktop.qa.pipeline import Assistant
from duocthu_desktop.retrieval.memory_store import InMemoryStore
from duocthu_desktop.retrieval.service import RetrievalService
from duocthu_desktop.settings import Settings


class _CountingEmbedder:
    model_id = "fake"
    dimensions = 4

    def __init__(self, fail: bool = False) -> None:
        self.loads = 0
        self.fail = fail

    def load(self):
        self.loads += 1
        if self.fail:
            raise OSError("model folder missing")
        return self

    def embed(self, texts, kind):
        return [[1.0, 0.0, 0.0, 0.0] for _ in texts]


def _assistant(qa_book, catalog, tmp_path, embedder) -> Assistant:
    monographs, chunks = qa_book
    service = RetrievalService(InMemoryStore(chunks), monographs, embedder)
    return Assistant(service, catalog=catalog, settings=Settings(data_dir=tmp_path), engine_name="extractive")


def test_warm_up_loads_the_embedder_once(qa_book, catalog, tmp_path):
    embedder = _CountingEmbedder()
    assistant = _assistant(qa_book, catalog, tmp_path, embedder)
    assert assistant.warm_up() >= 0.0
    assert embedder.loads == 1


def test_warm_up_with_a_broken_model_still_answers(qa_book, catalog, tmp_path):
    embedder = _CountingEmbedder(fail=True)
    assistant = _assistant(qa_book, catalog, tmp_path, embedder)
    assistant.warm_up()
    payload = assistant.ask("Chống chỉ định của metformin là gì?")
    assert payload.decision == "answerable"
    assert {c.drug_id for c in payload.citations} == {"metformin"}
    assert payload.disclaimer
