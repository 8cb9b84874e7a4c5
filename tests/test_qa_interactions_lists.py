"""Interactions read from both drugs' Chống chỉ định, Tương tác thuốc and Thận trọng under every wording of the
partner (book names, "Loại thuốc" classes, the class lexicon), with the book's sub-headings as labels; lists of
drugs complete, alphabetical, never ranked; "which drugs are contraindicated in X" from Chống chỉ định only."""

from __future__ import annotations

import uuid

import pytest
from pydantic import ConfigDict

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.messages import DISCLAIMER, NOT_SAFE
from duocthu_desktop.qa.answers import drug_classes
from duocthu_desktop.qa.answers.condition_answer import NOT_RANKED, answer_condition, answer_contraindicated
from duocthu_desktop.qa.answers.interaction_answer import _statements, answer_interaction
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.qa.understanding.question import understand
from duocthu_desktop.qa.verification.grounding import verify
from duocthu_desktop.retrieval.memory_store import InMemoryStore
from duocthu_desktop.retrieval.service import RetrievalService
from duocthu_desktop.retrieval.types import IndicationHit, SectionResult


class _Frame(QueryFrame):
    """A frame that may carry the fields being added by the understanding work (`ranking`, new turn types)."""

    model_config = ConfigDict(extra="allow")


def _frame(**fields) -> QueryFrame:
    turn = fields.pop("turn_type", "unknown")
    frame = _Frame(**fields)
    object.__setattr__(frame, "turn_type", turn)  # "contraindicated_in" may not be a TurnType yet
    return frame


def _chunk(drug: str, key: str, text: str, part: int = 0, quarantined: bool = False) -> Chunk:
    return Chunk(
        chunk_id=f"{drug}:{key}:{part}", drug_id=drug, section_key=key, part_index=part, text=text,
        printed_pages=[100], physical_pages=[10], quarantined=quarantined,
    )


def _claims(answer) -> str:
    return "\n".join(c.text for b in answer.blocks for c in b.claims)


def _grounded(answer, chunks: list[Chunk]) -> None:
    assert verify(answer.blocks, answer.citations, {c.chunk_id: c.text for c in chunks}) == []


# ---- the class lexicon -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("words", ["thuốc chống toan", "thuốc kháng acid", "kháng acid", "antacid", "thuoc chong toan"])
def test_every_wording_of_antacids_is_one_class(words: str) -> None:
    assert [c.key for c in drug_classes.classes_in(f"ciprofloxacin với {words}")] == ["antacid"]


def test_the_narrower_class_typed_is_the_one_meant() -> None:
    assert [c.key for c in drug_classes.classes_in("gentamicin với thuốc lợi tiểu quai")] == ["loop_diuretic"]
    assert [c.key for c in drug_classes.with_parents(drug_classes.classes_in("lợi tiểu quai"))] == [
        "loop_diuretic", "diuretic"
    ]


def test_a_drug_class_line_and_a_drug_outside_the_formulary() -> None:
    keys = {c.key for c in drug_classes.classes_in("Thuốc chống đông máu loại kháng vitamin K")}
    assert keys == {"anticoagulant", "vitamin_k_antagonist"}
    wordings = drug_classes.unknown_drug_wordings("ibuprofen")
    assert wordings[0] == "ibuprofen" and "thuốc chống viêm không steroid" in wordings
    assert "kháng viêm không steroid" in wordings and "NSAID" in wordings


def test_diacritics_where_written_folded_where_not() -> None:
    assert drug_classes.mentions("Phụ nữ có thai.", "có thai")
    assert not drug_classes.mentions("Độ thanh thải creatinin giảm.", "có thai")
    assert not drug_classes.mentions("mức lọc thải", "thai kỳ")
    assert drug_classes.mentions("Dùng chung thuốc chống toan có nhôm", "thuoc chong toan")
    assert drug_classes.mentions("chống chỉ định phối\nhợp", "chống chỉ định phối hợp")


# ---- interaction statements and the book's sub-headings --------------------------------------------------------

_TT = (
    "Các thuốc tương tác rất nhiều. Cần kiểm tra INR sau mỗi lần thay đổi Chống chỉ định phối\nhợp:\n"
    "Thuốc A (liều cao): Tăng nguy cơ chảy máu.\n"
    "Thuốc chống viêm không steroid pyrazol: Tăng nguy cơ chảy máu.\n"
    "Tác dụng của thuốc X có thể tăng lên khi dùng với: thuốc B, salicylat.\n"
    "Giảm tác dụng:\n"
    "Thuốc C làm giảm tác dụng của thuốc X.\n"
    "Tránh phối hợp: Tránh dùng thuốc X với thuốc D."
)


def test_sub_headings_label_the_statements_under_them_and_no_further() -> None:
    labelled = {
        _TT_chunk().text[s.start : s.end]: s.label for s in _statements([_TT_chunk()], "tuong_tac_thuoc")
    }
    assert labelled["Thuốc A (liều cao): Tăng nguy cơ chảy máu."] == "Chống chỉ định phối hợp"
    assert labelled["Thuốc chống viêm không steroid pyrazol: Tăng nguy cơ chảy máu."] == "Chống chỉ định phối hợp"
    # a paragraph that opens with a heading of its own ends the reach of the one above
    assert labelled["Tác dụng của thuốc X có thể tăng lên khi dùng với: thuốc B, salicylat."] is None
    assert labelled["Thuốc C làm giảm tác dụng của thuốc X."] == "Giảm tác dụng"
    assert labelled["Tránh dùng thuốc X với thuốc D."] == "Tránh phối hợp"
    # the sentence the heading was glued to keeps its words, without the heading's
    first = next(k for k in labelled if k.startswith("Các thuốc"))
    assert labelled[first] is None and "Chống chỉ định" not in first


def _TT_chunk() -> Chunk:
    return _chunk("thuoc_x", "tuong_tac_thuoc", _TT)


def test_interaction_reads_three_sections_contraindications_first() -> None:
    chunks = [
        _TT_chunk(),
        _chunk("thuoc_x", "than_trong", "Thận trọng ở người cao tuổi. Không kết hợp với các thuốc kháng viêm không steroid."),
        _chunk("thuoc_x", "chong_chi_dinh", "Dị ứng với thuốc chống viêm không steroid khác. Suy gan nặng."),
    ]
    section = SectionResult(drug_id="thuoc_x", section_key="tuong_tac_thuoc", chunks=chunks)
    names = {"thuoc_x": ["Thuốc X"], "ibuprofen": drug_classes.unknown_drug_wordings("ibuprofen")}
    a = answer_interaction(QueryFrame(turn_type="interaction"), {"thuoc_x": section}, names)
    _grounded(a, chunks)
    assert a.decision == "answerable"
    assert [c.section_key for c in a.citations] == ["chong_chi_dinh", "tuong_tac_thuoc", "than_trong"]
    titles = [b.title for b in a.blocks]
    assert titles[0] == "Thuốc X với ibuprofen — Chống chỉ định"
    assert titles[1] == "Thuốc X với ibuprofen — Tương tác thuốc — Chống chỉ định phối hợp"
    assert "Suy gan" not in _claims(a) and "cao tuổi" not in _claims(a)


def test_no_statement_found_is_never_safe() -> None:
    chunks = [_TT_chunk()]
    section = SectionResult(drug_id="thuoc_x", section_key="tuong_tac_thuoc", chunks=chunks)
    a = answer_interaction(QueryFrame(), {"thuoc_x": section}, {"thuoc_x": ["Thuốc X"], "loratadin": ["loratadin"]})
    assert (a.decision, a.reason, a.blocks) == ("abstain", "no_interaction_evidence", [])
    assert NOT_SAFE in a.message and "Chống chỉ định, Tương tác thuốc và Thận trọng" in a.message


# ---- lists --------------------------------------------------------------------------------------------------


def _indication_chunks(n: int) -> list[Chunk]:
    return [_chunk(f"thuoc_{chr(ord('a') + i)}", "chi_dinh", "Điều trị tăng huyết áp.") for i in range(n)]


def test_indication_search_is_never_cut_at_ten() -> None:
    chunks = _indication_chunks(14)
    service = RetrievalService(InMemoryStore(chunks), [])
    assert len(service.search_indication("tăng huyết áp")) == 14
    assert len(service.search_indication("tăng huyết áp", k=3)) == 3


def _hits(chunks: list[Chunk]) -> list[IndicationHit]:
    return [IndicationHit(drug_id=c.drug_id, chunk=c, matched="tăng huyết áp", method="lexical") for c in chunks]


def test_a_list_says_how_many_and_is_alphabetical() -> None:
    chunks = list(reversed(_indication_chunks(12)))
    a = answer_condition(QueryFrame(turn_type="condition_to_drug", condition="tăng huyết áp"), _hits(chunks), {})
    _grounded(a, chunks)
    drugs = [c.drug_id for c in a.citations]
    assert len(drugs) == 12 and drugs == sorted(drugs)
    assert a.message.startswith("Dược thư có 12 thuốc") and NOT_RANKED not in a.message


def test_a_ranking_question_gets_the_list_and_the_book_does_not_rank() -> None:
    chunks = _indication_chunks(3)
    frame = _frame(turn_type="condition_to_drug", condition="tăng huyết áp", ranking=True)
    a = answer_condition(frame, _hits(chunks), {})
    assert a.decision == "answerable" and a.message.startswith(NOT_RANKED) and len(a.blocks) == 3
    for word in ("tốt nhất", "ưu tiên", "lựa chọn đầu tay"):
        assert word not in (a.message + _claims(a)).lower()


_CCD = {
    "zeta": "Quá mẫn với thuốc. Phụ nữ mang thai.",
    "alpha": "Suy thận nặng (độ thanh thải creatinin dưới 30 ml/phút).\nNgười có thai hoặc cho con bú.",
    "beta": "Suy gan. Thai kỳ 3 tháng cuối.",
    "gamma": "Quá mẫn. Mức lọc thải giảm.",
}


def _ccd_sections(quarantine: str | None = None) -> dict[str, SectionResult]:
    return {
        d: SectionResult(drug_id=d, section_key="chong_chi_dinh",
                         chunks=[_chunk(d, "chong_chi_dinh", t, quarantined=d == quarantine)])
        for d, t in _CCD.items()
    }


def test_contraindicated_in_pregnancy_is_every_sentence_that_says_so() -> None:
    sections = _ccd_sections()
    frame = _frame(turn_type="contraindicated_in", pregnant=True)
    a = answer_contraindicated(frame, sections, {d: d.capitalize() for d in sections})
    _grounded(a, [c for s in sections.values() for c in s.chunks])
    assert [c.drug_id for c in a.citations] == ["alpha", "beta", "zeta"]
    assert _claims(a).split("\n") == ["Người có thai hoặc cho con bú.", "Thai kỳ 3 tháng cuối.", "Phụ nữ mang thai."]
    assert a.message.startswith("Dược thư có 3 thuốc") and all(b.kind == "warning" for b in a.blocks)


def test_contraindicated_in_a_condition_typed_without_diacritics() -> None:
    sections = _ccd_sections()
    frame = _frame(turn_type="contraindicated_in", condition="nguoi suy gan", question="thuoc nao chong chi dinh suy gan")
    a = answer_contraindicated(frame, sections, {})
    assert [c.drug_id for c in a.citations] == ["beta"]


def test_contraindicated_in_nothing_found_abstains_and_unreadable_goes_to_the_pdf() -> None:
    frame = _frame(turn_type="contraindicated_in", condition="hen suyễn")
    a = answer_contraindicated(frame, _ccd_sections(), {})
    assert (a.decision, a.reason, a.blocks) == ("abstain", "evidence_insufficient", [])
    b = answer_contraindicated(_frame(turn_type="contraindicated_in", pregnant=True), _ccd_sections("zeta"), {})
    assert b.decision == "verify_pdf" and {c.drug_id for c in b.citations} >= {"alpha", "beta", "zeta"}


# ---- the real sample book, end to end ------------------------------------------------------------------------


def _ask(assistant, question: str):
    payload = assistant.ask(question, conversation_id=f"test-{uuid.uuid4().hex}")
    assert payload.disclaimer == DISCLAIMER
    return payload


def _needs_interaction(assistant, question: str) -> None:
    if understand(question, assistant.catalog).turn_type != "interaction":
        pytest.xfail("understanding does not yet read this wording as an interaction")


@pytest.mark.integration
@pytest.mark.parametrize("question", ["Aspirin dùng chung với ibuprofen có tương tác không?", "aspirin và ibuprofen"])
def test_aspirin_and_ibuprofen_finds_what_aspirin_says_of_nsaids(assistant, question: str) -> None:
    _needs_interaction(assistant, question)
    p = _ask(assistant, question)
    assert p.decision == "answerable"
    text = _claims(p)
    assert "Không kết hợp aspirin với các thuốc kháng viêm không steroid" in text
    assert "chống viêm không steroid" in text
    assert {c.section_key for c in p.citations} >= {"than_trong", "chong_chi_dinh"}
    assert {c.drug_id for c in p.citations} == {"acid_acetylsalicylic"}


@pytest.mark.integration
def test_aspirin_and_anticoagulants(assistant) -> None:
    p = _ask(assistant, "Aspirin có tương tác với thuốc chống đông không?")
    assert p.decision == "answerable"
    text = _claims(p)
    assert "Cần thận trọng khi điều trị đồng thời với thuốc chống đông máu" in text
    assert "Tương tác của aspirin với warfarin làm tăng nguy cơ chảy máu" in text


@pytest.mark.integration
@pytest.mark.parametrize(
    "question",
    ["Ciprofloxacin dùng chung với thuốc kháng acid được không?", "ciprofloxacin và thuốc kháng acid",
     "Ciprofloxacin uống cùng thuốc chống toan được không?"],
)
def test_ciprofloxacin_and_antacids_worded_as_the_book_does(assistant, question: str) -> None:
    _needs_interaction(assistant, question)
    p = _ask(assistant, question)
    assert p.decision == "answerable"
    assert "Không nên uống ciprofloxacin cùng với các thuốc chống toan" in _claims(p)
    assert all("chống toan" in c.text for b in p.blocks for c in b.claims)


@pytest.mark.integration
def test_warfarin_and_aspirin_keep_the_books_sub_heading(assistant) -> None:
    p = _ask(assistant, "Warfarin dùng cùng aspirin có tương tác gì không?")
    assert p.decision == "answerable"
    labelled = [b for b in p.blocks if b.title.endswith("Chống chỉ định phối hợp")]
    assert labelled and labelled[0].title.startswith("Warfarin với")
    assert labelled[0].claims[0].text.startswith("Acid acetylsalicylic (aspirin liều cao)")
    # "Tác dụng của warfarin có thể tăng lên khi dùng với: ..." is a heading of its own, not a contraindication
    assert all("Tác dụng của warfarin" not in c.text for b in labelled for c in b.claims)
    assert {c.drug_id for c in p.citations} == {"warfarin", "acid_acetylsalicylic"}


@pytest.mark.integration
def test_no_interaction_in_the_three_sections_is_never_safe(assistant) -> None:
    p = _ask(assistant, "Abacavir và metformin có tương tác với nhau không?")
    assert (p.decision, p.reason) == ("abstain", "no_interaction_evidence") and NOT_SAFE in p.message


@pytest.mark.integration
def test_condition_list_counts_every_drug(assistant) -> None:
    p = _ask(assistant, "Thuốc nào được chỉ định điều trị tăng huyết áp?")
    drugs = list(dict.fromkeys(c.drug_id for c in p.citations))
    assert drugs == sorted(drugs) and {"amlodipin", "captopril", "furosemid"} <= set(drugs)
    assert p.message.startswith(f"Dược thư có {len(drugs)} thuốc")


@pytest.mark.integration
def test_contraindicated_in_pregnancy_over_every_monograph(assistant) -> None:
    frame = _frame(turn_type="contraindicated_in", pregnant=True, question="Thuốc nào chống chỉ định cho phụ nữ có thai?")
    evidence: dict[str, str] = {}
    p = assistant._finish(assistant._condition(frame, evidence), evidence)
    assert p.decision == "answerable"
    assert [c.drug_id for c in p.citations] == ["abacavir", "acarbose", "ciprofloxacin", "metformin", "warfarin"]
    assert {c.section_key for c in p.citations} == {"chong_chi_dinh"}
    assert all("thai" in c.text for b in p.blocks for c in b.claims)
    assert p.message.startswith("Dược thư có 5 thuốc")


@pytest.mark.integration
def test_contraindicated_in_pregnancy_asked_in_words(assistant) -> None:
    question = "Thuốc nào chống chỉ định cho phụ nữ có thai?"
    if understand(question, assistant.catalog).turn_type != "contraindicated_in":
        pytest.xfail("understanding does not yet read this as contraindicated_in")
    p = _ask(assistant, question)
    assert {c.drug_id for c in p.citations} == {"abacavir", "acarbose", "ciprofloxacin", "metformin", "warfarin"}
    assert "chi_dinh" not in {c.section_key for c in p.citations}


@pytest.mark.integration
def test_a_ranking_question_asked_in_words(assistant) -> None:
    question = "Thuốc nào tốt nhất cho tăng huyết áp?"
    if not getattr(understand(question, assistant.catalog), "ranking", False):
        pytest.xfail("understanding does not yet mark ranking questions")
    p = _ask(assistant, question)
    assert p.message.startswith(NOT_RANKED)
    assert {"amlodipin", "captopril", "furosemid"} <= {c.drug_id for c in p.citations}


@pytest.mark.parametrize(
    ("class_line", "printed"),
    [
        ("Thuốc mê", "thuốc mê"),  # source-e/ketamin.md
        ("An thần, giải lo âu, gây ngủ", "thuốc an thần"),  # source/diazepam.md
        ("Kháng sinh nhóm aminoglycosid", "aminoglycosid"),  # source/gentamicin.md
    ],
)
def test_a_formulary_drug_is_looked_for_under_the_class_its_own_class_line_prints(class_line: str,
                                                                                    printed: str) -> None:
    """Another monograph's Tương tác names the class ("thuốc mê như sucinylcholin", "thuốc an thần", "kháng sinh
    nhóm aminoglycosid"); the partner's "Loại thuốc" line is where the book says it belongs to it."""
    assert printed in drug_classes.drug_wordings(["Thuốc Y"], class_line)


def test_a_class_line_word_alone_is_no_class() -> None:
    """'Enzym' alone, or a class's words without 'thuốc' ("chống đông máu" is also an effect), name no partner."""
    wordings = drug_classes.drug_wordings(["Thuốc Y"], "Enzym")
    assert wordings == ["Thuốc Y"]
    assert "chống đông máu" not in drug_classes.printed_class_wordings("Chống đông máu")
    assert "thuốc chống đông máu" in drug_classes.printed_class_wordings("Chống đông máu")


def test_a_drug_outside_the_formulary_typed_one_letter_off_is_found_as_the_book_spells_it() -> None:
    """source-e/carbamazepin.md prints "clarithromycin", source-e/kanamycin.md "furosemid": the English "-e" typed
    is one letter off. A short name, and a word two letters off, are not taken for it."""
    carbamazepin = "kháng sinh macrolid (ví dụ erythromycin, clarithromycin), các kháng nấm nhóm azol"
    kanamycin = "Tránh dùng kết hợp kanamycin với các thuốc lợi niệu như furosemid vì có thể làm tăng độc tính với thận."
    assert drug_classes.book_spellings("clarithromycine", (carbamazepin,)) == ["clarithromycin"]
    assert drug_classes.book_spellings("furosemide", (kanamycin,)) == ["furosemid"]
    assert "furosemid" in drug_classes.unknown_drug_wordings("furosemide", (kanamycin,))
    assert drug_classes.book_spellings("erythromycine", (carbamazepin,)) == ["erythromycin"]
    assert drug_classes.book_spellings("azole", (carbamazepin,)) == []
    assert drug_classes.book_spellings("clarithromycinee", (carbamazepin,)) == []


@pytest.mark.integration
@pytest.mark.parametrize("question", ["Ciprofloxacin dùng chung tizanidine được không?",
                                      "ciprofloxacin dung chung tizanidine duoc khong"])
def test_an_outside_drug_spelled_the_english_way_finds_the_books_passage(assistant, question: str) -> None:
    """source/ciprofloxacin.md: "Uống ciprofloxacin đồng thời với theophylin, clozapin, ropinirol, tizanidin ..."."""
    _needs_interaction(assistant, question)
    p = _ask(assistant, question)
    assert p.decision == "answerable"
    assert "tizanidin có thể làm tăng nồng độ" in _claims(p)
    assert "tuong_tac_thuoc" in {c.section_key for c in p.citations}
