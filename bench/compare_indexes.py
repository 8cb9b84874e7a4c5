"""Do two indexes of the same book answer the eval files alike? (the quality check of an index build change)

    python -m bench.compare_indexes BEFORE_DIR AFTER_DIR FILE.jsonl...
    python -m bench.compare_indexes --exact INDEX_DIR     # Chroma's filtered search against exact cosine
    python -m bench.compare_indexes --every-chunk INDEX_DIR OUT_DIR   # the "before" index: every chunk embedded

Each summary line is also appended to `bench_dir()/quality.json`, which BENCHMARKS.md quotes.

Runs `duocthu-eval` over each file on both indexes and compares every turn of every case: decision, reason,
the cited chunk ids in order, and the claims' text. Then asks both indexes' indication search (the only dense
search) for conditions no Chỉ định names word for word, so the dense fallback runs, and compares the drugs and
distances. Prints one line per file and each difference; exit 1 if any. Conversations go to a temporary data
folder, never the person's own.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def record(line: str) -> None:
    """Print a summary line and keep it for the report (bench.report reads quality.json)."""
    from bench.books import bench_dir

    print(line)
    path = bench_dir() / "quality.json"
    lines = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []
    lines.append(f"{time.strftime('%Y-%m-%d %H:%M')} {line}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(lines, ensure_ascii=False, indent=1), encoding="utf-8")


def _eval(index: Path, path: Path, data: Path) -> dict:
    env_data = {"DUOCTHU_DATA_DIR": str(data), "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}
    import os

    out = subprocess.run(["duocthu-eval", "--index", str(index), "--engine", "extractive", str(path)],
                         env=dict(os.environ, **env_data), capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _turns(report: dict) -> dict[str, list[tuple]]:
    by_case = {}
    for case in report["cases"]:
        by_case[case["id"]] = [
            (p["decision"], p["reason"], [c["chunk_id"] for c in p["citations"]],
             [claim["text"] for block in p["blocks"] for claim in block["claims"]])
            for p in case["payloads"]
        ]
    return by_case


def compare(before: Path, after: Path, path: Path) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="duocthu-cmp-") as tmp:
        a = _eval(before, path, Path(tmp) / "a")
        b = _eval(after, path, Path(tmp) / "b")
    ta, tb = _turns(a), _turns(b)
    diffs = []
    for case_id in ta:
        for i, (x, y) in enumerate(zip(ta[case_id], tb.get(case_id, []), strict=False)):
            if x != y:
                diffs.append(f"  {case_id} turn {i}: {x[:3]} -> {y[:3]}")
    record(f"{path.name}: {len(ta)} cases, passed {a['totals']['passed']} before / {b['totals']['passed']} after, "
           f"{len(diffs)} turns differ ({before.name} -> {after.name})")
    return diffs


def compare_dense(before: Path, after: Path) -> list[str]:
    """search_indication on both indexes, one embedder: the same drugs in the same order, distances within 1e-4."""
    from bench.embed_options import DENSE_CONDITIONS
    from duocthu_desktop.retrieval.embedder import SentenceTransformerEmbedder
    from duocthu_desktop.retrieval.service import RetrievalService

    embedder = SentenceTransformerEmbedder()
    services = [RetrievalService.open(folder, embedder=embedder) for folder in (before, after)]
    diffs, dense = [], 0
    try:
        for condition in DENSE_CONDITIONS:
            a, b = ([(h.drug_id, h.method, round(h.score, 4)) for h in s.search_indication(condition)]
                    for s in services)
            dense += any(m == "dense" for _, m, _ in a)
            if [x[:2] for x in a] != [x[:2] for x in b] or any(
                    abs(x[2] - y[2]) > 1e-4 for x, y in zip(a, b, strict=False)):
                diffs.append(f"  {condition!r}: {a} -> {b}")
    finally:
        for service in services:
            service.close()
    record(f"indication search: {len(DENSE_CONDITIONS)} conditions ({dense} through the dense fallback), "
           f"{len(diffs)} differ ({before.name} -> {after.name})")
    return diffs


def exact_check(index: Path, k: int = 50) -> list[str]:
    """The dense indication search Chroma answers (HNSW, filtered on Chỉ định, beside the placeholder vectors of
    every other chunk) against the exact nearest Chỉ định chunks by cosine, for each condition: the same ids in
    the same order."""
    import numpy as np

    from bench.embed_options import DENSE_CONDITIONS
    from duocthu_desktop.retrieval.embedder import SentenceTransformerEmbedder
    from duocthu_desktop.retrieval.service import INDICATION_SECTION, RetrievalService

    embedder = SentenceTransformerEmbedder()
    service = RetrievalService.open(index, embedder=embedder)
    diffs = []
    try:
        chunks, vectors = service.store.vectors()
        keep = [i for i, c in enumerate(chunks) if c.section_key == INDICATION_SECTION]
        ids = [chunks[i].chunk_id for i in keep]
        matrix = np.array([vectors[i] for i in keep], dtype=np.float32)
        for condition in DENSE_CONDITIONS:
            query = np.array(embedder.embed([condition], "query")[0], dtype=np.float32)
            exact = [ids[i] for i in np.argsort(-(matrix @ query), kind="stable")[:k]]
            found = [c.chunk_id for c, _ in service.dense_search(condition, k=k, where={"section_key": INDICATION_SECTION})]
            if found != exact:
                same = sum(1 for a, b in zip(found, exact, strict=False) if a == b)
                diffs.append(f"  {condition!r}: {same}/{k} in the exact order; "
                             f"{len(set(found) & set(exact))}/{k} in the exact top {k}")
    finally:
        service.close()
    record(f"{index.name}: {len(keep)} Chỉ định chunks of {len(chunks)}; {len(DENSE_CONDITIONS)} conditions, "
           f"top {k} of Chroma's filtered search: {len(diffs)} differ from exact cosine")
    return diffs


def build_every_chunk_embedded(source: Path, out: Path) -> None:
    """The index as built before the build embedded only DENSE_SECTIONS: every chunk embedded (through the
    person's embedding cache, so what an earlier build embedded is not embedded again)."""
    import shutil

    from duocthu_desktop.artifacts import CHUNKS_FILE, MONOGRAPHS_FILE, read_chunks, read_monographs
    from ingestion import index_build

    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for name in ("monographs.jsonl", "chunks.jsonl", "pages.json", "report.json", "dosing.jsonl"):
        if (source / name).exists():
            shutil.copy2(source / name, out / name)
    chunks = read_chunks(out / CHUNKS_FILE)
    index_build.DENSE_SECTIONS = frozenset(c.section_key for c in chunks)
    index_build.build_index(out, chunks, read_monographs(out / MONOGRAPHS_FILE), progress=False)


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--every-chunk":
        build_every_chunk_embedded(Path(argv[1]), Path(argv[2]))
        return 0
    if argv and argv[0] == "--exact":
        diffs = exact_check(Path(argv[1]))
        for line in diffs:
            print(line)
        return 1 if diffs else 0
    before, after, *files = (Path(x) for x in argv)
    differences = 0
    diffs = compare_dense(before, after)
    differences += len(diffs)
    for line in diffs:
        print(line)
    for path in files:
        diffs = compare(before, after, path)
        differences += len(diffs)
        for line in diffs:
            print(line)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
