"""The retrieval service's behaviour, run the same over the in-memory store and the embedded Chroma store
(with a hashing fake embedder): the in-memory store is the reference the Chroma store must match."""

from __future__ import annotations

from pathlib import Path

import pytest

from duocthu_desktop.artifacts import MONOGRAPHS_FILE, write_chunks, write_jsonl
from duocthu_desktop.retrieval.embed_cache import EmbeddingCache
from duocthu_desktop.retrieval.fakes import HashingEmbedder
from duocthu_desktop.retrieval.memory_store import InMemoryStore
from duocthu_desktop.retrieval.service import RetrievalService, fold_with_offsets, phrase_pattern
from duocthu_desktop.retrieval.types import ChunkStore
from ingestion.index_build import build_index, document_text
from tests.retrieval_samples import sample_chunks, sample_monographs


def build_fake_index(folder: Path, cache_path: Path, embedder: HashingEmbedder | None = None) -> Path:
    chunks, monographs = sample_chunks(), sample_monographs()
    folder.mkdir(parents=True, exist_ok=True)
    write_jsonl(folder / MONOGRAPHS_FILE, monographs)
    write_chunks(folder / "chunks.jsonl", chunks)
    cache = EmbeddingCache(cache_path)
    try:
        build_index(folder, chunks, monographs, progress=False, embedder=embedder or HashingEmbedder(), cache=cache)
    finally:
        cache.close()
    return folder


@pytest.fixture(scope="module")
def fake_server_index(tmp_path_factory):
    """The hand-made index published to a real Chroma server on loopback (stopped after the module)."""
    from tests.chroma_server import publish_to, running_chroma_server

    base = tmp_path_factory.mktemp("fake-server")
    folder = build_fake_index(base / "index", base / "cache.sqlite3")
    with running_chroma_server(base / "server-data") as url:
        publish_to(folder, url)
        yield folder, url


@pytest.fixture(params=["memory", "chroma", pytest.param("server", marks=pytest.mark.integration)])
def service(request, tmp_path):
    embedder = HashingEmbedder()
    if request.param == "server":
        from duocthu_desktop.settings import Settings

        folder, url = request.getfixturevalue("fake_server_index")
        svc = RetrievalService.open(folder, settings=Settings(chroma_url=url), embedder=embedder)
        assert svc.store.location == url
        yield svc
        svc.close()
        return
    if request.param == "memory":
        chunks, monographs = sample_chunks(), sample_monographs()
        titles = {m.drug_id: m.title for m in monographs}
        vectors = embedder.embed([document_text(c, titles[c.drug_id]) for c in chunks], "document")
        yield RetrievalService(InMemoryStore(chunks, vectors), monographs, embedder)
        return
    folder = build_fake_index(tmp_path / "index", tmp_path / "cache.sqlite3")
    svc = RetrievalService.open(folder, embedder=embedder)
    yield svc
    svc.close()


def test_store_implements_protocol(service):
    assert isinstance(service.store, ChunkStore)


def test_all_chunks_round_trip_exactly_in_book_order(service):
    assert service.all_chunks() == sample_chunks()


def test_framed_section_is_whole_and_in_part_order(service):
    result = service.retrieve_framed("paracetamol", "lieu_luong_cach_dung")
    assert [c.part_index for c in result.chunks] == [0, 1, 2]
    assert result.text.index("4 - 6 tuổi: 240 mg") < result.text.index("10 - 50 kg: 15 mg/kg")
    assert service.decide(result).decision == "answerable"


def test_framed_missing_section_abstains(service):
    result = service.retrieve_framed("paracetamol", "tuong_ky")
    assert result.chunks == []
    decision = service.decide(result)
    assert (decision.decision, decision.reason) == ("abstain", "parent_hydration_failed")


def test_quarantined_part_asks_to_verify_pdf(service):
    result = service.retrieve_framed("paracetamol", "tuong_tac_thuoc")
    assert result.chunks and result.quarantined
    decision = service.decide(result)
    assert (decision.decision, decision.reason) == ("verify_pdf", "quarantined_evidence")


def test_chunk_without_pages_abstains_missing_provenance(service):
    decision = service.decide(service.retrieve_framed("warfarin", "thoi_ky_mang_thai"))
    assert (decision.decision, decision.reason) == ("abstain", "missing_provenance")


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("tăng huyết áp", ["amlodipin", "captopril"]),
        ("TANG HUYET AP", ["amlodipin", "captopril"]),
        ("hạ sốt", ["paracetamol"]),
        ("huyết áp", ["amlodipin", "captopril", "huyet_ap_test"]),
    ],
)
def test_indication_lexical_whole_phrase_folded(service, condition, expected):
    hits = service.search_indication(condition)
    assert [h.drug_id for h in hits] == expected
    assert all(h.method == "lexical" and h.chunk.section_key == "chi_dinh" for h in hits)


def test_indication_matched_words_come_from_the_book(service):
    hit = next(h for h in service.search_indication("tang huyet ap") if h.drug_id == "captopril")
    assert hit.matched == "Tăng  huyết\náp"


def test_indication_does_not_match_inside_words(service):
    assert [h.drug_id for h in service.search_indication("ổn")] == ["amlodipin"]
    assert service._lexical_indication("ngu", 10) == []  # "ngực" folds to "nguc": not a whole word
    assert service._lexical_indication("suy", 10)[0].drug_id == "captopril"


def test_indication_dense_fallback_has_a_threshold(service):
    hits = service.search_indication("zzzz qqqq xxxx")
    assert hits == []


def test_dense_search_filters_by_metadata(service):
    # the build embeds only the sections a dense search ranks (Chỉ định); the others hold placeholder vectors
    found = service.dense_search("giảm đau, hạ sốt", k=3, where={"drug_id": "paracetamol"})
    assert found and all(c.drug_id == "paracetamol" for c, _ in found)
    assert found[0][0].chunk_id == "paracetamol__chi_dinh__0"
    distances = [d for _, d in found]
    assert distances == sorted(distances)


def test_dense_search_filters_on_two_keys(service):
    found = service.dense_search("liều", k=10, where={"drug_id": "paracetamol", "section_key": "chi_dinh"})
    assert [c.chunk_id for c, _ in found] == ["paracetamol__chi_dinh__0"]


def test_dense_search_with_k_beyond_matches_and_empty_filter(service):
    assert len(service.dense_search("x", k=50, where={"drug_id": "captopril"})) == 2
    assert service.dense_search("x", k=5, where={"drug_id": "nope"}) == []
    assert service.dense_search("x", k=0) == []


def test_monograph_lookup(service):
    assert service.monograph("paracetamol").title.startswith("PARACETAMOL")
    assert service.monograph("nope") is None


def test_fold_with_offsets_maps_back():
    folded, origin = fold_with_offsets("Tăng huyết áp")
    assert folded == "tang huyet ap"
    assert len(origin) == len(folded)
    assert phrase_pattern("Huyết-áp").search("tang huyet ap") is not None
    assert phrase_pattern("  ") is None


@pytest.mark.integration
def test_server_mode_from_environment(fake_server_index, monkeypatch):
    folder, url = fake_server_index
    monkeypatch.setenv("DUOCTHU_CHROMA_URL", url)
    service = RetrievalService.open(folder, embedder=HashingEmbedder())
    try:
        assert service.store.location == url
        assert [h.drug_id for h in service.search_indication("hạ sốt")] == ["paracetamol"]
    finally:
        service.close()


def test_unreachable_server_is_a_clear_error_or_the_local_fallback_said_once(tmp_path, monkeypatch):
    from duocthu_desktop.errors import ServerUnavailable
    from duocthu_desktop.settings import Settings

    monkeypatch.setenv("DUOCTHU_CACHE_DIR", str(tmp_path / "cache"))
    settings = Settings(chroma_url="http://127.0.0.1:9", chroma_timeout=2)
    with pytest.raises(ServerUnavailable, match="does not answer within 2 s"):
        RetrievalService.open(None, settings=settings, embedder=HashingEmbedder())
    folder = build_fake_index(tmp_path / "index", tmp_path / "cache.sqlite3")
    service = RetrievalService.open(folder, settings=settings, embedder=HashingEmbedder())
    try:
        assert service.store.location == str(folder / "chroma")
        notice = service.take_notice()
        assert "127.0.0.1:9" in notice and str(folder) in notice and "\n" not in notice
        assert service.take_notice() is None  # said once
    finally:
        service.close()
