"""Which rows fit a patient, read from what the book prints: bands joined with "và" fit either band, a renal band
printed as a filtration rate is a band, a heading for both organs doses a kidney patient, numbers win over a band
named by its severity, a renal table's dialysis row and a table read by the measure the question names answer
without a clarify, and a group a label leaves out is not the group it names. Made-up sections."""

from __future__ import annotations

from duocthu_desktop.dosage.fit import Patient, alternative_bands, choose
from duocthu_desktop.dosage.parser import read_fields, read_section
from duocthu_desktop.dosage.words import populations_in, renal_in
from tests.test_dosing_parser import chunk, read, row

NEONATES = (
    "Trẻ sơ sinh:\n"
    "Trẻ sơ sinh cân nặng lúc sinh < 1,2 kg và trẻ dưới 1 tuần tuổi có cân nặng lúc sinh từ 1,2 - 2 kg: "
    "75 mg/kg, cách 12 giờ/lần.\n"
    "Trẻ sơ sinh < 1 tuần tuổi có cân nặng lúc sinh > 2 kg và trẻ ≥ 1 tuần tuổi có cân nặng lúc sinh từ "
    "1,2 - 2 kg: 75 mg/kg, cách 8 giờ/lần.\n"
    "Trẻ sơ sinh ≥ 1 tuần tuổi có cân nặng lúc sinh > 2 kg: 100 mg/kg, cách 8 giờ/lần."
)


def _texts(rows) -> list[str]:
    return [r.text for r in rows]


def test_a_row_with_two_bands_joined_by_va_fits_either_band() -> None:
    rows = read(NEONATES)
    five_days = choose(rows, Patient(population="so_sinh", age_years=5 / 365, weight_kg=2.5)).rows
    assert [t.split(": ")[-1] for t in _texts(five_days)] == ["75 mg/kg, cách 8 giờ/lần."]
    ten_days = choose(rows, Patient(population="so_sinh", age_years=10 / 365, weight_kg=1.5)).rows
    assert [t.split(": ")[-1] for t in _texts(ten_days)] == ["75 mg/kg, cách 8 giờ/lần."]
    small = choose(rows, Patient(population="so_sinh", age_years=3 / 365, weight_kg=1.0)).rows
    assert [t.split(": ")[-1] for t in _texts(small)] == ["75 mg/kg, cách 12 giờ/lần."]


def test_a_second_bound_with_no_group_of_its_own_is_the_same_band() -> None:
    rows = read("Trẻ em ≤ 18 tuổi và cân nặng ≥ 40 kg: 3,2 g, cách 6 - 8 giờ/lần.")
    assert alternative_bands(rows[0]) == []
    assert not choose(rows, Patient(age_years=10, weight_kg=30)).rows


def test_a_filtration_rate_or_a_bare_clearance_is_a_renal_band() -> None:
    band = renal_in("Người có tốc độ lọc cầu thận 10 - 50 ml/phút, cách 8 giờ dùng thuốc một lần.")
    assert band is not None and (band.clcr_min, band.clcr_max) == (10, 50)
    band = renal_in("Nếu độ thanh thải 16 - 40 ml/phút, liều khởi đầu là 200 mg/m².")
    assert band is not None and (band.clcr_min, band.clcr_max) == (16, 40)


def test_a_heading_for_both_organs_doses_a_kidney_patient() -> None:
    rows = read("Người lớn: uống 10 mg/lần, ngày 4 lần.\n"
                "Suy thận hoặc suy gan: Liều phải giảm hoặc kéo dài khoảng cách 2 liều.\n"
                "Người có tốc độ lọc cầu thận 10 - 50 ml/phút, cách 8 giờ dùng thuốc một lần.\n"
                "Người có tốc độ lọc cầu thận < 10 ml/phút, cách 8 - 16 giờ dùng thuốc một lần.")
    fit = choose(rows, Patient(clcr=30, renal_impairment=True))
    assert any("10 - 50 ml/phút" in t for t in _texts(fit.rows))
    assert not any("< 10 ml/phút" in t or "10 mg/lần" in t for t in _texts(fit.rows))


def test_numbers_win_over_a_band_named_only_by_its_severity() -> None:
    rows = read("Liều thông thường 10 mg, uống 1 lần/ngày.\n"
                "Suy thận mức độ nhẹ và vừa: Không cần hiệu chỉnh liều.\n"
                "Suy thận nặng (Clcr < 20 ml/phút): Thận trọng khi sử dụng.")
    shown = _texts(choose(rows, Patient(clcr=15, renal_impairment=True)).rows)
    assert any("Clcr < 20" in t for t in shown) and not any("nhẹ và vừa" in t for t in shown)
    # with no clearance given, both bands the book names by words are shown
    shown = _texts(choose(rows, Patient(renal_impairment=True)).rows)
    assert any("nhẹ và vừa" in t for t in shown)


TABLE = ("Độ thanh thải creatinin (ml/phút) | Liều\n> 60 | 3 g, cứ 4 giờ /1 lần\n10 - 30 | 2 g, cứ 8 giờ /1 lần\n"
         "Thẩm tách máu | 2 g, cứ 12 giờ 1 lần")


def test_a_dialysis_patient_gets_the_renal_table_printing_a_dialysis_row() -> None:
    rows = read_section("thuoc_a", [chunk("Người lớn: Tiêm truyền tĩnh mạch 3 g, cứ 4 giờ/lần.", 0),
                                    chunk("Trẻ em: Tiêm truyền tĩnh mạch 80 mg/kg, cách 8 giờ/lần.", 1),
                                    chunk("Người lớn có suy thận cần giảm liều như sau:", 2),
                                    chunk(TABLE, 3, table=True)])
    fit = choose(rows, Patient(dialysis=True, renal_impairment=True))
    assert not fit.ask_population
    assert [r.quarantined for r in fit.rows] == [True]


APTT = ("APTT (giây) | Liều điều chỉnh\n< 50 | Tiêm 1 lần 50 đvqt/kg\n50 - 59 | Tăng tốc độ truyền khoảng 10%\n"
        "60 - 85 | Giữ nguyên tốc độ truyền")


def test_a_table_read_by_the_measure_the_question_names_answers_without_a_clarify() -> None:
    rows = read_section("thuoc_a", [chunk("Trẻ sơ sinh: Tiêm tĩnh mạch 75 đvqt/kg.", 0),
                                    chunk("Trẻ từ 1 - 18 tuổi: Tiêm tĩnh mạch 75 đvqt/kg, sau đó 20 đvqt/kg/giờ.", 1),
                                    chunk("Hướng dẫn điều chỉnh liều cho trẻ em theo APTT", 2),
                                    chunk(APTT, 3, table=True)])
    fit = choose(rows, Patient(population="tre_em", question="Trẻ đang truyền, APTT 55 giây thì chỉnh thế nào?"))
    assert not fit.ask_age_or_weight and [r.quarantined for r in fit.rows] == [True]
    # a question that names no measure of the table is answered from the doses, as before
    fit = choose(rows, Patient(population="tre_em", question="liều cho trẻ em?"))
    assert fit.ask_age_or_weight


def test_a_group_the_label_leaves_out_is_not_the_group_it_names() -> None:
    assert populations_in("Liều chung (ngoài thời kỳ sơ sinh)") == set()
    rows = read("Trẻ em:\nLiều chung (ngoài thời kỳ sơ sinh): 30 mg/kg/ngày chia làm 2 liều đều nhau.")
    assert row(rows, "Liều chung").population == "tre_em"


def test_older_children_named_before_adults_are_the_adults_group() -> None:
    f = read_fields("Trẻ em trên 15 tuổi và người lớn", label=True)
    assert f.population == "nguoi_lon" and f.age is not None and f.age.min == 15
