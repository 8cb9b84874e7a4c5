"""Condition -> drugs: every monograph whose Chỉ định names the condition, under the book's wording of it.

The person's words are not the book's: lay names ("tiểu đường" for "đái tháo đường"), a tract word the book adds
("nhiễm khuẩn đường tiết niệu"), a head word the book shares over hyphen-joined organs ("viêm não - màng não"),
and diacritics that change the word ("bệnh than" is anthrax, "bệnh thận" kidney disease). Expectations for the
sample book were read from its Chỉ định sections (sample PDF, /work/shared/corpus/source/*.md).
"""

from __future__ import annotations

import re

import pytest

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.qa.answers.condition_answer import answer_condition
from duocthu_desktop.qa.decision_table import _is_ambiguous
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.qa.understanding.lexicon import condition_variants
from duocthu_desktop.qa.understanding.question import understand
from duocthu_desktop.retrieval.memory_store import InMemoryStore
from duocthu_desktop.retrieval.service import RetrievalService


def _chunk(drug: str, text: str) -> Chunk:
    return Chunk(chunk_id=f"{drug}__chi_dinh__0", drug_id=drug, section_key="chi_dinh", part_index=0, text=text,
                 printed_pages=[100], physical_pages=[10])


def _service(texts: dict[str, str]) -> RetrievalService:
    return RetrievalService(InMemoryStore([_chunk(d, t) for d, t in texts.items()]), [])


def _found(service: RetrievalService, condition: str) -> list[str]:
    return [h.drug_id for h in service.search_indication(condition)]


# ---- the search, on scripted Chỉ định ----------------------------------------------------------------------------

_BOOK = {
    "thuoc_a": "Bệnh than.\nNhiễm khuẩn đường tiết niệu không biến chứng.",
    "thuoc_b": "Bệnh thận do đái tháo đường.",
    "thuoc_c": "Nhiễm virus Herpes simplex ở niêm mạc - da (viêm miệng - lợi), viêm não - màng não.",
    "thuoc_d": "Áp xe não, viêm màng não, nhiễm khuẩn huyết.",
    "thuoc_e": "Điều trị bệnh đái tháo đường typ 2.",
    "thuoc_f": "Nhiễm Mycobacteria không do lao.",
    "thuoc_g": "Giảm các cơn đau nhẹ và vừa.",
    "thuoc_h": "Thủy đậu nặng ở trẻ dưới 1 tuổi.",
}


def test_a_condition_typed_with_diacritics_keeps_them() -> None:
    service = _service(_BOOK)
    assert _found(service, "bệnh than") == ["thuoc_a"]
    assert _found(service, "bệnh thận") == ["thuoc_b"]
    # typed without any diacritic, both words are what the person may mean
    assert _found(service, "benh than") == ["thuoc_a", "thuoc_b"]
    # where the tone mark sits is a spelling habit, not another word; a missing one is another word
    assert _found(service, "thuỷ đậu") == ["thuoc_h"]
    assert _found(service, "thuy đậu") == []
    assert _found(service, "viêm miệng") == ["thuoc_c"]


def test_the_books_tract_and_classifier_words_may_stand_inside_the_condition() -> None:
    service = _service(_BOOK)
    assert _found(service, "nhiễm khuẩn tiết niệu") == ["thuoc_a"]
    assert _found(service, "giảm đau") == ["thuoc_g"]
    hit = service.search_indication("nhiễm khuẩn tiết niệu")[0]
    assert hit.matched == "Nhiễm khuẩn đường tiết niệu"


def test_a_head_word_shared_over_hyphen_joined_organs() -> None:
    service = _service(_BOOK)
    assert _found(service, "viêm màng não") == ["thuoc_c", "thuoc_d"]
    assert _found(service, "viêm lợi") == ["thuoc_c"]
    # any other word between changes the condition: meningitis is not encephalitis
    assert _found(service, "viêm não") == ["thuoc_c"]
    # and a negation never stands inside it
    assert _found(service, "nhiễm lao") == []


@pytest.mark.parametrize("said", ["tiểu đường typ 2", "tieu duong type 2", "đái tháo đường tuýp 2"])
def test_lay_names_find_the_books_name(said: str) -> None:
    assert _found(_service(_BOOK), said) == ["thuoc_e"]


def test_the_head_word_benh_is_optional_before_a_longer_condition() -> None:
    service = _service(_BOOK)
    # "Bệnh thận do đái tháo đường" names the disease without "bệnh" before it
    assert _found(service, "bệnh đái tháo đường") == ["thuoc_b", "thuoc_e"]
    assert _found(service, "bệnh tiểu đường") == ["thuoc_b", "thuoc_e"]
    assert condition_variants("bệnh lậu") == ["bệnh lậu"]  # one word left would be too broad


def test_variants_keep_the_persons_typing() -> None:
    assert condition_variants("tiểu đường")[:2] == ["tiểu đường", "đái tháo đường"]
    assert "dai thao duong" in condition_variants("tieu duong")
    assert "nhiễm khuẩn tiết niệu" in condition_variants("nhiễm trùng đường tiểu")
    assert condition_variants("bệnh than") == ["bệnh than"]


def test_the_list_says_what_the_book_calls_it() -> None:
    service = _service(_BOOK)
    frame = QueryFrame(turn_type="condition_to_drug", condition="tiểu đường typ 2")
    answer = answer_condition(frame, service.search_indication("tiểu đường typ 2"), {})
    assert answer.decision == "answerable"
    assert "1 thuốc" in answer.message and "“đái tháo đường typ 2”" in answer.message
    plain = answer_condition(QueryFrame(turn_type="condition_to_drug", condition="bệnh than"),
                             service.search_indication("bệnh than"), {})
    assert "sách ghi" not in plain.message


def test_anthrax_is_not_kidney_disease_to_the_router() -> None:
    assert not _is_ambiguous("bệnh than")
    assert _is_ambiguous("bệnh thận") and _is_ambiguous("benh than") and _is_ambiguous("Đau")


# ---- the understanding ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "condition"),
    [
        ("Những thuốc nào được chỉ định để giảm đau?", "giảm đau"),
        ("Những thuốc nào có chỉ định liên quan đến nhồi máu cơ tim?", "nhồi máu cơ tim"),
        ("Những thuốc nào dùng điều trị bệnh than?", "bệnh than"),
    ],
)
def test_the_condition_is_the_words_after_the_question_words(catalog, question: str, condition: str) -> None:
    frame = understand(question, catalog)
    assert (frame.turn_type, frame.condition) == ("condition_to_drug", condition)


# ---- the sample book, end to end --------------------------------------------------------------------------------

# Drugs whose Chỉ định in the sample book names each condition (read from the book, not from the answers).
_SAMPLE = [
    ("Những thuốc nào được chỉ định để giảm đau?", {"acid_acetylsalicylic", "paracetamol"}),
    ("Những thuốc nào có chỉ định liên quan đến nhồi máu cơ tim?",
     {"acid_acetylsalicylic", "captopril", "clopidogrel", "warfarin"}),
    ("Thuốc nào được chỉ định cho viêm màng não?", {"aciclovir", "ciprofloxacin", "gentamicin", "vancomycin"}),
    ("Những thuốc nào dùng điều trị bệnh than?", {"amoxicilin", "ciprofloxacin", "vancomycin"}),
    ("Nhiễm khuẩn tiết niệu dùng thuốc gì?", {"amoxicilin", "ciprofloxacin", "gentamicin"}),
    ("thuốc chữa tiểu đường typ 2", {"acarbose", "metformin"}),
]


@pytest.mark.parametrize(("question", "drugs"), _SAMPLE)
def test_every_drug_of_the_book_is_listed_alphabetically_with_a_count(assistant, question: str, drugs: set) -> None:
    payload = assistant.ask(question, f"cond-{abs(hash(question))}")
    assert (payload.decision, payload.reason) == ("answerable", None)
    cited = [c.drug_id for c in payload.citations]
    assert set(cited) == drugs
    assert {c.section_key for c in payload.citations} == {"chi_dinh"}
    order = list(dict.fromkeys(cited))
    assert order == sorted(order)
    count = re.search(r"Dược thư có (\d+) thuốc", payload.message)
    assert count and int(count.group(1)) == len(drugs)


def test_a_contraindication_list_meets_the_condition_as_the_books_items_word_it():
    """"suy gan nặng" is in "Suy gan vừa và nặng" (issue 17: a list matched word for word missed it)."""
    from duocthu_desktop.artifacts import Chunk
    from duocthu_desktop.qa.answers.condition_answer import answer_contraindicated
    from duocthu_desktop.qa.understanding.frame import QueryFrame
    from duocthu_desktop.retrieval.types import SectionResult

    def section(drug: str, text: str) -> SectionResult:
        chunk = Chunk(chunk_id=f"{drug}__chong_chi_dinh__0", drug_id=drug, section_key="chong_chi_dinh",
                      part_index=0, text=text, printed_pages=[1], physical_pages=[1])
        return SectionResult(drug_id=drug, section_key="chong_chi_dinh", chunks=[chunk])

    sections = {"thuoc_a": section("thuoc_a", "Mẫn cảm với thuốc. Suy gan vừa và nặng."),
                "thuoc_b": section("thuoc_b", "Mẫn cảm với thuốc. Suy thận nặng.")}
    frame = QueryFrame(question="Thuốc nào chống chỉ định cho người suy gan nặng?", turn_type="contraindicated_in",
                       condition="suy gan nặng")
    answer = answer_contraindicated(frame, sections, {"thuoc_a": "Thuốc A", "thuoc_b": "Thuốc B"})
    assert [c.drug_id for c in answer.citations] == ["thuoc_a"]


def test_a_contraindication_list_by_clearance_compares_the_books_thresholds_as_numbers():
    """"Clcr dưới 30" holds the patient of "Clcr < 60 ml/phút" and of an emphasised "đặc biệt ... dưới 30
    ml/phút"; a Clcr of 70 is under neither."""
    from duocthu_desktop.artifacts import Chunk
    from duocthu_desktop.qa.answers.condition_answer import answer_contraindicated
    from duocthu_desktop.qa.understanding.frame import QueryFrame
    from duocthu_desktop.retrieval.types import SectionResult

    def section(drug: str, text: str) -> SectionResult:
        chunk = Chunk(chunk_id=f"{drug}__chong_chi_dinh__0", drug_id=drug, section_key="chong_chi_dinh",
                      part_index=0, text=text, printed_pages=[1], physical_pages=[1])
        return SectionResult(drug_id=drug, section_key="chong_chi_dinh", chunks=[chunk])

    sections = {"thuoc_a": section("thuoc_a", "Mẫn cảm với thuốc. Suy thận hoặc Clcr < 60 ml/phút."),
                "thuoc_b": section("thuoc_b", "Suy gan, suy thận, đặc biệt người có tốc độ lọc cầu thận dưới "
                                              "30 ml/phút."),
                "thuoc_d": section("thuoc_d", "Mẫn cảm với thuốc.")}
    titles = {d: d for d in sections}
    below_30 = QueryFrame(question="thuốc nào chống chỉ định khi Clcr dưới 30", turn_type="contraindicated_in",
                          condition="clcr dưới 30", clcr=30.0, renal_impairment=True)
    answer = answer_contraindicated(below_30, sections, titles)
    assert sorted({c.drug_id for c in answer.citations}) == ["thuoc_a", "thuoc_b"]
    at_70 = QueryFrame(question="thuốc nào chống chỉ định khi Clcr 70 ml/phút", turn_type="contraindicated_in",
                       condition="clcr 70 ml/phút", clcr=70.0)
    assert answer_contraindicated(at_70, sections, titles).decision == "abstain"
