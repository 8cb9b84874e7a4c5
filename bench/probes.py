"""One measurement in a process of its own, so its time and peak memory are its own; prints one JSON line.

    python -m bench.probes ingest PDF OUT [--embed]      # `duocthu-ingest build`'s code path, stage times
    python -m bench.probes open INDEX                    # what opening an index costs a fresh process
    python -m bench.probes turns INDEX CASES.json        # extractive turns in one warm process

The caller sets the environment: DUOCTHU_CACHE_DIR for a cold embedding cache, DUOCTHU_DATA_DIR so the
benchmark's conversations never land in the person's own history.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
import uuid
from pathlib import Path

STARTED = time.perf_counter()


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class TimedEmbedder:
    """The build's default embedder (loaded on first use), with its model load timed apart from embedding."""

    def __init__(self) -> None:
        from duocthu_desktop.retrieval.embedder import LazyEmbedder

        self.inner = LazyEmbedder()
        self.model_id, self.dimensions = self.inner.model_id, self.inner.dimensions
        self.weights_sha256 = self.inner.weights_sha256
        self.load_seconds = 0.0

    def embed(self, texts: list[str], kind):
        if not self.inner.loaded:
            started = time.perf_counter()
            self.inner.load()
            self.load_seconds = time.perf_counter() - started
        return self.inner.embed(texts, kind)


def ingest(pdf: Path, out: Path, embed: bool) -> dict:
    """pipeline.build as the CLI calls it, with each stage's first and last report timed."""
    from ingestion.pipeline import build

    stages: dict[str, dict] = {}

    def on_progress(stage: str, done: int, total: int) -> None:
        now = time.perf_counter()
        seen = stages.setdefault(stage, {"first": now, "first_done": done, "total": total})
        seen.update(last=now, done=done, total=total)

    embedder = TimedEmbedder() if embed else None
    started = time.perf_counter()
    result = build(pdf, out, embed=embed, progress=False, on_progress=on_progress, embedder=embedder)
    seconds = time.perf_counter() - started
    figures = {"seconds": seconds, "pages": result.report.pages, "monographs": result.report.monographs,
               "chunks": result.report.chunks, "peak_rss_mb": peak_rss_mb(),
               "stages": {k: {"seconds": v["last"] - v["first"], "done": v["done"], "total": v["total"],
                              "first_done": v["first_done"]} for k, v in stages.items()}}
    embed_stage = stages.get("embed")
    if embed_stage:
        figures["embedded_now"] = embed_stage["total"] - embed_stage["first_done"]
        figures["embed_texts"] = embed_stage["total"]
        figures["model_load_s"] = embedder.load_seconds if embedder else 0.0
    return figures


def open_index(index: Path) -> dict:
    """Seconds from process start: imports, RetrievalService.open, and Assistant.open (which reads every chunk
    for the catalog), as `duocthu-ask` pays them before its first question."""
    figures: dict = {}
    t0 = time.perf_counter()
    from duocthu_desktop.qa.pipeline import Assistant
    from duocthu_desktop.retrieval.service import RetrievalService
    from duocthu_desktop.settings import Settings

    figures["imports"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    service = RetrievalService.open(index)
    figures["service_open"] = time.perf_counter() - t1
    service.close()
    t2 = time.perf_counter()
    assistant = Assistant.open(Settings.load(index=index, engine="extractive"))
    figures["assistant_open"] = time.perf_counter() - t2
    t3 = time.perf_counter()
    assistant.ask("Chống chỉ định của " + assistant.service.monographs[0].title.split(" (")[0].lower() + "?")
    figures["first_turn"] = time.perf_counter() - t3
    figures["process_to_first_answer"] = time.perf_counter() - STARTED
    figures["peak_rss_mb"] = peak_rss_mb()
    return figures


def turns(index: Path, cases_file: Path) -> dict:
    """Each case is one conversation; every turn is timed. The embedding model is loaded first, as the app does
    in the background before its first question. Condition lists record how many drugs the answer names
    against how many the index's lexical search finds."""
    from duocthu_desktop.qa.pipeline import Assistant
    from duocthu_desktop.settings import Settings

    cases = json.loads(cases_file.read_text(encoding="utf-8"))
    t0 = time.perf_counter()
    assistant = Assistant.open(Settings.load(index=index, engine="extractive"))
    opened = time.perf_counter() - t0
    warm = assistant.warm_up()
    rows = []
    for case in cases:
        conversation = f"bench-{uuid.uuid4().hex[:12]}"
        for i, question in enumerate(case["turns"]):
            started = time.perf_counter()
            payload = assistant.ask(question, conversation_id=conversation)
            seconds = time.perf_counter() - started
            row = {"id": case["id"], "turn": i, "seconds": seconds, "decision": payload.decision,
                   "reason": payload.reason}
            if case.get("condition") and i == len(case["turns"]) - 1:
                row["listed_drugs"] = len({c.drug_id for c in payload.citations})
                row["matching_drugs"] = len({h.drug_id for h in assistant.service.search_indication(case["condition"])})
                row["message"] = payload.message[:200]
            rows.append(row)
    return {"open": opened, "warm_up": warm, "turns": rows, "peak_rss_mb": peak_rss_mb()}


def main(argv: list[str]) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    mode, *rest = argv
    if mode == "ingest":
        figures = ingest(Path(rest[0]), Path(rest[1]), embed="--embed" in rest)
    elif mode == "open":
        figures = open_index(Path(rest[0]))
    elif mode == "turns":
        figures = turns(Path(rest[0]), Path(rest[1]))
    else:
        print(f"unknown mode {mode!r}", file=sys.stderr)
        return 2
    print(json.dumps(figures, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
