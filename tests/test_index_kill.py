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


def _kill_during_swap(artifacts_dir: Path, out: Path, cache: Path, step: str, exchange: bool) -> None:
    cmd = [sys.executable, "-m", "tests.index_build_worker", str(artifacts_dir), str(out), str(cache),
           "--dims", "48", "--kill-at", step] + ([] if exchange else ["--no-exchange"])
    env = dict(os.environ, ANONYMIZED_TELEMETRY="False")
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]


# (swap kind, the step killed at, the index an open then finds): before the swap the earlier one; once the new
# folder is whole and the earlier one has left `--out`, the new one (the open finishes the swap).
KILL_STEPS = [
    ("exchange", "staged", "hashing-fake-64"),
    ("exchange", "exchanged", "hashing-fake-48"),
    ("two-rename", "staged", "hashing-fake-64"),
    ("two-rename", "marked", "hashing-fake-64"),
    ("two-rename", "moved_aside", "hashing-fake-48"),
    ("two-rename", "swapped", "hashing-fake-48"),
]


@pytest.fixture(scope="module")
def first_index(tmp_path_factory, sample_build) -> tuple[Path, Path]:
    """An index built with the 64-dimension fake, and the embedding cache a 48-dimension build then fills."""
    where = tmp_path_factory.mktemp("first")
    out, cache = where / "index", where / "embeddings.sqlite3"
    first = _worker(sample_build, out, cache, dims=64)
    assert first.wait(timeout=300) == 0, first.stderr.read()
    return out, cache


@pytest.mark.parametrize(("kind", "step", "expected"), KILL_STEPS, ids=[f"{k}-{s}" for k, s, _ in KILL_STEPS])
def test_kill_at_each_step_of_the_swap_leaves_an_index_that_opens(tmp_path, sample_build, first_index, kind, step,
                                                                  expected):
    import shutil

    from duocthu_desktop import atomic

    if kind == "exchange" and not atomic.exchange(*_two_folders(tmp_path)):
        pytest.skip("this file system has no renameat2 RENAME_EXCHANGE")
    out, cache = tmp_path / "index", tmp_path / "embeddings.sqlite3"
    shutil.copytree(first_index[0], out)
    if first_index[1].exists():
        shutil.copy2(first_index[1], cache)
    _kill_during_swap(sample_build, out, cache, step, exchange=kind == "exchange")

    dims = int(expected.rsplit("-", 1)[1])
    assert _answers(out, dims) == expected  # RetrievalService.open put a half-done swap right first
    rerun = _worker(sample_build, out, cache, dims=48)
    assert rerun.wait(timeout=300) == 0, rerun.stderr.read()
    assert _answers(out, 48) == "hashing-fake-48"
    assert not [p.name for p in tmp_path.glob(".index.*")], "the next build removes what the killed one left"


def _two_folders(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "probe-a", tmp_path / "probe-b"
    a.mkdir()
    b.mkdir()
    return a, b


def test_an_index_left_aside_by_an_older_swap_is_moved_back_at_open(tmp_path, first_index):
    """The layout the earlier two-rename swap left when killed between its renames: no `--out`, the index in
    `.NAME.old`. `duocthu-ask` and the app said "No index at"; an open now moves it back."""
    import shutil

    out = tmp_path / "index"
    shutil.copytree(first_index[0], tmp_path / ".index.old")
    assert _answers(out, 64) == "hashing-fake-64"
    assert out.is_dir() and not (tmp_path / ".index.old").exists()


def test_an_open_waits_for_a_build_that_holds_the_lock_mid_swap(tmp_path, first_index):
    """An open that finds `--out` missing while a build holds its lock does not race the build's second rename."""
    import shutil
    import threading

    from duocthu_desktop import atomic

    out = tmp_path / "index"
    shutil.copytree(first_index[0], tmp_path / ".index.new")
    placed = threading.Event()

    def build_finishing_its_swap() -> None:
        with atomic.locked(out):
            placed.wait(5)
            time.sleep(0.3)
            os.replace(tmp_path / ".index.new", out)

    builder = threading.Thread(target=build_finishing_its_swap)
    builder.start()
    time.sleep(0.1)
    placed.set()
    try:
        assert atomic.settle(out, lambda p: p.is_dir()) is None  # waited; the build, not the open, put it there
        assert out.is_dir()
    finally:
        builder.join()


def test_a_swap_the_system_refuses_leaves_the_old_folder_and_no_copy_beside_it(tmp_path, monkeypatch):
    """Windows cannot move a folder aside while a file in it is open: the build fails, the old folder stays at
    `--out`, and the whole new folder is not left beside it taking the disk."""
    from duocthu_desktop import atomic

    out = tmp_path / "index"
    out.mkdir()
    (out / "manifest.json").write_text("old", encoding="utf-8")
    monkeypatch.setattr(atomic, "EXCHANGE", False)
    real_replace = os.replace

    def in_use(src, dst):
        if Path(src) == out.resolve():
            raise PermissionError(13, "The process cannot access the file", str(src))
        real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "replace", in_use)
    with pytest.raises(PermissionError), atomic.staged_dir(out) as staging:
        (staging / "manifest.json").write_text("new", encoding="utf-8")
    assert (out / "manifest.json").read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index"]
