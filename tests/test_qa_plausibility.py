"""Implausible patient values are asked back, never answered in silence; numbers no float can hold never crash;
a question with undecodable bytes still ends in a payload that is traced and remembered (issue 8)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from duocthu_desktop.messages import DISCLAIMER
from duocthu_desktop.payload import AnswerPayload, Reason
from duocthu_desktop.qa.decision_table import route
from duocthu_desktop.qa.pipeline import MAX_QUESTION_CHARS, Assistant
from duocthu_desktop.qa.understanding import plausibility
from duocthu_desktop.qa.understanding.catalog import Catalog
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.qa.understanding.question import understand, valid_text
from duocthu_desktop.retrieval.memory_store import InMemoryStore
from duocthu_desktop.retrieval.service import RetrievalService
from duocthu_desktop.settings import Settings
from tests.retrieval_samples import sample_chunks, sample_monographs

DIGITS_310 = "9" * 310


class ChildDoses:
    """Scripted DosingFacts: a child's doses differ by age, so a child with no age is asked for it."""

    def missing_dose_fact(self, frame: QueryFrame) -> str | None:
        return "age_or_weight" if frame.population == "tre_em" and frame.age_years is None else None


def _frame(**facts) -> QueryFrame:
    return QueryFrame(turn_type="dosing", drug_ids=["paracetamol"], section_key="lieu_luong_cach_dung", **facts)


# ---- the bounds ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("facts", "expected"),
    [
        ({"weight_kg": 0.3}, []),
        ({"weight_kg": 300.0}, []),
        ({"weight_kg": 0.29}, ["weight"]),
        ({"weight_kg": 0.0}, ["weight"]),
        ({"weight_kg": 300.5}, ["weight"]),
        ({"weight_kg": float("inf")}, ["weight"]),
        ({"weight_kg": float("nan")}, ["weight"]),
        ({"age_years": 0.0}, []),
        ({"age_years": 130.0}, []),
        ({"age_years": 131.0}, ["age"]),
        ({"clcr": 0.0}, []),
        ({"clcr": 200.0}, []),
        ({"clcr": 201.0}, ["clcr"]),
        ({"clcr": -1.0}, ["clcr"]),
        ({"weight_kg": 5000.0, "age_years": 200.0, "clcr": 500.0}, ["weight", "age", "clcr"]),
    ],
)
def test_implausible_values_at_the_bounds(facts: dict, expected: list[str]) -> None:
    assert plausibility.implausible(_frame(**facts)) == expected


def test_bounds_are_the_issues() -> None:
    assert (plausibility.WEIGHT_KG_MIN, plausibility.WEIGHT_KG_MAX) == (0.3, 300.0)
    assert plausibility.AGE_YEARS_MAX == 130.0
    assert (plausibility.CLCR_MIN, plausibility.CLCR_MAX) == (0.0, 200.0)


def test_a_number_out_of_scope_is_no_patient_value() -> None:
    frame = QueryFrame(turn_type="out_of_scope", non_medical=True, weight_kg=5000.0, weight_text="5000 kg")
    assert plausibility.implausible(frame) == []
    assert plausibility.clarify_message(frame) is None


def test_the_question_repeats_what_was_read() -> None:
    msg = plausibility.clarify_message(_frame(weight_kg=5000.0, weight_text="5000 kg"))
    assert msg is not None and msg.startswith("Cân nặng đọc được là 5000 kg, có đúng không?")
    both = plausibility.clarify_message(_frame(weight_kg=5000.0, weight_text="5000 kg", age_years=200.0,
                                               age_text="200 tuổi", clcr=500.0))
    assert both is not None
    assert "5000 kg" in both and "200 tuổi" in both and "500 ml/phút" in both
    assert plausibility.clarify_message(_frame(weight_kg=50.0, weight_text="50 kg")) is None


def test_a_run_of_digits_is_repeated_cut() -> None:
    msg = plausibility.clarify_message(_frame(weight_kg=float("inf"), weight_text=f"{DIGITS_310} kg"))
    assert msg is not None and "999999999999… kg" in msg and DIGITS_310 not in msg
    huge_clcr = plausibility.clarify_message(_frame(clcr=float("inf")))
    assert huge_clcr is not None and "inf" not in huge_clcr and "chữ số" in huge_clcr


# ---- the routing row ------------------------------------------------------------------------------------------


def test_routing_asks_back_before_any_other_row() -> None:
    child = _frame(population="tre_em", weight_kg=5000.0, weight_text="5000 kg")  # no age: the child row would ask
    decision = route(child, ChildDoses())
    assert decision.rule == "implausible_patient_value"
    assert decision.action == "clarify" and decision.reason == Reason.NEEDS_MORE_INFO
    assert "5000 kg" in decision.message
    assert decision.warn_first is False  # no warnings chosen from a value the person is asked to confirm
    plausible = route(_frame(population="tre_em", weight_kg=18.0, weight_text="18 kg"), ChildDoses())
    assert plausible.rule == "child_without_age_or_weight"


# ---- reading numbers no float holds ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_catalog() -> Catalog:
    return Catalog(sample_monographs(), sample_chunks())


def test_a_310_digit_weight_is_read_without_overflow(small_catalog: Catalog) -> None:
    frame = understand(f"Liều paracetamol cho trẻ nặng {DIGITS_310} kg", small_catalog)
    assert frame.weight_text == f"{DIGITS_310} kg"  # the person's digits, not "inf"
    assert plausibility.implausible(frame) == ["weight"]


def test_a_tiny_weight_keeps_its_digits(small_catalog: Catalog) -> None:
    frame = understand("Liều paracetamol cho trẻ nặng 0,0000001 kg", small_catalog)
    assert frame.weight_text == "0,0000001 kg"  # never "1e-07 kg"
    assert frame.weight_kg == pytest.approx(1e-7)


@pytest.mark.parametrize(
    "question",
    [
        f"Liều paracetamol cho trẻ {DIGITS_310} tuổi",
        f"paracetamol cho bệnh nhân Clcr {DIGITS_310} ml/phút",
        "Dùng paracetamol khi mang thai " + "9" * 5000 + " tuần được không?",  # int() refuses > 4300 digits
        "Liều paracetamol cho trẻ 10^400 kg",
    ],
)
def test_huge_numbers_never_raise(small_catalog: Catalog, question: str) -> None:
    understand(question, small_catalog)


# ---- the whole turn over the real sample book -----------------------------------------------------------------


@pytest.fixture(scope="module")
def book_assistant(qa_book, catalog, tmp_path_factory: pytest.TempPathFactory) -> Assistant:
    monographs, chunks = qa_book
    service = RetrievalService(InMemoryStore(chunks), monographs)
    data = tmp_path_factory.mktemp("plausibility-data")
    return Assistant(service, catalog=catalog, settings=Settings(data_dir=data), engine_name="extractive")


@pytest.mark.parametrize(
    ("question", "read"),
    [
        ("Liều paracetamol uống cho trẻ 6 tuổi nặng 5000 kg?", "Cân nặng đọc được là 5000 kg"),
        ("Liều paracetamol uống cho trẻ 6 tuổi nặng 0 kg?", "Cân nặng đọc được là 0 kg"),
        ("Liều paracetamol uống cho người 200 tuổi?", "Tuổi đọc được là 200 tuổi"),
        ("Liều paracetamol uống cho bé 2000 tháng?", "Tuổi đọc được là 2000 tháng,"),
        ("Liều amoxicilin uống cho người lớn suy thận Clcr 500 ml/phút?", "đọc được là 500 ml/phút"),
        (f"Liều paracetamol uống cho trẻ 6 tuổi nặng {DIGITS_310} kg?", "Cân nặng đọc được là 999999999999… kg"),
    ],
)
def test_an_implausible_value_is_asked_back(book_assistant: Assistant, question: str, read: str) -> None:
    payload = book_assistant.ask(question)
    assert payload.decision == "clarify" and payload.reason == Reason.NEEDS_MORE_INFO.value
    assert read in payload.message and "có đúng không?" in payload.message
    assert not payload.blocks and not payload.citations  # no dose, and no warning chosen from a doubted value
    assert payload.disclaimer == DISCLAIMER


def test_an_old_patients_warnings_wait_for_a_plausible_age(book_assistant: Assistant) -> None:
    question = "Liều acid acetylsalicylic uống cho người {} tuổi?"
    assert book_assistant.ask(question.format(70)).blocks  # an older adult: the book's warnings come first
    doubted = book_assistant.ask(question.format(200))
    assert doubted.decision == "clarify" and not doubted.blocks


def test_the_corrected_value_answers(book_assistant: Assistant) -> None:
    first = book_assistant.ask("Liều paracetamol uống cho trẻ 6 tuổi nặng 5000 kg?", conversation_id="typo")
    assert first.reason == Reason.NEEDS_MORE_INFO.value
    second = book_assistant.ask("nặng 20 kg", conversation_id="typo")
    assert second.decision in ("answerable", "verify_pdf") and second.blocks  # the dose for 20 kg
    assert "5000" not in second.message


# ---- undecodable bytes through the library --------------------------------------------------------------------

BAD_BYTES = b"Li\xe1\xbb\x81u paracetamol cho ng\xc6\xb0\xe1\xbb\x9di l\xe1\xbb\x9bn \xff\xfe\xc3"


def test_valid_text_keeps_the_good_bytes() -> None:
    cleaned = valid_text(os.fsdecode(BAD_BYTES))
    assert cleaned.startswith("Liều paracetamol cho người lớn") and cleaned.endswith("\ufffd")
    cleaned.encode("utf-8")
    assert valid_text("a\ud800b").encode("utf-8") and valid_text("liều") == "liều"


def test_undecodable_bytes_are_answered_traced_and_remembered(tmp_path: Path) -> None:
    service = RetrievalService(InMemoryStore(sample_chunks()), sample_monographs())
    assistant = Assistant(service, settings=Settings(data_dir=tmp_path), engine_name="extractive")
    payload = assistant.ask(os.fsdecode(BAD_BYTES), conversation_id=os.fsdecode(b"c\xff"))
    AnswerPayload.model_validate_json(payload.model_dump_json())
    assert payload.disclaimer == DISCLAIMER
    traced = assistant.traces.recent()
    assert len(traced) == 1 and traced[0]["question"].startswith("Liều paracetamol")
    assert assistant.conversations.load(valid_text(os.fsdecode(b"c\xff"))) is not None


def test_a_pasted_document_is_asked_back_not_read(book_assistant: Assistant) -> None:
    """Past MAX_QUESTION_CHARS the turn is a clarify that says how long it was and what to ask, at once, and
    nothing of it is kept (a 2.4 MB paste took minutes to read before)."""
    question = "Liều paracetamol cho người lớn uống? " + "chữ " * 1_000_000
    start = time.perf_counter()
    payload = book_assistant.ask(question, "paste")
    assert time.perf_counter() - start < 5
    assert (payload.decision, payload.reason) == ("clarify", "needs_more_info")
    assert str(len(question)) in payload.message and str(MAX_QUESTION_CHARS) in payload.message
    assert payload.blocks == [] and payload.disclaimer
