"""The issue's figures: text similarity to the source, numbers verbatim, gold agreement, table rows."""

from __future__ import annotations

import pytest

from ingestion import measure


@pytest.fixture(scope="session")
def corpus(shared):
    return shared / "corpus"


def test_strip_source_drops_markup_and_leaked_headers():
    md = "# **PARACETAMOL**\n\nLiều 7,5 mg/kg. 116 **Aciclovir** DTQGVN 2 DTQGVN 2 **Acid acetylsalicylic** 117\n| a | b |\n|---|---|"
    out = measure.strip_source(md)
    assert "DTQGVN" not in out and "116" not in out and "117" not in out and "**" not in out
    assert "7,5 mg/kg" in out and "PARACETAMOL" in out


def test_source_numbers_keep_units_and_ranges():
    nums = measure.source_numbers("Uống 0,5 - 1 g/lần; 7,5 mg/kg; ADR < 1/1 000.")
    assert {"0,5 - 1 g/lần", "7,5 mg/kg", "1/1 000"} <= set(nums)


@pytest.mark.integration
def test_gold_agreement_is_total(sample_result, gold):
    assert measure.gold_agreement(sample_result, gold) == {"monographs": [], "section_keys": [], "folios": []}


@pytest.mark.integration
def test_every_monograph_matches_its_source_text(sample_result, corpus):
    sims = measure.similarities(sample_result, corpus)
    assert len(sims) == 17
    assert min(sims.values()) >= 0.99, sims


@pytest.mark.integration
def test_every_source_number_is_in_the_chunks(sample_result, corpus):
    assert measure.number_misses(sample_result, corpus) == {}


@pytest.mark.integration
def test_vancomycin_and_warfarin_table_rows_all_found(sample_result, corpus):
    for drug in ("vancomycin", "warfarin"):
        t = measure.table_rows(sample_result, corpus, drug)
        assert t["source_rows"] > 0 and t["rows_found_verbatim"] == t["source_rows"], (drug, t)


@pytest.mark.integration
def test_every_printed_character_of_the_monographs_is_in_the_artifacts_once(sample_result, sample_pdf):
    balance = measure.character_balance(sample_result, sample_pdf)
    assert balance["printed"] > 200_000
    assert balance["missing"] == 0 and balance["extra"] == 0, balance
