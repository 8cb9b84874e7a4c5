"""The patient's safety first: statements of Chống chỉ định, pregnancy, lactation and Thận trọng that bear on
the patient, thresholds compared as numbers, shown before any dose."""

from __future__ import annotations

import pytest

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.payload import Block, Citation, Claim
from duocthu_desktop.qa.answers import warning_rules as rules
from duocthu_desktop.qa.answers.engine_types import EngineAnswer
from duocthu_desktop.qa.answers.patient_warnings import MAX_WARNINGS, warn_first, warning_answer, warnings_for
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.qa.verification.grounding import verify
from duocthu_desktop.retrieval.types import SectionResult


def _section(key: str, *paragraphs: str, drug: str = "thuoc_x") -> SectionResult:
    text = "\n".join(paragraphs)
    chunk = Chunk(
        chunk_id=f"{drug}__{key}__0", drug_id=drug, section_key=key, part_index=0, text=text,
        printed_pages=[10], physical_pages=[3], page_spans=[[3, 0, len(text)]],
    )
    return SectionResult(drug_id=drug, section_key=key, chunks=[chunk])


def _texts(frame: QueryFrame, sections: dict[str, SectionResult]) -> list[str]:
    return [w.text for w in warnings_for(frame, {s.section_key: s for s in sections.values()})]


CI = "chong_chi_dinh"
CAUTION = "than_trong"
PREG = "thoi_ky_mang_thai"
LACT = "thoi_ky_cho_con_bu"

# ---- thresholds ------------------------------------------------------------------------------------------------


def test_clcr_threshold_compared_as_a_number() -> None:
    ci = _section(CI, "Quá mẫn với thuốc.", "Suy thận có Clcr < 60 ml/phút.")
    inside = _texts(QueryFrame(clcr=35.0, renal_impairment=True), {CI: ci})
    assert inside == ["Suy thận có Clcr < 60 ml/phút."]
    assert _texts(QueryFrame(clcr=70.0, renal_impairment=True), {CI: ci}) == []


def test_clcr_threshold_in_words_and_ranges() -> None:
    assert rules.clcr_bounds("độ thanh thải creatinin dưới 30 ml/phút")[0].overlaps(25, 25)
    assert not rules.clcr_bounds("độ thanh thải creatinin dưới 30 ml/phút")[0].overlaps(30, 30)
    assert rules.clcr_bounds("Clcr ≤ 30 ml/phút")[0].overlaps(30, 30)
    band = rules.clcr_bounds("Clcr 10 - 50 ml/phút")[0]
    assert band.overlaps(35, 35) and not band.overlaps(60, 60)
    assert rules.clcr_bounds("truyền 10 ml/phút") == []  # a rate, not a renal threshold


def test_stressed_threshold_does_not_narrow_the_words() -> None:
    ci = _section(CI, "Người suy gan, suy thận, đặc biệt người có tốc độ lọc cầu thận dưới 30 ml/phút.")
    assert _texts(QueryFrame(clcr=35.0, renal_impairment=True), {CI: ci}) == [ci.chunks[0].text]


DOSING = "lieu_luong_cach_dung"


def test_a_weight_threshold_crossed_is_shown_first_from_the_cautions_and_the_dosage_section() -> None:
    """45 kg is under 'trọng lượng dưới 50 kg' (Thận trọng) and 'cân nặng dưới 50 kg' (Liều lượng, stressed or
    not); 65 kg is under neither. The dosage section gives only what it says of the patient past its number: not
    its doses (the dose answer's), not a label, not a sentence for another group."""
    caution = _section(CAUTION, "Giảm liều đối với người có trọng lượng dưới 50 kg.")
    dosing = _section(DOSING, "Liều bắt đầu thông thường là 5 mg.",
                      "Đối với người đặc biệt có nguy cơ chảy máu (cân nặng dưới 50 kg, cao tuổi, suy gan), "
                      "liều đầu tiên thông thường còn thấp hơn.",
                      "Người bệnh < 50 kg:", "Người bệnh < 50 kg: 10 mg cho tới 4 lần/ngày.",
                      "Liều thông thường ở người cao tuổi: Giống như đối với người < 50 kg.")
    light = QueryFrame(weight_kg=45.0, age_years=40.0, population="nguoi_lon")
    assert _texts(light, {CAUTION: caution, DOSING: dosing}) == [
        "Giảm liều đối với người có trọng lượng dưới 50 kg.",
        "Đối với người đặc biệt có nguy cơ chảy máu (cân nặng dưới 50 kg, cao tuổi, suy gan), liều đầu tiên "
        "thông thường còn thấp hơn."]
    heavy = QueryFrame(weight_kg=65.0, age_years=40.0, population="nguoi_lon")
    assert _texts(heavy, {CAUTION: caution, DOSING: dosing}) == []


def test_renal_words_without_number_need_renal_impairment() -> None:
    caution = _section(CAUTION, "Thận trọng ở người suy thận.", "Có thể gây suy thận cấp.")
    assert _texts(QueryFrame(renal_impairment=True), {CAUTION: caution}) == ["Thận trọng ở người suy thận."]
    assert _texts(QueryFrame(pregnant=True), {CAUTION: caution}) == []


def test_renal_threshold_shown_when_no_clcr_given() -> None:
    ci = _section(CI, "Clcr < 60 ml/phút.")
    assert _texts(QueryFrame(renal_impairment=True), {CI: ci}) == ["Clcr < 60 ml/phút."]


@pytest.mark.parametrize(
    ("age", "bound", "shown"),
    [(10.0, None, True), (15.9, None, True), (16.0, None, False), (17.0, None, False), (16.0, "below", True)],
)
def test_age_threshold(age: float, bound: str | None, shown: bool) -> None:
    caution = _section(CAUTION, "Hạn chế chỉ định cho trẻ em dưới 16 tuổi vì nguy cơ hội chứng Reye.")
    frame = QueryFrame(age_years=age, age_bound=bound, population="tre_em" if age < 18 else "nguoi_lon")
    assert bool(_texts(frame, {CAUTION: caution})) is shown


def test_age_threshold_symbols_and_months() -> None:
    assert rules.age_bounds("trẻ em < 12 tuổi")[0].overlaps(10, 10)
    assert not rules.age_bounds("trẻ em < 12 tuổi")[0].overlaps(12, 12)
    assert rules.age_bounds("người trên 65 tuổi")[0].overlaps(70, 70)
    assert rules.age_bounds("trẻ dưới 3 tháng")[0].overlaps(0.1, 0.1)
    assert not rules.age_bounds("trẻ dưới 3 tháng")[0].overlaps(1, 1)
    assert rules.age_bounds("theo dõi trong 6 tháng") == []  # a duration
    assert rules.age_bounds("trẻ từ 2 đến 12 tuổi")[0].overlaps(5, 5)


def test_elderly_threshold_and_words() -> None:
    caution = _section(CAUTION, "Thận trọng ở người bệnh trên 60 tuổi.", "Người cao tuổi dễ bị ngộ độc.",
                       "Trẻ em dưới 12 tuổi không dùng.")
    assert _texts(QueryFrame(age_years=70.0, population="nguoi_cao_tuoi"), {CAUTION: caution}) == [
        "Thận trọng ở người bệnh trên 60 tuổi.", "Người cao tuổi dễ bị ngộ độc."]
    assert _texts(QueryFrame(age_years=40.0, population="nguoi_lon"), {CAUTION: caution}) == []


def test_neonate_only_sentence_not_for_an_older_child() -> None:
    caution = _section(CAUTION, "Thận trọng ở trẻ sơ sinh.", "Thận trọng ở trẻ em.")
    assert _texts(QueryFrame(age_years=8.0, population="tre_em"), {CAUTION: caution}) == ["Thận trọng ở trẻ em."]


# ---- pregnancy and lactation -------------------------------------------------------------------------------------


PREGNANCY = _section(
    PREG,
    "Thuốc được dùng trong thời kỳ mang thai ở một số trường hợp.",
    "Thuốc làm tăng nguy cơ xuất huyết trong 3 tháng giữa và 3 tháng cuối thai kỳ.",
    "Thuốc thường chống chỉ định dùng khi mang thai.",
)


def test_contraindicating_sentence_first_and_other_trimester_left_out() -> None:
    texts = _texts(QueryFrame(pregnant=True, trimester=1), {PREG: PREGNANCY})
    assert texts == [
        "Thuốc thường chống chỉ định dùng khi mang thai.",
        "Thuốc được dùng trong thời kỳ mang thai ở một số trường hợp.",
    ]
    third = _texts(QueryFrame(pregnant=True, trimester=3), {PREG: PREGNANCY})
    assert "Thuốc làm tăng nguy cơ xuất huyết trong 3 tháng giữa và 3 tháng cuối thai kỳ." in third
    assert third[0] == "Thuốc thường chống chỉ định dùng khi mang thai."


def test_trimesters_named() -> None:
    assert rules.trimesters_named("trong 3 tháng cuối cùng của thời kỳ mang thai") == {3}
    assert rules.trimesters_named("tránh dùng trong các tuần 6 - 12 thai kỳ") == {1}
    assert rules.trimesters_named("chỉ được dùng trong 6 tháng cuối của thai kỳ") == {2, 3}
    assert rules.trimesters_named("thường chống chỉ định dùng khi mang thai") == set()


def test_pregnancy_section_not_read_for_a_patient_not_pregnant() -> None:
    assert _texts(QueryFrame(age_years=8.0, population="tre_em"), {PREG: PREGNANCY}) == []


def test_contraindications_come_before_pregnancy_and_cautions() -> None:
    sections = {
        CAUTION: _section(CAUTION, "Thận trọng khi dùng cho người mang thai."),
        PREG: PREGNANCY,
        CI: _section(CI, "Quá mẫn.", "Người mang thai hoặc đang cho con bú."),
    }
    found = warnings_for(QueryFrame(pregnant=True), sections)
    assert [w.section_key for w in found] == [CI, PREG, PREG, PREG, CAUTION]
    assert found[0].title() == "Chống chỉ định — phụ nữ mang thai"
    assert len(found) <= MAX_WARNINGS


def test_lactation_section_for_breastfeeding() -> None:
    lact = _section(LACT, "Thuốc bài tiết vào sữa mẹ.", "Nên tránh dùng trong thời kỳ cho con bú.")
    texts = _texts(QueryFrame(breastfeeding=True), {LACT: lact})
    assert texts == ["Nên tránh dùng trong thời kỳ cho con bú.", "Thuốc bài tiết vào sữa mẹ."]
    assert _texts(QueryFrame(pregnant=True), {LACT: lact}) == []


def test_hepatic_words_not_caused_liver_damage() -> None:
    caution = _section(CAUTION, "Dùng quá liều gây suy gan cấp.", "Thận trọng ở người bị suy gan.")
    assert _texts(QueryFrame(hepatic_impairment=True), {CAUTION: caution}) == ["Thận trọng ở người bị suy gan."]


def test_sentence_leaning_on_the_one_before_is_shown_with_it() -> None:
    caution = _section(CAUTION, "Viêm gân đã xảy ra. Nguy cơ này tăng ở người bệnh trên 60 tuổi.")
    assert _texts(QueryFrame(age_years=70.0, population="nguoi_cao_tuoi"), {CAUTION: caution}) == [
        "Viêm gân đã xảy ra. Nguy cơ này tăng ở người bệnh trên 60 tuổi."]


def test_no_facts_no_warnings() -> None:
    ci = _section(CI, "Người mang thai.", "Suy thận.")
    assert warnings_for(QueryFrame(population="nguoi_lon"), {CI: ci}) == []
    assert warning_answer(QueryFrame(), {CI: ci}) is None


def test_quarantined_chunk_never_quoted() -> None:
    ci = _section(CI, "Người mang thai.")
    ci.chunks[0].quarantined = True
    assert warnings_for(QueryFrame(pregnant=True), {CI: ci}) == []


def test_at_most_max_warnings() -> None:
    ci = _section(CI, *[f"Người mang thai nhóm {i}." for i in range(10)])
    caution = _section(CAUTION, *[f"Không dùng cho người mang thai loại {i}." for i in range(10)])
    found = warnings_for(QueryFrame(pregnant=True), {CI: ci, CAUTION: caution})
    assert len(found) == MAX_WARNINGS
    assert [w.section_key for w in found].count(CAUTION) >= 1


# ---- the answer they make ---------------------------------------------------------------------------------------


def test_warning_answer_is_cited_verbatim_and_grounded() -> None:
    ci = _section(CI, "Quá mẫn.", "Suy thận có Clcr < 60 ml/phút.")
    answer = warning_answer(QueryFrame(clcr=35.0, renal_impairment=True), {CI: ci}, drug="Thuốc X")
    assert answer is not None and answer.decision == "answerable"
    assert answer.blocks[0].kind == "warning"
    assert answer.blocks[0].title == "Thuốc X — Chống chỉ định — suy thận"
    assert answer.citations[0].quote == "Suy thận có Clcr < 60 ml/phút."
    assert verify(answer.blocks, answer.citations, {c.chunk_id: c.text for c in ci.chunks}) == []


def _dose_answer(dose: SectionResult) -> EngineAnswer:
    chunk = dose.chunks[0]
    return EngineAnswer(
        decision="answerable",
        blocks=[Block(title="Liều", kind="dosage", claims=[Claim(text=chunk.text, citations=[1])])],
        citations=[Citation(index=1, chunk_id=chunk.chunk_id, drug_id="thuoc_x", section_key=chunk.section_key,
                            printed_page=10, physical_page=3, quote=chunk.text)],
    )


def test_a_caution_goes_before_a_clarify_and_before_the_dose_renumbered() -> None:
    cautions = _section(CAUTION, "Dùng được cho người mang thai nhưng theo dõi huyết áp.")
    warned = warning_answer(QueryFrame(pregnant=True), {CAUTION: cautions})
    assert warned is not None and not warned.contraindicated
    clarify = EngineAnswer(decision="clarify", reason="missing_route", message="Đường nào?", quick_replies=["Uống"])
    kept = warn_first(warned, clarify)
    assert (kept.decision, kept.reason, kept.message, kept.quick_replies) == (
        "clarify", "missing_route", "Đường nào?", ["Uống"])
    assert kept.blocks[0].kind == "warning"
    dose = _section("lieu_luong_cach_dung", "Người lớn: 25 mg/lần.")
    both = warn_first(warned, _dose_answer(dose))
    assert [b.kind for b in both.blocks] == ["warning", "dosage"]
    assert [c.index for c in both.citations] == [1, 2]
    assert both.blocks[1].claims[0].citations == [2]
    evidence = {c.chunk_id: c.text for c in cautions.chunks + dose.chunks}
    assert verify(both.blocks, both.citations, evidence) == []


def test_a_contraindication_for_this_patient_is_the_answer_and_no_usual_dose_is_shown() -> None:
    ci = _section(CI, "Người mang thai.")
    warned = warning_answer(QueryFrame(pregnant=True), {CI: ci})
    assert warned is not None and warned.contraindicated
    # a clarify for the dose becomes an answer: the contraindication, with the question still offered
    clarify = EngineAnswer(decision="clarify", reason="missing_route", message="Đường nào?", quick_replies=["Uống"])
    kept = warn_first(warned, clarify)
    assert (kept.decision, kept.reason, kept.quick_replies) == ("answerable", None, ["Uống"])
    assert "Đường nào?" in kept.message and [b.kind for b in kept.blocks] == ["warning"]
    # the usual dose is not shown beside it, and the message says why
    dose = _section("lieu_luong_cach_dung", "Người lớn: 25 mg/lần.")
    both = warn_first(warned, _dose_answer(dose))
    assert [b.kind for b in both.blocks] == ["warning"]
    assert [c.chunk_id for c in both.citations] == [ci.chunks[0].chunk_id]
    assert "chống chỉ định" in both.message and "25 mg" not in both.message


# ---- through the assistant, on the sample book --------------------------------------------------------------------


def _ask(assistant, question: str):
    payload = assistant.ask(question)
    assert payload.blocks, (payload.decision, payload.reason, payload.message)
    return payload


def _first_is_warning(payload, *words: str) -> str:
    first = payload.blocks[0]
    assert first.kind == "warning", [b.title for b in payload.blocks]
    text = " ".join(c.text for c in first.claims)
    for word in words:
        assert word in text, text
    kinds = [b.kind for b in payload.blocks]
    if "dosage" in kinds:  # no warning after a dose
        assert "warning" not in kinds[kinds.index("dosage") :]
    return text


def test_metformin_clcr_35_shows_the_clcr_contraindication(assistant) -> None:
    payload = _ask(assistant, "Liều metformin cho người lớn Clcr 35 ml/phút")
    _first_is_warning(payload, "Clcr < 60 ml/phút")
    assert payload.blocks[0].title.startswith("Chống chỉ định")


def test_metformin_clcr_35_without_group_warns_with_the_clarify(assistant) -> None:
    payload = _ask(assistant, "Liều metformin cho bệnh nhân Clcr 35 ml/phút")
    _first_is_warning(payload, "Clcr < 60 ml/phút")


def test_aspirin_child_under_16(assistant) -> None:
    payload = _ask(assistant, "Liều aspirin cho trẻ em dưới 16 tuổi")
    _first_is_warning(payload, "dưới 16 tuổi", "hội chứng Reye")
    payload = _ask(assistant, "Liều aspirin cho trẻ 10 tuổi nặng 30 kg")
    _first_is_warning(payload, "dưới 16 tuổi")


def test_aspirin_17_years_gets_no_under_16_warning(assistant) -> None:
    payload = assistant.ask("Liều aspirin cho người 17 tuổi nặng 60 kg")
    assert not any("dưới 16 tuổi" in c.text for b in payload.blocks if b.kind == "warning" for c in b.claims)


def test_acarbose_pregnant(assistant) -> None:
    payload = _ask(assistant, "Liều acarbose cho phụ nữ có thai")
    _first_is_warning(payload, "Người mang thai")
    assert payload.blocks[0].title == "Chống chỉ định — phụ nữ mang thai"


def test_warfarin_pregnant(assistant) -> None:
    payload = _ask(assistant, "Warfarin có dùng được cho phụ nữ mang thai không?")
    _first_is_warning(payload, "mang thai")
    warnings = [c.text for b in payload.blocks if b.kind == "warning" for c in b.claims]
    assert "Warfarin thường chống chỉ định dùng khi mang thai." in warnings


def test_warfarin_first_trimester(assistant) -> None:
    payload = _ask(assistant, "Warfarin cho phụ nữ mang thai 3 tháng đầu")
    _first_is_warning(payload)
    warnings = [c.text for b in payload.blocks if b.kind == "warning" for c in b.claims]
    assert "Warfarin thường chống chỉ định dùng khi mang thai." in warnings
    # a sentence about the other trimesters only is not shown as if it applied
    assert not any(w.startswith("Warfarin còn làm tăng nguy cơ xuất huyết") for w in warnings)
    # the contraindicating sentence before any reassuring one of the pregnancy section
    pregnancy = [c.text for b in payload.blocks if b.title == "Thời kỳ mang thai" for c in b.claims]
    assert pregnancy[0] == "Warfarin thường chống chỉ định dùng khi mang thai."


def test_warnings_are_cited_and_grounded(assistant) -> None:
    payload = _ask(assistant, "Liều metformin cho người lớn Clcr 35 ml/phút")
    by_index = {c.index: c for c in payload.citations}
    for block in payload.blocks:
        for claim in block.claims:
            assert claim.citations and all(i in by_index for i in claim.citations)
    cited = by_index[payload.blocks[0].claims[0].citations[0]]
    assert cited.section_key == "chong_chi_dinh" and cited.drug_id == "metformin"
    assert cited.printed_page is not None


def test_a_contraindication_with_something_else_or_graver_than_said_does_not_hide_the_dose() -> None:
    """'Dùng đồng thời với chế phẩm chứa calci ở trẻ em' forbids a combination, not the drug for this child;
    'Suy gan nặng.' is not a patient said only to have 'suy gan'. Both are shown first; the dose stays."""
    ci = _section(CI, "Dùng đồng thời với chế phẩm chứa calci ở trẻ em: nguy cơ kết tủa.")
    warned = warning_answer(QueryFrame(population="tre_em", age_years=5.0), {CI: ci})
    assert warned is not None and not warned.contraindicated
    ci = _section(CI, "Suy gan nặng.")
    frame = QueryFrame(question="Người lớn suy gan dùng liều bao nhiêu?", hepatic_impairment=True)
    warned = warning_answer(frame, {CI: ci})
    assert warned is not None and not warned.contraindicated
    frame = QueryFrame(question="Người lớn suy gan nặng dùng liều bao nhiêu?", hepatic_impairment=True)
    assert warning_answer(frame, {CI: ci}).contraindicated


def test_a_liver_grade_names_its_severity() -> None:
    """Child-Pugh C and a decompensated cirrhosis are a severe liver impairment, B a moderate one: "Suy gan vừa
    và nặng." is this patient's; a Child-Pugh A patient's is not, and the dose stays."""
    ci = _section(CI, "Suy gan vừa và nặng.")
    for question, contraindicated in (("BN xơ gan mất bù Child-Pugh C, liều bao nhiêu?", True),
                                      ("suy gan child pugh B dùng liều bao nhiêu?", True),
                                      ("Người bệnh xơ gan mất bù, liều?", True),
                                      ("Suy gan Child-Pugh A, liều bao nhiêu?", False)):
        warned = warning_answer(QueryFrame(question=question, hepatic_impairment=True), {CI: ci})
        assert warned is not None and warned.contraindicated is contraindicated, question


def test_a_group_contraindicated_only_under_a_condition_does_not_hide_the_dose():
    """"Không dùng cho trẻ em có vấn đề về thở": shown first for a child, but the child may not have it, so the
    dose is not withheld; an unqualified "Trẻ em dưới 12 tuổi." still withholds it; a sentence that allows
    ("... có thể dùng liều như liều người lớn") never does."""
    from duocthu_desktop.qa.answers import patient_warnings as pw

    def warning(text: str) -> pw.Warning:
        chunk = Chunk(chunk_id="x__chong_chi_dinh__0", drug_id="x", section_key="chong_chi_dinh", part_index=0,
                      text=text, printed_pages=[1], physical_pages=[1])
        return pw.Warning(chunk, 0, len(text), "chong_chi_dinh", ("tre_em",), 0)

    assert pw._group_qualified(warning("Không dùng cho trẻ em có vấn đề về thở, bao gồm các bệnh về tim."))
    assert pw._group_qualified(warning("Chống chỉ định cho trẻ em (dưới 18 tuổi) thực hiện cắt amiđan."))
    assert not pw._group_qualified(warning("Trẻ em dưới 12 tuổi."))
    assert not pw._group_qualified(warning("Trẻ sơ sinh có cân nặng dưới 2 kg."))
    assert pw._ALLOWS.search("trẻ trên 12 tuổi, nếu cần, có thể dùng liều như liều người lớn.")


def test_a_severity_of_another_item_does_not_make_the_contraindication_graver():
    """"Nhược cơ, suy hô hấp nặng.": the "nặng" is the breathing's; a patient with myasthenia is contraindicated."""
    from duocthu_desktop.qa.answers import patient_warnings as pw

    text = "Nhược cơ, suy hô hấp nặng."
    chunk = Chunk(chunk_id="x__chong_chi_dinh__0", drug_id="x", section_key="chong_chi_dinh", part_index=0,
                  text=text, printed_pages=[1], physical_pages=[1])
    warning = pw.Warning(chunk, 0, len(text), "chong_chi_dinh", ("benh_kem",), 0)
    assert not pw._graver_than_said(warning, QueryFrame(question="Bệnh nhân nhược cơ bị mất ngủ, liều bao nhiêu?"))
    assert pw._graver_than_said(warning, QueryFrame(question="Bệnh nhân suy hô hấp, liều bao nhiêu?"))


def test_a_pregnancy_section_that_forbids_the_drug_outright_hides_the_usual_dose() -> None:
    # the sample book's ACE inhibitor: "... Vì vậy, không được dùng captopril trong thời kỳ mang thai."
    outright = _section(PREG, "Ít nước ối, sinh non có thể xảy ra. Vì vậy, không được dùng thuốc trong thời kỳ mang thai.")
    warned = warning_answer(QueryFrame(pregnant=True), {PREG: outright})
    assert warned is not None and warned.contraindicated
    dose = _section("lieu_luong_cach_dung", "Tăng huyết áp: Liều thường dùng: 25 mg/lần, 2 - 3 lần/ngày.")
    assert [b.kind for b in warn_first(warned, _dose_answer(dose)).blocks] == ["warning"]
    # a prohibition for a part of pregnancy, or a usual one, is shown first but does not hide the dose
    for text in ("Không được dùng thuốc trong 3 tháng đầu của thai kỳ.", "Thuốc thường chống chỉ định dùng khi mang thai."):
        partial = warning_answer(QueryFrame(pregnant=True), {PREG: _section(PREG, text)})
        assert partial is not None and not partial.contraindicated


# ---- medicines the patient already takes ------------------------------------------------------------------------


def test_a_medicine_taken_is_read_in_the_interactions_and_shown_before_the_dose() -> None:
    inter = _section("tuong_tac_thuoc", "Chống chỉ định phối hợp: Aspirin liều cao: tăng nguy cơ chảy máu.",
                     "Cimetidin làm tăng nồng độ thuốc.")
    frame = QueryFrame(question="Đang dùng aspirin, dùng thuốc X liều bao nhiêu?", taking_names=["aspirin"])
    found = warnings_for(frame, {"tuong_tac_thuoc": inter})
    assert [w.section_key for w in found] == ["tuong_tac_thuoc"]
    assert "Aspirin liều cao" in found[0].text and found[0].topics == ("dang_dung",)


def test_the_interactions_are_not_read_without_a_medicine_taken() -> None:
    inter = _section("tuong_tac_thuoc", "Aspirin liều cao: tăng nguy cơ chảy máu.")
    assert _texts(QueryFrame(question="Người lớn 40 tuổi", age_years=40.0), {"tuong_tac_thuoc": inter}) == []
    other = QueryFrame(question="Đang dùng cimetidin", taking_names=["cimetidin"])
    assert _texts(other, {"tuong_tac_thuoc": inter}) == []
