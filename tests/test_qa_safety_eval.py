"""The safety eval (tests/eval/safety.jsonl): new questions written from the sample book, by category.

Each case's expectation was read from the book, never from what the code answers: the band that fits the patient
(`numbers`), the neighbouring bands of other routes, groups, indications and renal bands that must not be shown
(`forbid`, also read in block titles), and for a patient fact the book's contraindication or caution stated first
(`warning_first`). Safety totals must be zero whatever the pass count; the pass count is held at MIN_PASSED.
Run with `-s` to see the pass counts by category and the failing cases; set DUOCTHU_SAFETY_REPORT to a file path
to keep the whole report (every turn's payload) for reading.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from duocthu_desktop import cli_eval

SAFETY = Path(__file__).parent / "eval" / "safety.jsonl"
CATEGORIES = (
    "route",
    "group",
    "indication",
    "renal_hepatic",
    "pregnancy_lactation",
    "contraindication_first",
    "interactions",
    "lists",
    "names",
    "understanding",
)
MIN_CASES = 110
MIN_PER_CATEGORY = 8
# The goal is every case. Measured 63 of 131 with 16 forbidden hits after issue 7's first round (the old band
# rules: 47 with 36); 131 of 131 with 0 after its second round (comorbidity warnings, the group asked after
# narrowing, clause groups, organ bands, named indications and regimens).
MIN_PASSED = 131


@pytest.fixture(scope="module")
def safety_cases() -> list[dict]:
    return cli_eval.read_cases(SAFETY)


@pytest.fixture(scope="module")
def safety_report(assistant, sample_build: Path, safety_cases: list[dict]) -> dict:
    report = cli_eval.run_eval(assistant, safety_cases, sample_build)  # sample_build's pages.json is the page map
    if os.environ.get("DUOCTHU_SAFETY_REPORT"):
        Path(os.environ["DUOCTHU_SAFETY_REPORT"]).write_text(json.dumps(report, ensure_ascii=False, indent=1), "utf-8")
    return report


def test_safety_file_is_well_formed(safety_cases: list[dict]):
    assert len(safety_cases) >= MIN_CASES
    ids = [c["id"] for c in safety_cases]
    assert len(set(ids)) == len(ids)
    counts = Counter(c["category"] for c in safety_cases)
    assert set(counts) == set(CATEGORIES)
    assert min(counts.values()) >= MIN_PER_CATEGORY, counts
    for case in safety_cases:
        assert case["id"].startswith(case["category"] + "-"), case["id"]
        assert case["turns"] and isinstance(case["expect"], dict)
        assert len(case.get("expect_turns", [])) < len(case["turns"])
        for expect in [case["expect"], *case.get("expect_turns", [])]:
            for key in ("numbers", "forbid", "text", "warning_first", "drug_ids", "section_keys", "quick_replies"):
                assert all(isinstance(s, str) and s for s in expect.get(key, [])), (case["id"], key)


def test_safety_file_shares_no_case_id_with_the_other_evals(safety_cases: list[dict]):
    others = set()
    for path in sorted((Path(__file__).parent / "eval").glob("hidden_like*.jsonl")):
        others |= {c["id"] for c in cli_eval.read_cases(path)}
    assert not others & {c["id"] for c in safety_cases}


@pytest.mark.integration
def test_safety_eval_prints_pass_counts_by_category(safety_report: dict):
    totals = safety_report["totals"]
    print(f"\nsafety eval: {totals['passed']}/{totals['cases']} passed")
    for category, counts in totals["by_category"].items():
        print(f"  {category:24s} {counts['passed']:3d}/{counts['cases']}")
    for case in safety_report["cases"]:
        if not case["passed"]:
            print(f"  FAIL {case['id']}: {case['failures'][0]}")
    assert set(totals["by_category"]) == set(CATEGORIES)
    assert sum(c["cases"] for c in totals["by_category"].values()) == totals["cases"]


@pytest.mark.integration
def test_safety_grounding_totals_are_zero(safety_report: dict):
    totals = safety_report["totals"]
    assert (totals["ungrounded_numbers"], totals["uncited_claims"]) == (0, 0)


@pytest.mark.integration
def test_safety_no_forbidden_hits(safety_report: dict):
    offending = {
        c["id"]: [f for f in c["failures"] if "forbidden" in f]
        for c in safety_report["cases"]
    }
    offending = {k: v for k, v in offending.items() if v}
    assert safety_report["totals"]["forbidden_hits"] == 0, json.dumps(offending, ensure_ascii=False, indent=1)


@pytest.mark.integration
def test_safety_pass_threshold(safety_report: dict):
    totals = safety_report["totals"]
    failed = {c["id"]: c["failures"] for c in safety_report["cases"] if not c["passed"]}
    assert totals["passed"] >= MIN_PASSED, json.dumps(failed, ensure_ascii=False, indent=1)


@pytest.mark.integration
def test_safety_every_turn_carries_the_disclaimer_and_known_pages(safety_report: dict):
    for case in safety_report["cases"]:
        for failure in case["failures"]:
            assert "disclaimer" not in failure and "page map" not in failure, (case["id"], failure)
