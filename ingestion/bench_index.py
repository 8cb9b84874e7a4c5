"""Benchmark the index: cold build (empty embedding cache) time and peak memory, warm rebuild time, and
retrieval latency (median, p95) for framed and dense search.

    python -m ingestion.bench_index [--artifacts DIR] [--rounds 30]

`--artifacts` is a folder `duocthu-ingest build --no-embed` made (default /tmp/duocthu-sample). The cold
build uses a fresh, temporary embedding cache so it really embeds everything it embeds (the Chỉ định chunks:
ingestion.index_build.DENSE_SECTIONS; dense search ranks only those); each build runs in its own process so its
peak memory is its own. The whole benchmark, sample and full size, is `python -m bench.run` (BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from duocthu_desktop import atomic, settings
from duocthu_desktop.artifacts import CHUNKS_FILE, MONOGRAPHS_FILE, read_chunks, read_monographs

ARTIFACTS = ("monographs.jsonl", "chunks.jsonl", "pages.json", "report.json")
DENSE_QUERIES = [
    "liều paracetamol cho trẻ em",
    "thuốc điều trị tăng huyết áp",
    "tác dụng phụ trên gan",
    "tương tác với rượu",
    "phụ nữ có thai dùng được không",
    "quá liều xử trí thế nào",
    "bảo quản nơi khô mát",
    "nhiễm khuẩn đường tiết niệu",
]


def build_into(artifacts: Path, out: Path, progress: bool = True) -> None:
    """What `duocthu-ingest build` does after the artifacts exist: stage, build the index, swap in."""
    from ingestion.index_build import build_index

    chunks = read_chunks(artifacts / CHUNKS_FILE)
    monographs = read_monographs(artifacts / MONOGRAPHS_FILE)
    with atomic.staged_dir(out) as stage:
        for name in ARTIFACTS:
            if (artifacts / name).exists():
                shutil.copy2(artifacts / name, stage / name)
        build_index(stage, chunks, monographs, progress=progress)


def _percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"median {statistics.median(ordered) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms (n={len(ordered)})"


def _timed_build(artifacts: Path, out: Path, env: dict) -> float:
    started = time.monotonic()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "ingestion.bench_index",
            "--artifacts",
            str(artifacts),
            "--build-only",
            str(out),
        ],
        env=env,
        check=True,
    )
    return time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ingestion.bench_index")
    parser.add_argument("--artifacts", type=Path, default=Path("/tmp/duocthu-sample"))
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--cache-dir", type=Path, help="embedding cache to use (default: a fresh temporary one)")
    parser.add_argument("--build-only", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    if args.build_only:
        build_into(args.artifacts, args.build_only)
        return 0

    work = Path(tempfile.mkdtemp(prefix="duocthu-bench-"))
    env = dict(
        os.environ, DUOCTHU_CACHE_DIR=str(work / "cache"), DUOCTHU_MODELS_DIR=str(settings.models_dir())
    )
    try:
        out = work / "index"
        cold = _timed_build(args.artifacts, out, env)
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        warm = _timed_build(args.artifacts, out, env)
        chunks = len(read_chunks(out / CHUNKS_FILE))
        print(f"chunks: {chunks}")
        print(f"cold build (empty embedding cache): {cold:.1f} s, peak memory {peak_mb:.0f} MB")
        print(f"warm rebuild (cache hit): {warm:.1f} s ({warm / cold:.0%} of cold)")

        from duocthu_desktop.retrieval.service import RetrievalService

        started = time.monotonic()
        service = RetrievalService.open(out)
        print(f"open index: {(time.monotonic() - started) * 1000:.0f} ms")
        started = time.monotonic()
        service.embedder.embed(["khởi động"], "query")
        print(f"embedding model load: {time.monotonic() - started:.1f} s")
        pairs = sorted({(c.drug_id, c.section_key) for c in service.all_chunks()})
        framed = []
        for i in range(args.rounds * 4):
            drug_id, key = pairs[i % len(pairs)]
            started = time.perf_counter()
            service.retrieve_framed(drug_id, key)
            framed.append(time.perf_counter() - started)
        dense = []
        for i in range(args.rounds):
            started = time.perf_counter()
            service.dense_search(
                DENSE_QUERIES[i % len(DENSE_QUERIES)] + (" " * (i // len(DENSE_QUERIES))), k=8
            )
            dense.append(time.perf_counter() - started)
        indication = []
        for i in range(args.rounds):
            started = time.perf_counter()
            service.search_indication(["tăng huyết áp", "hạ sốt", "đái tháo đường"][i % 3])
            indication.append(time.perf_counter() - started)
        print(f"retrieve_framed: {_percentiles(framed)}")
        print(f"dense_search (query embedding + Chroma, k=8): {_percentiles(dense)}")
        print(f"search_indication (lexical): {_percentiles(indication)}")
        service.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
