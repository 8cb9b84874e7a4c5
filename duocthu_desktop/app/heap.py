"""What Python's cycle collector walks while the window runs.

A full collection walks every tracked object that is not frozen and holds Python's lock throughout, on whichever
thread's allocation set it off: while a turn runs on its worker, the UI thread waits for the whole pass. What the
open index keeps for the session (every chunk and dose row the warm-up reads, the catalog, the modules a first
read imports) is frozen once it is loaded, so a pass walks only what turns leave behind (bench/app_bench.py: a
pass over the sample's warmed-up session held the UI thread 25-105 ms while a turn ran, the most it waited).
"""

from __future__ import annotations

import gc
import time


def freeze_loaded(collect: bool = True) -> float:
    """Freeze every object alive now, seconds taken: on a worker once the index is open (`collect=False`: the
    launch does not wait for a pass), and again once the warm-up has read what the session keeps, its garbage
    collected first so that none of it is kept for good."""
    start = time.perf_counter()
    if collect:
        gc.collect()
    gc.freeze()
    return time.perf_counter() - start


def thaw() -> None:
    """Before an index is closed for another: what it held may be collected again (the new one is frozen in
    turn)."""
    gc.unfreeze()
