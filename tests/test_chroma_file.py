"""An embedded index is read from its chroma.sqlite3 without importing chromadb (issue 19: the import was half of a
`duocthu-ask`), giving exactly what Chroma gives; Chroma itself opens for the first nearest-neighbour query, and
whenever the file is not one the reader can read completely.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from duocthu_desktop.retrieval.chroma_file import DATABASE, ChromaFile, FileFirstStore
from duocthu_desktop.retrieval.chroma_store import ChromaStore
from duocthu_desktop.retrieval.manifest import CHROMA_DIR, read_manifest
from duocthu_desktop.retrieval.service import RetrievalService

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[1]


def test_the_file_reader_gives_what_chroma_gives(sample_index):
    collection = read_manifest(sample_index).collection
    reader = ChromaFile.open(sample_index / CHROMA_DIR, collection)
    assert reader is not None
    with ChromaStore.open_persistent(sample_index / CHROMA_DIR, collection) as chroma:
        assert reader.count() == chroma.count()
        every = chroma.all()
        assert reader.all() == every
        for drug_id in sorted({c.drug_id for c in every}):
            for extra in ({}, {"section_key": "lieu_luong_cach_dung"}, {"quarantined": True}, {"part_index": 0}):
                where = {"drug_id": drug_id, **extra}
                assert reader.get(where) == chroma.get(where), where
        assert reader.get({"section_key": "chi_dinh"}) == chroma.get({"section_key": "chi_dinh"})
        assert reader.get_by_id(every[7].chunk_id) == every[7] and reader.get_by_id("no_such_chunk") is None
    reader.close()


def test_a_service_reads_the_file_and_opens_chroma_only_for_a_nearest_neighbour_query(sample_index, embedder):
    service = RetrievalService.open(sample_index, embedder=embedder)
    try:
        assert isinstance(service.store, FileFirstStore) and service.store._chroma is None
        assert service.retrieve_framed("metformin", "lieu_luong_cach_dung").chunks
        assert service.store._chroma is None
        hits = service.dense_search("tiểu đường", k=3, where={"section_key": "chi_dinh"})
        assert hits and service.store._chroma is not None
        chunks, vectors = service.store.vectors()  # what bench.compare_indexes reads, from Chroma itself
        assert len(chunks) == len(vectors) == service.store.count()
    finally:
        service.close()


def test_a_dose_question_never_imports_chromadb(sample_index, tmp_path):
    code = ("import sys; from pathlib import Path; from duocthu_desktop.qa.pipeline import Assistant; "
            "from duocthu_desktop.settings import Settings; "
            f"a = Assistant.open(Settings.load(index=Path({str(sample_index)!r}), engine='extractive')); "
            "p = a.ask('liều metformin cho người lớn'); "
            "print(p.decision, '500 mg' in p.model_dump_json(), 'chromadb' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DUOCTHU_")}
    env.update(PYTHONPATH=str(ROOT), DUOCTHU_DATA_DIR=str(tmp_path / "data"), HF_HUB_OFFLINE="1",
               DUOCTHU_CONFIG_DIR=str(tmp_path / "config"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == ["answerable", "True", "False"], out.stderr[-2000:]


def _copy(index: Path, tmp_path: Path) -> Path:
    out = tmp_path / "chroma"
    out.mkdir()
    (out / DATABASE).write_bytes((index / CHROMA_DIR / DATABASE).read_bytes())
    return out


def test_records_logged_but_not_applied_or_another_layout_are_left_to_chroma(sample_index, tmp_path):
    collection = read_manifest(sample_index).collection
    folder = _copy(sample_index, tmp_path)
    with closing(sqlite3.connect(folder / DATABASE)) as db:
        db.execute("UPDATE max_seq_id SET seq_id = seq_id - 1")  # the last record not yet in the metadata tables
        db.commit()
    assert ChromaFile.open(folder, collection) is None
    with closing(sqlite3.connect(folder / DATABASE)) as db:
        db.execute("UPDATE max_seq_id SET seq_id = seq_id + 1")
        db.commit()
    assert ChromaFile.open(folder, collection) is not None
    assert ChromaFile.open(folder, "another-collection") is None
    with closing(sqlite3.connect(folder / DATABASE)) as db:
        db.execute("ALTER TABLE embedding_metadata RENAME TO embedding_metadata_v2")
        db.commit()
    assert ChromaFile.open(folder, collection) is None
    (folder / DATABASE).write_bytes(b"this is not a database" * 100)
    assert ChromaFile.open(folder, collection) is None
