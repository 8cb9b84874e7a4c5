"""The embedding model in a worker process of its own, serving query vectors over a pipe (Qt-free).

Importing torch and sentence-transformers and loading the weights holds Python's lock for most of a second in
all (834 ms of a frozen window, measured by bench/app_bench.py), even on a background thread. In a spawned
worker the app's threads only wait on a pipe, which holds no lock, and torch never enters the app's process.
It looks like `retrieval.embedder.LazyEmbedder` to the core (the same model_id, dimensions, `load`, `embed`,
and a failed load remembered); when no worker can run, the model loads in-process as before.

A rebuild embeds through one too, with its cancel event: the wait for the worker (loading the model, ~35 s on a
busy machine, or a batch) is polled, and a cancel ends the worker process and raises BuildCancelled at once,
so the dialog's Cancel never waits for torch. Nothing is lost: a batch is cached only once it is returned.
"""

from __future__ import annotations

import logging
import os
import pickle
import threading
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from duocthu_desktop.errors import ModelError
from duocthu_desktop.retrieval.embedder import DIMENSIONS, EMBEDDER_ID, LazyEmbedder
from models.embedding_gemma import WEIGHTS_SHA256

log = logging.getLogger(__name__)

_MODEL = None  # in the worker: the SentenceTransformerEmbedder
WORKER_NICENESS = 5
POLL_S = 0.1  # how often a wait for the worker looks at the cancel event


def _lower_priority() -> None:
    """In the worker: the cores go first to the process that draws the window (as pdf_locate's worker does)."""
    try:
        os.nice(WORKER_NICENESS)
    except (AttributeError, OSError):
        pass


def _load_in_worker(folder: str | None) -> int:
    global _MODEL
    if _MODEL is None:
        from duocthu_desktop.retrieval.embedder import SentenceTransformerEmbedder

        _MODEL = SentenceTransformerEmbedder(Path(folder) if folder else None)
    return int(_MODEL.dimensions)


def _embed_in_worker(folder: str | None, texts: list[str], kind: str) -> list[list[float]]:
    _load_in_worker(folder)
    return _MODEL.embed(texts, kind)


class _WorkerGone(Exception):
    """The worker could not start or died: the model is used in-process instead."""


class EmbedderProcess:
    """The embedder in a spawned worker: `load` once (in the background, app.operations' model lane), then
    `embed` per query. A ModelError from the worker is the load's answer for good, as LazyEmbedder's is."""

    model_id = EMBEDDER_ID
    weights_sha256 = WEIGHTS_SHA256
    dimensions = DIMENSIONS
    LOAD_TIMEOUT_S = 600.0
    EMBED_TIMEOUT_S = 120.0

    def __init__(self, folder: Path | None = None, cancel: threading.Event | None = None) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self._folder = str(folder) if folder else None
        self._cancel = cancel
        self._pool: ProcessPoolExecutor | None = ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=_lower_priority
        )
        self._local: LazyEmbedder | None = None
        self._error: ModelError | None = None
        self._loaded = False
        self._lock = threading.Lock()

    def release_cancel(self) -> None:
        """No longer bound to the rebuild that made it: a worker handed over to a session (app.rebuild)."""
        self._cancel = None

    @property
    def loaded(self) -> bool:
        return self._loaded or (self._local is not None and self._local.loaded)

    def load(self) -> EmbedderProcess:
        """The model loaded in the worker; ModelError (the same one again, without retrying) when it cannot be."""
        with self._lock:
            if self._error is not None:
                raise self._error
            if self.loaded:
                return self
            try:
                self.dimensions = self._call(self.LOAD_TIMEOUT_S, _load_in_worker, self._folder)
                self._loaded = True
            except ModelError as err:
                self._error = err
                raise
            except _WorkerGone:
                self._in_process().load()
            return self

    def embed(self, texts: list[str], kind: str) -> list[list[float]]:
        self.load()
        if self._local is None:
            try:
                return self._call(self.EMBED_TIMEOUT_S, _embed_in_worker, self._folder, list(texts), kind)
            except _WorkerGone:
                pass
        return self._in_process().embed(texts, kind)

    def _in_process(self) -> LazyEmbedder:
        if self._local is None:
            log.warning("embedding worker unavailable: the model loads in the app's process")
            self._local = LazyEmbedder(Path(self._folder) if self._folder else None)
        return self._local

    def _call(self, timeout: float, fn, *args, cancel: threading.Event | None = None, stop: bool = True):
        """`fn(*args)` in the worker; what it raises comes back as raised, a worker that cannot start, died or
        hangs is _WorkerGone (and is not used again). A set `cancel` (this worker's own by default) raises
        BuildCancelled at once; with `stop` it also ends the worker, else (a worker lent to a rebuild by the
        index in use) the call is left to end in it and the worker goes on serving."""
        cancel = self._cancel if cancel is None else cancel
        pool = self._pool
        if pool is None:
            raise _WorkerGone
        try:
            future = pool.submit(fn, *args)
            if cancel is None:
                return future.result(timeout=timeout)
            waited = 0.0
            while True:
                try:
                    return future.result(timeout=POLL_S)
                except TimeoutError:
                    waited += POLL_S
                    if cancel.is_set():
                        if stop:
                            self._stop_worker()
                        else:
                            future.cancel()
                        from ingestion.progress import BuildCancelled

                        raise BuildCancelled() from None
                    if waited >= timeout:
                        raise
        except (BrokenProcessPool, TimeoutError, OSError, pickle.PicklingError) as err:
            log.warning("embedding worker failed (%s: %s)", type(err).__name__, err)
            self._pool = None
            pool.shutdown(wait=False, cancel_futures=True)
            raise _WorkerGone from err

    def _stop_worker(self) -> None:
        """End the worker now, mid-call (a cancelled rebuild): its result would be thrown away anyway."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        for process in list(getattr(pool, "_processes", {}).values()):  # the executor has no public kill
            process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)

    def lent(self, cancel: threading.Event) -> LentEmbedder | None:
        """This worker for a rebuild to embed with, bound to the rebuild's `cancel`, or None when it cannot be
        shared (it is gone, or its model failed to load): the index in use and the rebuild then hold one model
        between them, not one each."""
        if self._pool is None or self._error is not None or self._local is not None:
            return None
        return LentEmbedder(self, cancel)

    def close(self) -> None:
        """Stop the worker once its current call ends (a reopened index does not wait for a load to finish)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


class LentEmbedder:
    """The embedding worker of the index in use, lent to a rebuild (app.rebuild.run_build): it embeds through
    the same process and model, and the rebuild's cancel raises BuildCancelled at once without ending the worker
    the open index still asks with (a batch already started ends in it, its vectors unused)."""

    model_id = EMBEDDER_ID
    weights_sha256 = WEIGHTS_SHA256

    def __init__(self, owner: EmbedderProcess, cancel: threading.Event) -> None:
        self.owner = owner
        self._cancel = cancel

    @property
    def dimensions(self) -> int:
        return self.owner.dimensions

    @property
    def loaded(self) -> bool:
        return self.owner.loaded

    def load(self) -> LentEmbedder:
        owner = self.owner
        if owner.loaded or owner._error is not None:
            owner.load()  # loaded, or the same ModelError again
            return self
        try:
            owner.dimensions = owner._call(owner.LOAD_TIMEOUT_S, _load_in_worker, owner._folder, cancel=self._cancel,
                                           stop=False)
            owner._loaded = True
        except _WorkerGone:
            owner.load()  # as the owner would: in the app's process
        except ModelError as err:
            owner._error = err
            raise
        return self

    def embed(self, texts: list[str], kind: str) -> list[list[float]]:
        self.load()
        owner = self.owner
        if owner._local is None:
            try:
                return owner._call(owner.EMBED_TIMEOUT_S, _embed_in_worker, owner._folder, list(texts), kind,
                                   cancel=self._cancel, stop=False)
            except _WorkerGone:
                pass
        return owner.embed(texts, kind)

    def release_cancel(self) -> None:
        self._cancel = None

    def close(self) -> None:
        """Nothing: the worker is the open index's, ended when that index is closed."""
