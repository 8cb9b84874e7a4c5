"""The patient's lab values against the thresholds the book prints, as numbers with their units."""

from __future__ import annotations

import pytest

from duocthu_desktop.qa.answers import warning_rules as rules
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.qa.understanding.lab_values import LabValue, bears_on, lab_values, thresholds


@pytest.mark.parametrize(
    ("question", "analyte", "value", "unit"),
    [
        ("Kali máu 6,2 mmol/l có dùng được không", "kali", 6.2, "mmol/l"),
        ("kali mau 5.8 mEq/L", "kali", 5.8, "meq/l"),
        ("bệnh nhân có INR 4,5", "inr", 4.5, None),
        ("tiểu cầu 40 000/mm3", "tieu_cau", 40000.0, "/mm3"),
        ("natri huyết thanh là 128 mmol/lít", "natri", 128.0, "mmol/lit"),
        ("Hb 8 g/dl", "hemoglobin", 8.0, "g/dl"),
    ],
)
def test_a_value_the_person_gives_is_read_with_its_unit(question, analyte, value, unit):
    assert lab_values(question) == [LabValue(analyte=analyte, value=value, unit=unit)]


def test_a_lab_word_without_a_number_is_no_value():
    assert lab_values("Thuốc này có làm tăng kali máu không?") == []


def test_the_book_prints_bands_after_the_analyte():
    [t] = thresholds("Người bệnh có natri máu dưới 130 mmol/lít.")
    assert (t.analyte, t.hi, t.unit) == ("natri", 130.0, "mmol/l")
    platelets, white = thresholds("Số lượng tiểu cầu 50 000/mm³ - 100 000/mm³ và bạch cầu trên 2 000/mm³")
    assert (platelets.analyte, platelets.lo, platelets.hi) == ("tieu_cau", 50000.0, 100000.0)
    assert (white.analyte, white.lo, white.hi) == ("bach_cau", 2000.0, float("inf"))
    assert thresholds("Bổ sung kali 20 mmol mỗi ngày.") == []  # an amount, not a band


@pytest.mark.parametrize(
    ("sentence", "labs", "verdict"),
    [
        ("Chống chỉ định: tăng kali huyết (kali huyết > 5,5 mmol/lít).", [("kali", 6.2, "mmol/l")], True),
        ("Chống chỉ định: tăng kali huyết (kali huyết > 5,5 mmol/lít).", [("kali", 4.1, "mmol/l")], False),
        ("Chống chỉ định: tăng kali huyết (kali huyết > 5,5 mmol/lít).", [("kali", 6.0, "meq/l")], True),
        ("Không dùng khi tiểu cầu dưới 50 000/mm³.", [("tieu_cau", 40.0, "g/l")], True),  # 40 G/l = 40 000/mm³
        ("Không dùng khi tiểu cầu dưới 50 000/mm³.", [("tieu_cau", 150000.0, "/mm3")], False),
        ("Không dùng khi tiểu cầu dưới 50 000/mm³.", [("kali", 6.0, "mmol/l")], None),
        ("Thận trọng khi natri máu dưới 130 mmol/lít.", [("natri", 128.0, None)], True),
    ],
)
def test_a_band_bears_on_the_patient_only_when_the_value_lies_in_it(sentence, labs, verdict):
    assert bears_on(sentence, [LabValue(analyte=a, value=v, unit=u) for a, v, u in labs]) is verdict


def test_a_lab_value_makes_the_sentence_a_warning_for_this_patient():
    frame = QueryFrame(question="kali máu 6,2 mmol/l", lab_values=lab_values("kali máu 6,2 mmol/l"))
    patient = rules.Patient.of(frame)
    assert patient.any()
    assert rules.topics_of("Chống chỉ định khi kali huyết > 5,5 mmol/lít.", patient) == ("xet_nghiem",)
    low = rules.Patient.of(QueryFrame(question="kali 4 mmol/l", lab_values=lab_values("kali 4 mmol/l")))
    assert rules.topics_of("Chống chỉ định khi kali huyết > 5,5 mmol/lít.", low) == ()


def test_a_contraindication_for_another_route_is_not_this_patients():
    child = rules.Patient(age=(5.0, 5.0), route="other")
    sentence = "Chống chỉ định dùng thuốc nhỏ mắt 10 % cho trẻ em."
    assert rules.topics_of(sentence, child) == ()
    assert rules.topics_of(sentence, rules.Patient(age=(5.0, 5.0), route="nho_mat")) == ("tre_em",)
    assert rules.topics_of(sentence, rules.Patient(age=(5.0, 5.0))) == ("tre_em",)


def test_a_sentence_for_premature_neonates_is_not_a_two_year_olds():
    toddler = rules.Patient(age=(2.0, 2.0))
    assert rules.topics_of("Chống chỉ định cho trẻ sinh non đang chảy máu.", toddler) == ()
    assert rules.topics_of("Chống chỉ định cho trẻ dưới 6 tuổi.", toddler) == ("tre_em",)


def test_a_route_named_for_another_drug_does_not_rule_the_sentence_out():
    """"Việc tiêm vào mạch máu các thuốc cản quang có iod ...": the injection is the contrast medium's, so the
    caution still bears on a patient taking the drug by mouth."""
    assert rules._route_fits("Việc tiêm vào mạch máu các thuốc cản quang có iod có thể gây suy thận.", "uong")
    assert not rules._route_fits("Không dùng dung dịch nhỏ mắt 10 % cho trẻ em.", "other")
    kidney = rules.Patient(route="uong", renal=True)
    assert rules.topics_of("Thận trọng khi tiêm thuốc cản quang ở người suy thận.", kidney) == ("suy_than",)


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("Bệnh nhân huyết áp 95/60 mmHg", [("huyet_ap_tam_thu", 95.0, "mmhg"), ("huyet_ap_tam_truong", 60.0, "mmhg")]),
        ("nhịp tim 48 lần/phút", [("nhip_tim", 48.0, "lan/phut")]),
        ("creatinin huyết thanh 180 µmol/l", [("creatinin", 180.0, "µmol/l")]),
        ("thanh thải creatinin 25 ml/phút", []),  # a clearance, not the serum creatinine
    ],
)
def test_vital_signs_and_creatinine_are_read_with_their_units(question, values):
    assert lab_values(question) == [LabValue(analyte=a, value=v, unit=u) for a, v, u in values]


@pytest.mark.parametrize(
    ("sentence", "labs", "verdict"),
    [
        # either band the book prints after the analyte counts (men's and women's)
        ("Rối loạn chức năng thận (creatinin huyết thanh ≥ 1,5 mg/decilít ở nam giới hoặc ≥ 1,4 mg/decilít ở nữ "
         "giới) hoặc Clcr < 60 ml/phút.", [("creatinin", 1.45, "mg/dl")], True),
        ("Rối loạn chức năng thận (creatinin huyết thanh ≥ 1,5 mg/decilít ở nam giới hoặc ≥ 1,4 mg/decilít ở nữ "
         "giới) hoặc Clcr < 60 ml/phút.", [("creatinin", 1.2, "mg/dl")], False),
        # µmol/l against mg/dl: 180 µmol/l is about 2,0 mg/dl; 80 µmol/l about 0,9 mg/dl
        ("Không dùng khi creatinin huyết thanh ≥ 1,5 mg/decilít.", [("creatinin", 180.0, "µmol/l")], True),
        ("Không dùng khi creatinin huyết thanh ≥ 1,5 mg/decilít.", [("creatinin", 80.0, None)], False),
        ("Thận trọng khi huyết áp tâm thu dưới 105 mmHg.", [("huyet_ap_tam_thu", 95.0, "mmhg")], True),
        ("Thận trọng khi huyết áp tâm thu dưới 105 mmHg.", [("huyet_ap_tam_thu", 130.0, "mmhg")], False),
        ("Chống chỉ định khi nhịp tim dưới 50 lần/phút.", [("nhip_tim", 45.0, "lan/phut")], True),
        ("Chống chỉ định khi nhịp tim dưới 50 lần/phút.", [("nhip_tim", 72.0, "lan/phut")], False),
        # another analyte's band after the first is not the first's
        ("Kali huyết > 5,5 mmol/lít, natri < 130 mmol/lít.", [("kali", 4.0, "mmol/l")], False),
    ],
)
def test_a_vital_sign_or_creatinine_band_bears_only_when_the_value_lies_in_it(sentence, labs, verdict):
    assert bears_on(sentence, [LabValue(analyte=a, value=v, unit=u) for a, v, u in labs]) is verdict


def test_a_lab_value_given_is_not_a_condition_matched_by_its_analytes_name():
    """'creatinin huyết thanh 1,2 mg/dl' is compared as a number; its words do not match 'creatinin huyết thanh'
    printed in a contraindication as a condition of the patient."""
    question = "Bệnh nhân nữ creatinin huyết thanh 1,2 mg/dl dùng thuốc A"
    frame = QueryFrame(question=question, lab_values=lab_values(question))
    sentence = "Rối loạn chức năng thận (creatinin huyết thanh ≥ 1,5 mg/decilít) hoặc Clcr < 60 ml/phút."
    assert rules.topics_of(sentence, rules.Patient.of(frame)) == ()


@pytest.mark.parametrize(
    ("sentence", "weight", "age", "topics"),
    [
        ("Giảm liều đối với người có trọng lượng dưới 50 kg.", 45.0, None, ("can_nang",)),
        ("Giảm liều đối với người có trọng lượng dưới 50 kg.", 70.0, None, ()),
        ("Liều 1 mg/kg, tối đa 30 mg.", 45.0, None, ()),  # a dose per kilogram bounds no weight
        ("Người bệnh 10 - 30 kg: thận trọng.", 20.0, None, ("can_nang",)),
        # a bound drawn for children is not an adult's
        ("Không nên dùng cho trẻ cân nặng dưới 40 kg.", 35.0, (30.0, 30.0), ()),
        ("Không nên dùng cho trẻ cân nặng dưới 40 kg.", 35.0, (10.0, 10.0), ("tre_em", "can_nang")),
    ],
)
def test_the_patients_weight_against_the_weight_the_book_bounds(sentence, weight, age, topics):
    assert rules.topics_of(sentence, rules.Patient(weight=weight, age=age)) == topics


def test_two_bounds_joined_are_one_band():
    """"INR > 5 nhưng < 9" is the band between: a value of 25 is not in it, 6,5 is."""
    [t] = thresholds("Nếu INR > 5 nhưng < 9 và người bệnh không có biểu hiện xuất huyết")
    assert (t.analyte, t.lo, t.hi) == ("inr", 5.0, 9.0)
    assert bears_on("Nếu INR > 5 nhưng < 9 và người bệnh không xuất huyết", [LabValue(analyte="inr", value=25)]) \
        is False
    assert bears_on("Nếu INR > 5 nhưng < 9 và người bệnh không xuất huyết", [LabValue(analyte="inr", value=6.5)])
    [below] = thresholds("Nếu INR trên vùng điều trị nhưng dưới 5 và nếu người bệnh không xuất huyết")
    assert (below.lo, below.hi) == (float("-inf"), 5.0)


def test_a_table_headed_by_the_analyte_shows_the_row_that_holds_the_value():
    """An untrusted table "APTT (giây) | Liều điều chỉnh" read for APTT 100: its first line and the row whose band
    holds 100 ("96 - 120"), never the next band's; a value on the boundary of two rows shows the first line only."""
    from duocthu_desktop.artifacts import Chunk
    from duocthu_desktop.qa.answers.cited_answer import CitedAnswer

    text = ("APTT (giây) | Liều điều chỉnh\n60 - 85 | Giữ nguyên tốc độ\n96 - 120 | Ngừng truyền trong 15 phút\n"
            "> 120 | Ngừng truyền trong 45 phút")
    chunk = Chunk(chunk_id="x__lieu_luong_cach_dung__block__t1", drug_id="x", section_key="lieu_luong_cach_dung",
                  part_index=1, text=text, printed_pages=[1], physical_pages=[1], kind="table", quarantined=True)
    answer = CitedAnswer()
    answer.add_quarantined("X: bảng", chunk, [LabValue(analyte="aptt", value=100)])
    shown = [c.text for b in answer.blocks for c in b.claims]
    assert shown[0].startswith("APTT (giây)") and any("15 phút" in s for s in shown)
    assert not any("45 phút" in s for s in shown)
    edge = CitedAnswer()
    edge.add_quarantined("X: bảng", chunk, [LabValue(analyte="aptt", value=120)])
    assert len([c for b in edge.blocks for c in b.claims]) == 1
    assert lab_values("Trẻ đang truyền heparin, APTT 100 giây") == [LabValue(analyte="aptt", value=100.0)]
