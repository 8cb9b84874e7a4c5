"""dosing.jsonl (CONTRACT): written by every build, shown by `duocthu-ingest inspect --dosing`, and the same rows
the question path reads from the chunks."""

from __future__ import annotations

import json
from pathlib import Path

from duocthu_desktop import artifacts
from duocthu_desktop.dosage.parser import read_book
from duocthu_desktop.dosage.rows import DOSING_FILE, read_dosing
from ingestion.cli import main

CONTRACT_FIELDS = {"drug_id", "chunk_id", "printed_page", "text", "route", "indication", "population", "age",
                   "weight_kg", "renal", "hepatic", "kind"}


def test_build_writes_dosing_rows_that_are_verbatim_spans_of_their_chunks(sample_build: Path) -> None:
    rows = read_dosing(sample_build / DOSING_FILE)
    chunks = {c.chunk_id: c for c in artifacts.read_chunks(sample_build / artifacts.CHUNKS_FILE)}
    assert len({r.drug_id for r in rows}) == 17  # every sample monograph has a dosage section
    for row in rows:
        chunk = chunks[row.chunk_id]
        assert chunk.section_key == "lieu_luong_cach_dung"
        assert chunk.text[row.start : row.end] == row.text
        assert row.printed_page in chunk.printed_pages
        assert row.quarantined == chunk.quarantined


def test_dosing_file_equals_what_the_question_path_reads(sample_build: Path) -> None:
    on_disk = read_dosing(sample_build / DOSING_FILE)
    assert on_disk == read_book(artifacts.read_chunks(sample_build / artifacts.CHUNKS_FILE))


def test_inspect_dosing_prints_one_drugs_rows_in_book_order(sample_build: Path, capsys) -> None:
    assert main(["inspect", str(sample_build), "--drug", "paracetamol", "--dosing"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines and all(line["drug_id"] == "paracetamol" for line in lines)
    assert CONTRACT_FIELDS <= set(lines[0])
    # The book prints "Trẻ em 4 - 6 tuổi: 240 mg" under "Trẻ em:", "Đau, sốt:", "Uống:" (source paracetamol.md).
    row = next(line for line in lines if line["text"].startswith("Trẻ em 4 - 6 tuổi: 240 mg"))
    assert row["route"] == ["uong"]
    assert row["population"] == "tre_em"
    assert row["age"]["min"] == 4 and row["age"]["max"] == 6 and row["age"]["unit"] == "nam"
    assert row["indication"].startswith("Đau, sốt")
    assert row["kind"] == "dose"
    book_order = [r.text for r in read_dosing(sample_build / DOSING_FILE) if r.drug_id == "paracetamol"]
    assert [line["text"] for line in lines] == book_order
