"""Stage 2: running headers -> page map (folio or null), drug-name cross-check, reading-order facts."""

from __future__ import annotations

import pytest

from duocthu_desktop import artifacts
from ingestion.headers import header_matches, read_headers
from ingestion.spans import PageLayout, Span


def hspan(text, x0, bold=True, size=10.0):
    return Span(text, "F", size, bold, False, x0, 32, x0 + 8 * len(text), 42, 40)


def layout(physical, *spans):
    return PageLayout(physical=physical, width=595, height=842, header_spans=list(spans))


def test_folio_at_either_margin_and_repeated_mark_dropped_from_drug_name():
    pages = [
        layout(1),
        layout(2, hspan("DTQGVN 2", 48, bold=False), hspan("Abacavir", 278), hspan("99", 534)),
        layout(3, hspan("100", 48), hspan("Abacavir", 278), hspan("DTQGVN 2", 506, bold=False)),
        layout(4, hspan("DTQGVN 2", 48, bold=False), hspan("Acarbose", 277), hspan("101", 528)),
    ]
    heads = read_headers(pages)
    assert [h.printed for h in heads] == [None, 99, 100, 101]
    assert [h.drug_name for h in heads] == [None, "Abacavir", "Abacavir", "Acarbose"]


def test_a_number_in_the_middle_of_the_header_is_not_a_folio():
    heads = read_headers([layout(1, hspan("2018", 280)), layout(2, hspan("2018", 280))])
    assert [h.printed for h in heads] == [None, None]


def test_header_name_cross_check():
    assert header_matches("Paracetamol", ["PARACETAMOL (Acetaminophen)"])
    assert header_matches("Acid acetylsalicylic", ["ACID ACETYLSALICYLIC (Aspirin)"])
    assert not header_matches("Warfarin", ["VANCOMYCIN"])
    assert not header_matches(None, ["VANCOMYCIN"])


@pytest.mark.integration
def test_every_page_folio_equals_gold(sample_build, gold):
    pages = artifacts.read_pages(sample_build / artifacts.PAGES_FILE)
    assert [(p.physical, p.printed) for p in pages.pages] == [
        (g["physical"], g["printed"]) for g in gold["pages"]
    ]
    assert pages.printed_for(3) == 99 and pages.printed_for(1) is None
    assert pages.physical_for(1120) == 46


@pytest.mark.integration
def test_report_keeps_page_facts_with_header_drug_names(sample_build):
    import json

    report = json.loads((sample_build / artifacts.REPORT_FILE).read_text(encoding="utf-8"))
    facts = {f["physical"]: f for f in report["page_facts"]}
    assert facts[3]["header_drug"] == "Abacavir" and facts[3]["printed"] == 99
    assert facts[1]["printed"] is None
    assert report["gates"]["header_drug_mismatches"] == 0
    assert report["gates"]["reading_order_jumps"] == 0
