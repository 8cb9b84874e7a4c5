"""`duocthu-eval`: run an eval file against an index; the report as JSON on stdout, one summary line on stderr.

Each case is one conversation. `expect` is checked on the last turn, `expect_turns` on the earlier ones, and
every turn of every case must also carry the disclaimer, cite every claim, copy every number of a claim from the
evidence it cites, and cite printed pages the page map knows (CONTRACT "Eval files"). Exit 0 for a run; 2 for a
file it refuses (a line that is not a case: one line naming the line and what is wrong) or no index; 130 for
Ctrl+C.

Beyond the CONTRACT's fields: `forbid` also reads every block's title (a wrong group label must not head the answer),
`warning_first` lists phrases the first block must hold, that block being a warning (the patient's contraindication
stated before any dose), and a case's optional `category` is counted in the totals' `by_category`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import statistics
import sys
import tempfile
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
             seconds: list[float], generation: list | None = None) -> tuple[dict, TurnCheck]:
    conversation = f"eval-{case.get('id', 'case')}-{uuid.uuid4().hex[:8]}"
    check = TurnCheck()
    payloads: list[dict] = []
    written: list[dict] = []  # what the model did in each turn, when a writer runs
    turns = case.get("turns", [])
    expect_turns = case.get("expect_turns", [])
    for n, question in enumerate(turns):
        started = time.perf_counter()
        book: list[float] = []  # when the book's answer was ready to show (the generative engine hands it over)
        if getattr(assistant, "writer", None) is not None:
            payload = assistant.ask(question, conversation_id=conversation,
                                    on_extractive=lambda _p, b=book, t=started: b.append(time.perf_counter() - t))
        else:
            payload = assistant.ask(question, conversation_id=conversation)
        seconds.append(time.perf_counter() - started)
        stats = getattr(assistant, "last_generation", None)
        if generation is not None and stats is not None:
            generation.append((stats, seconds[-1], payload.engine, book[0] if book else None))
            written.append(dataclasses.asdict(stats) | {"turn": n + 1, "turn_seconds": round(seconds[-1], 2),
                                                        "engine": payload.engine,
                                                        "book_answer_seconds": round(book[0], 3) if book else None})
        payloads.append(payload.model_dump())
        label = f"turn {n + 1}"
        check_turn(payload, chunk_texts, printed_pages, check, label)
        if n == len(turns) - 1:
            check_expect(payload, case.get("expect", {}), check, label)
        elif n < len(expect_turns) and expect_turns[n]:
            check_expect(payload, expect_turns[n], check, label)
    result = {"id": case.get("id"), "passed": not check.failures, "failures": check.failures, "payloads": payloads}
    if written:
        result["generation"] = written
    return result, check


def keep_out_of_history(assistant, scratch: Path) -> None:
    """An eval's questions are not the clinician's: its conversations and traces go to a scratch folder removed
    at the end, so they never appear among the app's past conversations."""
    from duocthu_desktop.qa.conversation.memory import ConversationStore
    from duocthu_desktop.qa.conversation.traces import TraceStore
    from duocthu_desktop.qa.pipeline import CONVERSATIONS_FILE, TRACES_FILE

    assistant.conversations = ConversationStore(scratch / CONVERSATIONS_FILE)
    assistant.traces = TraceStore(scratch / TRACES_FILE)


def run_eval(assistant, cases: list[dict], index_dir: Path | None) -> dict:
    chunk_texts = {c.chunk_id: c.text for c in assistant.service.all_chunks()}
    printed_pages: set[int] = set()
    if index_dir is not None and (index_dir / PAGES_FILE).exists():
        printed_pages = {p.printed for p in read_pages(index_dir / PAGES_FILE).pages if p.printed is not None}
    seconds: list[float] = []
    results = []
    totals = {"cases": len(cases), "passed": 0, "ungrounded_numbers": 0, "forbidden_hits": 0, "uncited_claims": 0}
    by_category: dict[str, dict[str, int]] = {}
    generation: list = []
    for case in cases:
        result, check = run_case(assistant, case, chunk_texts, printed_pages, seconds, generation)
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
    if getattr(assistant, "writer", None) is not None:
        totals["generation"] = generation_totals(generation)
    return {"cases": results, "totals": totals}


def generation_totals(turns: list) -> dict:
    """What the model did over the run: how often its answer was used, fell back or abstained, and why; the share
    of turns whose shown text the model wrote; how soon the book's answer was ready; calls, seconds and tokens a
    second over the turns it worked on. `turns`: (stats, seconds, engine shown, seconds to the book's answer)."""
    worked = [(s, sec) for s, sec, *_ in turns if s.calls]
    outcomes: dict[str, int] = {}
    reasons: dict[str, int] = {}
    for stats, *_ in turns:
        outcomes[stats.outcome] = outcomes.get(stats.outcome, 0) + 1
        if stats.reason:
            reasons[stats.reason] = reasons.get(stats.reason, 0) + 1
    model_seconds = sum(s.seconds for s, _ in worked)
    tokens = sum(s.completion_tokens + s.prompt_tokens for s, _ in worked)

    def spread(values: list[float]) -> dict:
        if not values:
            return {"median": 0.0, "p95": 0.0, "max": 0.0}
        ordered = sorted(values)
        return {"median": round(statistics.median(ordered), 2),
                "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
                "max": round(ordered[-1], 2)}

    shown_written = sum(1 for _, _, engine, *_ in turns if engine == "generative")
    book = [t[3] for t in turns if t[3] is not None]
    return {
        "turns": len(turns),
        "shown_written_by_model": shown_written,
        "shown_written_share": round(shown_written / len(turns), 3) if turns else 0.0,
        "book_answer_seconds": spread(book),
        "outcomes": dict(sorted(outcomes.items())),
        "reasons": dict(sorted(reasons.items())),
        "calls_per_turn": spread([float(s.calls) for s, _ in worked]),
        "seconds_per_turn": spread([sec for _, sec in worked]),
        "completion_tokens_per_second": round(sum(s.completion_tokens for s, _ in worked) / model_seconds, 1)
        if model_seconds else 0.0,
        "tokens_per_second": round(tokens / model_seconds, 1) if model_seconds else 0.0,
        "repaired": sum(1 for s, _ in worked if s.repaired),
    }


class EvalFileError(ValueError):
    """A line of an eval file that is not a case: its number and what is wrong, in one line."""


_TEXT_LISTS = ("drug_ids", "section_keys", "numbers", "text", "forbid", "quick_replies", "warning_first")


def _expect_problem(expect) -> str | None:
    if not isinstance(expect, dict):
        return f"must be an object, got {type(expect).__name__}"
    decision = expect.get("decision")
    if "decision" in expect and not (isinstance(decision, str) or (
            isinstance(decision, list) and decision and all(isinstance(d, str) for d in decision))):
        return "decision must be a string or a list of strings"
    if "reason" in expect and not isinstance(expect["reason"], (str, type(None))):
        return "reason must be a string or null"
    for key in _TEXT_LISTS:
        if key in expect and not (isinstance(expect[key], list) and all(isinstance(v, str) for v in expect[key])):
            return f"{key} must be a list of strings"
    unknown = sorted(set(expect) - {"decision", "reason", *_TEXT_LISTS})
    return f"unknown field {unknown[0]!r}" if unknown else None


def check_case(case) -> str | None:
    """What is wrong with one parsed line, or None for a case the runner can run."""
    if not isinstance(case, dict):
        return f"a JSON object expected, got {'an array' if isinstance(case, list) else type(case).__name__}"
    turns = case.get("turns")
    if not isinstance(turns, list):
        got = "missing" if turns is None else f"a {type(turns).__name__}"
        return f'"turns" must be a list of strings (what the person types), got {got}'
    if not turns:
        return '"turns" is empty'
    for n, turn in enumerate(turns):
        if not isinstance(turn, str) or not turn.strip():
            return f'"turns"[{n}] is {json.dumps(turn, ensure_ascii=False)}, not a question'
    if "expect" not in case:
        return '"expect" is missing'
    problem = _expect_problem(case["expect"])
    if problem:
        return f'"expect": {problem}'
    expect_turns = case.get("expect_turns", [])
    if not isinstance(expect_turns, list) or len(expect_turns) > len(turns):
        return '"expect_turns" must be a list with at most one entry a turn'
    for n, expect in enumerate(expect_turns):
        problem = _expect_problem(expect) if expect is not None else None
        if problem:
            return f'"expect_turns"[{n}]: {problem}'
    if "id" in case and not isinstance(case["id"], (str, int)):
        return '"id" must be a string'
    if "category" in case and not isinstance(case["category"], str):
        return '"category" must be a string'
    return None


def read_cases(path: Path) -> list[dict]:
    """Every case of the file, each checked: EvalFileError names the first line that is not a case."""
    cases = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                case = json.loads(line)
            except ValueError as err:
                raise EvalFileError(f"{path} line {number}: not JSON ({err})") from err
            problem = check_case(case)
            if problem:
                raise EvalFileError(f"{path} line {number}: {problem}")
            cases.append(case)
    return cases


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:
        return cli_ask.interrupted("duocthu-eval")


def _main(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(prog="duocthu-eval", description="Run an eval file; report JSON on stdout.")
    cli_ask.add_common_arguments(parser)
    parser.add_argument("file", type=Path, help="eval file, one JSON case a line")
    args = parser.parse_args(argv)
    try:
        cases = read_cases(args.file)
        assistant = cli_ask.open_assistant(args)
    except (OSError, ValueError, DuocthuError) as err:
        print(cli_ask.one_line(f"duocthu-eval: {err}"), file=sys.stderr)
        return 2
    # the folder the answers come from (in server mode, the server's files fetched into the cache)
    index_dir = getattr(assistant.service, "index_dir", None) or (
        Path(assistant.settings.index_dir) if assistant.settings.index_dir else None)
    # Turns are timed as the app runs them: with the embedding model already loaded (the app loads it at start-up).
    warm_up_seconds = assistant.warm_up()
    with tempfile.TemporaryDirectory(prefix="duocthu-eval-") as scratch:
        keep_out_of_history(assistant, Path(scratch))
        report = run_eval(assistant, cases, index_dir)
    sys.stdout.write(json.dumps(report, ensure_ascii=False, indent=1) + "\n")
    t = report["totals"]
    if "generation" in t:
        g = t["generation"]
        print(f"duocthu-eval: the model's wording shown in {g['shown_written_by_model']} of {g['turns']} turns; "
              f"model outcomes {g['outcomes']} reasons {g['reasons']}; calls per turn "
              f"{g['calls_per_turn']}; seconds per model turn {g['seconds_per_turn']}", file=sys.stderr)
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
