"""Session fixtures for the ingest area: the sample book built once (--no-embed) and what it holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from duocthu_desktop import artifacts
from duocthu_desktop.artifacts import Chunk


@pytest.fixture(scope="session")
def _sample_built(tmp_path_factory: pytest.TempPathFactory, sample_pdf: Path):
    from ingestion.pipeline import build

    out = tmp_path_factory.mktemp("ingest") / "sample"
    result = build(sample_pdf, out, embed=False)
    return out, result


@pytest.fixture(scope="session")
def sample_build(_sample_built) -> Path:
    """The sample PDF built with the library API, no index: the folder holding the artifacts."""
    return _sample_built[0]


@pytest.fixture(scope="session")
def sample_result(_sample_built):
    """The in-memory ingestion.pipeline.BuildResult of that same build."""
    return _sample_built[1]


@pytest.fixture(scope="session")
def sample_chunks(sample_build: Path) -> list[Chunk]:
    return artifacts.read_chunks(sample_build / artifacts.CHUNKS_FILE)


@pytest.fixture(scope="session")
def sample_monographs(sample_build: Path) -> list[artifacts.Monograph]:
    return artifacts.read_monographs(sample_build / artifacts.MONOGRAPHS_FILE)


@pytest.fixture(scope="session")
def sample_e_pdf(shared: Path) -> Path:
    return shared / "corpus" / "duocthu-2018-sample-e.pdf"


@pytest.fixture(scope="session")
def sample_e_gold(shared: Path) -> dict:
    import json

    return json.loads((shared / "corpus" / "duocthu-2018-sample-e.gold.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def _sample_e_built(tmp_path_factory: pytest.TempPathFactory, sample_e_pdf: Path):
    """Sample-e (41 monographs from across the alphabet) built once, --no-embed, for the gold and gates."""
    from ingestion.pipeline import build

    out = tmp_path_factory.mktemp("ingest") / "sample-e"
    return out, build(sample_e_pdf, out, embed=False)


@pytest.fixture(scope="session")
def sample_e_build(_sample_e_built) -> Path:
    return _sample_e_built[0]


@pytest.fixture(scope="session")
def sample_e_result(_sample_e_built):
    return _sample_e_built[1]
