"""The two books the benchmark reads: the sample PDF and the synthetic full-size book, made on demand.

The full-size book (`../shared/tools/build_fullsize_book.py`: the sample's monographs 40 times over under made-up
names, 680 monographs on about 1,900 pages) takes minutes to render, so it is kept in the cache folder
(`settings.cache_dir()/bench/fullsize`) and reused; it is test data, never committed.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from duocthu_desktop import settings

SHARED = Path(__file__).resolve().parents[2] / "shared"
SAMPLE_PDF = SHARED / "corpus" / "duocthu-2018-sample.pdf"
SOURCE_DIR = SHARED / "corpus" / "source"
FULLSIZE_TOOL = SHARED / "tools" / "build_fullsize_book.py"
DEV_EVAL = SHARED / "eval" / "dev.jsonl"
COPIES = 40


@dataclass(frozen=True)
class Book:
    name: str  # "sample" or "full"
    pdf: Path


def bench_dir() -> Path:
    """Where the benchmark keeps what it makes (books, indexes, its own embedding caches)."""
    return settings.cache_dir() / "bench"


def sample_book() -> Book:
    return Book("sample", SAMPLE_PDF)


def fullsize_book(log=print) -> Book:
    """The synthetic full-size book, rendered now if the cache does not hold it yet."""
    folder = bench_dir() / "fullsize"
    pdf, gold = folder / "book.pdf", folder / "gold.json"
    if not pdf.is_file() or not gold.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        log(f"rendering the full-size book into {pdf} (a few minutes)")
        partial = folder / "book.partial.pdf"
        subprocess.run([sys.executable, str(FULLSIZE_TOOL), str(SOURCE_DIR), str(partial), str(gold), str(COPIES)],
                       check=True)
        partial.replace(pdf)
    return Book("full", pdf)
