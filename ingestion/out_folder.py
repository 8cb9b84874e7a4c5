"""The folder `duocthu-ingest build --out` writes: only ever one a build made, and one build at a time.

A build replaces `--out` as a whole (atomic.staged_dir), so whatever else sat there would be lost: `--out`
must be absent, an empty folder, or an index a build made (its report.json or manifest.json parses) holding
nothing but what builds write. Every refusal is InputRefused with one Vietnamese line (exit 2).
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from duocthu_desktop import artifacts, atomic
from duocthu_desktop.artifacts import Report
from duocthu_desktop.dosage.rows import DOSING_FILE
from duocthu_desktop.errors import InputRefused
from duocthu_desktop.retrieval.manifest import CHROMA_DIR, MANIFEST_FILE, IndexManifest

# Every name a build writes into its folder; a folder holding anything else is not a build's to replace.
OUR_NAMES = frozenset({
    artifacts.MONOGRAPHS_FILE, artifacts.CHUNKS_FILE, artifacts.PAGES_FILE, artifacts.REPORT_FILE, DOSING_FILE,
    artifacts.CATALOG_FILE, MANIFEST_FILE, CHROMA_DIR,
})


def _our_name(name: str) -> bool:
    """A name a build writes, or the temporary file atomic.write_lines writes it through (".NAME.*.tmp")."""
    if name in OUR_NAMES:
        return True
    return name.endswith(".tmp") and any(name.startswith(f".{ours}.") for ours in OUR_NAMES)


def foreign_entries(folder: Path) -> list[str]:
    """What `folder` holds that no build writes, by name."""
    return sorted(p.name for p in Path(folder).iterdir() if not _our_name(p.name))


def owned(folder: Path) -> bool:
    """May a build remove or replace `folder` (the old index, a stray staging folder): a real folder holding
    only what builds write, or nothing."""
    try:
        return folder.is_dir() and not folder.is_symlink() and not foreign_entries(folder)
    except OSError:
        return False


def _built_here(folder: Path) -> bool:
    """The folder holds a report.json or manifest.json a build wrote (it parses as one)."""
    for name, model in ((artifacts.REPORT_FILE, Report), (MANIFEST_FILE, IndexManifest)):
        with contextlib.suppress(OSError, ValueError):
            model.model_validate_json((folder / name).read_text(encoding="utf-8"))
            return True
    return False


def refuse_foreign(out: Path) -> None:
    """InputRefused unless `out` is absent, an empty folder, or an index a build made with nothing else in it."""
    out = Path(out)
    if not out.exists() and not out.is_symlink():
        return
    if not out.is_dir():
        raise InputRefused(
            f"--out {out} là một tệp, không phải thư mục: hãy chọn một thư mục mới hoặc rỗng (tệp được giữ nguyên)"
        )
    try:
        if not any(out.iterdir()):
            return
        foreign = foreign_entries(out)
    except OSError as err:
        raise write_refused(out, err) from err
    if not _built_here(out):
        raise InputRefused(
            f"--out {out} không trống và không phải chỉ mục do duocthu-ingest dựng (không có report.json hay "
            "manifest.json của nó): hãy chọn một thư mục mới hoặc rỗng (không có gì bị xoá)"
        )
    if foreign:
        names = ", ".join(foreign[:3]) + (" …" if len(foreign) > 3 else "")
        raise InputRefused(
            f"--out {out} có {names} không do duocthu-ingest tạo ra: hãy chuyển đi hoặc chọn thư mục khác "
            "(không có gì bị xoá)"
        )
    if not os.access(out, os.W_OK):
        raise write_refused(out, PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(out)))


_DISK_FULL = ("disk is full", "no space left", "(code: 13)")
# Less free space than this where a Chroma write failed, and the failure is read as a full disk: Chroma's
# compaction says only "Error in compaction: Failed to apply logs to the metadata segment" when it cannot grow.
FULL_BELOW_BYTES = 8 << 20
_NO_WRITE = ("readonly database", "read-only", "permission denied", "(code: 8)")


def disk_failure(err: BaseException, where: Path) -> OSError | None:
    """The OSError behind a failed Chroma write, if the disk was full or refused writes (SQLite reports both
    as its own error types and codes, possibly wrapped, and Chroma's compaction as neither: then the free space
    left on `where`'s disk says it); None for any other failure."""
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError):
            return current
        text = str(current).lower()
        for words, code in ((_DISK_FULL, errno.ENOSPC), (_NO_WRITE, errno.EACCES)):
            if any(w in text for w in words):
                return OSError(code, os.strerror(code), str(where))
        current = current.__cause__ or current.__context__
    try:
        if shutil.disk_usage(where if Path(where).exists() else Path(where).parent).free < FULL_BELOW_BYTES:
            return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(where))
    except OSError:
        pass
    return None


def write_refused(out: Path, err: OSError) -> InputRefused:
    """A write that failed (disk full, no permission), said as what to check; `out` was not touched."""
    where = err.filename or out
    if err.errno in (errno.ENOSPC, errno.EDQUOT):
        return InputRefused(
            f"đĩa đầy (disk full: {err.strerror or err}) khi ghi vào {Path(out).parent}: hãy giải phóng dung "
            f"lượng đĩa rồi chạy lại ({out} được giữ như trước)"
        )
    return InputRefused(
        f"không ghi được vào {where} ({err.strerror or err}): hãy kiểm tra quyền ghi và dung lượng đĩa rồi "
        f"chạy lại ({out} được giữ như trước)"
    )


@contextlib.contextmanager
def claimed(out: Path) -> Iterator[None]:
    """Hold `<out>.lock` for the whole build. A second build into `out` is refused at once rather than left to
    wait: a build can take many minutes, and a waiting one would silently replace the first's index later."""
    with contextlib.ExitStack() as held:
        try:
            held.enter_context(atomic.locked(out))
        except atomic.FolderBusy as err:
            by = f" (pid {err.holder})" if err.holder else ""
            raise InputRefused(
                f"--out {out} đang được một lần build khác ghi{by}: hãy đợi lần đó xong rồi chạy lại"
            ) from err
        except OSError as err:
            raise write_refused(out, err) from err
        yield
