"""Shared fixtures: where the shared corpus lives, and the sample book built once per test session."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    return Path(os.environ.get("DUOCTHU_SHARED") or (ROOT.parent / "shared")).resolve()


@pytest.fixture(autouse=True)
def _root_logging_restored():
    """A command under test may set up the program's logging (the app's `main` does): it ends with the test."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in [h for h in root.handlers if h not in handlers]:
        root.removeHandler(handler)
        handler.close()
    root.setLevel(level)


@pytest.fixture(scope="session")
def shared() -> Path:
    path = shared_dir()
    if not (path / "CONTRACT.md").exists():
        pytest.fail(f"shared folder not found at {path}; set DUOCTHU_SHARED")
    return path


@pytest.fixture(scope="session")
def excerpt_pdf(tmp_path_factory, sample_pdf: Path) -> Path:
    """Cover, contents and the first two monographs of the sample (abacavir, acarbose): six pages."""
    import pymupdf

    source = pymupdf.open(sample_pdf)
    doc = pymupdf.open()
    doc.insert_pdf(source, from_page=0, to_page=5)
    path = tmp_path_factory.mktemp("excerpt") / "duocthu-excerpt.pdf"
    doc.save(path)
    return path


@pytest.fixture(scope="session")
def sample_pdf(shared: Path) -> Path:
    return shared / "corpus" / "duocthu-2018-sample.pdf"


@pytest.fixture(scope="session")
def sample_b_pdf(shared: Path) -> Path:
    return shared / "corpus" / "duocthu-2018-sample-b.pdf"


@pytest.fixture(scope="session")
def gold(shared: Path) -> dict:
    return json.loads((shared / "corpus" / "duocthu-2018-sample.gold.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def source_dir(shared: Path) -> Path:
    return shared / "corpus" / "source"
