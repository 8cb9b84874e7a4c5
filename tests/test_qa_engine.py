"""The extractive engine over the sample book's real chunks: the eval's dosing, interaction, condition, table
and section cases, each answer verbatim, cited to the right printed page and passing grounding.verify."""

from __future__ import annotations

import pytest

from duocthu_desktop import messages
from duocthu_desktop.artifacts import Chunk, Monograph
from duocthu_desktop.qa.answers.engine_extractive import ExtractiveEngine, page_of
from duocthu_desktop.qa.answers.engine_types import AnswerEngine, EngineAnswer
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.qa.verification.grounding import verify
from duocthu_desktop.retrieval.types import IndicationHit, SectionResult
from duocthu_desktop.text import fold

pytestmark = pytest.mark.integration
ENGINE = ExtractiveEngine()


def _section(chunks: list[Chunk], drug: str, key: str) -> SectionResult:
    part = sorted(
        (c for c in chunks if c.drug_id == drug and c.section_key == key), key=lambda c: c.part_index
    )
    return SectionResult(drug_id=drug, section_key=key, chunks=part)


def _mono(monographs: list[Monograph], drug: str) -> Monograph:
    return next(m for m in monographs if m.drug_id == drug)


def _claims(answer: EngineAnswer) -> str:
    return "\n".join(c.text for b in answer.blocks for c in b.claims)


def _check_grounded(answer: EngineAnswer, chunks: list[Chunk]) -> None:
    """0 ungrounded numbers, 0 uncited claims, each claim verbatim in the chunk it cites, pages from the chunk."""
    by_id = {c.chunk_id: c for c in chunks}
    assert verify(answer.blocks, answer.citations, {c.chunk_id: c.text for c in chunks}) == []
    cited = {c.index: c for c in answer.citations}
    for block in answer.blocks:
        assert block.title
        for claim in block.claims:
            assert claim.citations
            for i in claim.citations:
                citation = cited[i]
                chunk = by_id[citation.chunk_id]
                assert claim.text in chunk.text and citation.quote in chunk.text
                assert citation.printed_page in chunk.printed_pages
                assert citation.physical_page in chunk.physical_pages


# The patient of the issue's own example: "Liều paracetamol cho bé 5 tuổi nặng 18 kg", by mouth.
CHILD_5Y_18KG_ORAL = {"population": "tre_em", "age_years": 5, "weight_kg": 18, "route": "uong"}


def _dose(chunks, monographs, drug, **frame) -> EngineAnswer:
    answer = ENGINE.answer_section(
        QueryFrame(turn_type="dosing", section_key="lieu_luong_cach_dung", **frame),
        _section(chunks, drug, "lieu_luong_cach_dung"),
        _mono(monographs, drug),
    )
    _check_grounded(answer, chunks)
    return answer


def test_engine_satisfies_the_protocol() -> None:
    engine: AnswerEngine = ENGINE
    assert engine.name == "extractive"


def test_dose_metformin_adult(sample_chunks, sample_monographs) -> None:
    a = _dose(
        sample_chunks,
        sample_monographs,
        "metformin",
        question="Liều khởi đầu metformin cho người lớn?",
        population="nguoi_lon",
    )
    assert a.decision == "answerable" and "500 mg" in _claims(a) and "850 mg" in _claims(a)
    assert all(b.kind == "dosage" for b in a.blocks)
    assert {c.drug_id for c in a.citations} == {"metformin"}


def test_dose_metformin_child(sample_chunks, sample_monographs) -> None:
    a = _dose(sample_chunks, sample_monographs, "metformin", population="tre_em", age_years=12, weight_kg=45)
    assert a.decision == "answerable" and "10 - 16 tuổi" in _claims(a) and "500 mg" in _claims(a)


def test_dose_paracetamol_adult_without_route_clarifies(sample_chunks, sample_monographs) -> None:
    a = _dose(sample_chunks, sample_monographs, "paracetamol", population="nguoi_lon")
    assert (a.decision, a.reason) == ("clarify", "missing_route")
    replies = " ".join(a.quick_replies).lower()
    assert "uống" in replies and "trực tràng" in replies and "tĩnh mạch" in replies
    assert a.blocks == [] and a.citations == []


def test_dose_paracetamol_adult_oral(sample_chunks, sample_monographs) -> None:
    a = _dose(sample_chunks, sample_monographs, "paracetamol", population="nguoi_lon", route="uong")
    text = _claims(a)
    assert a.decision == "answerable" and "0,5 - 1 g/lần" in text and "4 g/ngày" in text
    assert "15 mg/kg" not in text


def test_dose_paracetamol_child_five_years_oral(sample_chunks, sample_monographs) -> None:
    a = _dose(sample_chunks, sample_monographs, "paracetamol", **CHILD_5Y_18KG_ORAL)
    assert "240 mg" in _claims(a) and "480 - 750 mg" not in _claims(a)
    block = next(b for b in a.blocks if any(c.text == "Trẻ em 4 - 6 tuổi: 240 mg" for c in b.claims))
    # the title is composed from the row's typed fields: the group and the route; the band is in the claim
    assert "Trẻ em" in block.title and "uống" in block.title and "Người lớn" not in block.title


def test_dose_cites_the_page_the_quote_sits_on(sample_chunks, sample_monographs) -> None:
    chunk = next(c for c in sample_chunks if c.chunk_id == "paracetamol__lieu_luong_cach_dung__0")
    assert len(chunk.physical_pages) == 2  # this chunk runs over a page break
    a = _dose(sample_chunks, sample_monographs, "paracetamol", **CHILD_5Y_18KG_ORAL)
    for citation in a.citations:
        if citation.chunk_id == chunk.chunk_id:
            offset = chunk.text.index(citation.quote)
            span = next(s for s in chunk.page_spans if s[1] <= offset < s[2])
            assert citation.physical_page == span[0]
            assert citation.printed_page == chunk.printed_pages[chunk.physical_pages.index(span[0])]
    first, last = chunk.page_spans[0], chunk.page_spans[-1]
    assert page_of(chunk, first[1]) == (first[0], chunk.printed_pages[0])
    assert page_of(chunk, last[1]) == (last[0], chunk.printed_pages[-1])


def test_dose_isosorbid_sublingual_angina(sample_chunks, sample_monographs) -> None:
    a = _dose(
        sample_chunks,
        sample_monographs,
        "isosorbid_dinitrat",
        route="ngam_duoi_luoi",
        condition="cắt cơn đau thắt ngực",
    )
    assert "2,5 - 5 mg/lần" in _claims(a)


def test_dose_diazepam_rectal_status_epilepticus(sample_chunks, sample_monographs) -> None:
    a = _dose(
        sample_chunks,
        sample_monographs,
        "diazepam",
        population="nguoi_lon",
        route="truc_trang",
        condition="trạng thái động kinh",
    )
    assert "500 microgam/kg" in _claims(a)


def test_dose_for_a_route_the_book_does_not_give_says_so_and_offers_its_routes(sample_chunks, sample_monographs):
    # Paracetamol's dosage section gives oral, rectal and IV-infusion doses; no intramuscular dose.
    a = _dose(sample_chunks, sample_monographs, "paracetamol", population="nguoi_lon", route="tiem_bap")
    assert (a.decision, a.reason) == ("clarify", "missing_route") and not a.blocks
    assert "không ghi liều" in a.message and "tiêm bắp" in a.message
    assert {"Uống", "Đặt trực tràng", "Truyền tĩnh mạch"} <= set(a.quick_replies)


def test_dose_with_table_part_is_verify_pdf_only_when_the_table_fits(sample_chunks, sample_monographs) -> None:
    # Vancomycin's renal dose table (quarantined) is for patients with renal impairment.
    normal = _dose(sample_chunks, sample_monographs, "vancomycin", population="nguoi_lon",
                   route="truyen_tinh_mach", question="Liều vancomycin cho người lớn")
    assert normal.decision == "answerable" and "500 mg, cứ 6 giờ một lần" in _claims(normal)
    assert not any(c.chunk_id.endswith("__block__t2") for c in normal.citations)


def test_dose_with_a_clcr_sends_the_renal_table_to_the_pdf(sample_chunks, sample_monographs) -> None:
    a = _dose(sample_chunks, sample_monographs, "vancomycin", population="nguoi_lon", route="truyen_tinh_mach",
              clcr=40, question="Liều vancomycin cho người lớn Clcr 40")
    assert (a.decision, a.reason) == ("verify_pdf", "quarantined_evidence")
    assert any(c.chunk_id.endswith("__block__t2") for c in a.citations)  # the table is still quoted and cited


def _ask(chunks, monographs, drug, key, question, **frame) -> EngineAnswer:
    a = ENGINE.answer_section(
        QueryFrame(question=question, section_key=key, turn_type="drug_attribute", **frame),
        _section(chunks, drug, key),
        _mono(monographs, drug),
    )
    _check_grounded(a, chunks)
    return a


def test_table_vancomycin_mic_verify_pdf(sample_chunks, sample_monographs) -> None:
    a = _ask(
        sample_chunks,
        sample_monographs,
        "vancomycin",
        "duoc_ly_co_che",
        "MIC của vancomycin đối với Staphylococcus aureus kháng oxacilin là bao nhiêu?",
    )
    assert (a.decision, a.reason) == ("verify_pdf", "quarantined_evidence")
    assert a.message == messages.message_for("quarantined_evidence")
    assert {c.drug_id for c in a.citations} == {"vancomycin"}
    assert any(c.chunk_id == "vancomycin__duoc_ly_co_che__block__t1" for c in a.citations)


def test_overdose_acetylcysteine_oral(sample_chunks, sample_monographs) -> None:
    a = _ask(
        sample_chunks,
        sample_monographs,
        "paracetamol",
        "qua_lieu_xu_tri",
        "Xử trí quá liều paracetamol bằng N-acetylcystein đường uống như thế nào?",
        route="uong",
    )
    assert "140 mg/kg" in _claims(a) and "70 mg/kg" in _claims(a)
    assert all(b.kind == "prose" for b in a.blocks)


def test_whole_short_sections(sample_chunks, sample_monographs) -> None:
    ci = _ask(
        sample_chunks, sample_monographs, "metformin", "chong_chi_dinh", "Chống chỉ định của metformin là gì?"
    )
    section = _section(sample_chunks, "metformin", "chong_chi_dinh")
    assert ci.decision == "answerable" and all(b.kind == "warning" for b in ci.blocks)
    assert fold(_claims(ci)).replace("\n", " ").split() == fold(section.text).replace("\n", " ").split()
    preg = _ask(
        sample_chunks, sample_monographs, "abacavir", "thoi_ky_mang_thai", "Phụ nữ mang thai dùng abacavir?"
    )
    assert "Không dùng cho phụ nữ mang thai" in _claims(preg)
    store = _ask(
        sample_chunks, sample_monographs, "amoxicilin", "do_on_dinh_bao_quan", "Bảo quản amoxicilin?"
    )
    assert store.decision == "answerable" and store.blocks


def test_atc_is_a_fact_list(sample_chunks, sample_monographs) -> None:
    a = _ask(sample_chunks, sample_monographs, "amlodipin", "thong_tin_chung", "Mã ATC của amlodipin là gì?")
    assert [b.kind for b in a.blocks] == ["fact_list"] and "C08CA01" in _claims(a)


def test_adr_common_only(sample_chunks, sample_monographs) -> None:
    a = _ask(
        sample_chunks,
        sample_monographs,
        "captopril",
        "tac_dung_khong_mong_muon",
        "Tác dụng không mong muốn thường gặp của captopril?",
    )
    assert _claims(a).startswith("Thường gặp") and "Hiếm gặp" not in _claims(a)


# ---- interactions -------------------------------------------------------------------------------------------


def _interact(chunks, drugs: list[str], names: dict[str, list[str]]) -> EngineAnswer:
    sections = {d: _section(chunks, d, "tuong_tac_thuoc") for d in drugs}
    a = ENGINE.answer_interaction(QueryFrame(turn_type="interaction", drug_ids=drugs), sections, names)
    _check_grounded(a, chunks)
    return a


def test_interaction_warfarin_aspirin_from_both_sections(sample_chunks) -> None:
    a = _interact(
        sample_chunks,
        ["warfarin", "acid_acetylsalicylic"],
        {"warfarin": ["warfarin"], "acid_acetylsalicylic": ["Acid acetylsalicylic", "aspirin"]},
    )
    assert a.decision == "answerable" and "chảy máu" in _claims(a)
    assert {c.drug_id for c in a.citations} == {"warfarin", "acid_acetylsalicylic"}
    assert all(
        b.kind == "warning" and c.section_key == "tuong_tac_thuoc" for b in a.blocks for c in a.citations
    )


def test_interaction_with_a_drug_outside_the_formulary(sample_chunks) -> None:
    a = _interact(
        sample_chunks,
        ["clopidogrel"],
        {"clopidogrel": ["clopidogrel"], "omeprazol": ["omeprazol", "thuốc ức chế bơm proton"]},
    )
    assert a.decision == "answerable" and "CYP2C19" in _claims(a)
    assert all(
        "omeprazol" in fold(c.text) or "bom proton" in fold(c.text) for b in a.blocks for c in b.claims
    )


def test_interaction_names_match_without_diacritics(sample_chunks) -> None:
    a = _interact(
        sample_chunks, ["clopidogrel"], {"clopidogrel": ["clopidogrel"], "ppi": ["thuoc uc che bom proton"]}
    )
    assert a.decision == "answerable" and "bơm proton" in _claims(a)


def test_interaction_not_found_is_never_safe(sample_chunks) -> None:
    a = _interact(
        sample_chunks, ["abacavir", "metformin"], {"abacavir": ["abacavir"], "metformin": ["metformin"]}
    )
    assert (a.decision, a.reason) == ("abstain", "no_interaction_evidence")
    assert messages.NOT_SAFE in a.message and "abacavir" in a.message and "metformin" in a.message
    assert "không có nghĩa là an toàn" in a.message.lower() and a.blocks == []


# ---- condition -> drugs ------------------------------------------------------------------------------------


def _hits(chunks: list[Chunk], words: str) -> list[IndicationHit]:
    return [
        IndicationHit(drug_id=c.drug_id, chunk=c, matched=words, method="lexical")
        for c in chunks
        if c.section_key == "chi_dinh" and fold(words) in fold(c.text)
    ]


def _facts(chunks, drugs) -> dict[str, dict[str, SectionResult]]:
    keys = ("chong_chi_dinh", "than_trong", "thoi_ky_mang_thai")
    return {d: {k: _section(chunks, d, k) for k in keys} for d in drugs}


def test_condition_list_is_factual_and_unranked(sample_chunks) -> None:
    hits = _hits(sample_chunks, "tăng huyết áp")
    a = ENGINE.answer_condition(
        QueryFrame(turn_type="condition_to_drug", condition="tăng huyết áp"), hits, _facts(sample_chunks, [])
    )
    _check_grounded(a, sample_chunks)
    drugs = [c.drug_id for c in a.citations]
    assert {"captopril", "amlodipin"} <= set(drugs) and drugs == sorted(drugs)
    assert all(b.kind == "fact_list" for b in a.blocks)
    everything = (a.message + _claims(a) + " ".join(b.title for b in a.blocks)).lower()
    for word in ("lựa chọn đầu tay", "tốt nhất", "ưu tiên"):
        assert word not in everything
    assert all(
        "tăng huyết áp" in c.text.lower() or c.text.startswith("Việc") for b in a.blocks for c in b.claims
    )


def test_condition_with_pregnancy_adds_bearing_statements(sample_chunks) -> None:
    hits = _hits(sample_chunks, "tăng huyết áp")
    drugs = sorted({h.drug_id for h in hits})
    a = ENGINE.answer_condition(
        QueryFrame(turn_type="condition_to_drug", condition="tăng huyết áp", pregnant=True),
        hits,
        _facts(sample_chunks, drugs),
    )
    _check_grounded(a, sample_chunks)
    assert a.decision == "answerable" and messages.NO_INFERENCE in a.message
    warn = [b for b in a.blocks if b.kind == "warning"]
    assert warn and any(c.section_key == "thoi_ky_mang_thai" for c in a.citations)
    for b in warn:
        if "Thận trọng" in b.title or "Chống chỉ định" in b.title:
            assert all("thai" in c.text.lower() for c in b.claims)


def test_condition_with_patient_facts_but_nothing_to_show_abstains(sample_chunks) -> None:
    hits = _hits(sample_chunks, "tăng huyết áp")
    a = ENGINE.answer_condition(
        QueryFrame(turn_type="condition_to_drug", condition="tăng huyết áp", clcr=20.0), hits, {}
    )
    assert (a.decision, a.reason) == (
        "abstain",
        "evidence_insufficient",
    ) and messages.NO_INFERENCE in a.message
