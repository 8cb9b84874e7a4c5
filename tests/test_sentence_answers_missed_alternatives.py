"""Questions a drug's sentences answer: a missed dose gets the sentences that speak of one, a question naming two
alternatives gets the one the book prints, a mix into an infusion bottle is a Tương kỵ question.

Sentences are the book's own (the sample book's warfarin and furosemid, sample-e's tuning carbamazepin).
"""

from __future__ import annotations

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.qa.answers import sentence_answer
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.qa.understanding.section_asked import SentenceAsk, route_section
from duocthu_desktop.qa.understanding.textmatch import Text


def _chunk(drug: str, key: str, text: str, n: int = 0) -> Chunk:
    return Chunk(chunk_id=f"{drug}__{key}__{n}", drug_id=drug, section_key=key, part_index=n, text=text,
                 printed_pages=[300 + n], physical_pages=[20 + n], page_spans=[[20 + n, 0, len(text)]])


def _claims(answer) -> list[str]:
    return [c.text for b in answer.blocks for c in b.claims]


WARFARIN_CAUTION = ("Phải rất thận trọng đối với người cao tuổi vì thường có nhiều bệnh kết hợp nên thường dùng "
                    "nhiều thuốc kết hợp, dễ ngã, dễ quên liều và uống nhầm liều.")
WARFARIN_DOSAGE = ("Liều duy trì hằng ngày thường là 2 - 10 mg. Nếu quên uống, liều quên phải uống ngay trong cùng "
                   "ngày, càng sớm càng tốt. Không được uống hai liều vào ngày hôm sau để bù cho liều quên.")


def test_a_missed_dose_is_answered_by_the_dosage_sentences_that_speak_of_one() -> None:
    chunks = [_chunk("warfarin", "than_trong", WARFARIN_CAUTION), _chunk("warfarin", "lieu_luong_cach_dung",
                                                                        WARFARIN_DOSAGE, 1)]
    frame = QueryFrame(question="Bệnh nhân quên uống warfarin tối qua, sáng nay có nên uống gấp đôi không?",
                       drug_ids=["warfarin"], drug_mentions={"warfarin": "warfarin"},
                       section_key="lieu_luong_cach_dung", turn_type="dosing", route="uong")
    answer = sentence_answer.answer(SentenceAsk("focused", "lieu_luong_cach_dung"), frame, chunks, None)
    claims = _claims(answer)
    assert answer.decision == "answerable"
    assert claims == ["Nếu quên uống, liều quên phải uống ngay trong cùng ngày, càng sớm càng tốt.",
                      "Không được uống hai liều vào ngày hôm sau để bù cho liều quên."]


CARBAMAZEPIN_INTERACTION = (
    "Các thuốc ức chế CYP 3A4 gây giảm chuyển hóa carbamazepin và do vậy có thể làm tăng nồng độ của carbamazepin, "
    "như: Isoniazid, verapamil, diltiazem, loratadin, olanzepin, nước nho, các chất ức chế protease để điều trị "
    "HIV (như ritonavir).")
CARBAMAZEPIN_DOSAGE = "Phải bắt đầu cho carbamazepin với liều thấp và khi tăng hoặc giảm liều phải tiến hành dần dần."


def _carbamazepin_frame(question: str) -> QueryFrame:
    return QueryFrame(question=question, drug_ids=["carbamazepin"], drug_mentions={"carbamazepin": "carbamazepin"},
                      section_key="chong_chi_dinh", turn_type="drug_attribute", route="uong")


def test_of_two_alternatives_the_one_the_book_prints_answers() -> None:
    chunks = [_chunk("carbamazepin", "tuong_tac_thuoc", CARBAMAZEPIN_INTERACTION),
              _chunk("carbamazepin", "lieu_luong_cach_dung", CARBAMAZEPIN_DOSAGE, 1)]
    frame = _carbamazepin_frame("Đang uống carbamazepin có uống nước ép bưởi chùm (grapefruit) hay nước nho được "
                                "không?")
    answer = sentence_answer.answer(SentenceAsk("focused"), frame, chunks, None)
    assert answer.decision == "answerable"
    assert any("nước nho" in c for c in _claims(answer))


def test_a_question_whose_only_subject_the_book_never_prints_still_abstains() -> None:
    chunks = [_chunk("carbamazepin", "tuong_tac_thuoc", CARBAMAZEPIN_INTERACTION),
              _chunk("carbamazepin", "lieu_luong_cach_dung", CARBAMAZEPIN_DOSAGE, 1)]
    frame = _carbamazepin_frame("Đang uống carbamazepin có uống nước ép bưởi chùm (grapefruit) được không?")
    answer = sentence_answer.answer(SentenceAsk("focused"), frame, chunks, None)
    assert answer.decision == "abstain"


def test_mixing_into_an_infusion_bottle_asks_for_the_incompatibilities() -> None:
    asked = route_section(Text.of("Có pha furosemid tiêm vào chai glucose 5% để truyền được không?"))
    assert asked.key == "tuong_ky"


PARACETAMOL_OVERDOSE_TREATMENT = (
    "Điều trị Chẩn đoán sớm rất quan trọng trong điều trị quá liều paracetamol. Có những phương pháp xác định nhanh "
    "nồng độ thuốc trong huyết tương. Tuy vậy, không được trì hoãn điều trị trong khi chờ kết quả xét nghiệm nếu bệnh "
    "sử gợi ý là quá liều nặng. Khi nhiễm độc nặng, điều quan trọng là phải điều trị hỗ trợ tích cực. Cần rửa dạ dày "
    "trong mọi trường hợp, tốt nhất trong vòng 4 giờ sau khi uống. Liệu pháp giải độc chính là dùng những hợp chất "
    "sulfhydryl, có lẽ tác động một phần do bổ sung dự trữ glutathion ở gan. N-acetylcystein có tác dụng khi uống "
    "hoặc tiêm tĩnh mạch. Phải dùng thuốc giải độc ngay lập tức, càng sớm càng tốt nếu chưa đến 36 giờ kể từ khi "
    "uống paracetamol. Cho uống N-acetylcystein với liều đầu tiên là 140 mg/kg, sau đó cho tiếp 17 liều nữa, mỗi "
    "liều 70 mg/kg cách nhau 4 giờ một lần. Chấm dứt điều trị nếu xét nghiệm paracetamol trong huyết tương cho thấy "
    "nguy cơ độc hại gan thấp.")
PARACETAMOL_OVERDOSE_SIGNS = ("Biểu hiện\nBuồn nôn, nôn, và đau bụng thường xảy ra trong vòng 2 - 3 giờ sau khi uống "
                              "liều độc của thuốc.")


def test_an_overdose_treatment_under_a_run_in_label_gives_the_antidotes_regimen() -> None:
    chunks = [_chunk("paracetamol", "qua_lieu_xu_tri", PARACETAMOL_OVERDOSE_SIGNS),
              _chunk("paracetamol", "qua_lieu_xu_tri", PARACETAMOL_OVERDOSE_TREATMENT, 1)]
    frame = QueryFrame(question="ngộ độc paracetamol điều trị giải độc thế nào", drug_ids=["paracetamol"],
                       drug_mentions={"paracetamol": "paracetamol"}, section_key="qua_lieu_xu_tri",
                       turn_type="drug_attribute")
    answer = sentence_answer.answer(SentenceAsk("focused", "qua_lieu_xu_tri"), frame, chunks, None)
    claims = _claims(answer)
    assert answer.decision == "answerable"
    assert claims[0].startswith("Điều trị Chẩn đoán sớm")
    assert any("140 mg/kg" in c and "70 mg/kg" in c for c in claims)
    assert not any(c.startswith("Buồn nôn") for c in claims)
