"""Running the probes: fresh processes, a cold embedding cache, the load average before each timed run.

Every figure is kept as the list of its runs (value and the 1-minute load average before the run), so the
report can give median, min and max and say how busy the machine was.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

from duocthu_desktop import settings
from duocthu_desktop.retrieval.embed_cache import CACHE_FILE

ROOT = Path(__file__).resolve().parents[1]


def load() -> float:
    return round(os.getloadavg()[0], 2)


def child_env(cache_dir: Path | None = None, data_dir: Path | None = None, **extra: str) -> dict:
    """The environment of a probe: the real models, the benchmark's own cache and data folders."""
    env = dict(os.environ, HF_HUB_OFFLINE="1", ANONYMIZED_TELEMETRY="False",
               DUOCTHU_MODELS_DIR=str(settings.models_dir()))
    if cache_dir is not None:
        env["DUOCTHU_CACHE_DIR"] = str(cache_dir)
    env["DUOCTHU_DATA_DIR"] = str(data_dir or settings.cache_dir() / "bench" / "conversations")
    env.update(extra)
    return env


def probe(args: list[str], env: dict, timeout: float = 7200) -> dict:
    """Run `python -m bench.probes ARGS`; its JSON line, plus wall seconds and the load before it."""
    before = load()
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "bench.probes", *args], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=timeout, check=False)
    wall = time.perf_counter() - started
    line = next((x for x in reversed(out.stdout.splitlines()) if x.startswith("{")), None)
    if out.returncode != 0 or line is None:
        raise RuntimeError(f"probe {args[0]} failed ({out.returncode}): {out.stderr[-3000:]}")
    figures = json.loads(line)
    figures["wall"], figures["load"] = wall, before
    return figures


def fresh_cache(root: Path, name: str) -> Path:
    """An empty embedding cache folder of the benchmark's own (never the person's cache)."""
    folder = root / f"cold-cache-{name}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def cached_vectors(cache_dir: Path) -> int:
    path = cache_dir / CACHE_FILE
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=5) as db:
            return db.execute("SELECT count(*) FROM vectors").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def killed_and_resumed(pdf: Path, out: Path, cache_dir: Path, texts: int, kill_at: float = 0.4) -> dict:
    """A cold build SIGKILLed once `kill_at` of its `texts` (what a cold build embeds) are cached, then run
    again: what the rerun embedded."""
    env = child_env(cache_dir)
    proc = subprocess.Popen([sys.executable, "-m", "bench.probes", "ingest", str(pdf), str(out), "--embed"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    target = max(1, int(texts * kill_at))
    while cached_vectors(cache_dir) < target:
        if proc.poll() is not None:
            raise RuntimeError("the build ended before it could be killed")
        time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = cached_vectors(cache_dir)
    rerun = probe(["ingest", str(pdf), str(out), "--embed"], env)
    return {"cached_before_kill": done_before, "embed_texts": rerun.get("embed_texts"),
            "embedded_by_rerun": rerun.get("embedded_now"), "rerun_seconds": rerun["seconds"], "load": rerun["load"]}


def du_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file()) / 1e6


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


_ROW = re.compile(r"^\s*(?P<label>\S.*?)\s+(?P<median>-?\d+(?:\.\d+)?)\s+(?P<min>-?\d+(?:\.\d+)?)\s+"
                  r"(?P<max>-?\d+(?:\.\d+)?)\s*(?P<rest>.*)$")


def app_bench(index: Path, runs: int) -> dict:
    """`bench/app_bench.py --runs N` over `index`: its table as printed, and its rows as numbers."""
    env = child_env(DUOCTHU_INDEX=str(index))
    before = load()
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "app_bench.py"), "--runs", str(runs)], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=3600, check=False)
    if out.returncode != 0:
        return {"error": out.stderr[-1500:], "load": before}
    rows = {}
    for line in out.stdout.splitlines():
        m = _ROW.match(line)
        if m:
            rows[m["label"].strip()] = {k: float(m[k]) for k in ("median", "min", "max")} | {"rest": m["rest"]}
    return {"table": out.stdout.rstrip(), "runs_log": out.stderr.strip(), "rows": rows, "load": before}
