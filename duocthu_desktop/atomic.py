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
import sys
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

    The lock file is removed by its holder before the lock is released, so a build that ends (done, cancelled
    or failed) leaves nothing beside the index. A process that opened the file just before it was removed
    finds, once it has the lock, that the path no longer names what it locked, and starts again on a new file:
    two holders can never lock different files under one name. The kernel releases the lock when the holder
    exits, `kill -9` included (the file is then left, and the next build takes it over).
    """
    path = lock_path(Path(target).absolute())
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if not _try_lock(fd):
                raise FolderBusy(Path(target), _holder(fd))
        except BaseException:
            os.close(fd)
            raise
        if _still_names(path, fd):
            break
        os.close(fd)  # its holder removed it as this process opened it: lock the one the path names now
    try:
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        yield path
    finally:
        if _UNLINK_HELD:
            with contextlib.suppress(OSError):
                os.unlink(path)  # while still held: no one can lock this file any more, and a new one is new
        os.close(fd)  # releases the lock
        if not _UNLINK_HELD:  # Windows cannot remove a file open anywhere, this process's included
            with contextlib.suppress(OSError):
                os.unlink(path)


_UNLINK_HELD = os.name != "nt"


def _still_names(path: Path, fd: int) -> bool:
    """Whether `path` is still the file open as `fd` (its holder may have removed it before releasing it)."""
    if not _UNLINK_HELD:
        return True
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


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


# Linux renameat2(2): swap two paths in one step. A test may turn it off to take the portable path.
EXCHANGE = True
_AT_FDCWD, _RENAME_EXCHANGE = -100, 2
_renameat2 = None  # resolved once: the libc function, or False where there is none

# A test's hook, called with the name of each step of a swap (tests/index_build_worker.py kills there).
step_hook: Callable[[str], None] | None = None


def _step(name: str) -> None:
    if step_hook is not None:
        step_hook(name)


def exchange(a: Path, b: Path) -> bool:
    """Swap the two existing paths `a` and `b` atomically (Linux renameat2 RENAME_EXCHANGE); False where the
    system or the file system cannot, and nothing was changed."""
    global _renameat2
    if not EXCHANGE or not sys.platform.startswith("linux"):
        return False
    if _renameat2 is None:
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            fn = libc.renameat2
            fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
            fn.restype = ctypes.c_int
            _renameat2 = fn
        except (OSError, AttributeError):  # no libc to load, or a libc older than glibc 2.28
            _renameat2 = False
    if _renameat2 is False:
        return False
    import ctypes

    if _renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM):
        return False  # the kernel or this file system has no exchange: take the two-rename path
    raise OSError(err, os.strerror(err), str(a), None, str(b))


def old_path(target: Path) -> Path:
    """Where the two-rename swap keeps the previous `target` until the new one is in place."""
    return target.parent / f".{target.name}.old"


def new_path(target: Path) -> Path:
    """Where the two-rename swap puts the complete new folder before it moves the previous one aside: a folder
    here is whole, so a swap killed half-way can be finished with it."""
    return target.parent / f".{target.name}.new"


@contextlib.contextmanager
def staged_dir(target: Path, owned: Owned = _any_folder) -> Iterator[Path]:
    """Yield a fresh folder beside `target`; on success swap it in for `target`, on failure delete it.

    At every instant of the swap either the old or the new folder sits at `target` where the system can swap
    two folders in one step (Linux); elsewhere a swap killed between its two renames leaves the new folder as
    `.NAME.new` and the old as `.NAME.old`, which the next open or build puts right (`settle`). A `target`
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


def _remove_ours(path: Path, owned: Owned) -> None:
    if path.exists() or path.is_symlink():
        if not owned(path):
            raise FileExistsError(errno.EEXIST, "in the way and was not made by this tool", str(path))
        shutil.rmtree(path)


def swap_in(staging: Path, target: Path, owned: Owned = _any_folder) -> None:
    """Put the complete folder `staging` at `target`, keeping the old one until the new one is there."""
    old, new = old_path(target), new_path(target)
    _remove_ours(old, owned)
    _remove_ours(new, owned)
    _step("staged")
    if not target.exists():
        os.replace(staging, target)
        _fsync_dir(target.parent)
        _step("placed")
        return
    if exchange(staging, target):  # one step: `staging` now holds the previous folder
        _fsync_dir(target.parent)
        _step("exchanged")
        shutil.rmtree(staging, ignore_errors=True)
        return
    os.replace(staging, new)  # whole, and named so: from here a killed swap is finished, not lost
    _fsync_dir(target.parent)
    _step("marked")
    try:
        os.replace(target, old)  # Windows refuses while a file in `target` is open: nothing has changed yet
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise
    _step("moved_aside")
    try:
        os.replace(new, target)
    except BaseException:
        os.replace(old, target)
        shutil.rmtree(new, ignore_errors=True)
        raise
    _fsync_dir(target.parent)
    _step("swapped")
    shutil.rmtree(old, ignore_errors=True)


def recover(target: Path, owned: Owned = _any_folder) -> str | None:
    """Finish or roll back a two-rename swap a killed run left half-done; what was done ("finished",
    "rolled_back") or None. With `target` missing, a whole `.NAME.new` is moved in (finished), else `.NAME.old`
    is moved back (rolled back). With `target` there, a `.NAME.new` that never replaced it is left to the next
    build's cleanup. Call it holding the target's lock (`locked`): a build mid-swap must not be raced."""
    target = Path(target)
    if target.exists() or target.is_symlink():
        return None
    old, new = old_path(target), new_path(target)
    if owned(new):
        os.replace(new, target)
        _fsync_dir(target.parent)
        if owned(old):
            shutil.rmtree(old, ignore_errors=True)
        return "finished"
    if owned(old):
        os.replace(old, target)
        _fsync_dir(target.parent)
        return "rolled_back"
    return None


SETTLE_WAIT_S = 10.0  # how long an open waits for a build it finds mid-swap (two renames: milliseconds)


def settle(target: Path, owned: Owned = _any_folder, wait_s: float = SETTLE_WAIT_S) -> str | None:
    """Before opening `target`: if a swap was left half-done, finish or roll it back (see `recover`), taking
    the lock so a running build is not raced; if a build holds the lock, wait up to `wait_s` for its swap to
    end. Cheap when `target` is there. Returns what `recover` did, or None."""
    import time

    target = Path(target)
    if target.exists():
        return None
    if not (new_path(target).exists() or old_path(target).exists()):
        return None
    deadline = time.monotonic() + wait_s
    while True:
        try:
            with locked(target):
                return recover(target, owned)
        except FolderBusy:
            if target.exists() or time.monotonic() >= deadline:
                return None
            time.sleep(0.05)
        except OSError:  # the folder beside it cannot be written (a read-only disk): nothing can be put right
            return None


def cleanup_stale(target: Path, owned: Owned = _any_folder) -> None:
    """Put right a swap a killed run left half-done (`recover`) and remove the staging folders it left beside
    `target`; only folders `owned` says are ours are touched. The caller holds the target's lock."""
    target = Path(target)
    recover(target, owned)
    for stray in (*target.parent.glob(f".{target.name}.staging.*"), new_path(target), old_path(target)):
        if stray.exists() and owned(stray):
            shutil.rmtree(stray, ignore_errors=True)
