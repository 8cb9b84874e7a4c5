"""Benchmark of a rebuild's memory from the app (a script, not a test): the peak resident memory of the app's
process and all its children while the index in use is open, its embedding model loaded in its worker, and a
rebuild of the sample book embeds (issue 19: the rebuild used to load a second copy of the model).

Each run opens the sample index as the window does (`Session.open(..., embed_in_worker=True)`, the model loaded),
then runs `app.rebuild.run_build` as the dialog calls it with an empty embedding cache, either with its own
worker (`--mode own`, as before) or lent the open index's (`--mode shared`), and cancels it once the first
batch of new chunks has been embedded (both models, when there are two, are loaded then). The tree's resident
memory is sampled every 0.2 s.

    python -m bench.rebuild_memory --index DIR [--mode own|shared|both] [--runs 1] [--pdf PDF]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_S = 0.2


def tree_rss() -> tuple[int, int]:
    """(this process's RSS, its children's summed RSS), bytes."""
    me = psutil.Process()
    own = me.memory_info().rss
    children = 0
    for child in me.children(recursive=True):
        try:
            children += child.memory_info().rss
        except psutil.Error:
            pass
    return own, children


def one(index: Path, pdf: Path, mode: str) -> dict:
    from duocthu_desktop.app import rebuild
    from duocthu_desktop.app.session import Session
    from duocthu_desktop.settings import Settings

    session = Session.open(Settings(index_dir=index), warm_up=False, embed_in_worker=True)
    embedder = session.assistant.service.embedder
    embedder.load()
    peak = {"total": 0, "own": 0, "children": 0}
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            own, children = tree_rss()
            peak["total"] = max(peak["total"], own + children)
            peak["own"], peak["children"] = max(peak["own"], own), max(peak["children"], children)
            time.sleep(SAMPLE_S)

    opened = sum(tree_rss())
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    cancel = threading.Event()

    def on_progress(stage: str, done_: int, total: int) -> None:
        if stage == "embed" and done_ and done_ > 0:
            cancel.set()  # the first batch is embedded: every model this build uses is loaded

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="rebuild-memory-") as scratch:
        try:
            rebuild.run_build(pdf, Path(scratch) / "index", on_progress, cancel,
                              shared=embedder if mode == "shared" else None)
            outcome = "built"
        except Exception as err:  # noqa: BLE001 - the outcome is reported
            outcome = type(err).__name__
    took = time.monotonic() - started
    time.sleep(1.0)
    done.set()
    sampler.join()
    served = embedder._pool is not None
    session.close()
    return {"mode": mode, "outcome": outcome, "seconds": took, "opened_mb": opened / 2**20,
            "peak_mb": peak["total"] / 2**20, "peak_children_mb": peak["children"] / 2**20,
            "peak_app_mb": peak["own"] / 2**20, "worker_still_serving": served}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", required=True)
    parser.add_argument("--mode", choices=("own", "shared", "both"), default="both")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--pdf", default=str(ROOT.parent / "shared" / "corpus" / "duocthu-2018-sample.pdf"))
    parser.add_argument("--batch-timeout", type=float, default=None,
                        help="seconds a batch may take before the worker is given up (a loaded machine: raise it)")
    args = parser.parse_args(argv)
    if args.batch_timeout:
        from duocthu_desktop.app.embed_process import EmbedderProcess

        EmbedderProcess.EMBED_TIMEOUT_S = args.batch_timeout
    from duocthu_desktop.settings import ENV_CACHE_DIR, ENV_MODELS_DIR, models_dir

    os.environ.setdefault(ENV_MODELS_DIR, str(models_dir()))
    modes = ("own", "shared") if args.mode == "both" else (args.mode,)
    for run in range(args.runs):
        for mode in modes:
            with tempfile.TemporaryDirectory(prefix="rebuild-cache-") as cache:
                os.environ[ENV_CACHE_DIR] = cache  # nothing cached: the rebuild must embed
                load = os.getloadavg()[0]
                row = one(Path(args.index), Path(args.pdf), mode)
            print(f"run {run + 1} {mode}: {row['outcome']} in {row['seconds']:.1f} s; index open "
                  f"{row['opened_mb']:.0f} MB, peak {row['peak_mb']:.0f} MB (app {row['peak_app_mb']:.0f}, "
                  f"workers {row['peak_children_mb']:.0f}); open index's worker serving after: "
                  f"{row['worker_still_serving']}; load {load:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
