"""A read-only index (a bundle under Program Files, a folder on a read-only disk) opens from a verified copy.

Chroma opens its SQLite file for writing and refuses a read-only one ("attempt to write a readonly database").
The real case is a read-only bind mount (`mount -o bind,ro`: as root, chmod does not stop writes), run where
the test may mount; the rest takes the detection path with `writable` scripted.
"""

from __future__ import annotations

import errno
import shutil
import subprocess
from pathlib import Path

import pytest

from duocthu_desktop import artifacts
from duocthu_desktop.errors import IndexError_
from duocthu_desktop.retrieval import index_folder
from duocthu_desktop.retrieval.chroma_store import ChromaStore
from duocthu_desktop.retrieval.fakes import HashingEmbedder
from duocthu_desktop.retrieval.manifest import CHROMA_DIR, read_manifest
from duocthu_desktop.retrieval.service import RetrievalService
from duocthu_desktop.settings import Settings

DIMS = 32


@pytest.fixture(scope="module")
def small_index(tmp_path_factory, sample_build) -> Path:
    """The sample book's index embedded with the hashing fake (seconds, not minutes)."""
    from ingestion.index_build import build_index

    out = tmp_path_factory.mktemp("ro") / "index"
    shutil.copytree(sample_build, out)
    build_index(out, artifacts.read_chunks(out / artifacts.CHUNKS_FILE),
                artifacts.read_monographs(out / artifacts.MONOGRAPHS_FILE), progress=False,
                embedder=HashingEmbedder(DIMS))
    return out


def _open(index: Path, data: Path) -> RetrievalService:
    return RetrievalService.open(index, Settings(data_dir=data), embedder=HashingEmbedder(DIMS))


def _answers(service: RetrievalService) -> None:
    result = service.retrieve_framed("paracetamol", "lieu_luong_cach_dung")
    assert "Trẻ em 4 - 6 tuổi: 240 mg" in result.text


@pytest.fixture()
def read_only_mount(tmp_path, small_index):
    """A read-only bind mount of a copy of the index, or a skip where this process may not mount."""
    src, mnt = tmp_path / "src", tmp_path / "mnt"
    shutil.copytree(small_index, src / "index")
    mnt.mkdir()
    try:
        subprocess.run(["mount", "--bind", str(src), str(mnt)], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("cannot bind-mount here (not root, or no mount)")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(mnt)], check=True, capture_output=True)
        yield mnt / "index"
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


def test_an_index_on_a_read_only_mount_opens_from_a_verified_copy_made_once(tmp_path, read_only_mount):
    with pytest.raises(OSError):
        (read_only_mount / "probe").write_text("x")  # really read-only, root included
    with pytest.raises(IndexError_, match="readonly database"):  # what Chroma itself does with it
        ChromaStore.open_persistent(read_only_mount / CHROMA_DIR, read_manifest(read_only_mount).collection)
    assert not index_folder.writable(read_only_mount)

    data = tmp_path / "data"
    service = _open(read_only_mount, data)
    try:
        copy = service.index_dir
        assert copy.parent == data / index_folder.COPIES_DIR and copy != read_only_mount
        _answers(service)
    finally:
        service.close()
    stamp = (copy / CHROMA_DIR / index_folder.CHROMA_DB).stat().st_ino
    again = _open(read_only_mount, data)
    try:
        assert again.index_dir == copy and (copy / CHROMA_DIR / index_folder.CHROMA_DB).stat().st_ino == stamp
    finally:
        again.close()


@pytest.fixture()
def scripted_read_only(tmp_path, small_index, monkeypatch) -> Path:
    """A copy of the index that `writable` says cannot be written (the detection path, anywhere)."""
    original = tmp_path / "bundle" / "index"
    shutil.copytree(small_index, original)
    real = index_folder.writable
    monkeypatch.setattr(index_folder, "writable", lambda folder: Path(folder) != original and real(folder))
    return original


def test_a_read_only_index_is_copied_verified_and_the_copy_is_what_answers(tmp_path, scripted_read_only):
    data = tmp_path / "data"
    service = _open(scripted_read_only, data)
    try:
        assert service.index_dir.parent == data / index_folder.COPIES_DIR
        assert not [d for d in index_folder._differences(scripted_read_only, service.index_dir)
                    if not d.startswith(CHROMA_DIR)]  # Chroma has since written to the copy's database
        _answers(service)
    finally:
        service.close()
    assert not list((data / index_folder.COPIES_DIR).glob(".*staging*"))


def test_a_copy_that_does_not_match_the_original_is_refused_and_not_kept(tmp_path, scripted_read_only, monkeypatch):
    real_copy = shutil.copyfile

    def copy_and_damage(src, dst, *args, **kwargs):
        real_copy(src, dst)
        if Path(dst).name == artifacts.CHUNKS_FILE:
            with open(dst, "ab") as fh:
                fh.write(b"\n")

    monkeypatch.setattr(index_folder.shutil, "copyfile", copy_and_damage)
    data = tmp_path / "data"
    with pytest.raises(IndexError_) as refused:
        _open(scripted_read_only, data)
    assert "không khớp bản gốc" in str(refused.value) and artifacts.CHUNKS_FILE in str(refused.value)
    assert "\n" not in str(refused.value)
    assert not [p for p in (data / index_folder.COPIES_DIR).iterdir() if p.is_dir()]


def test_a_full_disk_while_copying_is_one_line_and_leaves_nothing_half_copied(tmp_path, scripted_read_only,
                                                                             monkeypatch):
    def disk_full(src, dst, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(dst))

    monkeypatch.setattr(index_folder.shutil, "copytree", disk_full)
    data = tmp_path / "data"
    with pytest.raises(IndexError_, match="đĩa đầy"):
        _open(scripted_read_only, data)
    assert not [p for p in (data / index_folder.COPIES_DIR).iterdir() if p.is_dir()]


def test_a_read_only_folder_the_check_misses_is_copied_when_chroma_refuses_it(tmp_path, read_only_mount,
                                                                              monkeypatch):
    """On Windows a folder under Program Files passes os.access(W_OK); Chroma's own refusal then leads to the copy
    (Chroma opened at once, as where its file cannot be read without it)."""
    from duocthu_desktop.retrieval import chroma_file

    monkeypatch.setattr(index_folder, "writable", lambda folder: True)
    monkeypatch.setattr(chroma_file.ChromaFile, "open", classmethod(lambda cls, *a, **k: None))
    service = _open(read_only_mount, tmp_path / "data")
    try:
        assert service.index_dir.parent == tmp_path / "data" / index_folder.COPIES_DIR
        _answers(service)
    finally:
        service.close()


def test_an_updated_read_only_index_is_copied_again_and_the_older_copy_removed(tmp_path, scripted_read_only):
    data = tmp_path / "data"
    _open(scripted_read_only, data).close()
    first = [p for p in (data / index_folder.COPIES_DIR).iterdir() if p.is_dir()]
    manifest = scripted_read_only / "manifest.json"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace('"built_at": "', '"built_at": "1', 1),
                        encoding="utf-8")  # what a new build of the bundle's index changes
    service = _open(scripted_read_only, data)
    try:
        now = [p for p in (data / index_folder.COPIES_DIR).iterdir() if p.is_dir()]
        assert len(first) == len(now) == 1 and now[0] != first[0] and service.index_dir == now[0]
    finally:
        service.close()
