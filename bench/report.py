"""BENCHMARKS.md from the benchmark's results: the machine, each figure at both sizes, its growth, its goal."""

from __future__ import annotations

import math
import os
import platform
import statistics
from importlib import metadata

from bench.ingest_ratio import render as ingest_ratio
from bench.launch_bench import render as launch
from bench.measure import percentile, summary

# (goal, unit) per figure key, at the full size (issue 11).
GOALS = {
    "ingest_s": (180.0, "s"),
    "build_s": (1200.0, "s"),
    "dev_p95_ms": (300.0, "ms"),
    "book_p95_ms": (300.0, "ms"),
    "launch_s": (5.0, "s"),
    "app_rss_mb": (2500.0, "MB"),
}
RATES = {"pages_per_s", "texts_per_s"}  # higher is better; growth is read on their inverse


def machine() -> list[str]:
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            cpu = next((line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), cpu)
    except OSError:
        pass
    try:
        with open("/proc/meminfo", encoding="utf-8") as fh:
            ram = int(next(line for line in fh if line.startswith("MemTotal")).split()[1]) / 1024 / 1024
    except (OSError, StopIteration):
        ram = float("nan")

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "absent"

    return [f"- CPU: {cpu}, {os.cpu_count()} cores; RAM {ram:.0f} GB; {platform.system()} {platform.release()}",
            f"- Python {platform.python_version()}; torch {version('torch')}; sentence-transformers "
            f"{version('sentence-transformers')}; chromadb {version('chromadb')}; PyMuPDF {version('pymupdf')}"]


def _runs(results: dict, book: str, step: str) -> list[dict]:
    return results.get(book, {}).get(step, {}).get("runs", []) if isinstance(results.get(book, {}).get(step), dict) \
        else []


def figures(results: dict, book: str) -> dict[str, dict]:
    """Figure key -> summary (median/min/max/n) plus the loads its runs started under."""
    out: dict[str, dict] = {}

    def put(key: str, values: list[float], loads: list[float]) -> None:
        values = [v for v in values if v is not None and not math.isnan(v)]
        if values:
            out[key] = summary(values) | {"loads": loads}

    ingest = _runs(results, book, "ingest")
    loads = [r["load"] for r in ingest]
    put("ingest_s", [r["seconds"] for r in ingest], loads)
    put("pages_per_s", [r["pages"] / r["seconds"] for r in ingest], loads)
    put("ingest_rss_mb", [r["peak_rss_mb"] for r in ingest], loads)
    build = _runs(results, book, "build")
    loads = [r["load"] for r in build]
    put("build_s", [r["seconds"] for r in build], loads)
    put("embed_s", [r["stages"].get("embed", {}).get("seconds") for r in build], loads)
    put("embedded", [r.get("embedded_now") for r in build], loads)
    put("model_load_s", [r.get("model_load_s") for r in build], loads)
    put("texts_per_s", [r["embedded_now"] / (r["stages"]["embed"]["seconds"] - r.get("model_load_s", 0.0))
                        for r in build if r.get("embedded_now") and r["stages"].get("embed", {}).get("seconds")],
        loads)
    put("chroma_write_s", [r["stages"].get("index", {}).get("seconds") for r in build], loads)
    put("build_rss_mb", [r["peak_rss_mb"] for r in build], loads)
    put("index_mb", [r["index_mb"] for r in build], loads)
    put("chunks", [r["chunks"] for r in build or ingest], loads)
    put("pages", [r["pages"] for r in build or ingest], loads)
    opened = _runs(results, book, "open")
    loads = [r["load"] for r in opened]
    for key in ("imports", "service_open", "assistant_open", "first_turn", "process_to_first_answer"):
        put(f"open_{key}_s", [r[key] for r in opened], loads)
    turns = results.get(book, {}).get("turns", {})
    for name in ("dev", "book"):
        runs = turns.get(name, [])
        loads = [r["load"] for r in runs]
        secs = [[t["seconds"] for t in r["turns"]] for r in runs]
        put(f"{name}_median_ms", [statistics.median(s) * 1000 for s in secs if s], loads)
        put(f"{name}_p95_ms", [percentile(s, 0.95) * 1000 for s in secs if s], loads)
        put(f"{name}_max_ms", [max(s) * 1000 for s in secs if s], loads)
        put(f"{name}_turns", [len(s) for s in secs], loads)
    app = results.get(book, {}).get("app", {})
    for label, row in app.get("rows", {}).items():
        low = label.lower()
        key = ("launch_s" if "khởi động" in low else "app_rss_main_mb" if "bộ nhớ thường trú" in low
               else "app_rss_helpers_mb" if "tiến trình phụ" in low else None)
        if key:
            out[key] = {"median": row["median"], "min": row["min"], "max": row["max"], "n": None,
                        "loads": [app.get("load")]}
    if "app_rss_main_mb" in out:  # the app and its helper processes (where the model may run) together
        parts = [out["app_rss_main_mb"], out.get("app_rss_helpers_mb")]
        out["app_rss_mb"] = {k: sum(p[k] for p in parts if p) for k in ("median", "min", "max")} | {
            "n": None, "loads": [app.get("load")]}
    return out


LABELS = [  # key, label, unit, size the growth is read against ("pages" or "chunks"), format
    ("ingest_s", "Ingest without embeddings: time", "s", "pages", "{:.1f}"),
    ("pages_per_s", "Ingest without embeddings: pages a second", "pages/s", "pages", "{:.1f}"),
    ("ingest_rss_mb", "Ingest without embeddings: peak memory", "MB", "pages", "{:.0f}"),
    ("build_s", "Full build with embeddings, cold cache: time", "s", "chunks", "{:.0f}"),
    ("embed_s", "… of which embedding (model load included)", "s", "chunks", "{:.0f}"),
    ("model_load_s", "… of which loading the embedding model", "s", "chunks", "{:.0f}"),
    ("embedded", "… texts embedded (Chỉ định chunks only)", "", "chunks", "{:.0f}"),
    ("texts_per_s", "… texts embedded a second (model load excluded)", "texts/s", "chunks", "{:.1f}"),
    ("chroma_write_s", "… of which writing Chroma", "s", "chunks", "{:.1f}"),
    ("build_rss_mb", "Full build: peak memory", "MB", "chunks", "{:.0f}"),
    ("index_mb", "Index folder on disk", "MB", "chunks", "{:.0f}"),
    ("open_imports_s", "Fresh process: imports", "s", "chunks", "{:.2f}"),
    ("open_service_open_s", "Fresh process: RetrievalService.open", "s", "chunks", "{:.2f}"),
    ("open_assistant_open_s", "Fresh process: Assistant.open (catalog of every chunk)", "s", "chunks", "{:.2f}"),
    ("open_first_turn_s", "Fresh process: first turn", "s", "chunks", "{:.2f}"),
    ("open_process_to_first_answer_s", "Fresh process: start to first answer (≈ one `duocthu-ask`)", "s", "chunks",
     "{:.2f}"),
    ("dev_median_ms", "Extractive turn, dev questions: median", "ms", "chunks", "{:.1f}"),
    ("dev_p95_ms", "Extractive turn, dev questions: 95th percentile", "ms", "chunks", "{:.1f}"),
    ("dev_max_ms", "Extractive turn, dev questions: slowest", "ms", "chunks", "{:.1f}"),
    ("book_median_ms", "Extractive turn, the book's own drugs: median", "ms", "chunks", "{:.1f}"),
    ("book_p95_ms", "Extractive turn, the book's own drugs: 95th percentile", "ms", "chunks", "{:.1f}"),
    ("book_max_ms", "Extractive turn, the book's own drugs: slowest", "ms", "chunks", "{:.1f}"),
    ("launch_s", "App: launch to a usable window", "s", "chunks", "{:.2f}"),
    ("app_rss_main_mb", "App: resident memory of its own process after 10 turns", "MB", "chunks", "{:.0f}"),
    ("app_rss_helpers_mb", "App: resident memory of its helper processes (model, citations)", "MB", "chunks",
     "{:.0f}"),
    ("app_rss_mb", "App: resident memory in all, model loaded (sum of the two rows)", "MB", "chunks", "{:.0f}"),
]


def growth(key: str, sample: dict | None, full: dict | None, size_ratio: float | None) -> str:
    """How the cost grows from the sample to the full size: the exponent of cost against size."""
    if not sample or not full or not size_ratio or size_ratio <= 1:
        return ""
    a, b = sample["median"], full["median"]
    if key in RATES:
        a, b = 1 / a if a else 0, 1 / b if b else 0  # the cost of one page or text
        if a <= 0 or b <= 0:
            return ""
        ratio = b / a
        return f"×{ratio:.2f} per unit ({'flat' if 0.8 <= ratio <= 1.25 else 'worse' if ratio > 1.25 else 'better'})"
    if a <= 0 or b <= 0:
        return ""
    exponent = math.log(b / a) / math.log(size_ratio)
    kind = ("flat" if exponent < 0.2 else "sub-linear" if exponent < 0.85 else "linear" if exponent <= 1.15
            else "worse than linear")
    return f"×{b / a:.1f} ({kind}, exponent {exponent:.2f})"


def _cell(fig: dict | None, fmt: str) -> str:
    if not fig:
        return "—"
    text = fmt.format(fig["median"])
    if fig.get("n") and fig["n"] > 1:
        text += f" ({fmt.format(fig['min'])}–{fmt.format(fig['max'])}, {fig['n']} runs)"
    elif fig.get("n") == 1:
        text += " (1 run)"
    else:
        text += f" ({fmt.format(fig['min'])}–{fmt.format(fig['max'])})"
    return text


def _goal(key: str, full: dict | None) -> str:
    if key not in GOALS:
        return ""
    goal, unit = GOALS[key]
    if not full:
        return f"< {goal:g} {unit}: not measured"
    return f"< {goal:g} {unit}: {'**met**' if full['median'] < goal and full['max'] < goal * 1.0001 else '**missed**'}"


def _loads(fig: dict | None) -> str:
    loads = [x for x in (fig or {}).get("loads", []) if x is not None]
    if not loads:
        return ""
    return f"{min(loads):.1f}" if min(loads) == max(loads) else f"{min(loads):.1f}–{max(loads):.1f}"


def render(results: dict, extras: dict | None = None) -> str:
    """The whole BENCHMARKS.md; `extras` may hold "embed_options" (bench/embed_options.py --json), "quality"
    (bench/compare_indexes.py's summary lines), "ingest_ratio" (bench/ingest_ratio.py's figures) and "launch"
    (bench/launch_bench.py's)."""
    extras = extras or {}
    sample, full = figures(results, "sample"), figures(results, "full")
    ratios = {}
    for size in ("pages", "chunks"):
        if size in sample and size in full:
            ratios[size] = full[size]["median"] / sample[size]["median"]
    lines = ["# Benchmarks", "",
             "Written by `python -m bench.run` (see its docstring for the steps); do not edit by hand. The sample is "
             "the 17-monograph sample PDF; the full size is the synthetic book of "
             "`../shared/tools/build_fullsize_book.py` (the sample's monographs 40 times over under made-up names: "
             "forty monographs share each INN and text, so condition lists span forty times the sample's drugs).",
             "", "## Machine", "", *machine(), ""]
    if ratios:
        lines.append(f"Sizes: sample {sample['pages']['median']:.0f} pages / {sample['chunks']['median']:.0f} chunks; "
                     f"full {full['pages']['median']:.0f} pages / {full['chunks']['median']:.0f} chunks "
                     f"(×{ratios.get('pages', 0):.1f} pages, ×{ratios.get('chunks', 0):.1f} chunks). "
                     "Growth is the exponent of the cost against that size: ~0 flat, <0.85 sub-linear, ~1 linear.")
        lines.append("")
    lines += ["## Figures", "",
              "Median (min–max, runs). *Load* is the 1-minute load average before the runs (2 cores: above ~1 the "
              "machine was shared with other work and times are inflated).", "",
              "| figure | sample | full size | growth | goal (full size) | load (sample / full) |",
              "|---|---|---|---|---|---|"]
    for key, label, unit, size, fmt in LABELS:
        s, f = sample.get(key), full.get(key)
        if not s and not f:
            continue
        name = f"{label} ({unit})" if unit else label
        lines.append(f"| {name} | {_cell(s, fmt)} | {_cell(f, fmt)} | {growth(key, s, f, ratios.get(size))} | "
                     f"{_goal(key, f)} | {_loads(s)} / {_loads(f)} |")
    lines += ["", *ingest_ratio(extras.get("ingest_ratio")), *launch(extras.get("launch")),
              *_embed_options(extras.get("embed_options")),
              *_quality(extras.get("quality")),
              *_condition_lists(results), *_resume(results), *_app_tables(results), *_generative(results), *NOTES,
              ""]
    return "\n".join(lines)


def _embed_options(data: dict | None) -> list[str]:
    if not data:
        return []
    out = ["## The embedding build: options side by side", "",
           "`python -m bench.embed_options`: each option embeds the sample's chunks cold (straight through the model) "
           "and is scaled to the full-size book (its chunks are the sample's, 40 times); options over every chunk ran "
           "on a quarter of them. Seconds depend on the load (last column), so compare rows of similar load; the "
           "tokens a build embeds do not.", "",
           "| option | texts | tokens | s | tokens/s | full size, projected min | load |", "|---|---|---|---|---|---|---|"]
    for r in data.get("options", []):
        out.append(f"| {r['option']} | {r['chunks']} | {r['tokens']} | {r['seconds']} | {r['tokens_per_s']} | "
                   f"{r['full_minutes']} | {r.get('load', '')} |")
    quality = data.get("quality", [])
    if quality:
        out += ["", "A shorter token cut, checked where it matters (the Chỉ định vectors, the only ones searched):", "",
                "| cut | Chỉ định chunks cut | min cosine to the 512-token vector | median | dense top-5 changed |",
                "|---|---|---|---|---|"]
        out += [f"| {q['cut']} | {q['chi_dinh_chunks_cut']} | {q['min_cosine_to_512']} | {q['median_cosine_to_512']} | "
                f"{q['dense_top5_changed']} |" for q in quality]
    return [*out, ""]


def _quality(lines: list[str] | None) -> list[str]:
    if not lines:
        return []
    return ["## Retrieval quality check of the build change", "",
            "`python -m bench.compare_indexes`: every turn of every eval file (decision, reason, cited chunk ids in "
            "order, claims) on the sample indexed as before (every chunk embedded: `--every-chunk`, same artifacts) "
            "and as built now; the indication search, dense fallback included, on both; and Chroma's filtered "
            "search against exact cosine over the Chỉ định vectors, at both sizes (the placeholder vectors sit in "
            "the same vector index).", "", *[f"- {line}" for line in lines], ""]


NOTES = [
    "## What was changed for the full size", "",
    "- **Embedding build** (`ingestion/index_build.py`): only the sections a dense search ranks are embedded "
    "(`DENSE_SECTIONS`: Chỉ định, the only vector search, `RetrievalService._dense_indication`); every other chunk "
    "is stored whole with a placeholder vector drawn from its chunk id (`placeholder_vector`: distinct, about "
    "orthogonal to every real embedding, never near a query). Chỉ định is about 5 % of the book's tokens: the cold "
    "build drops from 64 minutes to the figure above. Same model, same 512-token cut: the Chỉ định vectors, the "
    "cache keys and the manifest's model id are unchanged, so existing caches and indexes stay valid. The cache "
    "commits every 8 texts (the model's batch), so a kill loses at most 8 texts' work.",
    "- **Index open**: the build now persists Chroma's vector log (`ChromaStore.persist_vector_log`); before, "
    "every open replayed the last 512 records into the vector index (1 s at full size). `all_chunks` reads "
    "`chunks.jsonl` when its sha256 is the manifest's `chunks_sha256` (0.4 s against 2 s from Chroma), else the "
    "store as before. `text.fold` and `fold_with_offsets` fold each distinct character once.",
    "- **Condition lists at full size** (table above): every matching drug is listed (all 120 for “tăng huyết "
    "áp”, no stop at 10). They were refused whole with `ungrounded_number` until the grounding check let a block "
    "title repeat the digits of the cited drug's printed name (four of the forty synthetic copies carry one, "
    "ZA1AMLODIPIN; in the real book, “Vitamin B12”). In the app such a list is the slowest turn (about 1.5 s from "
    "sending to the last of 120 blocks shown; the card is built in steps, so the window is never held).",
    "- **Launch at full size, 5.7 s to 3.2 s** (profiled with cProfile on the UI thread and pyinstrument on the "
    "open): the browser asked the folio of each of its 11,000 sections by scanning 1,922 pages (2.1 s on the UI "
    "thread; `PageMap` now looks both ways up in dicts); the 680 monographs were inserted into the shown tree one "
    "by one (now at once, 0.12 s); the PDF's page sizes (1 ms a page the first time) were read before the window "
    "was usable and now after, on a worker that pauses every 8 pages, since QtPdf holds Python's lock while it "
    "reads (without the pauses the UI thread waited 1.5 s); the catalog folds each distinct word once, per "
    "monograph (1.4 s to 1.0 s); dose statements are grouped by drug on the worker.",
    "- **Left in the open time**: `Catalog.__init__` (`qa/understanding/catalog.py`: the words of every chunk, "
    "then `_trade_variants`) is most of what remains of `Assistant.open` at full size (about 1.5 s); it could be "
    "computed once at build time into the index folder.",
    "- **Not changed, measured**: batch size (32 is slower than 8 on this CPU, and pads Chỉ định's mixed lengths "
    "more); threads (quiet machine: two torch threads embed 68 Chỉ định texts in 20 s, one in 39 s; under other "
    "work one thread sometimes beat two, which spin-wait; `OMP_WAIT_POLICY=PASSIVE` changed nothing when quiet and "
    "helped two threads by about a quarter once under load; `DUOCTHU_TORCH_THREADS` sets the build's threads); a "
    "shorter cut (changes the searched vectors, see above); ONNX/OpenVINO int8 (not measured: needs packages "
    "outside the project's dependencies). The full build above ran on a quiet machine; an earlier run with the "
    "machine shared (load 1.8–3.6) took 761 s, 643 s of it embedding: still under the goal.",
    "",
]


def _condition_lists(results: dict) -> list[str]:
    rows = []
    for book in ("sample", "full"):
        for run in results.get(book, {}).get("turns", {}).get("book", [])[:1]:
            for t in run["turns"]:
                if "listed_drugs" in t:
                    rows.append(f"| {book} | {t['id']} | {t['listed_drugs']} | {t['matching_drugs']} | "
                                f"{t['decision']} | {t['message'][:110]} |")
    if not rows:
        return []
    return ["## Condition lists", "",
            "Drugs the answer cites against drugs whose Chỉ định the index's lexical search matches (first run).", "",
            "| book | case | cited | matching | decision | message |", "|---|---|---|---|---|---|", *rows, ""]


def _resume(results: dict) -> list[str]:
    rows = []
    for book in ("sample", "full"):
        r = results.get(book, {}).get("resume")
        if not r:
            continue
        if "skipped" in r:
            rows.append(f"- {book}: skipped ({r['skipped']})")
            continue
        rows.append(f"- {book}: killed with {r['cached_before_kill']} of {r['embed_texts']} texts in the cache; the "
                    f"rerun embedded {r['embedded_by_rerun']} and finished in {r['rerun_seconds']:.0f} s "
                    f"(load {r['load']:.1f})")
    return ["## Resuming a killed build", "", *rows, ""] if rows else []


def _app_tables(results: dict) -> list[str]:
    out = []
    for book in ("sample", "full"):
        app = results.get(book, {}).get("app")
        if not app:
            continue
        out += [f"### App, {book} index (`bench/app_bench.py`, load {app.get('load')})", ""]
        out += ["```", app.get("table") or f"failed: {app.get('error', '')[-600:]}", "```", ""]
    return ["## App", "", *out] if out else []


def _generative(results: dict) -> list[str]:
    rows = []
    for book in ("sample", "full"):
        g = results.get(book, {}).get("generative")
        if g is None:
            continue
        rows.append(f"- {book}: " + (g["skipped"] if "skipped" in g else
                                     ", ".join(f"{k} {v}" for k, v in g.items() if k != "measured_at")))
    return ["## Generative path (tokens a second, seconds a turn, model calls a turn)", "",
            "`duocthu-eval --engine generative` over the dev questions, one process; seconds a turn count only the "
            "turns the model worked on (goal: median < 15 s, 95th percentile < 30 s on 2 cores). On the full-size book "
            "`passed` is not a quality figure: the dev file expects the sample's drug_ids, which the synthetic book "
            "renames ('zametformin'), so the extractive engine fails those cases there too.", "",
            *(rows or ["- not configured"]), ""]
