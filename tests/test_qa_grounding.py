"""grounding.verify: claims bound to the quotes they cite, numbers compared character for character and with
their units, block titles checked like claims, citation pages checked against where the quote sits."""

from __future__ import annotations

import pytest

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.payload import Block, Citation, Claim
from duocthu_desktop.qa.verification.grounding import (
    ChunkPages,
    number_in_evidence,
    numbers_in,
    split_at_markers,
    unit_after,
    verify,
)

EVIDENCE = {
    "paracetamol__lieu_luong_cach_dung__0": "Liều uống thường dùng là 0,5 - 1 g/lần, 4 - 6 giờ một lần; tối đa là 4 g/ngày.",
    "paracetamol__qua_lieu_xu_tri__0": "ví dụ, 7,5 - 10 g mỗi ngày. Hiếm gặp, ADR < 1/1 000. Tổng 1.500 mg.",
}


def _cit(index: int, chunk_id: str, quote: str) -> Citation:
    return Citation(
        index=index,
        chunk_id=chunk_id,
        drug_id="paracetamol",
        section_key=chunk_id.split("__")[1],
        printed_page=1120,
        physical_page=46,
        quote=quote,
    )


def _codes(blocks: list[Block], citations: list[Citation]) -> list[str]:
    return [f.code for f in verify(blocks, citations, EVIDENCE)]


DOSE = _cit(1, "paracetamol__lieu_luong_cach_dung__0", "0,5 - 1 g/lần")
OVERDOSE = _cit(2, "paracetamol__qua_lieu_xu_tri__0", "7,5 - 10 g mỗi ngày")
DOSE_AND_MAX = _cit(1, "paracetamol__lieu_luong_cach_dung__0", "0,5 - 1 g/lần, 4 - 6 giờ một lần; tối đa là 4 g/ngày")
TOTAL = _cit(2, "paracetamol__qua_lieu_xu_tri__0", "Tổng 1.500 mg")


def test_numbers_are_tokenized_as_printed() -> None:
    assert numbers_in("0,5 - 1 g/lần; 1.500 mg; ADR < 1/1 000; 60 mg/ kg/24 giờ; 2 500 mg") == [
        "0,5",
        "1",
        "1.500",
        "1/1 000",
        "60",
        "24",
        "2 500",
    ]


@pytest.mark.parametrize(
    ("number", "evidence", "found"),
    [
        ("7,5", "liều 75 mg", False),
        ("75", "liều 7,5 mg", False),
        ("1.500", "liều 1,5 g", False),
        ("1,5", "liều 1.500 mg", False),
        ("7.5", "liều 7,5 mg", False),
        ("7,5", "liều 7,5 mg", True),
        ("5", "liều 2,5 mg", False),
        ("1/1 000", "ADR < 1/1 000", True),
        ("1/1 000", "ADR < 1/100", False),
    ],
)
def test_numbers_compared_character_for_character(number: str, evidence: str, found: bool) -> None:
    assert number_in_evidence(number, evidence) is found


def test_grounded_claim_passes() -> None:
    blocks = [
        Block(
            title="Liều",
            kind="dosage",
            claims=[Claim(text="Uống 0,5 - 1 g/lần; tối đa 4 g/ngày.", citations=[1])],
        )
    ]
    assert _codes(blocks, [DOSE_AND_MAX]) == []


@pytest.mark.parametrize("wrong", ["7.5 - 10 g", "75 - 10 g", "7,5 - 100 g"])
def test_changed_number_is_ungrounded(wrong: str) -> None:
    blocks = [Block(title="Quá liều", claims=[Claim(text=f"Uống lặp lại {wrong} mỗi ngày.", citations=[2])])]
    assert "ungrounded_number" in _codes(blocks, [DOSE, OVERDOSE])


def test_1500_versus_1_5() -> None:
    good = [Block(title="t", claims=[Claim(text="Tổng 1.500 mg.", citations=[2])])]
    bad = [Block(title="t", claims=[Claim(text="Tổng 1,5 mg.", citations=[2])])]
    assert _codes(good, [TOTAL]) == []
    assert _codes(bad, [TOTAL]) == ["ungrounded_number"]


def test_claim_without_citation_is_uncited() -> None:
    blocks = [Block(title="t", claims=[Claim(text="Paracetamol an toàn.", citations=[])])]
    assert _codes(blocks, []) == ["uncited_claim"]


def test_pieces_bound_only_to_the_evidence_they_cite() -> None:
    right = Claim(text="Liều 0,5 - 1 g/lần [1]; quá liều 7,5 - 10 g [2].", citations=[])
    swapped = Claim(text="Liều 0,5 - 1 g/lần [2]; quá liều 7,5 - 10 g [1].", citations=[])
    assert _codes([Block(title="t", claims=[right])], [DOSE, OVERDOSE]) == []
    assert "ungrounded_number" in _codes([Block(title="t", claims=[swapped])], [DOSE, OVERDOSE])


def test_text_after_last_marker_without_default_citation_is_uncited() -> None:
    claim = Claim(text="Liều 0,5 - 1 g/lần [1]. Ngoài ra an toàn ở mọi liều.", citations=[])
    assert _codes([Block(title="t", claims=[claim])], [DOSE]) == ["uncited_claim"]


def test_split_at_markers() -> None:
    assert split_at_markers("A 5 mg [1] B [2, 3]", []) == [("A 5 mg ", [1]), (" B ", [2, 3])]
    assert split_at_markers("no markers", [4]) == [("no markers", [4])]


def test_invalid_citations() -> None:
    claim = [Block(title="t", claims=[Claim(text="0,5 - 1 g/lần", citations=[9])])]
    assert _codes(claim, [DOSE]) == ["invalid_citation"]  # [9] does not exist
    stranger = _cit(1, "warfarin__tuong_tac_thuoc__0", "chảy máu")
    ok_claim = [Block(title="t", claims=[Claim(text="chảy máu", citations=[1])])]
    assert "invalid_citation" in _codes(ok_claim, [stranger])  # chunk not in the evidence
    misquote = _cit(1, "paracetamol__lieu_luong_cach_dung__0", "tối đa là 10 g/ngày")
    assert "invalid_citation" in _codes(ok_claim, [misquote])  # quote not in that chunk


def test_quote_whitespace_is_normalised() -> None:
    spaced = _cit(1, "paracetamol__lieu_luong_cach_dung__0", "0,5 -  1 g/lần,\n4 - 6 giờ")
    blocks = [Block(title="t", claims=[Claim(text="0,5 - 1 g/lần", citations=[1])])]
    assert _codes(blocks, [spaced]) == []


# ---- (a) numbers bound to the quote, not to the chunk ---------------------------------------------------------


def test_number_in_the_chunk_but_not_in_its_quote_is_ungrounded() -> None:
    claim = [Block(title="Liều", claims=[Claim(text="Tối đa là 4 g/ngày.", citations=[1])])]
    assert "4" in EVIDENCE["paracetamol__lieu_luong_cach_dung__0"]  # the chunk prints it ...
    assert _codes(claim, [DOSE]) == ["ungrounded_number"]  # ... the cited quote "0,5 - 1 g/lần" does not
    assert _codes(claim, [DOSE_AND_MAX]) == []


def test_each_piece_is_bound_to_the_quote_it_cites_not_to_a_sibling_quote_of_the_same_chunk() -> None:
    first = _cit(1, "paracetamol__lieu_luong_cach_dung__0", "Liều uống thường dùng là 0,5 - 1 g/lần")
    second = _cit(2, "paracetamol__lieu_luong_cach_dung__0", "tối đa là 4 g/ngày")
    right = Claim(text="0,5 - 1 g/lần [1]; tối đa 4 g/ngày [2].", citations=[])
    wrong = Claim(text="0,5 - 1 g/lần [2]; tối đa 4 g/ngày [1].", citations=[])
    assert _codes([Block(title="t", claims=[right])], [first, second]) == []
    assert set(_codes([Block(title="t", claims=[wrong])], [first, second])) == {"ungrounded_number"}


# ---- (b) numbers with their units -------------------------------------------------------------------------------

UNITS_CHUNK = "digoxin__lieu_luong_cach_dung__0"
UNITS_TEXT = (
    "Liều nạp 10 microgam/kg; duy trì 250 microgam/ngày. Truyền 500 ml trong 1 giờ. "
    "Trẻ em 15 mg/kg/ngày, tối đa 1 g/ngày. Người lớn 5 mg mỗi ngày, tối đa 2,5 lít."
)


def _unit_codes(claim_text: str) -> list[str]:
    cit = Citation(index=1, chunk_id=UNITS_CHUNK, drug_id="digoxin", section_key="lieu_luong_cach_dung",
                   printed_page=500, physical_page=20, quote=UNITS_TEXT)
    blocks = [Block(title="Liều", claims=[Claim(text=claim_text, citations=[1])])]
    return [f.code for f in verify(blocks, [cit], {UNITS_CHUNK: UNITS_TEXT})]


@pytest.mark.parametrize(
    "claim",
    [
        "duy trì 250 microgam/ngày",
        "duy trì 250 mcg/ngày",  # another spelling of the same unit
        "duy trì 250 µg/ngày",
        "Liều nạp 10 microgam/kg",
        "Trẻ em 15 mg/kg/ngày, tối đa 1 g/ngày",
        "Truyền 500 ml trong 1 giờ",
        "Người lớn 5 mg mỗi ngày",
        "tối đa 2,5 lít",
        "tối đa 2,5 l",
        "Liều 250",  # a bare number binds to the number alone
    ],
)
def test_number_with_the_quotes_unit_passes(claim: str) -> None:
    assert _unit_codes(claim) == []


@pytest.mark.parametrize(
    "claim",
    [
        "duy trì 250 mg/ngày",  # microgam -> mg
        "Người lớn 5 microgam mỗi ngày",  # mg -> microgam
        "Người lớn 5 g mỗi ngày",  # mg -> g
        "tối đa 1 mg/ngày",  # g -> mg
        "tối đa 1 microgam/ngày",  # g -> microgam
        "Truyền 500 l",  # ml -> l
        "tối đa 2,5 ml",  # lít -> ml
        "Trẻ em 15 mg/ngày",  # mg/kg -> mg
        "Người lớn 5 mg/kg mỗi ngày",  # mg -> mg/kg
        "Liều nạp 10 microgam",  # microgam/kg -> microgam
        "Truyền 500 ml trong 1 ngày",  # giờ -> ngày
    ],
)
def test_swapped_unit_is_ungrounded(claim: str) -> None:
    assert _unit_codes(claim) == ["ungrounded_number"]


@pytest.mark.parametrize(
    ("text", "number_end", "unit"),
    [
        ("0,5 - 1 g/lần", 3, "g"),  # a range shares its unit
        ("5, 10 hoặc 20 mg", 1, "mg"),  # so does a list
        ("60 mg/ kg/24 giờ", 2, "mg/kg"),
        ("2 mg/m2", 1, "mg/m2"),
        ("120 mg/5 ml", 3, "mg"),
        ("3 - 4 lần/ngày", 1, None),
        ("Trẻ em 5 tuổi", 8, "age"),
        ("4 g/ngày", 1, "g"),
        ("CYP3A4", 4, None),
    ],
)
def test_unit_after(text: str, number_end: int, unit: str | None) -> None:
    assert unit_after(text, number_end) == unit


# ---- (c) block titles checked like claims -----------------------------------------------------------------------


def test_number_in_a_title_must_be_printed_by_a_cited_quote() -> None:
    claims = [Claim(text="0,5 - 1 g/lần", citations=[1])]
    assert _codes([Block(title="Người lớn (uống)", claims=claims)], [DOSE]) == []
    assert _codes([Block(title="Liều 0,5 - 1 g", claims=claims)], [DOSE]) == []
    # in no quote at all
    assert _codes([Block(title="Trẻ em 6 - 12 tuổi", claims=claims)], [DOSE]) == ["ungrounded_number"] * 2
    # in the chunk ("4 - 6 giờ") but not in the cited quote
    assert _codes([Block(title="Cách 4 - 6 giờ", claims=claims)], [DOSE]) == ["ungrounded_number"] * 2
    # with another unit than the quote prints
    assert _codes([Block(title="Liều 0,5 - 1 mg", claims=claims)], [DOSE]) == ["ungrounded_number"] * 2


def test_a_title_is_checked_against_its_own_blocks_quotes_only() -> None:
    dose = Block(title="Liều thường dùng", claims=[Claim(text="0,5 - 1 g/lần", citations=[1])])
    mislabelled = Block(title="Quá liều 7,5 - 10 g", claims=[Claim(text="0,5 - 1 g/lần", citations=[1])])
    overdose = Block(title="Quá liều 7,5 - 10 g", claims=[Claim(text="7,5 - 10 g mỗi ngày", citations=[2])])
    assert _codes([dose, overdose], [DOSE, OVERDOSE]) == []
    assert _codes([mislabelled, overdose], [DOSE, OVERDOSE]) == ["ungrounded_number"] * 2


def test_a_title_sees_every_marker_its_claims_cite() -> None:
    claim = Claim(text="Liều 0,5 - 1 g/lần [1]; quá liều 7,5 - 10 g [2].", citations=[])
    assert _codes([Block(title="Từ 0,5 g đến 10 g", claims=[claim])], [DOSE, OVERDOSE]) == []


# ---- (d) the printed page is the page the quote sits on -------------------------------------------------------

PAGED_ID = "paracetamol__lieu_luong_cach_dung__1"
PAGE_ONE = "Người lớn: uống 0,5 - 1 g/lần. "
PAGE_TWO = "Trẻ em 6 - 12 tuổi: 250 - 500 mg/lần."
PAGED = Chunk(
    chunk_id=PAGED_ID, drug_id="paracetamol", section_key="lieu_luong_cach_dung", part_index=1,
    text=PAGE_ONE + PAGE_TWO, printed_pages=[1120, 1121], physical_pages=[46, 47],
    page_spans=[[46, 0, len(PAGE_ONE)], [47, len(PAGE_ONE), len(PAGE_ONE + PAGE_TWO)]],
)


def _page_codes(quote: str, physical: int, printed: int | None, pages: dict | None = None) -> list[str]:
    cit = Citation(index=1, chunk_id=PAGED_ID, drug_id="paracetamol", section_key="lieu_luong_cach_dung",
                   printed_page=printed, physical_page=physical, quote=quote)
    blocks = [Block(title="Liều", claims=[Claim(text=quote, citations=[1])])]
    pages = {PAGED_ID: PAGED} if pages is None else pages
    return [f.code for f in verify(blocks, [cit], {PAGED_ID: PAGED.text}, pages=pages)]


def test_right_pages_pass() -> None:
    assert _page_codes("uống 0,5 - 1 g/lần", 46, 1120) == []
    assert _page_codes("250 - 500 mg/lần", 47, 1121) == []


def test_wrong_printed_page_is_an_invalid_citation() -> None:
    assert _page_codes("250 - 500 mg/lần", 47, 1120) == ["invalid_citation"]  # 47 is printed 1121
    assert _page_codes("250 - 500 mg/lần", 47, 1122) == ["invalid_citation"]
    assert _page_codes("250 - 500 mg/lần", 47, None) == ["invalid_citation"]


def test_quote_on_another_physical_page_is_an_invalid_citation() -> None:
    assert _page_codes("250 - 500 mg/lần", 46, 1120) == ["invalid_citation"]  # consistent pair, wrong page
    assert _page_codes("uống 0,5 - 1 g/lần", 47, 1121) == ["invalid_citation"]
    assert _page_codes("uống 0,5 - 1 g/lần", 48, 1122) == ["invalid_citation"]  # not a page of the chunk


def test_pages_given_as_spans_and_a_page_map() -> None:
    info = {PAGED_ID: ChunkPages(page_spans=PAGED.page_spans, printed={46: 1120, 47: 1121})}
    assert _page_codes("250 - 500 mg/lần", 47, 1121, info) == []
    assert _page_codes("250 - 500 mg/lần", 47, 1120, info) == ["invalid_citation"]


def test_a_quote_printed_twice_may_cite_either_page() -> None:
    text = "Uống 500 mg/lần. " + "Trẻ lớn: 500 mg/lần."
    chunk = PAGED.model_copy(update={"text": text, "page_spans": [[46, 0, 17], [47, 17, len(text)]]})
    for physical, printed in ((46, 1120), (47, 1121)):
        cit = Citation(index=1, chunk_id=PAGED_ID, drug_id="paracetamol", section_key="lieu_luong_cach_dung",
                       printed_page=printed, physical_page=physical, quote="500 mg/lần")
        blocks = [Block(title="Liều", claims=[Claim(text="500 mg/lần", citations=[1])])]
        assert verify(blocks, [cit], {PAGED_ID: text}, pages={PAGED_ID: chunk}) == []


def test_without_pages_the_page_is_not_checked() -> None:
    cit = Citation(index=1, chunk_id=PAGED_ID, drug_id="paracetamol", section_key="lieu_luong_cach_dung",
                   printed_page=999, physical_page=46, quote="250 - 500 mg/lần")
    blocks = [Block(title="Liều", claims=[Claim(text="250 - 500 mg/lần", citations=[1])])]
    assert verify(blocks, [cit], {PAGED_ID: PAGED.text}) == []


# ---- correct answers from the real book still pass -------------------------------------------------------------


def test_every_statement_of_the_sample_book_cited_as_the_engine_cites_it_passes(sample_chunks) -> None:
    """Every paragraph of every trusted chunk, cited by CitedAnswer (the extractive engine's builder) under a
    title made of its own first words, passes the tightened checks, pages included."""
    from duocthu_desktop.qa.answers.cited_answer import CitedAnswer
    from duocthu_desktop.qa.answers.sentences import paragraphs

    failures = []
    for chunk in sample_chunks:
        answer = CitedAnswer()
        for start, end in paragraphs(chunk.text):
            answer.add(" ".join(chunk.text[start:end].split()[:4]), "prose", chunk, start, end)
        found = verify(answer.blocks, answer.citations, {chunk.chunk_id: chunk.text}, pages={chunk.chunk_id: chunk})
        failures += [f"{chunk.chunk_id}: {f.code} {f.detail}" for f in found]
    assert len(sample_chunks) > 100
    assert failures == []


def test_a_title_may_repeat_the_digit_of_the_drugs_printed_name_and_nothing_else() -> None:
    evidence = {"vitamin_b12__chi_dinh__0": "Thiếu máu ác tính. Dự phòng thiếu vitamin do cắt dạ dày."}
    cit = Citation(index=1, chunk_id="vitamin_b12__chi_dinh__0", drug_id="vitamin_b12", section_key="chi_dinh",
                   printed_page=1500, physical_page=7, quote="Thiếu máu ác tính.")
    named = [Block(title="Vitamin B12", claims=[Claim(text="Thiếu máu ác tính.", citations=[1])])]
    titles = {"vitamin_b12": "VITAMIN B12 (CYANOCOBALAMIN)"}
    assert [f.code for f in verify(named, [cit], evidence)] == ["ungrounded_number"]  # no name given: refused
    assert verify(named, [cit], evidence, titles=titles) == []
    dosed = [Block(title="Vitamin B12 · 1000 microgam", claims=[Claim(text="Thiếu máu ác tính.", citations=[1])])]
    assert [f.code for f in verify(dosed, [cit], evidence, titles=titles)] == ["ungrounded_number"]
