"""Stage 1: spans -> lines in two-column reading order -> paragraphs with the layout's wraps undone."""

from __future__ import annotations

import pymupdf
import pytest

from ingestion.paragraphs import glue, to_paragraphs
from ingestion.spans import Span, group_lines, join_spans, read_spans, reading_order


def span(text, x0, x1, baseline, size=8.6, bold=False, italic=False):
    return Span(text, "F", size, bold, italic, x0, baseline - 8, x1, baseline + 2, baseline)


def test_spans_on_one_baseline_of_a_column_are_one_line():
    spans = [
        span("và ", 419, 440, 277.6),
        span("alcohol-dehydrogenase ", 314, 418, 277.6),
        span("glucuronosyltransferase", 443, 538, 277.6),
        span("thành các chất", 314, 400, 287.8),
    ]
    lines = group_lines(spans, 3, gutter=297)
    assert [ln.text for ln in lines] == ["alcohol-dehydrogenase và glucuronosyltransferase", "thành các chất"]


def test_a_gap_between_spans_becomes_a_space_but_touching_spans_join():
    assert join_spans([span("In vitro", 249, 277.5, 10), span(",", 277.6, 280, 10)]) == "In vitro,"
    assert join_spans([span("virus", 57, 79, 10), span("Varicella", 82, 120, 10)]) == "virus Varicella"


def test_reading_order_is_left_column_then_right_whatever_the_input_order():
    spans = [
        span("right top", 314, 400, 70),
        span("left bottom", 57, 200, 700),
        span("left top", 57, 200, 70),
    ]
    lines = reading_order(group_lines(spans, 4, gutter=297))
    assert [ln.text for ln in lines] == ["left top", "left bottom", "right top"]


@pytest.mark.parametrize(
    ("prev", "nxt", "joined"),
    [
        ("liều 7,5 mg/", "kg mỗi ngày", "liều 7,5 mg/kg mỗi ngày"),
        ("cyclooxygenase-", "1 yếu", "cyclooxygenase-1 yếu"),
        ("cân bằng acid -", "base", "cân bằng acid - base"),
        ("INR 3-", "4,5;", "INR 3- 4,5;"),
        ("dùng", "thuốc", "dùng thuốc"),
    ],
)
def test_wrapped_lines_are_glued_the_way_the_book_prints_them(prev, nxt, joined):
    assert prev + glue(prev, nxt) + nxt == joined


def test_paragraphs_break_on_a_wide_gap_and_on_a_short_last_line_across_columns():
    spans = [
        span("Một câu dài chạy hết dòng", 57, 281, 100),
        span("kết thúc.", 57, 120, 110),
        span("Đoạn mới.", 57, 120, 123),
        span("Câu ngắn.", 57, 150, 780),
        span("Tiếp cột phải", 314, 538, 70),
    ]
    lines = reading_order(group_lines(spans, 5, gutter=297))
    paras = to_paragraphs(lines, {(5, 0): 281.0, (5, 1): 538.0})
    assert [p.text for p in paras] == [
        "Một câu dài chạy hết dòng kết thúc.",
        "Đoạn mới.",
        "Câu ngắn.",
        "Tiếp cột phải",
    ]


def test_a_paragraph_running_on_into_the_next_page_stays_one_paragraph_with_both_pages():
    a = group_lines([span("dòng cuối trang chạy hết cột và", 314, 538, 780)], 5, gutter=297)
    b = group_lines([span("tiếp trang sau.", 57, 130, 70)], 6, gutter=297)
    paras = to_paragraphs(a + b, {(5, 1): 538.0, (6, 0): 281.0})
    assert len(paras) == 1
    assert paras[0].text == "dòng cuối trang chạy hết cột và tiếp trang sau."
    assert paras[0].pages == [5, 6]


@pytest.mark.integration
def test_page_four_reads_left_column_before_right(sample_pdf):
    with pymupdf.open(sample_pdf) as doc:
        lay = read_spans(doc[3], 4)
    lines = reading_order(group_lines(lay.body_spans, 4, lay.gutter))
    cols = [ln.column for ln in lines]
    assert cols == sorted(cols) and set(cols) == {0, 1}
    # the header band is kept apart from the body
    assert not any("DTQGVN" in ln.text for ln in lines)
    assert any(s.text.strip() == "100" for s in lay.header_spans)


@pytest.mark.integration
def test_split_blocks_on_page_three_are_one_line(sample_pdf):
    with pymupdf.open(sample_pdf) as doc:
        lay = read_spans(doc[2], 3)
    texts = [ln.text for ln in group_lines(lay.body_spans, 3, lay.gutter)]
    assert "alcohol-dehydrogenase và glucuronosyltransferase" in texts


@pytest.mark.integration
def test_ligatures_are_expanded_in_chunks(sample_chunks):
    text = "\n".join(c.text for c in sample_chunks)
    assert "feline immunodeficiency virus" in text
    assert "ﬁ" not in text and "ﬂ" not in text


def test_a_line_crossing_the_gutter_is_flagged_as_guessed_order():
    lines = group_lines(
        [span("một dòng tràn qua hai cột", 57, 400, 100), span("trái", 57, 100, 120)], 9, gutter=297
    )
    assert sorted(ln.column for ln in lines) == [-1, 0]


def test_stacked_full_size_spans_mark_a_formula_paragraph_but_superscripts_do_not():
    formula = group_lines(
        [span("Clcr =", 57, 90, 100), span("(140 - tuổi)", 95, 150, 96), span("72", 95, 110, 104)],
        1,
        gutter=297,
    )
    sup = group_lines([span("250 mg/m", 57, 90, 100), span("2", 90.5, 93, 97, size=7.1)], 1, gutter=297)
    paras = to_paragraphs(formula + sup, {})
    assert "formula_layout" in paras[0].flags
    assert sup[0].text == "250 mg/m2" and not sup[0].stacked


def test_an_italic_subheading_line_is_a_paragraph_of_its_own():
    spans = [
        span("Liều lượng:", 57, 110, 100, italic=True),
        span("Người lớn:", 57, 105, 110, italic=True),
        span("Uống 0,5 - 1 g/lần.", 57, 150, 120),
    ]
    paras = to_paragraphs(group_lines(spans, 1, gutter=297), {})
    assert [p.text for p in paras] == ["Liều lượng:", "Người lớn:", "Uống 0,5 - 1 g/lần."]
