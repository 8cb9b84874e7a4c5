"""Rebuilding the index from the app, without Qt: the call into `ingestion.pipeline.build` with progress and
cancel, where the new index goes by default, the elapsed time and estimate, and the words the dialog shows for
its stages and outcomes."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

try:  # the build's own names for its stages, as a person reads them
    from ingestion.progress import STAGES as STAGE_NAMES
except ImportError:  # pragma: no cover - an older ingestion without progress
    STAGE_NAMES = {}
CANCELLED = "Đã hủy. Chỉ mục cũ vẫn được giữ nguyên và tiếp tục trả lời."
REFUSED = "Không dựng được chỉ mục từ tệp này: {reason}"
FAILED = "Dựng chỉ mục thất bại ({kind}): {reason}. Chỉ mục cũ vẫn được giữ nguyên."
DONE = "Đã dựng xong chỉ mục: {monographs} chuyên luận, {chunks} đoạn."
KEPT = " Chỉ mục cũ vẫn còn ở {old} (có thể xóa)."
ELAPSED = "Đã chạy {elapsed}"
REMAINING = " · bước này còn khoảng {left}"
STAMP = re.compile(r"-\d{8}-\d{4}(?:-\d+)?$")  # the suffix default_out adds, not added twice


def default_out(in_use: Path | None, fallback: Path, now: float | None = None) -> Path:
    """Where a rebuild writes by default: a new folder beside the index in use, named after it and the time
    ("sample-index-20261201-1842"), so the index in use answers until the new one is swapped in; `fallback`
    when no index is in use (a first build)."""
    if in_use is None:
        return Path(fallback)
    in_use = Path(in_use)
    base = STAMP.sub("", in_use.name) or "index"
    name = f"{base}-{time.strftime('%Y%m%d-%H%M', time.localtime(now))}"
    out, n = in_use.parent / name, 2
    while out.exists():
        out, n = in_use.parent / f"{name}-{n}", n + 1
    return out


def clock(seconds: float) -> str:
    """"0:42", "12:05", "1:02:05"."""
    seconds = max(0, int(round(seconds)))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


@dataclass
class Timing:
    """The elapsed time of a build and an estimate for the stage it is in, from the pages or chunks done since
    that stage began (its rate so far, applied to what is left)."""

    started: float = field(default_factory=time.monotonic)
    stage: str = ""
    stage_started: float = 0.0
    first_done: int = 0
    done: int = 0
    total: int = 0

    def report(self, stage: str, done: int | None, total: int | None, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        if stage != self.stage:
            self.stage, self.stage_started, self.first_done = stage, now, done or 0
        self.done, self.total = done or 0, total or 0

    def remaining(self, now: float | None = None) -> float | None:
        """Seconds left in this stage, or None until its rate can be told (a second of work, a step done)."""
        now = time.monotonic() if now is None else now
        spent, made = now - self.stage_started, self.done - self.first_done
        if self.total <= 0 or made <= 0 or spent < 1.0:
            return None
        return (self.total - self.done) * spent / made

    def text(self, now: float | None = None, final: bool = False) -> str:
        now = time.monotonic() if now is None else now
        left = None if final else self.remaining(now)
        shown = ELAPSED.format(elapsed=clock(now - self.started))
        return shown + (REMAINING.format(left=clock(left)) if left is not None else "")


@dataclass
class Step:
    """One progress report of the build: `on_progress(stage, done, total)`."""

    stage: str
    done: int | None = None
    total: int | None = None

    def label(self) -> str:
        name = STAGE_NAMES.get(self.stage, self.stage)
        if self.done is not None and self.total:
            return f"{name}: {self.done}/{self.total}"
        return name


def is_cancelled(err: BaseException) -> bool:
    """ingestion.progress.BuildCancelled (matched by name, so a scripted build in a test can raise its own)."""
    return type(err).__name__ == "BuildCancelled"


def run_build(pdf: Path, out: Path, on_progress: Callable[[str, int, int], None], cancel: threading.Event,
              model_dir: Path | None = None, before_swap: Callable[[], None] | None = None, shared=None):
    """`ingestion.pipeline.build` into `out`: the old index stays until the new one is swapped in, and a cancel
    raises BuildCancelled before the swap. The pages are read in a process of their own (ingestion.page_process:
    PyMuPDF on this worker thread beside the app's other threads crashed the app). The model embeds in a worker process (app.embed_process) that a
    cancel ends at once, loading or mid-batch. `shared`, the embedding worker of the index in use, is lent to
    the build when it can be (`EmbedderProcess.lent`): one model in memory for both, not one each (a cancel
    then leaves it running for the open index). `before_swap()` runs once the new index is whole, just before
    it replaces `out`: the app closes the index it has open there (Windows cannot rename a folder whose files
    are open)."""
    from duocthu_desktop.app import embed_process
    from ingestion import pipeline

    lend = getattr(shared, "lent", None)
    lent = lend(cancel) if callable(lend) else None
    embedder = lent if lent is not None else embed_process.EmbedderProcess(model_dir, cancel=cancel)
    kept = False
    try:
        result = pipeline.build(Path(pdf), Path(out), embed=True, on_progress=on_progress, cancel=cancel,
                                embedder=embedder, before_swap=before_swap, isolated=True)
        if embedder.loaded and not cancel.is_set():  # the index opened next embeds its questions with it
            embedder.release_cancel()
            keep_spare(shared if lent is not None else embedder, model_dir if lent is None else shared._folder)
            kept = True
        return result
    finally:
        if not kept:
            embedder.close()


_SPARE: dict[str | None, object] = {}  # model folder -> a rebuild's embedding worker, its model loaded
_SPARE_LOCK = threading.Lock()


def keep_spare(embedder, model_dir: Path | None) -> None:
    """Keep a built index's embedding worker for the session that opens it (Session.open takes it): the model
    is then loaded once for a rebuild, not again by the reopened index (1.3 GB and ~35 s on a busy machine)."""
    with _SPARE_LOCK:
        old = _SPARE.pop(str(model_dir) if model_dir else None, None)
        _SPARE[str(model_dir) if model_dir else None] = embedder
    if old is not None and old is not embedder:
        old.close()


def is_spare(embedder) -> bool:
    """Whether `embedder` is kept for the next session: the index closing now must not end it."""
    with _SPARE_LOCK:
        return any(kept is embedder for kept in _SPARE.values())


def take_spare(model_dir: Path | None):
    """The worker a rebuild left with this model folder's model loaded, or None."""
    with _SPARE_LOCK:
        return _SPARE.pop(str(model_dir) if model_dir else None, None)
