"""Groups as the book names them: groups named together are one group, a dose-kind label alone on its line that
names a group heads the lines below it, a sentence's age is not read as an adult's band."""

from __future__ import annotations

from tests.test_dosing_parser import read, row


def test_adults_named_with_older_children_are_the_adults_group_with_the_printed_bound() -> None:
    rows = read("Người lớn và trẻ em trên 12 tuổi: 10 - 20 mg/lần, 3 - 4 lần trong ngày.\n"
                "Người lớn và thiếu niên: 500 mg/lần, ngày 2 lần.")
    first = row(rows, "Người lớn và trẻ em")
    assert first.population == "nguoi_lon" and first.age.min == 12 and first.age.max is None
    assert row(rows, "Người lớn và thiếu niên").population == "nguoi_lon"


def test_adults_and_children_with_no_bound_stay_two_groups() -> None:
    rows = read("Không dùng cho người lớn và trẻ em để tự điều trị sốt cao quá 3 ngày.")
    assert rows[0].population is None


def test_a_dose_label_naming_a_group_alone_on_its_line_heads_the_lines_below() -> None:
    # carbamazepin prints "Liều cho người lớn và trẻ em trên 12 tuổi:" then the regimen, then the next group's
    rows = read("Điều trị động kinh:\nLiều cho người lớn và trẻ em trên 12 tuổi:\n"
                "Bắt đầu uống 100 - 200 mg, 1 hoặc 2 lần/ngày.\n"
                "Liều cho trẻ em từ 6 đến 12 tuổi:\nBắt đầu thường là 100 mg, 2 lần/ngày. Liều cho trẻ em dưới 6 tuổi:\n"
                "Bắt đầu 10 - 20 mg/kg/ngày, chia thành 2 hoặc 3 lần.")
    adult = row(rows, "Bắt đầu uống")
    assert (adult.population, adult.age.min) == ("nguoi_lon", 12)
    child = row(rows, "Bắt đầu thường")
    assert (child.population, child.age.min, child.age.max) == ("tre_em", 6, 12)
    small = row(rows, "Bắt đầu 10")
    assert (small.population, small.age.max) == ("tre_em", 6)
    assert {r.indication for r in rows} == {"Điều trị động kinh"}


def test_a_band_of_patients_over_sixty_is_the_elderly() -> None:
    rows = read("Người cao tuổi: Bệnh nhân trên 65 tuổi có nguy cơ chảy máu cao, có thể cần liều thấp hơn.")
    assert rows[0].population == "nguoi_cao_tuoi"


def test_a_group_sent_to_another_section_heads_no_rows_and_the_heading_after_it_does() -> None:
    rows = read("Tiêm bắp:\nNgười lớn: 30 mg.\nLiều cho trẻ em: Xem mục chống chỉ định. Uống:\n"
                "Người bệnh < 50 kg: 10 mg/ngày.\nNhỏ mắt: 1 giọt/lần, ngày 4 lần.")
    assert row(rows, "Người bệnh").population != "tre_em" and row(rows, "Người bệnh").route == ["uong"]
    assert row(rows, "Nhỏ mắt").population != "tre_em"


def test_a_group_word_glued_to_its_age_band_is_read() -> None:
    rows = read("Liều thông thường người lớn16 - 64 tuổi: uống 20 mg, sau đó 10 mg cách 6 giờ/lần.")
    assert rows[0].population == "nguoi_lon"


def test_a_sentence_giving_a_dose_to_each_of_two_bands_keeps_the_heading_band() -> None:
    # carbamazepin, under "Liều cho người lớn và trẻ em trên 12 tuổi:"
    rows = read("Liều cho người lớn và trẻ em trên 12 tuổi:\n"
                "Liều dùng không được quá 1 000 mg/ngày cho trẻ em từ 12 đến 15 tuổi và 1 200 mg cho người bệnh trên "
                "15 tuổi. Những liều tới 1 600 mg/ ngày cho người lớn cũng đã được dùng trong một vài trường hợp cá biệt.")
    for starts in ("Liều dùng không", "Những liều tới"):
        found = row(rows, starts)
        assert (found.population, found.age.min, found.age.max) == ("nguoi_lon", 12, None), starts


def test_a_group_joined_to_an_organ_by_or_within_the_organs_words_is_still_named() -> None:
    rows = read("Người cao tuổi và người suy thận: 250 mg/ngày.\n"
                "Liều người lớn đang thẩm tách máu hoặc chuẩn bị thẩm tách máu: 50 đơn vị/kg, tuần 3 lần.")
    assert row(rows, "Người cao tuổi").population is None  # either group
    assert row(rows, "Liều người lớn").population == "nguoi_lon"


def test_an_age_band_reaching_into_adulthood_with_a_least_weight_is_the_adults() -> None:
    # ketorolac
    rows = read("Người bệnh từ 16 - 64 tuổi, cân nặng ít nhất 50 kg và có chức năng thận bình thường:\n"
                "Tiêm bắp: 30 mg cách 6 giờ/lần, cho tới tối đa 20 liều trong 5 ngày, hoặc:")
    found = row(rows, "Tiêm bắp")
    assert (found.population, found.age.min, found.age.max) == ("nguoi_lon", 16, 64)
    assert (found.weight_kg.min, found.weight_kg.max) == (50, None) and found.renal is None


def test_a_group_label_glued_to_the_end_of_a_paragraph_heads_the_lines_below() -> None:
    # cefalexin: "Trẻ em: Trên 1 tuổi, dùng đường uống." ends the adults' last paragraph; the children's usual dose
    # opens on "Liều thường dùng:", which names its dose and does not start the section over
    rows = read("Liều lượng:\nTrẻ em trên 15 tuổi và người lớn:\nDùng đường uống. Liều thường dùng cho người lớn, "
                "uống 250 - 500 mg cách 6 giờ/1 lần.\n"
                "Nhiễm khuẩn đường tiết niệu: Để điều trị viêm bàng quang không biến chứng, thường dùng 500 mg, cách "
                "12 giờ/lần, trong 7 - 14 ngày. Trẻ em: Trên 1 tuổi, dùng đường uống.\n"
                "Liều thường dùng: 25 - 100 mg/kg ngày, chia thành 3 - 4 lần (tối đa 4 g/ngày).\n"
                "Viêm tai giữa cấp: 75 - 100 mg/kg một ngày, chia đều uống trong 4 lần.")
    adult = row(rows, "Liều thường dùng cho người lớn")
    assert (adult.population, adult.age.min) == ("nguoi_lon", 15)
    for starts in ("Liều thường dùng: 25", "Viêm tai"):
        child = row(rows, starts)
        assert (child.population, child.age.min, child.age.max) == ("tre_em", 1, None), starts
    assert row(rows, "Liều thường dùng: 25").indication is None


def test_a_maximums_heading_naming_a_group_heads_that_groups_ceilings() -> None:
    # ketorolac: the heading is glued to the end of a remark
    rows = read("Ghi chú: Liều và số lần dùng thuốc được khuyến cáo ở trên không được tăng nếu đau không đỡ. Liều "
                "tối đa cho người lớn 16 - 64 tuổi 50 kg, chức năng thận bình thường:\n"
                "Tiêm bắp hoặc tĩnh mạch: 120 mg/ngày.\n"
                "Trẻ em 6 - 12 tuổi:\nUống: 20 mg/ngày.")
    ceiling = row(rows, "Tiêm bắp")
    assert (ceiling.population, ceiling.age.min, ceiling.age.max, ceiling.kind) == ("nguoi_lon", 16, 64, "max_dose")
    assert row(rows, "Uống").kind == "dose"


def test_a_comparison_with_the_adults_dose_keeps_the_elderlys_band_and_a_weight_from_to() -> None:
    # escitalopram, esomeprazol
    rows = read("Liều dùng ở người trên 65 tuổi: Liều ban đầu bằng 1/2 liều thông thường khuyến cáo. Liều tối đa thấp "
                "hơn liều tối đa được khuyến cáo cho người lớn.\nTrẻ em: Từ 10 tới 20 kg: 10 mg.")
    assert row(rows, "Liều tối đa").population == "nguoi_cao_tuoi"
    child = row(rows, "Trẻ em")
    assert (child.weight_kg.min, child.weight_kg.max) == (10, 20)


def test_the_group_a_paragraph_opens_on_holds_for_the_later_paragraphs_of_its_block() -> None:
    # erythropoietin (sample-e, tuning), "Thiếu máu do hóa trị liệu ung thư": the adults named once, the doses in the
    # paragraphs after it; the next heading ends the block
    rows = read("Thiếu máu do hóa trị liệu ung thư\n"
                "Ở người lớn đang dùng hóa trị liệu để điều trị bệnh ác tính, có thể dùng thuốc tiêm dưới da để chữa "
                "thiếu máu triệu chứng.\n"
                "Liều khởi đầu là 150 đơn vị/kg, 3 lần/tuần hoặc 450 đơn vị/kg, tuần 1 lần.\n"
                "Tổng liều hàng tuần không được vượt quá 60 000 đơn vị.\n"
                "Thiếu máu ở trẻ sơ sinh thiếu tháng\n"
                "Liều 250 đơn vị/kg, 3 lần/tuần.")
    assert row(rows, "Liều khởi đầu").population == "nguoi_lon"
    assert row(rows, "Tổng liều").population == "nguoi_lon"
    assert row(rows, "Liều 250").population != "nguoi_lon"


def test_a_group_named_in_a_remark_or_with_its_bounds_does_not_carry_its_bounds_to_later_paragraphs() -> None:
    # kanamycin (sample-e, tuning): a remark ending a paragraph names pregnant women; warfarin (sample book): the
    # children "dưới 3 tuổi" of an opening sentence, then doses for bands up to 18 years
    rows = read("Liều cao dùng ngày 1 lần nên tránh ở người bệnh bỏng. Chưa có đủ chứng cứ để dùng ngày 1 lần ở phụ nữ "
                "mang thai.\nTiêm bắp sâu vào cung phần tư phía trên của cơ mông.")
    assert row(rows, "Tiêm bắp sâu").population is None
    rows = read("Ở trẻ em dưới 3 tuổi, liều trung bình được dùng cao hơn so với trẻ nhiều tuổi hơn.\n"
                "Số lần dùng thuốc trong ngày 1 hoặc 2 lần mỗi ngày.")
    assert row(rows, "Số lần").population == "tre_em"
    assert row(rows, "Số lần").age is None


def test_a_heading_glued_to_the_end_of_a_paragraph_ends_the_group_its_sentences_named() -> None:
    # erythropoietin (sample-e, tuning): "... (tối đa 60 000 đơn vị). *Người bệnh phẫu thuật*" glued by the extractor
    rows = read("Ở trẻ em, có thể dùng thuốc tiêm tĩnh mạch với liều 600 đơn vị/kg. Người bệnh phẫu thuật\n"
                "Có thể dùng thuốc có bổ sung sắt để điều trị người bệnh thiếu máu chuẩn bị phẫu thuật chọn lọc.")
    assert row(rows, "Có thể dùng thuốc có").population is None


def test_several_groups_listed_as_one_heading_set_no_single_group_and_no_indication() -> None:
    rows = read("Cho người lớn, người cao tuổi và trẻ em:\nGây tê vùng:\nTiêm bắp: 2 - 4 mg/kg.\n"
                "Người lớn, trẻ em hoặc người cao tuổi:\nDự phòng:\nUống 5 mg/kg, ngày 2 lần.")
    for r in rows:
        assert r.population is None and r.indication in ("Gây tê vùng", "Dự phòng"), r
    assert row(rows, "Tiêm bắp").indication == "Gây tê vùng"


def test_a_disease_list_keeps_reading_its_first_item_for_the_group() -> None:
    rows = read("Nhiễm khuẩn huyết, nhiễm khuẩn huyết sơ sinh, viêm màng não:\nTiêm tĩnh mạch 5 mg/kg/ngày.")
    assert rows[0].population is None and rows[0].indication.startswith("Nhiễm khuẩn huyết")


def test_adults_listed_with_adolescents_stay_the_adults_group() -> None:
    rows = read("Hạ cam: Người lớn, thanh thiếu niên: 1 liều duy nhất 250 mg tiêm bắp.")
    assert rows[0].population == "nguoi_lon"


def test_an_indication_the_section_opens_with_holds_over_its_generic_parts() -> None:
    """A heading printed first ("Bệnh X"), then "Cách dùng:" and "Liều lượng:": those label the section's parts,
    so the doses under them are still for that indication, until the next indication heading."""
    rows = read("Bệnh X\nCách dùng:\nThuốc được dùng đường uống.\nLiều lượng:\n"
                "Người lớn: Uống 10 mg/lần, ngày 4 lần.\nBệnh Y\nNgười lớn: Uống 25 mg/lần, ngày 4 lần.")
    assert row(rows, "Người lớn: Uống 10 mg").indication == "Bệnh X"
    assert row(rows, "Người lớn: Uống 25 mg").indication == "Bệnh Y"
    # a generic label that comes first still starts over: a later heading is not section-wide
    rows = read("Liều lượng:\nBệnh X\nNgười lớn: Uống 10 mg/lần.\nLiều dùng:\nNgười lớn: Uống 25 mg/lần.")
    assert row(rows, "Người lớn: Uống 25 mg").indication is None


def test_an_indication_label_after_a_list_of_groups_is_their_sibling() -> None:
    """'Người lớn: ... mg' and 'Người cao tuổi: ... mg' list the groups; 'Cơn Z: Tiêm bắp 10 mg' after them is
    not the elderly's. One group label over the indications after it still holds for them."""
    rows = read("Người lớn: Uống 10 mg/lần, ngày 4 lần.\nNgười cao tuổi: Khởi đầu uống 10 mg, ngày 2 lần.\n"
                "Cơn Z: Tiêm bắp 10 - 50 mg.")
    assert row(rows, "Cơn Z").population is None
    assert row(rows, "Người cao tuổi").population == "nguoi_cao_tuoi"
    rows = read("Trẻ em: Trên 1 tuổi, dùng đường uống 25 mg/kg/ngày.\nViêm tai giữa cấp: 75 mg/kg một ngày.")
    assert row(rows, "Viêm tai giữa cấp").population == "tre_em"


def test_groups_named_together_alone_on_their_line_head_every_statement_below_and_dose_a_child() -> None:
    """'Cho người lớn, người cao tuổi và trẻ em:' opening the section: no single group to set, but the heading stays
    above the doses under the indications below it, so a child is dosed from them and an adult too."""
    from duocthu_desktop.dosage.fit import Patient, choose

    rows = read("Cho người lớn, người cao tuổi và trẻ em:\nBệnh X:\nTiêm tĩnh mạch 1 - 2 mg/kg.\n"
                "Bệnh Y:\nĐường uống: 5 - 8 mg/kg cho một liều.")
    oral = row(rows, "Đường uống: 5 - 8 mg/kg")
    assert oral.population is None and "Cho người lớn, người cao tuổi và trẻ em" in oral.headings
    child = choose(rows, Patient(population="tre_em", weight_kg=20, route="uong", question="bé 20 kg uống bệnh Y"))
    assert [r.text for r in child.rows] == ["Đường uống: 5 - 8 mg/kg cho một liều."]
    # the same doses under no heading naming children are the adults' and are not given for a child
    plain = read("Bệnh X:\nTiêm tĩnh mạch 1 - 2 mg/kg.\nBệnh Y:\nĐường uống: 5 - 8 mg/kg cho một liều.")
    assert not choose(plain, Patient(population="tre_em", weight_kg=20, route="uong", question="bé 20 kg")).rows
