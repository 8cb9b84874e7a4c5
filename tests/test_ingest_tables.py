"""Stage 3: tables lifted out as quarantined table chunks, all rows, header row first, prose in order."""

from __future__ import annotations

import pytest

from ingestion.tables import CELL_SEPARATOR


def _tables(chunks, drug):
    return [c for c in chunks if c.drug_id == drug and c.kind == "table"]


@pytest.mark.integration
def test_vancomycin_mic_table_has_every_row(sample_chunks):
    mic = next(c for c in _tables(sample_chunks, "vancomycin") if "MIC" in c.text)
    rows = mic.text.split("\n")
    assert rows[0] == "Chủng vi khuẩn | MIC (microgam/ml) | Tỉ lệ nhạy cảm"
    assert len(rows) == 13
    assert "Streptococcus pneumoniae | 0,75 | 100%" in rows
    assert "Các chủng Bacillus | 4,0 | 90,5%" in rows
    assert any(
        r.startswith("Enterococcus (Enterococcus casseliflavus, faecalis, faecium và một số chủng")
        for r in rows
    )
    assert mic.quarantined and mic.quarantine_reason == "table"
    assert mic.section_key == "duoc_ly_co_che" and mic.physical_pages == [48] and mic.printed_pages == [1456]


@pytest.mark.integration
def test_warfarin_table_across_two_pages_is_one_chunk_with_all_rows(sample_chunks):
    (table,) = _tables(sample_chunks, "warfarin")
    rows = table.text.split("\n")
    assert rows[0] == "Chỉ định | INR khuyến cáo thời gian điều trị"
    assert len(rows) == 24
    assert table.physical_pages == [54, 55] and len(table.page_spans) == 2
    assert "Sinh học | Đích 2,5; INR 2 - 3; 3 tháng." in rows
    assert all(CELL_SEPARATOR in r for r in rows)


@pytest.mark.integration
def test_prose_around_a_table_stays_in_order(sample_chunks):
    parts = [c for c in sample_chunks if c.drug_id == "vancomycin" and c.section_key == "duoc_ly_co_che"]
    kinds = [c.kind for c in parts]
    i = kinds.index("table")
    assert 0 < i < len(parts) - 1
    assert parts[i - 1].text.rstrip().endswith("như sau:")
    assert parts[i + 1].text.startswith("Dược động học")


@pytest.mark.integration
def test_table_cells_are_not_left_in_prose(sample_chunks):
    prose = "\n".join(c.text for c in sample_chunks if c.drug_id == "vancomycin" and c.kind == "prose")
    assert "Coagulase-âm tính staphylococci" not in prose


def _layout(vectors):
    from ingestion.spans import PageLayout

    return PageLayout(physical=1, width=595, height=842, vectors=vectors)


def test_ruled_regions_group_touching_rules_and_skip_the_header_rule_and_lone_rules():
    from ingestion.tables import ruled_regions

    grid = [(57, 100, 280, 100.5), (57, 120, 280, 120.5), (57, 100, 57.5, 120.5), (279.5, 100, 280, 120.5)]
    lone = [(320, 400, 530, 400.5)]  # a single rule under a paragraph: no table there
    header = [(48, 44, 547, 44.6), (48, 40, 48.5, 48)]  # the running header's rule, in the header band
    regions = ruled_regions(_layout(grid + lone + header))
    assert [tuple(round(v) for v in r) for r in regions] == [(57, 100, 280, 120)]
    assert ruled_regions(_layout([])) == []


def test_a_page_without_rules_never_runs_the_table_finder():
    from ingestion.tables import find_tables

    class NoFinder:
        def find_tables(self, **_):
            raise AssertionError("the table finder ran on a page without rules")

    assert find_tables(NoFinder(), _layout([(320, 400, 530, 400.5)])) == []


@pytest.mark.integration
def test_a_table_whose_top_rule_is_on_the_page_before_keeps_its_first_row(sample_chunks):
    """The finder reads only the ruled region; its enveloping box closes a table broken over a page (the renal
    table's rows on page 20 have no rule above them: it is on page 19)."""
    (table,) = _tables(sample_chunks, "captopril")
    assert table.physical_pages == [19, 20]
    _, start, end = table.page_spans[1]
    assert table.text[start:end].split("\n") == ["20 - 11 | 75 | 12,5", "< 10 | 37,5 | 6,25"]
