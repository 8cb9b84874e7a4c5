"""Bands end where the book starts a new one: a neonate label does not hold for the children's bands after it,
an indication label's group goes with it, and an impaired organ's heading is under no indication."""

from __future__ import annotations

from tests.test_dosing_parser import read, row


def test_a_band_naming_its_own_group_ends_the_group_an_earlier_label_named() -> None:
    # heparin: "Trẻ sơ sinh: ..." then "Trẻ từ 1 tháng - 1 tuổi: ...", then a continuation paragraph
    rows = read("Điều trị huyết khối:\nTrẻ sơ sinh: Tiêm tĩnh mạch 75 đvqt/kg.\n"
                "Trẻ từ 1 tháng - 18 tuổi: Tiêm 250 đvqt/kg/lần, ngày 2 lần.\n"
                "Tiếp tục điều trị thêm 48 giờ sau khi bệnh ổn định.")
    assert row(rows, "Trẻ sơ sinh").population == "so_sinh"
    child = row(rows, "Trẻ từ 1 tháng")
    assert child.population == "tre_em" and child.kind == "dose"  # "đvqt" is an amount
    assert row(rows, "Tiếp tục").population != "so_sinh"


def test_a_bare_age_band_stays_under_the_group_label_above_it() -> None:
    rows = read("Trẻ em: Thủy đậu: Trên 2 tuổi: 20 mg/kg, uống 4 lần/ngày.\nDưới 2 tuổi: 10 mg/kg, uống 4 lần/ngày.")
    assert row(rows, "Dưới 2 tuổi").population == "tre_em"


def test_an_indication_label_naming_neonates_does_not_leak_to_the_next_indication() -> None:
    rows = read("Duy trì ống thông động mạch cuống rốn ở trẻ sơ sinh: Truyền tĩnh mạch 0,5 đvqt/giờ.\n"
                "Điều trị các đợt huyết khối:\nDùng đường tiêm dưới da:\nTrẻ từ 1 tháng - 18 tuổi: Tiêm 250 đvqt/kg.\n"
                "Đợt điều trị thường là 5 - 7 ngày.")
    later = row(rows, "Đợt điều trị")
    assert later.population != "so_sinh" and later.indication == "Điều trị các đợt huyết khối"


def test_an_impaired_organs_heading_is_under_no_indication() -> None:
    rows = read("Viêm đường hô hấp:\nViêm xoang: Người lớn: 2 g ngày một lần.\n"
                "Điều chỉnh liều ở người suy thận:\nClcr < 10 ml/phút: không quá 2 g/24 giờ.")
    renal = row(rows, "Clcr")
    assert renal.indication is None and renal.renal is not None and not renal.hepatic


def test_a_share_of_the_usual_dose_is_an_adjustment_for_a_renal_band() -> None:
    rows = read("Suy thận:\nClcr 10 - 50 ml/phút: 30 - 70% liều thông thường.")
    assert row(rows, "Clcr").kind == "adjustment"


def test_a_dose_given_by_comparison_with_the_renal_group_is_not_for_it() -> None:
    rows = read("Thẩm phân màng bụng: Liều như người suy thận.\n"
                "Người cao tuổi: Giảm liều và thận trọng như với người bệnh suy thận.")
    assert row(rows, "Thẩm phân").renal is not None and row(rows, "Thẩm phân").renal.dialysis
    assert row(rows, "Người cao tuổi").renal is None


def test_an_impaired_organ_labelled_in_a_later_sentence_holds_for_its_paragraph_only() -> None:
    # erythropoietin: the peritoneal-dialysis label closes a paragraph; the response remark after it is not theirs,
    # and a red-cell transfusion is no route of the drug
    rows = read("Có thể tăng liều cách quãng 4 tuần, mỗi lần 25 đơn vị/kg, tuần 3 lần. Người bệnh đang thẩm tách qua "
                "màng bụng: Có thể dùng liều khởi đầu, mỗi lần 50 đơn vị/kg, tuần 2 lần.\n"
                "Nếu đáp ứng không cải thiện thì ngừng hẳn epoetin và phải tiếp tục truyền hồng cầu trở lại.")
    assert row(rows, "Người bệnh đang").renal.dialysis
    after = row(rows, "Nếu đáp ứng")
    assert after.renal is None and after.route == []


def test_bounds_printed_after_their_number_or_inside_a_formula_and_a_neonate_by_age() -> None:
    # cloxacilin
    rows = read("Trẻ sơ sinh 7 ngày tuổi hoặc nhỏ hơn, cân nặng dưới 2 kg: 25 mg/kg, cách 12 giờ/lần.\n"
                "Trẻ 7 đến 28 ngày tuổi, cân nặng 2 kg hoặc hơn: 25 mg/kg, cách 6 giờ/lần.\n"
                "Trẻ em $\\geq 1$ tháng tuổi, cân nặng dưới 20 kg: 50 - 100 mg/kg/ngày.")
    first = row(rows, "Trẻ sơ sinh")
    assert (first.population, first.age.max, first.age.unit, first.weight_kg.max) == ("so_sinh", 7, "ngay", 2)
    second = row(rows, "Trẻ 7")
    assert (second.population, second.age.min, second.age.max, second.weight_kg.min) == ("so_sinh", 7, 28, 2)
    third = row(rows, "Trẻ em")
    assert (third.population, third.age.min, third.age.unit, third.weight_kg.max) == ("tre_em", 1, "thang", 20)
    # a duration is no age: "trong 10 ngày hoặc hơn"
    assert read("Trẻ em: 10 mg/kg/ngày, dùng trong 10 ngày hoặc hơn.")[0].age is None


def test_children_from_birth_up_to_an_age_in_years_are_children_and_a_patch_is_its_own_route() -> None:
    # carbimazol; aciclovir (sample) keeps "Trẻ sơ sinh cho tới 3 tháng tuổi" neonates; estradiol
    rows = read("Trẻ sơ sinh cho đến 12 tuổi dùng liều khởi đầu 0,25 mg/kg mỗi lần, ngày 3 lần.\n"
                "Trẻ sơ sinh cho tới 3 tháng tuổi: 10 mg/kg/lần cách 8 giờ/lần.\n"
                "Khi uống, estrogen thường cho ngày 1 lần, trong 3 tuần. Khi dùng thuốc qua da, miếng dán được đặt 1 "
                "lần hoặc 2 lần/tuần trong 3 tuần.")
    assert row(rows, "Trẻ sơ sinh cho đến").population == "tre_em"
    assert row(rows, "Trẻ sơ sinh cho tới").population == "so_sinh"
    assert row(rows, "Khi dùng").route == ["other"]


def test_a_renal_table_after_a_paragraph_labelled_by_the_impaired_organ_is_the_drugs_band_not_the_group_above():
    # cefadroxil (sample-e, tuning): "Trẻ em:" heading, its indications, then "Người cao tuổi: ... Người suy thận:
    # Đối với người suy thận, ... theo bảng:" and the Clcr table
    from duocthu_desktop.dosage.parser import read_section
    from tests.test_dosing_parser import chunk

    rows = read_section("thuoc_a", [
        chunk("Trẻ em:\nViêm họng: 30 mg/kg/ngày uống 1 lần.\nNgười cao tuổi: Cần kiểm tra chức năng thận. "
              "Người suy thận: Đối với người suy thận, có thể điều trị với liều khởi đầu 500 mg.", 0),
        chunk("Clcr | Liều duy trì\n10 - 25 ml/phút | 500 mg, cách 24 giờ/lần", 1, table=True),
        chunk("Trẻ em:\nLiều theo độ thanh thải creatinin như sau:", 2),
        chunk("Clcr | Liều\n10 - 50 | 250 mg", 3, table=True),
    ])
    first, second = [r for r in rows if r.quarantined]
    assert (first.population, first.indication) == (None, None) and first.renal is not None
    assert second.population == "tre_em"  # no organ's label before it: the table is under the group heading


def test_an_intro_sentence_naming_what_is_treated_and_the_group_bounds_the_band_lines_below_it() -> None:
    # a sentence of no dose ending in "như sau:" that names the indication and the children's age, then band lines
    rows = read("Cách dùng và liều lượng ở trẻ em:\n"
                "Để điều trị bệnh loét dạ dày ở trẻ em trên 1 tuổi, liều lượng được xác định theo thể trọng như sau:\n"
                "Từ 5 đến < 10 kg: Uống 5 mg, ngày một lần.\nTừ 10 đến 20 kg: Uống 10 mg, ngày một lần.\n"
                "Những liều này có thể tăng lên gấp đôi, nếu cần thiết.\n"
                "Với bệnh viêm thực quản, có thể dùng 1 mg/kg ngày 1 lần ở trẻ em.")
    band = row(rows, "Từ 10 đến 20 kg")
    assert band.indication == "bệnh loét dạ dày"
    assert band.population == "tre_em" and band.age is not None and band.age.min == 1.0
    assert band.weight_kg is not None and (band.weight_kg.min, band.weight_kg.max) == (10.0, 20.0)
    # the first paragraph that opens on no band ends the intro; the group heading above it holds again
    later = row(rows, "Với bệnh viêm thực quản")
    assert later.indication != "bệnh loét dạ dày" and later.age is None and later.population == "tre_em"


def test_a_case_label_with_its_own_band_ends_at_the_next_indication_label() -> None:
    # "Trên 45 kg, <case>: ..." opening a paragraph of remarks, then another indication's label: not under 45 kg
    rows = read("Trẻ em: Trên 45 kg, bệnh lậu không biến chứng: Điều trị như người lớn.\n"
                "Dưới 45 kg: Tiêm bắp 1 liều duy nhất 125 mg.\n"
                "Bệnh thương hàn (tiêm tĩnh mạch): Trẻ em: 75 - 80 mg/kg ngày một lần, trong 5 - 14 ngày.")
    assert row(rows, "Dưới 45 kg").weight_kg.max == 45.0
    typhoid = row(rows, "Bệnh thương hàn")
    assert typhoid.weight_kg is None and typhoid.population == "tre_em"
    assert typhoid.indication == "Bệnh thương hàn (tiêm tĩnh mạch)" and typhoid.route == ["tiem_tinh_mach"]


def test_an_intro_naming_a_kind_of_disease_as_a_whole_bounds_the_group_but_names_no_indication() -> None:
    # "để điều trị các nhiễm khuẩn": the drug's use in general; the band lines stay the group's general doses
    rows = read("Trẻ em:\nThuốc có thể dùng cho trẻ sơ sinh và trẻ em để điều trị các nhiễm khuẩn, với liều khuyến cáo"
                " như sau:\nTrẻ sơ sinh 7 ngày tuổi hoặc nhỏ hơn: 25 mg/kg, cách 12 giờ một lần.\n"
                "Trẻ em ≥ 1 tháng tuổi, cân nặng dưới 20 kg: 50 - 100 mg/kg/ngày chia làm 4 lần.")
    assert row(rows, "Trẻ sơ sinh 7 ngày").indication is None
    assert row(rows, "Trẻ em ≥ 1 tháng").indication is None


def test_an_impaired_organs_remark_ends_where_the_next_paragraph_opens_on_a_route() -> None:
    # "Bệnh nhân suy gan: <remark>." then "Tiêm, truyền tĩnh mạch: <dose>": the route's doses are not the liver's
    rows = read("Đường uống:\nNgười lớn: Uống 20 mg ngày một lần.\n"
                "Bệnh nhân suy gan: Liều của thuốc có thể cần phải giảm.\n"
                "Tiêm, truyền tĩnh mạch: Ở những bệnh nhân không uống được, có thể truyền tĩnh mạch 40 mg trong 20 "
                "đến 30 phút.")
    assert row(rows, "Bệnh nhân suy gan").hepatic
    iv = row(rows, "Tiêm, truyền tĩnh mạch")
    assert not iv.hepatic and iv.kind == "dose" and "truyen_tinh_mach" in iv.route
    # an organ's label whose words end in ":" introduces the lines below: they stay that organ's
    rows = read("Bệnh nhân suy gan: Dùng liều như sau:\nTiêm tĩnh mạch: 10 mg ngày một lần.")
    assert row(rows, "Tiêm tĩnh mạch").hepatic


def test_a_kidney_band_under_a_joint_kidney_or_liver_heading_is_the_kidneys_by_its_own_words() -> None:
    rows = read("Suy thận hoặc suy gan: Phải giảm liều hoặc kéo dài khoảng cách giữa 2 liều. "
                "Người có tốc độ lọc cầu thận 10 - 50 ml/phút, cách 12 giờ dùng thuốc một lần.")
    joint = row(rows, "Suy thận hoặc suy gan")
    assert joint.renal is not None and joint.hepatic
    band = row(rows, "Người có tốc độ")
    assert band.renal is not None and band.renal.clcr_min == 10 and not band.hepatic


def test_two_weight_bands_set_side_by_side_on_one_line_are_two_statements() -> None:
    rows = read("Trẻ em:\nBệnh Y, liều dùng dựa theo trọng lượng cơ thể:\nTừ 10 tới 20 kg: 10 mg ≥ 20 kg: 10 hoặc 20 mg")
    assert [r.text for r in rows] == ["Từ 10 tới 20 kg: 10 mg", "≥ 20 kg: 10 hoặc 20 mg"]
    assert (rows[1].weight_kg.min, rows[1].weight_kg.max) == (20, None)
    # a bound inside a statement ("trọng lượng ≥ 10 kg:") after no dose is no second band
    assert len(read("Trẻ em 1 - 11 tuổi và trọng lượng ≥ 10 kg: Uống 10 mg, trong 8 tuần.")) == 1
