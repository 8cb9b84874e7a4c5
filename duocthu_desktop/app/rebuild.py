"""Rebuilding the index from the app, without Qt: the call into `ingestion.pipeline.build` with progress and
cancel, and the words the dialog shows for its stages and outcomes."""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

STAGE_NAMES = {  # the build's stage names, as a person reads them
    "open": "Mở tệp PDF",
    "spans": "Đọc các dòng chữ",
    "read": "Đọc các trang",
    "pages": "Đọc các trang",
    "tables": "Tách bảng",
    "headers": "Đọc số trang sách",
    "monographs": "Tách chuyên luận",
    "sections": "Chia mục",
    "chunks": "Chia đoạn",
    "assemble": "Ghép chuyên luận",
    "dosing": "Đọc liều dùng",
    "gates": "Kiểm tra chất lượng",
    "write": "Ghi tệp",
    "embed": "Tạo vector tìm kiếm",
    "index": "Ghi chỉ mục",
    "swap": "Thay chỉ mục cũ",
    "done": "Hoàn tất",
}
CANCELLED = "Đã hủy. Chỉ mục cũ vẫn được giữ nguyên và tiếp tục trả lời."
REFUSED = "Không dựng được chỉ mục từ tệp này: {reason}"
FAILED = "Dựng chỉ mục thất bại ({kind}): {reason}. Chỉ mục cũ vẫn được giữ nguyên."
DONE = "Đã dựng xong chỉ mục: {monographs} chuyên luận, {chunks} đoạn."


@dataclass
class Step:
    """One progress report, whatever shape the build gives it."""

    stage: str
    done: int | None = None
    total: int | None = None

    def label(self) -> str:
        name = STAGE_NAMES.get(self.stage, self.stage)
        if self.done is not None and self.total:
            return f"{name}: {self.done}/{self.total}"
        return name


def read_step(*args, **kwargs) -> Step:
    """A Step from (stage, done, total), an object or dict with those fields, or kwargs."""
    if len(args) == 1 and not isinstance(args[0], str):
        item = args[0]
        get = item.get if isinstance(item, dict) else (lambda k, d=None: getattr(item, k, d))
        return Step(str(get("stage", "") or get("name", "")), get("done", None) or get("current", None),
                    get("total", None))
    values = list(args) + [kwargs.get(k) for k in ("stage", "done", "total") if k in kwargs]
    stage = str(values[0]) if values else ""
    done = values[1] if len(values) > 1 else None
    total = values[2] if len(values) > 2 else None
    return Step(stage, done if isinstance(done, int) else None, total if isinstance(total, int) else None)


def is_cancelled(err: BaseException) -> bool:
    return type(err).__name__ == "BuildCancelled"


def run_build(pdf: Path, out: Path, on_progress: Callable[..., None], cancel: threading.Event):
    """`ingestion.pipeline.build` into `out` (the old index stays until the new one is swapped in), passing
    progress and cancel when the build takes them."""
    from ingestion import pipeline

    accepted = inspect.signature(pipeline.build).parameters
    kwargs = {}
    if "on_progress" in accepted:
        kwargs["on_progress"] = on_progress
    if "cancel" in accepted:
        kwargs["cancel"] = cancel
    return pipeline.build(Path(pdf), Path(out), embed=True, **kwargs)
