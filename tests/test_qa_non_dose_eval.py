"""The non-dose eval (tests/eval/non_dose.jsonl): questions about a drug that are not a dose, a contraindication,
an indication list or an interaction (a route, with a meal or milk, a missed dose, how to take it, the antidote
regimen, storage, pregnancy weeks, incompatibility), written from the sample book.

Each case names the words the book's answering sentence prints (`text`, `numbers`) and the contraindication list's
first items, which such a question must never be answered with (`forbid`). Before the sentence path (issue 17),
7 of 31 passed with 25 forbidden hits; the pass count is held at MIN_PASSED and forbidden hits at zero.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from duocthu_desktop import cli_eval

NON_DOSE = Path(__file__).parent / "eval" / "non_dose.jsonl"
MIN_CASES = 20
MIN_PASSED = 30


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return cli_eval.read_cases(NON_DOSE)


def test_file_is_well_formed(cases: list[dict]) -> None:
    assert len(cases) >= MIN_CASES
    ids = [c["id"] for c in cases]
    assert len(set(ids)) == len(ids)
    assert all(c.get("category") for c in cases)
    assert len(Counter(c["category"] for c in cases)) >= 6
    for case in cases:
        for key in ("numbers", "forbid", "text", "drug_ids", "section_keys"):
            assert all(isinstance(s, str) and s for s in case["expect"].get(key, [])), (case["id"], key)


@pytest.mark.integration
def test_non_dose_questions_get_the_sentence_that_answers(assistant, sample_build: Path, cases: list[dict]) -> None:
    report = cli_eval.run_eval(assistant, cases, sample_build)
    totals = report["totals"]
    failed = [(c["id"], c["failures"][:1]) for c in report["cases"] if not c["passed"]]
    assert totals["forbidden_hits"] == 0 and totals["ungrounded_numbers"] == 0 and totals["uncited_claims"] == 0
    assert totals["passed"] >= MIN_PASSED, failed


NON_DOSE_2 = Path(__file__).parent / "eval" / "non_dose_2.jsonl"
MIN_PASSED_2 = 15  # of 15; 11 before the section words, lab bands and list sentences of issue 17/19 round 4


@pytest.mark.integration
def test_the_second_non_dose_file_is_held(assistant, sample_build: Path) -> None:
    """tests/eval/non_dose_2.jsonl: incompatibility lists, storage, overdose by the INR band, the drugs whose level
    a drug raises, dilution concentrations (sample book)."""
    cases = cli_eval.read_cases(NON_DOSE_2)
    assert len({c["id"] for c in cases}) == len(cases) >= 10
    report = cli_eval.run_eval(assistant, cases, sample_build)
    totals = report["totals"]
    failed = [(c["id"], c["failures"][:1]) for c in report["cases"] if not c["passed"]]
    assert totals["forbidden_hits"] == 0 and totals["ungrounded_numbers"] == 0 and totals["uncited_claims"] == 0
    assert totals["passed"] >= MIN_PASSED_2, failed
