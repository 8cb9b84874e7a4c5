"""A route the statement prints in its own words is read wherever it stands, and doses printed as instructions
(drops of a solution, a frequency in words) are doses."""

from __future__ import annotations

from tests.test_dosing_parser import read, row


def test_a_route_named_late_in_a_sentence_is_read_when_no_heading_names_one() -> None:
    rows = read("Liều duy trì thường dao động từ 50 - 100 mg/lần, ngày uống 3 lần.")
    assert rows[0].route == ["uong"]


def test_a_heading_route_is_kept_for_a_sentence_that_names_none() -> None:
    rows = read("Tiêm bắp:\nNgười lớn: 1 g/lần, ngày 2 lần.")
    assert row(rows, "Người lớn").route == ["tiem_bap"]


def test_drops_of_a_solution_and_a_frequency_in_words_are_doses() -> None:
    rows = read("Nhỏ 1 giọt dung dịch 0,25% vào mắt bị bệnh, 2 lần/ngày.\nBôi một dải 1,3 cm vào túi kết mạc, ngày một lần.")
    assert row(rows, "Nhỏ 1 giọt").kind == "dose"
    assert row(rows, "Bôi một dải").kind == "dose"


def test_routes_joined_by_or_after_a_group_are_all_read() -> None:
    rows = read("Trẻ em 6 - 12 tuổi, uống hoặc tiêm bắp, 10 - 20 mg cách 6 giờ/lần.")
    assert set(rows[0].route) == {"uong", "tiem_bap"}


def test_a_later_step_of_a_regimen_names_its_own_route() -> None:
    rows = read("Người lớn: Khởi đầu tiêm tĩnh mạch 100 mg trong 2 phút, sau đó truyền tĩnh mạch 20 mg/giờ.")
    assert set(row(rows, "Người lớn").route) == {"tiem_tinh_mach", "truyen_tinh_mach"}


def test_a_rate_raised_in_a_next_step_names_the_infusion() -> None:
    rows = read("Tiêm tĩnh mạch thêm 1 liều 50 mg trong 1 phút và tăng tốc độ truyền lên thành 10 mg/phút.")
    assert set(rows[0].route) == {"tiem_tinh_mach", "truyen_tinh_mach"}


def test_an_injection_into_a_vein_said_short_is_intravenous() -> None:
    rows = read("Tiêm bắp: 1 liều 40 mg hoặc tiêm mạch: 20 mg 1 liều duy nhất.")
    assert set(rows[0].route) == {"tiem_bap", "tiem_tinh_mach"}


def test_a_route_far_into_a_sentence_with_no_dose_after_it_is_not_its_own() -> None:
    rows = read("Uống:\nNgười lớn: 200 mg/ngày; theo dõi chức năng gan khi dùng lâu, nhất là sau tiêm bắp.")
    assert row(rows, "Người lớn").route == ["uong"]


def test_a_clause_after_the_dose_that_names_the_way_of_giving_names_its_routes() -> None:
    rows = read("Tiêm:\nSuy gan nặng: có thể dùng 20 mg một ngày, cả đường uống hoặc đường tĩnh mạch.")
    # "đường tĩnh mạch" names neither an injection nor an infusion: either
    assert set(row(rows, "Suy gan").route) == {"uong", "tiem_tinh_mach", "truyen_tinh_mach"}


def test_the_vein_named_as_a_way_with_no_injection_or_infusion_word_is_either_and_a_drip_is_an_infusion() -> None:
    # esmolol, heparin
    rows = read("Thuốc được đưa theo đường tĩnh mạch, nồng độ dung dịch không được vượt quá 10 mg/ml.\n"
                "Khi tiêm nhỏ giọt liên tục, phải xét nghiệm thời gian đông máu trước khi bắt đầu liệu pháp.\n"
                "Tiêm tĩnh mạch đầu tiên 1 liều 5 000 đvqt.")
    assert set(row(rows, "Thuốc được").route) == {"tiem_tinh_mach", "truyen_tinh_mach"}
    assert row(rows, "Khi tiêm").route == ["truyen_tinh_mach"]
    assert row(rows, "Tiêm tĩnh mạch").route == ["tiem_tinh_mach"]


def test_a_dose_said_only_as_how_high_it_may_go_is_a_maximum() -> None:
    rows = read("Người lớn: 250 mg/lần, ngày 4 lần.\nLiều có thể lên tới 4 g/ngày đối với nhiễm khuẩn nặng.\n"
                "Có thể dùng đường trực tràng với liều tối đa là 250 mg/lần, cách 6 giờ/lần.")
    assert row(rows, "Liều có thể").kind == "max_dose"
    assert row(rows, "Có thể dùng").kind == "max_dose"


def test_a_dose_raised_to_an_amount_or_a_rate_not_exceeded_is_no_maximum() -> None:
    rows = read("Người lớn: 40 mg, nếu không đỡ có thể tăng liều tới 80 mg.\nTốc độ tiêm không quá 4 mg/phút.")
    assert row(rows, "Người lớn").kind == "dose"
    assert row(rows, "Tốc độ").kind != "max_dose"


def test_a_sentence_opening_on_a_route_is_not_a_route_heading_joined_to_it() -> None:
    rows = read("Tiêm tĩnh mạch đầu tiên 1 liều 5 000 đvqt, sau đó truyền tĩnh mạch liên tục 18 đvqt/kg/giờ.")
    assert rows[0].text.startswith("Tiêm tĩnh mạch đầu tiên")
    assert set(rows[0].route) == {"tiem_tinh_mach", "truyen_tinh_mach"}


def test_a_dose_given_as_another_groups_or_the_usual_one_is_a_dose() -> None:
    # timolol, cefalexin (dialysis), ketorolac (the elderly), esmolol (after surgery)
    assert read("Trẻ em: Liều dùng như người lớn, nhưng không nên dùng cho trẻ đẻ non và sơ sinh.")[0].kind == "dose"
    assert read("Thẩm phân máu: 1 liều thường dùng cho sau thẩm phân.")[0].kind == "adjustment"
    assert read("Liều thông thường ở người cao tuổi: Giống như đối với người < 50 kg hoặc có chức năng thận suy "
                "giảm.")[0].kind == "dose"
    assert read("Sau cuộc phẫu thuật: Áp dụng chế độ liều và cách dùng giống như xử trí loạn nhịp nhanh trên thất "
                "nêu ở trên.")[0].kind == "dose"
    assert read("Dùng thận trọng ở người cao tuổi.")[0].kind == "instruction"


def test_making_the_solution_up_is_an_instruction_and_a_dose_not_to_exceed_is_a_maximum() -> None:
    # ticarcilin, cefalexin, esmolol
    rows = read("Để pha dung dịch ban đầu dùng tiêm bắp, cho thêm 2 ml nước vô khuẩn để tiêm cho mỗi 1 g ticarcilin.\n"
                "Bột cefalexin để pha hỗn dịch uống: Thêm lượng nước thích hợp vào lọ thuốc để được hỗn dịch chứa "
                "125 - 250 mg cefalexin/5 ml.\n"
                "Trẻ em: 100 microgam/kg/phút. Không khuyến cáo sử dụng liều trên 300 microgam/kg/phút.")
    assert row(rows, "Để pha").kind == "instruction"
    assert row(rows, "Bột cefalexin").kind == "instruction"
    assert row(rows, "Không khuyến cáo").kind == "max_dose"
    assert row(rows, "Trẻ em").kind == "dose"


def test_a_route_named_as_the_condition_of_a_remark_heads_no_later_paragraph() -> None:
    # heparin's "Cách dùng": the intermittent-injection remark, then general monitoring lines
    rows = read("Khi tiêm tĩnh mạch gián đoạn: Phải xét nghiệm thời gian đông máu trước mỗi lần tiêm.\n"
                "Định kỳ đếm tiểu cầu, hematocrit và tìm máu trong phân trong suốt thời gian điều trị heparin.")
    assert row(rows, "Khi tiêm").route == ["tiem_tinh_mach"]
    assert row(rows, "Định kỳ").route == []


def test_the_injection_a_dose_follows_is_not_its_route() -> None:
    # ketorolac: the oral doses after "Uống:" follow the first injections
    rows = read("Uống:\nLiều thông thường người lớn16 - 64 tuổi 50 kg, chức năng thận bình thường, tiếp sau liệu "
                "pháp tiêm ban đầu: Khởi đầu 20 mg, tiếp theo là 10 mg cho tới 4 lần mỗi ngày.\n"
                "Liều thông thường ở người cao tuổi: Uống (sau khi đã tiêm): 10 mg, cho tới 4 lần/ngày.")
    assert row(rows, "Liều thông thường người lớn").route == ["uong"]
    assert row(rows, "Liều thông thường ở").route == ["uong"]


def test_an_amount_per_hour_is_the_dose_of_an_infusion_not_of_a_speed() -> None:
    # heparin (neonates), hydralazin; furosemid's speed
    rows = read("Duy trì ống thông động mạch cuống rốn ở trẻ sơ sinh: Truyền tĩnh mạch 0,5 đvqt/giờ.\n"
                "Liều duy trì thông thường từ 50 - 150 microgam/phút.\n"
                "Khi tiêm tĩnh mạch trực tiếp hoặc truyền tĩnh mạch, tốc độ không quá 4 mg/phút ở người lớn.")
    assert row(rows, "Duy trì ống").kind == "dose"
    assert row(rows, "Liều duy trì").kind == "dose"
    assert row(rows, "Khi tiêm").kind == "instruction"


def test_a_dose_said_as_a_change_of_the_one_above_is_a_dose_and_first_a_dose_then_is_a_loading_dose() -> None:
    # erythropoietin, esmolol, heparin
    rows = read("Khi đã đạt được nồng độ hemoglobin mong muốn, cần giảm liều khoảng 25 - 50% để điều trị duy trì.\n"
                "Để duy trì, lúc đầu dùng ½ liều và sau đó cứ 1 hoặc 2 tuần điều chỉnh 1 lần tùy theo đáp ứng.\n"
                "Tiêm tĩnh mạch đầu tiên 1 liều 5 000 đvqt, sau đó truyền tĩnh mạch liên tục 18 đvqt/kg/giờ.\n"
                "Không cần giảm liều ở người cao tuổi.")
    assert row(rows, "Khi đã").kind == "dose"
    assert row(rows, "Để duy trì").kind == "dose"
    assert row(rows, "Tiêm tĩnh mạch").kind == "loading_dose"
    assert row(rows, "Không cần").kind == "instruction"


def test_a_salts_equivalence_is_no_dose_and_a_dose_like_the_oral_one_is_a_dose() -> None:
    # escitalopram, cloxacilin, esomeprazol
    rows = read("Thuốc được dùng dưới dạng escitalopram oxalat, liều lượng được tính theo dạng base: 12,8 mg "
                "escitalopram oxalat tương đương 10 mg escitalopram.\n"
                "1,09 g cloxacilin natri tương đương với 1,00 g cloxacilin.\n"
                "Esomeprazol tiêm (dạng muối natri): Liều tiêm tương tự liều uống, dùng đường tĩnh mạch.")
    assert row(rows, "Thuốc được").kind == "instruction"
    assert row(rows, "1,09 g").kind == "instruction"
    assert row(rows, "Esomeprazol tiêm").kind == "dose"


def test_a_ceiling_said_as_what_not_to_use_and_a_vein_as_the_site_of_a_disease() -> None:
    # ketamin, kem oxyd
    rows = read("Tiêm tĩnh mạch liều duy nhất 1 - 2 mg/kg trong 60 giây. Không nên dùng quá 4,5 mg/kg.\n"
                "Tổn thương do suy tĩnh mạch mạn tính, băng sau phẫu thuật giãn tĩnh mạch: Bôi phủ một lớp thuốc.")
    assert row(rows, "Không nên").kind == "max_dose"
    disease = row(rows, "Tổn thương")
    assert disease.route == ["boi"] and disease.indication.startswith("Tổn thương do suy tĩnh mạch")


def test_the_volume_added_to_make_a_solution_is_no_dose() -> None:
    # ceftriaxon (sample-b)
    rows = read("Tiêm bắp:\nThể tích thêm vào để có dung dịch nồng độ 250 mg/ml: Lọ 250 mg (0,9 ml); lọ 500 mg (1,7 ml).")
    assert rows[0].kind == "instruction"


def test_a_percutaneous_procedure_is_no_route() -> None:
    # clopidogrel (sample)
    rows = read("Đau thắt ngực không ổn định: Nếu bệnh nhân được lựa chọn can thiệp mạch vành qua da, liều nạp ban đầu "
                "300 mg trước khi can thiệp ít nhất 2 giờ, sau đó 75 mg/ngày.")
    assert rows[0].route == []


def test_a_route_sentence_opening_a_group_block_is_the_route_of_that_block_until_the_next_group() -> None:
    # cefalexin (sample-e, tuning): "Dùng đường uống." under "Trẻ em trên 15 tuổi và người lớn:", then labelled
    # indications in paragraphs of their own; a group label glued to a paragraph names its own route; the renal
    # heading ends both
    rows = read("Trẻ em trên 15 tuổi và người lớn:\n"
                "Dùng đường uống. Liều thường dùng cho người lớn, 250 - 500 mg cách 6 giờ/1 lần.\n"
                "Viêm họng và viêm a-mi-đan: Liều 500 mg cách 12 giờ/lần, dùng thuốc ít nhất 10 ngày.\n"
                "Nhiễm khuẩn đường tiết niệu: thường dùng 500 mg, cách 12 giờ/lần. Trẻ em: Trên 1 tuổi, dùng đường uống.\n"
                "Liều thường dùng: 25 - 100 mg/kg ngày, chia thành 3 - 4 lần.\n"
                "Điều chỉnh liều dùng cho người suy thận: Phải dùng thận trọng cho người suy thận nặng.\n"
                "Thẩm phân máu: 1 liều thường dùng cho sau thẩm phân.")
    assert row(rows, "Viêm họng").route == ["uong"]
    assert row(rows, "Viêm họng").population == "nguoi_lon"
    assert row(rows, "Liều thường dùng: 25").route == ["uong"]
    assert row(rows, "Liều thường dùng: 25").population == "tre_em"
    assert row(rows, "Thẩm phân máu").route == []


def test_a_route_sentence_inside_a_paragraph_holds_for_that_paragraph_only() -> None:
    rows = read("Người lớn:\nPhác đồ 1: Tiêm tĩnh mạch chậm. 1 g/lần, ngày 2 lần.\nPhác đồ 2: 500 mg/lần, ngày 4 lần.")
    assert row(rows, "1 g/lần").route == ["tiem_tinh_mach"]
    assert row(rows, "Phác đồ 2").route == []


def _book(identity: str, dosage: str) -> list:
    from duocthu_desktop.artifacts import Chunk
    from duocthu_desktop.dosage.parser import DOSAGE_KEY, IDENTITY_KEY, read_book

    def make(key: str, text: str) -> Chunk:
        return Chunk(chunk_id=f"thuoc_a__{key}__0", drug_id="thuoc_a", section_key=key, part_index=0, text=text,
                     printed_pages=[100], physical_pages=[10], page_spans=[[10, 0, len(text)]])

    return read_book([make(IDENTITY_KEY, identity), make(DOSAGE_KEY, dosage)])


# timolol (sample-e, tuning): "TIMOLOL (Thuốc nhỏ mắt)", INN line "Timolol (eye drops)."; its steps of use and its
# doses name no route, or "tra mắt"
_EYE_DOSAGE = ("Cách dùng:\n- 2. Rửa tay sạch trước mỗi lần dùng.\nLiều lượng:\nTăng nhãn áp hoặc glôcôm góc mở\n"
               "Liều thường dùng lúc đầu là 1 giọt dung dịch 0,25% vào mắt bị bệnh, 2 lần/ngày.\n"
               "Nếu cần, có thể phối hợp thuốc tra mắt này với thuốc co đồng tử.\n"
               "Uống 250 mg, ngày 2 lần, nếu cần hạ nhãn áp nhanh.")


def test_a_monograph_of_one_form_gives_its_route_to_every_statement_that_names_none() -> None:
    rows = _book("Tên chung quốc tế: Thuoc A (eye drops).\nMã ATC: S01ED01.", _EYE_DOSAGE)
    assert row(rows, "Rửa tay").route == ["nho_mat"]
    assert row(rows, "Liều thường dùng").route == ["nho_mat"]
    assert row(rows, "Nếu cần").route == ["nho_mat"]  # "tra mắt" of a monograph of eye drops: drops
    assert row(rows, "Uống 250").route == ["uong"]  # a route the statement names still wins


def test_a_synonym_in_the_inn_brackets_names_no_route() -> None:
    rows = _book("Tên chung quốc tế: Thuoc A (Thuoc B).", _EYE_DOSAGE)
    assert row(rows, "Rửa tay").route == []
    assert row(rows, "Nếu cần").route == ["tra_mat"]


def test_a_syrup_is_taken_by_mouth() -> None:
    # codein phosphat (sample-e, tuning)
    rows = read("Ho khan: Thường dùng dạng sirô.")
    assert rows[0].route == ["uong"]


def test_a_level_in_the_blood_per_100_ml_is_no_dose() -> None:
    # erythropoietin (sample-e, tuning), acid acetylsalicylic (sample book): targets of treatment, not amounts given
    rows = read("Nồng độ hemoglobin của người bệnh không được vượt quá 12 g/100 ml và không được tăng quá 1 g/100 ml "
                "trong 2 tuần.\nCần điều chỉnh liều để đạt và duy trì nồng độ salicylat từ 20 - 30 mg/100 ml huyết "
                "tương.\nUống 500 mg/ngày.")
    assert [r.kind for r in rows] == ["instruction", "instruction", "dose"]


def test_a_sentence_about_its_group_names_its_route_anywhere_when_nothing_above_does() -> None:
    # ciprofloxacin (sample book, old gold: uong, truyen_tinh_mach); erythropoietin (sample-e, tuning)
    rows = read("Trẻ em: Không khuyến cáo dùng cho trẻ em và thiếu niên (dưới 18 tuổi), nhưng khi thật cần thiết, có "
                "thể cho uống hoặc tiêm truyền tĩnh mạch trong 60 phút.\n"
                "Ở người lớn đang dùng hóa trị liệu để điều trị bệnh ác tính không thuộc dòng tủy, có thể dùng thuốc "
                "tiêm dưới da để chữa thiếu máu triệu chứng.")
    assert set(row(rows, "Trẻ em").route) == {"uong", "truyen_tinh_mach"}
    assert row(rows, "Ở người lớn").route == ["tiem_duoi_da"]


def test_a_sentence_of_how_the_drug_is_given_opening_a_paragraph_gives_its_route_to_the_later_doses_of_its_block():
    # erythropoietin (sample-e, tuning): "Epoetin alpha: Có thể tiêm dưới da hoặc tiêm tĩnh mạch ...", "Epoetin
    # zeta: Có thể tiêm tĩnh mạch." then doses naming no route; a remark with no amount takes none; an indication
    # heading ends the block, and a later such sentence after doses starts afresh
    rows = read("Thiếu máu ở người bệnh suy thận mạn tính:\n"
                "Epoetin alpha: Có thể tiêm dưới da hoặc tiêm tĩnh mạch trong tối thiểu 1 phút.\n"
                "Epoetin zeta: Có thể tiêm tĩnh mạch.\n"
                "Liều người lớn đang thẩm tách máu: Liều khởi đầu mỗi lần là 50 đơn vị/kg, tuần 3 lần.\n"
                "Đáp ứng không thỏa đáng: Nếu người bệnh không đạt được mức đích thì không tiếp tục tăng liều.\n"
                "Tổng liều duy trì hàng tuần là 75 - 300 đơn vị/kg, chia thành 3 liều nhỏ.\n"
                "Nhóm này dùng ngày 1 lần thuận tiện hơn.\n"
                "Liều trẻ em: Thuốc có thể dùng tiêm tĩnh mạch cho trẻ em đang thẩm tách máu.\n"
                "Người bệnh < 10 kg: 225 - 450 đơn vị/kg.\n"
                "Thiếu máu do hóa trị liệu ung thư:\n"
                "Liều khởi đầu là 150 đơn vị/kg, 3 lần/tuần.")
    assert set(row(rows, "Liều người lớn").route) == {"tiem_duoi_da", "tiem_tinh_mach"}
    assert set(row(rows, "Tổng liều duy trì").route) == {"tiem_duoi_da", "tiem_tinh_mach"}
    assert row(rows, "Đáp ứng không").route == []
    assert row(rows, "Nhóm này").route == []
    assert row(rows, "Người bệnh < 10").route == ["tiem_tinh_mach"]
    assert row(rows, "Liều khởi đầu là 150").route == []


def test_a_prohibition_of_a_way_of_giving_opening_a_paragraph_gives_no_route_to_the_doses_after_it():
    rows = read("Không được tiêm bắp thuốc này.\nLiều khởi đầu là 150 đơn vị/kg, 3 lần/tuần.")
    assert row(rows, "Liều khởi đầu").route == []


def test_a_clause_after_a_semicolon_that_opens_on_its_own_route_and_dose_is_a_statement_of_its_own():
    # erythropoietin, cloxacilin (sample-e, tuning): "Liều khởi đầu tiêm dưới da ...; liều khởi đầu tiêm tĩnh mạch
    # ...", "... tiêm bắp 250 - 500 mg cứ 6 giờ một lần; tiêm tĩnh mạch chậm 250 - 500 mg ..."; a later step stays
    rows = read("Liều khởi đầu tiêm dưới da 50 đơn vị/kg, 2 lần/tuần; liều khởi đầu tiêm tĩnh mạch 50 đơn vị/kg, "
                "3 lần/tuần.\nTiêm tĩnh mạch 5 000 đvqt; sau đó truyền tĩnh mạch 18 đvqt/kg/giờ.")
    assert row(rows, "Liều khởi đầu tiêm dưới").route == ["tiem_duoi_da"]
    assert row(rows, "liều khởi đầu tiêm tĩnh").route == ["tiem_tinh_mach"]
    assert row(rows, "Tiêm tĩnh mạch 5 000").text.endswith("18 đvqt/kg/giờ.")


def test_the_usual_way_of_giving_said_under_an_indication_label_holds_for_the_labelled_doses_of_its_block():
    # codein phosphat (sample-e, tuning): "Ho khan: Thường dùng dạng sirô." then "Người lớn ...: 10 - 20 mg/1 lần"
    rows = read("Ho khan: Thường dùng dạng sirô.\n"
                "Người lớn và trẻ em từ 12 tuổi trở lên: 10 - 20 mg/1 lần, 3 - 4 lần trong ngày.\n"
                "Ỉa chảy cấp: Điều trị triệu chứng ngắn ngày, người lớn, 30 mg 3 - 4 lần mỗi ngày.")
    assert row(rows, "Người lớn và trẻ em").route == ["uong"]
    assert row(rows, "Ỉa chảy").route == []


def test_a_dose_counted_in_vials_ampoules_or_sachets_is_a_dose_and_a_tube_is_not():
    # huyết thanh kháng nọc rắn (sample-e, tuning): "... đa giá là 4 - 6 lọ; ..."
    rows = read("Các liều bắt đầu được khuyên dùng cho người lớn là 4 - 6 lọ.\nUống 2 gói/ngày.\n"
                "Cho thuốc qua 1 ống thông dạ dày.")
    assert row(rows, "Các liều bắt đầu").kind == "dose"
    assert row(rows, "Uống 2 gói").kind == "dose"
    assert row(rows, "Cho thuốc qua").kind == "instruction"


def test_a_statement_that_only_names_a_loading_dose_further_on_is_no_loading_dose():
    # esmolol (sample-e, tuning): a remark on the regimen, no amount; gentamicin (sample book): a band's row that
    # opens on "Liều nạp" is one
    rows = read("Mỗi lần điều chỉnh liều đều gồm có một liều nạp (tấn công) và một liều duy trì.\n"
                "Clcr < 20 ml/phút: Liều nạp (tấn công), sau đó theo dõi nồng độ thuốc trong huyết thanh.")
    assert row(rows, "Mỗi lần").kind == "instruction"
    assert row(rows, "Clcr < 20").kind == "loading_dose"


def test_a_remark_that_names_the_way_of_giving_far_into_it_names_its_route_but_not_one_it_rules_out():
    # erythropoietin (sample-e, tuning): the route in brackets is the one these patients cannot be given
    rows = read("Đối với người bệnh chuẩn bị thẩm tách hoặc thẩm tách qua màng bụng (ở những người này không thể "
                "đưa thuốc dễ dàng bằng đường tĩnh mạch) phải đưa thuốc và bằng đường tiêm dưới da.\n"
                "Ở người bệnh suy tim nặng đã điều trị lâu ngày, không thể đưa thuốc bằng đường uống.")
    assert row(rows, "Đối với người bệnh").route == ["tiem_duoi_da"]
    assert row(rows, "Ở người bệnh suy tim").route == []


def test_the_way_a_blocks_dose_named_holds_for_its_later_doses_that_name_none_but_not_for_another_groups():
    # carbamazepin (sample-e, tuning): "Liều cho trẻ em từ 6 đến 12 tuổi:" then "Bắt đầu uống ...", then a paragraph
    # of its ceiling; a group label opening a paragraph ("Trẻ em: ...") does not take the adults' way
    rows = read("Liều cho trẻ em từ 6 đến 12 tuổi:\n"
                "Bắt đầu uống 100 mg, 2 lần/ngày và cứ sau một tuần lại tăng thêm 100 mg.\n"
                "Liều dùng không được quá 1 000 mg/ngày.\n"
                "Viêm màng não:\nNgười lớn: 2 g tiêm truyền tĩnh mạch, cách 12 giờ/lần.\n"
                "Trẻ em, từ sơ sinh đến 12 tuổi: 100 mg/kg/ngày, cho 1 lần/ngày.")
    assert row(rows, "Liều dùng không").route == ["uong"]
    assert row(rows, "Trẻ em, từ sơ sinh").route == []


def test_a_clause_after_a_semicolon_that_names_its_own_case_and_dose_is_a_statement_of_its_own():
    # huyết thanh kháng nọc rắn (sample-e, tuning): each product's dose stands with that product's words only
    rows = read("Các liều bắt đầu phụ thuộc vào từng loại huyết thanh: với huyết thanh đa giá là 4 - 6 lọ; với "
                "huyết thanh đơn giá là 3 - 5 lọ.\nUống 500 mg/lần; với liều này, ngày 2 lần.")
    assert row(rows, "Các liều").text.endswith("4 - 6 lọ")
    assert row(rows, "với huyết thanh đơn giá").kind == "dose"
    assert row(rows, "Uống 500").text.endswith("ngày 2 lần.")


def test_a_dose_led_by_another_route_after_hoac_names_that_route_too() -> None:
    rows = read("Nhiễm khuẩn da: Uống 200 mg/lần, ngày 3 lần hoặc tiêm bắp 100 mg cứ 8 giờ một lần.")
    assert set(rows[0].route) == {"uong", "tiem_bap"}
