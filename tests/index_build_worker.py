"""A build run in its own process so a test can SIGKILL it half-way (see test_index_kill.py).

    python -m tests.index_build_worker ARTIFACTS OUT CACHE --dims N [--delay SECONDS] [--kill-at STEP]
                                       [--no-exchange]

Builds like `duocthu-ingest build` does after extraction (staged folder, build_index, swap), with the hashing
fake embedder slowed down by `--delay` seconds per text so there is a "half-way" to kill it at. `--kill-at`
sends the process SIGKILL at that step of the swap (atomic.swap_in's step names); `--no-exchange` takes the
two-rename swap the systems without renameat2 get.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import time
from pathlib import Path

from duocthu_desktop import atomic
from duocthu_desktop.artifacts import CHUNKS_FILE, MONOGRAPHS_FILE, read_chunks, read_monographs
from duocthu_desktop.retrieval.embed_cache import EmbeddingCache
from duocthu_desktop.retrieval.fakes import HashingEmbedder
from ingestion.index_build import build_index


class SlowEmbedder(HashingEmbedder):
    def __init__(self, dimensions: int, delay: float) -> None:
        super().__init__(dimensions)
        self.delay = delay

    def embed(self, texts, kind):
        time.sleep(self.delay * len(texts))
        return super().embed(texts, kind)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("artifacts", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("cache", type=Path)
    parser.add_argument("--dims", type=int, default=64)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--kill-at", default=None)
    parser.add_argument("--no-exchange", action="store_true")
    args = parser.parse_args(argv)
    if args.no_exchange:
        atomic.EXCHANGE = False
    if args.kill_at:
        def kill_at(step: str) -> None:
            if step == args.kill_at:
                os.kill(os.getpid(), signal.SIGKILL)

        atomic.step_hook = kill_at
    chunks = read_chunks(args.artifacts / CHUNKS_FILE)
    monographs = read_monographs(args.artifacts / MONOGRAPHS_FILE)
    cache = EmbeddingCache(args.cache)
    with atomic.staged_dir(args.out) as stage:
        for name in ("monographs.jsonl", "chunks.jsonl", "pages.json", "report.json"):
            if (args.artifacts / name).exists():
                shutil.copy2(args.artifacts / name, stage / name)
        build_index(stage, chunks, monographs, progress=True, embedder=SlowEmbedder(args.dims, args.delay),
                    cache=cache)
    cache.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
