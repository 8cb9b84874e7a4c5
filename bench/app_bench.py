"""Benchmark of the desktop app off-screen over the sample index (a script, not a test).

Each run is a fresh process that opens the window, waits for the embedding model to load in the background, then
asks ten questions one after the other. It reports:
  launch   - process start to a usable window (index open, question box enabled; goal < 5 s)
  blocked  - the longest the UI thread went without running a 5 ms heartbeat timer while a turn ran (goal < 50 ms):
             while the core works on its worker thread, and while the answer is shown (from its arrival on the UI
             thread: the card built, the cited page opened and its quote highlighted) until the next question
  warm-up  - the same, while the model loaded in the background (for information)
  ... CPU  - the most CPU time the UI thread itself spent between two heartbeats, per phase: the block it would
             be on an idle machine (on a shared one a block is this plus the wait for a core and for Python's lock)
  turn     - the median wall time of a turn
  memory   - resident memory (VmRSS) after the ten turns, of the app and of its worker processes
Three runs by default; the table gives median / min / max.

    python bench/app_bench.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

QUESTIONS = [
    "Liều paracetamol cho bé 5 tuổi nặng 18 kg, đường uống?",
    "Chống chỉ định của metformin?",
    "Warfarin và aspirin có tương tác không?",
    "Liều amoxicilin cho người lớn uống?",
    "Thuốc nào trị tăng huyết áp?",
    "Vancomycin bảo quản thế nào?",
    "Diazepam cho phụ nữ có thai?",
    "Liều captopril người lớn?",
    "Tác dụng không mong muốn của furosemid?",
    "Liều gentamicin cho trẻ em tiêm bắp?",
]
HEARTBEAT_MS = 5
PAUSE_MS = 200  # between turns, as a person reading the answer
ROWS = [("launch", "s", "khởi động đến cửa sổ dùng được", 5.0), ("blocked", "ms", "UI bị chặn lâu nhất khi đang hỏi", 50.0),
        ("shown_gap", "ms", "UI bị chặn lâu nhất khi hiện câu trả lời", 50.0),
        ("warm_gap", "ms", "UI bị chặn lâu nhất khi nạp mô hình", None),
        ("blocked_cpu", "ms", "  CPU của luồng UI trong đó, khi đang hỏi", None),
        ("shown_cpu", "ms", "  CPU của luồng UI, khi hiện câu trả lời", None),
        ("warm_cpu", "ms", "  CPU của luồng UI, khi nạp mô hình", None),
        ("turn", "s", "thời gian một lượt (trung vị)", None),
        ("max_turn", "s", "lượt lâu nhất", None),
        ("rss_mb", "MB", "bộ nhớ thường trú sau 10 lượt", None),
        ("workers_mb", "MB", "  các tiến trình phụ (mô hình, trích dẫn)", None)]


def rss_mb(pid: str = "self") -> float:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def workers_rss_mb() -> float:
    """The app's worker processes (the embedding model's, the quote finder's), children of this one."""
    children = set()
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children", encoding="ascii") as fh:
                children.update(fh.read().split())
        except OSError:
            continue
    return sum(rss_mb(pid) for pid in children)


def _scratch_settings(settings):
    """The index the app would open, with the bench's conversations and traces in a scratch folder: its ten
    questions a run are not the clinician's and never join the past conversations."""
    import atexit
    import shutil
    import tempfile

    from duocthu_desktop.in_use import index_in_use

    in_use = index_in_use(settings).value
    scratch = tempfile.mkdtemp(prefix="duocthu-app-bench-")
    atexit.register(shutil.rmtree, scratch, True)
    settings = settings.with_value("data_dir", Path(scratch), "flag")
    return settings.with_value("index_dir", Path(in_use), "flag") if in_use and settings.index_dir is None else settings


def child() -> int:
    """One run: prints one JSON line of figures."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from duocthu_desktop.app import operations
    from duocthu_desktop.app.main import tune_process
    from duocthu_desktop.app.main_window import MainWindow
    from duocthu_desktop.settings import Settings

    tune_process()  # as `duocthu` does before its QApplication
    app = QApplication([])
    window = MainWindow(_scratch_settings(Settings.load()))
    state = {"last": time.perf_counter(), "last_cpu": time.thread_time(), "phase": "launch",
             "gaps": {"turn": 0.0, "warm": 0.0, "shown": 0.0}, "cpu": {"turn": 0.0, "warm": 0.0, "shown": 0.0},
             "i": 0, "turns": [], "decisions": [], "errors": []}

    def beat() -> None:
        now, cpu = time.perf_counter(), time.thread_time()  # the UI thread's own CPU time
        gap, state["last"] = now - state["last"], now
        cpu_gap, state["last_cpu"] = cpu - state["last_cpu"], cpu
        if state["phase"] in state["gaps"]:
            state["gaps"][state["phase"]] = max(state["gaps"][state["phase"]], gap)
            state["cpu"][state["phase"]] = max(state["cpu"][state["phase"]], cpu_gap)

    heartbeat = QTimer()
    heartbeat.timeout.connect(beat)
    heartbeat.start(HEARTBEAT_MS)

    def ready() -> None:
        state["ready_wall"] = time.time()
        state["phase"] = "warm"

    def warmed() -> None:
        window._show_status()
        state["phase"] = "idle"
        QTimer.singleShot(PAUSE_MS, ask_next)

    def ask_next() -> None:
        state["phase"] = "idle"
        if state["i"] >= len(QUESTIONS):
            state["rss_mb"] = rss_mb()
            state["workers_mb"] = workers_rss_mb()
            app.quit()
            return
        state["phase"], state["t"] = "turn", time.perf_counter()
        window.send(QUESTIONS[state["i"]])
        state["i"] += 1

    def answered(card=None) -> None:
        state["turns"].append(time.perf_counter() - state["t"])
        state["decisions"].append(card.payload.decision if card is not None else "failed")
        state["phase"] = "shown"  # the card built, the cited page opened and highlighted, until the next turn
        QTimer.singleShot(PAUSE_MS, ask_next)

    def failed(reason: str) -> None:
        state["errors"].append(reason)
        answered()

    window._warmed = warmed  # the window calls it when the background model load ends
    window.session_ready.connect(ready)
    window.session_failed.connect(lambda reason: (state["errors"].append(reason), app.quit()))
    window.answer_arrived.connect(lambda: state.__setitem__("phase", "shown"))  # the card is built from here
    window.answer_shown.connect(answered)
    window.turn_failed.connect(failed)
    window.show()
    window.start()
    app.exec()
    operations.wait_all()
    print(json.dumps({"ready_wall": state.get("ready_wall"), "blocked": state["gaps"]["turn"] * 1000,
                      "warm_gap": state["gaps"]["warm"] * 1000, "shown_gap": state["gaps"]["shown"] * 1000,
                      "blocked_cpu": state["cpu"]["turn"] * 1000, "shown_cpu": state["cpu"]["shown"] * 1000,
                      "warm_cpu": state["cpu"]["warm"] * 1000,
                      "turn": statistics.median(state["turns"]) if state["turns"] else None,
                      "max_turn": max(state["turns"], default=None), "rss_mb": state.get("rss_mb"),
                      "workers_mb": state.get("workers_mb"),
                      "decisions": state["decisions"], "errors": state["errors"]}))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child()
    runs = []
    for n in range(args.runs):
        started = time.time()
        out = subprocess.run([sys.executable, __file__, "--child"], capture_output=True, text=True, check=False)
        line = next((x for x in reversed(out.stdout.splitlines()) if x.startswith("{")), None)
        if out.returncode != 0 or line is None:
            print(f"run {n + 1} failed ({out.returncode}):\n{out.stderr[-2000:]}", file=sys.stderr)
            return 1
        figures = json.loads(line)
        figures["launch"] = figures["ready_wall"] - started if figures["ready_wall"] else None
        runs.append(figures)
        print(f"run {n + 1}: " + ", ".join(f"{k} {figures[k]:.2f}" for k, *_ in ROWS if figures[k] is not None)
              + f"; decisions {figures['decisions']}"
              + (f"; errors: {figures['errors']}" if figures["errors"] else ""), file=sys.stderr)
    print(f"{'':42} {'median':>9} {'min':>9} {'max':>9}  goal   ({len(runs)} runs, {len(QUESTIONS)} turns each)")
    for key, unit, label, goal in ROWS:
        values = [r[key] for r in runs if r[key] is not None]
        if not values:
            continue
        cells = " ".join(f"{v:9.{1 if unit != 's' else 2}f}" for v in (statistics.median(values), min(values),
                                                                         max(values)))
        print(f"{label:42} {cells}  {f'< {goal:g} {unit}' if goal else unit}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
