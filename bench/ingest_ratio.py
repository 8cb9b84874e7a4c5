"""Ingest speed against PyMuPDF's own floor (issue 17): `duocthu-ingest build --no-embed` and a bare
`page.get_text("dict")` over every page of the same PDF, each a whole process, runs interleaved (a script, not a
test).

    python -m bench.ingest_ratio --pdf PDF [--pdf PDF ...] [--runs 3] [--code DIR] [--baseline DIR]
                                 [--write BENCHMARKS.md]

The ratio is what ingest costs beyond reading the text layer once, the least any ingest must do. `--baseline DIR`
times the ingest of another checkout (a `git archive` of an earlier commit) in the same run, interleaved, so a
before/after pair shares the machine's load. Figures go to `bench_dir()/ingest_ratio.json`; `--write` also
replaces the "Ingest speed ratio (issue 17)" section of BENCHMARKS.md (bench.report renders it from that file).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.sections import replace_section

ROOT = Path(__file__).resolve().parents[1]
HEADING = "## Ingest speed ratio (issue 17)"
RESULTS = "ingest_ratio.json"
BARE = "import sys, pymupdf\ndoc = pymupdf.open(sys.argv[1])\nfor page in doc:\n    page.get_text('dict')\n"


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def timed(cmd: list[str], cwd: Path, env: dict) -> dict:
    """Wall seconds, CPU seconds and peak memory of one whole process (os.wait4: its own rusage)."""
    before = _load()
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {err[-1500:]}")
    return {"wall": round(wall, 3), "cpu": round(usage.ru_utime + usage.ru_stime, 3),
            "peak_mb": round(usage.ru_maxrss / 1024, 1), "load": before}


def _env(code: Path) -> dict:
    """The checkout `code` first on the path (run from it, so its own `ingestion` wins over the editable one)."""
    return dict(os.environ, PYTHONPATH=str(code), HF_HUB_OFFLINE="1", ANONYMIZED_TELEMETRY="False")


def measure(pdf: Path, runs: int, baseline: Path | None, code: Path = ROOT) -> dict:
    import pymupdf

    with pymupdf.open(pdf) as doc:
        pages = doc.page_count
    work = Path(tempfile.mkdtemp(prefix="duocthu-ratio-"))
    codes = {"ingest": code, **({"baseline": baseline} if baseline else {})}
    runs_of: dict[str, list[dict]] = {"bare": [], **{k: [] for k in codes}}
    try:
        for n in range(runs):
            print(f"[ratio] {pdf.name}: run {n + 1}/{runs} (load {_load()})", file=sys.stderr, flush=True)
            runs_of["bare"].append(timed([sys.executable, "-c", BARE, str(pdf)], work, _env(work)))
            for name, code in codes.items():
                out = work / f"out-{name}"
                shutil.rmtree(out, ignore_errors=True)
                cmd = [sys.executable, "-m", "ingestion.cli", "build", "--pdf", str(pdf), "--out", str(out),
                       "--no-embed"]
                runs_of[name].append(timed(cmd, code, _env(code)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    med = {k: statistics.median(r["wall"] for r in v) for k, v in runs_of.items()}
    return {"pdf": pdf.name, "pages": pages, "runs": runs_of, "median_wall": med,
            "ratio": {k: round(med[k] / med["bare"], 2) for k in codes},
            "baseline": str(baseline) if baseline else None,
            "measured_at": time.strftime("%Y-%m-%d %H:%M")}


def _cell(runs: list[dict], key: str, fmt: str) -> str:
    values = [r[key] for r in runs]
    return f"{statistics.median(values):{fmt}} ({min(values):{fmt}}–{max(values):{fmt}})"


def render(data: dict | None) -> list[str]:
    """The BENCHMARKS.md section from ingest_ratio.json's figures; [] when there are none."""
    if not data or not data.get("books"):
        return []
    baseline = data.get("baseline_note")
    out = [HEADING, "",
           "Each a whole process on the same PDF, runs interleaved (`python -m bench.ingest_ratio --pdf PDF --runs N"
           + (" --baseline DIR" if baseline else "") + "`, timed with `os.wait4`: wall, user+system CPU and peak "
           "resident memory of the process itself). *bare* is `for page in pymupdf.open(PDF): page.get_text(\"dict\")`"
           "; *ingest* is `duocthu-ingest build "
           "--no-embed` (dosing.jsonl included)" + (f"; *baseline* is {baseline}" if baseline else "")
           + ". Median (min–max) over the runs; the ratio is of the medians. *Load* is the 1-minute load average "
           "before each run (2 cores: above ~1 the machine was shared and walls are inflated, CPU much less).", "",
           "| book | pages | process | runs | wall (s) | CPU (s) | peak memory (MB) | ratio to bare, wall | "
           "ratio to bare, CPU | load |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for b in data["books"]:
        bare = b["runs"]["bare"]
        for name, runs in b["runs"].items():
            loads = [r["load"] for r in runs]
            if name == "bare":
                wall_ratio = cpu_ratio = "1"
            else:
                wall_ratio = f"×{_median(runs, 'wall') / _median(bare, 'wall'):.1f}"
                cpu_ratio = f"×{_median(runs, 'cpu') / _median(bare, 'cpu'):.1f}"
            out.append(f"| {b['pdf']} | {b['pages']} | {name} | {len(runs)} | {_cell(runs, 'wall', '.1f')} | "
                       f"{_cell(runs, 'cpu', '.1f')} | {_cell(runs, 'peak_mb', '.0f')} | {wall_ratio} | {cpu_ratio} "
                       f"| {min(loads):.1f}–{max(loads):.1f} |")
    out += ["", *data.get("notes", []), ""]
    return out


def _median(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pdf", type=Path, action="append", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose ingest is timed (this one)")
    parser.add_argument("--baseline", type=Path, help="another checkout whose ingest is timed alongside")
    parser.add_argument("--baseline-note", default="", help="what the baseline is, for the report")
    parser.add_argument("--note", action="append", default=[], help="a line under the table")
    parser.add_argument("--write", type=Path, help="BENCHMARKS.md to update")
    args = parser.parse_args(argv)
    from bench.books import bench_dir
    from duocthu_desktop import atomic

    folder = bench_dir()
    folder.mkdir(parents=True, exist_ok=True)
    kept = folder / RESULTS
    data = json.loads(kept.read_text(encoding="utf-8")) if kept.is_file() else {"books": []}
    books = [measure(pdf.resolve(), args.runs, args.baseline.resolve() if args.baseline else None,
                     args.code.resolve()) for pdf in args.pdf]
    measured = {b["pdf"] for b in books}  # a book measured again replaces its earlier figures
    data["books"] = [b for b in data["books"] if b["pdf"] not in measured] + books
    data["baseline_note"] = args.baseline_note or data.get("baseline_note", "")
    data["notes"] = args.note or data.get("notes", [])
    atomic.write_text(folder / RESULTS, json.dumps(data, ensure_ascii=False, indent=1))
    for b in books:
        print(f"{b['pdf']}: {b['pages']} pages, medians {b['median_wall']}, ratio {b['ratio']}")
    if args.write:
        atomic.write_text(args.write, replace_section(args.write.read_text(encoding="utf-8"), HEADING, render(data)))
        print(f"wrote {args.write}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
