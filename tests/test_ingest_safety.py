"""The ingest tool and the index never destroy or silently accept bad state (issue 8).

`build` refuses an `--out` it did not make, locks it against a second build, and turns a full or unwritable
disk into one line with the earlier index kept; `check` cross-checks the artifacts against what the build
recorded (counts, chunk ids in Chroma, a damaged Chroma file); `duocthu-ask` refuses an index whose files no
longer match, and a damaged settings file never stops a command from starting.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import sqlite3
import subprocess
import threading
from pathlib import Path

import pytest

from duocthu_desktop import artifacts, cli_ask, cli_eval
from duocthu_desktop.errors import IndexError_
from duocthu_desktop.retrieval.manifest import CHROMA_DIR, MANIFEST_FILE
from duocthu_desktop.retrieval.service import RetrievalService
from ingestion.cli import main
from tests.test_ingest_cli import snapshot


def _build(pdf: Path, out: Path) -> int:
    return main(["build", "--pdf", str(pdf), "--out", str(out), "--no-embed"])


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    return err


def _no_strays(out: Path) -> None:
    """Nothing beside `out` but `out`: no staging or old folder, and no `<out>.lock` once the build has ended."""
    assert not list(out.parent.glob(f".{out.name}.*")), list(out.parent.iterdir())
    assert not list(out.parent.glob(f"{out.name}.lock")), list(out.parent.iterdir())


@pytest.fixture()
def previous_out(tmp_path: Path, sample_build: Path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(sample_build, out)
    return out


# ---- --out that is not ours ---------------------------------------------------------------------------------


def test_a_folder_that_is_not_an_index_is_refused_and_left_alone(tmp_path, sample_pdf, capsys):
    out = tmp_path / "thesis"
    out.mkdir()
    (out / "luan-van.docx").write_bytes(b"PK\x03\x04 two years of work")
    (out / "notes").mkdir()
    (out / "notes" / "a.txt").write_text("ghi chú", encoding="utf-8")
    before = snapshot(out)
    assert _build(sample_pdf, out) == 2
    err = _one_line(capsys)
    assert str(out) in err and "không phải chỉ mục" in err
    assert snapshot(out) == before
    _no_strays(out)


def test_a_file_given_as_out_is_refused_and_left_alone(tmp_path, sample_pdf, capsys):
    out = tmp_path / "bao-cao.pdf"
    out.write_bytes(b"%PDF-1.4 someone else's file")
    assert _build(sample_pdf, out) == 2
    assert "là một tệp" in _one_line(capsys)
    assert out.read_bytes() == b"%PDF-1.4 someone else's file"
    _no_strays(out)


def test_our_index_with_a_foreign_file_added_is_refused(previous_out, sample_pdf, capsys):
    (previous_out / "ghi-chu-cua-toi.txt").write_text("đừng xoá", encoding="utf-8")
    before = snapshot(previous_out)
    assert _build(sample_pdf, previous_out) == 2
    assert "ghi-chu-cua-toi.txt" in _one_line(capsys)
    assert snapshot(previous_out) == before


def test_an_empty_existing_folder_is_built_into(tmp_path, sample_pdf):
    out = tmp_path / "empty"
    out.mkdir()
    assert _build(sample_pdf, out) == 0
    assert (out / artifacts.REPORT_FILE).is_file() and (out / artifacts.CHUNKS_FILE).is_file()
    _no_strays(out)


def test_a_rebuild_over_our_own_index_replaces_it(previous_out, sample_pdf):
    (previous_out / artifacts.CHUNKS_FILE).write_text("", encoding="utf-8")  # damaged: the rebuild repairs it
    assert _build(sample_pdf, previous_out) == 0
    assert len(artifacts.read_chunks(previous_out / artifacts.CHUNKS_FILE)) == 320
    _no_strays(previous_out)
    assert main(["check", str(previous_out)]) == 0


def test_stray_folders_beside_out_are_removed_only_when_ours(previous_out, sample_pdf):
    ours = previous_out.parent / ".out.staging.dead1234"  # what a killed build leaves
    ours.mkdir()
    (ours / artifacts.CHUNKS_FILE).write_text("{}\n", encoding="utf-8")
    theirs = previous_out.parent / ".out.staging.photos"
    theirs.mkdir()
    (theirs / "IMG_0001.jpg").write_bytes(b"\xff\xd8\xff")
    assert _build(sample_pdf, previous_out) == 0
    assert not ours.exists()
    assert (theirs / "IMG_0001.jpg").read_bytes() == b"\xff\xd8\xff"


def test_a_second_build_into_the_same_out_is_refused_while_the_first_runs(
    tmp_path, sample_pdf, previous_out, monkeypatch, capsys
):
    """A long build and a short one into one --out: the short one refuses at once (it does not wait, and it
    does not remove the long one's staging folder); the long one finishes and its index is complete."""
    import ingestion.pipeline as pipeline

    staged, release = threading.Event(), threading.Event()
    write = pipeline.write_artifacts
    outcome: dict = {}

    def slow_write(result, folder):
        write(result, folder)
        if not staged.is_set():
            staged.set()
            release.wait(timeout=120)

    def first_build():
        try:
            outcome["result"] = pipeline.build(sample_pdf, previous_out, embed=False)
        except BaseException as err:  # noqa: BLE001 - reported by the assertion below
            outcome["error"] = err

    monkeypatch.setattr(pipeline, "write_artifacts", slow_write)
    long_build = threading.Thread(target=first_build)
    long_build.start()
    try:
        assert staged.wait(timeout=120), "the first build never reached its staging folder"
        code = _build(sample_pdf, previous_out)
    finally:
        release.set()
        long_build.join(timeout=120)
    assert code == 2
    assert "đang được" in _one_line(capsys)
    assert "error" not in outcome, outcome.get("error")
    assert main(["check", str(previous_out)]) == 0
    assert len(artifacts.read_chunks(previous_out / artifacts.CHUNKS_FILE)) == 320
    _no_strays(previous_out)


def test_a_cancelled_build_leaves_only_the_previous_index(previous_out, sample_pdf):
    """Cancelled at its first progress report: the index that was there is untouched and nothing is left beside
    it (no staging folder, no empty `<out>.lock`)."""
    import ingestion.pipeline as pipeline
    from ingestion.progress import BuildCancelled

    cancel = threading.Event()
    before = snapshot(previous_out)
    with pytest.raises(BuildCancelled):
        pipeline.build(sample_pdf, previous_out, embed=False, on_progress=lambda *a: cancel.set(), cancel=cancel)
    assert snapshot(previous_out) == before
    assert sorted(p.name for p in previous_out.parent.iterdir()) == [previous_out.name]
    _no_strays(previous_out)


def test_the_lock_is_removed_by_its_holder_and_a_stale_open_of_it_starts_again(tmp_path):
    """The holder removes `<out>.lock` before releasing it; a process that had opened the removed file sees the
    path no longer names it (and locks the new one), so two builds never hold different files under one name."""
    from duocthu_desktop import atomic

    out = tmp_path / "index"
    with atomic.locked(out) as path:
        assert path.exists()
        stale = os.open(path, os.O_RDWR)  # a second build opened it just before the first one ended
        with pytest.raises(atomic.FolderBusy):
            with atomic.locked(out):
                pass
    try:
        assert not path.exists()
        assert not atomic._still_names(path, stale)
        with atomic.locked(out):
            assert atomic._still_names(path, os.open(path, os.O_RDONLY))
            with pytest.raises(atomic.FolderBusy):
                with atomic.locked(out):
                    pass
    finally:
        os.close(stale)
    assert not path.exists()


# ---- full or unwritable disk --------------------------------------------------------------------------------


def test_a_full_disk_gives_one_line_and_keeps_the_previous_index(previous_out, sample_pdf, monkeypatch, capsys):
    from duocthu_desktop import atomic

    real = atomic.write_lines

    def full(path, lines):
        if Path(path).name == artifacts.CHUNKS_FILE:
            Path(path).with_name(".chunks.jsonl.partial.tmp").write_text("{", encoding="utf-8")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real(path, lines)

    monkeypatch.setattr(atomic, "write_lines", full)
    before = snapshot(previous_out)
    assert _build(sample_pdf, previous_out) == 2
    err = _one_line(capsys)
    assert "đĩa đầy" in err and os.strerror(errno.ENOSPC) in err
    assert snapshot(previous_out) == before
    _no_strays(previous_out)


def test_a_full_disk_while_writing_chroma_gives_one_line(previous_out, sample_pdf, monkeypatch, capsys, tmp_path):
    import ingestion.index_build as index_build
    from duocthu_desktop.retrieval.chroma_store import ChromaStore
    from duocthu_desktop.retrieval.fakes import HashingEmbedder

    monkeypatch.setenv("DUOCTHU_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(index_build, "_default_embedder", lambda: HashingEmbedder())

    def full(self, chunks, vectors, batch=256):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(ChromaStore, "add", full)
    before = snapshot(previous_out)
    assert main(["build", "--pdf", str(sample_pdf), "--out", str(previous_out)]) == 2
    assert "đĩa đầy" in _one_line(capsys)
    assert snapshot(previous_out) == before
    _no_strays(previous_out)


@pytest.mark.parametrize("where", ["add", "reopen"])
def test_chroma_compaction_failing_on_a_full_disk_says_the_disk_is_full(previous_out, sample_pdf, monkeypatch,
                                                                        capsys, tmp_path, where):
    """What a full disk gave on a 3 MB tmpfs (ingest of the sample): Chroma's "Error in compaction", with no word
    of the disk, from the write or from the check that reopens the index. A fake raises that same error with the
    disk's free space scripted (the same build on a 3 MB tmpfs now ends in this line, exit 2)."""
    import shutil as shutil_module
    from collections import namedtuple

    from chromadb.errors import InternalError

    import ingestion.index_build as index_build
    from duocthu_desktop.retrieval.chroma_store import ChromaStore
    from duocthu_desktop.retrieval.fakes import HashingEmbedder

    monkeypatch.setenv("DUOCTHU_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(index_build, "_default_embedder", lambda: HashingEmbedder())

    def compaction(*args, **kwargs):
        raise InternalError("Error in compaction: Failed to apply logs to the metadata segment")

    monkeypatch.setattr(ChromaStore, "add" if where == "add" else "count", compaction)
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil_module, "disk_usage", lambda path: usage(3 << 20, (3 << 20) - 4096, 4096))
    before = snapshot(previous_out)
    assert main(["build", "--pdf", str(sample_pdf), "--out", str(previous_out)]) == 2
    err = _one_line(capsys)
    assert "đĩa đầy" in err and "disk full" in err and "unexpected" not in err
    assert snapshot(previous_out) == before
    _no_strays(previous_out)


def test_the_same_chroma_failure_with_room_on_the_disk_is_not_called_a_full_disk(previous_out, sample_pdf,
                                                                                 monkeypatch, capsys, tmp_path):
    from chromadb.errors import InternalError

    import ingestion.index_build as index_build
    from duocthu_desktop.retrieval.chroma_store import ChromaStore
    from duocthu_desktop.retrieval.fakes import HashingEmbedder

    monkeypatch.setenv("DUOCTHU_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(index_build, "_default_embedder", lambda: HashingEmbedder())

    def compaction(*args, **kwargs):
        raise InternalError("Error in compaction: Failed to apply logs to the metadata segment")

    monkeypatch.setattr(ChromaStore, "add", compaction)
    assert main(["build", "--pdf", str(sample_pdf), "--out", str(previous_out)]) == 1
    err = _one_line(capsys)
    assert "đĩa đầy" not in err and "InternalError" in err


@contextlib.contextmanager
def _unwritable(folder: Path):
    """chmod a-w, and for root (whom modes do not stop) the immutable attribute; skip where neither works."""
    folder.chmod(0o555)
    immutable = False
    try:
        if os.access(folder, os.W_OK):  # root
            run = subprocess.run(["chattr", "+i", str(folder)], capture_output=True)
            if run.returncode != 0:
                pytest.skip("cannot make a folder unwritable here (root without chattr)")
            immutable = True
        yield folder
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(folder)], capture_output=True)
        folder.chmod(0o755)


@pytest.mark.parametrize("which", ["parent", "out"])
def test_an_unwritable_out_gives_one_line_and_keeps_the_previous_index(
    tmp_path, sample_build, sample_pdf, capsys, which
):
    parent = tmp_path / "ro"
    parent.mkdir()
    out = parent / "index"
    shutil.copytree(sample_build, out)
    before = snapshot(out)
    with _unwritable(parent if which == "parent" else out):
        code = _build(sample_pdf, out)
    assert code == 2
    assert "không ghi được" in _one_line(capsys)
    assert snapshot(out) == before
    _no_strays(out)


# ---- check cross-checks the artifacts -----------------------------------------------------------------------


def _mismatches(out: str) -> list[str]:
    return [ln for ln in out.splitlines() if ln.startswith("mismatch:")]


def test_check_fails_on_an_emptied_monographs_file(previous_out, capsys):
    (previous_out / artifacts.MONOGRAPHS_FILE).write_text("", encoding="utf-8")
    assert main(["check", str(previous_out)]) != 0
    found = _mismatches(capsys.readouterr().out)
    assert any("monographs.jsonl" in m and "17" in m for m in found), found


def test_check_fails_on_lost_chunk_and_dosing_rows(previous_out, capsys):
    for name in (artifacts.CHUNKS_FILE, "dosing.jsonl"):
        lines = (previous_out / name).read_text(encoding="utf-8").splitlines(keepends=True)
        (previous_out / name).write_text("".join(lines[:-3]), encoding="utf-8")
    assert main(["check", str(previous_out)]) != 0
    found = _mismatches(capsys.readouterr().out)
    assert any("chunks.jsonl" in m for m in found) and any("dosing.jsonl" in m for m in found), found


@pytest.mark.integration
def test_check_passes_on_a_sound_index_and_records_counts(index_copy, capsys):
    assert main(["check", str(index_copy)]) == 0
    out = capsys.readouterr().out
    assert not _mismatches(out) and all(ln.endswith(": 0") for ln in out.splitlines())
    manifest = json.loads((index_copy / MANIFEST_FILE).read_text(encoding="utf-8"))
    assert manifest["monograph_count"] == 17 and manifest["chunk_count"] == 320 and manifest["dosing_rows"] > 0


@pytest.mark.integration
def test_check_fails_when_chunk_ids_in_chroma_differ_from_chunks_jsonl(index_copy, capsys):
    path = index_copy / artifacts.CHUNKS_FILE
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    row = json.loads(lines[5])
    row["chunk_id"] = row["chunk_id"] + "_renamed"
    lines[5] = json.dumps(row, ensure_ascii=False) + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    assert main(["check", str(index_copy)]) != 0
    found = _mismatches(capsys.readouterr().out)
    assert any("_renamed" in m and "chroma" in m.lower() for m in found), found


# ---- the index is refused, never read as "not in the formulary" ---------------------------------------------


@pytest.mark.integration
@pytest.mark.parametrize("manifest_kind", ["current", "older"])
def test_ask_refuses_an_index_whose_monographs_file_was_emptied(index_copy, ask_env, capsys, manifest_kind):
    if manifest_kind == "older":  # built before the manifest recorded monograph and dosing counts
        manifest = json.loads((index_copy / MANIFEST_FILE).read_text(encoding="utf-8"))
        manifest.pop("monograph_count", None)
        manifest.pop("dosing_rows", None)
        (index_copy / MANIFEST_FILE).write_text(json.dumps(manifest), encoding="utf-8")
    (index_copy / artifacts.MONOGRAPHS_FILE).write_text("", encoding="utf-8")
    code = cli_ask.main(["--index", str(index_copy), "liều paracetamol cho người lớn"])
    captured = capsys.readouterr()
    assert "drug_not_in_formulary" not in captured.out
    assert code == 2 and captured.out == ""
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and "monographs.jsonl" in err and "duocthu-ingest build" in err
    with pytest.raises(IndexError_, match="monographs.jsonl"):
        RetrievalService.open(index_copy)


@pytest.mark.integration
def test_ask_and_eval_refuse_an_index_that_lost_chunk_rows(index_copy, ask_env, tmp_path, capsys):
    path = index_copy / artifacts.CHUNKS_FILE
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:100]), encoding="utf-8")
    assert cli_ask.main(["--index", str(index_copy), "liều paracetamol cho người lớn"]) == 2
    assert "chunks.jsonl" in _one_line(capsys)
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps({"id": "x", "turns": ["liều paracetamol"], "expect": {}}) + "\n", encoding="utf-8")
    assert cli_eval.main(["--index", str(index_copy), str(cases)]) == 2
    assert "chunks.jsonl" in _one_line(capsys)


# ---- a damaged Chroma file ----------------------------------------------------------------------------------


def _page_to_damage(db: Path, where: str) -> int:
    """The 1-based page: the file's middle, or the middle page of one of Chroma's tables (via dbstat)."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as con:
        pages = con.execute("PRAGMA page_count").fetchone()[0]
        if where == "middle":
            return pages // 2
        try:
            owned = [p for (p,) in con.execute("SELECT pageno FROM dbstat WHERE name=? ORDER BY pageno", (where,))]
        except sqlite3.Error:
            pytest.skip("this SQLite has no dbstat")
    assert owned, where
    return owned[len(owned) // 2]


@pytest.mark.integration
@pytest.mark.parametrize(
    "where", ["middle", "embedding_metadata", "embedding_fulltext_search_content", "embedding_fulltext_search_data"]
)
def test_a_corrupt_chroma_page_is_a_message_for_ask_and_a_failure_for_check(index_copy, ask_env, capsys, where):
    db = index_copy / CHROMA_DIR / "chroma.sqlite3"
    page = _page_to_damage(db, where)
    with open(db, "r+b") as fh:  # the whole page: a part of it may be free space, whose damage SQLite never sees
        fh.seek((page - 1) * 4096)
        fh.write(b"\xde\xad\xbe\xef" * 1024)

    # check first: opening the index with Chroma (as `ask` does) may write pages back and so mend the damage
    assert main(["check", str(index_copy)]) != 0
    found = _mismatches(capsys.readouterr().out)
    assert any("chroma" in m.lower() for m in found), found

    code = cli_ask.main(["--index", str(index_copy), "liều paracetamol cho người lớn"])  # never raises
    captured = capsys.readouterr()
    if code == 0:  # the damage is in a part this question does not read: an answer, said as the payload
        payload = json.loads(captured.out)
        assert payload["decision"] in ("answerable", "clarify", "abstain", "verify_pdf") and payload["disclaimer"]
    else:
        assert code == 2 and captured.out == ""
        assert len(captured.err.strip().splitlines()) == 1 and "Traceback" not in captured.err


# ---- a damaged settings.json --------------------------------------------------------------------------------


@pytest.mark.integration
@pytest.mark.parametrize("content", ["unknown_key", "[1, 2]", "{not json"])
def test_every_command_starts_with_a_damaged_settings_file(index_copy, ask_env, tmp_path, capsys, caplog, content):
    if content == "unknown_key":  # the known key still applies: the index comes from the file
        content = json.dumps({"theme": "dark", "index_dir": str(index_copy), "engine": "extractive"})
        ask = ["liều paracetamol cho người lớn"]
    else:
        ask = ["--index", str(index_copy), "liều paracetamol cho người lớn"]
    (ask_env / "settings.json").write_text(content, encoding="utf-8")
    with caplog.at_level("WARNING", logger="duocthu_desktop.settings"):
        assert cli_ask.main(ask) == 0
    assert json.loads(capsys.readouterr().out)["disclaimer"]
    assert any("settings file" in r.getMessage() for r in caplog.records)
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps({"id": "x", "turns": ["liều paracetamol"], "expect": {}}) + "\n", encoding="utf-8")
    assert cli_eval.main(["--index", str(tmp_path / "nowhere"), str(cases)]) == 2
    assert "No index at" in _one_line(capsys)  # the settings file did not stop it: the missing index did
    assert main(["check", str(index_copy)]) == 0


def test_the_pipeline_imports_where_the_unix_only_resource_module_is_missing():
    """Windows has no `resource`: the ingest still imports and runs, its report without a peak memory."""
    import sys

    code = (
        "import sys; sys.modules['resource'] = None\n"
        "import ingestion.pipeline as p\n"
        "assert p.resource is None and p._peak_memory_mb() is None\n"
    )
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
