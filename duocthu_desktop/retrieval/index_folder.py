"""Where an index folder is opened from: put right a swap a killed build left half-done, and when the folder
cannot be written (a bundle under Program Files, a read-only disk), a verified copy in the user's data folder.

Chroma opens its SQLite file for writing, so a read-only index is refused by Chroma itself ("attempt to write
a readonly database"). Such a folder is copied once into `data_dir()/index-copies/`, every file checked against
the original by sha256 and the artifacts against the manifest's digests, and the copy is opened from then on
(copied again only when the original's manifest changes).
"""

from __future__ import annotations

import errno
import hashlib
import logging
import os
import shutil
from pathlib import Path

from duocthu_desktop import atomic
from duocthu_desktop.errors import IndexError_
from duocthu_desktop.retrieval.manifest import (
    CHROMA_DIR,
    MANIFEST_FILE,
    digest_mismatches,
    file_sha256,
    read_manifest,
)

log = logging.getLogger(__name__)

COPIES_DIR = "index-copies"
CHROMA_DB = "chroma.sqlite3"
COPY_FAILED = ("Chỉ mục tại {where} chỉ đọc được (không ghi được) và không chép được vào thư mục dữ liệu {dest} "
               "({reason}): hãy giải phóng dung lượng đĩa hoặc chọn một chỉ mục ghi được.")
COPY_DIFFERS = ("Bản chép của chỉ mục chỉ đọc tại {where} không khớp bản gốc ({what}): bản chép bị bỏ; hãy kiểm "
                "tra đĩa rồi mở lại.")


def looks_like_index(folder: Path) -> bool:
    """A real folder holding a build's manifest: what an open may move back into place after a killed swap."""
    try:
        return folder.is_dir() and not folder.is_symlink() and (folder / MANIFEST_FILE).is_file()
    except OSError:
        return False


def settle(index_dir: Path) -> None:
    """Finish or roll back a swap a killed build left half-done at `index_dir` (atomic.settle), and say so."""
    done = atomic.settle(Path(index_dir), looks_like_index)
    if done:
        log.warning("index at %s: a build killed mid-swap was %s", index_dir, done.replace("_", " "))


def writable(index_dir: Path) -> bool:
    """Can Chroma open the folder's database as it must, for writing: its folder and its SQLite file writable
    (False on a read-only file system, root included, and for a folder without write permission)."""
    chroma = Path(index_dir) / CHROMA_DIR
    for path in (chroma, chroma / CHROMA_DB):
        if path.exists() and not os.access(path, os.W_OK):
            return False
    try:
        return not (os.statvfs(chroma).f_flag & os.ST_RDONLY)
    except (AttributeError, OSError):  # no statvfs on Windows, where os.access passes under Program Files: try
        return _can_create_in(chroma)


def _can_create_in(folder: Path) -> bool:
    """Whether a file can really be made in `folder` (made and removed at once)."""
    import tempfile

    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


READ_ONLY_WORDS = ("readonly database", "read-only file system", "(code: 8)")


def refused_as_read_only(err: BaseException) -> bool:
    """Chroma refused to open a database it may not write (SQLite's "attempt to write a readonly database")."""
    seen: BaseException | None = err
    while seen is not None:
        if any(word in str(seen).lower() for word in READ_ONLY_WORDS):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def copy_dir_for(index_dir: Path, data: Path) -> Path:
    """The copy's folder: named for the original's path and its manifest, so a rebuilt original gets a new copy."""
    index_dir = Path(index_dir).resolve()
    built = file_sha256(index_dir / MANIFEST_FILE)[:8]
    return Path(data) / COPIES_DIR / f"{_copy_prefix(index_dir)}{built}"


def _copy_prefix(index_dir: Path) -> str:
    """What every copy of one original folder's name starts with, whichever build it holds."""
    return f"{index_dir.name}-{hashlib.sha256(str(index_dir).encode('utf-8')).hexdigest()[:8]}-"


def _remove_older_copies(index_dir: Path, keep: Path) -> None:
    """Copies of earlier builds of the same original (the bundle was updated): not opened again, so removed
    (where one is still open elsewhere, as on Windows, it stays until the next copy)."""
    for older in keep.parent.glob(f"{_copy_prefix(Path(index_dir).resolve())}*"):
        if older != keep and looks_like_index(older):
            shutil.rmtree(older, ignore_errors=True)


def _files(folder: Path) -> dict[str, Path]:
    return {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*")) if p.is_file()}


def _differences(original: Path, copy: Path) -> list[str]:
    """What the copy does not hold as the original does: a file missing, extra or with another sha256."""
    want, have = _files(original), _files(copy)
    found = [f"{name} missing" for name in want if name not in have]
    found += [f"{name} extra" for name in have if name not in want]
    found += [f"{name} sha256" for name in want if name in have and file_sha256(want[name]) != file_sha256(have[name])]
    return found


def readable_copy(index_dir: Path, data: Path | None = None) -> Path:
    """The verified copy of the read-only `index_dir` in the data folder, made now if there is none yet.

    The copy is written beside its place and swapped in whole (atomic.staged_dir), so a copy killed half-way is
    never opened. IndexError_ in one Vietnamese line when it cannot be made (disk full) or does not match."""
    from duocthu_desktop.settings import data_dir

    index_dir = Path(index_dir)
    dest = copy_dir_for(index_dir, Path(data) if data else data_dir())
    if looks_like_index(dest):
        return dest  # the artifacts are checked against the manifest at every open, as any index's
    manifest = read_manifest(index_dir)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        with atomic.locked(dest), atomic.staged_dir(dest) as staging:
            shutil.copytree(index_dir, staging, dirs_exist_ok=True, copy_function=shutil.copyfile)
            problems = _differences(index_dir, staging) + digest_mismatches(staging, manifest)
            if problems:
                raise IndexError_(COPY_DIFFERS.format(where=index_dir, what="; ".join(problems[:3])))
            for path in [staging, *staging.rglob("*")]:  # Chroma writes into its folder and database
                os.chmod(path, 0o700 if path.is_dir() else 0o600)
    except atomic.FolderBusy:
        atomic.settle(dest, looks_like_index)  # another window copied it meanwhile
        if looks_like_index(dest):
            return dest
        raise IndexError_(COPY_FAILED.format(where=index_dir, dest=dest.parent, reason="đang được chép")) from None
    except OSError as err:
        reason = "đĩa đầy" if err.errno == errno.ENOSPC else (err.strerror or type(err).__name__)
        raise IndexError_(COPY_FAILED.format(where=index_dir, dest=dest.parent, reason=reason)) from err
    _remove_older_copies(index_dir, dest)
    log.warning("index at %s is read-only: opened from a verified copy at %s", index_dir, dest)
    return dest


def openable(index_dir: Path) -> Path:
    """The folder to open for `index_dir`: itself, after any half-done swap was put right, or its verified copy
    when it cannot be written."""
    index_dir = Path(index_dir)
    settle(index_dir)
    if index_dir.is_dir() and (index_dir / CHROMA_DIR).is_dir() and not writable(index_dir):
        return readable_copy(index_dir)
    return index_dir
