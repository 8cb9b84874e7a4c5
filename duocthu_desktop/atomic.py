"""Atomic writes: write aside, fsync, then rename, so a crash never leaves half a file or half a folder.

A folder is replaced as a whole (`staged_dir`): built beside the target, then swapped in. What may be removed
on the way (the previous target, a `.old` or `.staging.*` folder a killed run left) is decided by the
caller's `owned` test, so a swap never deletes a folder its tool did not make. `locked` keeps two runs from
swapping into one target at once.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

Owned = Callable[[Path], bool]


class FolderBusy(OSError):
    """Another process holds the lock on the target (`holder` is its pid when it wrote one)."""

    def __init__(self, target: Path, holder: str) -> None:
        super().__init__(errno.EWOULDBLOCK, "locked by another process", str(target))
        self.holder = holder


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


def lock_path(target: Path) -> Path:
    """`<target>.lock`, beside the target so it outlives every swap of the target itself."""
    target = Path(target)
    return target.with_name(target.name + ".lock")


@contextlib.contextmanager
def locked(target: Path) -> Iterator[Path]:
    """Hold an exclusive lock on `target` for the block; FolderBusy at once if another process holds it.

    The lock file is never deleted (deleting it would let a third process lock a different file); the kernel
    releases the lock when the holder exits, `kill -9` included.
    """
    path = lock_path(Path(target).absolute())
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if not _try_lock(fd):
            raise FolderBusy(Path(target), _holder(fd))
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        yield path
    finally:
        os.close(fd)  # releases the lock


def _holder(fd: int) -> str:
    """The pid the lock's holder wrote, or "" when it cannot be read."""
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        return os.read(fd, 32).decode("ascii", "replace").strip()
    except OSError:
        return ""


def _try_lock(fd: int) -> bool:
    try:
        import fcntl
    except ImportError:  # Windows
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _any_folder(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()


@contextlib.contextmanager
def staged_dir(target: Path, owned: Owned = _any_folder) -> Iterator[Path]:
    """Yield a fresh folder beside `target`; on success swap it in for `target`, on failure delete it.

    The previous `target` is moved aside, then removed only after the new one is in place, so at every
    instant either the old or the new folder sits at `target` (a `kill -9` leaves at worst a stray
    `.old`/`.staging` folder beside it, which the next run removes if `owned` says it is ours). A `target`
    that exists and is not `owned` raises FileExistsError before anything is written.
    """
    target = Path(target).resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    cleanup_stale(target, owned)
    if target.exists() and not owned(target):
        raise FileExistsError(errno.EEXIST, "exists and was not made by this tool", str(target))
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.staging.", dir=target.parent))
    try:
        yield staging
        swap_in(staging, target, owned)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def swap_in(staging: Path, target: Path, owned: Owned = _any_folder) -> None:
    """Put the complete folder `staging` at `target`, keeping the old one until the new one is there."""
    old = target.parent / f".{target.name}.old"
    if old.exists() or old.is_symlink():
        if not owned(old):
            raise FileExistsError(errno.EEXIST, "in the way and was not made by this tool", str(old))
        shutil.rmtree(old)
    moved = False
    if target.exists():
        os.replace(target, old)
        moved = True
    try:
        os.replace(staging, target)
    except BaseException:
        if moved:
            os.replace(old, target)
        raise
    _fsync_dir(target.parent)
    if moved:
        shutil.rmtree(old, ignore_errors=True)


def cleanup_stale(target: Path, owned: Owned = _any_folder) -> None:
    """Remove the staging folders a killed run left beside `target`, and restore `.old` if `target` is
    missing; only folders `owned` says are ours are touched."""
    target = Path(target)
    old = target.parent / f".{target.name}.old"
    if not target.exists() and not target.is_symlink() and owned(old):
        os.replace(old, target)
    for stray in target.parent.glob(f".{target.name}.staging.*"):
        if owned(stray):
            shutil.rmtree(stray, ignore_errors=True)
