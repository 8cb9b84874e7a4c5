"""Keep Python's None from being freed by a Qt binding that releases references to it it never took.

PySide6 6.12 on Python 3.11 drops one reference to None in calls such as `QTreeWidgetItem.setData`, `setText`
and `addChild` (measured: 1,000 calls, 1,000 references fewer). Python 3.11's None is an ordinary object with a
count of a few thousand, so a window that builds the formulary's tree at full size (12,000 items) brings it to
zero and the process aborts ("none_dealloc: deallocating None"). Any module holding many references to None
hid it (importing PyMuPDF did); a long session would reach it anyway. From Python 3.12 None is immortal and
this does nothing that matters: here its count is raised out of reach, once, at the app's import.
"""

from __future__ import annotations

import ctypes
import sys

RESERVE = 1 << 40  # references added to None's count: more than any session can drop


def keep_none_alive() -> None:
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return  # None is immortal there (or not reference-counted this way)
    count = ctypes.c_ssize_t.from_address(id(None))  # ob_refcnt, the first field of every CPython object
    if count.value < RESERVE:
        count.value += RESERVE
