"""Opening a read-only index (issue 18): the first open copies it into the data folder and verifies the copy,
later opens reuse the copy; beside them, opening a writable index. Figures in BENCHMARKS.md.

    python -m bench.readonly_open RO_INDEX WRITABLE_INDEX [RUNS]

RO_INDEX is a read-only copy of an index (as root: a read-only bind mount, `mount -o bind,ro`).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

from duocthu_desktop.retrieval.service import RetrievalService
from duocthu_desktop.settings import Settings


def main(argv: list[str]) -> int:
    ro, rw = Path(argv[0]), Path(argv[1])
    runs = int(argv[2]) if len(argv) > 2 else 3
    with tempfile.TemporaryDirectory(prefix="duocthu-ro-bench.") as scratch:
        RetrievalService.open(rw, Settings(data_dir=Path(scratch) / "warm")).close()  # imports, file caches
        for run in range(runs):
            data = Path(scratch) / f"data-{run}"
            row = []
            for label, index in (("read-only, first open (copy + verify)", ro), ("read-only, again", ro),
                                 ("writable", rw)):
                started = time.perf_counter()
                RetrievalService.open(index, Settings(data_dir=data)).close()
                row.append(f"{label}: {time.perf_counter() - started:.2f} s")
            print(f"run {run + 1}: " + "; ".join(row))
            shutil.rmtree(data, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
