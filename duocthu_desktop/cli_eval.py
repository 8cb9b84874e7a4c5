"""`duocthu-eval`: run an eval file against an index; the report as JSON on stdout, one summary line on stderr.

Each case is one conversation. `expect` is checked on the last turn, `expect_turns` on the earlier ones, and
every turn of every case must also carry the disclaimer, cite every claim, copy every number of a claim from the
evidence it cites, and cite printed pages the page map knows (CONTRACT "Eval files"). Exit 0 always.

Beyond the CONTRACT's fields: `forbid` also reads every block's title (a wrong group label must not head the answer),
`warning_first` lists phrases the first block must hold, that block being a warning (the patient's contraindication
stated before any dose), and a case's optional `category` is counted in the totals' `by_category`.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
import uuid
from pathlib import Path

from duocthu_desktop import cli_ask
from duocthu_desktop.artifacts import PAGES_FILE, read_pages
from duocthu_desktop.errors import DuocthuError
from duocthu_desktop.messages import DISCLAIMER
from duocthu_desktop.payload import AnswerPayload
from duocthu_desktop.qa.verification.grounding import number_in_evidence, numbers_in, split_at_markers


class TurnCheck:
    """Failures of one turn, and the counts the totals add up."""

    def __init__(self) -> None:
        self.failures: list[str] = []
        self.ungrounded_numbers = 0
        self.forbidden_hits = 0
        self.uncited_claims = 0


def claims_text(payload: AnswerPayload) -> str:
    return "\n".join(claim.text for block in payload.blocks for claim in block.claims)


def titles_text(payload: AnswerPayload) -> str:
    return "\n".join(block.title for block in payload.blocks)


def check_warning_first(payload: AnswerPayload, phrases: list[str], check: TurnCheck, label: str) -> None:
    """The first block is a warning and states each phrase (title or claims, ignoring case)."""
    if not payload.blocks:
        check.failures.append(f"{label}: no blocks, expected a warning first stating {phrases}")
        return
    first = payload.blocks[0]
    if first.kind != "warning":
        check.failures.append(f"{label}: first block is {first.kind!r} ({first.title[:60]!r}), expected a warning")
    stated = (first.title + "\n" + "\n".join(claim.text for claim in first.claims)).lower()
    for phrase in phrases:
        if phrase.lower() not in stated:
            check.failures.append(f"{label}: first block does not state {phrase!r}")


def check_expect(payload: AnswerPayload, expect: dict, check: TurnCheck, label: str) -> None:
    """Every `expect` field of the CONTRACT."""
    claims = claims_text(payload)
    cited_drugs = {c.drug_id for c in payload.citations}
    cited_sections = {c.section_key for c in payload.citations}
    if "decision" in expect:
        wanted = expect["decision"] if isinstance(expect["decision"], list) else [expect["decision"]]
        if payload.decision not in wanted:
            check.failures.append(f"{label}: decision {payload.decision!r}, expected {wanted}")
    if "reason" in expect and payload.reason != expect["reason"]:
        check.failures.append(f"{label}: reason {payload.reason!r}, expected {expect['reason']!r}")
    for drug_id in expect.get("drug_ids", []):
        if drug_id not in cited_drugs:
            check.failures.append(f"{label}: no citation of drug {drug_id!r} (cited {sorted(cited_drugs)})")
    for key in expect.get("section_keys", []):
        if key not in cited_sections:
            check.failures.append(f"{label}: no citation of section {key!r} (cited {sorted(cited_sections)})")
    for number in expect.get("numbers", []):
        if number not in claims:
            check.failures.append(f"{label}: number {number!r} not in the claims")
    searchable = (claims + "\n" + payload.message).lower()
    for text in expect.get("text", []):
        if text.lower() not in searchable:
            check.failures.append(f"{label}: text {text!r} not in the claims or message")
    shown = "\n".join([claims, titles_text(payload), payload.message, *payload.quick_replies]).lower()
    for text in expect.get("forbid", []):
        if text.lower() in shown:
            check.forbidden_hits += 1
            check.failures.append(f"{label}: forbidden text {text!r} shown")
    replies = [r.lower() for r in payload.quick_replies]
    for wanted in expect.get("quick_replies", []):
        if not any(wanted.lower() in r for r in replies):
            check.failures.append(f"{label}: no quick reply matching {wanted!r} (got {payload.quick_replies})")
    if "warning_first" in expect:
        check_warning_first(payload, expect["warning_first"], check, label)


def check_turn(payload: AnswerPayload, chunk_texts: dict[str, str], printed_pages: set[int], check: TurnCheck,
               label: str) -> None:
    """The checks every turn passes: disclaimer, cited claims, grounded numbers, known pages."""
    if payload.disclaimer != DISCLAIMER:
        check.failures.append(f"{label}: disclaimer missing or altered")
    by_index = {c.index: c for c in payload.citations}
    for block in payload.blocks:
        for claim in block.claims:
            for piece, indices in split_at_markers(claim.text, claim.citations):
                if not re.search(r"\w", piece):
                    continue
                known = [by_index[i] for i in indices if i in by_index]
                if not known:
                    check.uncited_claims += 1
                    check.failures.append(f"{label}: uncited claim {piece.strip()[:60]!r}")
                    continue
                evidence = "\n".join(chunk_texts.get(c.chunk_id, c.quote) for c in known)
                for number in numbers_in(piece):
                    if not number_in_evidence(number, evidence):
                        check.ungrounded_numbers += 1
                        check.failures.append(f"{label}: number {number!r} not in its cited evidence")
    for citation in payload.citations:
        if citation.printed_page not in printed_pages:
            check.failures.append(f"{label}: citation [{citation.index}] printed page {citation.printed_page} "
                                  "not in the page map")


def run_case(assistant, case: dict, chunk_texts: dict[str, str], printed_pages: set[int],
             seconds: list[float]) -> tuple[dict, TurnCheck]:
    conversation = f"eval-{case.get('id', 'case')}-{uuid.uuid4().hex[:8]}"
    check = TurnCheck()
    payloads: list[dict] = []
    turns = case.get("turns", [])
    expect_turns = case.get("expect_turns", [])
    for n, question in enumerate(turns):
        started = time.perf_counter()
        payload = assistant.ask(question, conversation_id=conversation)
        seconds.append(time.perf_counter() - started)
        payloads.append(payload.model_dump())
        label = f"turn {n + 1}"
        check_turn(payload, chunk_texts, printed_pages, check, label)
        if n == len(turns) - 1:
            check_expect(payload, case.get("expect", {}), check, label)
        elif n < len(expect_turns) and expect_turns[n]:
            check_expect(payload, expect_turns[n], check, label)
    result = {"id": case.get("id"), "passed": not check.failures, "failures": check.failures, "payloads": payloads}
    return result, check


def run_eval(assistant, cases: list[dict], index_dir: Path | None) -> dict:
    chunk_texts = {c.chunk_id: c.text for c in assistant.service.all_chunks()}
    printed_pages: set[int] = set()
    if index_dir is not None and (index_dir / PAGES_FILE).exists():
        printed_pages = {p.printed for p in read_pages(index_dir / PAGES_FILE).pages if p.printed is not None}
    seconds: list[float] = []
    results = []
    totals = {"cases": len(cases), "passed": 0, "ungrounded_numbers": 0, "forbidden_hits": 0, "uncited_claims": 0}
    by_category: dict[str, dict[str, int]] = {}
    for case in cases:
        result, check = run_case(assistant, case, chunk_texts, printed_pages, seconds)
        results.append(result)
        totals["passed"] += int(result["passed"])
        totals["ungrounded_numbers"] += check.ungrounded_numbers
        totals["forbidden_hits"] += check.forbidden_hits
        totals["uncited_claims"] += check.uncited_claims
        if case.get("category"):
            counts = by_category.setdefault(case["category"], {"cases": 0, "passed": 0})
            counts["cases"] += 1
            counts["passed"] += int(result["passed"])
    if by_category:
        totals["by_category"] = dict(sorted(by_category.items()))
    totals["seconds_per_turn"] = {
        "median": round(statistics.median(seconds), 4) if seconds else 0.0,
        "max": round(max(seconds), 4) if seconds else 0.0,
    }
    return {"cases": results, "totals": totals}


def read_cases(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="duocthu-eval", description="Run an eval file; report JSON on stdout.")
    cli_ask.add_common_arguments(parser)
    parser.add_argument("file", type=Path, help="eval file, one JSON case a line")
    args = parser.parse_args(argv)
    try:
        cases = read_cases(args.file)
        assistant = cli_ask.open_assistant(args)
    except (OSError, ValueError, DuocthuError) as err:
        print(f"duocthu-eval: {err}", file=sys.stderr)
        return 2
    index_dir = Path(assistant.settings.index_dir) if assistant.settings.index_dir else None
    # Turns are timed as the app runs them: with the embedding model already loaded (the app loads it at start-up).
    warm_up_seconds = assistant.warm_up()
    report = run_eval(assistant, cases, index_dir)
    sys.stdout.write(json.dumps(report, ensure_ascii=False, indent=1) + "\n")
    t = report["totals"]
    print(
        f"duocthu-eval: {t['passed']}/{t['cases']} passed; ungrounded numbers {t['ungrounded_numbers']}, "
        f"forbidden hits {t['forbidden_hits']}, uncited claims {t['uncited_claims']}; seconds per turn median "
        f"{t['seconds_per_turn']['median']} max {t['seconds_per_turn']['max']} "
        f"(embedding model loaded beforehand in {warm_up_seconds:.1f} s)",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
