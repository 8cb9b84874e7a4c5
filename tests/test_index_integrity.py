"""What the clinician reads is what the book printed (issue 20): every artifact answers are read from carries a
sha256 in the manifest, checked at open (one digest per file), as each chunk is read from Chroma (in the folder or
on a server) and by `duocthu-ingest check`. A change is refused in one line; an index built before the digests
opens as before ("not recorded").

Every test edits a copy of the session's sample index, never the index itself.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from duocthu_desktop import artifacts, cli_ask
from duocthu_desktop.errors import IndexError_
from duocthu_desktop.retrieval.chroma_store import ChromaStore, point_id
from duocthu_desktop.retrieval.manifest import CHROMA_DIR, DIGESTED_FILES, MANIFEST_FILE, read_manifest
from duocthu_desktop.retrieval.service import RetrievalService
from duocthu_desktop.settings import ENV_CHROMA_URL, Settings
from ingestion.cli import main as ingest
from tests.chroma_server import publish_to, running_chroma_server

pytestmark = pytest.mark.integration

DOSE_CHUNK = "metformin__lieu_luong_cach_dung__0"
DOSE_QUESTION = "liều metformin cho người lớn"
PRINTED, EDITED = "uống 1 viên 500 mg", "uống 1 viên 800 mg"


def _edit_chroma_sqlite(index: Path, old: str = PRINTED, new: str = EDITED) -> int:
    """The dose edited where Chroma keeps a chunk's text: the chunk JSON and the document in embedding_metadata,
    and the full-text copy; returns the rows changed."""
    with closing(sqlite3.connect(index / CHROMA_DIR / "chroma.sqlite3")) as con:
        changed = con.execute("UPDATE embedding_metadata SET string_value = replace(string_value, ?, ?) "
                              "WHERE string_value LIKE ?", (old, new, f"%{old}%")).rowcount
        con.execute("UPDATE embedding_fulltext_search SET string_value = replace(string_value, ?, ?) "
                    "WHERE string_value LIKE ?", (old, new, f"%{old}%"))
        con.commit()
    return changed


def _replace_once(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    return err


def _mismatches(out: str) -> list[str]:
    return [ln for ln in out.splitlines() if ln.startswith("mismatch:")]


def _ask(index: Path, capsys, *extra: str) -> tuple[int, str, str]:
    code = cli_ask.main(["--index", str(index), *extra, DOSE_QUESTION])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ---- what the build records --------------------------------------------------------------------------------


def test_the_manifest_records_a_digest_of_every_artifact_and_chunk(sample_index):
    manifest = read_manifest(sample_index)
    assert set(manifest.file_sha256) == set(DIGESTED_FILES)
    chunks = artifacts.read_chunks(sample_index / artifacts.CHUNKS_FILE)
    assert set(manifest.chunk_sha256) == {c.chunk_id for c in chunks}
    assert PRINTED in next(c.text for c in chunks if c.chunk_id == DOSE_CHUNK)


def test_the_sound_index_answers_the_printed_dose(index_copy, ask_env, capsys):
    code, out, _ = _ask(index_copy, capsys)
    assert code == 0 and "500 mg" in out  # the question the edit below is seen by


# ---- a dose edited in Chroma's copy of a chunk ---------------------------------------------------------------


def test_a_dose_edited_in_chroma_sqlite_is_refused_when_read_and_never_shown(index_copy, ask_env, capsys, caplog):
    assert _edit_chroma_sqlite(index_copy) >= 2
    service = RetrievalService.open(index_copy)  # the files are untouched: opening is cheap and passes
    try:
        with caplog.at_level(logging.WARNING), pytest.raises(IndexError_, match="sha256") as refused:
            service.retrieve_framed("metformin", "lieu_luong_cach_dung")
        assert len(str(refused.value).splitlines()) == 1 and "Chỉ mục" in str(refused.value)
        assert any("does not hash to the sha256" in r.getMessage() and DOSE_CHUNK in r.getMessage()
                   for r in caplog.records)  # the reason, in English, in the log
        with pytest.raises(IndexError_, match="sha256"):
            service.chunk(DOSE_CHUNK)  # the source viewer / browser read the same way
    finally:
        service.close()
    code, out, _ = _ask(index_copy, capsys)
    payload = json.loads(out)
    assert "800 mg" not in out and payload["citations"] == []
    assert (payload["decision"], payload["reason"]) == ("abstain", "provider_unavailable")


def test_check_reports_a_dose_edited_in_chroma_sqlite(index_copy, ask_env, capsys):
    _edit_chroma_sqlite(index_copy)
    assert ingest(["check", str(index_copy)]) != 0
    found = _mismatches(capsys.readouterr().out)
    assert any("sha256" in m and DOSE_CHUNK in m for m in found), found
    assert any("document text" in m for m in found), found


# ---- a dose row or a page edited in the folder ---------------------------------------------------------------


def _edit_dosing(index: Path) -> None:
    _replace_once(index / "dosing.jsonl", "500 mg", "800 mg")


def _edit_pages(index: Path) -> None:
    _replace_once(index / artifacts.PAGES_FILE, '"printed": 100', '"printed": 160')


@pytest.mark.parametrize(("edit", "name"), [(_edit_dosing, "dosing.jsonl"), (_edit_pages, "pages.json")],
                         ids=["dosing", "pages"])
def test_an_edited_dose_row_or_page_map_is_refused_at_open_and_by_check(index_copy, ask_env, capsys, edit, name):
    edit(index_copy)
    with pytest.raises(IndexError_, match=name):
        RetrievalService.open(index_copy)
    assert cli_ask.main(["--index", str(index_copy), DOSE_QUESTION]) == 2
    line = _one_line(capsys)
    assert name in line and "sha256" in line and "duocthu-ingest build" in line
    assert ingest(["check", str(index_copy)]) != 0
    found = _mismatches(capsys.readouterr().out)
    assert any(name in m and "sha256" in m for m in found), found


def test_an_edited_chunks_file_is_refused_at_open(index_copy, ask_env):
    _replace_once(index_copy / artifacts.CHUNKS_FILE, PRINTED, EDITED)
    with pytest.raises(IndexError_, match="chunks.jsonl"):
        RetrievalService.open(index_copy)


# ---- an index built before the digests -------------------------------------------------------------------


def test_an_index_built_before_the_digests_opens_and_check_says_not_recorded(index_copy, ask_env, capsys):
    manifest = json.loads((index_copy / MANIFEST_FILE).read_text(encoding="utf-8"))
    manifest.pop("file_sha256")
    manifest.pop("chunk_sha256")
    (index_copy / MANIFEST_FILE).write_text(json.dumps(manifest), encoding="utf-8")
    service = RetrievalService.open(index_copy)
    try:
        assert service.retrieve_framed("metformin", "lieu_luong_cach_dung").chunks
    finally:
        service.close()
    code, out, _ = _ask(index_copy, capsys)
    assert code == 0 and "500 mg" in out
    assert ingest(["check", str(index_copy)]) == 0
    captured = capsys.readouterr()
    assert not _mismatches(captured.out) and "not recorded" in captured.err


# ---- the same index on a Chroma server, one record changed there ----------------------------------------------


def test_a_dose_changed_on_the_chroma_server_is_refused_when_read_and_by_check(
    tmp_path, index_copy, ask_env, capsys, monkeypatch
):
    with running_chroma_server(tmp_path / "server") as url:
        published = publish_to(index_copy, url)
        monkeypatch.setenv(ENV_CHROMA_URL, url)
        assert ingest(["check", str(index_copy)]) == 0  # the sound server passes
        capsys.readouterr()

        with ChromaStore.connect(url, published.chunks_collection) as server:  # one record changed, as a probe would
            got = server._collection.get(ids=[point_id(DOSE_CHUNK)], include=["metadatas", "documents", "embeddings"])
            meta = dict(got["metadatas"][0])
            assert PRINTED in meta["chunk_json"]
            meta["chunk_json"] = meta["chunk_json"].replace(PRINTED, EDITED)
            server._collection.update(ids=[point_id(DOSE_CHUNK)], metadatas=[meta],
                                      embeddings=[list(map(float, got["embeddings"][0]))],
                                      documents=[got["documents"][0].replace(PRINTED, EDITED)])

        service = RetrievalService.open(index_copy, settings=Settings(chroma_url=url))
        try:
            with pytest.raises(IndexError_, match="sha256"):
                service.retrieve_framed("metformin", "lieu_luong_cach_dung")
        finally:
            service.close()
        code, out, _ = _ask(index_copy, capsys)
        assert "800 mg" not in out and json.loads(out)["reason"] == "provider_unavailable"

        assert ingest(["check", str(index_copy)]) != 0
        found = _mismatches(capsys.readouterr().out)
        assert any("server" in m and "sha256" in m and DOSE_CHUNK in m for m in found), found
        assert not any(m.startswith("mismatch: chroma") for m in found), found  # the local folder is sound
