"""Benchmark of a built bundle (scripts/dist.sh): its size by part and its launch time (a script, not a test).

    python bench/bundle_bench.py BUNDLE_DIR [--runs 3]

Size: every file under the folder (links not counted twice), grouped by what it belongs to; the goal is the
bundle without the GGUF under 2.5 GB. Launch: the bundled `duocthu` started as a clinician would, from outside any
virtual environment (a bare environment, a fresh HOME, off-screen), timed from the process start to the window
being usable (index open, question box enabled: the app prints the moment with --launch-bench); goal < 5 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# (part, path fragments inside the bundle): the first that matches a file's path names its part
PARTS = [
    ("GGUF", ("bundled/models/gguf/",)),
    ("model", ("bundled/models/",)),
    ("index", ("bundled/",)),
    ("Qt", ("PySide6/", "shiboken6/", "libQt6", "libicu")),
    ("torch", ("torch/", "functorch/", "libtorch", "libgomp", "torchgen/")),
    ("chromadb", ("chromadb/", "chromadb_rust_bindings/")),
    ("llama.cpp", ("llama_cpp/",)),
    ("PyMuPDF", ("pymupdf/", "fitz/", "pymupdf_layout/", "pymupdf4llm/")),
    ("transformers", ("transformers/", "sentence_transformers/", "tokenizers/", "safetensors/", "huggingface_hub/")),
    ("numpy/scipy/sklearn", ("numpy/", "numpy.libs/", "scipy/", "scipy.libs/", "sklearn/", "scikit_learn")),
]
GOAL_WITHOUT_GGUF_GB = 2.5
LAUNCH_GOAL_S = 5.0


def part_of(relative: str) -> str:
    return next((name for name, marks in PARTS if any(m in relative for m in marks)), "rest")


def sizes(bundle: Path) -> dict[str, int]:
    totals: dict[str, int] = {}
    for path in bundle.rglob("*"):
        if path.is_symlink() or not path.is_file():
            continue
        part = part_of(path.relative_to(bundle).as_posix())
        totals[part] = totals.get(part, 0) + path.stat().st_size
    return totals


def launch_once(bundle: Path) -> tuple[float, float | None]:
    """Seconds from starting the bundled app to its window being usable, and to its embedding model loaded
    in the background (the app quits then)."""
    with tempfile.TemporaryDirectory(prefix="duocthu-launch-") as home:
        env = {"PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8", "QT_QPA_PLATFORM": "offscreen"}
        started = time.time()
        out = subprocess.run([str(bundle / "duocthu"), "--launch-bench"], env=env, capture_output=True, text=True,
                             timeout=300, check=False)
        marks = dict(line.split()[:2] for line in out.stdout.splitlines() if line.startswith(("ready ", "warm ")))
        if "ready" not in marks:
            raise SystemExit(f"bundle_bench: the app never became usable (exit {out.returncode}): "
                             f"{out.stderr.strip().splitlines()[-1:] or ['no output']}")
        if "embedding model not loaded" in out.stderr:
            raise SystemExit("bundle_bench: the embedding model did not load: "
                             + next(line for line in out.stderr.splitlines() if "not loaded" in line))
        if "in the app's process" in out.stderr:
            print("  (the embedding worker did not start: the model loaded in the app's process)")
        warm = float(marks["warm"]) - started if "warm" in marks else None
        return float(marks["ready"]) - started, warm


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", type=Path, help="the folder scripts/dist.sh printed")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not (args.bundle / "duocthu").is_file():
        print(f"bundle_bench: no bundle at {args.bundle} (run `bash scripts/dist.sh`)", file=sys.stderr)
        return 2
    totals = sizes(args.bundle)
    gb = 1e9
    for name in [p for p, _ in PARTS] + ["rest"]:
        if name in totals:
            print(f"size {name:22} {totals[name] / 1e6:9.1f} MB")
    whole = sum(totals.values())
    without = whole - totals.get("GGUF", 0)
    print(f"size {'total':22} {whole / 1e6:9.1f} MB")
    print(f"size {'without the GGUF':22} {without / 1e6:9.1f} MB  (goal < {GOAL_WITHOUT_GGUF_GB} GB: "
          f"{'met' if without / gb < GOAL_WITHOUT_GGUF_GB else 'NOT met'})")
    runs = []
    for n in range(1, args.runs + 1):
        seconds, warm = launch_once(args.bundle)
        runs.append(seconds)
        print(f"launch run {n}: usable in {seconds:.2f} s" + (f", model loaded at {warm:.2f} s" if warm else ""))
    print(f"launch median {statistics.median(runs):.2f} s, min {min(runs):.2f}, max {max(runs):.2f} "
          f"(goal < {LAUNCH_GOAL_S:g} s)")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
