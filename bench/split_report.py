"""Figures on sample-e's two parts: dose statements against each part's gold, questions by category and part.

    python -m bench.split_report --index DIR [--part tuning|held_out|both] [--why "end of round 1"] [--json OUT]

The held-out part is the truth about monographs nobody tuned on, so this report shows it as counts only: how
many cases passed per category, and the field accuracies of its dose gold, never which case failed or what the
parser read. A rule motivated by one held-out failure would be tuning on the test (tests/heldout/README.md).
Each held-out look is appended to tests/heldout/LOOKS.md with its figures, so the note can say how often we looked.
The tuning part prints its failures in full: that is what tuning reads.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from duocthu_desktop.artifacts import CHUNKS_FILE, read_chunks
from duocthu_desktop.dosage.gold import FIELDS, measure, read_gold
from duocthu_desktop.dosage.parser import read_book

ROOT = Path(__file__).resolve().parents[1]
SPLIT = ROOT / "tests" / "heldout" / "sample_e_split.json"
LOOKS = ROOT / "tests" / "heldout" / "LOOKS.md"
PARTS = {
    "tuning": (ROOT / "tests" / "tuning" / "dosing_gold_tuning.jsonl", ROOT / "tests" / "tuning" / "questions_tuning.jsonl"),
    "held_out": (ROOT / "tests" / "heldout" / "dosing_gold_heldout.jsonl",
                 ROOT / "tests" / "heldout" / "questions_heldout.jsonl"),
}


def dose_figures(index_dir: Path, gold_path: Path) -> dict | None:
    """Field accuracy over every gold row: a row the parser did not find counts as wrong in every field. The rows
    are read from the index's chunks by the parser as it is now (what a turn reads), not from its dosing.jsonl."""
    if not gold_path.exists():
        return None
    gold = read_gold(gold_path)
    result = measure(gold, read_book(read_chunks(index_dir / CHUNKS_FILE)))
    matched, rows = result["matched"], result["rows"]
    fields = {f: round(acc * matched / rows, 4) if rows else 0.0 for f, acc in result["fields"].items()}
    return {"rows": rows, "matched": matched, "monographs": len({g["drug_id"] for g in gold}),
            "fields_over_all_rows": fields, "fields_over_matched": result["fields"],
            "misses": result["misses"], "unmatched": result["unmatched"]}


def question_figures(index_dir: Path, questions: Path) -> dict | None:
    """`duocthu-eval` in its own process, as a person would run it; its totals and each case's outcome."""
    if not questions.exists():
        return None
    run = subprocess.run([sys.executable, "-m", "duocthu_desktop.cli_eval", "--index", str(index_dir), str(questions)],
                         capture_output=True, text=True, check=True)
    report = json.loads(run.stdout)
    return {"totals": report["totals"],
            "failures": {c["id"]: c["failures"] for c in report["cases"] if not c["passed"]}}


def print_part(name: str, dose: dict | None, asked: dict | None, show_failures: bool) -> None:
    print(f"== {name}")
    if dose:
        print(f"dose gold: {dose['rows']} rows of {dose['monographs']} monographs, {dose['matched']} matched")
        print("  over all rows:  " + "  ".join(f"{f} {dose['fields_over_all_rows'][f]:.3f}" for f in FIELDS))
        print("  over matched:   " + "  ".join(f"{f} {dose['fields_over_matched'][f]:.3f}" for f in FIELDS))
        if show_failures:
            for field in FIELDS:
                for miss in dose["misses"][field]:
                    print(f"  miss {field}: {miss}")
            for text in dose["unmatched"]:
                print(f"  unmatched: {text}")
    if asked:
        t = asked["totals"]
        print(f"questions: {t['passed']}/{t['cases']} passed; forbidden hits {t['forbidden_hits']}, ungrounded "
              f"{t['ungrounded_numbers']}, uncited {t['uncited_claims']}")
        for cat, counts in t.get("by_category", {}).items():
            print(f"  {cat:24} {counts['passed']:3}/{counts['cases']:<3}")
        if show_failures:
            for case_id, why in asked["failures"].items():
                print(f"  FAIL {case_id}: {' | '.join(why)[:300]}")


def log_look(why: str, dose: dict | None, asked: dict | None) -> None:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout
    parts = [time.strftime("%Y-%m-%d %H:%M"), f"commit {commit.strip()}", why or "-"]
    if dose:
        parts.append("dose " + " ".join(f"{f} {v:.3f}" for f, v in dose["fields_over_all_rows"].items()))
    if asked:
        t = asked["totals"]
        parts.append(f"questions {t['passed']}/{t['cases']}, forbidden {t['forbidden_hits']}")
    if not LOOKS.exists():
        LOOKS.write_text("# Looks at the held-out figures\n\nOne line a look: when, at which commit, why, what.\n\n",
                         encoding="utf-8")
    with open(LOOKS, "a", encoding="utf-8") as fh:
        fh.write("- " + "; ".join(parts) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True, help="an index built from duocthu-2018-sample-e.pdf")
    parser.add_argument("--part", choices=("tuning", "held_out", "both"), default="tuning")
    parser.add_argument("--why", default="", help="why the held-out part is looked at now (logged)")
    parser.add_argument("--json", type=Path, help="write the figures (no held-out failures) here")
    args = parser.parse_args(argv)
    names = ("tuning", "held_out") if args.part == "both" else (args.part,)
    out = {"split": json.loads(SPLIT.read_text(encoding="utf-8"))["seed"]}
    for name in names:
        gold_path, questions = PARTS[name]
        dose, asked = dose_figures(args.index, gold_path), question_figures(args.index, questions)
        print_part(name, dose, asked, show_failures=name == "tuning")
        if name == "held_out":
            log_look(args.why, dose, asked)
            for part in (dose, asked):  # the held-out part leaves this report as counts only
                if part:
                    part.pop("misses", None), part.pop("unmatched", None), part.pop("failures", None)
        out[name] = {"dose": dose, "questions": asked}
    if args.json:
        args.json.write_text(json.dumps(out, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
