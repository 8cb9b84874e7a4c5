"""Stage 5: section keys on bold heading lines only; heading + sub-heading split; sub-headings kept as text."""

from __future__ import annotations

import pytest

from ingestion.monographs import RawMonograph
from ingestion.sectioning import as_heading, split_sections
from ingestion.spans import Line, Span


def mk(parts, physical=10):
    """parts: (text, bold, italic, size) in order along one line."""
    spans, x = [], 57.0
    for text, bold, italic, size in parts:
        spans.append(Span(text, "F", size, bold, italic, x, 90, x + 5 * len(text), 100, 97))
        x += 5 * len(text) + 2
    return Line(spans=spans, physical=physical, column=0, text=" ".join(p[0] for p in parts))


def test_heading_and_subheading_on_one_line_are_split_and_the_subheading_kept_as_printed():
    hit = as_heading(
        mk(
            [
                ("Liều lượng và cách dùng", True, False, 8.8),
                ("Cách dùng:", True, True, 8.6),
                ("Uống.", False, False, 8.6),
            ]
        )
    )
    assert hit is not None
    key, heading, rest = hit
    assert (key, heading) == ("lieu_luong_cach_dung", "Liều lượng và cách dùng")
    assert rest.text == "Cách dùng: Uống."


def test_ocr_slip_and_spelling_variant_headings():
    assert as_heading(mk([("Chỉ đinh", True, False, 8.8)]))[0] == "chi_dinh"
    assert as_heading(mk([("Thông tin qui chế", True, False, 8.8)]))[0] == "thong_tin_qui_che"


def test_headings_in_other_wordings_land_on_the_contract_key():
    """The book also prints "Liều lượng, cách dùng" and "Quá liều và xử lý" for these two sections."""
    hit = as_heading(mk([("Liều lượng, cách dùng", True, False, 8.8)]))
    assert hit[:2] == ("lieu_luong_cach_dung", "Liều lượng, cách dùng")
    assert as_heading(mk([("Quá liều và xử lý", True, False, 8.8)]))[0] == "qua_lieu_xu_tri"
    assert as_heading(mk([("Liều lượng, cách dùng", False, True, 8.6)])) is None  # an italic sub-heading


def test_not_headings_body_text_italic_subheadings_and_smaller_bold():
    assert as_heading(mk([("Chỉ định điều trị cho người lớn.", False, False, 8.6)])) is None
    assert as_heading(mk([("Liều dùng:", True, True, 8.6)])) is None
    assert as_heading(mk([("Thận trọng", True, False, 7.6)])) is None  # a bold table cell


def test_split_sections_keeps_subheadings_inside_their_section():
    title = mk([("PARACETAMOL", True, False, 11.0)])
    items = [
        mk([("Tên chung quốc tế:", True, False, 8.6), ("Paracetamol.", False, False, 8.6)]),
        mk([("Liều lượng và cách dùng", True, False, 8.8)]),
        mk([("Người lớn:", False, True, 8.6), ("0,5 - 1 g/lần.", False, False, 8.6)]),
        mk([("Trẻ em:", False, True, 8.6), ("10 - 15 mg/kg.", False, False, 8.6)]),
        mk([("Tương tác thuốc", True, False, 8.8)]),
        mk([("Không có.", False, False, 8.6)]),
    ]
    secs = split_sections(RawMonograph("PARACETAMOL", title, items))
    assert [s.key for s in secs] == ["thong_tin_chung", "lieu_luong_cach_dung", "tuong_tac_thuoc"]
    assert [it.text for it in secs[1].items] == ["Người lớn: 0,5 - 1 g/lần.", "Trẻ em: 10 - 15 mg/kg."]


@pytest.mark.integration
def test_section_key_sequences_equal_gold(sample_monographs, gold):
    assert {m.drug_id: [s.key for s in m.sections] for m in sample_monographs} == {
        g["drug_id"]: g["section_keys"] for g in gold["monographs"]
    }
    for m in sample_monographs:
        assert all(s.start_printed is not None and s.end_printed >= s.start_printed for s in m.sections)


@pytest.mark.integration
def test_chunk_text_is_clean_heading_out_subheadings_in(sample_chunks):
    by_id = {c.chunk_id: c for c in sample_chunks}
    assert by_id["paracetamol__thong_tin_chung__0"].text == (
        "Tên chung quốc tế: Paracetamol.\nMã ATC: N02BE01.\nLoại thuốc: Giảm đau; hạ sốt."
    )
    dose = [
        c for c in sample_chunks if c.drug_id == "paracetamol" and c.section_key == "lieu_luong_cach_dung"
    ]
    text = "\n".join(c.text for c in dose)
    assert dose[0].text.startswith("Cách dùng:")
    assert dose[0].heading == "Liều lượng và cách dùng"
    for sub in ("Cách dùng:", "Người lớn:", "Uống:", "Trẻ em"):
        assert sub in text
    for c in sample_chunks:
        if c.section_key != "thong_tin_chung" and c.kind == "prose":
            assert c.text.split("\n")[0] != c.heading, c.chunk_id
    assert "\n" in by_id["paracetamol__duoc_ly_co_che__0"].text  # paragraph breaks kept
