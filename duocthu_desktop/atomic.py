"""Atomic writes: write aside, fsync, then rename, so a crash never leaves half a file or half a folder."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_text(path: Path, text: str) -> None:
    """Replace `path` with `text` (UTF-8) atomically."""
    write_lines(path, [text])


def write_lines(path: Path, lines: Iterable[str]) -> None:
    """Replace `path` with the concatenation of `lines` atomically; the old file stays until the rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            for line in lines:
                fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def staged_dir(target: Path) -> Iterator[Path]:
    """Yield a fresh folder beside `target`; on success swap it in for `target`, on failure delete it.

    The previous `target` is moved aside, then removed only after the new one is in place, so at every
    instant either the old or the new folder sits at `target` (a `kill -9` leaves at worst a stray
    `.old`/`.staging` folder beside it, which the next run removes).
    """
    target = Path(target).resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    cleanup_stale(target)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.staging.", dir=target.parent))
    try:
        yield staging
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    swap_in(staging, target)


def swap_in(staging: Path, target: Path) -> None:
    """Put the complete folder `staging` at `target`, keeping the old one until the new one is there."""
    old = target.parent / f".{target.name}.old"
    if old.exists():
        shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        os.replace(target, old)
    os.replace(staging, target)
    _fsync_dir(target.parent)
    shutil.rmtree(old, ignore_errors=True)


def cleanup_stale(target: Path) -> None:
    """Remove staging folders a killed run left beside `target`; restore `.old` if `target` is missing."""
    target = Path(target)
    old = target.parent / f".{target.name}.old"
    if old.exists() and not target.exists():
        os.replace(old, target)
    for stray in target.parent.glob(f".{target.name}.staging.*"):
        shutil.rmtree(stray, ignore_errors=True)
