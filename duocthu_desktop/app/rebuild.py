"""Rebuilding the index from the app, without Qt: the call into `ingestion.pipeline.build` with progress and
cancel, and the words the dialog shows for its stages and outcomes."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

try:  # the build's own names for its stages, as a person reads them
    from ingestion.progress import STAGES as STAGE_NAMES
except ImportError:  # pragma: no cover - an older ingestion without progress
    STAGE_NAMES = {}
CANCELLED = "Đã hủy. Chỉ mục cũ vẫn được giữ nguyên và tiếp tục trả lời."
REFUSED = "Không dựng được chỉ mục từ tệp này: {reason}"
FAILED = "Dựng chỉ mục thất bại ({kind}): {reason}. Chỉ mục cũ vẫn được giữ nguyên."
DONE = "Đã dựng xong chỉ mục: {monographs} chuyên luận, {chunks} đoạn."


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
              before_swap: Callable[[], None] | None = None):
    """`ingestion.pipeline.build` into `out`: the old index stays until the new one is swapped in, and a cancel
    raises BuildCancelled before the swap. `before_swap()` runs once the new index is whole, just before it
    replaces `out`: the app closes the index it has open there (Windows cannot rename a folder whose files are
    open)."""
    from ingestion import pipeline

    return pipeline.build(Path(pdf), Path(out), embed=True, on_progress=on_progress, cancel=cancel,
                          before_swap=before_swap)
