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
