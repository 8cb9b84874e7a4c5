"""Sentence splitting that never cuts a number, and the choice of sentences that answer a question."""

from __future__ import annotations

import pytest

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.qa.answers.sentences import (
    focus_terms,
    frequency_blocks,
    select_answer_spans,
    split_sentences,
)


def _texts(text: str) -> list[str]:
    return [text[s:e] for s, e in split_sentences(text)]


@pytest.mark.parametrize(
    "unbroken",
    [
        "Liều 0,5 - 1 g/lần, tối đa 4 g/ngày.",
        "Tối đa 1.500 mg mỗi ngày.",
        "Dùng kháng sinh, thuốc hạ sốt v.v. khi cần thiết.",
        "Hiếm gặp, ADR < 1/1 000 người bệnh.",
        "Liều 30 - 40 mg/ kg một liều duy nhất.",
        "Dùng 7.5 mg.",
    ],
)
def test_never_splits_inside_numbers_units_or_abbreviations(unbroken: str) -> None:
    text = f"Câu đầu. {unbroken} Câu cuối."
    assert _texts(text) == ["Câu đầu.", unbroken, "Câu cuối."]


def test_splits_at_paragraphs_and_sentence_ends() -> None:
    text = "Thường gặp, ADR >1/100\nToàn thân: Đau đầu, chóng mặt. Da: Ngoại ban, ngứa.\n\nHô hấp: Ho."
    assert _texts(text) == [
        "Thường gặp, ADR >1/100",
        "Toàn thân: Đau đầu, chóng mặt.",
        "Da: Ngoại ban, ngứa.",
        "Hô hấp: Ho.",
    ]


def test_spans_are_exact_substrings() -> None:
    text = "  Một câu.   Hai câu 0,5 mg.\n Ba câu.  "
    for s, e in split_sentences(text):
        assert text[s:e] == text[s:e].strip() and text[s:e]


def test_focus_terms_drop_question_words_and_drug_names() -> None:
    terms = focus_terms(
        "Xử trí quá liều paracetamol bằng N-acetylcystein đường uống như thế nào?", ["paracetamol"]
    )
    assert terms == ["n-acetylcystein", "uong"]


def _section(chunks: list[Chunk], drug: str, key: str) -> str:
    parts = sorted(
        (c for c in chunks if c.drug_id == drug and c.section_key == key), key=lambda c: c.part_index
    )
    return "\n".join(c.text for c in parts if not c.quarantined)


@pytest.mark.integration
def test_short_section_is_answered_whole(sample_chunks: list[Chunk]) -> None:
    text = _section(sample_chunks, "abacavir", "thoi_ky_mang_thai")
    spans = select_answer_spans(text, "Phụ nữ mang thai có dùng được abacavir không?", ["abacavir"])
    assert "".join(text[s:e] for s, e in spans).replace(" ", "") == text.replace("\n", "").replace(" ", "")


@pytest.mark.integration
def test_adr_frequency_asked_gives_that_block(sample_chunks: list[Chunk]) -> None:
    text = _section(sample_chunks, "captopril", "tac_dung_khong_mong_muon")
    assert [name for name, _ in frequency_blocks(text)] == ["thuong gap", "it gap", "hiem gap"]
    spans = select_answer_spans(text, "Tác dụng không mong muốn thường gặp của captopril?", ["captopril"])
    chosen = "\n".join(text[s:e] for s, e in spans)
    assert chosen.startswith("Thường gặp")
    assert "Ho." in chosen and "Ít gặp" not in chosen and "Vú to nam giới" not in chosen


@pytest.mark.integration
def test_narrow_question_on_long_section_keeps_its_sentences_in_order(sample_chunks: list[Chunk]) -> None:
    text = _section(sample_chunks, "paracetamol", "qua_lieu_xu_tri")
    q = "Xử trí quá liều paracetamol bằng N-acetylcystein đường uống như thế nào?"
    spans = select_answer_spans(text, q, ["paracetamol"])
    chosen = [text[s:e] for s, e in spans]
    assert spans == sorted(spans)
    joined = " ".join(chosen)
    assert "140 mg/kg" in joined and "70 mg/kg" in joined
    assert all("N-acetylcystein" in c for c in chosen)
    assert "methionin" not in joined
    assert len(joined) < len(text) / 2
