"""Launch and one-question benchmark, warm and cold, before and after (issue 19; a script, not a test).

    python -m bench.launch_bench --index NAME=DIR[,DIR] [--index ...] [--runs 3] [--what app,ask,list]
                                 [--cold] [--baseline DIR] [--write BENCHMARKS.md]

  app  a fresh process opens the window (off-screen) over the index: seconds from process start until the question
       box is enabled and a key typed into it is taken ("typing accepted"), as `duocthu` does it
  ask  one `duocthu-ask --index DIR QUESTION` process, start to answer
  list a warm turn: a process opens the index, warms up as the app does, then one turn of a condition list with
       a patient fact (`--list-question`, every matching drug's contraindications read): that turn's seconds

Each run is timed with `os.wait4`: wall seconds, and the CPU seconds of the process itself (user + system: about
what it costs on an idle machine; on a shared one the wall is that plus the wait for a core). `--cold` evicts
from the page cache, before each run, every file the process reads: the virtual environment, the code, the index
folder and the embedding model (posix_fadvise DONTNEED, file by file: this program's files only, never the whole
machine's cache), as on the first launch after install or after a reboot; without it, each run follows the one
before (warm). `--baseline DIR` runs another checkout (a `git archive` of an earlier commit) in turn with this one,
run by run, so a before/after pair shares the machine's load; `NAME=DIR,DIR` gives it an index of its own (the
second: an index the earlier code can read, the same book built before its new artifacts). Figures are merged into `bench_dir()/launch.json`;
`--write` also replaces the "Launch and one question (issue 19)" section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from bench.sections import replace_section

ROOT = Path(__file__).resolve().parents[1]
HEADING = "## Launch and one question (issue 19)"
RESULTS = "launch.json"
QUESTION = "Liều paracetamol cho trẻ em 6 tuổi nặng 20 kg, đường uống?"
LIST_QUESTION = "Thuốc nào trị tăng huyết áp cho người suy thận?"


def evict(paths: list[Path]) -> int:
    """Drop these files' pages from the page cache; the number of files asked."""
    count = 0
    for root in paths:
        files = [root] if root.is_file() else (p for p in root.rglob("*") if p.is_file() and not p.is_symlink())
        for path in files:
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError:
                continue
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                count += 1
            except OSError:
                pass
            finally:
                os.close(fd)
    return count


def read_paths(index: Path, code: Path) -> list[Path]:
    """What a launch reads from disk: the venv, the code, the index, the embedding model."""
    from models.embedding_gemma import model_dir

    venv = Path(sysconfig.get_paths()["purelib"]).parents[2]
    return [venv, code, index, model_dir()]


def app_child() -> int:
    """One launch (run as a child): prints one JSON line, the wall clock when typing was first accepted."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from duocthu_desktop.app.main import tune_process
    from duocthu_desktop.app.main_window import MainWindow
    from duocthu_desktop.settings import Settings

    tune_process()
    app = QApplication([])
    window = MainWindow(Settings.load())

    def ready() -> None:
        box = window.question_box
        QTest.keyClick(box, Qt.Key.Key_L)
        typed = (box.toPlainText() if hasattr(box, "toPlainText") else box.text()).strip()
        print(json.dumps({"ready_wall": time.time(), "enabled": box.isEnabled(), "typed": typed}), flush=True)
        os._exit(0)  # what follows (the model, the PDF, in the background) is not what is measured

    window.session_ready.connect(ready)
    window.session_failed.connect(lambda reason: (print(json.dumps({"error": reason}), flush=True), os._exit(1)))
    window.show()
    window.start()
    app.exec()
    return 1


def list_child(question: str) -> int:
    """One warm turn (run as a child): prints one JSON line, the turn's seconds and CPU and what it answered."""
    from duocthu_desktop.qa.pipeline import Assistant
    from duocthu_desktop.settings import Settings

    assistant = Assistant.open(Settings.load(engine="extractive"))
    assistant.warm_up()
    started, cpu = time.perf_counter(), time.process_time()
    payload = assistant.ask(question)
    print(json.dumps({"turn": time.perf_counter() - started, "turn_cpu": time.process_time() - cpu,
                      "decision": payload.decision, "blocks": len(payload.blocks)}), flush=True)
    return 0


def one_run(what: str, index: Path, code: Path, data: Path, question: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(code), DUOCTHU_INDEX=str(index), DUOCTHU_DATA_DIR=str(data / "data"),
               DUOCTHU_CONFIG_DIR=str(data / "config"), QT_QPA_PLATFORM="offscreen", HF_HUB_OFFLINE="1",
               ANONYMIZED_TELEMETRY="False")
    (data / "config").mkdir(parents=True, exist_ok=True)
    if what == "app":
        command = [sys.executable, str(Path(__file__).resolve()), "--app-child"]
    elif what == "list":
        command = [sys.executable, str(Path(__file__).resolve()), "--list-child", LIST_QUESTION]
    else:
        command = [sys.executable, "-m", "duocthu_desktop.cli_ask", "--index", str(index), question]
    load = round(os.getloadavg()[0], 2)
    started = time.time()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(command, stdout=out, stderr=err, env=env, cwd=str(data))
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.time() - started
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")
    code_ = os.waitstatus_to_exitcode(status)
    if code_ != 0:
        raise SystemExit(f"{what} run failed ({code_}): {stderr[-1500:]}")
    figures = {"cpu": round(usage.ru_utime + usage.ru_stime, 3), "load": load}
    if what == "app":
        line = next(x for x in reversed(stdout.splitlines()) if x.startswith("{"))
        shown = json.loads(line)
        if not shown.get("enabled") or not shown.get("typed"):
            raise SystemExit(f"the window did not take typing: {shown}")
        return {**figures, "seconds": round(shown["ready_wall"] - started, 3)}
    if what == "list":
        turn = json.loads(next(x for x in reversed(stdout.splitlines()) if x.startswith("{")))
        return {**figures, "seconds": round(turn["turn"], 3), "cpu": round(turn["turn_cpu"], 3),
                "decision": turn["decision"], "blocks": turn["blocks"]}
    payload = json.loads(stdout)
    return {**figures, "seconds": round(wall, 3), "decision": payload["decision"], "blocks": len(payload["blocks"])}


def measure(books: dict[str, dict[str, Path]], whats: list[str], runs: int, cold: bool, codes: dict[str, Path],
            question: str) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="launch-bench-") as scratch:
        data = Path(scratch)
        for book, indexes in books.items():
            for what in whats:
                got: dict[str, list[dict]] = {label: [] for label in codes}
                for label, code in codes.items():  # not counted: compiles the code's bytecode, as an install does
                    one_run(what, indexes[label], code, data, question)
                for _ in range(runs):
                    for label, code in codes.items():
                        if cold:
                            evict(read_paths(indexes[label], code))
                        got[label].append(one_run(what, indexes[label], code, data, question))
                for label, runs_ in got.items():
                    row = {"book": book, "what": what, "cold": cold, "code": label, "runs": runs_,
                           "measured_at": time.strftime("%Y-%m-%d %H:%M")}
                    rows.append(row)
                    print(f"{book:>8} {what:4} {'cold' if cold else 'warm'} {label:>8}: {_cell(runs_, 'seconds')} s,"
                          f" CPU {_cell(runs_, 'cpu')} s, load {_loads(runs_)}", flush=True)
    return rows


def _cell(runs: list[dict], key: str) -> str:
    values = [r[key] for r in runs]
    return f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})"


def _loads(runs: list[dict]) -> str:
    loads = [r["load"] for r in runs]
    return f"{min(loads):.1f}–{max(loads):.1f}"


WHAT = {"app": "launch to typing accepted", "ask": "`duocthu-ask`, start to answer",
        "list": "a warm condition-list turn with a patient fact"}
GOAL = {"app": 5.0, "ask": 3.0}


def render(data: dict | None) -> list[str]:
    """The BENCHMARKS.md section from launch.json; [] when it holds nothing."""
    if not data or not data.get("rows"):
        return []
    out = [HEADING, "",
           "`python -m bench.launch_bench --index NAME=DIR --runs 3 [--cold] --baseline DIR`: fresh processes, "
           "timed with `os.wait4` (wall, and the process's own user+system CPU: about the wall of an idle "
           "machine). *Cold* evicts every file the process reads from the page cache before each run (the venv, "
           "the code, the index, the embedding model: `posix_fadvise(DONTNEED)` file by file); *warm* runs follow "
           "one another. *before* is the code before this work, *after* this branch, run in turn so a pair shares "
           "the machine's load. Median (min–max) of the runs; *load* is the 1-minute load average before each run "
           "(2 cores: above ~1 the machine was shared with other work and walls are inflated, CPU much less).", "",
           "| book | what | cache | code | runs | wall (s) | CPU (s) | goal | load |", "|---|---|---|---|---|---|---|---|---|"]
    for row in data["rows"]:
        runs = row["runs"]
        median = statistics.median(r["seconds"] for r in runs)
        goal = GOAL.get(row["what"])
        verdict = "" if goal is None else f"< {goal:g} s: " + ("**met**" if median < goal else "not met")
        out.append(f"| {row['book']} | {WHAT.get(row['what'], row['what'])} | {'cold' if row['cold'] else 'warm'} "
                   f"| {row['code']} | {len(runs)} | {_cell(runs, 'seconds')} | {_cell(runs, 'cpu')} | {verdict} "
                   f"| {_loads(runs)} |")
    out += ["", *data.get("notes", []), ""]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--what", default="app,ask")
    parser.add_argument("--cold", action="store_true")
    parser.add_argument("--baseline", type=Path, help="another checkout, measured in turn with this one")
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--write", type=Path, metavar="BENCHMARKS.md")
    parser.add_argument("--app-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--list-child", metavar="QUESTION", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.app_child:
        return app_child()
    if args.list_child:
        return list_child(args.list_child)
    from bench.books import bench_dir

    codes = {"before": args.baseline.resolve()} if args.baseline else {}
    codes["after" if args.baseline else "this"] = ROOT
    books = {}
    for name, _, folders in (x.partition("=") for x in args.index):
        mine, _, theirs = folders.partition(",")
        books[name] = {label: Path(theirs if label == "before" and theirs else mine) for label in codes}
    rows = measure(books, args.what.split(","), args.runs, args.cold, codes, args.question) if books else []
    path = bench_dir() / RESULTS
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {"rows": []}
    fresh = {(r["book"], r["what"], r["cold"], r["code"]) for r in rows}
    data["rows"] = [r for r in data["rows"] if (r["book"], r["what"], r["cold"], r["code"]) not in fresh] + rows
    data["rows"].sort(key=lambda r: (r["book"], r["what"], r["cold"], r["code"] != "before"))
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    if args.write:
        args.write.write_text(replace_section(args.write.read_text(encoding="utf-8"), HEADING, render(data)), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
