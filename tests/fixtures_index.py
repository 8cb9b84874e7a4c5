"""Session fixtures for the index area: the real embedder, the sample book's real index, the service over it.

`sample_index` copies the ingest area's `sample_build` (artifacts, no index) and embeds it through the
embedding cache in `settings.cache_dir()`, which outlives the session: only the first run on a machine pays
for embedding (minutes on two cores); later runs take seconds.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from duocthu_desktop import artifacts
from duocthu_desktop.settings import ENV_CHROMA_URL, ENV_CONFIG_DIR, ENV_DATA_DIR

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")


@pytest.fixture(scope="session")
def embedder():
    """EmbeddingGemma-300M, loaded once per session (ModelError if `duocthu-models prepare` was not run)."""
    from duocthu_desktop.retrieval.embedder import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder()


@pytest.fixture(scope="session")
def sample_index(tmp_path_factory: pytest.TempPathFactory, sample_build: Path, embedder) -> Path:
    """The sample book's full index (artifacts + Chroma + manifest), built once per session."""
    from ingestion.index_build import build_index

    out = tmp_path_factory.mktemp("index") / "sample"
    shutil.copytree(sample_build, out)
    chunks = artifacts.read_chunks(out / artifacts.CHUNKS_FILE)
    monographs = artifacts.read_monographs(out / artifacts.MONOGRAPHS_FILE)
    build_index(out, chunks, monographs, progress=False, embedder=embedder)
    return out


@pytest.fixture(scope="session")
def retrieval(sample_index: Path, embedder):
    from duocthu_desktop.retrieval.service import RetrievalService

    service = RetrievalService.open(sample_index, embedder=embedder)
    yield service
    service.close()


@pytest.fixture()
def index_copy(tmp_path: Path, sample_index: Path) -> Path:
    """A copy of the sample index a test may edit or break."""
    out = tmp_path / "index"
    shutil.copytree(sample_index, out)
    return out


@pytest.fixture()
def ask_env(tmp_path: Path, monkeypatch) -> Path:
    """Conversations, traces and settings in tmp_path, nothing from the environment."""
    monkeypatch.setenv(ENV_DATA_DIR, str(tmp_path / "data"))
    monkeypatch.setenv(ENV_CONFIG_DIR, str(tmp_path / "config"))
    for name in ("DUOCTHU_INDEX", "DUOCTHU_MODEL", ENV_CHROMA_URL):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "config").mkdir()
    return tmp_path / "config"

