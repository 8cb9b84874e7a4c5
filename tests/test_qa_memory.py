"""Conversation memory: follow-ups merge into one self-contained frame; the clarify loop counted in the store;
a failing store means a turn without memory, not a crash."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

import pytest

from duocthu_desktop.qa.frame import QueryFrame
from duocthu_desktop.qa.memory import ConversationStore, Remembered, is_follow_up, loop_exhausted, merge
from duocthu_desktop.qa.pipeline import Assistant
from duocthu_desktop.settings import Settings


def remembered(frame: QueryFrame, decision: str = "clarify", reason: str | None = None, streak: int = 1):
    return Remembered(frame=frame, decision=decision, reason=reason, clarify_streak=streak, turns=1)


PRIOR = QueryFrame(
    question="Liều paracetamol cho trẻ em?",
    turn_type="dosing",
    drug_ids=["paracetamol"],
    section_key="lieu_luong_cach_dung",
    population="tre_em",
)


def test_merge_completes_the_earlier_question():
    new = QueryFrame(question="Bé nặng 18 kg", population="tre_em", weight_kg=18.0, weight_text="18 kg")
    assert is_follow_up(new, remembered(PRIOR))
    merged = merge(PRIOR, new)
    assert merged.drug_ids == ["paracetamol"] and merged.turn_type == "dosing"
    assert merged.weight_kg == 18.0 and merged.follow_up
    assert merged.question == "Liều paracetamol cho trẻ em? Bé nặng 18 kg"
    again = merge(
        merged, QueryFrame(question="Bé 5 tuổi, uống", age_years=5.0, age_text="5 tuổi", route="uong")
    )
    assert (again.weight_kg, again.age_years, again.route) == (18.0, 5.0, "uong")


def test_a_new_drug_fills_a_question_without_one():
    prior = QueryFrame(
        question="Cho tôi hỏi liều thuốc", turn_type="dosing", section_key="lieu_luong_cach_dung"
    )
    new = QueryFrame(question="metformin", drug_ids=["metformin"])
    assert is_follow_up(new, remembered(prior, reason="no_drug"))
    merged = merge(prior, new)
    assert merged.drug_ids == ["metformin"] and merged.turn_type == "dosing"


def test_a_whole_new_question_is_not_merged():
    new = QueryFrame(
        question="Chống chỉ định của metformin?",
        turn_type="drug_attribute",
        drug_ids=["metformin"],
        section_key="chong_chi_dinh",
    )
    assert not is_follow_up(new, remembered(PRIOR))
    assert not is_follow_up(QueryFrame(question="Xin chào", turn_type="smalltalk"), remembered(PRIOR))
    # after a refusal there is nothing to complete
    assert not is_follow_up(
        QueryFrame(question="uống", route="uong"), remembered(PRIOR, "abstain", "out_of_scope", 0)
    )


def test_condition_clarify_takes_the_next_turn_as_the_condition():
    prior = QueryFrame(
        question="Thuốc nào được chỉ định?", turn_type="condition_to_drug", section_key="chi_dinh"
    )
    merged = merge(prior, QueryFrame(question="tăng huyết áp"))
    assert merged.turn_type == "condition_to_drug" and merged.condition == "tăng huyết áp"


def test_clarify_streak_lives_in_the_store(tmp_path: Path):
    path = tmp_path / "c.sqlite3"
    store = ConversationStore(path)
    prior = None
    for _ in range(3):
        store.save("c1", PRIOR, "clarify", "no_drug", prior)
        prior = ConversationStore(path).load("c1")  # a fresh object: nothing kept in process memory
    assert prior is not None and prior.clarify_streak == 3 and loop_exhausted(prior)
    store.save("c1", PRIOR, "answerable", None, prior)
    assert ConversationStore(path).load("c1").clarify_streak == 0
    assert not loop_exhausted(ConversationStore(path).load("c1"))
    assert store.load("other") is None


@pytest.fixture()
def fresh_assistant(qa_service, catalog, tmp_path: Path) -> Assistant:
    return Assistant(
        qa_service, catalog=catalog, settings=Settings(data_dir=tmp_path), engine_name="extractive"
    )


@pytest.mark.integration
def test_multiturn_pediatric_dose(fresh_assistant: Assistant):
    cid = "peds"
    first = fresh_assistant.ask("Liều paracetamol cho trẻ em?", cid)
    second = fresh_assistant.ask("Bé nặng 18 kg", cid)
    third = fresh_assistant.ask("Bé 5 tuổi, uống", cid)
    assert first.reason == second.reason == "missing_pediatric_age_or_weight"
    assert "18 kg" in second.message and "tuổi" in second.message
    assert third.decision == "answerable"
    text = "\n".join(c.text for b in third.blocks for c in b.claims)
    assert "240 mg" in text and "480 - 750 mg" not in text


@pytest.mark.integration
def test_route_follow_up_after_missing_route(fresh_assistant: Assistant):
    first = fresh_assistant.ask("Liều paracetamol cho người lớn?", "route")
    assert first.reason == "missing_route"
    second = fresh_assistant.ask("Uống", "route")
    assert second.decision == "answerable"
    assert "0,5 - 1 g/lần" in "\n".join(c.text for b in second.blocks for c in b.claims)


@pytest.mark.integration
def test_fourth_clarify_in_a_row_abstains_across_assistants(qa_service, catalog, tmp_path: Path):
    def new_assistant():
        return Assistant(
            qa_service, catalog=catalog, settings=Settings(data_dir=tmp_path), engine_name="extractive"
        )

    cid = f"loop-{uuid.uuid4().hex}"
    decisions = [new_assistant().ask(t, cid) for t in ("Cho tôi hỏi liều thuốc", "không biết", "không rõ")]
    assert [p.decision for p in decisions] == ["clarify"] * 3
    fourth = new_assistant().ask("tôi không biết", cid)
    assert (fourth.decision, fourth.reason) == ("abstain", "clarify_loop_exhausted")


@pytest.mark.integration
def test_another_decision_resets_the_count(fresh_assistant: Assistant):
    cid = "reset"
    fresh_assistant.ask("Cho tôi hỏi liều thuốc", cid)
    fresh_assistant.ask("không biết", cid)
    assert fresh_assistant.ask("Xin chào", cid).reason == "smalltalk"
    assert fresh_assistant.ask("Chống chỉ định là gì?", cid).decision == "clarify"
    assert fresh_assistant.ask("không rõ", cid).decision == "clarify"
    assert fresh_assistant.ask("không biết", cid).decision == "clarify"


def _broken_stores(tmp_path: Path) -> dict[str, Path]:
    corrupt = tmp_path / "corrupt.sqlite3"
    corrupt.write_bytes(b"this is not a database" * 100)
    directory = tmp_path / "a-directory.sqlite3"
    directory.mkdir()
    return {"corrupt": corrupt, "directory": directory}


@pytest.mark.integration
@pytest.mark.parametrize("kind", ["corrupt", "directory", "locked"])
def test_store_failure_is_a_turn_without_memory(qa_service, catalog, tmp_path: Path, kind: str):
    if kind == "locked":
        path = tmp_path / "locked.sqlite3"
        ConversationStore(path).save("x", PRIOR, "clarify", None, None)
        holder = sqlite3.connect(path)
        holder.execute("BEGIN EXCLUSIVE")
    else:
        path = _broken_stores(tmp_path)[kind]
        holder = None
    try:
        store = ConversationStore(path, timeout=0.05)
        assert store.load("x") is None
        assert store.save("x", PRIOR, "clarify", None, None) is False
        assistant = Assistant(
            qa_service,
            catalog=catalog,
            settings=Settings(data_dir=tmp_path),
            engine_name="extractive",
            conversations=store,
        )
        payload = assistant.ask("Chống chỉ định của metformin là gì?", "x")
        assert payload.decision == "answerable"
    finally:
        if holder is not None:
            holder.rollback()
            holder.close()
