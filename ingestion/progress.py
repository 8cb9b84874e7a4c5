"""Progress and cancel for a build: each stage's done/total counts go to one callback, and a cancel event is
checked between steps. The app's rebuild dialog and the CLI's terminal bar read the same callback.

The callback runs on the build's thread (the app hands it to its UI thread itself). A cancelled build raises
BuildCancelled at the next checkpoint, before the new index is swapped in: the previous index stays as it was,
and the embedding cache keeps every batch already embedded (each is committed as soon as it is done).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable

from duocthu_desktop.errors import DuocthuError

ProgressFn = Callable[[str, int, int], None]  # (stage, done, total)

# Stage keys in the order a build runs them, with what a person reads for each.
STAGES: dict[str, str] = {
    "pages": "Đọc các trang PDF",
    "monographs": "Tách các chuyên luận",
    "write": "Ghi dữ liệu chuyên luận",
    "embed": "Tạo vector ngữ nghĩa",
    "index": "Ghi chỉ mục tìm kiếm",
    "check": "Kiểm tra chỉ mục",
    "swap": "Thay chỉ mục cũ bằng chỉ mục mới",
}
# The stages of `duocthu-ingest publish` (ingestion.publish), for the same terminal bar.
PUBLISH_STAGES: dict[str, str] = {
    "publish-chunks": "Gửi các đoạn và vector lên máy chủ",
    "verify-chunks": "Kiểm tra các đoạn và vector trên máy chủ",
    "publish-files": "Gửi các tệp chỉ mục lên máy chủ",
    "verify-files": "Kiểm tra các tệp trên máy chủ",
}


class BuildCancelled(DuocthuError):
    """The build was cancelled on request; nothing was swapped in."""

    def __init__(self) -> None:
        super().__init__("Đã huỷ việc dựng chỉ mục; chỉ mục cũ vẫn được giữ nguyên.")


class Progress:
    """What a build step calls: `step` checks for cancel, then reports; `report` only reports (for the moment
    right after work that must not be thrown away, such as a batch not yet in the cache)."""

    def __init__(self, on_progress: ProgressFn | None = None, cancel: threading.Event | None = None) -> None:
        self.on_progress = on_progress
        self.cancel = cancel

    @property
    def active(self) -> bool:
        return self.on_progress is not None or self.cancel is not None

    def checkpoint(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise BuildCancelled()

    def report(self, stage: str, done: int, total: int) -> None:
        if self.on_progress is not None:
            self.on_progress(stage, done, total)

    def step(self, stage: str, done: int, total: int) -> None:
        self.checkpoint()
        self.report(stage, done, total)


class TerminalBar:
    """The CLI's progress: one tqdm bar per stage on stderr (a ProgressFn)."""

    def __init__(self, file=None) -> None:
        self.file = file or sys.stderr
        self._bar = None
        self._stage: str | None = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        from tqdm import tqdm

        if stage != self._stage:
            self.close()
            self._stage = stage
            self._bar = tqdm(total=total, desc=STAGES.get(stage) or PUBLISH_STAGES.get(stage, stage), unit="", file=self.file, leave=True)
        bar = self._bar
        if bar.total != total:
            bar.total = total
        bar.update(done - bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
            self._stage = None
