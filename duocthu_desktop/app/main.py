"""`python -m duocthu_desktop.app` (the `duocthu` command): the desktop app.

    duocthu [--index DIR] [--pdf PDF]                           the window
    duocthu [--index DIR] --screenshot PNG --ask "QUESTION"      off-screen: ask, open the first citation, save
                                                                 the whole window, quit (0, or 1 on any failure)

With no display (no DISPLAY or WAYLAND_DISPLAY, no off-screen platform asked for) it says so and answers one
sample question in the terminal instead. Where Qt's X11 plugin would fail for a missing system library, it prints
one line naming the libraries and the apt command, and exits 3 (app.qt_libs).
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import os
import sys
import time
from pathlib import Path

from duocthu_desktop.app import qt_libs
from duocthu_desktop.settings import Settings

SAMPLE_QUESTION = "Liều paracetamol cho bé 5 tuổi nặng 18 kg, đường uống?"
NO_DISPLAY = ("duocthu: không có màn hình (DISPLAY/WAYLAND_DISPLAY trống) nên không mở được cửa sổ; "
              "trả lời câu hỏi sau trong cửa sổ dòng lệnh:")
SCREEN_PLATFORMS = {"offscreen", "minimal", "vnc", "eglfs", "linuxfb", "wayland", "xcb"}
SCREENSHOT_TIMEOUT_MS = 180_000
SWITCH_INTERVAL_S = 0.0002
WINDOW_FAILED = 3  # the window cannot open on this machine (a system library Qt needs is missing)

log = logging.getLogger("duocthu_desktop.app")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="duocthu", description="Tra cứu Dược thư Quốc gia Việt Nam 2018.")
    parser.add_argument("--index", metavar="DIR", help="folder made by `duocthu-ingest build --out` ($DUOCTHU_INDEX)")
    parser.add_argument("--pdf", metavar="PDF", help="the formulary PDF the index was built from")
    parser.add_argument("--engine", choices=("extractive", "generative"), default=None)
    parser.add_argument("--model", metavar="GGUF", help="language model for the generative engine ($DUOCTHU_MODEL)")
    parser.add_argument("--screenshot", metavar="PNG", help="save a screenshot of the window after --ask, then quit")
    parser.add_argument("--ask", metavar="QUESTION", help="the question to ask (with --screenshot, or without a display)")
    # bench/bundle_bench.py: print the wall clock once the window is usable, then quit (launch time of a bundle)
    parser.add_argument("--launch-bench", action="store_true", help=argparse.SUPPRESS)
    return parser


def has_display() -> bool:
    if sys.platform in ("win32", "darwin"):
        return True
    if os.environ.get("QT_QPA_PLATFORM", "").split(":")[0] in SCREEN_PLATFORMS - {"xcb", "wayland"}:
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def answer_in_terminal(settings: Settings, question: str, pdf: Path | None) -> int:
    """No window: one question answered as text (the same words "Sao chép" gives)."""
    from duocthu_desktop.app.answer_text import plain_text
    from duocthu_desktop.app.session import Session
    from duocthu_desktop.errors import DuocthuError

    try:
        session = Session.open(settings, pdf, warm_up=False)
        payload = session.ask(question, None)
    except DuocthuError as err:
        print(f"duocthu: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    try:
        def title(drug_id: str) -> str | None:
            mono = session.monograph(drug_id)
            return mono.title.capitalize() if mono else None

        text = plain_text(payload, question, title)
        sys.stdout.buffer.write(text.encode("utf-8")) if hasattr(sys.stdout, "buffer") else sys.stdout.write(text)
        sys.stdout.flush()
    finally:
        session.close()
    return 0


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever sys.stderr is now, not the stream it saw when set up (which may since be closed)."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass


def setup_logging() -> Path | None:
    """Warnings on stderr; everything from INFO up in duocthu.log in the platformdirs log folder."""
    import platformdirs

    root = logging.getLogger()
    if any(getattr(h, "duocthu_app", False) for h in root.handlers):
        return None  # already set up (main called twice in one process)
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    root.setLevel(logging.INFO)
    console = _StderrHandler()
    console.setLevel(logging.WARNING)
    console.setFormatter(fmt)
    console.duocthu_app = True
    root.addHandler(console)
    try:
        folder = Path(platformdirs.user_log_dir("duocthu"))
        folder.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(folder / "duocthu.log", encoding="utf-8")
    except OSError:
        return None
    handler.setFormatter(fmt)
    root.addHandler(handler)
    return folder / "duocthu.log"


def _quit_on_interrupt(app) -> None:
    """Ctrl+C in the terminal closes the window (Python only sees the signal when the loop lets it run)."""
    import signal

    from PySide6.QtCore import QTimer

    signal.signal(signal.SIGINT, lambda *_: app.closeAllWindows())
    timer = QTimer(app)
    timer.timeout.connect(lambda: None)
    timer.start(250)


def tune_process() -> None:
    """Before the QApplication exists: what keeps the window answering while the core works (bench/app_bench.py).
    A worker running the core in Python hands the interpreter lock to the UI thread within 0.2 ms, not Python's
    5 ms, each time a Qt callback needs it: a repaint of the chat while a turn runs calls into Python once per
    widget drawn in Python (panels, chips), and at 1 ms a call it waited 30-50 ms for the lock at full size
    (0.2 ms: the turn's block 42 -> 28 ms, turns no slower); and Qt paints on the UI thread alone, since spreading a fill over its
    own thread pool means waiting for those threads whenever the cores are busy."""
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    os.environ.setdefault("QT_NO_GUI_THREADPOOL", "1")


def main(argv: list[str] | None = None) -> int:
    multiprocessing.freeze_support()  # a frozen build's worker processes (the quote finder, the embedder)
    args = build_parser().parse_args(argv)
    setup_logging()
    settings = Settings.load(index=args.index, model=args.model, engine=args.engine)
    pdf = Path(args.pdf) if args.pdf else None
    if args.screenshot and not has_display():
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    elif not args.screenshot and not has_display():
        print(NO_DISPLAY, file=sys.stderr)
        return answer_in_terminal(settings, args.ask or SAMPLE_QUESTION, pdf)
    missing = qt_libs.missing_libraries() if qt_libs.uses_xcb() else []
    if missing and args.screenshot:  # the picture needs no screen: off-screen, as without a display
        log.warning("xcb libraries missing (%s): screenshot drawn off-screen", ", ".join(missing))
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    elif missing:  # Qt would abort naming the plugin, not what to install
        print(qt_libs.missing_message(missing), file=sys.stderr)
        return WINDOW_FAILED

    from PySide6.QtWidgets import QApplication

    from duocthu_desktop.app import operations
    from duocthu_desktop.app.main_window import MainWindow

    tune_process()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("duocthu")
    window = MainWindow(settings, pdf, warm_up=not args.screenshot)
    if args.screenshot:
        from duocthu_desktop.app.screenshot import Screenshot

        shot = Screenshot(window, Path(args.screenshot), args.ask or SAMPLE_QUESTION, SCREENSHOT_TIMEOUT_MS)
        code = shot.run()
        window.close()
        operations.wait_all()
        return code
    _quit_on_interrupt(app)
    if args.launch_bench:  # the moment it is usable, then quit once the model has loaded in the background
        window.session_ready.connect(lambda: print(f"ready {time.time():.3f}", flush=True))
        warmed = window._warmed
        window._warmed = lambda: (warmed(), print(f"warm {time.time():.3f}", flush=True), app.quit())
    window.show()
    window.start()
    if args.ask:
        window.session_ready.connect(lambda: window.send(args.ask))
    code = app.exec()
    operations.wait_all()
    return code


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
