"""The benchmark at the sample's size and at the real book's size; writes BENCHMARKS.md (a script, not a test).

    python -m bench.run [--books sample,full] [--steps ingest,build,resume,open,turns,app,generative] [--runs 3]

Steps, each on each book (the full-size book is rendered on demand into the cache, see bench.books):
  ingest      `duocthu-ingest build --no-embed`: seconds, pages a second, peak memory (3 runs)
  build       the full build with embeddings from an empty embedding cache of the benchmark's own: total and
              embedding seconds, texts embedded a second, peak memory, index size on disk (3 runs on the
              sample, 1 on the full-size book: it is the long one)
  resume      a cold build killed (SIGKILL) 40 % into its embedding, then run again: what the rerun embedded
  open        a fresh process opening the index: imports, RetrievalService.open, Assistant.open, first turn
  turns       extractive turns in a warm process over the dev questions and over questions made from the
              book's own monographs (condition lists included): median and 95th percentile (3 processes)
  app         `bench/app_bench.py`: launch to a usable window and the app's resident memory
  generative  `duocthu-eval --engine generative` over the dev questions (GGUF: DUOCTHU_GGUF, else the prepared
              default): outcomes, model calls a turn, seconds a turn, tokens a second

Results are kept in `bench_dir()/results.json`, step by step, so a rerun of some steps updates the report.
The ingest's speed against a bare PyMuPDF read of the same PDF is `bench/ingest_ratio.py` (its figures, kept
beside results.json, are rendered here too).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import books, measure, questions, report

STEPS = ("ingest", "build", "resume", "open", "turns", "app", "generative")
RESULTS = "results.json"


def log(text: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def _index(book: books.Book) -> Path:
    return books.bench_dir() / f"index-{book.name}"


def step_ingest(book: books.Book, runs: int) -> dict:
    out = books.bench_dir() / f"ingest-{book.name}"
    results = []
    for n in range(runs):
        log(f"{book.name}: ingest without embeddings, run {n + 1}/{runs} (load {measure.load()})")
        results.append(measure.probe(["ingest", str(book.pdf), str(out)], measure.child_env()))
    return {"runs": results}


def step_build(book: books.Book, runs: int) -> dict:
    out = _index(book)
    results = []
    for n in range(runs):
        cache = measure.fresh_cache(books.bench_dir(), book.name)
        log(f"{book.name}: full build, cold embedding cache, run {n + 1}/{runs} (load {measure.load()})")
        figures = measure.probe(["ingest", str(book.pdf), str(out), "--embed"], measure.child_env(cache))
        figures["index_mb"] = measure.du_mb(out)
        figures["chroma_mb"] = measure.du_mb(out / "chroma")
        results.append(figures)
        shutil.rmtree(cache, ignore_errors=True)
    return {"runs": results}


def step_resume(book: books.Book, previous: dict) -> dict:
    texts = next((r.get("embed_texts") for r in previous.get("build", {}).get("runs", []) if r.get("embed_texts")),
                 None)
    if not texts:
        return {"skipped": "run the build step first (it says how many texts a cold build embeds)"}
    cache = measure.fresh_cache(books.bench_dir(), f"{book.name}-resume")
    out = books.bench_dir() / f"resume-{book.name}"
    log(f"{book.name}: build killed half-way, then resumed (load {measure.load()})")
    try:
        return measure.killed_and_resumed(book.pdf, out, cache, texts)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)


def step_open(book: books.Book, runs: int) -> dict:
    results = []
    for n in range(runs):
        log(f"{book.name}: index open in a fresh process, run {n + 1}/{runs} (load {measure.load()})")
        results.append(measure.probe(["open", str(_index(book))], measure.child_env()))
    return {"runs": results}


def step_turns(book: books.Book, runs: int) -> dict:
    index = _index(book)
    sets = {"dev": questions.dev_cases(books.DEV_EVAL), "book": questions.book_cases(index)}
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix="duocthu-bench-q-") as tmp:
        for name, cases in sets.items():
            path = Path(tmp) / f"{name}.json"
            path.write_text(json.dumps(cases, ensure_ascii=False), encoding="utf-8")
            results[name] = []
            for n in range(runs):
                log(f"{book.name}: {name} questions ({len(cases)} conversations), run {n + 1}/{runs} "
                    f"(load {measure.load()})")
                results[name].append(measure.probe(["turns", str(index), str(path)], measure.child_env()))
    return results


def step_app(book: books.Book, runs: int) -> dict:
    log(f"{book.name}: app launch and memory (bench/app_bench.py, {runs} runs; load {measure.load()})")
    return measure.app_bench(_index(book), runs)


def step_generative(book: books.Book) -> dict:
    """`duocthu-eval --engine generative` over the dev questions, with the GGUF DUOCTHU_GGUF names (default: the
    prepared Qwen2.5-Coder-1.5B): the eval's own generation totals (outcomes, calls, seconds and tokens a turn)."""
    gguf = os.environ.get("DUOCTHU_GGUF")
    if not gguf:
        from models import gguf as gguf_files

        gguf = str(gguf_files.model_path())
    if not Path(gguf).is_file():
        return {"skipped": f"not configured (no GGUF at {gguf}: run `duocthu-models prepare` or set DUOCTHU_GGUF)"}
    log(f"{book.name}: generative turns over the dev questions with {Path(gguf).name} (load {measure.load()})")
    before = measure.load()
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "duocthu_desktop.cli_eval", "--index", str(_index(book)),
                          "--engine", "generative", "--model", gguf, str(books.DEV_EVAL)], cwd=measure.ROOT,
                         env=measure.child_env(), capture_output=True, text=True, timeout=7200, check=False)
    if out.returncode != 0:
        return {"error": out.stderr[-1500:], "load": before}
    totals = json.loads(out.stdout)["totals"]
    return {"model": Path(gguf).name, "load": before, "wall": round(time.perf_counter() - started, 1),
            "passed": f"{totals['passed']}/{totals['cases']}", "ungrounded_numbers": totals["ungrounded_numbers"],
            "forbidden_hits": totals["forbidden_hits"], "uncited_claims": totals["uncited_claims"],
            **totals["generation"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--books", default="sample,full")
    parser.add_argument("--steps", default=",".join(STEPS))
    parser.add_argument("--runs", type=int, default=3, help="repeats of the cheap figures (ingest, open, turns, app)")
    parser.add_argument("--build-runs", default="sample=3,full=1", help="cold full builds per book")
    parser.add_argument("--out", type=Path, default=measure.ROOT / "BENCHMARKS.md")
    parser.add_argument("--report-only", action="store_true", help="rewrite BENCHMARKS.md from results.json")
    args = parser.parse_args(argv)
    bench = books.bench_dir()
    bench.mkdir(parents=True, exist_ok=True)
    path = bench / RESULTS
    results = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    steps = [s for s in args.steps.split(",") if s]
    unknown = set(steps) - set(STEPS)
    if unknown:
        parser.error(f"unknown steps {sorted(unknown)}; known: {', '.join(STEPS)}")
    build_runs = dict(item.split("=") for item in args.build_runs.split(","))
    if not args.report_only:
        for name in [b for b in args.books.split(",") if b]:
            book = books.sample_book() if name == "sample" else books.fullsize_book(log)
            mine = results.setdefault(name, {})
            for step in steps:
                started = time.perf_counter()
                if step == "ingest":
                    mine[step] = step_ingest(book, args.runs)
                elif step == "build":
                    mine[step] = step_build(book, int(build_runs.get(name, 1)))
                elif step == "resume":
                    mine[step] = step_resume(book, mine)
                elif step == "open":
                    mine[step] = step_open(book, args.runs)
                elif step == "turns":
                    mine[step] = step_turns(book, args.runs)
                elif step == "app":
                    mine[step] = step_app(book, args.runs)
                else:
                    mine[step] = step_generative(book)
                mine[step]["measured_at"] = time.strftime("%Y-%m-%d %H:%M")
                log(f"{name}: {step} done in {time.perf_counter() - started:.0f} s")
                path.write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")
    extras = {}
    for key, name in (("embed_options", "embed_options.json"), ("quality", "quality.json"),
                      ("ingest_ratio", "ingest_ratio.json"), ("launch", "launch.json")):
        if (bench / name).is_file():
            extras[key] = json.loads((bench / name).read_text(encoding="utf-8"))
    args.out.write_text(report.render(results, extras), encoding="utf-8")
    log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
