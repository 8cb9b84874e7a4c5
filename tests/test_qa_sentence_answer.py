"""Questions that are not a dose, a contraindication, an indication list or an interaction: which ones take the
sentence path (scripted frames), how the drug's sentences are ranked (an invented monograph, the hashing fake
embedder), and the whole turn over that monograph (in-memory store): route, missed dose, antidote, abstention."""

from __future__ import annotations

import uuid

import pytest

from duocthu_desktop.artifacts import Chunk, Monograph
from duocthu_desktop.qa.answers import sentence_answer
from duocthu_desktop.qa.decision_table import route
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.qa.understanding.lab_values import LabValue
from duocthu_desktop.qa.understanding.section_asked import SentenceAsk, sentence_ask
from duocthu_desktop.qa.verification.grounding import verify
from duocthu_desktop.retrieval.fakes import HashingEmbedder
from duocthu_desktop.settings import Settings

# An invented monograph (its own words, not the book's), one chunk a section.
DRUG = "testamin"
SECTIONS = {
    "chi_dinh": "Điều trị cơn đau nửa đầu cấp.",
    "chong_chi_dinh": "Quá mẫn với testamin.\nSuy gan nặng.\nTrẻ em dưới 2 tuổi.",
    "than_trong": "Không tiêm bắp testamin vì gây đau và áp xe tại chỗ tiêm. Thận trọng ở người suy thận.",
    "tac_dung_khong_mong_muon": "Thường gặp, ADR > 1/100\nTiêu hóa: Buồn nôn, nôn.",
    "lieu_luong_cach_dung": (
        "Cách dùng: Uống testamin sau bữa ăn với nhiều nước. Nếu quên một lần uống, uống ngay khi nhớ ra, "
        "không uống gấp đôi.\nNgười lớn: Uống 200 mg/lần, ngày 2 lần.\n"
        "Tiêm tĩnh mạch chậm: Người lớn 100 mg/lần, cách 12 giờ."
    ),
    "do_on_dinh_bao_quan": "Bảo quản ở nhiệt độ 15 - 30 °C, tránh ánh sáng. Dung dịch đã pha dùng trong vòng 24 giờ.",
    "qua_lieu_xu_tri": (
        "Triệu chứng: Buồn ngủ, hạ huyết áp. Xử trí: Rửa dạ dày, cho than hoạt. "
        "Thuốc giải độc đặc hiệu là protamin, tiêm tĩnh mạch chậm 50 mg."
    ),
}


def _chunks() -> list[Chunk]:
    return [
        Chunk(chunk_id=f"{DRUG}__{key}__0", drug_id=DRUG, section_key=key, part_index=0, text=text,
              printed_pages=[500 + i], physical_pages=[10 + i])
        for i, (key, text) in enumerate(SECTIONS.items())
    ]


MONOGRAPH = Monograph(drug_id=DRUG, title="TESTAMIN", inn="Testamin", start_physical=10, end_physical=17,
                      start_printed=500, end_printed=507)


def _frame(question: str, **fields) -> QueryFrame:
    return QueryFrame(question=question, drug_ids=[DRUG], drug_mentions={DRUG: "testamin"}, **fields)


# ---- which questions take the path ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("frame", "kind"),
    [
        # "được không" picked the contraindications; the question is about a route
        (_frame("Testamin có tiêm bắp được không?", turn_type="drug_attribute", section_key="chong_chi_dinh",
                route="tiem_bap"), "route"),
        (_frame("Testamin uống với nước bưởi được không?", turn_type="drug_attribute",
                section_key="chong_chi_dinh", route="uong"), "focused"),
        (_frame("Cách dùng testamin?", turn_type="dosing", section_key="lieu_luong_cach_dung"), "how_to"),
        (_frame("Quá liều testamin dùng thuốc giải độc gì?", turn_type="drug_attribute",
                section_key="qua_lieu_xu_tri"), "focused"),
        (_frame("Testamin và nước bưởi?", turn_type="unknown"), "focused"),
        # how much of one form is how much of another: the sentence that converts them, not a dose to fit
        (_frame("Viên testamin natri 12,8 mg tương đương bao nhiêu mg testamin?", turn_type="dosing",
                section_key="lieu_luong_cach_dung"), "focused"),
        # how to stop it is a sentence of the book, not whether it may be used
        (_frame("bn muốn ngưng testamin, cho ngưng luôn được không?", turn_type="drug_attribute",
                section_key="chong_chi_dinh"), "focused"),
        # put in where it acts: how it is given, not whether it may be used
        (_frame("Tưới testamin vào ổ áp xe được không?", turn_type="drug_attribute",
                section_key="chong_chi_dinh"), "focused"),
    ],
)
def test_questions_a_sentence_answers(frame: QueryFrame, kind: str) -> None:
    ask = sentence_ask(frame)
    assert ask is not None and ask.kind == kind
    assert route(frame, None).rule == "sentence_answer"


@pytest.mark.parametrize(
    "frame",
    [
        _frame("Chống chỉ định của testamin?", turn_type="drug_attribute", section_key="chong_chi_dinh"),
        _frame("Testamin có chống chỉ định tiêm bắp không, được không?", turn_type="drug_attribute",
               section_key="chong_chi_dinh", route="tiem_bap"),
        _frame("Liều testamin cho người lớn?", turn_type="dosing", section_key="lieu_luong_cach_dung",
               population="nguoi_lon"),
        _frame("Cách dùng testamin cho trẻ 5 tuổi?", turn_type="dosing", section_key="lieu_luong_cach_dung",
               population="tre_em", age_years=5),
        _frame("Testamin liều dùng như thế nào?", turn_type="dosing", section_key="lieu_luong_cach_dung"),
        _frame("Bảo quản testamin như thế nào?", turn_type="drug_attribute", section_key="do_on_dinh_bao_quan"),
        _frame("Người suy gan dùng testamin được không?", turn_type="drug_attribute",
               section_key="chong_chi_dinh", hepatic_impairment=True),
        _frame("Testamin", turn_type="unknown"),
        # a can-I question about a patient's disease ("phế quản" is not "cà phê") is the contraindications'
        _frame("Bệnh nhân có tiền sử hen phế quản có dùng testamin giảm đau được không?",
               turn_type="drug_attribute", section_key="chong_chi_dinh"),
        _frame("CCĐ của testamin?", turn_type="drug_attribute", section_key="chong_chi_dinh"),
        _frame("Tác dụng phụ của testamin?", turn_type="drug_attribute", section_key="tac_dung_khong_mong_muon"),
        # "tuoi" typed bare may be "tuổi": no way of giving is read from it
        _frame("tuoi testamin vao o ap xe duoc khong", turn_type="drug_attribute", section_key="chong_chi_dinh"),
    ],
)
def test_questions_left_to_the_section_paths(frame: QueryFrame) -> None:
    assert sentence_ask(frame) is None


# ---- ranking --------------------------------------------------------------------------------------------------


def test_the_sentence_with_the_rare_words_wins_across_sections() -> None:
    sentences = sentence_answer.drug_sentences(_chunks())
    scored = sentence_answer.rank("Testamin dùng thuốc giải độc gì?", sentences, ["testamin"])
    assert "giải độc" in scored[0].sentence.text and scored[0].answers


def test_diacritics_typed_are_meant() -> None:
    """'bưởi' typed with its marks is not 'buổi' (a word the text may print): nothing answers."""
    chunks = [Chunk(chunk_id="x__chi_dinh__0", drug_id="x", section_key="lieu_luong_cach_dung", part_index=0,
                    text="Uống vào buổi sáng với nước.", printed_pages=[1], physical_pages=[1])]
    scored = sentence_answer.rank("Uống với nước bưởi được không?", sentence_answer.drug_sentences(chunks))
    assert not scored or not scored[0].answers
    plain = sentence_answer.rank("uong voi nuoc buoi", sentence_answer.drug_sentences(chunks))
    assert plain and plain[0].answers  # typed without marks, it is read folded


def test_a_named_section_wins_a_near_tie() -> None:
    sentences = sentence_answer.drug_sentences(_chunks())
    scored = sentence_answer.rank("tiêm tĩnh mạch chậm", sentences, ["testamin"], boost=["qua_lieu_xu_tri"])
    assert scored[0].sentence.section_key == "qua_lieu_xu_tri"
    scored = sentence_answer.rank("tiêm tĩnh mạch chậm", sentences, ["testamin"], boost=["lieu_luong_cach_dung"])
    assert scored[0].sentence.section_key == "lieu_luong_cach_dung"


def test_meaning_is_added_when_the_words_leave_doubt_and_skipped_when_the_model_fails() -> None:
    sentences = sentence_answer.drug_sentences(_chunks())
    sure = sentence_answer.rank("thuốc giải độc", sentences, ["testamin"], embedder=HashingEmbedder())
    assert sure[0].dense is None  # the words decide: no model call
    scored = sentence_answer.rank("giải độc rượu", sentences, ["testamin"], embedder=HashingEmbedder())
    assert scored[0].dense is not None

    class Broken:
        def embed(self, texts, kind):
            raise RuntimeError("no model")

    scored = sentence_answer.rank("giải độc rượu", sentences, ["testamin"], embedder=Broken())
    assert scored and all(s.dense is None for s in scored)


def test_quarantined_tables_and_pageless_chunks_are_never_quoted() -> None:
    chunks = _chunks()
    chunks[5] = chunks[5].model_copy(update={"quarantined": True})
    chunks[6] = chunks[6].model_copy(update={"printed_pages": []})
    keys = {s.section_key for s in sentence_answer.drug_sentences(chunks)}
    assert chunks[5].section_key not in keys and chunks[6].section_key not in keys


# ---- whole turns over the invented monograph ---------------------------------------------------------------


@pytest.fixture(scope="module")
def testamin_assistant(tmp_path_factory: pytest.TempPathFactory):
    from duocthu_desktop.qa.pipeline import Assistant
    from duocthu_desktop.qa.understanding.catalog import Catalog
    from duocthu_desktop.retrieval.memory_store import InMemoryStore
    from duocthu_desktop.retrieval.service import RetrievalService

    chunks = _chunks()
    service = RetrievalService(InMemoryStore(chunks), [MONOGRAPH], embedder=HashingEmbedder())
    return Assistant(service, catalog=Catalog([MONOGRAPH], chunks), engine_name="extractive",
                     settings=Settings(data_dir=tmp_path_factory.mktemp("sentences")))


def _claims(payload) -> str:
    return "\n".join(c.text for b in payload.blocks for c in b.claims)


def _grounded(payload) -> None:
    chunks = {c.chunk_id: c.text for c in _chunks()}
    assert verify(payload.blocks, payload.citations, chunks) == []
    for citation in payload.citations:
        assert citation.quote in chunks[citation.chunk_id]


def test_a_route_the_book_warns_against_is_said_with_its_sentence(testamin_assistant) -> None:
    payload = testamin_assistant.ask("Testamin có tiêm bắp được không?")
    assert payload.decision == "answerable"
    assert "Không tiêm bắp testamin" in _claims(payload)
    assert "không ghi liều" in payload.message and "tiêm bắp" in payload.message
    assert "Quá mẫn" not in _claims(payload)  # never the contraindication list
    _grounded(payload)


def test_a_route_the_book_gives_is_answered_from_the_dosage_section(testamin_assistant) -> None:
    payload = testamin_assistant.ask("Testamin tiêm tĩnh mạch được không?")
    assert payload.decision == "answerable"
    assert payload.citations[0].section_key == "lieu_luong_cach_dung"
    assert "Tiêm tĩnh mạch chậm" in _claims(payload)
    _grounded(payload)


def test_a_route_the_book_never_names_asks_which_route_it_gives(testamin_assistant) -> None:
    payload = testamin_assistant.ask("Testamin đặt trực tràng được không?")
    assert (payload.decision, payload.reason) == ("clarify", "missing_route")
    assert "không ghi liều" in payload.message
    assert {"Uống", "Tiêm tĩnh mạch"} <= set(payload.quick_replies)


@pytest.mark.parametrize(
    ("question", "shown", "section"),
    [
        ("Testamin quên uống thì phải làm sao?", "quên một lần uống", "lieu_luong_cach_dung"),
        ("Quá liều testamin dùng thuốc giải độc gì?", "protamin", "qua_lieu_xu_tri"),
        ("Dung dịch testamin đã pha bảo quản được bao lâu?", "24 giờ", "do_on_dinh_bao_quan"),
        ("Cách dùng testamin?", "sau bữa ăn", "lieu_luong_cach_dung"),
    ],
)
def test_the_sentence_that_answers(testamin_assistant, question: str, shown: str, section: str) -> None:
    payload = testamin_assistant.ask(question, conversation_id=str(uuid.uuid4()))
    assert payload.decision == "answerable", payload.message
    assert shown in _claims(payload)
    assert section in {c.section_key for c in payload.citations}
    assert "Quá mẫn" not in _claims(payload)
    _grounded(payload)


def test_nothing_in_the_book_abstains(testamin_assistant) -> None:
    payload = testamin_assistant.ask("Testamin uống với nước bưởi được không?")
    assert (payload.decision, payload.reason) == ("abstain", "evidence_insufficient")
    assert not payload.blocks and payload.disclaimer


def test_contraindications_asked_are_still_the_list(testamin_assistant) -> None:
    payload = testamin_assistant.ask("Chống chỉ định của testamin?")
    assert payload.decision == "answerable"
    assert {c.section_key for c in payload.citations} == {"chong_chi_dinh"}


def test_sentence_ask_is_a_value() -> None:
    assert SentenceAsk("focused") == SentenceAsk("focused", None)


@pytest.mark.integration
def test_a_question_no_sentence_answers_is_read_as_before(assistant):
    """When no sentence answers well enough, the question takes the path it took before that route: a patient on
    the drug facing a contrast scan still gets the book's warnings (safety.jsonl); a storage question the book
    does not answer is never answered with the contraindication list."""
    payload = assistant.ask("Bệnh nhân đang uống metformin sắp chụp CT có tiêm thuốc cản quang có iod thì phải làm gì?")
    assert payload.decision == "answerable" and payload.blocks[0].kind == "warning"
    assert any("48 giờ" in c.text for b in payload.blocks for c in b.claims)
    silent = assistant.ask("Amlodipin uống với nước bưởi được không?")
    assert silent.decision == "abstain" and not silent.blocks
    storage = assistant.ask("Hỗn dịch amoxicilin sau khi pha giữ được bao lâu?")
    assert storage.decision in ("abstain", "answerable") and "chong_chi_dinh" not in {
        c.section_key for c in storage.citations}


@pytest.mark.integration
def test_a_missed_dose_is_answered_by_its_sentence_or_abstains(assistant):
    """"Quên một liều thì làm sao?" names a dose but asks no amount: the book's sentence on a missed dose, or an
    abstention where the book has none, never a group clarify."""
    payload = assistant.ask("Quên uống một liều warfarin thì làm thế nào?")
    assert payload.decision == "answerable"
    assert any("quên" in c.text for b in payload.blocks for c in b.claims)


def test_the_section_named_by_its_heading_answers_before_a_sentence_elsewhere():
    """"Quá liều testamin hạ huyết áp, xử trí thế nào?": the overdose section's sentence on low blood pressure,
    not a caution elsewhere that shares the words (tuning: an overdose answered from Thận trọng)."""
    chunks = _chunks() + [Chunk(chunk_id=f"{DRUG}__than_trong__1", drug_id=DRUG, section_key="than_trong",
                                part_index=1, text="Thận trọng khi dùng testamin cho người hạ huyết áp tư thế.",
                                printed_pages=[503], physical_pages=[13])]
    frame = _frame("Quá liều testamin hạ huyết áp, xử trí thế nào?", turn_type="drug_attribute",
                   section_key="qua_lieu_xu_tri")
    answer = sentence_answer.answer(SentenceAsk("focused", "qua_lieu_xu_tri"), frame, chunks, MONOGRAPH)
    assert {c.section_key for c in answer.citations} == {"qua_lieu_xu_tri"}


def _with(section: str, text: str, part: int = 1) -> list[Chunk]:
    return _chunks() + [Chunk(chunk_id=f"{DRUG}__{section}__{part}", drug_id=DRUG, section_key=section,
                              part_index=part, text=text, printed_pages=[506], physical_pages=[16])]


def test_a_section_named_by_its_own_word_answers_with_every_sentence_printing_it():
    """"Những thuốc nào tương kỵ với testamin khi pha truyền?": the Tương kỵ sentences, the list whole, not a
    dilution sentence elsewhere that shares "pha" and "truyền" (fresh eyes 4: vancomycin's list missing)."""
    chunks = _with("tuong_ky", "Dung dịch testamin có pH kiềm nên tương kỵ với các dung dịch acid. Đã thấy có "
                   "tương kỵ giữa testamin với alphamin, betamin và gammamin.", 0) + _with(
        "lieu_luong_cach_dung", "Pha testamin vào dung dịch glucose 5% rồi truyền tĩnh mạch trong 30 phút.", 1)
    frame = _frame("Những thuốc nào tương kỵ với testamin khi pha truyền?", turn_type="drug_attribute",
                   section_key="tuong_ky", route="truyen_tinh_mach")
    ask = sentence_ask(frame)
    assert ask == SentenceAsk("focused", "tuong_ky")
    answer = sentence_answer.answer(ask, frame, chunks, MONOGRAPH)
    assert {c.section_key for c in answer.citations} == {"tuong_ky"}
    shown = " ".join(c.text for b in answer.blocks for c in b.claims)
    assert "alphamin, betamin và gammamin" in shown


def test_a_lab_value_is_answered_by_the_band_that_holds_it():
    """"INR 6,5, không chảy máu, xử trí thế nào?": the overdose sentence whose band holds 6,5, never the one for
    INR above 9 (its 10 mg of vitamin K is not this patient's)."""
    chunks = _with("qua_lieu_xu_tri", "Nếu INR > 5 nhưng < 9 và không chảy máu: Bỏ 1 lần uống testamin. "
                   "Nếu INR > 9, không chảy máu: tiêm vitamin K 10 mg.")
    frame = _frame("Đang dùng testamin, INR 6,5, không chảy máu, xử trí thế nào?", turn_type="drug_attribute",
                   section_key="xu_tri_adr", lab_values=[LabValue(analyte="inr", value=6.5)])
    ask = sentence_ask(frame)
    assert ask is not None and ask.kind == "lab"
    answer = sentence_answer.answer(ask, frame, chunks, MONOGRAPH)
    shown = " ".join(c.text for b in answer.blocks for c in b.claims)
    assert "Bỏ 1 lần uống testamin" in shown and "10 mg" not in shown
    high = _frame("INR 12, không chảy máu, xử trí thế nào?", turn_type="drug_attribute",
                  section_key="xu_tri_adr", lab_values=[LabValue(analyte="inr", value=12)])
    answer = sentence_answer.answer(sentence_ask(high), high, chunks, MONOGRAPH)
    assert "10 mg" in " ".join(c.text for b in answer.blocks for c in b.claims)


def test_a_lab_value_with_no_band_printed_abstains_for_the_section_paths():
    frame = _frame("Tiểu cầu 40 000/mm3, xử trí thế nào?", turn_type="drug_attribute", section_key="xu_tri_adr",
                   lab_values=[LabValue(analyte="tieu_cau", value=40000, unit="/mm3")])
    answer = sentence_answer.answer(sentence_ask(frame), frame, _chunks(), MONOGRAPH)
    assert answer.decision == "abstain"


def test_a_sentence_printing_only_the_opposite_direction_is_not_the_answer():
    chunks = _with("tuong_tac_thuoc", "Alphamin làm giảm nồng độ testamin trong máu. "
                   "Betamin và gammamin làm tăng nồng độ testamin.")
    scored = sentence_answer.rank("Những thuốc nào làm tăng nồng độ testamin trong máu?",
                                  sentence_answer.drug_sentences(chunks), ["testamin"])
    assert "Betamin" in scored[0].sentence.text
    assert not any("Alphamin" in s.sentence.text for s in scored)


def test_a_condition_that_is_a_section_word_is_no_patient_fact():
    """"ngộ độc testamin điều trị giải độc thế nào": "giải độc" read after "điều trị" is the overdose section's
    own word, not the patient's illness; the question still takes the sentence path."""
    frame = _frame("ngộ độc testamin điều trị giải độc thế nào", turn_type="drug_attribute",
                   section_key="qua_lieu_xu_tri", condition="giải độc")
    assert sentence_ask(frame) == SentenceAsk("focused", "qua_lieu_xu_tri")
    ill = _frame("Quá liều testamin ở người suy tim xử trí thế nào?", turn_type="drug_attribute",
                 section_key="qua_lieu_xu_tri", condition="suy tim")
    assert sentence_ask(ill) is None


def test_a_concentration_and_a_duration_asked_together_each_get_their_sentence():
    """"Pha testamin truyền tĩnh mạch nồng độ tối đa bao nhiêu và phải truyền trong bao lâu?": not an amount to
    give (no group is asked for), and each part answered by the sentence printing what it asks for (fresh eyes 4:
    aciclovir's 7 mg/ml and 1 giờ)."""
    chunks = _with("lieu_luong_cach_dung", "Pha loãng để được dung dịch testamin không quá 4 mg/ml để truyền. "
                   "Thời gian truyền: truyền tĩnh mạch chậm ít nhất 2 giờ.")
    question = "Pha testamin truyền tĩnh mạch thì nồng độ tối đa bao nhiêu và phải truyền trong bao lâu?"
    frame = _frame(question, turn_type="dosing", section_key="lieu_luong_cach_dung", route="truyen_tinh_mach")
    ask = sentence_ask(frame)
    assert ask == SentenceAsk("focused", "lieu_luong_cach_dung")
    assert sentence_answer.question_parts(question) == [
        "Pha testamin truyền tĩnh mạch thì nồng độ tối đa bao nhiêu", "phải truyền trong bao lâu?"]
    shown = " ".join(c.text for b in sentence_answer.answer(ask, frame, chunks, MONOGRAPH).blocks for c in b.claims)
    assert "4 mg/ml" in shown and "2 giờ" in shown
    assert sentence_ask(_frame("Liều testamin bao nhiêu mg?", turn_type="dosing",
                               section_key="lieu_luong_cach_dung")) is None  # an amount is still the dose rows


def test_where_to_inject_is_the_sentence_printing_a_site():
    chunks = _with("lieu_luong_cach_dung", "Không tiêm testamin ở vị trí có dây thần kinh. "
                   "Tiêm bắp sâu vào cơ mông.")
    frame = _frame("Testamin tiêm bắp thì tiêm vào vị trí nào?", turn_type="dosing",
                   section_key="lieu_luong_cach_dung", route="tiem_bap")
    answer = sentence_answer.answer(sentence_ask(frame), frame, chunks, MONOGRAPH)
    assert "cơ mông" in answer.blocks[0].claims[0].text


def test_out_of_the_fridge_is_read_as_room_temperature():
    """"để ngoài tủ lạnh được bao lâu?": the book says "ở nhiệt độ phòng", which names no temperature asked."""
    chunks = _with("do_on_dinh_bao_quan", "Bảo quản lọ testamin ở 2 - 8 °C. Lọ chưa mở ổn định ở nhiệt độ phòng "
                   "trong 3 tuần.")
    frame = _frame("Lọ testamin để ngoài tủ lạnh được bao lâu?", turn_type="drug_attribute",
                   section_key="do_on_dinh_bao_quan")
    answer = sentence_answer.answer(SentenceAsk("focused", "do_on_dinh_bao_quan"), frame, chunks, MONOGRAPH)
    assert "3 tuần" in answer.blocks[0].claims[0].text


def test_a_site_is_asked_as_typed():
    """"ở đâu" asks where; "ở đầu đợt điều trị" (at the start) asks no site."""
    assert sentence_answer._answer_kinds("Tiêm ở đâu?")[1] == [sentence_answer.SITE_TERM]
    assert sentence_answer._answer_kinds("Liều ở đầu đợt điều trị là gì?")[1] == []


def test_a_lab_value_no_band_holds_is_read_as_before(testamin_assistant) -> None:
    """A lab value the monograph prints no band for: the section asked is shown as it was before the band path,
    not an abstention."""
    payload = testamin_assistant.ask("Quá liều testamin, kali máu 6 mmol/l, xử trí thế nào?")
    assert payload.decision == "answerable"
    assert "qua_lieu_xu_tri" in {c.section_key for c in payload.citations}
    _grounded(payload)


def test_which_drugs_reads_the_sentence_printing_the_list_first():
    chunks = _with("tuong_tac_thuoc", "Dùng testamin với thuốc lợi tiểu có thể làm tăng nồng độ testamin trong "
                   "máu nhẹ. Các thuốc ức chế enzym làm tăng nồng độ testamin, như: alphamin, betamin, gammamin, "
                   "deltamin.")
    frame = _frame("Những thuốc nào làm tăng nồng độ testamin trong máu?", turn_type="drug_attribute",
                   section_key="tuong_tac_thuoc")
    answer = sentence_answer.answer(sentence_ask(frame), frame, chunks, MONOGRAPH)
    assert "alphamin, betamin, gammamin, deltamin" in answer.blocks[0].claims[0].text


@pytest.mark.parametrize(
    ("question", "shown", "section"),
    [
        ("Testamin cất giữ thế nào cho khỏi hỏng?", "15 - 30 °C", "do_on_dinh_bao_quan"),
        ("Lỡ uống nhiều testamin quá thì xử trí sao?", "Rửa dạ dày", "qua_lieu_xu_tri"),
        ("Bệnh nhân dùng nhầm testamin thì cấp cứu thế nào?", "Rửa dạ dày", "qua_lieu_xu_tri"),
        ("Hướng dẫn bệnh nhân dùng testamin thế nào cho đúng?", "sau bữa ăn", "lieu_luong_cach_dung"),
        ("Dùng testamin hay gặp phản ứng gì?", "Buồn nôn", "tac_dung_khong_mong_muon"),
        ("Dùng testamin cần theo dõi gì?", "Thận trọng ở người suy thận", "than_trong"),
    ],
)
def test_a_ward_question_without_the_heading_words_gets_its_section_not_the_contraindications(
        testamin_assistant, question: str, shown: str, section: str) -> None:
    payload = testamin_assistant.ask(question, conversation_id=str(uuid.uuid4()))
    assert payload.decision == "answerable", payload.message
    assert shown in _claims(payload)
    assert section in {c.section_key for c in payload.citations}
    assert "Quá mẫn" not in _claims(payload)
    _grounded(payload)


@pytest.mark.parametrize(
    ("question", "key"),
    [
        ("để ở nhiệt độ nào?", "do_on_dinh_bao_quan"),
        ("có gây dị tật thai nhi không?", "thoi_ky_mang_thai"),
        ("đào thải qua đâu?", "duoc_ly_co_che"),
        ("cần theo dõi gì?", "than_trong"),
        ("uống trước hay sau bữa ăn?", "lieu_luong_cach_dung"),
        # a section, a dose or a can-I named as well keeps going there
        ("liều người lớn, cần theo dõi gì?", "lieu_luong_cach_dung"),
        ("chống chỉ định, cần theo dõi gì?", "chong_chi_dinh"),
        ("cần theo dõi gì, có dùng được không?", "chong_chi_dinh"),
        ("trẻ sốt bao nhiêu độ", None),
    ],
)
def test_question_cues_choose_a_section_only_when_nothing_else_does(question: str, key) -> None:
    from duocthu_desktop.qa.understanding.section_asked import route_section
    from duocthu_desktop.qa.understanding.textmatch import Text

    assert route_section(Text.of(question)).key == key


def test_the_drug_name_between_the_asking_words_does_not_part_them() -> None:
    from duocthu_desktop.qa.understanding.section_asked import without_names

    assert without_names("Dùng Testamin thế nào?", ["testamin"]) == "Dùng thế nào?"
    assert sentence_ask(_frame("Hướng dẫn dùng testamin thế nào?", section_key="lieu_luong_cach_dung",
                               turn_type="dosing")) == SentenceAsk("how_to", "lieu_luong_cach_dung")


def test_a_thing_the_named_section_never_prints_is_answered_by_the_sentence_elsewhere_that_names_it():
    """"Pha testamin vào chai Hartmann được không?": Tương kỵ says what not to mix in general words; the dosage
    section's preparation names the solution: that sentence first, the section's own after it."""
    chunks = _with("tuong_ky", "Không pha lẫn testamin với các dung dịch chứa calci. Tráng dây truyền giữa hai lần "
                   "tiêm.") + [Chunk(chunk_id=f"{DRUG}__lieu_luong_cach_dung__2", drug_id=DRUG,
                                     section_key="lieu_luong_cach_dung", part_index=2,
                                     text="Pha dung dịch tiêm: Không dùng dung dịch Hartmann để hòa tan testamin.",
                                     printed_pages=[507], physical_pages=[17])]
    frame = _frame("Pha testamin vào chai Hartmann để truyền được không?", turn_type="drug_attribute",
                   section_key="tuong_ky")
    answer = sentence_answer.answer(SentenceAsk("focused", "tuong_ky"), frame, chunks, MONOGRAPH)
    claims = "\n".join(c.text for b in answer.blocks for c in b.claims)
    assert "Không dùng dung dịch Hartmann" in claims
    assert answer.citations[0].section_key == "lieu_luong_cach_dung"
    assert "Quá mẫn" not in claims


def test_a_drug_the_monograph_never_prints_is_ranked_by_the_class_it_prints() -> None:
    """'thiopental' asked, 'barbiturat' printed: the question is ranked with the class's words; a drug the
    monograph prints by name, or a word of no known class, stays as typed."""
    chunk = Chunk(chunk_id=f"{DRUG}__tuong_ky__0", drug_id=DRUG, section_key="tuong_ky", part_index=0,
                  text="Không tiêm testamin và barbiturat trong cùng một bơm tiêm vì tạo tủa.",
                  printed_pages=[10], physical_pages=[3])
    sentences = sentence_answer.drug_sentences([chunk])
    asked = "Hút testamin và thiopental chung một bơm tiêm được không?"
    assert "barbiturat" in sentence_answer._members_as_printed(asked, sentences)
    assert "thiopental" not in sentence_answer._members_as_printed(asked, sentences)
    assert sentence_answer._members_as_printed("testamin với xyzamin?", sentences) == "testamin với xyzamin?"


def test_a_sentence_that_refuses_the_route_is_told_from_one_that_only_names_it() -> None:
    """"Không tiêm bắp ..." refuses the route; a conversion "khi chuyển từ ... tiêm bắp sang ..." and "không tiêm"
    said of nothing in particular do not."""
    assert sentence_answer.refuses_route("Không tiêm bắp vì kích ứng tại chỗ.", "tiem_bap")
    assert sentence_answer.refuses_route("Thuốc gây hoại tử. Không được dùng đường tiêm bắp.", "tiem_bap")
    assert not sentence_answer.refuses_route("Khi chuyển từ uống hoặc tiêm bắp sang tiêm tĩnh mạch, giảm 20%.",
                                             "tiem_bap")
    assert not sentence_answer.refuses_route("Có thể tiêm bắp sâu.", "tiem_bap")
    assert not sentence_answer.refuses_route("Không tiêm tĩnh mạch nhanh.", "tiem_bap")


def test_stopping_is_answered_for_anyone_not_from_the_pregnancy_section() -> None:
    chunks = [Chunk(chunk_id=f"x__{key}__0", drug_id="x", section_key=key, part_index=0, text=text,
                    printed_pages=[1 + i], physical_pages=[1 + i])
              for i, (key, text) in enumerate([
                  ("thoi_ky_mang_thai", "Khi mang thai, tránh ngừng thuốc đột ngột."),
                  ("than_trong", "Tránh ngừng thuốc đột ngột, phải giảm liều dần trong 1 - 2 tuần.")])]
    frame = QueryFrame(question="bn muốn ngưng x, cho ngưng luôn được không?", drug_ids=["x"],
                       drug_mentions={"x": "x"}, turn_type="drug_attribute", section_key="chong_chi_dinh")
    answer = sentence_answer.answer(SentenceAsk("focused"), frame, chunks, None)
    shown = " ".join(c.text for b in answer.blocks for c in b.claims)
    assert "giảm liều dần trong 1 - 2 tuần" in shown and "mang thai" not in shown


def test_two_questions_joined_by_a_comma_each_get_their_sentence() -> None:
    assert sentence_answer.question_parts("x pha nồng độ tối đa bao nhiêu, truyền qua kim bướm được không?") == [
        "x pha nồng độ tối đa bao nhiêu", "truyền qua kim bướm được không?"]
    assert sentence_answer.question_parts("người lớn, uống bao nhiêu") == ["người lớn, uống bao nhiêu"]


def test_stopping_right_away_is_the_books_stopping_abruptly() -> None:
    terms = {t.folded for t in sentence_answer.question_terms("cho ngưng luôn được không?")}
    assert {"ngung", "dot", "ngot"} <= terms


def test_a_missed_dose_answer_goes_on_with_the_paragraphs_next_dose_sentence() -> None:
    text = ("Cần uống thuốc đúng giờ. Nếu quên thì phải uống ngay khi nhớ. Nếu gần đến liều sau thì bỏ qua liều "
            "bị quên. Không tự ý uống gấp đôi liều.\n\nBảo quản nơi khô.")
    chunks = [Chunk(chunk_id="x__lieu_luong_cach_dung__0", drug_id="x", section_key="lieu_luong_cach_dung",
                    part_index=0, text=text, printed_pages=[1], physical_pages=[1])]
    frame = QueryFrame(question="quên uống x 1 liều thì làm sao", drug_ids=["x"], drug_mentions={"x": "x"},
                       turn_type="dosing", section_key="lieu_luong_cach_dung")
    answer = sentence_answer.answer(SentenceAsk("focused", "lieu_luong_cach_dung"), frame, chunks, None)
    shown = [c.text for b in answer.blocks for c in b.claims]
    assert shown[-1] == "Không tự ý uống gấp đôi liều." and "Bảo quản nơi khô." not in shown


def test_a_clinicians_abbreviation_is_read_as_the_words_the_book_prints() -> None:
    assert {"tinh", "mach"} <= {t.folded for t in sentence_answer.question_terms("tiêm TM tốc độ tối đa?")}


def test_a_sentence_for_an_impaired_liver_is_not_shown_beside_the_answer_for_a_patient_who_has_none() -> None:
    text = ("Phòng ngừa chảy máu tái phát sau nội soi: truyền 80 mg trong 30 phút, sau đó truyền 8 mg/giờ.\n\n"
            "Ở người suy gan nặng, phòng ngừa chảy máu tái phát sau nội soi: truyền 80 mg, sau đó 4 mg/giờ.")
    chunks = [Chunk(chunk_id="x__lieu_luong_cach_dung__0", drug_id="x", section_key="lieu_luong_cach_dung",
                    part_index=0, text=text, printed_pages=[1], physical_pages=[1])]
    frame = QueryFrame(question="x phòng ngừa chảy máu tái phát sau nội soi truyền thế nào",
                       drug_ids=["x"], drug_mentions={"x": "x"}, turn_type="dosing", section_key="lieu_luong_cach_dung")
    answer = sentence_answer.answer(SentenceAsk("focused", "lieu_luong_cach_dung"), frame, chunks, None)
    shown = " ".join(c.text for b in answer.blocks for c in b.claims)
    assert "8 mg/giờ" in shown and "4 mg/giờ" not in shown


def test_a_temperature_printed_with_its_superscript_mark_dropped_answers_a_temperature_asked():
    """"15 - 25 <sup>o</sup> C" reaches the chunk as "15 - 25 o C": it is a temperature."""
    chunks = [c for c in _with("do_on_dinh_bao_quan", "Bảo quản tránh ánh sáng, đậy nút kín. Để ở nhiệt độ 15 - 25 o C.")
              if c.chunk_id != f"{DRUG}__do_on_dinh_bao_quan__0"]
    frame = _frame("testamin bảo quản ở nhiệt độ bao nhiêu", turn_type="drug_attribute",
                   section_key="do_on_dinh_bao_quan")
    answer = sentence_answer.answer(SentenceAsk("focused", "do_on_dinh_bao_quan"), frame, chunks, MONOGRAPH)
    shown = " ".join(c.text for b in answer.blocks for c in b.claims)
    assert answer.decision == "answerable" and "15 - 25 o C" in shown and "đậy nút kín" not in shown


def test_may_this_patient_have_it_by_a_route_is_read_in_the_contraindications_first():
    """"bn loét ở mặt bôi X được không?": the case is what the sentence must hold; a sentence that holds the route
    and one word of the case ("đã từng được bôi để điều trị loét") is not the answer."""
    chunks = [*_with("chong_chi_dinh", "Trầy da rộng, tổn thương loét ở mặt."),
              Chunk(chunk_id=f"{DRUG}__duoc_ly_co_che__0", drug_id=DRUG, section_key="duoc_ly_co_che", part_index=0,
                    text="Testamin đã từng được bôi để điều trị loét miệng.", printed_pages=[507],
                    physical_pages=[17])]
    frame = _frame("bn loét ở mặt bôi testamin được không", turn_type="drug_attribute",
                   section_key="chong_chi_dinh", route="boi")
    ask = sentence_ask(frame)
    assert ask == SentenceAsk("focused", "chong_chi_dinh")
    answer = sentence_answer.answer(ask, frame, chunks, MONOGRAPH)
    assert [b.title for b in answer.blocks] == ["Testamin — Chống chỉ định"]
    assert "loét ở mặt" in answer.blocks[0].claims[0].text


def test_a_may_i_of_how_fast_it_goes_in_is_answered_where_the_book_says_how_it_is_given():
    """"tiêm TM testamin đẩy nhanh dc ko, tối thiểu bao lâu?": the dosage sentence printing the speed and the time
    ("tiêm chậm ít nhất 15 giây"), not a contraindication that also prints a slow infusion over days."""
    chunks = _with("chong_chi_dinh", "Trẻ em dưới 16 tuổi: không nên dùng; tuy nhiên có thể truyền tĩnh mạch chậm "
                   "testamin trong thời gian 2 ngày sau phẫu thuật.", 1) + _with(
        "lieu_luong_cach_dung", "Liều tiêm tĩnh mạch phải tiêm chậm ít nhất 15 giây.", 2)
    for question in ("tiem TM testamin day nhanh dc ko, toi thieu bao lau",
                     "tiêm tĩnh mạch testamin đẩy nhanh được không, tối thiểu bao lâu"):
        frame = _frame(question, turn_type="drug_attribute", section_key="chong_chi_dinh", route="tiem_tinh_mach")
        answer = sentence_answer.answer(SentenceAsk("focused", "chong_chi_dinh"), frame, chunks, MONOGRAPH)
        shown = " ".join(c.text for b in answer.blocks for c in b.claims)
        assert "tiêm chậm ít nhất 15 giây" in shown and "trong thời gian 2 ngày" not in shown, shown


def test_a_lead_ending_in_a_colon_is_shown_with_the_lines_it_introduces():
    """"Có một số biện pháp có thể làm giảm các phản ứng cấp:" answers with the measures it introduces, up to the
    next lead; the lines are not shown twice when they also rank."""
    chunks = _with("xu_tri_adr", "Có một số biện pháp có thể làm giảm các phản ứng cấp khi tỉnh:\nCho uống trước "
                   "alphamin 4 mg.\nTiêm tĩnh mạch betamin 0,15 mg/kg vào cuối cuộc mổ.\nĐiều trị các ADR:\n"
                   "Đối với suy hô hấp: hỗ trợ hô hấp.")
    frame = _frame("testamin làm giảm các phản ứng cấp khi tỉnh bằng biện pháp gì", turn_type="drug_attribute")
    answer = sentence_answer.answer(SentenceAsk("focused"), frame, chunks, MONOGRAPH)
    shown = [c.text for b in answer.blocks for c in b.claims]
    assert shown[:3] == ["Có một số biện pháp có thể làm giảm các phản ứng cấp khi tỉnh:",
                         "Cho uống trước alphamin 4 mg.", "Tiêm tĩnh mạch betamin 0,15 mg/kg vào cuối cuộc mổ."]
    assert not any("suy hô hấp" in t for t in shown) and len(shown) == len(set(shown))


def test_a_sentence_plainly_of_the_meaning_answers_with_few_of_the_words():
    """Asked in other words, a sentence very close in meaning answers with a fifth of the question's words; less
    close, it needs a third; never when what the question asks about is printed nowhere in the monograph."""
    sentence = sentence_answer.drug_sentences(_chunks())[0]
    scored = sentence_answer.Scored
    assert scored(sentence, lexical=0.22, dense=0.66, absent=0.1).answers
    assert not scored(sentence, lexical=0.22, dense=0.55, absent=0.1).answers
    assert scored(sentence, lexical=0.36, dense=0.55, absent=0.1).answers
    assert not scored(sentence, lexical=0.22, dense=0.7, absent=0.3).answers
    assert not scored(sentence, lexical=0.22, dense=None, absent=0.0).answers
