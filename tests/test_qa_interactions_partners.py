"""Interactions and their partners: the book's sub-heading ("Chống chỉ định phối hợp:") said in the answer, a
drug outside the formulary recognised because the named drug's own Tương tác thuốc prints it, "đang dùng X thì uống Y ..." read
as an interaction, and "còn với ... thì sao?" after an interaction question asking about another partner.

Unit tests use scripted chunks and frames; the integration tests ask the real sample book.
"""

from __future__ import annotations

import uuid

import pytest

from duocthu_desktop.artifacts import Chunk, Monograph
from duocthu_desktop.messages import NOT_SAFE
from duocthu_desktop.qa.answers.interaction_answer import answer_interaction
from duocthu_desktop.qa.conversation.memory import Remembered, is_follow_up, merge
from duocthu_desktop.qa.understanding.catalog import Catalog
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.qa.understanding.question import understand
from duocthu_desktop.qa.verification.grounding import verify
from duocthu_desktop.retrieval.types import SectionResult


def _chunk(drug: str, key: str, text: str, part: int = 0, quarantined: bool = False) -> Chunk:
    return Chunk(
        chunk_id=f"{drug}:{key}:{part}", drug_id=drug, section_key=key, part_index=part, text=text,
        printed_pages=[100], physical_pages=[10], quarantined=quarantined,
    )


def _mono(drug_id: str, title: str) -> Monograph:
    return Monograph(drug_id=drug_id, title=title, start_physical=1, end_physical=2, start_printed=1, end_printed=2)


def _claims(payload) -> str:
    return "\n".join(c.text for b in payload.blocks for c in b.claims)


# ---- the sub-heading said in the message ------------------------------------------------------------------------

_LABELLED = (
    "Các thuốc tương tác rất nhiều.\n\nThận trọng khi phối hợp:\n\nZetamid: Tăng nồng độ trong máu.\n\n"
    "Betaxol: Giảm hấp thu."
)


def test_the_heading_a_partner_sits_under_is_said_in_the_message() -> None:
    chunk = _chunk("alphadrin", "tuong_tac_thuoc", _LABELLED)
    section = SectionResult(drug_id="alphadrin", section_key="tuong_tac_thuoc", chunks=[chunk])
    answer = answer_interaction(
        QueryFrame(turn_type="interaction"), {"alphadrin": section},
        {"alphadrin": ["Alphadrin"], "zetamid": ["zetamid"]},
    )
    assert answer.decision == "answerable"
    assert "Zetamid: Tăng nồng độ trong máu." in _claims(answer)
    assert '"Thận trọng khi phối hợp"' in answer.message
    assert "zetamid" in answer.message and "Alphadrin" in answer.message
    assert verify(answer.blocks, answer.citations, {chunk.chunk_id: chunk.text}) == []


def test_no_heading_in_the_book_means_no_heading_in_the_message() -> None:
    chunk = _chunk("alphadrin", "tuong_tac_thuoc", "Zetamid làm tăng nồng độ alphadrin trong máu.")
    section = SectionResult(drug_id="alphadrin", section_key="tuong_tac_thuoc", chunks=[chunk])
    answer = answer_interaction(
        QueryFrame(turn_type="interaction"), {"alphadrin": section},
        {"alphadrin": ["Alphadrin"], "zetamid": ["zetamid"]},
    )
    assert answer.decision == "answerable"
    assert answer.message == ""


# ---- a word the named drug's own sections print is a drug ------------------------------------------------------


@pytest.fixture()
def small_catalog() -> Catalog:
    monos = [_mono("alphadrin", "ALPHADRIN"), _mono("betaxol", "BETAXOL")]
    chunks = [
        _chunk("alphadrin", "tuong_tac_thuoc", "Muối zorbi: làm tăng nồng độ zorbi trong máu."),
        _chunk("betaxol", "chong_chi_dinh", "Người bệnh đang dùng quelk."),
    ]
    return Catalog(monos, chunks)


def test_an_unknown_word_printed_in_the_named_drugs_interactions_is_a_drug(small_catalog: Catalog) -> None:
    assert small_catalog.resolve("Đang dùng alphadrin thì uống zorbi có sao không").unknown == ["zorbi"]


def test_the_same_word_without_the_drug_that_prints_it_is_not(small_catalog: Catalog) -> None:
    assert small_catalog.resolve("Đang dùng betaxol thì uống zorbi có sao không").unknown == []
    assert small_catalog.resolve("uống zorbi có sao không").unknown == []


def test_contraindications_are_evidence_too_and_vietnamese_words_never(small_catalog: Catalog) -> None:
    assert small_catalog.resolve("betaxol với quelk").unknown == ["quelk"]
    # "dung", "muoi", "trong" are Vietnamese syllables the sections also print: never drugs
    assert small_catalog.resolve("alphadrin dung muoi trong").unknown == []


def test_a_word_named_with_a_body_fluid_is_a_lab_value(small_catalog: Catalog) -> None:
    assert small_catalog.resolve("Alphadrin làm tăng zorbi máu không?").unknown == []
    assert small_catalog.resolve("alphadrin lam tang zorbi huyet khong").unknown == []


# ---- understanding (real book) --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "Đang dùng furosemid thì uống lithi có ảnh hưởng gì không?",
        "Dang dung furosemid thi uong lithi co sao khong",
        "Đang dùng furosemid thì có dùng được lithi không?",
    ],
)
def test_on_a_drug_then_taking_another_is_an_interaction(catalog, question: str) -> None:
    frame = understand(question, catalog)
    assert frame.turn_type == "interaction"
    assert frame.drug_ids == ["furosemid"]
    assert [u.lower() for u in frame.unknown_drugs] == ["lithi"]


def test_can_use_with_one_drug_still_reads_its_contraindications(catalog) -> None:
    frame = understand("Furosemid có dùng được cho người bị gút không?", catalog)
    assert frame.turn_type != "interaction"


@pytest.mark.parametrize(
    ("question", "partner"),
    [("còn với thuốc có sắt thì sao?", "sắt"), ("Còn sắt thì sao?", "sắt"),
     ("Vậy còn với các chế phẩm chứa kẽm?", "kẽm")],
)
def test_a_follow_up_names_its_partner(catalog, question: str, partner: str) -> None:
    assert understand(question, catalog).drug_classes == [partner]


@pytest.mark.parametrize("question", ["Còn trẻ em thì sao?", "còn cách nào khác không?", "còn suy thận thì sao?"])
def test_a_follow_up_about_the_patient_or_nothing_names_no_partner(catalog, question: str) -> None:
    assert understand(question, catalog).drug_classes == []


# ---- memory -------------------------------------------------------------------------------------------------


def _prior(decision: str = "answerable", reason: str | None = None, turn: str = "interaction") -> Remembered:
    frame = QueryFrame(
        question="Ciprofloxacin có tương tác với theophylin không?", turn_type=turn, drug_ids=["ciprofloxacin"],
        drug_mentions={"ciprofloxacin": "Ciprofloxacin"}, unknown_drugs=["theophylin"],
        section_key="tuong_tac_thuoc" if turn == "interaction" else "lieu_luong_cach_dung",
    )
    return Remembered(frame, decision, reason, 0, 1)


def test_another_partner_keeps_the_drug_and_replaces_the_partner() -> None:
    new = QueryFrame(question="còn với thuốc có sắt thì sao?", drug_classes=["sắt"])
    prior = _prior()
    assert is_follow_up(new, prior)
    merged = merge(prior.frame, new)
    assert merged.turn_type == "interaction"
    assert merged.drug_ids == ["ciprofloxacin"]
    assert merged.unknown_drugs == [] and merged.drug_classes == ["sắt"]
    assert "theophylin" not in merged.question and "Ciprofloxacin" in merged.question


def test_another_formulary_drug_is_a_partner_not_a_replacement() -> None:
    new = QueryFrame(question="còn với aspirin thì sao?", drug_ids=["acid_acetylsalicylic"],
                     drug_mentions={"acid_acetylsalicylic": "aspirin"})
    merged = merge(_prior().frame, new)
    assert merged.drug_ids == ["ciprofloxacin", "acid_acetylsalicylic"]
    assert merged.turn_type == "interaction"


def test_not_found_for_one_pair_may_be_followed_by_another_pair() -> None:
    new = QueryFrame(question="còn sắt thì sao?", drug_classes=["sắt"])
    assert is_follow_up(new, _prior("abstain", "no_interaction_evidence"))
    assert not is_follow_up(new, _prior("abstain", "out_of_scope"))
    assert not is_follow_up(new, _prior(turn="dosing"))


# ---- the real book ----------------------------------------------------------------------------------------------


def _ask(assistant, *turns: str):
    conversation = f"partners-{uuid.uuid4()}"
    return [assistant.ask(t, conversation) for t in turns]


@pytest.mark.parametrize(
    ("question", "partner"),
    [("Bệnh nhân dùng warfarin có uống tamoxifen được không?", "Tamoxifen"),
     ("Warfarin dùng chung với thuốc chống viêm không steroid được không?", "pyrazol")],
)
def test_warfarin_answers_say_the_books_heading(assistant, question: str, partner: str) -> None:
    (payload,) = _ask(assistant, question)
    assert payload.decision == "answerable"
    assert partner in _claims(payload)
    assert '"Chống chỉ định phối hợp"' in payload.message
    assert ("warfarin", "tuong_tac_thuoc") in {(c.drug_id, c.section_key) for c in payload.citations}


def test_a_drug_already_taken_and_a_may_i_with_a_dose_word_stays_an_interaction(assistant) -> None:
    """The book's "Chống chỉ định phối hợp" comes back, not "người lớn hay trẻ em?" and both drugs' doses."""
    (payload,) = _ask(assistant, "Bệnh nhân đang dùng warfarin có uống aspirin liều cao giảm đau được không?")
    assert payload.decision == "answerable"
    assert '"Chống chỉ định phối hợp"' in payload.message
    assert {c.section_key for c in payload.citations} <= {"tuong_tac_thuoc", "chong_chi_dinh", "than_trong"}
    assert "300 - 900 mg" not in _claims(payload)


def test_furosemid_then_lithi_quotes_furosemids_interactions(assistant) -> None:
    (payload,) = _ask(assistant, "Đang dùng furosemid thì uống lithi có ảnh hưởng gì không?")
    assert payload.decision == "answerable"
    assert "Muối lithi" in _claims(payload)
    assert ("furosemid", "tuong_tac_thuoc") in {(c.drug_id, c.section_key) for c in payload.citations}


def test_a_drug_the_book_does_not_name_is_not_found_never_safe(assistant) -> None:
    (payload,) = _ask(assistant, "Đang dùng furosemid thì uống omeprazol có ảnh hưởng gì không?")
    assert payload.decision == "abstain"
    assert payload.reason == "no_interaction_evidence"
    assert NOT_SAFE in payload.message


def test_iron_after_theophylline_asks_ciprofloxacin_about_iron(assistant) -> None:
    first, second = _ask(assistant, "Ciprofloxacin có tương tác với theophylin không?", "còn với thuốc có sắt thì sao?")
    assert first.decision == "answerable" and "theophylin" in _claims(first)
    assert second.decision == "answerable"
    assert "chế phẩm có sắt" in _claims(second)
    assert ("ciprofloxacin", "tuong_tac_thuoc") in {(c.drug_id, c.section_key) for c in second.citations}
    assert all("theophylin" not in b.title for b in second.blocks)


@pytest.mark.parametrize(
    "question",
    [
        "Uống warfarin với aspirin thì liều thế nào?",
        "Bệnh nhân 70 tuổi suy thận, dùng warfarin với aspirin liều bao nhiêu?",
        "Liều warfarin khi dùng cùng aspirin?",
        "Warfarin dùng chung aspirin liều cao được không?",
        "Đang uống warfarin, thêm aspirin thì dùng liều bao nhiêu?",
    ],
)
def test_an_interaction_asked_with_dose_words_stays_an_interaction(catalog, question: str) -> None:
    frame = understand(question, catalog)
    assert frame.turn_type == "interaction"
    assert set(frame.drug_ids) == {"warfarin", "acid_acetylsalicylic"}


@pytest.mark.parametrize("question", ["Liều paracetamol và amoxicilin cho người lớn?",
                                      "Liều paracetamol, amoxicilin cho trẻ 20 kg?"])
def test_two_doses_asked_side_by_side_are_no_interaction(catalog, question: str) -> None:
    assert understand(question, catalog).turn_type == "dosing"


def test_a_partner_is_found_under_its_other_name_its_book_spelling_and_a_wording_with_words_inside() -> None:
    """"noradrenalin" is printed "norepinephrin"; "lithium" is printed "lithi"; a class wording the book prints with
    words inside it ("thuốc chống viêm giảm đau không steroid") is the class, but a negation inside is not."""
    from duocthu_desktop.qa.answers import drug_classes

    text = ("Không dùng thuốc A ở bệnh nhân đang dùng thuốc co mạch như dopamin, norepinephrin. "
            "Thuốc A làm tăng nồng độ lithi lên 12 - 67%. Các thuốc chống viêm giảm đau không steroid làm tăng nguy "
            "cơ chảy máu.")
    for partner, found in (("noradrenalin", "norepinephrin"), ("lithium", "lithi"), ("ibuprofen", "không steroid")):
        wordings = drug_classes.unknown_drug_wordings(partner, (text,))
        sentence = next(s for s in text.split(". ") if found in s)
        assert any(drug_classes.mentions(sentence, w) for w in wordings), partner
    assert not drug_classes.mentions("thuốc không chống đông máu", "thuốc chống đông máu")
    assert not drug_classes.mentions("thuốc chống viêm có steroid", "thuốc chống viêm không steroid")
