"""Issue 7, second round: the dose shown is the one the book prints for this patient's own group, organ, regimen
and question, read from the book's structure. Each expectation is the book's text (source/*.md); each case was
answered wrongly before this round (a wrong band shown, a needless clarify, or the patient's own dose hidden)."""

from __future__ import annotations

import uuid

import pytest

pytestmark = pytest.mark.integration


def _ask(assistant, question: str):
    payload = assistant.ask(question, f"t-{uuid.uuid4().hex}")
    shown = "\n".join(c.text for b in payload.blocks for c in b.claims)
    return payload, shown


@pytest.mark.parametrize(
    ("question", "shown", "hidden"),
    [
        # a missed dose is an instruction of the dosage section, not a dose band (warfarin)
        ("Quên uống 1 liều warfarin thì phải làm sao?", ["liều quên phải uống ngay trong cùng ngày"], ["5 mg"]),
        # a regimen the question names ("Phác đồ tiêm liều cách xa nhau:"), for a 34-week neonate (gentamicin)
        ("Trẻ sơ sinh 34 tuần thai nhiễm khuẩn huyết, gentamicin theo phác đồ tiêm liều cách xa nhau thì liều "
         "bao nhiêu?", ["4 - 5 mg/kg, cách 24 giờ một lần"], ["cách 18 giờ một lần", "cách 36 giờ một lần"]),
        # "Trẻ nhỏ:" / "Trẻ lớn:": a group the book names by words, as typed (captopril)
        ("Captopril cho trẻ lớn liều mỗi lần bao nhiêu?", ["0,3 - 0,5 mg/kg/lần"], ["0,15 - 0,3 mg/kg/lần"]),
        # the elderly get the book's own words for them (captopril, clopidogrel)
        ("Liều captopril cho người cao tuổi?", ["6,25 mg/lần, 2 lần/ngày"], []),
        ("Người cao tuổi dùng clopidogrel có cần chỉnh liều không?", ["không cần thiết"], ["300 - 600 mg"]),
        # dialysis: the dialysis band, not the Clcr bands (amoxicilin)
        ("Bệnh nhân người lớn chạy thận nhân tạo (thẩm phân máu) uống amoxicilin liều thế nào?",
         ["Bệnh nhân thẩm phân máu: 250 - 500 mg/24 giờ"], ["250 - 500 mg/12 giờ"]),
        # a raised serum creatinine is a kidney impairment: the book's renal line, not the usual doses (acarbose)
        ("Bệnh nhân đái tháo đường typ 2 có creatinin huyết thanh 2,5 mg/dl dùng acarbose liều bao nhiêu?",
         ["Không nên dùng acarbose"], ["100 mg/lần, ngày uống 3 lần"]),
        # a pregnant patient: the book's pregnancy dose, by the book's name for the disease (aciclovir, VZV)
        ("Phụ nữ mang thai bị thủy đậu, aciclovir truyền tĩnh mạch liều bao nhiêu?", ["15 mg/kg/lần"],
         ["Ở người có khả năng miễn dịch: 5 mg/kg/lần"]),
        # "không uống được, đặt trực tràng": the route asked is the one the patient can take (paracetamol)
        ("Người lớn không uống được, đặt trực tràng paracetamol liều bao nhiêu?", ["0,5 - 1 g/lần"],
         ["tối đa là 4 g/ngày"]),
        # the renal table for a low Clcr, never the normal-function ceiling beside it (captopril)
        ("Người lớn tăng huyết áp có độ thanh thải creatinin 15 ml/phút: liều bắt đầu và liều tối đa captopril?",
         [], ["150 mg/ngày"]),
        # "người lớn và trẻ em trên 10 kg": children are among the label's groups (diazepam, rectal)
        ("Trẻ 3 tuổi nặng 14 kg co giật do sốt cao, diazepam dung dịch trực tràng?", ["500 microgam/kg"], []),
    ],
)
def test_the_dose_the_book_prints_for_this_patient(assistant, question, shown, hidden):
    payload, text = _ask(assistant, question)
    assert payload.decision in ("answerable", "verify_pdf"), (payload.reason, payload.message)
    for words in shown:
        assert words in text, words
    for words in hidden:
        assert words not in text, words


def test_a_drug_the_patient_cannot_take_is_context_not_the_subject(assistant):
    payload, text = _ask(assistant, "Bệnh nhân đau thắt ngực không ổn định sắp can thiệp mạch vành qua da nhưng "
                                    "không dùng được aspirin, liều clopidogrel đầu tiên là bao nhiêu?")
    assert payload.decision == "answerable" and "300 - 600 mg" in text
    assert {c.drug_id for c in payload.citations} == {"clopidogrel"}


def test_a_breastfeeding_mother_is_not_her_babys_age(assistant):
    payload, text = _ask(assistant, "Mẹ đang cho con 3 tháng tuổi bú, có uống diazepam được không?")
    assert payload.blocks[0].kind == "warning"
    assert "Không dùng diazepam cho người cho con bú dưới 6 tháng tuổi" in text
    assert "trẻ em 1 - 5 mg" not in text


def test_can_i_use_it_with_a_condition_reads_the_contraindications(assistant):
    payload, text = _ask(assistant, "Bệnh nhân có tiền sử hen phế quản có dùng aspirin giảm đau được không?")
    assert payload.decision == "answerable"
    assert "Người có tiền sử bệnh hen không được dùng aspirin" in text


@pytest.mark.integration
def test_a_condition_the_drug_is_dosed_for_asks_the_dose_not_the_contraindications(assistant):
    """"amoxicilin dự phòng viêm nội tâm mạc ... trước nhổ răng" names what the book doses amoxicilin for: the
    answer is about the dose (here the route is asked), never the contraindication list alone (fresh eyes)."""
    payload = assistant.ask("amoxicilin dự phòng viêm nội tâm mạc người lớn trước nhổ răng")
    assert payload.reason == "missing_route" or any(b.kind == "dosage" for b in payload.blocks)
    asthma = assistant.ask("Bệnh nhân có tiền sử hen phế quản có dùng aspirin giảm đau được không?")
    assert asthma.blocks[0].kind == "warning" and "chong_chi_dinh" in {c.section_key for c in asthma.citations}
    abbreviated = assistant.ask("CCĐ của captopril?")  # the section asked in its abbreviation stays asked
    assert abbreviated.decision == "answerable" and {c.section_key for c in abbreviated.citations} == {"chong_chi_dinh"}


def test_a_patient_spoken_of_as_bệnh_nhân_gets_the_adults_doses_said_so(assistant):
    """paracetamol (source/paracetamol.md): 'Liều uống thường dùng là 0,5 - 1 g/lần' (adults) and the children's
    doses in mg/kg by age. A patient spoken of as 'bệnh nhân' with no age is an adult on a ward, said so; a bare
    dose question still asks the group, and a child ('bệnh nhi') is asked the age and weight."""
    conversation = f"t-{uuid.uuid4().hex}"
    payload = assistant.ask("Bệnh nhân sốt 39 độ, uống paracetamol mỗi lần bao nhiêu?", conversation)
    text = "\n".join(c.text for b in payload.blocks for c in b.claims)
    assert payload.decision == "answerable", (payload.reason, payload.message)
    assert "0,5 - 1 g/lần" in text and "mg/kg" not in text
    assert "người lớn" in payload.message and "Trẻ em" in payload.quick_replies
    assert all("Người lớn" in b.title for b in payload.blocks)
    # the quick reply: now a child, whose age decides the dose
    child = assistant.ask("Trẻ em", conversation)
    assert child.decision == "clarify" and child.reason == "missing_pediatric_age_or_weight"
    bare, _ = _ask(assistant, "Liều paracetamol uống mỗi lần là bao nhiêu?")
    assert bare.decision == "clarify" and bare.reason == "missing_population"
    sick_child, _ = _ask(assistant, "bệnh nhi sốt 39 độ, uống paracetamol mỗi lần bao nhiêu?")
    assert sick_child.decision == "clarify" and sick_child.reason == "missing_pediatric_age_or_weight"
