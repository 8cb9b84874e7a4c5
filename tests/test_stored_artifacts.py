"""What the build computes once is read at open, not computed again (issue 19): the catalog of drug names
(catalog.json) and the dose rows (dosing.jsonl). Each is read only while the running code is the code that
computed it (manifest.json `code_sha256`), is what that code computes from the same chunks, and an index built
before it existed, or by other code, opens and computes it as before.

Every test that edits an index edits a copy of the session's sample index.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from duocthu_desktop import cli_ask, code_digest
from duocthu_desktop.artifacts import CATALOG_FILE
from duocthu_desktop.dosage import stored
from duocthu_desktop.dosage.parser import DOSAGE_KEY, read_book, read_section, section_rows
from duocthu_desktop.dosage.rows import DOSING_FILE, read_dosing
from duocthu_desktop.errors import IndexError_
from duocthu_desktop.qa.pipeline import Assistant
from duocthu_desktop.qa.understanding.catalog import Catalog
from duocthu_desktop.qa.understanding.stored_catalog import catalog_code_sha256, open_catalog
from duocthu_desktop.retrieval.manifest import MANIFEST_FILE, read_manifest
from duocthu_desktop.retrieval.service import RetrievalService
from duocthu_desktop.settings import Settings

pytestmark = pytest.mark.integration

DOSE_QUESTION = "liều metformin cho người lớn"


def _edit_manifest(index: Path, edit) -> None:
    manifest = json.loads((index / MANIFEST_FILE).read_text(encoding="utf-8"))
    edit(manifest)
    (index / MANIFEST_FILE).write_text(json.dumps(manifest), encoding="utf-8")


def _opened(index: Path, ask_env) -> Assistant:
    return Assistant.open(Settings.load(index=index, engine="extractive"))


def _dosage_sections(service: RetrievalService) -> dict[str, list]:
    drugs = sorted({c.drug_id for c in service.all_chunks() if c.section_key == DOSAGE_KEY})
    return {d: list(service.retrieve_framed(d, DOSAGE_KEY).chunks) for d in drugs}


# ---- what the build records ------------------------------------------------------------------------------------


def test_the_build_records_the_code_of_its_catalog_and_dose_rows_and_digests_the_catalog(sample_index):
    manifest = read_manifest(sample_index)
    assert manifest.code_sha256 == {CATALOG_FILE: catalog_code_sha256(), DOSING_FILE: stored.dosing_code_sha256()}
    assert CATALOG_FILE in manifest.file_sha256 and (sample_index / CATALOG_FILE).is_file()


def test_the_code_digest_covers_what_the_code_imports_and_changes_with_it():
    dosage = code_digest.code_modules(stored.DOSAGE_PACKAGE)
    assert {"duocthu_desktop.dosage.parser", "duocthu_desktop.dosage.rows", "duocthu_desktop.text",
            "duocthu_desktop.qa.understanding.lexicon"} <= set(dosage)  # lexicon: imported by dosage.reading
    catalog = code_digest.code_modules("duocthu_desktop.qa.understanding.stored_catalog")
    assert "duocthu_desktop.qa.understanding.catalog" in catalog and "duocthu_desktop.dosage.parser" not in catalog
    assert code_digest.code_sha256(stored.DOSAGE_PACKAGE) != code_digest.code_sha256("duocthu_desktop.text")
    assert code_digest.code_sha256("duocthu_desktop.no_such_module") is None  # unknown code: never "the same"


# ---- read at open, equal to what the code computes -------------------------------------------------------------


def test_the_stored_catalog_is_read_and_equals_the_one_computed_from_the_chunks(sample_index, ask_env):
    service = RetrievalService.open(sample_index)
    try:
        read = open_catalog(service)
        assert service._all is None  # read from catalog.json: no chunk was needed
        computed = Catalog(service.monographs, service.all_chunks())
    finally:
        service.close()
    assert vars(read).keys() == vars(computed).keys()
    for key, value in vars(computed).items():
        assert vars(read)[key] == value, key
        if isinstance(value, dict):
            assert list(vars(read)[key]) == list(value), key  # the same order: the first match wins
    assert read.resolve("Liều metphormin và panadol?").drug_ids == computed.resolve("Liều metphormin và panadol?").drug_ids


def test_dose_rows_read_from_dosing_jsonl_equal_the_rows_the_running_parser_reads(sample_index):
    service = RetrievalService.open(sample_index)
    try:
        assert service.stored_rows is not None and stored.current() is service.stored_rows
        sections = _dosage_sections(service)
        assert len(sections) >= 10
        for drug_id, chunks in sections.items():
            rows = service.stored_rows.rows_for(drug_id, chunks)
            assert rows is not None, drug_id  # the section as retrieval hands it over is the one the build read
            assert rows == read_section(drug_id, chunks), drug_id
        assert service.stored_rows.all_rows() == read_book(service.all_chunks())
    finally:
        service.close()
    assert stored.current() is None


def test_stored_rows_stand_only_for_the_chunks_they_were_read_from(sample_index):
    service = RetrievalService.open(sample_index)
    try:
        drug_id, chunks = next((d, c) for d, c in _dosage_sections(service).items() if len(c) >= 2)
        assert service.stored_rows.rows_for(drug_id, chunks) is not None
        assert service.stored_rows.rows_for(drug_id, chunks[:-1]) is None  # a part of the section
        assert service.stored_rows.rows_for(drug_id, chunks[::-1]) is None  # another order
        edited = [chunks[0].model_copy(update={"text": chunks[0].text.replace("mg", "g")}), *chunks[1:]]
        assert service.stored_rows.rows_for(drug_id, edited) is None  # other text
        assert section_rows(drug_id, edited) == read_section(drug_id, edited)
    finally:
        service.close()


# ---- older indexes, other code, a changed file ----------------------------------------------------------------


def test_an_index_built_before_the_stored_artifacts_opens_and_computes_them(index_copy, ask_env, capsys):
    (index_copy / CATALOG_FILE).unlink()
    _edit_manifest(index_copy, lambda m: (m.pop("code_sha256"), m["file_sha256"].pop(CATALOG_FILE)))
    assistant = _opened(index_copy, ask_env)
    try:
        assert assistant.service.stored_rows is None and assistant.service._all is not None  # computed
        assert assistant.catalog.resolve("metformin").drug_ids == ["metformin"]
    finally:
        assistant.service.close()
    assert cli_ask.main(["--index", str(index_copy), DOSE_QUESTION]) == 0
    assert "500 mg" in capsys.readouterr().out


def test_artifacts_computed_by_other_code_are_computed_again(index_copy, ask_env, monkeypatch):
    (index_copy / CATALOG_FILE).write_text("{}", encoding="utf-8")  # would fail if it were read
    _edit_manifest(index_copy, lambda m: (m.__setitem__("code_sha256", {CATALOG_FILE: "0" * 64,
                                                                        DOSING_FILE: "1" * 64}),
                                          m["file_sha256"].pop(CATALOG_FILE)))
    assistant = _opened(index_copy, ask_env)
    try:
        assert assistant.service.stored_rows is None
        assert assistant.catalog.resolve("metformin").drug_ids == ["metformin"]
    finally:
        assistant.service.close()
    rows = stored.book_rows(index_copy)  # the browser's outline: read again, not the file's
    assert rows == read_book(assistant.service.all_chunks())
    monkeypatch.setattr(stored, "dosing_code_sha256", lambda: "1" * 64)
    assert stored.book_rows(index_copy) == read_dosing(index_copy / DOSING_FILE)


def test_an_edited_catalog_is_refused_at_open(index_copy, ask_env):
    text = (index_copy / CATALOG_FILE).read_text(encoding="utf-8")
    (index_copy / CATALOG_FILE).write_text(text.replace('"metformin"', '"metforminx"', 1), encoding="utf-8")
    with pytest.raises(IndexError_, match=CATALOG_FILE):
        RetrievalService.open(index_copy)
