"""Session fixtures for the question path: the catalog and an Assistant over the real sample book.

The assistant uses the index area's `retrieval` service (the real `sample_index`: EmbeddingGemma and Chroma)
when it is defined, and otherwise the sample book's real chunks in an InMemoryStore (no embedder: dense search finds nothing,
which only the indication fallback uses).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from duocthu_desktop.artifacts import Chunk, Monograph
from duocthu_desktop.settings import Settings


@pytest.fixture(scope="session")
def qa_book(sample_monographs: list[Monograph], sample_chunks: list[Chunk]) -> tuple[list[Monograph], list[Chunk]]:
    return sample_monographs, sample_chunks


@pytest.fixture(scope="session")
def catalog(qa_book):
    from duocthu_desktop.qa.understanding.catalog import Catalog

    monographs, chunks = qa_book
    return Catalog(monographs, chunks)


@pytest.fixture(scope="session")
def qa_service(request: pytest.FixtureRequest, qa_book):
    """The retrieval service over the sample book: the real index if the index area provides one."""
    from duocthu_desktop.retrieval.memory_store import InMemoryStore
    from duocthu_desktop.retrieval.service import RetrievalService

    try:
        return request.getfixturevalue("retrieval")  # the index area's service over `sample_index`
    except pytest.FixtureLookupError:
        pass
    monographs, chunks = qa_book
    return RetrievalService(InMemoryStore(chunks), monographs)


@pytest.fixture(scope="session")
def qa_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("qa-data")


@pytest.fixture(scope="session")
def assistant(qa_service, catalog, qa_data_dir: Path):
    """One Assistant for the session (extractive engine); tests use their own conversation ids."""
    from duocthu_desktop.qa.pipeline import Assistant

    return Assistant(qa_service, catalog=catalog, settings=Settings(data_dir=qa_data_dir), engine_name="extractive")
