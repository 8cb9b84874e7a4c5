"""grounding.verify: claims bound to the evidence they cite, numbers compared character for character."""

from __future__ import annotations

import pytest

from duocthu_desktop.payload import Block, Citation, Claim
from duocthu_desktop.qa.grounding import number_in_evidence, numbers_in, split_at_markers, verify

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
    assert _codes(blocks, [DOSE]) == []


@pytest.mark.parametrize("wrong", ["7.5 - 10 g", "75 - 10 g", "7,5 - 100 g"])
def test_changed_number_is_ungrounded(wrong: str) -> None:
    blocks = [Block(title="Quá liều", claims=[Claim(text=f"Uống lặp lại {wrong} mỗi ngày.", citations=[2])])]
    assert "ungrounded_number" in _codes(blocks, [DOSE, OVERDOSE])


def test_1500_versus_1_5() -> None:
    good = [Block(title="t", claims=[Claim(text="Tổng 1.500 mg.", citations=[2])])]
    bad = [Block(title="t", claims=[Claim(text="Tổng 1,5 mg.", citations=[2])])]
    assert _codes(good, [OVERDOSE]) == []
    assert _codes(bad, [OVERDOSE]) == ["ungrounded_number"]


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
