"""Stage 6: chunks within the token ceiling, split at paragraphs then sentences, page offsets exact."""

from __future__ import annotations

import pytest

from ingestion.chunker import MAX_TOKENS, count_tokens, pack_prose
from ingestion.paragraphs import Paragraph, Piece


def para(text, physical=1):
    return Paragraph([Piece(text, physical)])


def test_count_tokens_counts_words_and_punctuation():
    assert count_tokens("Trẻ em 4 - 6 tuổi: 240 mg") == 9
    assert count_tokens("") == 0


def test_short_section_is_one_part_with_paragraph_breaks():
    parts = pack_prose([para("Một."), para("Hai.", 2)])
    assert [p.text for p in parts] == ["Một.\nHai."]
    assert parts[0].page_spans == [[1, 0, 4], [2, 5, 9]]
    assert parts[0].physical_pages == [1, 2]


def test_long_section_splits_at_paragraphs_and_stays_under_the_ceiling():
    paras = [para(" ".join(["liều"] * 300) + ".", physical=i + 1) for i in range(5)]
    parts = pack_prose(paras)
    assert len(parts) == 3
    assert all(count_tokens(p.text) <= MAX_TOKENS for p in parts)
    assert "\n".join(p.text for p in parts) == "\n".join(p.text for p in paras)


def test_a_long_paragraph_splits_at_sentences_never_inside_a_dose_band():
    band = "Trẻ em 4 - 6 tuổi: 240 mg, cách 4 - 6 giờ/lần."
    sentences = [f"Câu số {i} có nhiều chữ để làm dài đoạn văn này ra thêm nữa." for i in range(60)]
    text = " ".join(sentences[:30] + [band] + sentences[30:] + [band])
    parts = pack_prose([para(text)])
    assert len(parts) >= 2
    assert all(count_tokens(p.text) <= MAX_TOKENS for p in parts)
    joined = "\n".join(p.text for p in parts)
    assert joined.count(band) == 2
    for p in parts:  # every part starts at a sentence start
        assert p.text.startswith(("Câu số", "Trẻ em"))


def test_a_subheading_is_never_left_at_the_end_of_a_part():
    paras = [para(" ".join(["chữ"] * 700) + "."), para("Trẻ em:"), para(" ".join(["liều"] * 300) + ".")]
    parts = pack_prose(paras)
    assert not any(p.text.rstrip().endswith(":") for p in parts)
    assert parts[1].text.startswith("Trẻ em:\n")


def test_page_spans_point_at_each_page_text():
    p = Paragraph([Piece("đầu trang một ", 7), Piece("cuối ở trang hai.", 8)])
    part = pack_prose([p])[0]
    assert [part.text[a:b] for _, a, b in part.page_spans] == ["đầu trang một ", "cuối ở trang hai."]


@pytest.mark.integration
def test_every_sample_chunk_is_under_the_ceiling_with_pages_and_valid_spans(sample_chunks):
    assert sample_chunks
    for c in sample_chunks:
        assert count_tokens(c.text) <= MAX_TOKENS, c.chunk_id
        assert c.printed_pages and c.physical_pages, c.chunk_id
        assert len(c.printed_pages) == len(c.physical_pages)
        assert c.page_spans and c.page_spans[0][1] == 0 and c.page_spans[-1][2] == len(c.text), c.chunk_id
        assert sorted({p for p, _, _ in c.page_spans}) == c.physical_pages
        assert c.text == c.text.strip() and "\ufffd" not in c.text


@pytest.mark.integration
def test_chunk_ids_and_part_indexes_follow_the_contract(sample_chunks):
    ids = [c.chunk_id for c in sample_chunks]
    assert len(ids) == len(set(ids))
    seen: dict[tuple[str, str], list[int]] = {}
    for c in sample_chunks:
        seen.setdefault((c.drug_id, c.section_key), []).append(c.part_index)
        if c.kind == "prose":
            assert c.chunk_id == f"{c.drug_id}__{c.section_key}__{c.part_index}"
        else:
            assert c.chunk_id == f"{c.drug_id}__{c.section_key}__block__{c.table_id}"
    assert all(v == list(range(len(v))) for v in seen.values())


@pytest.mark.integration
def test_dose_bands_survive_verbatim(sample_chunks):
    text = "\n".join(c.text for c in sample_chunks if c.drug_id == "paracetamol")
    for band in ("0,5 - 1 g/lần", "7,5 mg/kg", "1/1 000", "Trẻ em 12 - 18 tuổi: 500 mg cách 4 - 6 giờ/lần"):
        assert band in text
