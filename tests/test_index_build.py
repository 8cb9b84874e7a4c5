"""Building an index with the fake embedder: the cache makes rebuilds embed only what changed, the manifest
guards the model, and a damaged folder is a clear IndexError_ (fast unit versions of the integration tests)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from duocthu_desktop.errors import IndexError_
from duocthu_desktop.retrieval.embed_cache import EmbeddingCache, embed_cached
from duocthu_desktop.retrieval.fakes import HashingEmbedder
from duocthu_desktop.retrieval.manifest import CHROMA_DIR, MANIFEST_FILE, read_manifest
from duocthu_desktop.retrieval.service import RetrievalService
from ingestion.index_build import build_index
from tests.retrieval_samples import sample_chunks, sample_monographs
from tests.test_retrieval_service import build_fake_index


def test_cache_embeds_only_what_changed(tmp_path):
    embedder = HashingEmbedder()
    cache = EmbeddingCache(tmp_path / "c.sqlite3")
    texts = ["một", "hai", "ba", "hai"]
    vectors, fresh = embed_cached(embedder, texts, "document", cache, progress=False, batch=2)
    assert fresh == 3 and vectors[1] == vectors[3]
    again, fresh = embed_cached(embedder, texts + ["bốn"], "document", cache, progress=False)
    assert fresh == 1 and embedder.calls[-1] == (1, "document")
    assert np.allclose(np.array(again[:4]), np.array(vectors), atol=1e-6)  # float32 on disk
    _, fresh = embed_cached(embedder, ["một"], "query", cache, progress=False)  # kind is part of the key
    assert fresh == 1
    _, fresh = embed_cached(HashingEmbedder(32), ["một"], "document", cache, progress=False)  # so is the model
    assert fresh == 1
    cache.close()


def test_rebuild_with_warm_cache_embeds_nothing(tmp_path):
    embedder = HashingEmbedder()
    build_fake_index(tmp_path / "a", tmp_path / "c.sqlite3", embedder)
    calls = len(embedder.calls)
    assert calls > 0
    build_fake_index(tmp_path / "b", tmp_path / "c.sqlite3", embedder)
    assert len(embedder.calls) == calls
    manifest = read_manifest(tmp_path / "b")
    assert manifest.chunk_count == len(sample_chunks()) and manifest.model_id == "hashing-fake-64"
    assert manifest.dimensions == 64 and manifest.weights_sha256 is None


def test_duplicate_chunk_ids_are_refused(tmp_path):
    chunks = sample_chunks()
    with pytest.raises(ValueError, match="duplicate chunk ids"):
        build_index(tmp_path, [*chunks, chunks[0]], sample_monographs(), progress=False,
                    embedder=HashingEmbedder(), cache=EmbeddingCache(tmp_path / "c.sqlite3"))


def test_other_model_is_refused(tmp_path):
    folder = build_fake_index(tmp_path / "i", tmp_path / "c.sqlite3")
    with pytest.raises(IndexError_, match="hashing-fake-64 .* configured model is hashing-fake-32"):
        RetrievalService.open(folder, embedder=HashingEmbedder(32))


@pytest.mark.parametrize("damage", ["no_manifest", "bad_manifest", "no_chroma", "garbage_db", "no_monographs",
                                    "missing_rows"])
def test_damaged_index_is_a_clear_error(tmp_path, damage):
    folder = build_fake_index(tmp_path / "i", tmp_path / "c.sqlite3")
    if damage == "no_manifest":
        (folder / MANIFEST_FILE).unlink()
    elif damage == "bad_manifest":
        (folder / MANIFEST_FILE).write_text('{"model_id": 3}', encoding="utf-8")
    elif damage == "no_chroma":
        shutil.rmtree(folder / CHROMA_DIR)
    elif damage == "garbage_db":
        (folder / CHROMA_DIR / "chroma.sqlite3").write_bytes(b"\0garbage" * 512)
    elif damage == "no_monographs":
        (folder / "monographs.jsonl").unlink()
    elif damage == "missing_rows":
        manifest = read_manifest(folder)
        manifest.chunk_count += 5
        (folder / MANIFEST_FILE).write_text(manifest.model_dump_json(), encoding="utf-8")
    with pytest.raises(IndexError_) as err:
        RetrievalService.open(folder, embedder=HashingEmbedder())
    assert "duocthu-ingest build" in str(err.value)
    # and it can be rebuilt in place from the artifacts
    if damage != "no_monographs":
        build_index(folder, sample_chunks(), sample_monographs(), progress=False, embedder=HashingEmbedder(),
                    cache=EmbeddingCache(tmp_path / "c.sqlite3"))
        service = RetrievalService.open(folder, embedder=HashingEmbedder())
        assert len(service.retrieve_framed("paracetamol", "lieu_luong_cach_dung").chunks) == 3
        service.close()



# ---- what the build embeds: only the sections a dense search ranks (Chỉ định); the rest get placeholders ----


class _Recording(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts, kind):
        self.texts.extend(texts)
        return super().embed(texts, kind)


def test_dense_sections_are_the_ones_the_service_searches():
    from duocthu_desktop.retrieval.service import INDICATION_SECTION
    from ingestion.index_build import DENSE_SECTIONS

    assert DENSE_SECTIONS == {INDICATION_SECTION}


def test_placeholder_vectors_are_fixed_distinct_unit_vectors():
    from ingestion.index_build import placeholder_vector

    a, b = placeholder_vector("x__lieu_luong_cach_dung__0", 768), placeholder_vector("x__lieu_luong_cach_dung__1", 768)
    assert a == placeholder_vector("x__lieu_luong_cach_dung__0", 768)  # a rebuild stores the same vector
    assert abs(float(np.dot(a, a)) - 1.0) < 1e-5 and abs(float(np.dot(a, b))) < 0.2


def test_only_indication_chunks_are_embedded_and_the_index_stays_whole(tmp_path):
    from ingestion.index_build import document_text
    from ingestion.index_check import chroma_mismatches

    embedder = _Recording()
    chunks, monographs = sample_chunks(), sample_monographs()
    titles = {m.drug_id: m.title for m in monographs}
    folder = build_fake_index(tmp_path / "i", tmp_path / "c.sqlite3", embedder)
    manifest = read_manifest(folder)
    wanted = [document_text(c, titles[c.drug_id]) for c in chunks if c.section_key == "chi_dinh"]
    assert sorted(embedder.texts) == sorted(wanted)
    assert manifest.chunk_count == len(chunks)
    assert chroma_mismatches(folder / CHROMA_DIR, manifest, chunks) == []  # `duocthu-ingest check`'s Chroma part
    service = RetrievalService.open(folder, embedder=HashingEmbedder())
    try:
        assert service.all_chunks() == chunks  # every chunk is in the index whole, embedded or not
        found = service.dense_search("dự phòng huyết khối tĩnh mạch", k=3, where={"section_key": "chi_dinh"})
        assert found[0][0].chunk_id == "warfarin__chi_dinh__0"
    finally:
        service.close()


def test_the_build_leaves_no_vector_for_each_open_to_replay(tmp_path):
    """Chroma keeps its newest records only in its log until its sync threshold; the build persists them, so
    an open does not replay them into the vector index (1 s of every open at the full book's size)."""
    import sqlite3
    import warnings
    from contextlib import closing

    folder = build_fake_index(tmp_path / "i", tmp_path / "c.sqlite3")
    with closing(sqlite3.connect(f"file:{folder / CHROMA_DIR / 'chroma.sqlite3'}?mode=ro", uri=True)) as db:
        kinds = dict(db.execute("SELECT id, scope FROM segments"))
        seen = {kinds[segment]: seq for segment, seq in db.execute("SELECT segment_id, seq_id FROM max_seq_id")}
    assert seen.get("VECTOR") == seen.get("METADATA") and seen["METADATA"] >= len(sample_chunks())
    service = RetrievalService.open(folder, embedder=HashingEmbedder())
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # chromadb: "legacy embedding function config"
            chroma = service.store._vectors() if hasattr(service.store, "_vectors") else service.store  # file-first
            configuration = chroma._collection.configuration["hnsw"]
        assert configuration["sync_threshold"] == 1000 and configuration["space"] == "cosine"
    finally:
        service.close()


def test_all_chunks_come_from_chunks_jsonl_only_when_it_is_what_was_indexed(tmp_path):
    """The service reads every chunk from chunks.jsonl (fast) when its sha256 is the manifest's, else from Chroma."""
    from duocthu_desktop.artifacts import CHUNKS_FILE

    folder = build_fake_index(tmp_path / "i", tmp_path / "c.sqlite3")
    service = RetrievalService.open(folder, embedder=HashingEmbedder())
    try:
        service.store.all = lambda: pytest.fail("read the store although chunks.jsonl is what was indexed")
        assert service.all_chunks() == sample_chunks()
    finally:
        service.close()
    path = folder / CHUNKS_FILE
    path.write_text(path.read_text(encoding="utf-8").replace("Hẹp động mạch thận", "Hẹp động mạch gan"),
                    encoding="utf-8")  # same rows, another text: not what was indexed
    with pytest.raises(IndexError_, match="chunks.jsonl"):  # its sha256 is the manifest's no more: refused
        RetrievalService.open(folder, embedder=HashingEmbedder())
    manifest = read_manifest(folder)  # an index built before the digests: the store is read instead, as indexed
    manifest.file_sha256 = None
    (folder / MANIFEST_FILE).write_text(manifest.model_dump_json(), encoding="utf-8")
    service = RetrievalService.open(folder, embedder=HashingEmbedder())
    try:
        assert service.all_chunks() == sample_chunks()  # read from the store, as indexed
    finally:
        service.close()
