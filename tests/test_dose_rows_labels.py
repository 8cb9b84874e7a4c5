"""The label rules are data a person can read (labels.RULES), and labels that qualify the indication above them
(an alternative, a phase, an INR band) or explain an abbreviation never become the indication or a row."""

from __future__ import annotations

from duocthu_desktop.dosage import labels
from duocthu_desktop.dosage.parser import classify_rule
from tests.test_dosing_parser import read, row


def test_the_rule_table_prints_one_line_per_rule_in_order() -> None:
    lines = labels.table()
    assert len(lines) == len(labels.RULES)
    assert lines[0].startswith("generic") and lines[-1].startswith("indication")
    assert all(r.kind in ("generic", "glossary", "route", "group", "indication", "qualifier", "kind", "note")
               for r in labels.RULES)


def test_each_label_is_named_by_the_rule_that_classified_it() -> None:
    cases = {
        "Cách khác": "alternative", "Một phác đồ khác": "alternative", "Ban đầu": "phase", "Duy trì": "phase",
        "INR 2 - 3": "inr_band", "Bệnh nặng": "severity", "Người lớn": "group", "Uống": "route",
        "Suy thận": "organ_band", "Liều dùng": "generic", "Viêm phổi": "indication",
    }
    for words, name in cases.items():
        assert classify_rule(words)[2].name == name, words


def test_a_qualifier_label_keeps_the_indication_above_it() -> None:
    rows = read("Viêm phổi:\nBan đầu: 500 mg/lần, ngày 2 lần.\nDuy trì: 250 mg/lần, ngày 2 lần.\n"
                "Cách khác: 1 g/ngày, một lần.\nINR 2 - 3: Giữ nguyên liều 5 mg/ngày.")
    for start in ("Ban đầu", "Duy trì", "Cách khác", "INR 2 - 3"):
        assert row(rows, start).indication == "Viêm phổi", start


def test_a_glossary_line_is_neither_a_row_nor_an_indication() -> None:
    rows = read("Chảy máu:\nFFP: fresh frozen plasma.\nTruyền 15 ml/kg FFP, cách 12 giờ/lần.")
    assert not [r for r in rows if r.text.startswith("FFP")]
    assert row(rows, "Truyền 15").indication == "Chảy máu"


def test_a_labels_bracketed_aside_does_not_make_it_an_indication() -> None:
    rows = read("Cách dùng: (gồm các bước như sau)\nRửa tay sạch trước mỗi lần dùng.\n- 1.\nĐậy nắp lại.")
    assert all(r.indication is None for r in rows)
    assert not [r for r in rows if r.text.strip() == "- 1."]  # a step number is not a statement


def test_labels_that_are_sentences_phases_of_a_procedure_or_numbers_are_named_by_their_rule() -> None:
    cases = {
        "Trong lúc đang gây mê": "procedure_phase", "Sau cuộc phẫu thuật": "procedure_phase",
        "Trong lúc hồi tỉnh sau gây mê": "procedure_phase", "Phải theo dõi chặt lâm sàng": "sentence",
        "Cần theo dõi huyết áp": "sentence", "1 hoặc 30": "number", "Thuốc thường phối hợp theo tỉ lệ 8": "number",
        "Cách chuyển từ thuốc khác sang thuốc này": "note",
    }
    for words, name in cases.items():
        assert classify_rule(words)[2].name == name, words


def test_a_phase_of_a_procedure_keeps_the_indication_above_it() -> None:
    rows = read("Nhịp nhanh trong phẫu thuật:\nTrong lúc đang gây mê: tiêm tĩnh mạch 50 mg.\n"
                "Sau cuộc phẫu thuật: tiêm tĩnh mạch 20 mg.")
    assert row(rows, "Trong lúc").indication == "Nhịp nhanh trong phẫu thuật"
    assert row(rows, "Sau cuộc").indication == "Nhịp nhanh trong phẫu thuật"


def test_a_how_to_heading_or_a_sentence_before_a_colon_is_not_the_indication() -> None:
    rows = read("Glôcôm góc mở:\nNgười lớn: nhỏ 1 giọt, ngày 2 lần.\n"
                "Cách chuyển từ thuốc khác sang thuốc này:\nNgừng thuốc cũ, hôm sau nhỏ 1 giọt, ngày 2 lần.\n"
                "Phải theo dõi chặt lâm sàng:\nKhông cần giảm liều khi Clcr > 40 ml/phút.")
    assert row(rows, "Ngừng thuốc cũ").indication == "Glôcôm góc mở"
    assert row(rows, "Không cần giảm").indication != "Phải theo dõi chặt lâm sàng"


def test_a_ratio_split_at_its_colon_is_not_a_label() -> None:
    rows = read("Thuốc thường phối hợp theo tỉ lệ 15 : 1 hoặc 30 : 1.\nTruyền tĩnh mạch 3 g, cách 6 giờ/lần.")
    assert all(r.indication is None for r in rows)


def test_a_blood_transfusion_is_not_a_route() -> None:
    rows = read("Truyền máu: thêm 7 500 đvqt vào 100 ml dung dịch natri clorid 0,9%.")
    assert "truyen_tinh_mach" not in rows[0].route


def test_a_disease_of_a_site_is_an_indication_not_a_route() -> None:
    rows = read("Chàm mạn:\nBôi một lớp mỏng, ngày 2 lần.\nĐau ngứa hậu môn, nhất là khi có trĩ:\nBôi thuốc mỡ, ngày 2 lần.")
    assert row(rows, "Bôi thuốc mỡ").indication == "Đau ngứa hậu môn, nhất là khi có trĩ"


def test_what_a_sentence_treats_ends_where_how_it_is_given_begins() -> None:
    rows = read("Để dự phòng và điều trị thiếu máu của trẻ đẻ non dùng tiêm dưới da 250 đơn vị/kg, tuần 3 lần.")
    assert rows[0].indication == "thiếu máu của trẻ đẻ non"


def test_an_indication_heading_whose_words_hold_liệu_is_not_a_dose_remark() -> None:
    # "liệu" of "hóa trị liệu" folds to the same word as "liều": erythropoietin's chemotherapy heading, alone on
    # its line after the zidovudin block, is the indication of the lines below it
    rows = read("Thiếu máu ở người bệnh điều trị bằng zidovudin\n"
                "Có thể tiêm dưới da hoặc tiêm tĩnh mạch epoetin alpha với liều khởi đầu là 100 đơn vị/kg, 3 lần/tuần.\n"
                "Thiếu máu do hóa trị liệu ung thư\n"
                "Liều khởi đầu của epoetin alpha hoặc epoetin zeta là 150 đơn vị/kg, 3 lần/tuần.")
    assert classify_rule("Thiếu máu do hóa trị liệu ung thư")[2].name == "indication"
    assert classify_rule("Liều cao")[2].name == "dose_kind"
    assert row(rows, "Liều khởi đầu của").indication == "Thiếu máu do hóa trị liệu ung thư"


def test_the_groups_printed_under_a_kidney_disease_the_drug_treats_keep_that_indication() -> None:
    # erythropoietin: dialysis groups under "Thiếu máu ở người bệnh suy thận mạn tính" are that indication's groups,
    # their doses are the regimen, not a renal adjustment
    rows = read("Thiếu máu ở người bệnh suy thận mạn tính:\n"
                "Liều người lớn đang thẩm tách máu hoặc chuẩn bị thẩm tách máu: Liều khởi đầu mỗi lần là 50 đơn vị/kg, "
                "tuần 3 lần.\nNgười bệnh thẩm tách máu:\nLiều khởi đầu mỗi lần 50 đơn vị/kg, tuần 3 lần.")
    first = row(rows, "Liều người lớn")
    assert (first.indication, first.population, first.kind) == (
        "Thiếu máu ở người bệnh suy thận mạn tính", "nguoi_lon", "dose")
    assert first.renal is not None and first.renal.dialysis
    below = row(rows, "Liều khởi đầu mỗi lần 50")
    assert (below.indication, below.kind) == ("Thiếu máu ở người bệnh suy thận mạn tính", "dose")


def test_a_purpose_heading_is_the_indication_and_a_later_route_heading_keeps_it() -> None:
    # ketorolac: "Để giảm đau" over the injected doses by group, then "Uống:" over the oral ones
    rows = read("Liều lượng:\nĐể giảm đau, dùng dạng tiêm hoặc uống:\n"
                "Người bệnh < 50 kg và/hoặc có chức năng thận bị suy giảm:\nTiêm bắp: 15 mg cách 6 giờ/lần.\n"
                "Uống:\nLiều thông thường ở người cao tuổi: 10 mg, cho tới 4 lần/ngày.")
    assert classify_rule("Để giảm đau, dùng dạng tiêm hoặc uống")[2].name == "purpose"
    assert classify_rule("Để pha dung dịch tiêm")[2].name != "purpose"
    injected = row(rows, "Tiêm bắp")
    assert injected.indication == "Để giảm đau" and injected.weight_kg.max == 50
    oral = row(rows, "Liều thông thường")
    assert (oral.indication, oral.route, oral.population, oral.weight_kg) == ("Để giảm đau", ["uong"],
                                                                              "nguoi_cao_tuoi", None)


def test_a_how_to_heading_for_a_group_sets_the_group_not_an_indication() -> None:
    # heparin
    rows = read("Hướng dẫn điều chỉnh liều cho trẻ em theo APTT:\n"
                "Sau liều dùng ban đầu như đã nêu ở các phần trên, truyền tĩnh mạch heparin để duy trì APTT trong "
                "khoảng 60 - 85 giây.")
    assert (rows[0].population, rows[0].indication) == ("tre_em", None)


def test_a_heading_alone_on_its_line_ends_a_remark_labelled_for_the_elderly() -> None:
    # heparin: the elderly remark, then the in-vitro uses
    rows = read("Người cao tuổi: Bệnh nhân trên 60 tuổi, đặc biệt là phụ nữ, có nguy cơ chảy máu cao, vì vậy có thể "
                "cần dùng liều thấp hơn cho các bệnh nhân này.\nChống đông trong truyền máu và lấy mẫu máu:\n"
                "Lấy mẫu xét nghiệm: Khi dùng heparin natri làm chất chống đông in vitro cho máu xét nghiệm, thêm "
                "70 - 150 đvqt heparin natri vào 10 - 20 ml máu toàn phần.")
    assert row(rows, "Người cao tuổi").population == "nguoi_cao_tuoi"
    assert row(rows, "Lấy mẫu").population is None


def test_an_intro_sentence_ending_in_a_colon_and_a_symbol_explained_are_not_indications() -> None:
    # warfarin's INR intro; carboplatin's formula symbols
    rows = read("Trong đại đa số trường hợp, INR giữa 2 và 3 có trị số đích 2,5 được tìm, có nghĩa là :\n"
                "INR dưới 2 phản ánh chống đông máu chưa đủ.\n"
                "Trong đó:\nCcr là nồng độ creatinin huyết thanh (micromol/lít)\n"
                "AUC đích điển hình từ 5 - 7 mg/ml/phút tùy thuộc vào điều trị trước đó.")
    assert {r.indication for r in rows} == {None}


def test_a_heading_naming_a_disease_of_a_group_is_an_indication_and_its_sentences_keep_it() -> None:
    # erythropoietin: "thiếu" of "Thiếu máu" is not the "thiếu" of "thiếu tháng"; the sentence below names what
    # it treats in its own words, and the heading stays the indication
    rows = read("Thiếu máu ở trẻ sơ sinh thiếu tháng\n"
                "Epoetin beta cũng được dùng để dự phòng và điều trị thiếu máu của trẻ sơ sinh thiếu tháng có thể "
                "trọng thấp.\nĐể điều trị thiếu máu của trẻ sơ sinh thiếu tháng dùng epoetin beta tiêm dưới da với "
                "liều 250 đơn vị/kg, 3 lần/tuần.")
    dose = row(rows, "Để điều trị")
    assert (dose.indication, dose.population) == ("Thiếu máu ở trẻ sơ sinh thiếu tháng", "so_sinh")
    assert row(rows, "Epoetin beta").indication == "Thiếu máu ở trẻ sơ sinh thiếu tháng"


def test_what_a_sentence_is_for_is_not_a_phase_or_a_condition() -> None:
    # erythropoietin's maintenance; ibuprofen (sample-b)
    rows = read("Khi đã đạt được nồng độ hemoglobin mong muốn, cần giảm liều khoảng 25 - 50% để điều trị duy trì.\n"
                "Tối đa có thể cho 40 mg/kg/ngày để điều trị viêm khớp dạng thấp thiếu niên nếu cần.")
    assert row(rows, "Khi đã").indication is None
    assert row(rows, "Tối đa").indication == "viêm khớp dạng thấp thiếu niên"
    # tím gentian: the reason that follows is not part of what is treated
    reason = read("Tránh dùng băng kín trong điều trị nhiễm Candida vì bệnh dễ gây phát triển nấm men.")
    assert reason[0].indication == "nhiễm Candida"


def test_an_alternative_for_a_group_and_a_source_named_are_not_indications() -> None:
    # ibuprofen, ceftriaxon (sample-b)
    assert classify_rule("Một cách khác, liều gợi ý cho trẻ em là")[:2][0] == "group"
    assert classify_rule("Nhà sản xuất khuyến cáo")[0] == "note"


def test_a_products_name_opening_a_remark_under_an_indication_heading_keeps_that_indication() -> None:
    # erythropoietin: "Epoetin alpha:" and "Epoetin zeta:" say how each product is given, within the kidney disease
    # heading; "Ho khan:" (Vietnamese written without diacritics) stays an indication of its own
    rows = read("Thiếu máu ở người bệnh suy thận mạn tính:\n"
                "Epoetin alpha: Có thể tiêm dưới da hoặc tiêm tĩnh mạch trong tối thiểu 1 phút.\n"
                "Epoetin zeta: Có thể tiêm tĩnh mạch.\n"
                "Liều người lớn đang thẩm tách máu hoặc chuẩn bị thẩm tách máu: Liều khởi đầu của epoetin alpha hoặc "
                "epoetin zeta mỗi lần là 50 đơn vị/kg, tuần 3 lần.")
    for starts in ("Epoetin alpha", "Epoetin zeta", "Liều người lớn"):
        assert row(rows, starts).indication == "Thiếu máu ở người bệnh suy thận mạn tính", starts
    assert row(rows, "Liều người lớn").kind == "dose"
    cough = read("Điều trị ho:\nHo khan: Thường dùng dạng sirô.\nNgười lớn: 10 - 20 mg/lần.")
    assert row(cough, "Người lớn").indication == "Ho khan"


def test_a_long_label_is_a_label_and_a_second_label_describing_the_first_is_not_the_indication() -> None:
    # cefadroxil
    rows = read("Trẻ em:\nDự phòng viêm nội tâm mạc do liên cầu khuẩn α - tan máu (nhóm viridans) cho người bị dị ứng "
                "với penicilin (trừ trường hợp có tiền sử phản ứng mẫn cảm tức thì): 50 mg/kg/liều (tối đa 2 g), 1 "
                "liều duy nhất uống trước khi làm thủ thuật 0,5 - 1 giờ.\n"
                "Dự phòng viêm nội tâm mạc nhiễm khuẩn: Để thay thế amoxicilin hoặc ampicilin trong dự phòng viêm nội "
                "tâm mạc nhiễm khuẩn do liên cầu khuẩn α- tan máu (nhóm viridans) cho người bị dị ứng penicilin: 1 liều "
                "duy nhất 2 g uống trước khi làm thủ thuật 0,5 - 1 giờ.")
    assert row(rows, "Dự phòng viêm nội tâm mạc do").indication.startswith("Dự phòng viêm nội tâm mạc do liên cầu")
    assert row(rows, "Dự phòng viêm nội tâm mạc nhiễm").indication == "Dự phòng viêm nội tâm mạc nhiễm khuẩn"


def test_what_a_sentence_prevents_is_named_whole() -> None:
    # esomeprazol
    rows = read("Riêng khi dùng để phòng ngừa xuất huyết tái phát trong loét dạ dày - tá tràng, liều 20 mg/ngày.")
    assert rows[0].indication == "xuất huyết tái phát trong loét dạ dày - tá tràng"


def test_a_heading_joined_to_the_group_label_after_it_is_two_labels() -> None:
    # hydralazin: "Suy tim" printed as a heading, the extractor joined it to "Người lớn:"
    rows = read("Suy tim Người lớn: Ban đầu uống 10 - 25 mg/lần, ngày 4 lần, trong 2 - 4 ngày.\n"
                "Trẻ em: 0,75 mg/kg/ngày, hoặc 25 mg/m2 /ngày chia 4 lần.")
    adult, child = row(rows, "Suy tim"), row(rows, "Trẻ em")
    assert (adult.indication, adult.population) == ("Suy tim", "nguoi_lon")
    assert (child.indication, child.population) == ("Suy tim", "tre_em")


def test_an_abbreviated_genus_stays_in_its_label_and_a_case_for_a_group_sets_the_group() -> None:
    # ceftriaxon (sample-b)
    rows = read("Bệnh lậu và nhiễm khuẩn kết hợp do N. gonorrhoeae, bao gồm nhiễm khuẩn do chủng tiết penicilinase: "
                "1 liều duy nhất 250 mg tiêm bắp.\n"
                "Nếu nhiễm lan tỏa ở người lớn, thiếu niên: Tiêm bắp hoặc tĩnh mạch 1 g ngày 1 lần.")
    assert row(rows, "Bệnh lậu").indication.startswith("Bệnh lậu và nhiễm khuẩn kết hợp do N. gonorrhoeae")
    case = row(rows, "Nếu nhiễm")
    assert case.population == "nguoi_lon" and case.indication.startswith("Bệnh lậu")


def test_a_label_opening_on_a_disease_that_names_its_route_is_an_indication_with_that_route() -> None:
    from duocthu_desktop.dosage.parser import classify  # noqa: PLC0415
    kind, f = classify("Bệnh thương hàn (tiêm tĩnh mạch)")
    assert kind == "indication" and f.routes == ["tiem_tinh_mach"] and f.indication == "Bệnh thương hàn (tiêm tĩnh mạch)"
    kind, f = classify("Điều trị đồng thời thuốc A và thuốc B uống")
    assert kind == "indication" and f.routes == ["uong"]
    # a way of giving that opens the label stays a route heading
    assert classify("Tiêm tĩnh mạch chậm")[0] == "route"
    assert classify("Dung dịch nhỏ mắt")[0] == "route"


def test_a_band_label_opening_on_tren_is_not_read_as_opening_on_a_group() -> None:
    # "trên" folds to "tren", which is not "trẻ": the words after the band name a case (an indication)
    from duocthu_desktop.dosage.parser import classify  # noqa: PLC0415
    kind, f = classify("Trên 45 kg, bệnh lậu không biến chứng")
    assert kind == "indication" and f.weight is not None and f.weight.min == 45.0
    assert classify("Trên 2 tuổi")[0] == "group"


def test_an_indication_heading_with_a_remark_on_its_doses_after_a_comma_is_that_indication() -> None:
    """"Bệnh Y, liều dùng dựa theo trọng lượng cơ thể ...:" alone on its line heads the lines below as indication
    "Bệnh Y"; the label that opened the paragraph before ("Bệnh X: Trẻ em ...: ...") no longer holds."""
    rows = read("Trẻ em:\nBệnh X: Trẻ em 1 - 11 tuổi: Uống 10 mg, trong 8 tuần.\n"
                "Bệnh Y trợt xước, liều dùng dựa theo trọng lượng cơ thể và dùng mỗi ngày một lần trong 8 tuần:\n"
                "Từ 10 tới 20 kg: 10 mg.")
    assert row(rows, "Từ 10 tới 20 kg").indication == "Bệnh Y trợt xước"
    assert row(rows, "Bệnh X").indication == "Bệnh X"


def test_a_count_of_doses_at_a_frequency_is_a_dose_with_words_between() -> None:
    """"dùng thêm 2 liều bổ sung mỗi 6 giờ": how many doses and how often, with words naming them between, is the
    regimen, not an instruction; an interval with no count of doses ("Kiểm tra mỗi 6 giờ") stays an instruction."""
    rows = read("Sau khi đạt được kiểm soát ban đầu, dùng thêm 2 liều bổ sung mỗi 6 giờ trong vòng 18 giờ.\n"
                "Kiểm tra chỉ số Y mỗi 6 giờ.")
    assert [r.kind for r in rows] == ["dose", "instruction"]

