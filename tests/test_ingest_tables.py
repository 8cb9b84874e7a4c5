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
