"""Benchmark of the rebuild dialog's Cancel over the real stack (a script, not a test): how long from Cancel to
the build's BuildCancelled, when it is pressed while the embedding model loads and while it embeds a batch.

Each run builds the sample book with an empty embedding cache (a temporary DUOCTHU_CACHE_DIR, the models where
they are), through app.rebuild.run_build as the dialog calls it, and sets the cancel event either on the first
"embed" report (the model is loading then) or a second after the first batch is done (inside the next one). It also times the batches
of that build (each "embed" report after the first), for the batch size the cancel used to wait on.

    python bench/rebuild_cancel.py [--runs 2] [--pdf PDF]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MID_BATCH_S = 1.0  # Cancel pressed this long after a batch was done: inside the next one


def one(pdf: Path, when: str) -> dict:
    from duocthu_desktop.app import rebuild

    cancel = threading.Event()
    marks: dict[str, float] = {}
    batches: list[float] = []
    last = [0.0]

    def on_progress(stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if stage != "embed":
            return
        if "embed" not in marks:
            marks["embed"] = last[0] = now
            if when == "load":
                marks["cancel"] = now
                cancel.set()
            return
        batches.append(now - last[0])
        last[0] = now
        if when == "batch" and done > 0 and "armed" not in marks:  # a second into the next batch
            marks["armed"] = now

            def press() -> None:
                marks["cancel"] = time.monotonic()
                cancel.set()

            threading.Timer(MID_BATCH_S, press).start()

    with tempfile.TemporaryDirectory(prefix="rebuild-cancel-") as scratch:
        started = time.monotonic()
        try:
            rebuild.run_build(pdf, Path(scratch) / "index", on_progress, cancel)
            outcome = "built"
        except Exception as err:  # noqa: BLE001 - the outcome is what is measured
            outcome = type(err).__name__
        ended = time.monotonic()
    return {"when": when, "outcome": outcome, "cancel_s": ended - marks.get("cancel", ended),
            "to_embed_s": marks.get("embed", ended) - started, "batches": batches}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--pdf", default=str(ROOT.parent / "shared" / "corpus" / "duocthu-2018-sample.pdf"))
    args = parser.parse_args(argv)
    from duocthu_desktop.settings import ENV_CACHE_DIR, ENV_MODELS_DIR, models_dir

    os.environ.setdefault(ENV_MODELS_DIR, str(models_dir()))  # the models stay where they are
    rows = []
    for run in range(args.runs):
        for when in ("load", "batch"):
            with tempfile.TemporaryDirectory(prefix="rebuild-cache-") as cache:
                os.environ[ENV_CACHE_DIR] = cache  # nothing cached: the model must load and embed
                row = one(Path(args.pdf), when)
            rows.append(row)
            print(f"run {run + 1} cancel during {when}: {row['outcome']} {row['cancel_s']:.2f} s after Cancel "
                  f"(embedding began {row['to_embed_s']:.1f} s in; batches {[round(b, 1) for b in row['batches']]})",
                  file=sys.stderr)
    for when in ("load", "batch"):
        times = [r["cancel_s"] for r in rows if r["when"] == when]
        print(f"cancel during {when}: median {statistics.median(times):.2f} s, max {max(times):.2f} s "
              f"({len(times)} runs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
