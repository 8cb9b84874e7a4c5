"""What a question asks for, read as the book prints it: a duration answered by a sentence that prints one, an
overdose's "Xử trí" part for what to do, the sentence the book goes on with; a contraindication for a medicine
the patient takes, one that leaves out the patient's own condition ("ngoại trừ ..."), an indication that rules a
condition out; the route the patient goes on to, a medicine the patient already takes; a mix in one syringe.
Sentences are the book's own (sample-e's tuning part, source-e/*.md)."""

from __future__ import annotations

import pytest

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.qa.answers import sentence_answer
from duocthu_desktop.qa.answers import warning_rules as rules
from duocthu_desktop.qa.answers.comorbidities import Said, bears_on
from duocthu_desktop.qa.answers.patient_warnings import warnings_for
from duocthu_desktop.qa.understanding.extractors import extract_route
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.qa.understanding.lexicon import expand_abbreviations
from duocthu_desktop.qa.understanding.section_asked import SentenceAsk, route_section, sentence_ask
from duocthu_desktop.qa.understanding.textmatch import Text
from duocthu_desktop.retrieval.types import SectionResult


def _chunk(drug: str, key: str, text: str, n: int = 0) -> Chunk:
    return Chunk(chunk_id=f"{drug}__{key}__{n}", drug_id=drug, section_key=key, part_index=n, text=text,
                 printed_pages=[300 + n], physical_pages=[20 + n], page_spans=[[20 + n, 0, len(text)]])


def _texts(chosen) -> list[str]:
    return [s.text for s in chosen]


# ---- the kind of answer asked for -----------------------------------------------------------------------------

CARBIMAZOL_DOSAGE = (
    "Carbimazol thường cải thiện được triệu chứng bệnh sau 1 - 3 tuần, và chức năng tuyến giáp sẽ trở lại bình "
    "thường sau 1 - 2 tháng. Khi hoạt động tuyến giáp của người bệnh trở về bình thường thì giảm liều dần, cho "
    "đến liều thấp nhất mà vẫn giữ được chức năng tuyến giáp bình thường.\n\n"
    "Thời gian điều trị thường là 12 - 18 tháng."
)
CARBIMAZOL_PHARMACOLOGY = ("Carbimazol không chữa được nguyên nhân gây ra cường giáp và thường không được dùng kéo "
                           "dài để điều trị cường giáp.")


def test_how_long_is_answered_by_a_sentence_that_prints_a_duration() -> None:
    sentences = sentence_answer.drug_sentences([
        _chunk("carbimazol", "duoc_ly_co_che", CARBIMAZOL_PHARMACOLOGY),
        _chunk("carbimazol", "lieu_luong_cach_dung", CARBIMAZOL_DOSAGE, 1),
    ])
    scored = sentence_answer.rank("Điều trị cường giáp bằng carbimazol thường kéo dài bao lâu?", sentences,
                                  ["carbimazol"])
    assert scored[0].sentence.text == "Thời gian điều trị thường là 12 - 18 tháng."
    assert scored[0].answers
    # the words in common without a duration are never the answer to "bao lâu"
    assert all("12 - 18" in s.sentence.text or "tuần" in s.sentence.text or "tháng" in s.sentence.text
               for s in scored)


def test_a_question_that_asks_no_duration_weighs_every_sentence() -> None:
    sentences = sentence_answer.drug_sentences([_chunk("carbimazol", "duoc_ly_co_che", CARBIMAZOL_PHARMACOLOGY)])
    assert sentence_answer.rank("carbimazol có chữa được nguyên nhân cường giáp không", sentences, ["carbimazol"])


def test_how_long_takes_the_sentence_path_though_a_condition_is_named() -> None:
    frame = QueryFrame(question="Điều trị cường giáp bằng carbimazol thường kéo dài bao lâu?",
                       drug_ids=["carbimazol"], drug_mentions={"carbimazol": "carbimazol"},
                       section_key="lieu_luong_cach_dung", turn_type="dosing", condition="cường giáp")
    assert sentence_ask(frame) == SentenceAsk("focused", "lieu_luong_cach_dung")
    # a patient's facts, or an amount, keep the dose rows
    child = frame.model_copy(update={"age_years": 6.0, "population": "tre_em"})
    assert sentence_ask(child) is None
    amount = frame.model_copy(update={"question": "Carbimazol liều bao nhiêu, dùng trong bao lâu?"})
    assert sentence_ask(amount) is None


CODEIN_OVERDOSE = (
    "Triệu chứng: Suy hô hấp (giảm nhịp thở, hô hấp Cheyne-Stokes, xanh tím). Lơ mơ dẫn đến trạng thái đờ đẫn "
    "hoặc hôn mê, mềm cơ, da lạnh và ẩm, đôi khi mạch chậm và hạ huyết áp. Xử trí: Phải hồi phục hô hấp bằng "
    "cách cung cấp dưỡng khí và hô hấp hỗ trợ có kiểm soát. Chỉ định naloxon ngay bằng đường tiêm tĩnh mạch "
    "trong trường hợp nặng."
)


def test_what_to_do_in_an_overdose_is_the_sections_management_part() -> None:
    chunks = [_chunk("codein_phosphat", "qua_lieu_xu_tri", CODEIN_OVERDOSE)]
    frame = QueryFrame(question="Quá liều codein suy hô hấp, xử trí thế nào, có thuốc giải độc không?",
                       drug_ids=["codein_phosphat"], drug_mentions={"codein_phosphat": "codein"},
                       section_key="qua_lieu_xu_tri", turn_type="drug_attribute")
    answer = sentence_answer.answer(SentenceAsk("focused", "qua_lieu_xu_tri"), frame, chunks, None)
    claims = [c.text for b in answer.blocks for c in b.claims]
    assert answer.decision == "answerable"
    assert any("naloxon" in c for c in claims)
    assert not any(c.startswith("Triệu chứng") for c in claims)


CEFALEXIN_HOW = ("Cefalexin được dùng đường uống. Thức ăn có thể làm giảm tốc độ hấp thu của thuốc, các Nhà sản "
                 "xuất khuyến cáo nên dùng thuốc xa bữa ăn. Uống lúc đói, uống 1 giờ trước khi ăn.")


def test_the_sentence_the_book_goes_on_with_is_shown_with_the_best() -> None:
    chunks = [_chunk("cefalexin", "lieu_luong_cach_dung", CEFALEXIN_HOW)]
    frame = QueryFrame(question="Cefalexin nên uống trước hay sau bữa ăn?", drug_ids=["cefalexin"],
                       drug_mentions={"cefalexin": "Cefalexin"}, section_key="lieu_luong_cach_dung",
                       turn_type="dosing", route="uong")
    answer = sentence_answer.answer(SentenceAsk("focused", "lieu_luong_cach_dung"), frame, chunks, None)
    claims = [c.text for b in answer.blocks for c in b.claims]
    assert "Uống lúc đói, uống 1 giờ trước khi ăn." in claims
    assert claims.index("Uống lúc đói, uống 1 giờ trước khi ăn.") > 0


# ---- the patient's warnings -----------------------------------------------------------------------------------


def _section(drug: str, key: str, *paragraphs: str) -> SectionResult:
    return SectionResult(drug_id=drug, section_key=key, chunks=[_chunk(drug, key, "\n".join(paragraphs))])


KETOROLAC_CI = ("Xuất huyết não hoặc có nghi ngờ. Cơ địa chảy máu, có rối loạn đông máu. Người bệnh phải phẫu "
                "thuật, có nguy cơ cao chảy máu hoặc cầm máu không hoàn toàn. Người bệnh đang dùng thuốc chống đông.")


def test_a_contraindication_for_a_medicine_class_the_patient_takes() -> None:
    question = ("Người lớn 50 tuổi nặng 60 kg đang uống thuốc chống đông, đau sau mổ, tiêm bắp ketorolac liều "
                "bao nhiêu?")
    frame = QueryFrame(question=question, drug_ids=["ketorolac"], drug_mentions={"ketorolac": "ketorolac"},
                       turn_type="dosing", route="tiem_bap", age_years=50.0, weight_kg=60.0)
    found = warnings_for(frame, {"chong_chi_dinh": _section("ketorolac", "chong_chi_dinh", KETOROLAC_CI)})
    assert [w.text for w in found] == ["Người bệnh đang dùng thuốc chống đông."]
    assert found[0].topics == ("dang_dung",)


def test_the_drug_asked_about_is_not_a_medicine_the_patient_takes() -> None:
    frame = QueryFrame(question="Heparin dự phòng huyết khối sau phẫu thuật cho người lớn liều bao nhiêu?",
                       drug_ids=["heparin"], drug_mentions={"heparin": "Heparin"}, turn_type="dosing")
    assert rules.Patient.of(frame).taking == frozenset()


HYDROCORTISON_CI = ("Người bệnh nhiễm khuẩn nặng (ngoại trừ sốc nhiễm khuẩn hoặc lao màng não), nhiễm virus, "
                    "nhiễm nấm, lao da.")


@pytest.mark.parametrize(
    ("question", "bears"),
    [
        ("Người lớn sốc nhiễm khuẩn đe dọa tính mạng, tiêm hydrocortison liều ban đầu thế nào?", False),
        ("Bệnh nhân lao màng não dùng hydrocortison liều thế nào?", False),
        ("Bệnh nhân đang nhiễm nấm toàn thân có dùng hydrocortison được không?", True),
        ("Bệnh nhân nhiễm khuẩn nặng có dùng hydrocortison được không?", True),
    ],
)
def test_a_condition_the_book_leaves_out_of_a_contraindication(question: str, bears: bool) -> None:
    assert bears_on(HYDROCORTISON_CI, Said.of(question, ["hydrocortison"])) is bears


KETAMIN_INDICATION = "Mở tử cung lấy thai, dùng đơn độc hoặc phối hợp ở bệnh nhân không bị tăng huyết áp."
KETAMIN_CI = ("Không dùng thuốc ở những người bị tăng huyết áp, bệnh tim nặng vì sẽ gây hậu quả nghiêm trọng, "
              "người chấn thương sọ não kể cả những người có tiền sử tai biến mạch máu não.")


def test_a_condition_an_indication_rules_out_is_not_what_the_drug_is_given_for() -> None:
    question = ("Bệnh nhân tăng huyết áp cần gây mê làm thủ thuật ngắn, tiêm tĩnh mạch ketamin liều khởi đầu "
                "bao nhiêu?")
    said = Said.of(question, ["ketamin"]).without(KETAMIN_INDICATION)
    assert bears_on(KETAMIN_CI, said)
    # the indication's own conditions stay the reason for the question
    given_for = Said.of("Mở tử cung lấy thai dùng ketamin liều bao nhiêu?", ["ketamin"]).without(KETAMIN_INDICATION)
    assert not bears_on("Mở tử cung lấy thai.", given_for)


@pytest.mark.parametrize(
    ("question", "bears"),
    [
        ("bn K tuyến giáp (phụ thuộc TSH) kèm cường giáp, thuốc B khởi đầu bao nhiêu", True),
        ("bn k tuyen giap (phu thuoc TSH), thuoc B dung sao", False),  # lower-case "k" is no abbreviation
        ("bn K máu 5,8 mmol/l, thuốc B được không", False),  # "K máu" is the potassium
        ("bn THA, thuoc B dung duoc ko", False),
    ],
)
def test_the_wards_abbreviation_of_a_cancer_names_the_condition_printed(question: str, bears: bool) -> None:
    """A capital K before the organ is "ung thư" as the ward types it; the item must be met as the book prints it."""
    assert bears_on("Ung thư tuyến giáp phụ thuộc TSH.", Said.of(question, ["thuốc B"])) is bears


def test_an_abbreviated_condition_is_read_written_out() -> None:
    assert bears_on("Tăng huyết áp không kiểm soát được.", Said.of("bn THA, thuoc B dung duoc ko", ["thuoc B"]))
    assert expand_abbreviations("thiếu vitamin K nặng") == "thiếu vitamin K nặng"
    assert expand_abbreviations("K 5,8 mmol/l") == "K 5,8 mmol/l"
    assert expand_abbreviations("carboplatin cho K phổi") == "carboplatin cho ung thư phổi"
    assert expand_abbreviations("K buong trung") == "ung thu buong trung"


# ---- routes and mixes -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "route"),
    [
        ("Cụ ông 70 tuổi đã tiêm ketorolac, chuyển sang uống thì liều bao nhiêu?", "uong"),
        ("Sau khi tiêm ketorolac, chuyển sang uống cho người lớn 35 tuổi nặng 65 kg thì liều uống thế nào?", "uong"),
        ("Người lớn đang uống thuốc chống đông, đau sau mổ, tiêm bắp ketorolac liều bao nhiêu?", "tiem_bap"),
        ("Ketorolac tiêm bắp một liều duy nhất cho người lớn bao nhiêu?", "tiem_bap"),
        ("Người lớn uống ketorolac liều bao nhiêu?", "uong"),
    ],
)
def test_the_route_asked_about_is_the_one_the_patient_goes_on_to(question: str, route: str) -> None:
    assert extract_route(Text.of(question)) == route


def test_mixing_in_one_syringe_asks_the_incompatibilities() -> None:
    text = Text.of("Có trộn ketorolac tiêm với morphin sulfat trong cùng một bơm tiêm được không?")
    assert route_section(text).key == "tuong_ky"


def test_a_weight_is_not_the_severity_a_contraindication_names() -> None:
    from duocthu_desktop.qa.answers.patient_warnings import warning_answer

    ci = _section("ketorolac", "chong_chi_dinh", "Giảm chức năng thận vừa và nặng.")
    mild = QueryFrame(question="Người lớn 50 tuổi nặng 60 kg suy thận nhẹ, đau sau mổ, tiêm bắp ketorolac nhiều lần "
                               "thì liều mỗi lần bao nhiêu?", drug_ids=["ketorolac"],
                      drug_mentions={"ketorolac": "ketorolac"}, turn_type="dosing", renal_impairment=True,
                      age_years=50.0, weight_kg=60.0)
    shown = warning_answer(mild, {"chong_chi_dinh": ci})
    assert shown is not None and not shown.contraindicated  # shown first, the dose for the patient not hidden
    severe = mild.model_copy(update={"question": "Người lớn suy thận nặng, tiêm bắp ketorolac liều bao nhiêu?"})
    assert warning_answer(severe, {"chong_chi_dinh": ci}).contraindicated


HYDROCORTISON_EMERGENCY = (
    "Tình huống cấp cứu: Dùng thuốc tiêm hydrocortison tan trong nước như hydrocortison natri succinat, "
    "hydrocortison natri phosphat:\n\n"
    "Cơn hen phế quản cấp: Liều thông thường tiêm tĩnh mạch từ 100 mg cho đến 500 mg hydrocortison, lặp lại 3 "
    "hoặc 4 lần trong 24 giờ, tùy theo mức độ nặng nhẹ của bệnh và đáp ứng của người bệnh.\n\n"
    "Trẻ em cho tới 1 tuổi: 25 mg; 1 - 5 tuổi: 50 mg; 6 - 12 tuổi: 100 mg."
)


def test_a_childs_dose_under_a_route_printed_above_it_is_never_said_missing() -> None:
    from duocthu_desktop.artifacts import Monograph
    from duocthu_desktop.qa.answers.engine_extractive import ExtractiveEngine

    chunk = _chunk("hydrocortison", "lieu_luong_cach_dung", HYDROCORTISON_EMERGENCY)
    frame = QueryFrame(question="Bé 3 tuổi lên cơn hen phế quản cấp, tiêm tĩnh mạch hydrocortison liều bao nhiêu?",
                       drug_ids=["hydrocortison"], drug_mentions={"hydrocortison": "hydrocortison"},
                       section_key="lieu_luong_cach_dung", turn_type="dosing", population="tre_em",
                       age_years=3.0, route="tiem_tinh_mach")
    monograph = Monograph(drug_id="hydrocortison", title="HYDROCORTISON", start_physical=20, end_physical=21,
                          start_printed=300, end_printed=301)
    answer = ExtractiveEngine().answer_section(
        frame, SectionResult(drug_id="hydrocortison", section_key="lieu_luong_cach_dung", chunks=[chunk]), monograph)
    claims = " ".join(c.text for b in answer.blocks for c in b.claims)
    assert answer.decision == "answerable"
    assert "50 mg" in claims
    assert "không ghi liều" not in answer.message


def test_a_medicine_the_book_has_no_monograph_of_is_taken_as_its_class() -> None:
    """"đang tiêm enoxaparin": a heparin of low molecular weight, so an anticoagulant, though the book has no
    monograph of it; the contraindication for patients on anticoagulants bears on this patient."""
    question = "Bệnh nhân sau mổ đang tiêm enoxaparin dự phòng huyết khối, tiêm bắp ketorolac liều bao nhiêu?"
    frame = QueryFrame(question=question, drug_ids=["ketorolac"], drug_mentions={"ketorolac": "ketorolac"},
                       unknown_drugs=["enoxaparin"], turn_type="dosing", route="tiem_bap")
    assert "anticoagulant" in rules.Patient.of(frame).taking
    found = warnings_for(frame, {"chong_chi_dinh": _section("ketorolac", "chong_chi_dinh", KETOROLAC_CI)})
    assert [w.text for w in found] == ["Người bệnh đang dùng thuốc chống đông."]


def test_a_name_the_book_lacks_in_a_question_a_section_answers_is_context() -> None:
    """"Pha X vào chai Ringer lactat được không?": "Ringer" is no drug of the book, and the question is still one
    the drug's sentences answer (its incompatibilities), not a refusal."""
    frame = QueryFrame(question="Pha ceftriaxon vào chai Ringer lactat để truyền được không?",
                       drug_ids=["ceftriaxon"], drug_mentions={"ceftriaxon": "ceftriaxon"}, unknown_drugs=["Ringer"],
                       section_key="tuong_ky", turn_type="drug_attribute", route="truyen_tinh_mach")
    assert sentence_ask(frame) == SentenceAsk("focused", "tuong_ky")
    dose = frame.model_copy(update={"section_key": "lieu_luong_cach_dung", "turn_type": "dosing"})
    assert sentence_ask(dose) is None


def test_a_contraindication_that_is_the_route_itself_refuses_that_route() -> None:
    sentences = sentence_answer.drug_sentences([
        _chunk("thuoc_a", "chong_chi_dinh", "Quá mẫn với thuốc. Tiêm tĩnh mạch thuốc A."),
        _chunk("thuoc_a", "lieu_luong_cach_dung", "Tiêm dưới da 150 đơn vị, có thể tiêm tĩnh mạch chậm sau đó.", 1)])
    refused = sentence_answer._refused(sentences, "tiem_tinh_mach", "Thuốc A")
    assert refused is not None and "không dùng" in refused.message
    assert [c.text for b in refused.blocks for c in b.claims] == ["Tiêm tĩnh mạch thuốc A."]
    assert sentence_answer._refused(sentences, "tiem_duoi_da", "Thuốc A") is None


def test_interactions_asked_with_no_partner_are_the_section_and_with_one_its_sentences() -> None:
    frame = QueryFrame(question="Tím gentian bôi chung với thuốc khác có tương tác gì không?", drug_ids=["tim_gentian"],
                       drug_mentions={"tim_gentian": "Tím gentian"}, section_key="tuong_tac_thuoc",
                       turn_type="drug_attribute", route="boi")
    assert sentence_ask(frame) is None
    partner = frame.model_copy(update={"question": "Omeprazol dùng chung với clopidogrel có tương tác không?",
                                       "drug_ids": ["omeprazol"], "drug_mentions": {"omeprazol": "Omeprazol"},
                                       "route": None})
    assert sentence_ask(partner) == SentenceAsk("focused", "tuong_tac_thuoc")


def test_a_contraindication_for_the_youngest_children_does_not_hide_the_dose_of_a_child_of_no_age() -> None:
    """"không dùng cho trẻ dưới 30 tháng tuổi" for "trẻ 30 kg": shown first, the dose not hidden (the child's age is
    not known to be in it); for a child of 2 it is theirs."""
    from duocthu_desktop.qa.answers.patient_warnings import warning_answer

    ci = _section("ceftriaxon", "chong_chi_dinh", "Với dạng thuốc tiêm bắp: Mẫn cảm với lidocain; không dùng cho trẻ "
                                                   "dưới 30 tháng tuổi.")
    frame = QueryFrame(question="Ceftriaxon lậu không biến chứng, bệnh nhân là trẻ 30 kg", drug_ids=["ceftriaxon"],
                       drug_mentions={"ceftriaxon": "Ceftriaxon"}, turn_type="dosing", population="tre_em",
                       weight_kg=30.0)
    unknown = warning_answer(frame, {"chong_chi_dinh": ci})
    assert unknown is not None and unknown.blocks and not unknown.contraindicated
    two = warning_answer(frame.model_copy(update={"age_years": 2.0}), {"chong_chi_dinh": ci})
    assert two is not None and two.contraindicated


def test_a_groups_limit_the_dosage_section_prints_is_a_warning_for_that_group() -> None:
    dosing = _section("timolol", "lieu_luong_cach_dung", "Liều thường dùng lúc đầu là 1 giọt dung dịch 0,25% vào mắt "
                      "bị bệnh, 2 lần/ngày.", "Trẻ em: Liều dùng như người lớn, nhưng không nên dùng cho trẻ đẻ non và sơ sinh.")
    frame = QueryFrame(question="trẻ sơ sinh có dùng được timolol không?", drug_ids=["timolol"],
                       drug_mentions={"timolol": "timolol"}, population="so_sinh", turn_type="drug_attribute",
                       section_key="chong_chi_dinh")
    found = warnings_for(frame, {"lieu_luong_cach_dung": dosing})
    assert [w.text for w in found] == ["Trẻ em: Liều dùng như người lớn, nhưng không nên dùng cho trẻ đẻ non và sơ sinh."]
    adult = frame.model_copy(update={"population": "nguoi_lon", "question": "người lớn có dùng được timolol không?"})
    assert warnings_for(adult, {"lieu_luong_cach_dung": dosing}) == []


def test_when_to_take_it_is_asked_of_the_statements_that_print_the_topic() -> None:
    """"uống lúc nào, trước hay sau ăn?": the dosage statements printing meals answer it (dosage.fit's instruction
    topics), not a ranking of every sentence by a few asking words."""
    frame = QueryFrame(question="Glucobay uống lúc nào, trước hay sau ăn?", drug_ids=["acarbose"],
                       drug_mentions={"acarbose": "Glucobay"}, section_key="lieu_luong_cach_dung", turn_type="dosing",
                       route="uong")
    assert sentence_ask(frame) is None


def test_a_two_topic_how_to_take_question_gets_each_topics_dosage_sentence() -> None:
    sentences = sentence_answer.drug_sentences([
        _chunk("thuoc_a", "duoc_ly_co_che", "Thức ăn làm chậm hấp thu; AUC sau bữa ăn giảm 43%."),
        _chunk("thuoc_a", "lieu_luong_cach_dung", "Uống ít nhất 1 giờ trước bữa ăn. Phải nuốt cả viên, không được "
                                                  "nghiền nhỏ hoặc nhai. Người lớn: 20 mg/ngày.", 1)])
    got = _texts(sentence_answer._printing_the_topic("thuốc A uống lúc nào, nhai được không?", sentences))
    assert got == ["Uống ít nhất 1 giờ trước bữa ăn.", "Phải nuốt cả viên, không được nghiền nhỏ hoặc nhai."]
    # a topic the dosage section does not print leaves the question to the ranking
    assert sentence_answer._printing_the_topic("thuốc A bẻ đôi viên được không, quên liều thì sao",
                                               sentences[:1]) == []
