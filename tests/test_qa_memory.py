"""Conversation memory: follow-ups merge into one self-contained frame; the clarify loop counted in the store;
a failing store means a turn without memory, not a crash."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

import pytest

from duocthu_desktop.qa.conversation.memory import (
    ConversationStore,
    Remembered,
    as_clarify_answer,
    is_follow_up,
    loop_exhausted,
    merge,
)
from duocthu_desktop.qa.pipeline import Assistant
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.qa.understanding.lab_values import LabValue
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
        store.save("c1", PRIOR, "clarify", "no_drug")
        prior = ConversationStore(path).load("c1")  # a fresh object: nothing kept in process memory
    assert prior is not None and prior.clarify_streak == 3 and loop_exhausted(prior)
    store.save("c1", PRIOR, "answerable", None)
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
        ConversationStore(path).save("x", PRIOR, "clarify", None)
        holder = sqlite3.connect(path)
        holder.execute("BEGIN EXCLUSIVE")
    else:
        path = _broken_stores(tmp_path)[kind]
        holder = None
    try:
        store = ConversationStore(path, timeout=0.05)
        assert store.load("x") is None
        assert store.save("x", PRIOR, "clarify", None) is False
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


# ---- every frame field survives a follow-up ---------------------------------------------------------

# What a follow-up does to each field of QueryFrame. A field added to QueryFrame fails
# test_merge_decides_every_frame_field until it is given a rule here and in memory.merge.
_PATIENT = {"age_years": 70.0, "age_text": "70 tuổi", "age_bound": "above", "population": "nguoi_cao_tuoi"}
FIELD_CASES: dict[str, tuple[dict, dict, object]] = {
    # field: (prior's values, the new turn's values, the merged value of the field)
    "question": ({}, {"question": "Uống"}, "Liều paracetamol cho trẻ em? Uống"),
    "turn_type": ({}, {"turn_type": "drug_attribute", "section_key": "chong_chi_dinh"}, "drug_attribute"),
    "drug_ids": ({}, {"drug_ids": ["metformin"]}, ["metformin"]),
    "drug_mentions": ({}, {"drug_ids": ["metformin"], "drug_mentions": {"metformin": "Glucophage XR"}},
                      {"metformin": "Glucophage XR"}),
    "unknown_drugs": ({"unknown_drugs": ["ibuprofen"]}, {"drug_ids": ["metformin"]}, []),
    "section_key": ({}, {"section_key": "chong_chi_dinh"}, "chong_chi_dinh"),
    "whole_section": ({}, {"section_key": "chong_chi_dinh", "whole_section": True}, True),
    "population": ({}, {"population": "so_sinh"}, "so_sinh"),
    "population_assumed": ({"population_assumed": True}, {"population": "tre_em"}, False),
    "age_years": ({}, {"age_years": 5.0}, 5.0),
    "age_text": ({}, {"age_years": 5.0, "age_text": "5 tuổi"}, "5 tuổi"),
    "gestational_weeks": ({}, {"age_years": 0.0, "gestational_weeks": 30.0}, 30.0),
    "weight_kg": ({}, {"weight_kg": 18.0}, 18.0),
    "weight_text": ({}, {"weight_kg": 18.0, "weight_text": "18 kg"}, "18 kg"),
    "route": ({}, {"route": "uong"}, "uong"),
    "clcr": ({}, {"clcr": 35.0, "renal_impairment": True}, 35.0),
    "condition": ({}, {"condition": "sốt"}, "sốt"),
    "pregnant": ({"pregnant": True}, {"route": "uong"}, True),
    "breastfeeding": ({}, {"breastfeeding": True}, True),
    "non_human": ({}, {"non_human": True}, True),
    "non_medical": ({}, {"non_medical": True}, True),
    "injection_attempt": ({"injection_attempt": True}, {"route": "uong"}, False),
    "drug_classes": ({}, {"drug_ids": ["metformin"], "drug_classes": ["NSAID"]}, ["NSAID"]),
    "follow_up": ({}, {"route": "uong"}, True),
    "trimester": ({}, {"pregnant": True, "trimester": 1}, 1),
    "renal_impairment": ({}, {"renal_impairment": True}, True),
    "hepatic_impairment": ({}, {"hepatic_impairment": True}, True),
    "age_bound": ({}, {"age_years": 16.0, "age_text": "16 tuổi", "age_bound": "below"}, "below"),
    "via_trade_name": ({"via_trade_name": {"paracetamol": "Hapacol"}},
                       {"drug_ids": ["metformin"], "via_trade_name": {"metformin": "Glucophage XR"}},
                       {"metformin": "Glucophage XR"}),
    "ranking": ({}, {"ranking": True}, True),
    "lab_values": ({"lab_values": [LabValue(analyte="kali", value=6.2, unit="mmol/l"),
                                   LabValue(analyte="inr", value=2.0)]},
                   {"lab_values": [LabValue(analyte="inr", value=4.5)]},
                   [LabValue(analyte="kali", value=6.2, unit="mmol/l"), LabValue(analyte="inr", value=4.5)]),
    "context_drugs": ({}, {"drug_ids": ["metformin"], "context_drugs": {"metformin": "ruled_out"}},
                      {"metformin": "ruled_out"}),
    "context_section": ({}, {"drug_ids": ["metformin"], "context_drugs": {"metformin": "ruled_out"},
                             "context_section": "chong_chi_dinh"}, "chong_chi_dinh"),
    "taking_names": ({"taking_names": ["aspirin"]}, {"drug_ids": ["metformin"], "taking_names": ["Warfarin"]},
                     ["Warfarin"]),
}


def test_merge_decides_every_frame_field():
    assert set(FIELD_CASES) == set(QueryFrame.model_fields)


@pytest.mark.parametrize("field", sorted(FIELD_CASES))
def test_a_follow_up_carries_the_new_turns_value(field: str):
    before, after, expected = FIELD_CASES[field]
    prior = PRIOR.model_copy(update=before)
    merged = merge(prior, QueryFrame(**after))
    assert getattr(merged, field) == expected


def test_a_follow_up_keeps_every_earlier_patient_fact():
    prior = QueryFrame(
        question="Liều Hapacol cho người 70 tuổi mang thai 3 tháng đầu suy thận suy gan, thuốc nào tốt nhất?",
        turn_type="dosing", drug_ids=["paracetamol"], drug_mentions={"paracetamol": "Hapacol"},
        via_trade_name={"paracetamol": "Hapacol"}, section_key="lieu_luong_cach_dung", pregnant=True, trimester=1,
        renal_impairment=True, hepatic_impairment=True, ranking=True, clcr=35.0, weight_kg=60.0, **_PATIENT,
    )
    merged = merge(prior, QueryFrame(question="Uống", route="uong"))
    for name in ("drug_ids", "via_trade_name", "drug_mentions", "pregnant", "trimester", "renal_impairment",
                 "hepatic_impairment", "ranking", "clcr", "weight_kg", "age_years", "age_text", "age_bound",
                 "population"):
        assert getattr(merged, name) == getattr(prior, name), name
    assert merged.route == "uong" and merged.follow_up


def test_a_new_age_drops_the_earlier_bound_and_a_normal_clcr_the_renal_flag():
    prior = QueryFrame(question="Liều?", drug_ids=["paracetamol"], turn_type="dosing", clcr=35.0,
                       renal_impairment=True, **_PATIENT)
    merged = merge(prior, QueryFrame(question="75 tuổi, Clcr 95", age_years=75.0, age_text="75 tuổi", clcr=95.0))
    assert merged.age_bound is None and merged.age_years == 75.0
    assert merged.clcr == 95.0 and not merged.renal_impairment


# ---- concurrent turns on one conversation ------------------------------------------------------------


class _SlowStore(ConversationStore):
    """Every turn has read the conversation before any turn writes it: the worst interleaving, every time."""

    def __init__(self, path: Path, barrier) -> None:
        super().__init__(path, timeout=5.0)
        self.barrier = barrier

    def load(self, conversation_id: str):
        found = super().load(conversation_id)
        self.barrier.wait(timeout=30)
        return found


@pytest.mark.integration
def test_concurrent_turns_on_one_conversation_lose_no_update(qa_service, catalog, tmp_path: Path):
    import threading

    threads_n = 3  # a fourth clarify in a row abstains (test_private_data_and_outages: five at once)
    barrier = threading.Barrier(threads_n)
    path = tmp_path / "conversations.sqlite3"
    payloads = []

    def turn() -> None:
        assistant = Assistant(qa_service, catalog=catalog, settings=Settings(data_dir=tmp_path),
                              engine_name="extractive", conversations=_SlowStore(path, barrier))
        payloads.append(assistant.ask("Cho tôi hỏi liều thuốc", "together"))

    threads = [threading.Thread(target=turn) for _ in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert [p.decision for p in payloads] == ["clarify"] * threads_n
    remembered = ConversationStore(path).load("together")
    assert (remembered.clarify_streak, remembered.turns) == (threads_n, threads_n)


def test_after_an_answer_a_turn_adding_to_the_patient_completes_the_question():
    """"Nếu bệnh nhân có suy gan nhẹ thì sao?" after a dose answer is about the same drug (issue 17: it was asked
    "Bạn hỏi về thuốc nào?")."""
    prior = Remembered(frame=QueryFrame(question="Escitalopram cho người lớn liều khởi đầu?",
                                        turn_type="dosing", drug_ids=["escitalopram"],
                                        section_key="lieu_luong_cach_dung", population="nguoi_lon"),
                       decision="answerable", reason=None, clarify_streak=0, turns=1)
    assert is_follow_up(QueryFrame(question="Nếu bệnh nhân có suy gan nhẹ thì sao?", hepatic_impairment=True),
                        prior)
    assert not is_follow_up(QueryFrame(question="Thuốc nào trị động kinh?", turn_type="condition_to_drug",
                                       condition="động kinh"), prior)


@pytest.mark.integration
def test_if_it_is_another_case_the_follow_up_names_the_condition(catalog):
    """"Nếu là phẫu thuật chỉnh hình lớn thì sao?" names the case, so it completes the last dose question."""
    from duocthu_desktop.qa.understanding.question import understand

    frame = understand("Nếu là phẫu thuật chỉnh hình lớn thì sao?", catalog)
    assert frame.condition == "phẫu thuật chỉnh hình lớn"


# ---- a follow-up that changes the patient's group drops the earlier group, age and weight ----------------


def _dosing(**facts) -> QueryFrame:
    return QueryFrame(question=facts.pop("question", "liều"), turn_type="dosing", **facts)


def test_follow_up_with_a_child_age_drops_the_adult_group() -> None:
    prior = _dosing(population="nguoi_lon", weight_kg=60, weight_text="60 kg", drug_ids=["aciclovir"])
    merged = merge(prior, QueryFrame(question="còn nếu bé 5 tuổi thì sao?", age_years=5, age_text="5 tuổi"))
    assert merged.population is None and merged.age_years == 5 and merged.weight_kg is None


def test_follow_up_with_a_new_child_age_keeps_the_child_group_and_weight() -> None:
    prior = _dosing(population="tre_em", age_years=8, weight_kg=25, weight_text="25 kg")
    merged = merge(prior, QueryFrame(question="còn nếu bé 14 tuổi thì sao?", age_years=14, age_text="14 tuổi"))
    assert (merged.population, merged.age_years, merged.weight_kg) == ("tre_em", 14, 25)


def test_follow_up_naming_adults_drops_the_childs_age_and_weight() -> None:
    prior = _dosing(population="tre_em", age_years=8, age_text="8 tuổi", weight_kg=25, weight_text="25 kg")
    merged = merge(prior, QueryFrame(question="còn người lớn thì sao?", population="nguoi_lon"))
    assert merged.population == "nguoi_lon" and merged.age_years is None and merged.weight_kg is None


# ---- a drug named as a fact of the patient does not replace the subject ---------------------------------


CLOPIDOGREL = QueryFrame(question="Liều nạp clopidogrel cho NSTEMI?", turn_type="dosing", drug_ids=["clopidogrel"],
                         drug_mentions={"clopidogrel": "clopidogrel"}, section_key="lieu_luong_cach_dung")


def test_a_drug_the_patient_cannot_take_keeps_the_earlier_drug_and_section():
    new = QueryFrame(question="Bệnh nhân dị ứng aspirin thì sao?", turn_type="drug_attribute",
                     drug_ids=["acid_acetylsalicylic"], drug_mentions={"acid_acetylsalicylic": "aspirin"},
                     section_key="chong_chi_dinh", context_drugs={"acid_acetylsalicylic": "ruled_out"})
    assert is_follow_up(new, remembered(CLOPIDOGREL, decision="answerable"))
    merged = merge(CLOPIDOGREL, new)
    assert merged.drug_ids == ["clopidogrel"] and merged.section_key == "lieu_luong_cach_dung"
    assert merged.turn_type == "dosing" and "dị ứng aspirin" in merged.question


def test_a_drug_the_patient_cannot_take_with_a_section_of_its_own_words_asks_that_section():
    new = QueryFrame(question="dị ứng aspirin thì có chống chỉ định không?", drug_ids=["acid_acetylsalicylic"],
                     section_key="chong_chi_dinh", context_drugs={"acid_acetylsalicylic": "ruled_out"},
                     context_section="chong_chi_dinh")
    merged = merge(CLOPIDOGREL, new)
    assert merged.drug_ids == ["clopidogrel"] and merged.section_key == "chong_chi_dinh"
    assert merged.turn_type == "drug_attribute"


def test_a_drug_the_patient_already_takes_asks_its_interaction_with_the_earlier_drug():
    new = QueryFrame(question="Bệnh nhân đang dùng warfarin thì sao?", drug_ids=["warfarin"],
                     drug_mentions={"warfarin": "warfarin"}, context_drugs={"warfarin": "taking"})
    assert is_follow_up(new, remembered(CLOPIDOGREL, decision="answerable"))
    merged = merge(CLOPIDOGREL, new)
    assert merged.drug_ids == ["clopidogrel", "warfarin"] and merged.turn_type == "interaction"
    assert merged.section_key == "tuong_tac_thuoc"


def test_a_drug_asked_about_in_its_own_right_still_replaces_the_subject():
    new = QueryFrame(question="Còn aspirin thì sao?", drug_ids=["acid_acetylsalicylic"])
    merged = merge(CLOPIDOGREL, new)
    assert merged.drug_ids == ["acid_acetylsalicylic"] and merged.context_drugs == {}



@pytest.mark.integration
def test_an_indication_said_alone_after_a_dose_answer_chooses_among_its_doses(fresh_assistant: Assistant):
    """The sample book prints the children's oral amoxicilin doses under 'Nhiễm khuẩn nhẹ, vừa' and 'Nhiễm khuẩn
    nặng' (among others): naming one after the answer narrows that answer, it is not a question with no drug."""
    cid = "bare-indication"
    first = fresh_assistant.ask("Liều amoxicilin uống cho trẻ 6 tuổi nặng 20 kg?", cid)
    assert first.decision == "answerable"
    second = fresh_assistant.ask("nhiễm khuẩn nặng", cid)
    text = "\n".join(c.text for b in second.blocks for c in b.claims)
    assert second.decision == "answerable"
    assert "40 mg/kg/ngày cách 8 giờ/lần" in text and "20 mg/kg/ngày cách 8 giờ/lần" not in text
    # words that name none of the drug's printed indications are not taken for one
    other = fresh_assistant.ask("Liều amoxicilin uống cho trẻ 6 tuổi nặng 20 kg?", "bare-other")
    assert other.decision == "answerable"
    assert fresh_assistant.ask("viêm phổi", "bare-other").reason == "no_drug"


def test_an_organism_inside_the_condition_is_no_new_subject():
    """'... viêm đại tràng do Clostridium difficile ...' after a vancomycin question: the organism of the case
    is not a drug the book lacks, so the turn completes the question (a drug named outside it starts anew)."""
    prior = QueryFrame(question="Liều vancomycin?", turn_type="dosing", drug_ids=["vancomycin"],
                       section_key="lieu_luong_cach_dung")
    new = QueryFrame(question="đường uống trị viêm đại tràng do Clostridium difficile ở người lớn, liều mỗi ngày?",
                     turn_type="dosing", section_key="lieu_luong_cach_dung", population="nguoi_lon", route="uong",
                     condition="viêm đại tràng do clostridium difficile", unknown_drugs=["Clostridium"])
    assert is_follow_up(new, remembered(PRIOR, "answerable", None, 0))
    assert merge(prior, new).drug_ids == ["vancomycin"]
    other = new.model_copy(update={"unknown_drugs": ["rosuvastatin"]})
    assert not is_follow_up(other, remembered(PRIOR, "answerable", None, 0))


def test_a_medicine_without_a_monograph_the_patient_takes_is_no_new_subject():
    """'bn này đang uống pimozid' after a dose of thuốc A: a medicine the book lacks, said to be taken, is a fact of
    the patient; thuốc A stays the subject, the name is what its warnings are searched for."""
    prior = QueryFrame(question="thuốc A trầm cảm người lớn bắt đầu bao nhiêu", turn_type="dosing",
                       drug_ids=["thuoc_a"], section_key="lieu_luong_cach_dung")
    taking = QueryFrame(question="bn này đang uống Zolpex", turn_type="unknown", unknown_drugs=["Zolpex"],
                        taking_names=["Zolpex"], route="uong")
    assert is_follow_up(taking, remembered(prior, "answerable", None, 0))
    merged = merge(prior, taking)
    assert merged.drug_ids == ["thuoc_a"] and merged.taking_names == ["Zolpex"]
    asked = taking.model_copy(update={"question": "còn Zolpex thì sao", "taking_names": []})
    assert merge(prior, asked).drug_ids == [] and merge(prior, asked).unknown_drugs == ["Zolpex"]  # asked about


def test_an_unknown_name_after_a_taking_cue_is_a_medicine_taken():
    from duocthu_desktop.artifacts import Monograph
    from duocthu_desktop.qa.understanding.catalog import Catalog
    from duocthu_desktop.qa.understanding.question import understand

    cat = Catalog([Monograph(drug_id="thuoc_a", title="THUỐC A", start_physical=1, end_physical=1, start_printed=1,
                                end_printed=1)], [])
    assert understand("bn đang uống cả Zolpex, 2 thuốc uống cách nhau sao", cat).taking_names == ["Zolpex"]
    assert understand("bn nay dang dung Zolpex", cat).taking_names == ["Zolpex"]
    assert understand("liều thuốc X123 cho người lớn?", cat).taking_names == []


def test_a_follow_up_about_a_travellers_diarrhoea_is_a_clinical_question(catalog):
    """The book's own indication 'Ỉa chảy ở khách du lịch' names travel: asked with a group and a dose, naming no
    drug (a follow-up), it is no question off the subject."""
    from duocthu_desktop.qa.understanding.question import understand

    frame = understand("Ỉa chảy ở khách du lịch mức độ nhẹ, người lớn uống bao nhiêu?", catalog)
    assert not frame.non_medical and frame.turn_type != "out_of_scope"
    assert understand("Đi du lịch Đà Nẵng mùa này có đẹp không?", catalog).non_medical


def test_a_bare_phrase_is_a_condition_only_when_the_drug_prints_it_as_one_run():
    from duocthu_desktop.qa.pipeline import _printed_as_a_run

    texts = ["Điều trị trầm cảm nặng và rối loạn lo âu lan tỏa.", "Người lớn: 10 mg/ngày."]
    assert _printed_as_a_run("trầm cảm", texts) and _printed_as_a_run("tram cam", texts)
    assert _printed_as_a_run("rối loạn lo âu", texts)
    assert not _printed_as_a_run("cảm trầm", texts)  # the words, not in the book's order
    assert not _printed_as_a_run("trầm cảm nhẹ", texts)
    assert not _printed_as_a_run("và", texts)  # one short word is no condition
    assert not _printed_as_a_run("10 mg", texts)


def test_a_route_given_after_a_route_clarify_answers_it_whatever_its_asking_words():
    """"Bạn dùng đường nào?" answered "tiêm bắp được không?": the dose question stands, with that route (the
    may-I words would otherwise read as the contraindications)."""
    prior = remembered(PRIOR.model_copy(update={"population": "nguoi_lon"}), reason="missing_route")
    new = QueryFrame(question="tiêm bắp được không?", turn_type="drug_attribute", section_key="chong_chi_dinh",
                     route="tiem_bap")
    merged = merge(prior.frame, as_clarify_answer(new, prior))
    assert merged.section_key == "lieu_luong_cach_dung" and merged.turn_type == "dosing"
    assert merged.route == "tiem_bap" and merged.drug_ids == ["paracetamol"]
    # after an answer, or naming another drug, the turn is its own question
    answered = remembered(prior.frame, decision="answerable")
    assert as_clarify_answer(new, answered) is new
    other = new.model_copy(update={"drug_ids": ["ibuprofen"]})
    assert as_clarify_answer(other, prior) is other


def test_an_amount_asked_after_what_do_you_want_to_know_is_the_dose():
    prior = remembered(QueryFrame(question="carbamazepin", drug_ids=["carbamazepin"], turn_type="unknown"),
                       reason="missing_attribute")
    new = QueryFrame(question="bệnh nhân 30 tuổi thì tối đa 1 ngày bao nhiêu?", age_years=30.0,
                     population="nguoi_lon")
    merged = merge(prior.frame, as_clarify_answer(new, prior))
    assert merged.section_key == "lieu_luong_cach_dung" and merged.turn_type == "dosing"
    assert merged.drug_ids == ["carbamazepin"] and merged.age_years == 30.0


ADULT_CYSTITIS = QueryFrame(question="thuốc A viêm bàng quang người lớn uống sao", turn_type="dosing",
                            drug_ids=["thuoc_a"], drug_mentions={"thuoc_a": "thuốc A"},
                            section_key="lieu_luong_cach_dung", population="nguoi_lon", condition="viêm bàng quang")


def test_a_turn_naming_no_drug_that_speaks_of_the_patient_goes_on_with_the_drug_just_answered():
    after_answer = remembered(ADULT_CYSTITIS, decision="answerable")
    for said in ("bn đã cắt tử cung, muốn dùng miếng dán", "còn bn lọc màng bụng thì sao",
                 "nếu đang hồi tỉnh sau mê"):
        new = QueryFrame(question=said, turn_type="unknown")
        assert is_follow_up(new, after_answer), said
        merged = merge(ADULT_CYSTITIS, new)
        assert merged.drug_ids == ["thuoc_a"] and merged.section_key == "lieu_luong_cach_dung"
    # bare words may open a new question: not taken for one about the drug just answered
    assert not is_follow_up(QueryFrame(question="viêm phổi", turn_type="unknown"), after_answer)
    # nor after a refusal
    assert not is_follow_up(QueryFrame(question="còn bn này thì sao", turn_type="unknown"),
                            remembered(ADULT_CYSTITIS, decision="abstain"))


def test_switching_to_another_drug_keeps_the_patient_and_the_case():
    new = QueryFrame(question="neu doi sang thuoc B thi lieu the nao", turn_type="dosing", drug_ids=["thuoc_b"],
                     drug_mentions={"thuoc_b": "thuoc B"}, section_key="lieu_luong_cach_dung")
    after_answer = remembered(ADULT_CYSTITIS, decision="answerable")
    assert is_follow_up(new, after_answer)
    merged = merge(ADULT_CYSTITIS, new)
    assert merged.drug_ids == ["thuoc_b"] and merged.population == "nguoi_lon"
    assert merged.condition == "viêm bàng quang"
    # the same words with no switch: a whole new question about thuốc B
    fresh = new.model_copy(update={"question": "lieu thuoc B the nao"})
    assert not is_follow_up(fresh, after_answer)


def test_a_turn_speaking_of_the_case_in_words_alone_is_told_from_one_giving_facts() -> None:
    from duocthu_desktop.qa.conversation.memory import adds_only_words

    assert adds_only_words(QueryFrame(question="Bệnh nhân nặng, vật vã", turn_type="unknown"))
    assert not adds_only_words(QueryFrame(question="bệnh nhân 30 kg", turn_type="unknown", weight_kg=30))
    assert not adds_only_words(QueryFrame(question="bn suy gan", turn_type="unknown", hepatic_impairment=True))
    assert not adds_only_words(QueryFrame(question="nặng, vật vã", turn_type="unknown"))  # speaks of no one


def test_a_group_said_later_replaces_the_adults_read_from_bệnh_nhân():
    assumed = ADULT_CYSTITIS.model_copy(update={"population_assumed": True})
    for said, facts in (("trẻ em", {"population": "tre_em"}), ("bé 5 tuổi", {"age_years": 5.0}),
                        ("nặng 18 kg", {"weight_kg": 18.0})):
        merged = merge(assumed, QueryFrame(question=said, turn_type="unknown", **facts))
        assert not merged.population_assumed, said
    # a turn that says nothing of the group keeps the reading, and the answer keeps saying so
    assert merge(assumed, QueryFrame(question="còn suy thận thì sao", turn_type="unknown")).population_assumed


def test_a_follow_up_naming_another_case_of_a_family_replaces_the_earlier_case():
    merged = merge(QueryFrame(question="epoetin cho bn đang chạy thận nhân tạo, liều khởi đầu?", turn_type="dosing"),
                   QueryFrame(question="còn bn lọc màng bụng thì sao", turn_type="unknown"))
    assert "nhân tạo" not in merged.question and "lọc màng bụng" in merged.question
