"""When a child's dose needs the age or the weight first (`dosage.fit`), read from what the book prints: a band
that starts after birth ("Trên 1 tuổi", "Trẻ từ 1 tháng - 18 tuổi") or a dose that sets the newborn period
aside asks the age; a newborn's bands by days ask them even though "sơ sinh" was said; one dose per kg for every
child asks nothing. Texts from sample-e's tuning monographs and the sample book."""

from __future__ import annotations

from duocthu_desktop.dosage.fit import Patient, choose, doses_group_in_general
from tests.test_dosing_parser import read

CHILD = Patient(population="tre_em")


def test_a_childs_dose_that_sets_the_newborn_period_aside_asks_the_age() -> None:
    rows = read("Trẻ em:\nLiều chung (ngoài thời kỳ sơ sinh): 30 mg/kg/ngày chia làm 2 liều đều nhau.")
    assert choose(rows, CHILD).ask_age_or_weight
    assert not choose(rows, Patient(population="tre_em", age_years=4, weight_kg=16)).ask_age_or_weight


def test_a_band_that_starts_after_birth_asks_the_age() -> None:
    rows = read("Trẻ em trên 1 tuổi: 25 - 100 mg/kg ngày, chia thành 3 - 4 lần (tối đa 4 g/ngày).")
    assert choose(rows, CHILD).ask_age_or_weight
    rows = read("Trẻ từ 1 tháng - 18 tuổi: Khởi đầu tiêm tĩnh mạch 500 microgam/kg trong khoảng 1 phút.")
    assert choose(rows, CHILD).ask_age_or_weight
    fit = choose(rows, Patient(population="tre_em", age_years=6))
    assert not fit.ask_age_or_weight and fit.rows


def test_one_dose_per_kg_for_every_child_asks_nothing() -> None:
    rows = read("Trẻ em: Uống 0,75 mg/kg/ngày, hoặc 25 mg/m2 /ngày chia 4 lần.")
    fit = choose(rows, CHILD)
    assert not fit.ask_age_or_weight and not fit.ask_population
    assert [r.text for r in fit.rows] == ["Trẻ em: Uống 0,75 mg/kg/ngày, hoặc 25 mg/m2 /ngày chia 4 lần."]


def test_a_newborns_bands_by_days_are_asked_though_the_newborn_was_named() -> None:
    rows = read("Trẻ sơ sinh 7 ngày tuổi hoặc nhỏ hơn: 25 mg/kg, cách 12 giờ một lần.\n"
                "Trẻ sơ sinh 7 - 28 ngày tuổi: 25 mg/kg cách 8 giờ/lần.")
    assert choose(rows, Patient(population="so_sinh")).ask_age_or_weight
    fit = choose(rows, Patient(population="so_sinh", age_years=10 / 365))
    assert [r.text for r in fit.rows] == ["Trẻ sơ sinh 7 - 28 ngày tuổi: 25 mg/kg cách 8 giờ/lần."]


def test_a_group_dosed_only_under_named_indications_is_not_dosed_in_general() -> None:
    """The sample book's aspirin doses children only for juvenile arthritis and Kawasaki disease."""
    rows = read("Chống viêm khớp dạng thấp thiếu niên:\nTrẻ em: uống 60 - 130 mg/kg/ngày, chia làm nhiều liều nhỏ.\n"
                "Bệnh Kawasaki:\nTrẻ em: uống 3 - 5 mg/kg/ngày (uống 1 lần).")
    assert not doses_group_in_general(rows, Patient(population="tre_em", age_years=10))
    assert doses_group_in_general(rows, Patient(population="tre_em", age_years=3, condition="bệnh Kawasaki"))
    newborn = read("Trẻ sơ sinh 7 ngày tuổi hoặc nhỏ hơn: 25 mg/kg, cách 12 giờ một lần.")
    assert doses_group_in_general(newborn, Patient(population="so_sinh"))


def test_an_age_said_with_be_is_repeated_once_in_the_question() -> None:
    from duocthu_desktop.qa.decision_table import pediatric_question
    from duocthu_desktop.qa.understanding.frame import QueryFrame

    frame = QueryFrame(question="bé được 10 ngày tuổi", population="so_sinh", age_years=10 / 365,
                       age_text="bé được 10 ngày tuổi")
    assert pediatric_question(frame) == "Bé được 10 ngày tuổi, vậy bé nặng bao nhiêu kg?"
    frame = QueryFrame(question="bé 5 tuổi", population="tre_em", age_years=5.0, age_text="5 tuổi")
    assert pediatric_question(frame) == "Bé 5 tuổi, vậy bé nặng bao nhiêu kg?"


def test_a_preterm_newborn_gets_the_band_by_weeks_not_the_term_newborns_dose() -> None:
    """The sample book's paracetamol infusion: "Sơ sinh thiếu tháng trên 32 tuần" beside a plain "Sơ sinh"."""
    rows = read("Truyền tĩnh mạch:\nSơ sinh thiếu tháng trên 32 tuần chỉnh theo tuổi thai, 7,5 mg/kg cách 8 giờ/lần, "
                "tối đa 25 mg/kg/24 giờ.\nSơ sinh: 10 mg/kg cách 4 - 6 giờ/lần; tối đa 30 mg/kg/24 giờ.")
    preterm = choose(rows, Patient(population="so_sinh", gestational_weeks=34, route="truyen_tinh_mach")).rows
    assert [r.text.split(",")[0] for r in preterm] == ["Sơ sinh thiếu tháng trên 32 tuần chỉnh theo tuổi thai"]
    term = choose(rows, Patient(population="so_sinh", route="truyen_tinh_mach")).rows
    assert any(r.text.startswith("Sơ sinh: 10 mg/kg") for r in term)


def test_an_age_in_days_is_read_after_a_newborns_own_words() -> None:
    from duocthu_desktop.qa.understanding.extractors import extract_age
    from duocthu_desktop.qa.understanding.textmatch import Text

    age = extract_age(Text.of("amoxicillin tiêm tĩnh mạch trẻ sơ sinh đủ tháng 10 ngày tuổi"))
    assert age is not None and abs(age.years - 10 / 365) < 1e-9
    rows = read("Trẻ em (từ 1 tháng - 15 tuổi): 100 - 200 mg/kg/ngày.\nSơ sinh đủ tháng (0 - 7 ngày): 100 - 150 mg/kg/ngày")
    fit = choose(rows, Patient(population="so_sinh", age_years=age.years))
    assert fit.rows == []  # neither the 0 - 7 day band nor the band from 1 month holds a 10-day-old


def test_a_childrens_row_that_gives_the_adults_dose_asks_no_group() -> None:
    # the tuning part's eye drop: "Trẻ em: Liều dùng như người lớn, nhưng không nên dùng cho trẻ đẻ non và sơ sinh."
    same = read("Liều thường dùng lúc đầu là 1 giọt dung dịch 0,25% vào mắt bị bệnh, 2 lần/ngày.\n"
                "Trẻ em: Liều dùng như người lớn, nhưng không nên dùng cho trẻ đẻ non và sơ sinh.")
    assert not choose(same, Patient()).ask_population
    # a children's dose of its own still asks the group
    own = read("Người lớn: 500 mg, cách 12 giờ một lần.\nTrẻ em: 25 mg/kg, cách 12 giờ một lần.")
    assert choose(own, Patient()).ask_population


def test_an_unlabelled_weight_band_below_an_adults_weight_doses_children_and_asks_the_weight() -> None:
    """The sample book's amoxicilin: 'Người dưới 40 kg: 45 mg/kg/ngày chia làm 3 lần. Người lớn ≥ 40 kg: 500 mg
    cách 8 giờ/lần.' A 6-year-old of unknown weight may be in the first band: the weight is asked, then the
    band's dose is the child's."""
    rows = read("Dự phòng hậu phơi nhiễm sau khi tiếp xúc với bào tử bệnh than:\n"
                "Người dưới 40 kg: 45 mg/kg/ngày chia làm 3 lần. Người lớn ≥ 40 kg: 500 mg cách 8 giờ/lần.")
    assert choose(rows, Patient(population="tre_em", age_years=6)).ask_age_or_weight
    fit = choose(rows, Patient(population="tre_em", age_years=6, weight_kg=20))
    assert [r.text for r in fit.rows] == ["Người dưới 40 kg: 45 mg/kg/ngày chia làm 3 lần."]
