"""Messages: one Vietnamese message per reason code; every payload carries the disclaimer; every reason an
engine or grounding can produce reaches the person with its own decision and message."""

from __future__ import annotations

from pathlib import Path

import pytest

from duocthu_desktop.messages import DISCLAIMER, MESSAGES, NOT_SAFE, message_for
from duocthu_desktop.payload import Block, Citation, Claim, Reason, decision_for
from duocthu_desktop.qa.answers.engine_types import EngineAnswer
from duocthu_desktop.qa.pipeline import Assistant
from duocthu_desktop.settings import Settings


def test_every_reason_has_a_message():
    missing = [r.value for r in Reason if not MESSAGES.get(r, "").strip()]
    assert missing == []


def test_messages_are_distinct_and_outages_never_read_as_missing_data():
    texts = [MESSAGES[r] for r in Reason]
    assert len(set(texts)) == len(texts)
    for reason in (Reason.PROVIDER_UNAVAILABLE, Reason.UNDERSTANDING_PROVIDER_UNAVAILABLE,
                   Reason.REQUEST_BUDGET_EXHAUSTED):
        assert "không phải Dược thư thiếu dữ liệu" in MESSAGES[reason]


def test_message_fields():
    assert "semaglutide" in message_for(Reason.DRUG_NOT_IN_FORMULARY, names="semaglutide")
    text = message_for(Reason.NO_INTERACTION_EVIDENCE, names="A và B")
    assert "A và B" in text and NOT_SAFE in text
    assert "{names}" not in message_for(Reason.DRUG_NOT_IN_FORMULARY)


class ScriptedEngine:
    """An engine that returns whatever the test scripted, for every path."""

    name = "extractive"

    def __init__(self, answer: EngineAnswer) -> None:
        self.answer = answer

    def answer_section(self, frame, section, monograph):
        return self.answer

    def answer_interaction(self, frame, sections, names):
        return self.answer

    def answer_condition(self, frame, hits, fact_sections):
        return self.answer


def scripted(qa_service, catalog, tmp_path: Path, answer: EngineAnswer) -> Assistant:
    return Assistant(qa_service, catalog=catalog, settings=Settings(data_dir=tmp_path), engine=ScriptedEngine(answer))


ENGINE_REASONS = [
    r for r in Reason
    if r not in (Reason.SMALLTALK, Reason.QUARANTINED_EVIDENCE)
]


@pytest.mark.integration
@pytest.mark.parametrize("reason", ENGINE_REASONS, ids=lambda r: r.value)
def test_every_reason_from_an_engine_keeps_its_decision_message_and_disclaimer(qa_service, catalog, tmp_path, reason):
    answer = EngineAnswer(decision=decision_for(reason), reason=reason.value)
    payload = scripted(qa_service, catalog, tmp_path, answer).ask("Chống chỉ định của metformin là gì?")
    assert (payload.decision, payload.reason) == (decision_for(reason), reason.value)
    assert payload.message == message_for(reason)
    assert payload.disclaimer == DISCLAIMER


def _citation(index: int, chunk, quote: str) -> Citation:
    """A citation of the chunk's own first page, so each case fails only for the reason it is about."""
    return Citation(index=index, chunk_id=chunk.chunk_id, drug_id="metformin", section_key="lieu_luong_cach_dung",
                    printed_page=chunk.printed_pages[0], physical_page=chunk.physical_pages[0], quote=quote)


@pytest.fixture(scope="module")
def metformin_dose(qa_service):
    chunk = qa_service.retrieve_framed("metformin", "lieu_luong_cach_dung").chunks[0]
    return chunk


@pytest.mark.integration
@pytest.mark.parametrize(
    ("claim", "cites", "reason"),
    [
        ("Liều khởi đầu là uống 1 viên 5000 mg", [1], "ungrounded_number"),
        ("Liều khởi đầu là uống 1 viên 500 mg", [], "uncited_claim"),
        ("Liều khởi đầu là uống 1 viên 500 mg", [7], "invalid_citation"),
    ],
)
def test_grounding_failure_turns_any_answer_into_its_abstention(qa_service, catalog, tmp_path, metformin_dose,
                                                                  claim, cites, reason):
    answer = EngineAnswer(
        decision="answerable",
        blocks=[Block(title="Liều", kind="dosage", claims=[Claim(text=claim, citations=cites)])],
        citations=[_citation(1, metformin_dose, metformin_dose.text[:40])],
    )
    payload = scripted(qa_service, catalog, tmp_path, answer).ask("Liều metformin cho người lớn?")
    assert (payload.decision, payload.reason) == ("abstain", reason)
    assert payload.blocks == [] and payload.citations == []
    assert payload.message == MESSAGES[Reason(reason)]


@pytest.mark.integration
def test_citation_outside_the_fetched_evidence_is_invalid(qa_service, catalog, tmp_path):
    other = qa_service.retrieve_framed("warfarin", "lieu_luong_cach_dung").chunks[0]
    answer = EngineAnswer(
        decision="answerable",
        blocks=[Block(title="Liều", claims=[Claim(text="x", citations=[1])])],
        citations=[_citation(1, other, other.text[:30])],
    )
    payload = scripted(qa_service, catalog, tmp_path, answer).ask("Liều metformin cho người lớn?")
    assert payload.reason == "invalid_citation"


@pytest.mark.integration
def test_generative_without_a_model_is_provider_unavailable(qa_service, catalog, tmp_path):
    settings = Settings(data_dir=tmp_path, gguf_model=tmp_path / "no-model.gguf")  # the prepared default not used
    assistant = Assistant(qa_service, catalog=catalog, settings=settings, engine_name="generative")
    payload = assistant.ask("Chống chỉ định của metformin là gì?")
    assert (payload.decision, payload.reason, payload.engine) == ("abstain", "provider_unavailable", "generative")
    assert "không phải Dược thư thiếu dữ liệu" in payload.message
    # routing answers need no model
    assert assistant.ask("Xin chào").reason == "smalltalk"


@pytest.mark.integration
def test_parent_hydration_and_provenance_abstain(qa_book, catalog, tmp_path):
    from duocthu_desktop.retrieval.memory_store import InMemoryStore
    from duocthu_desktop.retrieval.service import RetrievalService

    monographs, chunks = qa_book
    no_contra = [c for c in chunks if not (c.drug_id == "metformin" and c.section_key == "chong_chi_dinh")]
    no_pages = [c.model_copy(update={"printed_pages": []}) if c.drug_id == "captopril" else c for c in chunks]
    for store_chunks, question, reason in (
        (no_contra, "Chống chỉ định của metformin là gì?", "parent_hydration_failed"),
        (no_pages, "Chống chỉ định của captopril là gì?", "missing_provenance"),
    ):
        service = RetrievalService(InMemoryStore(store_chunks), monographs)
        assistant = Assistant(service, catalog=catalog, settings=Settings(data_dir=tmp_path), engine_name="extractive")
        payload = assistant.ask(question)
        assert (payload.decision, payload.reason) == ("abstain", reason)
        assert payload.message == MESSAGES[Reason(reason)]
