"""A build killed half-way (SIGKILL) leaves the earlier index answering, and a rerun resumes from the cache.

Runs the real build path (staged folder, embedding cache, Chroma, manifest, swap) in a subprocess over the
sample book's chunks, with the hashing fake embedder slowed down so there is a half-way to kill it at.
"""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from duocthu_desktop import artifacts
from duocthu_desktop.errors import IndexError_
from duocthu_desktop.retrieval.fakes import HashingEmbedder
from duocthu_desktop.retrieval.service import RetrievalService
from ingestion.index_build import DENSE_SECTIONS

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.integration


def _worker(artifacts_dir: Path, out: Path, cache: Path, dims: int, delay: float = 0.0) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "tests.index_build_worker", str(artifacts_dir), str(out), str(cache),
           "--dims", str(dims), "--delay", str(delay)]
    env = dict(os.environ, ANONYMIZED_TELEMETRY="False")
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _cached(cache: Path, model_id: str) -> int:
    if not cache.exists():
        return 0
    try:
        with sqlite3.connect(cache, timeout=5) as db:
            return db.execute("SELECT count(*) FROM vectors WHERE model_id=?", (model_id,)).fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def _answers(index: Path, dims: int) -> str:
    service = RetrievalService.open(index, embedder=HashingEmbedder(dims))
    try:
        result = service.retrieve_framed("paracetamol", "lieu_luong_cach_dung")
        assert result.chunks and "Trẻ em 4 - 6 tuổi: 240 mg" in result.text
        assert "paracetamol" in {h.drug_id for h in service.search_indication("hạ sốt")}
        return service.manifest.model_id
    finally:
        service.close()


def test_killed_build_leaves_previous_index_and_rerun_resumes(tmp_path, sample_build):
    out, cache = tmp_path / "index", tmp_path / "embeddings.sqlite3"
    first = _worker(sample_build, out, cache, dims=64)
    assert first.wait(timeout=300) == 0, first.stderr.read()
    assert _answers(out, 64) == "hashing-fake-64"
    # what a build embeds: the chunks of the sections a dense search ranks (the rest hold placeholder vectors)
    total = sum(1 for c in artifacts.read_chunks(sample_build / artifacts.CHUNKS_FILE)
                if c.section_key in DENSE_SECTIONS)

    second = _worker(sample_build, out, cache, dims=48, delay=0.1)
    deadline = time.monotonic() + 120
    while _cached(cache, "hashing-fake-48") < 1:
        assert second.poll() is None, "the build finished before it could be killed"
        assert time.monotonic() < deadline, "the build made no progress"
        time.sleep(0.05)
    second.send_signal(signal.SIGKILL)
    second.wait(timeout=30)
    done_before_kill = _cached(cache, "hashing-fake-48")
    assert 0 < done_before_kill < total

    assert _answers(out, 64) == "hashing-fake-64"  # the earlier index still answers
    assert list(tmp_path.glob(".index.staging.*")), "the killed build's staging folder should be what was lost"

    third = _worker(sample_build, out, cache, dims=48, delay=0.1)
    stdout, stderr = third.communicate(timeout=300)
    assert third.returncode == 0, stderr
    embedded_now = int(re.search(r"\((\d+) embedded now", stdout).group(1))
    assert embedded_now <= total - done_before_kill  # resumed: only what the killed run had not cached
    assert _answers(out, 48) == "hashing-fake-48"
    assert not list(tmp_path.glob(".index.*")), "stale staging folders are cleaned up"
    with pytest.raises(IndexError_, match="built with embedding model"):
        RetrievalService.open(out, embedder=HashingEmbedder(64))
