"""A shared index on a Chroma server (issue 18): how long `duocthu-ingest publish` takes, and the first answer
of a fresh `duocthu-ask` from the server against the same from the folder (a script, not a test).

    python -m bench.server_bench --index DIR [--index DIR ...] [--runs N ...] [--write BENCHMARKS.md]

(`--runs` once for every index, or once for each; 3 by default.)

Each publish goes to a fresh chromadb server on loopback (`chroma run`, as the tests start it); a second publish
of the same index to it only checks what is there. The first answer from the server is timed with the fetched
files not yet cached (the first start on a desk) and cached (every later start). Runs are interleaved, so both
sides share the machine's load. `--write` replaces the section of BENCHMARKS.md this script owns.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from duocthu_desktop.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
HEADING = "## Shared index on a Chroma server (issue 18)"
QUESTION = "Chống chỉ định của metformin là gì?"
BIN = Path(sys.executable).parent


def _run(argv: list[str], env: dict) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:2])} failed ({done.returncode}): {done.stderr.strip()[-300:]}")
    return seconds


def _figure(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f}, {len(values)} runs)"


def _in_process(settings, env: dict | None = None) -> float:
    """Assistant.open and the first answer, in this process (imports and the embedding model excluded)."""
    from duocthu_desktop.qa.pipeline import Assistant

    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
        start = time.perf_counter()
        assistant = Assistant.open(settings)
        assistant.ask(QUESTION)
        seconds = time.perf_counter() - start
        assistant.service.close()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return seconds


def measure(index: Path, runs: int) -> dict[str, list[float]]:
    from tests.chroma_server import running_chroma_server

    found: dict[str, list[float]] = {k: [] for k in (
        "publish", "republish", "ask_local", "ask_server_cold", "ask_server_warm",
        "open_local", "open_server_cold", "open_server_warm")}
    with tempfile.TemporaryDirectory(prefix="duocthu-server-bench-") as tmp:
        base = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith("DUOCTHU_")}
        env.update(DUOCTHU_DATA_DIR=str(base / "data"), DUOCTHU_CONFIG_DIR=str(base / "config"),
                   ANONYMIZED_TELEMETRY="False", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
        for run in range(runs):
            with running_chroma_server(base / f"server-{run}" / "data") as url:
                publish = [str(BIN / "duocthu-ingest"), "publish", str(index), "--url", url]
                found["publish"].append(_run(publish, env))
                found["republish"].append(_run(publish, env))
                ask = [str(BIN / "duocthu-ask"), QUESTION]
                found["ask_local"].append(_run([*ask[:1], "--index", str(index), *ask[1:]], env))
                server_env = dict(env, DUOCTHU_CHROMA_URL=url, DUOCTHU_CACHE_DIR=str(base / f"cache-{run}"))
                found["ask_server_cold"].append(_run(ask, server_env))
                found["ask_server_warm"].append(_run(ask, server_env))
                found["open_local"].append(_in_process(Settings(index_dir=index, data_dir=base / "data")))
                cache = {"DUOCTHU_CACHE_DIR": str(base / f"cache-in-{run}")}
                for key in ("open_server_cold", "open_server_warm"):
                    found[key].append(_in_process(Settings(chroma_url=url, data_dir=base / "data"), cache))
    return found


def render(results: list[tuple[Path, int, dict[str, list[float]]]]) -> str:
    load = os.getloadavg()[0]
    rows = [
        ("`duocthu-ingest publish` to an empty server: read back, sent, checked, switched (s)", "publish"),
        ("`duocthu-ingest publish` again, the same index: checked only (s)", "republish"),
        ("Fresh `duocthu-ask`, start to first answer, from the folder (s)", "ask_local"),
        ("… from the server, first start on a desk (files fetched and checked) (s)", "ask_server_cold"),
        ("… from the server, files already cached (s)", "ask_server_warm"),
        ("In one process (imports excluded): `Assistant.open` and the first answer, from the folder (s)",
         "open_local"),
        ("… from the server, files fetched and checked (s)", "open_server_cold"),
        ("… from the server, files already cached (s)", "open_server_warm"),
    ]
    names = " and ".join(f"`{index.name}` ({chunks} chunks)" for index, chunks, _ in results)
    lines = [HEADING, "", f"`python -m bench.server_bench` over {names}: chromadb's own server on loopback, load "
             f"{load:.2f} at the end (2 cores: above ~1 the machine was shared and times are inflated). Median "
             "(min–max, runs).", "",
             "| figure | " + " | ".join(f"{index.name} (s)" for index, _, _ in results) + " |",
             "|---|" + "---|" * len(results)]
    lines += [f"| {label[:-4]} | " + " | ".join(_figure(found[key]) for _, _, found in results) + " |"
              for label, key in rows]
    return "\n".join(lines) + "\n"


def write(path: Path, section: str) -> None:
    text = path.read_text(encoding="utf-8")
    if HEADING in text:
        start = text.index(HEADING)
        nxt = text.find("\n## ", start + len(HEADING))
        text = text[:start] + section + (text[nxt + 1:] if nxt >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(prog="server_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, action="append", required=True)
    parser.add_argument("--runs", type=int, action="append")
    parser.add_argument("--write", type=Path)
    args = parser.parse_args()
    if shutil.which("duocthu-ask", path=str(BIN)) is None:
        raise SystemExit("run from the project's virtual environment (duocthu-ask not found beside python)")
    from duocthu_desktop.retrieval.manifest import read_manifest

    runs = args.runs or [3]
    section = render([(index, read_manifest(index).chunk_count, measure(index, runs[min(i, len(runs) - 1)]))
                      for i, index in enumerate(args.index)])
    print(section)
    if args.write:
        write(args.write, section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
