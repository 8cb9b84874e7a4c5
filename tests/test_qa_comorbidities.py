"""The patient's own conditions against the items of the book's warning sentences (qa.comorbidities), then the
warnings they raise through the assistant on the sample book. Sentences are the book's own (source/*.md)."""

from __future__ import annotations

import uuid

import pytest

from duocthu_desktop.qa.answers.comorbidities import Said, bears_on, said_beyond


def said(question: str, drugs: tuple[str, ...] = (), indications: str = "") -> Said:
    return Said.of(question, list(drugs)).without(indications)


@pytest.mark.parametrize(
    ("question", "sentence"),
    [
        ("Bệnh nhân nhược cơ bị mất ngủ, dùng diazepam?", "Nhược cơ, suy hô hấp nặng."),
        ("Bệnh nhân Parkinson bị nhiễm khuẩn huyết", "Tránh dùng cho người bị bệnh nhược cơ, hội chứng Parkinson "
                                                    "hoặc có triệu chứng yếu cơ."),
        ("Bệnh nhân hẹp động mạch thận 2 bên bị tăng huyết áp",
         "Hẹp động mạch thận 2 bên hoặc hẹp động mạch thận ở thận đơn độc."),
        ("đang bị loét dạ dày chảy máu", "Biểu hiện cháy máu bệnh lý hoạt động (ví dụ loét dạ dày - tá tràng)."),
        ("sắp chụp CT có tiêm thuốc cản quang có iod", "Việc tiêm vào mạch máu các thuốc cản quang có iod, có thể "
                                                      "gây suy thận."),
        ("benh nhan vo nieu co tiem duoc khong", "Vô niệu hoặc suy thận do các thuốc gây độc đối với thận."),
    ],
)
def test_a_condition_the_patient_has_bears_on_the_item_that_names_it(question: str, sentence: str) -> None:
    assert bears_on(sentence, said(question, ("diazepam",)))


@pytest.mark.parametrize(
    ("question", "sentence"),
    [
        # the other way round: high blood pressure is not "Huyết áp thấp"
        ("Bệnh nhân tăng huyết áp dùng isosorbid dinitrat", "Huyết áp thấp, trụy tim mạch."),
        # a different artery: the words go on differently
        ("Bệnh nhân hẹp động mạch thận 2 bên", "Hẹp động mạch chủ hoặc hẹp van 2 lá."),
        # negated by the person
        ("Viêm khớp, không có rối loạn thần kinh", "Người có rối loạn thần kinh trung ương."),
        # general words only ("mức độ nhẹ", "người lớn") name no condition
        ("Ỉa chảy ở khách du lịch mức độ nhẹ, người lớn", "Nên tránh dùng trong nhiễm MRSA do mức độ kháng cao."),
        # one short word in common is not a condition
        ("Bệnh nhân đau đầu", "Đau thắt ngực không ổn định."),
        # what a dosing question asks for ("tối đa một ngày", "chuyển sang uống") is no condition of the patient
        ("Bệnh nhân 45 kg sau khi tiêm muốn chuyển sang uống, liều bao nhiêu, tối đa một ngày?",
         "Có thể tiêm bắp liều duy nhất 1 mg/kg cân nặng, tối đa 30 mg hoặc tiêm tĩnh mạch 0,5 mg/kg."),
    ],
)
def test_words_in_common_that_are_not_the_patients_condition(question: str, sentence: str) -> None:
    assert not bears_on(sentence, said(question))


def test_the_condition_the_drug_is_given_for_is_not_a_warning() -> None:
    """'đái tháo đường' is why metformin is asked about: its Chỉ định names it, so it is not a comorbidity."""
    question = "Liều metformin cho bệnh nhân đái tháo đường typ 2?"
    sentence = "Đái tháo đường typ 1, đái tháo đường có nhiễm toan ceton, tiền hôn mê đái tháo đường."
    assert bears_on(sentence, said(question, ("metformin",)))
    assert not bears_on(sentence, said(question, ("metformin",), "Đái tháo đường typ 2, không phụ thuộc insulin."))


def test_a_contraindication_the_question_names_more_of_than_any_indication_is_the_patients() -> None:
    """'da đang nhiễm khuẩn' is three words of 'Tổn thương da bị nhiễm khuẩn.' in its order; the Chỉ định prints
    'nhiễm khuẩn da' and 'các bệnh da', never that run in one item: the contraindication is the patient's. The
    diabetic asking about the drug for diabetes says no more of the contraindication than the Chỉ định prints."""
    indications = "Điều trị da khô, các bệnh da và nhiễm khuẩn da như: Vết bỏng nông, không rộng."
    question = "Vết loét da đang nhiễm khuẩn chảy mủ có bôi thuốc A được không?"
    assert not bears_on("Tổn thương da bị nhiễm khuẩn.", said(question, (), indications))
    assert said_beyond("Tổn thương da bị nhiễm khuẩn.", said(question), indications)
    assert not said_beyond("Tổn thương da bị nhiễm khuẩn.", said("Vết bỏng nông có bôi thuốc A được không?"),
                           indications)
    # the leave the book gives inside a contraindication ("tuy nhiên ... vẫn dùng") is not what it forbids
    assert not said_beyond("Phẫu thuật ở mắt và tai (tuy nhiên liều thấp để dự phòng huyết khối thì vẫn dùng).",
                           said("Thuốc A dự phòng huyết khối sau phẫu thuật liều bao nhiêu?"),
                           "Phòng và điều trị huyết khối nghẽn động tĩnh mạch.")
    assert not said_beyond("Đái tháo đường typ 1, đái tháo đường có nhiễm toan ceton.",
                           said("Liều thuốc A cho bệnh nhân đái tháo đường typ 2?"),
                           "Đái tháo đường typ 2, không phụ thuộc insulin.")


def test_a_word_spelt_without_diacritics_by_the_book_is_not_a_general_word_typed_with_them() -> None:
    """'da' is the skin and 'tai' the ear, though 'đã' and 'tại' fold to them: typed with diacritics they count."""
    assert bears_on("Viêm tai giữa cấp.", said("Bệnh nhân đang viêm tai giữa"))
    assert bears_on("Tổn thương da bị nhiễm khuẩn.", said("da bị nhiễm khuẩn có mủ"))


def test_a_named_form_of_a_condition_is_the_general_condition_the_book_prints() -> None:
    """'huyết khối tĩnh mạch sâu' is a 'huyết khối tắc mạch'; said negated it is not; the general name never
    stands for the specific one."""
    sentence = "Viêm tắc tĩnh mạch thể hoạt động hoặc tiền sử có bệnh huyết khối tắc mạch."
    assert bears_on(sentence, said("Phụ nữ có tiền sử huyết khối tĩnh mạch sâu, bốc hỏa"))
    assert not bears_on(sentence, said("Phụ nữ không có tiền sử huyết khối tĩnh mạch sâu, bốc hỏa"))
    assert not bears_on("Huyết khối tĩnh mạch sâu.", said("Người bệnh có huyết khối tắc mạch"))


# ---- through the assistant ---------------------------------------------------------------------------------------


@pytest.mark.integration
@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("Bệnh nhân nhược cơ bị mất ngủ kèm lo âu, dùng diazepam liều bao nhiêu?", "Nhược cơ"),
        ("Bệnh nhân Parkinson bị nhiễm khuẩn huyết, tiêm bắp gentamicin liều bao nhiêu?", "Parkinson"),
        ("Bệnh nhân vô niệu có tiêm furosemid được không?", "Vô niệu"),
    ],
)
def test_a_contraindication_for_the_patients_condition_is_the_answer(assistant, question: str, first: str):
    payload = assistant.ask(question, f"t-{uuid.uuid4().hex}")
    assert payload.decision == "answerable", payload.message
    assert payload.blocks[0].kind == "warning" and "Chống chỉ định" in payload.blocks[0].title
    assert first in payload.blocks[0].claims[0].text
    assert not any(b.kind == "dosage" for b in payload.blocks)  # no usual dose beside a contraindication


@pytest.mark.integration
def test_a_contraindicating_renal_threshold_withholds_the_usual_dose(assistant):
    payload = assistant.ask("Người lớn suy thận, Clcr 40 ml/phút, uống metformin liều bao nhiêu?",
                            f"t-{uuid.uuid4().hex}")
    shown = " ".join(c.text for b in payload.blocks for c in b.claims)
    assert payload.blocks[0].kind == "warning" and "2 500 mg/ngày" not in shown
    assert "chống chỉ định" in payload.message


def test_what_the_person_says_is_normal_is_not_a_condition():
    """"chức năng thận bình thường" is not "Giảm chức năng thận vừa và nặng" (issue 17: it hid a dose)."""
    from duocthu_desktop.qa.answers.comorbidities import Said, bears_on

    normal = Said.of("Người lớn 40 tuổi, chức năng thận bình thường, đau sau mổ", [])
    assert not bears_on("Giảm chức năng thận vừa và nặng.", normal)
    impaired = Said.of("Người lớn suy giảm chức năng thận, đau sau mổ", [])
    assert bears_on("Giảm chức năng thận vừa và nặng.", impaired)


def test_a_condition_said_with_one_word_of_the_books_left_out_is_the_same():
    """"nhịp chậm xoang" is the book's "Nhịp tim chậm xoang."; two words alone never match that way."""
    from duocthu_desktop.qa.answers.comorbidities import Said, bears_on

    said = Said.of("Bệnh nhân nhịp chậm xoang có cơn nhịp nhanh, tiêm liều nạp bao nhiêu?", [])
    assert bears_on("Nhịp tim chậm xoang.", said)
    assert not bears_on("Blốc nhĩ thất độ 2 và 3.", Said.of("bệnh nhân blốc thất", []))


# the book's sentences (source/abacavir.md, acid-acetylsalicylic.md, metformin.md; source-e/ketamin.md)
_ABACAVIR = "Suy gan vừa và nặng."
_ASPIRIN = ("Những người không được dùng aspirin còn gồm người có bệnh ưa chảy máu, giảm tiểu cầu, loét dạ dày hoặc "
            "tá tràng đang hoạt động, suy tim vừa và nặng, suy gan, suy thận.")
_KETAMIN = ("Không dùng thuốc ở những người bị tăng huyết áp, bệnh tim nặng vì sẽ gây hậu quả nghiêm trọng, người "
            "chấn thương sọ não kể cả những người có tiền sử tai biến mạch máu não.")
_METFORMIN = "Đái tháo đường typ 1, đái tháo đường có nhiễm toan ceton, tiền hôn mê đái tháo đường."
_METFORMIN_FOR = "Điều trị bệnh đái tháo đường typ 2: Dùng metformin, đơn trị liệu kết hợp với chế độ ăn và luyện tập."


@pytest.mark.parametrize(
    ("question", "sentence"),
    [
        ("Bệnh nhân loét bao tử, dùng aspirin liều bao nhiêu?", _ASPIRIN),  # "bao tử" is "dạ dày"
        ("Bệnh nhân suy chức năng gan, dùng abacavir liều bao nhiêu?", _ABACAVIR),
        ("benh nhan suy chuc nang gan dung abacavir lieu bao nhieu", _ABACAVIR),
        ("Người bệnh tăng nhãn áp dùng thuốc A được không?", "Tăng áp lực nội sọ, glôcôm."),
        ("Bệnh nhân dễ chảy máu, dùng thuốc A liều bao nhiêu?", "Tình trạng dễ xuất huyết (như chảy máu ở đường tiêu "
                                                                "hóa)."),
    ],
)
def test_a_condition_said_by_another_name_bears_on_the_item_the_book_prints(question: str, sentence: str) -> None:
    assert bears_on(sentence, said(question, ("aspirin", "abacavir")))


def test_a_condition_said_by_another_name_but_negated_is_not_the_patients() -> None:
    assert not bears_on(_ABACAVIR, said("Bệnh nhân không suy chức năng gan, dùng abacavir?", ("abacavir",)))


@pytest.mark.parametrize("question", ["Bệnh nhân có bệnh tim, gây mê bằng ketamin liều bao nhiêu?",
                                      "Bệnh nhân suy tim, gây mê bằng ketamin liều bao nhiêu?",
                                      "Bệnh nhân hen phế quản dùng aspirin được không?"])
def test_a_short_item_word_is_the_head_of_the_condition_said(question: str) -> None:
    """'bệnh tim nặng' has one content word, 'tim': said as the head of the patient's condition ('có bệnh tim'),
    or by a named kind of heart disease ('suy tim'), it is the item; 'bệnh hen' likewise for 'hen phế quản', the
    drug's own name in the item being no word of the condition."""
    sentence = _KETAMIN if "ketamin" in question else ("Người có tiền sử bệnh hen không được dùng aspirin, do nguy "
                                                      "cơ gây hen thông qua tương tác với cân bằng prostaglandin.")
    assert bears_on(sentence, said(question, ("ketamin", "aspirin")))


def test_a_short_item_word_inside_another_condition_is_not_that_item() -> None:
    assert not bears_on(_KETAMIN, said("Bệnh nhân nhịp tim nhanh, gây mê bằng ketamin liều bao nhiêu?", ("ketamin",)))


def test_a_numbered_kind_of_the_indication_said_with_another_number_is_the_patients() -> None:
    """The Chỉ định prints 'đái tháo đường typ 2': a patient with 'đái tháo đường typ 1' has the contraindication;
    one with typ 2 has the indication."""
    assert bears_on(_METFORMIN, said("Bệnh nhân đái tháo đường typ 1, dùng metformin liều bao nhiêu?", ("metformin",),
                                     _METFORMIN_FOR))
    assert bears_on(_METFORMIN, said("Bệnh nhân tiểu đường typ 1, dùng metformin liều bao nhiêu?", ("metformin",),
                                     _METFORMIN_FOR))
    assert not bears_on(_METFORMIN, said("Bệnh nhân đái tháo đường typ 2, dùng metformin liều bao nhiêu?",
                                         ("metformin",), _METFORMIN_FOR))


# sample-b's digoxin, Chống chỉ định (the book's sentence as the index holds it)
_DIGOXIN = ("Blốc nhĩ thất độ 3, blốc nhĩ - thất độ 2; loạn nhịp trên thất do hội chứng Wolff - Parkinson - White "
            "đặc biệt khi có kèm rung nhĩ vì có nguy cơ gây rung thất hoặc nhịp nhanh thất.")


def test_a_syndrome_said_by_its_abbreviation_or_hyphenated_bears_on_the_item() -> None:
    """'WPW' is the 'Wolff - Parkinson - White' syndrome the book prints; typed with unspaced hyphens its words are
    still said together; 'loét dạ dày - tá tràng' printed is read item by item."""
    assert bears_on(_DIGOXIN, said("Bệnh nhân có hội chứng WPW trên điện tim, cho digoxin liều bao nhiêu?", ("digoxin",)))
    assert bears_on(_DIGOXIN, said("Bệnh nhân hội chứng Wolff-Parkinson-White dùng digoxin?", ("digoxin",)))
    assert not bears_on(_DIGOXIN, said("Bệnh nhân không có hội chứng WPW, dùng digoxin?", ("digoxin",)))
    assert bears_on("Biểu hiện cháy máu bệnh lý hoạt động (ví dụ loét dạ dày - tá tràng, chảy máu nội sọ).",
                    said("Bệnh nhân loét tá tràng dùng thuốc A?"))


def test_asthma_said_the_lay_way_bears_on_bronchial_asthma() -> None:
    """source-e/timolol.md prints "Hen phế quản hoặc có tiền sử hen phế quản."; "suyễn" is what people say."""
    sentence = "Hen phế quản hoặc có tiền sử hen phế quản."
    assert bears_on(sentence, said("Ông 68 tuổi có tiền sử suyễn, nhỏ mắt timolol mấy giọt một ngày?", ("timolol",)))
    assert not bears_on(sentence, said("Ông 68 tuổi không bị suyễn, nhỏ mắt timolol mấy giọt?", ("timolol",)))


# sample book's gentamicin, Chống chỉ định (source/gentamicin.md)
_GENTAMICIN = "Tránh dùng cho người bị bệnh nhược cơ, hội chứng Parkinson hoặc có triệu chứng yếu cơ."


@pytest.mark.parametrize("question", [
    "Bệnh nhân hội chứng Wolff-Parkinson-White nhiễm khuẩn nặng, liều gentamicin tiêm bắp?",
    "Bệnh nhân WPW, liều gentamicin tiêm bắp người lớn?",
    "benh nhan hoi chung wolff parkinson white, lieu gentamicin?",
])
def test_a_one_word_item_inside_a_longer_name_the_patient_has_is_not_that_item(question: str) -> None:
    """'Parkinson' is a word of 'Wolff-Parkinson-White': the book's one-word item is not the patient's syndrome."""
    assert not bears_on(_GENTAMICIN, said(question, ("gentamicin",)))
    assert bears_on(_GENTAMICIN, said("Bệnh nhân Parkinson, liều gentamicin tiêm bắp?", ("gentamicin",)))
    assert bears_on(_GENTAMICIN, said("benh nhan bi parkinson lieu gentamicin", ("gentamicin",)))


def test_a_foreign_disease_name_said_alone_names_the_item_it_opens() -> None:
    """"bị lupus," for "Lupus ban đỏ hệ thống (SLE)": the item's head, a foreign name, said alone in its clause; not
    when the patient's words go on (another condition of that name), nor for a Vietnamese head word."""
    assert bears_on("Lupus ban đỏ hệ thống (SLE), nhịp tim nhanh.", said("Bệnh nhân nữ bị lupus, huyết áp cao"))
    assert not bears_on("Glôcôm góc đóng.", said("bệnh nhân glôcôm góc mở cần nhỏ mắt"))
    assert not bears_on("Suy tim sung huyết.", said("bệnh nhân bị suy, mệt"))
    # the salt of the drug named is no disease ("Timolol maleat" then a route: "maleat" stands alone)
    assert not bears_on("Chống chỉ định dùng timolol maleat tra mắt trong trường hợp:",
                        said("liều Timolol maleat nhỏ mắt glôcôm góc mở", ("Timolol",)))


def test_a_quantifier_of_the_item_is_no_word_of_the_condition() -> None:
    assert bears_on("Người bệnh có tiền sử dị ứng với bất kỳ loại penicilin nào.",
                    said("Bệnh nhân có tiền sử dị ứng penicilin, viêm họng", ("amoxicilin",)))


def test_a_dash_between_words_joins_one_condition_it_does_not_make_an_item_of_its_last_word() -> None:
    # "blốc nhĩ - thất" is one condition: its "thất" is not "thất bại"
    items = "Loạn chuyển hóa porphyrin, blốc nhĩ - thất, suy tủy."
    assert not bears_on(items, said("bn đã thất bại với thuốc khác, liều?"))
    assert bears_on(items, said("bn bị blốc nhĩ-thất độ 2"))
