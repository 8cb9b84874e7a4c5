"""The sample book's real index (EmbeddingGemma + Chroma), embedded and through a Chroma server: the same
retrieval tests over both."""

from __future__ import annotations

import json
import shutil
import statistics
import time

import pytest

from duocthu_desktop import artifacts
from duocthu_desktop.errors import IndexError_
from duocthu_desktop.retrieval.fakes import HashingEmbedder
from duocthu_desktop.retrieval.manifest import CHROMA_DIR, MANIFEST_FILE, read_manifest
from duocthu_desktop.retrieval.service import RetrievalService
from duocthu_desktop.settings import Settings
from tests.chroma_server import publish_to, running_chroma_server

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory, sample_index):
    """A Chroma server on loopback holding the sample index (published from the embedded one)."""
    with running_chroma_server(tmp_path_factory.mktemp("chroma-server") / "data") as url:
        publish_to(sample_index, url)
        yield url


@pytest.fixture(params=["embedded", "server"])
def service(request, retrieval, sample_index, embedder):
    if request.param == "embedded":
        yield retrieval
        return
    url = request.getfixturevalue("chroma_url")
    svc = RetrievalService.open(sample_index, settings=Settings(chroma_url=url), embedder=embedder)
    yield svc
    svc.close()


def _paracetamol_printed_pages(gold: dict) -> set[int]:
    pages = gold["pages"]
    start = next(i for i, p in enumerate(pages) if "paracetamol" in p["starts"])
    end = next((i for i in range(start + 1, len(pages)) if pages[i]["starts"]), len(pages) - 1)
    return {p["printed"] for p in pages[start : end + 1]}


def test_every_chunk_is_indexed_and_round_trips(service, sample_index):
    written = artifacts.read_chunks(sample_index / artifacts.CHUNKS_FILE)
    assert service.store.count() == len(written)
    assert service.all_chunks() == written


def test_manifest_records_corpus_and_model(sample_index, embedder):
    manifest = read_manifest(sample_index)
    pages = json.loads((sample_index / artifacts.PAGES_FILE).read_text(encoding="utf-8"))
    assert manifest.corpus_sha256 == pages["source_sha256"]
    assert manifest.model_id == embedder.model_id
    assert manifest.weights_sha256 == "cbf5a78393b6a033e0b8a63a57549964f7ed5c6fbeb4ba0694214f36123f2fd2"
    assert manifest.dimensions == 768


def test_paracetamol_dosage_is_whole_and_in_order(service, gold):
    result = service.retrieve_framed("paracetamol", "lieu_luong_cach_dung")
    assert result.chunks
    parts = [c.part_index for c in result.chunks]
    assert parts == sorted(parts)
    text = result.text
    assert "Trẻ em 4 - 6 tuổi: 240 mg" in text
    assert "Trẻ em cân nặng 10 - 50 kg: 15 mg/kg" in text
    allowed = _paracetamol_printed_pages(gold)
    for chunk in result.chunks:
        assert chunk.printed_pages and set(chunk.printed_pages) <= allowed, chunk.chunk_id
    expected = "verify_pdf" if result.quarantined else "answerable"
    assert service.decide(result).decision == expected


def test_indication_search_finds_the_books_drugs(service):
    hypertension = {h.drug_id for h in service.search_indication("tăng huyết áp")}
    assert {"captopril", "amlodipin"} <= hypertension
    assert "paracetamol" not in hypertension
    fever = [h for h in service.search_indication("hạ sốt")]
    assert "paracetamol" in {h.drug_id for h in fever}
    assert all(h.method == "lexical" and h.chunk.section_key == "chi_dinh" for h in fever)
    unfolded = {h.drug_id for h in service.search_indication("TANG HUYET AP")}
    assert unfolded == hypertension


def test_indication_dense_fallback_and_threshold(service):
    # no chi_dinh says "huyết áp tăng cao" (and no synonym rewrites it), so this goes through the embedder
    hits = service.search_indication("huyết áp tăng cao")
    assert hits and all(h.method == "dense" for h in hits)
    assert {"captopril", "amlodipin"} & {h.drug_id for h in hits[:3]}
    assert service.search_indication("sửa chữa xe máy bị thủng lốp") == []


def test_dense_search_with_metadata_filter(service):
    # the build embeds only the sections a dense search ranks (Chỉ định); the others hold placeholder vectors
    found = service.dense_search("thuốc giảm đau và hạ sốt", k=5, where={"drug_id": "paracetamol"})
    assert found and all(c.drug_id == "paracetamol" for c, _ in found)
    assert found[0][0].section_key == "chi_dinh" and found[0][1] < found[1][1]


def test_retrieval_latency(service):
    framed, dense = [], []
    for _ in range(20):
        started = time.perf_counter()
        service.retrieve_framed("paracetamol", "lieu_luong_cach_dung")
        framed.append(time.perf_counter() - started)
    for query in ["tác dụng phụ trên gan", "quá liều xử trí", "phụ nữ có thai", "tương tác rượu"]:
        started = time.perf_counter()
        service.dense_search(query)
        dense.append(time.perf_counter() - started)
    assert statistics.median(framed) < 0.5
    assert statistics.median(dense) < 5.0


def test_index_for_another_model_is_refused(sample_index):
    with pytest.raises(IndexError_, match="built with embedding model"):
        RetrievalService.open(sample_index, embedder=HashingEmbedder())


def test_corrupt_index_is_a_clear_error_and_rebuilds(tmp_path, sample_index, embedder):
    from ingestion.index_build import build_index

    broken = tmp_path / "broken"
    shutil.copytree(sample_index, broken)
    (broken / CHROMA_DIR / "chroma.sqlite3").write_bytes(b"this is not a database" * 100)
    with pytest.raises(IndexError_, match="rebuild"):
        RetrievalService.open(broken, embedder=embedder)

    (broken / MANIFEST_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(IndexError_, match="manifest.json"):
        RetrievalService.open(broken, embedder=embedder)

    with pytest.raises(IndexError_, match="No index"):
        RetrievalService.open(tmp_path / "nowhere", embedder=embedder)

    chunks = artifacts.read_chunks(broken / artifacts.CHUNKS_FILE)
    monographs = artifacts.read_monographs(broken / artifacts.MONOGRAPHS_FILE)
    started = time.monotonic()
    build_index(broken, chunks, monographs, progress=False, embedder=embedder)  # every vector is cached
    assert time.monotonic() - started < 60
    service = RetrievalService.open(broken, embedder=embedder)
    try:
        assert service.retrieve_framed("paracetamol", "chi_dinh").chunks
    finally:
        service.close()


def test_ingest_cli_rebuilds_a_corrupt_index_end_to_end(tmp_path, sample_pdf, sample_index, embedder):
    """`duocthu-ingest build` (with embedding) over a damaged folder: the cache is warm from `sample_index`,
    so this costs the PDF extraction plus the Chroma load."""
    from ingestion.cli import main

    out = tmp_path / "index"
    shutil.copytree(sample_index, out)
    shutil.rmtree(out / CHROMA_DIR)
    with pytest.raises(IndexError_):
        RetrievalService.open(out, embedder=embedder)
    assert main(["build", "--pdf", str(sample_pdf), "--out", str(out)]) == 0
    service = RetrievalService.open(out, embedder=embedder)
    try:
        assert service.all_chunks() == artifacts.read_chunks(out / artifacts.CHUNKS_FILE)
        assert "paracetamol" in {h.drug_id for h in service.search_indication("hạ sốt")}
    finally:
        service.close()
