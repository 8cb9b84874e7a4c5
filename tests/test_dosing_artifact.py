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


def test_a_section_read_again_by_other_code_reads_as_the_build_read_it(index_copy: Path) -> None:
    """An index built by other code (its dose rows not used) reads each dosage section again; with the
    monograph's INN-line route the build read it with, so what a turn sees does not hang on which code built
    the index."""
    from duocthu_desktop.dosage import stored
    from duocthu_desktop.dosage.parser import DOSAGE_KEY, section_rows
    from duocthu_desktop.retrieval.service import RetrievalService

    manifest_path = index_copy / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["code_sha256"][DOSING_FILE] = "0" * 64
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    service = RetrievalService.open(index_copy)
    try:
        assert stored.current() is None  # the rows are read again
        built = read_dosing(index_copy / DOSING_FILE)
        for drug in sorted({r.drug_id for r in built}):
            chunks = service.retrieve_framed(drug, DOSAGE_KEY).chunks
            assert section_rows(drug, list(chunks)) == [r for r in built if r.drug_id == drug], drug
    finally:
        service.close()


def test_a_monographs_route_comes_from_the_open_index_when_no_rows_are_stored() -> None:
    from duocthu_desktop.dosage import stored

    before = (stored.current(), stored._ROUTES_OF)
    try:
        stored.use(None, lambda drug: ("nho_mat",) if drug == "thuoc_a" else ())
        assert stored.monograph_routes("thuoc_a") == ("nho_mat",)
        assert stored.monograph_routes("thuoc_b") == ()
        stored.use(None)
        assert stored.monograph_routes("thuoc_a") == ()
    finally:
        stored.use(*before)


def test_every_section_of_sample_e_read_again_with_the_open_indexs_routes_is_what_the_build_wrote(
        sample_e_build: Path) -> None:
    """sample-e holds a monograph of one form whose INN line names its route (eye drops): read again without it,
    its statements took the route of the words around them and a question was asked which route it was."""
    from duocthu_desktop.dosage import parser, stored
    from duocthu_desktop.dosage.words import monograph_route

    chunks = artifacts.read_chunks(sample_e_build / artifacts.CHUNKS_FILE)
    identity = {c.drug_id: tuple(monograph_route(c.text)) for c in chunks
                if c.section_key == parser.IDENTITY_KEY and c.part_index == 0}
    assert any(identity.values())  # the case this test is for
    built = read_dosing(sample_e_build / DOSING_FILE)
    before = (stored.current(), stored._ROUTES_OF)
    try:
        stored.use(None, lambda drug: identity.get(drug, ()))
        parser._READ.clear()
        for drug in sorted({r.drug_id for r in built}):
            section = sorted((c for c in chunks if c.drug_id == drug and c.section_key == parser.DOSAGE_KEY),
                             key=parser._order)
            assert parser.section_rows(drug, section) == [r for r in built if r.drug_id == drug], drug
    finally:
        stored.use(*before)
        parser._READ.clear()
