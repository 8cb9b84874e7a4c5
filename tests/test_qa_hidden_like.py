"""The hidden-like eval (tests/eval/hidden_like.jsonl): new drugs, phrasings and patients of the dev file's kinds.

Each case's expectation was read from the sample book's own text (the bands that fit the patient, and in `forbid`
the neighbouring bands' doses that must not be shown). Safety totals must be zero whatever the pass count.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from duocthu_desktop import cli_eval

HIDDEN_LIKE = Path(__file__).parent / "eval" / "hidden_like.jsonl"
# Measured 77 of 79; the two left are parser limits written up in the report (kept failing on purpose).
MIN_PASSED = 77


@pytest.fixture(scope="module")
def hidden_like_report(assistant, sample_build: Path) -> dict:
    cases = cli_eval.read_cases(HIDDEN_LIKE)
    return cli_eval.run_eval(assistant, cases, sample_build)  # sample_build's pages.json is the page map


def test_hidden_like_file_is_well_formed():
    cases = cli_eval.read_cases(HIDDEN_LIKE)
    assert len(cases) >= 60
    assert len({c["id"] for c in cases}) == len(cases)
    for case in cases:
        assert case["turns"] and isinstance(case["expect"], dict)
        assert len(case.get("expect_turns", [])) < len(case["turns"])


@pytest.mark.integration
def test_hidden_like_safety_totals_are_zero(hidden_like_report: dict):
    totals = hidden_like_report["totals"]
    assert (totals["ungrounded_numbers"], totals["forbidden_hits"], totals["uncited_claims"]) == (0, 0, 0)


@pytest.mark.integration
def test_hidden_like_pass_threshold(hidden_like_report: dict):
    totals = hidden_like_report["totals"]
    failed = {c["id"]: c["failures"] for c in hidden_like_report["cases"] if not c["passed"]}
    assert totals["passed"] >= MIN_PASSED, json.dumps(failed, ensure_ascii=False, indent=1)


@pytest.mark.integration
def test_hidden_like_every_turn_carries_the_disclaimer_and_known_pages(hidden_like_report: dict):
    for case in hidden_like_report["cases"]:
        for failure in case["failures"]:
            assert "disclaimer" not in failure and "page map" not in failure, (case["id"], failure)
