"""Which rows fit a patient, read from what the book prints: bands joined with "và" fit either band, a renal band
printed as a filtration rate is a band, a heading for both organs doses a kidney patient, numbers win over a band
named by its severity, a renal table's dialysis row and a table read by the measure the question names answer
without a clarify, and a group a label leaves out is not the group it names. Made-up sections."""

from __future__ import annotations

from duocthu_desktop.dosage.fit import Patient, alternative_bands, cases_replaced, choose, clcr_table_lines
from duocthu_desktop.dosage.parser import read_fields, read_section
from duocthu_desktop.dosage.rows import AgeBound, DoseRow, RenalBand, WeightBound
from duocthu_desktop.dosage.titles import title
from duocthu_desktop.dosage.words import names_dialysis, populations_in, renal_in, weight_in
from duocthu_desktop.qa.understanding.frame import QueryFrame
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


def test_a_heading_for_both_organs_speaks_to_a_liver_patient_without_its_clearance_bands() -> None:
    rows = read("Người lớn: uống 10 mg/lần, ngày 4 lần.\n"
                "Trẻ em: uống 0,75 mg/kg/ngày, chia 4 lần.\n"
                "Suy thận hoặc suy gan: Liều phải giảm hoặc kéo dài khoảng cách 2 liều.\n"
                "Người có tốc độ lọc cầu thận 10 - 50 ml/phút, cách 8 giờ dùng thuốc một lần.")
    fit = choose(rows, Patient(hepatic_impairment=True))
    assert not fit.ask_population
    assert any("kéo dài khoảng cách 2 liều" in t for t in _texts(fit.rows))
    assert not any("10 - 50 ml/phút" in t or "10 mg/lần" in t for t in _texts(fit.rows))


def test_the_same_amounts_by_two_routes_are_shown_by_route_not_asked() -> None:
    rows = read("Dự phòng viêm nội tâm mạc:\n"
                "Người lớn: Một liều duy nhất 2 g, uống 1 giờ trước khi làm thủ thuật.\n"
                "Người lớn: Truyền tĩnh mạch 2 g trong vòng 30 phút, một giờ trước khi làm thủ thuật.")
    fit = choose(rows, Patient(population="nguoi_lon"))
    assert not fit.ask_route and len(fit.rows) == 2
    rows = read("Người lớn: uống 500 mg/lần, ngày 3 lần.\n"
                "Người lớn: truyền tĩnh mạch 1 g, cách 8 giờ/lần.")
    assert choose(rows, Patient(population="nguoi_lon")).ask_route  # amounts differ: the route decides


def test_a_childs_weight_that_falls_in_a_weight_band_needs_no_age() -> None:
    rows = read("Trẻ em: Trẻ trên 3 tháng tuổi đến 12 tuổi là 8 mg/kg/lần, 2 lần mỗi ngày.\n"
                "Với trẻ cân nặng ≥ 14 kg - 21 kg: uống 150 mg, 2 lần mỗi ngày.\n"
                "Với trẻ cân nặng > 21 kg - dưới 30 kg: uống 150 mg vào buổi sáng và 300 mg vào buổi tối.\n"
                "Trẻ > 16 tuổi có thể dùng liều như người lớn.")
    fit = choose(rows, Patient(population="tre_em", weight_kg=25))
    assert not fit.ask_age_or_weight
    assert _texts(fit.rows) == ["Với trẻ cân nặng > 21 kg - dưới 30 kg: uống 150 mg vào buổi sáng và 300 mg vào "
                                "buổi tối."]
    # a statement that prints two weight bands as one is no band to decide by: the age is still asked
    rows = read("Trẻ em 1 - 11 tuổi và trọng lượng ≥ 10 kg: uống 10 mg.\n"
                "Từ 10 tới 20 kg: 10 mg ≥ 20 kg: 10 hoặc 20 mg\n"
                "Trẻ em ≥ 12 tuổi có thể dùng liều như người lớn.")
    assert choose(rows, Patient(population="tre_em", weight_kg=15)).ask_age_or_weight


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


def _row(text: str, **fields) -> DoseRow:
    return DoseRow(drug_id="thuoc_a", chunk_id="thuoc_a__lieu_luong_cach_dung__0", printed_page=100, text=text,
                   start=0, end=len(text), **fields)


def test_an_asked_indication_keeps_its_own_rows_not_a_later_heading_printed_below_it() -> None:
    # the later heading's rows carry the earlier heading among theirs: they are not under it
    rows = [_row("Đau vừa: Người lớn: Uống 30 mg cách 4 giờ.", indication="Đau vừa", population="nguoi_lon",
                 route=["uong"], headings=["Đau vừa", "Người lớn"]),
            _row("Ho khan: Người lớn: 10 - 20 mg/lần.", indication="Ho khan", population="nguoi_lon",
                 headings=["Ho khan"]),
            _row("Tiêu chảy cấp: người lớn, 30 mg uống 3 lần mỗi ngày.", indication="Tiêu chảy cấp",
                 population="nguoi_lon", route=["uong"], headings=["Ho khan", "Tiêu chảy cấp"])]
    for condition in ("ho khan", None):
        fit = choose(rows, Patient(population="nguoi_lon", route="uong", condition=condition,
                                   question="Người lớn ho khan, dùng sirô liều bao nhiêu?"))
        assert _texts(fit.rows) == ["Ho khan: Người lớn: 10 - 20 mg/lần."]


def test_a_qualifier_under_the_asked_indication_stays_with_it() -> None:
    rows = [_row("Viêm phổi: 1 g mỗi 8 giờ.", indication="Viêm phổi", headings=["Viêm phổi"], route=["uong"]),
            _row("Cách khác: 2 g mỗi 12 giờ.", indication="Cách khác", headings=["Viêm phổi", "Cách khác"],
                 route=["uong"]),
            _row("Viêm da: 500 mg mỗi 12 giờ.", indication="Viêm da", headings=["Viêm da"], route=["uong"])]
    fit = choose(rows, Patient(population="nguoi_lon", condition="viêm phổi", question="viêm phổi liều?"))
    assert "Viêm da: 500 mg mỗi 12 giờ." not in _texts(fit.rows)
    assert "Viêm phổi: 1 g mỗi 8 giờ." in _texts(fit.rows)


def test_an_elderly_patient_gets_the_band_that_starts_at_the_elderly_age() -> None:
    rows = [_row("Liều thông thường 10 mg, có thể tăng lên 20 mg.", population="nguoi_lon", route=["uong"]),
            _row("Liều dùng ở người trên 65 tuổi: Liều ban đầu bằng 1/2 liều thông thường.", population="nguoi_lon",
                 age=AgeBound(min=65, unit="nam"))]
    fit = choose(rows, Patient(population="nguoi_cao_tuoi", age_years=72, question="72 tuổi liều dùng?"))
    assert _texts(fit.rows) == ["Liều dùng ở người trên 65 tuổi: Liều ban đầu bằng 1/2 liều thông thường."]
    # a band starting later than the patient's age is not his
    later = [rows[0], rows[1].model_copy(update={"age": AgeBound(min=75, unit="nam")})]
    fit = choose(later, Patient(population="nguoi_cao_tuoi", age_years=68, question="68 tuổi?"))
    assert _texts(fit.rows) == ["Liều thông thường 10 mg, có thể tăng lên 20 mg."]


def test_a_childs_maintenance_row_with_no_route_stays_with_its_bands_routed_start() -> None:
    band = ["Động kinh", "Trẻ em từ 6 đến 12 tuổi"]
    rows = [_row("Bắt đầu uống 100 mg, 2 lần/ngày.", population="tre_em", route=["uong"],
                 age=AgeBound(min=6, max=12, unit="nam"), headings=band),
            _row("Liều duy trì thường là 400 - 800 mg/ngày.", population="tre_em",
                 age=AgeBound(min=6, max=12, unit="nam"), headings=band),
            _row("Bắt đầu 10 mg/kg/ngày.", population="tre_em", route=["uong"], age=AgeBound(max=6, unit="nam"),
                 headings=["Động kinh", "Trẻ em dưới 6 tuổi"]),
            _row("Liều duy trì 15 - 35 mg/kg/ngày.", population="tre_em", age=AgeBound(max=6, unit="nam"),
                 headings=["Động kinh", "Trẻ em dưới 6 tuổi"]),
            _row("Đặt trực tràng 250 mg/lần.", population="tre_em", route=["truc_trang"],
                 age=AgeBound(max=6, unit="nam"), headings=["Động kinh", "Trẻ em dưới 6 tuổi"])]
    fit = choose(rows, Patient(age_years=8, route="uong", question="bé 8 tuổi"))
    assert _texts(fit.rows) == ["Bắt đầu uống 100 mg, 2 lần/ngày.", "Liều duy trì thường là 400 - 800 mg/ngày."]
    # under headings that also dose by another route, a row with no route is not told to be oral
    fit = choose(rows, Patient(age_years=4, route="uong", question="bé 4 tuổi"))
    assert "Liều duy trì 15 - 35 mg/kg/ngày." not in _texts(fit.rows)


def test_a_weight_printed_in_a_heading_bounds_its_rows_and_a_weight_or_kidney_band_takes_the_light_patient() -> None:
    heavy = ["Người bệnh từ 16 - 64 tuổi, cân nặng ít nhất 50 kg và có chức năng thận bình thường", "Tiêm bắp"]
    light = ["Người bệnh < 50 kg và/hoặc có chức năng thận bị suy giảm", "Tiêm bắp"]
    rows = [_row("Tiêm bắp: 1 liều duy nhất 60 mg.", route=["tiem_bap"], age=AgeBound(min=16, max=64, unit="nam"),
                 headings=heavy),
            _row("Tiêm bắp: 1 liều duy nhất 30 mg.", route=["tiem_bap"], kind="adjustment",
                 weight_kg=WeightBound(max=50), renal=RenalBand(), headings=light)]
    fit = choose(rows, Patient(population="nguoi_lon", age_years=30, weight_kg=45, route="tiem_bap", question="45 kg"))
    assert _texts(fit.rows) == ["Tiêm bắp: 1 liều duy nhất 30 mg."]
    fit = choose(rows, Patient(population="nguoi_lon", age_years=30, weight_kg=60, route="tiem_bap", question="60 kg"))
    assert _texts(fit.rows) == ["Tiêm bắp: 1 liều duy nhất 60 mg."]


def test_a_heading_named_with_an_abbreviated_first_word_is_the_asked_indication() -> None:
    first = "Điều trị loét dạ dày - tá tràng do nhiễm Helicobacter pylori"
    second = "Điều trị loét dạ dày do dùng thuốc chống viêm không steroid"
    rows = [_row("Uống 20 mg, ngày 2 lần trong 7 ngày.", indication=first, route=["uong"], headings=[first]),
            _row(f"{second}: Uống mỗi ngày 20 mg trong 4 tuần.", indication=second, route=["uong"],
                 headings=[first, second]),
            _row("Sau đó uống 40 mg trong 4 tuần.", route=["uong"])]
    fit = choose(rows, Patient(population="nguoi_lon", route="uong",
                               question="Người lớn loét dạ dày do H. pylori, phác đồ uống liều bao nhiêu?"))
    assert _texts(fit.rows) == ["Uống 20 mg, ngày 2 lần trong 7 ngày."]


def test_the_title_of_an_adults_row_for_the_elderly_age_names_the_elderly() -> None:
    row = _row("Liều dùng ở người trên 65 tuổi: 5 mg.", population="nguoi_lon", age=AgeBound(min=65, unit="nam"))
    assert title("Thuốc A", row).startswith("Thuốc A — Người cao tuổi")
    assert title("Thuốc A", row.model_copy(update={"age": None})).startswith("Thuốc A — Người lớn")


def test_a_row_opening_with_another_case_is_not_the_asked_indications() -> None:
    uti = "Nhiễm khuẩn đường tiết niệu"
    rows = [_row(f"{uti}: 30 mg/kg/ngày chia làm 2 lần.", indication=uti, population="tre_em", route=["uong"],
                 headings=["Trẻ em", uti]),
            _row("Dự phòng viêm nội tâm mạc cho người dị ứng với penicilin: 50 mg/kg/liều, 1 liều duy nhất.",
                 indication=uti, population="tre_em", route=["uong"], headings=["Trẻ em", uti]),
            _row("Viêm da: 30 mg/kg/ngày uống 1 lần.", indication="Viêm da", population="tre_em", route=["uong"],
                 headings=["Trẻ em", "Viêm da"])]
    fit = choose(rows, Patient(population="tre_em", age_years=10, weight_kg=30, route="uong",
                               condition="nhiễm khuẩn đường tiết niệu", question="trẻ 10 tuổi nhiễm khuẩn tiết niệu"))
    assert _texts(fit.rows) == [f"{uti}: 30 mg/kg/ngày chia làm 2 lần."]
    # asked for by its own words, it is found
    fit = choose(rows, Patient(population="tre_em", age_years=10, weight_kg=30, route="uong",
                               condition="dự phòng viêm nội tâm mạc", question="dự phòng viêm nội tâm mạc"))
    assert any(t.startswith("Dự phòng") for t in _texts(fit.rows))


def test_a_patient_on_one_kind_of_dialysis_gets_its_row_not_the_other_kinds() -> None:
    rows = [_row("Thẩm phân máu: 1 liều thường dùng cho sau thẩm phân.", kind="instruction",
                 renal=RenalBand(dialysis=True), headings=["Thẩm phân máu"]),
            _row("Thẩm phân màng bụng liên tục tại nhà: Liều như người suy thận.", kind="adjustment",
                 renal=RenalBand(dialysis=True), headings=["Thẩm phân máu", "Thẩm phân màng bụng liên tục tại nhà"])]
    blood = choose(rows, Patient(dialysis=True, renal_impairment=True, question="chạy thận nhân tạo liều thế nào?"))
    assert _texts(blood.rows) == [rows[0].text]
    belly = choose(rows, Patient(dialysis=True, renal_impairment=True, question="thẩm phân màng bụng liều?"))
    assert _texts(belly.rows) == [rows[1].text]
    either = choose(rows, Patient(dialysis=True, renal_impairment=True, question="đang thẩm phân, liều?"))
    assert _texts(either.rows) == _texts(rows)


# ---- the band a label prints, fitted to the patient (round 4) ------------------------------------------------


def test_a_phase_the_question_names_keeps_its_rows_not_another_phase_of_the_same_indication() -> None:
    rows = read("Trẻ em:\nBệnh Kwz:\n"
                "Trong giai đoạn đầu có sốt: Uống 100 mg/kg/ngày, chia làm 4 lần, cho tới khi hết viêm.\n"
                "Trong giai đoạn dưỡng bệnh: Uống 3 - 5 mg/kg/ngày (uống 1 lần).")
    fit = choose(rows, Patient(population="tre_em", condition="kwz đã hết sốt",
                               question="Bé bị Kwz đã hết sốt, giai đoạn dưỡng bệnh thì liều bao nhiêu?"))
    assert _texts(fit.rows) == ["Trong giai đoạn dưỡng bệnh: Uống 3 - 5 mg/kg/ngày (uống 1 lần)."]


def test_the_most_specific_heading_named_in_full_wins_over_the_shorter_one_it_contains() -> None:
    rows = read("Trẻ sơ sinh cho tới 3 tháng tuổi:\n"
                "Nhiễm Y: 10 mg/kg/lần cách 8 giờ/lần.\n"
                "Nhiễm Y lan tỏa: 20 mg/kg/lần, cách 8 giờ/lần, cho trong 14 ngày.")
    fit = choose(rows, Patient(population="so_sinh", age_years=10 / 365,
                               question="Trẻ sơ sinh 10 ngày tuổi nhiễm Y lan tỏa, liều bao nhiêu?"))
    assert _texts(fit.rows) == ["Nhiễm Y lan tỏa: 20 mg/kg/lần, cách 8 giờ/lần, cho trong 14 ngày."]


def test_a_patient_on_peritoneal_dialysis_is_not_dosed_as_one_on_haemodialysis() -> None:
    """A case the book's labels print ("đang thẩm tách máu" / "thẩm tách qua màng bụng") is one family: the
    haemodialysis paragraph is another patient's, even where the question's other words name one of its lines."""
    rows = read("Thiếu máu do suy thận mạn:\n"
                "Liều người lớn đang thẩm tách máu hoặc chuẩn bị thẩm tách máu: Khởi đầu 40 đơn vị/kg, tuần 3 lần. "
                "Với dạng alpha, liều khởi đầu có thể cao hơn, 50 - 100 đơn vị/kg, tuần 3 lần.\n"
                "Người bệnh đang thẩm tách qua màng bụng: Có thể dùng liều khởi đầu 40 đơn vị/kg, tuần 2 lần.")
    peritoneal = "Người bệnh đang thẩm tách qua màng bụng: Có thể dùng liều khởi đầu 40 đơn vị/kg, tuần 2 lần."
    for said in ("dạng alpha cho bn suy thận mạn lọc màng bụng, liều khởi đầu?",
                 "dang alpha cho bn suy than man loc mang bung lieu"):
        fit = choose(rows, Patient(population="nguoi_lon", dialysis=names_dialysis(said), question=said))
        assert _texts(fit.rows) == [peritoneal], said
    fit = choose(rows, Patient(population="nguoi_lon", dialysis=True, question="dạng alpha, chạy thận nhân tạo, liều?"))
    assert peritoneal not in _texts(fit.rows) and fit.rows


def test_a_bare_bracketed_band_goes_on_the_group_printed_above_it() -> None:
    rows = read("Tiêm tĩnh mạch:\n"
                "Sơ sinh thiếu tháng (0 - 7 ngày): 100 mg/kg/ngày\n(7 - 30 ngày): 100 - 150 mg/ kg/ngày.\n"
                "Sơ sinh đủ tháng (0 - 7 ngày): 100 - 150 mg/kg/ngày\n(7 - 30 ngày): 100 - 200 mg/kg/ngày.")
    preterm = choose(rows, Patient(population="so_sinh", age_years=10 / 365, route="tiem_tinh_mach",
                                   question="Trẻ sơ sinh thiếu tháng 10 ngày tuổi, tiêm tĩnh mạch bao nhiêu?"))
    assert _texts(preterm.rows) == ["(7 - 30 ngày): 100 - 150 mg/ kg/ngày."]
    term = choose(rows, Patient(population="so_sinh", age_years=10 / 365, route="tiem_tinh_mach",
                                question="tiêm tĩnh mạch trẻ sơ sinh đủ tháng 10 ngày tuổi"))
    assert _texts(term.rows) == ["(7 - 30 ngày): 100 - 200 mg/kg/ngày."]
    assert any("Sơ sinh đủ tháng" in note for note in term.notes)
    assert term.rows[0].population == "so_sinh"  # shown under the newborns' group its label goes on
    # weeks of gestation under 37 say "thiếu tháng" without the word
    weeks = choose(rows, Patient(population="so_sinh", age_years=10 / 365, gestational_weeks=32,
                                 route="tiem_tinh_mach", question="sơ sinh 32 tuần, 10 ngày tuổi, tiêm tĩnh mạch"))
    assert "(7 - 30 ngày): 100 - 200 mg/kg/ngày." not in _texts(weeks.rows)


def test_an_infant_is_the_young_childrens_group_not_the_older_childrens() -> None:
    rows = read("Trẻ em:\nTrẻ nhỏ: 0,15 - 0,3 mg/kg/lần, uống, chia làm 1 - 4 lần.\n"
                "Trẻ lớn: 0,3 - 0,5 mg/kg/lần, uống, chia làm 2 - 4 lần.")
    fit = choose(rows, Patient(population="tre_em", age_years=7 / 12, weight_kg=8,
                               question="Bé 7 tháng nặng 8 kg tăng huyết áp, liều bao nhiêu mg/kg?"))
    assert _texts(fit.rows) == ["Trẻ nhỏ: 0,15 - 0,3 mg/kg/lần, uống, chia làm 1 - 4 lần."]


def test_a_weight_bound_printed_before_hoac_nhe_hon_and_the_ceilings_other_band() -> None:
    bound = weight_in("Nếu cân nặng người bệnh là 60 kg hoặc nhẹ hơn")
    assert bound is not None and (bound.min, bound.max) == (None, 60)
    rows = read("Uống 25 mg/lần, 3 lần/ngày.\n"
                "Liều tối đa: Nếu cân nặng người bệnh là 60 kg hoặc nhẹ hơn: 50 mg/lần, ngày uống 3 lần.\n"
                "Nếu người bệnh có cân nặng trên 60 kg: 100 mg/lần, ngày uống 3 lần.")
    heavy = choose(rows, Patient(weight_kg=72, kind="max_dose", question="nặng 72 kg liều tối đa"))
    assert _texts(heavy.rows) == ["Nếu người bệnh có cân nặng trên 60 kg: 100 mg/lần, ngày uống 3 lần."]
    light = choose(rows, Patient(weight_kg=55, kind="max_dose", question="nặng 55 kg liều tối đa"))
    assert [t for t in _texts(light.rows) if "50 mg/lần" in t] and not [t for t in _texts(light.rows) if "100 mg" in t]


def test_a_strength_printed_for_a_band_that_holds_the_child_replaces_the_unbanded_strength() -> None:
    rows = read("Trẻ em:\nViêm Z: Nhỏ 1 giọt dung dịch 2%, 2 - 3 lần/ngày.\n"
                "Đối với trẻ em từ 3 tháng - 2 tuổi: Chỉ dùng dung dịch nhỏ mắt 0,5%, mỗi ngày 1 giọt.\n"
                "Trẻ em từ 2 - 18 tuổi: Mỗi lần nhỏ 1 giọt dung dịch 0,5%, ngày 2 lần.")
    fit = choose(rows, Patient(population="tre_em", age_years=1, question="Bé 1 tuổi viêm Z, nhỏ nồng độ nào?"))
    assert not any("2%" in t for t in _texts(fit.rows))
    assert any("từ 3 tháng - 2 tuổi" in t for t in _texts(fit.rows))


def test_a_clearance_table_line_holding_the_clcr_is_quoted_with_its_numbers() -> None:
    text = ("Hệ số thanh thải creatinin (ml/phút) | Liều tối đa 24 giờ (mg) | Liều bắt đầu (mg)\n"
            "> 41 | 150 | 25 - 50\n40 - 21 | 100 | 25\n20 - 11 | 75 | 12,5\n< 10 | 37,5 | 6,25")
    table = _row(text, renal=RenalBand(), quarantined=True, kind="adjustment")
    assert [text[s:e] for s, e in clcr_table_lines(table, text, 15)] == ["20 - 11 | 75 | 12,5"]
    assert [text[s:e] for s, e in clcr_table_lines(table, text, 5)] == ["< 10 | 37,5 | 6,25"]
    assert clcr_table_lines(_row(text, quarantined=True), text, 15) == []  # not a renal table


def test_a_renal_table_none_of_whose_bands_holds_the_clcr_is_another_patients() -> None:
    """'Không cần giảm liều ... > 40 ml/phút' printed above a table of the bands 11 - 40 and below: a patient at
    Clcr 45 gets the sentence, not the table (which would also send the answer to the PDF)."""
    table_text = ("Độ thanh thải creatinin (ml/phút) | Liều dùng (mg) | Cách dùng\n11 - 40 | 500 | Cách 8 giờ/lần\n"
                  "5 -10 | 250 | Cách 12 giờ/lần\nDưới 5 | 250 | Cách 24 giờ/lần")
    rows = [_row("Không cần giảm liều khi Clcr > 40 ml/phút.", renal=RenalBand(clcr_min=40), kind="adjustment"),
            _row(table_text, renal=RenalBand(), quarantined=True, kind="adjustment")]
    mild = choose(rows, Patient(population="nguoi_lon", clcr=45, renal_impairment=True, question="Clcr 45"))
    assert _texts(mild.rows) == ["Không cần giảm liều khi Clcr > 40 ml/phút."]
    severe = choose(rows, Patient(population="nguoi_lon", clcr=20, renal_impairment=True, question="Clcr 20"))
    assert any(r.quarantined for r in severe.rows)
    # a table whose first cells are no bands is still shown for any impaired clearance, to be read on the page
    unread = _row("Độ thanh thải creatinin | Liều\nnặng | 250\nvừa | 500", renal=RenalBand(), quarantined=True)
    assert choose([unread], Patient(population="nguoi_lon", clcr=45, renal_impairment=True)).rows


def test_of_two_alternatives_each_closing_on_its_band_only_the_fitting_first_is_quoted() -> None:
    text = ("Trẻ sơ sinh: Liều đầu tiên 15 mg/kg, tiếp theo là 10 mg/kg, cứ 12 giờ một lần với trẻ dưới 1 tuần tuổi, "
            "hoặc tiếp theo là 10 mg/kg, cứ 8 giờ một lần cho trẻ từ 1 tuần tới 1 tháng tuổi.")
    rows = [_row(text, population="so_sinh", route=["truyen_tinh_mach"])]
    young = choose(rows, Patient(population="so_sinh", age_years=5 / 365, route="truyen_tinh_mach"))
    assert _texts(young.rows) == [text.split(", hoặc")[0]] and young.rows[0].end == len(text.split(", hoặc")[0])
    older = choose(rows, Patient(population="so_sinh", age_years=10 / 365, route="truyen_tinh_mach"))
    assert _texts(older.rows) == [text]  # the second alternative: the statement stays whole, each band printed


def test_a_single_word_one_heading_prints_and_no_other_names_that_heading() -> None:
    rows = [_row("Trẻ em 4 - 6 tuổi: 240 mg", indication="Đau, sốt", population="tre_em", route=["uong"],
                 age=AgeBound(min=4, max=6), headings=["Trẻ em", "Đau, sốt"]),
            _row("Trẻ em 1 tháng - 6 tuổi: 20 - 30 mg/kg một liều duy nhất", indication="Đau sau phẫu thuật",
                 population="tre_em", route=["uong"], age=AgeBound(min=1, max=72, unit="thang"),
                 headings=["Trẻ em", "Đau sau phẫu thuật"])]
    fever = choose(rows, Patient(population="tre_em", age_years=5, route="uong", question="cho be 5 tuoi sot uong"))
    assert _texts(fever.rows) == ["Trẻ em 4 - 6 tuổi: 240 mg"]
    pain = choose(rows, Patient(population="tre_em", age_years=5, route="uong", question="bé 5 tuổi đau uống"))
    assert len(pain.rows) == 2  # "đau" is printed in both headings: it names neither


def test_of_headings_named_in_full_the_one_with_fewer_words_left_unsaid_wins() -> None:
    rows = read("Uống:\nNhiễm Y ở mắt:\nĐiều trị viêm giác mạc: 400 mg/lần ngày uống 5 lần, uống trong 10 ngày.\n"
                "Dự phòng tái phát, viêm giác mạc: (sau 3 lần tái phát/năm): 800 mg/ngày chia làm 2 lần.")
    fit = choose(rows, Patient(route="uong", question="Viêm giác mạc do Y, uống liều bao nhiêu?"))
    assert _texts(fit.rows) == ["Điều trị viêm giác mạc: 400 mg/lần ngày uống 5 lần, uống trong 10 ngày."]


def test_an_adults_heading_that_takes_children_from_an_age_holds_a_child_of_that_age() -> None:
    rows = read("Điều trị động kinh:\nLiều cho người lớn và trẻ em trên 12 tuổi:\nBắt đầu uống 100 - 200 mg, 1 hoặc 2 lần/ngày.\n"
                "Liều dùng không được quá 1 000 mg/ngày cho trẻ em từ 12 đến 15 tuổi và 1 200 mg cho người bệnh trên "
                "15 tuổi.\n"
                "Liều cho trẻ em từ 6 đến 12 tuổi:\nBắt đầu thường là 100 mg, 2 lần/ngày.")
    fit = choose(rows, Patient(population="tre_em", age_years=13, question="Thiếu niên 13 tuổi động kinh, tối đa?"))
    texts = _texts(fit.rows)
    assert any("100 - 200 mg" in t for t in texts) and not any("100 mg, 2 lần/ngày" in t for t in texts)
    # of the ceiling's two alternatives, each closing on its band, the 13-year-old's only
    assert "Liều dùng không được quá 1 000 mg/ngày cho trẻ em từ 12 đến 15 tuổi" in texts
    assert not any("1 200 mg" in t for t in texts)


def test_a_table_line_whose_first_cell_the_question_names_word_for_word_is_quoted() -> None:
    from duocthu_desktop.dosage.fit import table_lines_named
    text = ("Chỉ định | INR khuyến cáo thời gian điều trị\nVan tim nhân tạo | \n"
            "Cơ học ở vị trí van 2 lá | Đích 3,7 INR 3 - 4,5; suốt đời.\n"
            "Cơ học ở vị trí van 3 lá | Đích 2,5; INR 2 - 3; suốt đời.")
    table = _row(text, quarantined=True, kind="instruction")
    lines = table_lines_named(table, text, "van tim cơ học vị trí van 2 lá INR đích bao nhiêu")
    assert [text[s:e] for s, e in lines] == ["Cơ học ở vị trí van 2 lá | Đích 3,7 INR 3 - 4,5; suốt đời."]
    assert table_lines_named(table, text, "van tim cơ học INR đích bao nhiêu") == []  # neither line named in full
WEIGHT_OR_KIDNEY = (
    "Uống:\n"
    "Liều thông thường người lớn 16 - 64 tuổi 50 kg, chức năng thận bình thường, tiếp sau liệu pháp tiêm: "
    "Khởi đầu 20 mg, tiếp theo là 10 mg cho tới 4 lần mỗi ngày.\n"
    "Người bệnh < 50 kg và/hoặc chức năng thận suy giảm: 10 mg cho tới 4 lần/ngày, cách 4 - 6 giờ/lần."
)


def test_a_patient_in_a_weight_or_kidney_band_by_weight_is_not_dosed_for_normal_kidneys() -> None:
    rows = read(WEIGHT_OR_KIDNEY)
    fit = choose(rows, Patient(route="uong", weight_kg=45))
    texts = _texts(fit.rows)
    assert any(t.startswith("Người bệnh < 50 kg") for t in texts)
    assert not any("Khởi đầu 20 mg" in t for t in texts)


def test_a_kidney_patient_heavier_than_the_weight_bound_is_in_the_weight_or_kidney_band() -> None:
    rows = read(WEIGHT_OR_KIDNEY)
    fit = choose(rows, Patient(route="uong", population="nguoi_lon", age_years=50, weight_kg=60,
                               renal_impairment=True))
    texts = _texts(fit.rows)
    assert any(t.startswith("Người bệnh < 50 kg") for t in texts)
    assert not any("Khởi đầu 20 mg" in t for t in texts)


def test_a_normal_clearance_is_in_no_kidney_band_printed_without_a_number() -> None:
    """Clcr 95 ml/phút is normal kidney function: 'có thể có suy giảm chức năng thận' is not this patient's band,
    and the usual adult dose is his; Clcr 40 is in it."""
    rows = read("Uống:\nNgười lớn: Liều khởi đầu 500 mg, ngày 2 lần.\n"
                "Người bệnh suy giảm chức năng thận: Liều bắt đầu cần dè dặt.")
    normal = _texts(choose(rows, Patient(route="uong", population="nguoi_lon", age_years=50, clcr=95,
                                         renal_impairment=True)).rows)
    assert normal == ["Người lớn: Liều khởi đầu 500 mg, ngày 2 lần."]
    impaired = _texts(choose(rows, Patient(route="uong", population="nguoi_lon", age_years=50, clcr=40,
                                           renal_impairment=True)).rows)
    assert impaired == ["Người bệnh suy giảm chức năng thận: Liều bắt đầu cần dè dặt."]


def test_the_ceiling_printed_right_after_the_elderlys_own_dose_comes_with_it() -> None:
    rows = read("Uống:\nNgười lớn: Khởi đầu 20 mg, tiếp theo là 10 mg cho tới 4 lần mỗi ngày.\n"
                "Liều thông thường ở người cao tuổi: Uống (sau khi đã tiêm): 10 mg, cho tới 4 lần/ngày.\n"
                "Liều tối đa: Uống: 40 mg/ngày.")
    texts = _texts(choose(rows, Patient(route="uong", population="nguoi_cao_tuoi", age_years=70)).rows)
    assert texts == ["Liều thông thường ở người cao tuổi: Uống (sau khi đã tiêm): 10 mg, cho tới 4 lần/ngày.",
                     "Liều tối đa: Uống: 40 mg/ngày."]


def test_the_elderlys_dose_printed_as_the_same_as_another_band_is_that_bands_dose() -> None:
    """'Giống như đối với người < 50 kg hoặc có chức năng thận suy giảm': the elderly get that band's doses, by
    the route asked; the normal-kidney adult doses are not theirs."""
    rows = read("Người bệnh từ 16 - 64 tuổi, cân nặng ít nhất 50 kg và có chức năng thận bình thường:\n"
                "Tiêm bắp: 30 mg cách 6 giờ/lần.\n"
                "Người bệnh < 50 kg và/hoặc có chức năng thận bị suy giảm:\n"
                "Tiêm bắp: 15 mg cách 6 giờ/lần.\n"
                "Liều thông thường ở người cao tuổi: Giống như đối với người < 50 kg hoặc có chức năng thận suy giảm.")
    texts = _texts(choose(rows, Patient(route="tiem_bap", population="nguoi_cao_tuoi", age_years=70)).rows)
    assert "Tiêm bắp: 15 mg cách 6 giờ/lần." in texts
    assert "Tiêm bắp: 30 mg cách 6 giờ/lần." not in texts


def test_a_ceiling_printed_for_no_indication_stays_beside_the_indication_the_question_names() -> None:
    """Narrowed to the heading the question names ("sốt" picks "Đau, sốt"), the children's ceiling printed above
    every heading still holds: it is shown with the dose, not dropped with the other indication's rows."""
    rows = read("Trẻ em:\nUống: Tối đa 4 liều trong 24 giờ.\nĐau, sốt:\nTrẻ em 4 - 6 tuổi: 240 mg\n"
                "Đau sau phẫu thuật:\nTrẻ em 1 tháng - 6 tuổi: 20 - 30 mg/kg một liều duy nhất.")
    for route in ("uong", None):
        fit = choose(rows, Patient(population="tre_em", age_years=5, weight_kg=18, route=route, condition="sốt",
                                   question="Liều uống cho bé 5 tuổi 18 kg bị sốt?"))
        assert _texts(fit.rows) == ["Uống: Tối đa 4 liều trong 24 giờ.", "Trẻ em 4 - 6 tuổi: 240 mg"], route


def test_a_neonate_with_no_age_in_days_is_not_in_a_childrens_band_that_starts_after_the_first_month() -> None:
    rows = read("Điều trị huyết khối:\nTrẻ sơ sinh: Tiêm tĩnh mạch 75 đvqt/kg, sau đó truyền 25 đvqt/kg/giờ.\n"
                "Trẻ từ 1 tháng - 1 tuổi: Tiêm tĩnh mạch 75 đvqt/kg, sau đó truyền 25 đvqt/kg/giờ.\n"
                "Trẻ từ 1 - 18 tuổi: Tiêm tĩnh mạch 75 đvqt/kg, sau đó truyền 20 đvqt/kg/giờ.")
    for p in (Patient(population="so_sinh"), Patient(population="so_sinh", gestational_weeks=32.0)):
        assert _texts(choose(rows, p).rows) == ["Trẻ sơ sinh: Tiêm tĩnh mạch 75 đvqt/kg, sau đó truyền 25 đvqt/kg/giờ."]
    # a child of unknown age still has the children's bands to choose from
    assert len(choose(rows, Patient(population="tre_em", age_years=0.5)).rows) == 1


def test_a_dose_for_the_patients_own_band_with_no_route_printed_is_shown_beside_the_route_asked() -> None:
    # the children's general dose names "uống"; the age bands under an indication heading print no route
    rows = read("Trẻ em: Liều uống thông thường để giảm đau là 20 - 30 mg/kg/ngày, chia làm nhiều liều nhỏ.\n"
                "Giảm đau và hạ sốt:\nTrẻ 1 - 4 tuổi: 100 mg x 3 lần/ngày.\nTrẻ 4 - 7 tuổi: 150 mg x 3 lần/ngày.\n"
                "Thông ống động mạch ở trẻ sơ sinh thiếu tháng:\nMỗi liều truyền tĩnh mạch 10 mg/kg.")
    fit = choose(rows, Patient(route="uong", population="tre_em", age_years=5.0, weight_kg=18.0))
    texts = _texts(fit.rows)
    assert "Trẻ 4 - 7 tuổi: 150 mg x 3 lần/ngày." in texts
    assert "Trẻ 1 - 4 tuổi: 100 mg x 3 lần/ngày." not in texts
    assert "Mỗi liều truyền tĩnh mạch 10 mg/kg." not in texts
    assert title("Thuốc A", next(r for r in fit.rows if r.text.startswith("Trẻ 4 - 7"))).count("không ghi rõ") == 1
    # with no age or weight, nothing is added: the route asked decides
    assert "Trẻ 4 - 7 tuổi: 150 mg x 3 lần/ngày." not in _texts(choose(rows, Patient(route="uong",
                                                                                      population="tre_em")).rows)


def test_one_reader_of_a_tables_first_cells_for_clearance_and_lab_values() -> None:
    """sample-e's tuning tables: cefadroxil's 'Clcr | Liều khởi đầu | Liều duy trì' prints its bands with their
    unit ('10 - 25 ml/phút'); heparin's children's 'APTT (giây)' table bands the APTT ('96 - 120', '> 120') and
    prints the last column blank. The row holding the patient's value is read the same way for both; a value on a
    printed bound (Clcr 10: '0 - 10' and '10 - 25') chooses no row."""
    from duocthu_desktop.dosage.fit import table_cell_band, table_row_for_patient
    from duocthu_desktop.dosage.rows import RenalBand
    from duocthu_desktop.qa.understanding.lab_values import LabValue

    assert table_cell_band("10 - 25 ml/phút") == (10.0, 25.0)
    assert table_cell_band("Dưới 5") == (float("-inf"), 5.0)
    assert table_cell_band("> 120") == (120.0, float("inf"))
    assert table_cell_band("Cơ học ở vị trí van 2 lá") is None
    renal = ("Clcr | Liều khởi đầu | Liều duy trì\n0 - 10 ml/phút | 500 - 1 000 mg | 500 mg, cách 36 giờ/lần\n"
             "10 - 25 ml/phút | 500 - 1 000 mg | 500 mg, cách 24 giờ/lần\n"
             "25 - 50 ml/phút | 500 - 1 000 mg | 500 mg, cách 12 giờ/lần")
    table = _row(renal, renal=RenalBand(), quarantined=True, kind="adjustment")
    lines, clean = table_row_for_patient(table, renal, 15, (), "")
    assert [renal[s:e] for s, e in lines] == ["10 - 25 ml/phút | 500 - 1 000 mg | 500 mg, cách 24 giờ/lần"] and clean
    assert table_row_for_patient(table, renal, 10, (), "") == ([], False)
    aptt = ("APTT (giây) | Liều điều chỉnh | Thời gian xác định lại APTT\n"
            "86 - 95 | Giảm tốc độ truyền khoảng 10% | 4 giờ sau khi thay đổi tốc độ truyền\n"
            "96 - 120 | Ngừng truyền trong 30 phút, giảm tốc độ truyền khoảng 10% | \n"
            "> 120 | Ngừng truyền trong 60 phút, giảm tốc độ truyền khoảng 15% | ")
    heparin = _row(aptt, quarantined=True, kind="adjustment")
    lines, clean = table_row_for_patient(heparin, aptt, None, [LabValue(analyte="aptt", value=100)], "")
    assert [aptt[s:e].rstrip() for s, e in lines] == [
        "96 - 120 | Ngừng truyền trong 30 phút, giảm tốc độ truyền khoảng 10% |"] and clean
    # no value asked for the analyte the header names: no row, the table is left to the PDF
    assert table_row_for_patient(heparin, aptt, 20, [LabValue(analyte="inr", value=3)], "") == ([], False)


def test_an_aptt_said_with_do_duoc_is_read():
    from duocthu_desktop.qa.understanding.lab_values import LabValue, lab_values

    assert lab_values("Trẻ 6 tuổi đang truyền heparin, APTT đo được 100 giây") == [
        LabValue(analyte="aptt", value=100.0)]


def test_a_table_of_single_clearance_values_is_not_read_as_clean() -> None:
    """The sample book's vancomycin table prints one dose per Clcr value ('40 | 620', '30 | 465'): the row of an
    exact value is quoted, but a reader interpolates between such lines, so it stays with the PDF."""
    from duocthu_desktop.dosage.fit import table_row_for_patient
    from duocthu_desktop.dosage.rows import RenalBand

    text = "Độ thanh thải creatinin Clcr (ml/phút) | Liều vancomycin (mg/24 giờ)\n50 | 770\n40 | 620\n30 | 465"
    table = _row(text, renal=RenalBand(), quarantined=True, kind="adjustment")
    lines, clean = table_row_for_patient(table, text, 40, (), "")
    assert [text[s:e] for s, e in lines] == ["40 | 620"] and not clean


def test_a_clearance_per_body_surface_is_not_read_as_clean() -> None:
    """The sample book's captopril table bands 'Hệ số thanh thải creatinin (ml/phút/1,73m2 )': its row for Clcr 15
    is quoted ('20 - 11 | 75 | 12,5'), but a Clcr in ml/phút is not that measure, so the answer stays verify_pdf."""
    from duocthu_desktop.dosage.fit import table_row_for_patient
    from duocthu_desktop.dosage.rows import RenalBand

    text = ("Hệ số thanh thải creatinin (ml/phút/1,73m2 ) | Liều tối đa 24 giờ (mg) | Liều bắt đầu (mg)\n"
            "> 41 | 150 | 25 - 50\n40 - 21 | 100 | 25\n20 - 11 | 75 | 12,5\n< 10 | 37,5 | 6,25")
    table = _row(text, renal=RenalBand(), quarantined=True, kind="adjustment")
    lines, clean = table_row_for_patient(table, text, 15, (), "")
    assert [text[s:e] for s, e in lines] == ["20 - 11 | 75 | 12,5"] and not clean


def test_a_woman_pregnant_by_her_weeks_is_dosed_as_the_pregnant_group() -> None:
    """"thai 34 tuần" makes the frame pregnant with no group word: the pregnant group's dose, not a general one."""

    rows = read("Cơn Z: Tiêm tĩnh mạch 10 - 20 mg trong thời gian trên 20 phút.\n"
                "Cơn Z ở phụ nữ mang thai: Tiêm tĩnh mạch 5 - 10 mg trong thời gian trên 20 phút.")
    p = Patient.from_frame(QueryFrame(question="Sản phụ thai 34 tuần, tiêm tĩnh mạch thế nào?", pregnant=True,
                                      route="tiem_tinh_mach"))
    assert p.population == "mang_thai"
    assert [t for t in _texts(choose(rows, p).rows)] == [
        "Cơn Z ở phụ nữ mang thai: Tiêm tĩnh mạch 5 - 10 mg trong thời gian trên 20 phút."]


def test_a_route_for_when_the_usual_one_cannot_be_used_is_offered_not_asked() -> None:
    """With no route asked, the usual route's doses are shown; a route the book gives only for a patient who cannot
    take the usual one is said to be in the book, not made a choice to ask about."""
    rows = read("Người lớn:\nUống 100 mg/lần, ngày 2 lần.\n"
                "Có thể đặt trực tràng 125 mg/lần, ngày 3 lần cho người bệnh tạm thời không thể dùng đường uống.")
    fit = choose(rows, Patient(population="nguoi_lon"))
    assert not fit.ask_route
    assert _texts(fit.rows) == ["Uống 100 mg/lần, ngày 2 lần."]
    assert any("đặt trực tràng" in n and "đường uống" in n for n in fit.notes)
    rectal = choose(rows, Patient(population="nguoi_lon", route="truc_trang"))
    assert [r.route for r in rectal.rows] == [["truc_trang"]]


def test_a_route_the_book_forbids_is_not_a_route_for_when_another_cannot_be_used() -> None:
    rows = read("Người lớn:\nUống 100 mg/lần, ngày 2 lần.\nTiêm tĩnh mạch chậm 50 mg/lần, ngày 2 lần, không tiêm bắp.")
    fit = choose(rows, Patient(population="nguoi_lon"))
    assert fit.ask_route  # two routes with their own doses: the person chooses


def test_preparing_instructions_are_those_of_the_route_asked() -> None:
    rows = read("Tiêm bắp:\nHòa tan lọ 1 g trong 3,5 ml dung môi.\n"
                "Truyền tĩnh mạch:\nHòa tan lọ 1 g trong 10 ml dung môi rồi pha loãng.")
    fit = choose(rows, Patient(route="tiem_bap", question="pha lọ 1 g để tiêm bắp thêm bao nhiêu ml dung môi"))
    assert fit.how_to and _texts(fit.rows) == ["Hòa tan lọ 1 g trong 3,5 ml dung môi."]


def test_a_route_the_book_doses_like_another_takes_that_routes_doses() -> None:
    """"Liều uống và tiêm bắp tương tự nhau": an intramuscular question gets the oral doses printed under it,
    with the statement that says they are alike."""
    rows = read("Đau nặng:\nLiều X uống và tiêm bắp tương tự nhau ở người lớn.\n"
                "Người lớn: Uống, mỗi lần 20 mg cách nhau 4 giờ.\n"
                "Ho:\nNgười lớn: uống 5 mg/lần, 3 lần trong ngày.")
    fit = choose(rows, Patient(population="nguoi_lon", route="tiem_bap", question="đau nặng tiêm bắp liều"))
    texts = _texts(fit.rows)
    assert any("tương tự nhau" in t for t in texts) and any("20 mg" in t for t in texts)
    assert not any("5 mg/lần" in t for t in texts) and not fit.no_dose_for_route


def test_a_liver_patients_grade_picks_the_statements_of_that_grade() -> None:
    """Graded statements for an impaired liver, no route asked: a severe patient gets the severe grade's statement
    (with its routes), not the mild and moderate one's 'no reduction'; a patient of no said grade gets both."""
    rows = read("Người lớn: uống 40 mg/ngày.\nNgười suy gan:\n"
                "Không cần giảm liều ở người suy gan nhẹ và trung bình.\n"
                "Suy gan nặng có thể dùng 20 mg một ngày, cả đường uống hoặc đường tĩnh mạch.")
    severe = _texts(choose(rows, Patient(hepatic_impairment=True, question="bn xơ gan Child C liều")).rows)
    assert severe == ["Suy gan nặng có thể dùng 20 mg một ngày, cả đường uống hoặc đường tĩnh mạch."]
    mild = _texts(choose(rows, Patient(hepatic_impairment=True, question="bn suy gan nhẹ liều")).rows)
    assert mild == ["Không cần giảm liều ở người suy gan nhẹ và trung bình."]
    unsaid = _texts(choose(rows, Patient(hepatic_impairment=True, question="bn suy gan liều")).rows)
    assert len(unsaid) == 2


def test_an_elderly_patients_clearance_band_stands_beside_what_the_book_says_of_the_elderly() -> None:
    rows = read("Người lớn: tiêm bắp 15 mg/kg/ngày.\nNgười cao tuổi: Giảm liều và thận trọng như với người suy thận.\n"
                "Suy thận:\nClcr > 50 ml/phút: 60 - 90% liều thông thường.\nClcr 10 - 50 ml/phút: 30 - 70% liều thông thường.")
    texts = _texts(choose(rows, Patient(age_years=70, population="nguoi_cao_tuoi", clcr=35,
                                        renal_impairment=True, question="70 tuổi clcr 35")).rows)
    assert any(t.startswith("Người cao tuổi") for t in texts) and any("30 - 70%" in t for t in texts)
    assert not any("60 - 90%" in t or "15 mg/kg" in t for t in texts)


def test_the_same_indication_under_two_groups_is_both_groups_doses() -> None:
    """"Viêm họng" printed under the adults and again under the children: a question naming it but no group is
    asked the group, not given the children's dose because their heading matched as well."""
    rows = read("Người lớn:\nViêm họng, viêm amidan do Streptococcus pyogenes:\nUống 1 g/ngày trong 10 ngày.\n"
                "Nhiễm khuẩn da: Uống 1 g/ngày.\nTrẻ em:\nViêm họng, viêm amidan do liên cầu:\n"
                "30 mg/kg/ngày chia làm 2 lần.\nUống ít nhất trong 10 ngày.\nNhiễm khuẩn da: 30 mg/kg/ngày.")
    assert choose(rows, Patient(question="viêm họng liều bao nhiêu")).ask_population
    child = _texts(choose(rows, Patient(population="tre_em", age_years=6, weight_kg=20,
                                        question="trẻ 6 tuổi viêm họng liều bao nhiêu")).rows)
    assert child == ["30 mg/kg/ngày chia làm 2 lần.", "Uống ít nhất trong 10 ngày."]


def test_a_severity_said_picks_the_indication_printed_for_it_among_its_severities() -> None:
    rows = read("Trẻ em:\nNhiễm khuẩn nhẹ, vừa: 20 mg/kg/ngày cách 8 giờ/lần.\n"
                "Nhiễm khuẩn nặng: 40 mg/kg/ngày cách 8 giờ/lần.")
    mild = _texts(choose(rows, Patient(population="tre_em", age_years=6, weight_kg=20,
                                       question="tre 6 tuoi 20kg viem tai giua nhe lieu")).rows)
    assert mild == ["Nhiễm khuẩn nhẹ, vừa: 20 mg/kg/ngày cách 8 giờ/lần."]
    severe = _texts(choose(rows, Patient(population="tre_em", age_years=6, weight_kg=20,
                                         question="trẻ 6 tuổi nhiễm khuẩn nặng liều")).rows)
    assert severe == ["Nhiễm khuẩn nặng: 40 mg/kg/ngày cách 8 giờ/lần."]


def test_a_route_the_patient_cannot_take_leaves_the_doses_by_the_others() -> None:
    from duocthu_desktop.qa.understanding.extractors import extract_route, routes_ruled_out
    from duocthu_desktop.qa.understanding.textmatch import Text

    said = Text.of("Bệnh nhân cai rượu nặng, vật vã, không uống được thuốc.")
    assert extract_route(said) is None and routes_ruled_out(said) == ["uong"]
    rows = read("Hội chứng cai rượu: Uống 5 - 20 mg, nhắc lại sau 2 - 4 giờ.\n"
                "Trường hợp nặng, dùng đường tiêm bắp hoặc tĩnh mạch 10 - 20 mg.")
    texts = _texts(choose(rows, Patient(question=said.norm, ruled_out=("uong",), population="nguoi_lon")).rows)
    assert texts == ["Trường hợp nặng, dùng đường tiêm bắp hoặc tĩnh mạch 10 - 20 mg."]


def test_a_dose_given_as_another_indications_is_shown_with_that_indications_dose() -> None:
    rows = read("Đau thắt ngực:\nUống 10 mg/lần, 3 lần/ngày.\nCó thể truyền tĩnh mạch, thường dùng 2 - 12 mg/giờ.\n"
                "Suy tim:\nUống 20 mg/lần, 2 lần/ngày.\n"
                "Cũng có thể dùng đường truyền tĩnh mạch với liều tương tự liều dùng trong đau thắt ngực.")
    texts = _texts(choose(rows, Patient(route="truyen_tinh_mach", question="suy tim truyền tĩnh mạch liều",
                                        condition="suy tim")).rows)
    assert texts[0].startswith("Cũng có thể") and any("2 - 12 mg/giờ" in t for t in texts)
    assert not any("10 mg/lần" in t or "20 mg/lần" in t for t in texts)


def test_an_indication_said_by_its_lay_name_narrows_to_the_heading_printed_by_the_books_name() -> None:
    # "tiêu chảy" is the book's "ỉa chảy": said with no trigger word, it still names the heading
    rows = [_row("Đau vừa: Người lớn: uống 30 mg cách 4 giờ.", indication="Đau vừa", population="nguoi_lon",
                 route=["uong"], headings=["Đau vừa"]),
            _row("Ỉa chảy cấp: người lớn, 30 mg uống 3 lần mỗi ngày.", indication="Ỉa chảy cấp",
                 population="nguoi_lon", route=["uong"], headings=["Ỉa chảy cấp"])]
    fit = choose(rows, Patient(population="nguoi_lon", question="thuốc cho bn tiêu chảy cấp người lớn liều sao"))
    assert _texts(fit.rows) == ["Ỉa chảy cấp: người lớn, 30 mg uống 3 lần mỗi ngày."]


def test_a_local_application_with_no_group_printed_holds_for_a_child() -> None:
    # a cream's section names no group: its way of applying is not an adult's dose withheld from a child
    rows = [_row("Tổn thương da: bôi một lớp mỏng, 1 - 2 lần một ngày.", indication="Tổn thương da",
                 route=["boi"], headings=["Tổn thương da"])]
    fit = choose(rows, Patient(population="tre_em", route="boi", question="bôi cho bé ngày mấy lần"))
    assert _texts(fit.rows) == ["Tổn thương da: bôi một lớp mỏng, 1 - 2 lần một ngày."]
    assert any("không có liều riêng cho trẻ em" in n for n in fit.notes)


def test_an_unlabelled_systemic_dose_or_a_section_naming_adults_is_not_given_to_a_child() -> None:
    swallowed = [_row("Uống 500 mg, 2 lần một ngày.", route=["uong"])]
    assert choose(swallowed, Patient(population="tre_em", question="cho bé uống bao nhiêu")).rows == []
    named = [_row("Người lớn: bôi 2 lần một ngày.", route=["boi"], population="nguoi_lon"),
             _row("Bôi 1 lần một ngày khi đỡ.", route=["boi"])]
    assert choose(named, Patient(population="tre_em", route="boi", question="bôi cho bé ngày mấy lần")).rows == []


def test_an_indication_named_by_its_abbreviation_narrows_to_its_heading() -> None:
    rows = [_row("Nhiễm Helicobacter pylori: Người lớn: 1 g ngày uống 2 lần.", indication="Nhiễm Helicobacter pylori",
                 population="nguoi_lon", route=["uong"], headings=["Nhiễm Helicobacter pylori"]),
            _row("Viêm tai giữa: Người lớn: 500 mg cách 8 giờ.", indication="Viêm tai giữa",
                 population="nguoi_lon", route=["uong"], headings=["Viêm tai giữa"])]
    from duocthu_desktop.qa.understanding.frame import QueryFrame
    frame = QueryFrame(question="phác đồ diệt HP, người lớn uống liều bao nhiêu", population="nguoi_lon")
    fit = choose(rows, Patient.from_frame(frame))
    assert _texts(fit.rows) == ["Nhiễm Helicobacter pylori: Người lớn: 1 g ngày uống 2 lần."]


def test_a_purpose_printed_only_in_a_ceiling_does_not_hide_the_doses() -> None:
    rows = [_row("Trẻ em 6 - 12 tuổi: uống 250 mg cách 6 giờ.", population="tre_em", route=["uong"]),
            _row("Không nên cho trẻ em quá 5 liều để giảm đau hoặc hạ sốt trong 24 giờ.", population="tre_em",
                 route=["uong"], kind="max_dose")]
    fit = choose(rows, Patient(population="tre_em", age_years=7, route="uong", condition="hạ sốt",
                               question="Liều uống hạ sốt cho bé 7 tuổi?"))
    assert "Trẻ em 6 - 12 tuổi: uống 250 mg cách 6 giờ." in _texts(fit.rows)


def test_the_maintenance_dose_asked_is_the_statement_printing_it() -> None:
    rows = read("Người lớn:\nLiều khởi đầu tùy theo bệnh. Thông thường là 15 - 30 mg mỗi ngày, chia 3 lần. "
                "Khi bệnh ổn định thì giảm dần. Thông thường, liều duy trì là 5 - 10 mg mỗi ngày.")
    fit = choose(rows, Patient(population="nguoi_lon", question="người lớn ổn định rồi, duy trì bao nhiêu"))
    assert _texts(fit.rows) == ["Thông thường, liều duy trì là 5 - 10 mg mỗi ngày."]
    started = _texts(choose(rows, Patient(population="nguoi_lon", question="người lớn khởi đầu bao nhiêu")).rows)
    assert "Thông thường là 15 - 30 mg mỗi ngày, chia 3 lần." in started


def test_a_later_turn_naming_another_case_of_a_family_replaces_the_earlier_one() -> None:
    assert cases_replaced("bn chạy thận nhân tạo, liều khởi đầu?", "còn bn lọc màng bụng thì sao") \
        == "bn , liều khởi đầu?"
    assert cases_replaced("người lớn khoi dau bao nhieu", "gio duy tri bao nhieu") == "người lớn bao nhieu"
    # a weight is no severity; a turn naming no case changes nothing
    assert cases_replaced("bé nặng 18 kg viêm phổi nặng", "nhẹ thôi") == "bé nặng 18 kg viêm phổi"
    assert cases_replaced("liều khởi đầu cho trẻ em", "còn suy thận thì sao") == "liều khởi đầu cho trẻ em"


def test_a_regimen_started_by_another_route_is_not_the_dose_by_the_route_it_goes_on_with() -> None:
    """"Tiêm bắp khởi đầu ..., sau đó tiếp tục truyền tĩnh mạch": asked for the intravenous dose, the statements
    that start intravenously are the dose; the one that starts intramuscularly is not."""
    rows = read("Người lớn:\nTiêm tĩnh mạch khởi đầu 1 - 4,5 mg/kg, tiêm trong 60 giây.\n"
                "Truyền tĩnh mạch liên tục 0,1 - 0,5 mg/phút.\n"
                "Tiêm bắp khởi đầu 6,5 - 13 mg/kg, sau đó tiếp tục truyền tĩnh mạch 0,5 mg/phút.")
    texts = _texts(choose(rows, Patient(population="nguoi_lon", route="tiem_tinh_mach",
                                        question="người lớn tiêm tĩnh mạch liều")).rows)
    assert any("1 - 4,5 mg/kg" in t for t in texts) and not any("6,5 - 13 mg/kg" in t for t in texts)
    im = _texts(choose(rows, Patient(population="nguoi_lon", route="tiem_bap",
                                     question="người lớn tiêm bắp liều")).rows)
    assert any("6,5 - 13 mg/kg" in t for t in im) and not any("1 - 4,5 mg/kg" in t for t in im)


def test_an_indication_said_by_the_words_its_heading_opens_with_narrows_to_it() -> None:
    rows = [_row("Gây mê toàn thân: Người lớn: tiêm tĩnh mạch 2 mg/kg.", indication="Gây mê toàn thân",
                 population="nguoi_lon", route=["tiem_tinh_mach"], headings=["Gây mê toàn thân"]),
            _row("Tác dụng an thần và giảm đau: Người lớn: tiêm tĩnh mạch 0,5 mg/kg.",
                 indication="Tác dụng an thần và giảm đau", population="nguoi_lon", route=["tiem_tinh_mach"],
                 headings=["Tác dụng an thần và giảm đau"])]
    fit = choose(rows, Patient(population="nguoi_lon", route="tiem_tinh_mach",
                               question="người lớn cần gây mê nhanh, tiêm tĩnh mạch bao nhiêu"))
    assert _texts(fit.rows) == ["Gây mê toàn thân: Người lớn: tiêm tĩnh mạch 2 mg/kg."]
    # a generic opening word said alone names nothing: both headings stand
    both = choose(rows, Patient(population="nguoi_lon", route="tiem_tinh_mach", question="người lớn tác dụng gì"))
    assert len(both.rows) == 2 or both.ask_indication



def test_an_indication_said_by_words_inside_its_heading_narrows_to_it() -> None:
    rows = [_row("Người lớn: tiêm dưới da 50 đơn vị/kg, tuần 3 lần.", indication="Thiếu máu ở người bệnh suy thận mạn",
                 population="nguoi_lon", route=["tiem_duoi_da"], headings=["Thiếu máu ở người bệnh suy thận mạn"]),
            _row("Người lớn: tiêm dưới da 150 đơn vị/kg, 3 lần/tuần.", indication="Thiếu máu do hóa trị liệu ung thư",
                 population="nguoi_lon", route=["tiem_duoi_da"], headings=["Thiếu máu do hóa trị liệu ung thư"])]
    fit = choose(rows, Patient(population="nguoi_lon", question="bn đang hóa trị, thiếu máu, liều khởi đầu bao nhiêu"))
    assert _texts(fit.rows) == ["Người lớn: tiêm dưới da 150 đơn vị/kg, 3 lần/tuần."]
    # words every heading prints ("thiếu máu") name none of them
    both = choose(rows, Patient(population="nguoi_lon", question="bn thiếu máu liều bao nhiêu"))
    assert len(both.rows) == 2 or both.ask_indication


RENAL_TABLE_WITH_CASES = ("Độ thanh thải creatinin (ml/phút) | Liều\n> 60 | 3 g, cứ 4 giờ /1 lần\n"
                          "30 - 60 | 2 g, cứ 4 giờ /1 lần\n< 10 | 2 g, cứ 12 giờ /1 lần\n"
                          "< 10 có kèm rối loạn chức năng gan | 2 g, cứ 24 giờ /1 lần\n"
                          "Thẩm tách máu | 2 g, cứ 12 giờ 1 lần\nThẩm tách màng bụng | 3 g, cứ 12 giờ /1 lần")


def test_a_renal_table_with_lines_named_by_words_reads_its_clearance_bands_cleanly() -> None:
    """Lines named by words ("Thẩm tách máu") are cases beside the bands: the Clcr's line still reads cleanly; a band
    a qualifier sets apart ("< 10 có kèm rối loạn chức năng gan") is the line only for a patient said to have it."""
    from duocthu_desktop.dosage.fit import table_row_for_patient
    from duocthu_desktop.dosage.rows import RenalBand

    text = RENAL_TABLE_WITH_CASES
    table = _row(text, renal=RenalBand(), quarantined=True, kind="adjustment")
    lines, clean = table_row_for_patient(table, text, 45, (), "clcr 45 liều")
    assert [text[s:e] for s, e in lines] == ["30 - 60 | 2 g, cứ 4 giờ /1 lần"] and clean
    lines, clean = table_row_for_patient(table, text, 8, (), "clcr 8 liều")
    assert [text[s:e] for s, e in lines] == ["< 10 | 2 g, cứ 12 giờ /1 lần"] and clean
    lines, clean = table_row_for_patient(table, text, 8, (), "bn clcr 8 kèm suy gan liều")
    assert [text[s:e] for s, e in lines] == ["< 10 có kèm rối loạn chức năng gan | 2 g, cứ 24 giờ /1 lần"] and clean
    # the organ said to be well is no qualifier said
    for well in ("bn clcr 5, gan binh thuong, lieu sao", "clcr 5, chức năng gan tốt", "clcr 5 không suy gan"):
        lines, _ = table_row_for_patient(table, text, 5, (), well)
        assert [text[s:e] for s, e in lines] == ["< 10 | 2 g, cứ 12 giờ /1 lần"], well


def test_a_renal_tables_dialysis_line_is_the_one_of_the_dialysis_the_question_names() -> None:
    from duocthu_desktop.dosage.fit import table_row_for_patient
    from duocthu_desktop.dosage.rows import RenalBand

    text = RENAL_TABLE_WITH_CASES
    table = _row(text, renal=RenalBand(), quarantined=True, kind="adjustment")
    for question in ("bn thẩm phân phúc mạc liều bao nhiêu", "bn loc mang bung lieu"):
        lines, clean = table_row_for_patient(table, text, None, (), question)
        assert [text[s:e] for s, e in lines] == ["Thẩm tách màng bụng | 3 g, cứ 12 giờ /1 lần"] and clean
    lines, _ = table_row_for_patient(table, text, None, (), "bn chạy thận nhân tạo liều")
    assert [text[s:e] for s, e in lines] == ["Thẩm tách máu | 2 g, cứ 12 giờ 1 lần"]
    assert table_row_for_patient(table, text, None, (), "bn suy thận liều") == ([], False)


def test_a_patient_with_kidneys_and_liver_impaired_gets_the_renal_bands_beside_the_liver_guidance() -> None:
    rows = read("Người lớn: 3 g cách 4 giờ.\nSuy gan: Giảm liều ở người suy gan.\n"
                "Suy thận:\nClcr 10 - 30 ml/phút: 2 g cách 8 giờ.\nClcr < 10 ml/phút: 2 g cách 12 giờ.")
    texts = _texts(choose(rows, Patient(clcr=8, renal_impairment=True, hepatic_impairment=True,
                                        question="clcr 8 kèm suy gan liều")).rows)
    assert any("cách 12 giờ" in t for t in texts) and any("Giảm liều ở người suy gan" in t for t in texts)
    assert not any("3 g cách 4 giờ" in t or "cách 8 giờ" in t for t in texts)


def test_an_injection_of_another_drug_first_is_no_other_route_the_statement_starts_by() -> None:
    rows = read("Sốc Z: Bao giờ cũng phải tiêm thuốc W đầu tiên và sau đó có thể tiêm tĩnh mạch 100 - 300 mg.\n"
                "Hen cấp: Tiêm bắp 100 mg, sau đó tiêm tĩnh mạch 200 mg.\nHen nặng: Tiêm tĩnh mạch 500 mg.")
    texts = _texts(choose(rows, Patient(route="tiem_tinh_mach", question="sốc z tiêm tĩnh mạch bao nhiêu")).rows)
    assert any("100 - 300 mg" in t for t in texts)


def test_prevention_printed_as_phong_before_what_it_prevents_is_told_from_treatment() -> None:
    rows = read("Trẻ em:\nĐiều trị các đợt Z:\nDùng đường tĩnh mạch:\nTrẻ từ 1 - 18 tuổi: Tiêm tĩnh mạch 75 đvqt/kg.\n"
                "Dùng đường tiêm dưới da:\nTrẻ từ 1 - 18 tuổi: Tiêm 250 đvqt/kg/lần, ngày 2 lần.\n"
                "Phòng các đợt Z:\nTrẻ từ 1 - 18 tuổi: 100 đvqt/kg/lần, ngày 2 lần.")
    fit = choose(rows, Patient(population="tre_em", age_years=10, weight_kg=30, condition="z",
                               question="bé 10 tuổi 30kg cần dự phòng Z, liều?"))
    assert not fit.ask_route and _texts(fit.rows) == ["Trẻ từ 1 - 18 tuổi: 100 đvqt/kg/lần, ngày 2 lần."]


def test_a_form_asked_by_its_greek_letter_is_not_dosed_from_another_forms_statements():
    """"thuốc B beta tiêm dưới da khởi đầu": a statement naming only the alpha and zeta forms is another product's
    dose; one naming beta, or no form, stays. "alfa" is "alpha" as a box spells it."""
    rows = read("Thiếu máu Y:\nLiều khởi đầu của thuocb alpha hoặc thuocb zeta mỗi lần là 50 đơn vị/kg, tuần 3 lần, "
                "tiêm dưới da.\nLiều khởi đầu tiêm dưới da là 60 đơn vị/kg/tuần, tiêm trong 4 tuần.")
    frame = QueryFrame(question="thuocb beta tiem duoi da thieu mau Y khoi dau bao nhieu", drug_ids=["thuoc_a"],
                       route="tiem_duoi_da")
    shown = [r.text for r in choose(rows, Patient.from_frame(frame)).rows]
    assert shown == ["Liều khởi đầu tiêm dưới da là 60 đơn vị/kg/tuần, tiêm trong 4 tuần."]
    alfa = frame.model_copy(update={"question": "thuocb alfa tiem duoi da thieu mau Y khoi dau bao nhieu"})
    assert any("50 đơn vị/kg" in r.text for r in choose(rows, Patient.from_frame(alfa)).rows)


def test_a_childs_own_age_the_book_says_is_not_established_is_the_answer_not_a_weight_to_ask() -> None:
    """An 8-month-old where the book doses children of 1 - 11 years and by weight, and says the use under 1 year
    is not established: that statement, with no clarify for the weight."""
    rows = read("Trẻ em:\nBệnh Y: Trẻ em 1 - 11 tuổi và trọng lượng ≥ 10 kg: Uống mỗi ngày một lần 10 mg.\n"
                "Bệnh Z, liều dùng dựa theo trọng lượng cơ thể:\nTừ 10 tới 20 kg: 10 mg ≥ 20 kg: 10 hoặc 20 mg\n"
                "Độ an toàn và hiệu quả của thuốc B dùng đường uống ở trẻ dưới 1 tuổi chưa được xác lập.")
    baby = choose(rows, Patient(population="tre_em", age_years=8 / 12, route="uong", question="bé 8 tháng bệnh Y"))
    assert not baby.ask_age_or_weight
    assert [r.text for r in baby.rows] == ["Độ an toàn và hiệu quả của thuốc B dùng đường uống ở trẻ dưới 1 tuổi "
                                           "chưa được xác lập."]
    older = choose(rows, Patient(population="tre_em", age_years=5, weight_kg=18, route="uong",
                                 question="bé 5 tuổi bệnh Y"))
    assert all("chưa được xác lập" not in r.text for r in older.rows)


def test_a_use_not_recommended_but_allowed_when_needed_still_shows_the_doses() -> None:
    rows = read("Trẻ em: Không khuyến cáo dùng cho trẻ em dưới 18 tuổi, nhưng khi thật cần thiết, có thể cho uống.\n"
                "Dự phòng bệnh Y: Trẻ em 5 - 12 tuổi: Liều đơn 250 mg.")
    child = choose(rows, Patient(population="tre_em", age_years=8, weight_kg=25, route="uong",
                                 question="dự phòng bệnh Y trẻ 8 tuổi"))
    assert any("Liều đơn 250 mg" in r.text for r in child.rows)
