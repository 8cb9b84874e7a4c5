"""The language model behind one small protocol, and llama.cpp as its real implementation.

Every call is a chat completion constrained by a JSON schema at temperature 0, bounded by a token limit and a
deadline, and stoppable by a cancel event: both are checked between generated tokens and, through llama.cpp's
abort callback, while the prompt is read (on a loaded machine reading the prompt alone outlasted the turn's
40 s: a dev-set turn ran 105 s before the first token could be checked). A model that cannot load or fails
mid-call raises `ProviderError`, never anything else, so the engine can fail closed with its own reason.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

log = logging.getLogger(__name__)


class ProviderError(Exception):
    """The model is missing, corrupt, unloadable, or failed during a call."""


class CallTimeout(ProviderError):
    """A call ran past its deadline (or was cancelled): its partial text is never used."""


@dataclass
class Completion:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


class LanguageModel(Protocol):
    name: str

    def complete(
        self, messages: list[dict], schema: dict, *, max_tokens: int, deadline: float,
        cancel: threading.Event | None = None,
    ) -> Completion:
        """One JSON-schema-constrained chat completion; `deadline` is a time.monotonic() value."""
        ...


_LOADED: dict[tuple, object] = {}
_LOAD_LOCK = threading.Lock()
BUSY_WINDOW = 0.1  # seconds of /proc/stat read before a call to see what else the machine is doing


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def _cpu_ticks() -> tuple[int, int] | None:
    """(every core's busy ticks, this process's ticks) from /proc, or None where there is no /proc."""
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            fields = [int(x) for x in fh.readline().split()[1:]]
        with open("/proc/self/stat", encoding="ascii") as fh:
            own = fh.read().rsplit(")", 1)[1].split()
    except (OSError, ValueError, IndexError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields[:8]) - idle, int(own[11]) + int(own[12])  # utime + stime


def busy_elsewhere(window: float = BUSY_WINDOW) -> float | None:
    """How many cores other processes kept busy over `window` seconds (None where it cannot be read)."""
    before = _cpu_ticks()
    if before is None:
        return None
    time.sleep(window)
    after = _cpu_ticks()
    if after is None:
        return None
    ticks = os.sysconf("SC_CLK_TCK") * window
    return max(0.0, ((after[0] - before[0]) - (after[1] - before[1])) / ticks)


def generation_threads(n_cores: int, busy: float | None) -> int:
    """Threads for writing tokens and reading the prompt: llama.cpp's threads wait on each other at every step, so
    one thread sharing a core with another process stalls them all (measured on 2 cores: two threads write 17
    tokens a second on an idle machine, 13 with one thread, but 6 with two threads beside one busy process; at a
    load average of 12, one thread read a 1,023-token prompt in 70-87 s, two threads in 119-137 s). Use only
    the cores other processes leave free."""
    if busy is None:
        return max(1, n_cores // 2)  # llama.cpp's own default where the machine cannot be read
    return max(1, min(n_cores, int(n_cores - busy + 0.5)))


class LlamaCppModel:
    """A GGUF through llama-cpp-python, loaded once per process (per file, context size and threads)."""

    def __init__(self, path: Path, *, n_ctx: int = 4096, threads: int | None = None, verify: bool = True) -> None:
        """`threads` fixes the thread count; None chooses per call from the cores other processes leave free."""
        self.path = Path(path)
        self.name = self.path.name
        self.n_ctx = n_ctx
        self.threads = threads
        self._lock = threading.Lock()  # one generation at a time on one context
        self._llama = self._load(verify)
        self._stop_at: float | None = None  # the running call's deadline, read by the abort callback
        self._stop: threading.Event | None = None  # the running call's cancel event
        self._aborted = False
        self._abort_callback = None  # kept referenced while llama.cpp may call it

    def _load(self, verify: bool):
        key = (str(self.path.resolve()), self.n_ctx, self.threads)
        with _LOAD_LOCK:
            if key in _LOADED:
                return _LOADED[key]
            if verify:
                from duocthu_desktop.errors import ModelError
                from models import gguf

                try:
                    gguf.check(self.path)
                except ModelError as err:
                    raise ProviderError(str(err)) from err
            try:
                from llama_cpp import Llama
            except ImportError as err:  # pragma: no cover - the package is a dependency
                raise ProviderError(f"llama-cpp-python is not installed ({err})") from err
            started = time.perf_counter()
            try:
                llama = Llama(model_path=str(self.path), n_ctx=self.n_ctx, n_threads=self.threads or cores(),
                              n_threads_batch=self.threads or cores(), verbose=False)
            except Exception as err:  # noqa: BLE001 - llama.cpp raises ValueError/RuntimeError for a bad file
                raise ProviderError(f"could not load {self.path.name}: {err}") from err
            log.info("loaded %s in %.1f s", self.path.name, time.perf_counter() - started)
            _LOADED[key] = llama
            return llama

    def complete(self, messages, schema, *, max_tokens, deadline, cancel=None) -> Completion:
        started = time.monotonic()
        if started >= deadline:
            raise CallTimeout("no time left for the call")
        pieces: list[str] = []
        in_context = 0
        with self._lock:
            self._choose_threads()
            self._stop_at, self._stop, self._aborted = deadline, cancel, False
            self._watch()
            try:
                stream = self._llama.create_chat_completion(
                    messages=messages, temperature=0.0, top_k=1, max_tokens=max_tokens, stream=True,
                    response_format={"type": "json_object", "schema": schema},
                )
                for n, part in enumerate(stream, start=1):
                    delta = part["choices"][0].get("delta", {}).get("content")
                    if delta:
                        pieces.append(delta)
                    if cancel is not None and cancel.is_set():
                        raise CallTimeout("the turn was cancelled")
                    if n % 4 == 0 and time.monotonic() > deadline:
                        raise CallTimeout(f"the call ran past its deadline after {n} tokens")
                in_context = self._llama.n_tokens  # the prompt plus what was generated
            except CallTimeout:
                raise
            except Exception as err:  # noqa: BLE001 - any failure inside llama.cpp is an outage of the provider
                if self._aborted:  # llama_decode stopped by the abort callback: the deadline or the cancel
                    raise CallTimeout(f"stopped while reading the prompt after {time.monotonic() - started:.0f} s"
                                      ) from err
                raise ProviderError(f"{self.name} failed during a call: {err}") from err
            finally:
                self._stop_at, self._stop = None, None
        text = "".join(pieces)
        return Completion(text=text, prompt_tokens=max(0, in_context - len(pieces)),
                          completion_tokens=len(pieces), seconds=time.monotonic() - started)

    def _should_abort(self, _data) -> bool:
        """llama.cpp's abort callback, called between the steps of a decode."""
        stop = self._stop
        if (self._stop_at is not None and time.monotonic() > self._stop_at) or (stop is not None and stop.is_set()):
            self._aborted = True
            return True
        return False

    def _watch(self) -> None:
        """Have llama.cpp ask `_should_abort` while it decodes (set per call: the context is shared by every
        LlamaCppModel over the same file)."""
        try:
            import llama_cpp

            if self._abort_callback is None:
                self._abort_callback = llama_cpp.ggml_abort_callback(self._should_abort)
            llama_cpp.llama_set_abort_callback(self._llama.ctx, self._abort_callback, None)
        except (AttributeError, TypeError) as err:  # an older llama-cpp-python: deadlines between tokens only
            log.debug("no abort callback: %s", err)

    def _choose_threads(self) -> None:
        if self.threads is not None:
            return
        import llama_cpp

        threads = generation_threads(cores(), busy_elsewhere())
        llama_cpp.llama_set_n_threads(self._llama.ctx, threads, threads)  # the context is shared: set each call


class ScriptedModel:
    """A fake for tests: returns the scripted replies in order (a dict is dumped as JSON; an Exception is raised).

    Records every call's messages so a test can check what the model was shown.
    """

    name = "scripted"

    def __init__(self, replies: list, *, seconds_per_call: float = 0.0) -> None:
        self.replies = list(replies)
        self.calls: list[list[dict]] = []
        self.seconds_per_call = seconds_per_call

    def complete(self, messages, schema, *, max_tokens, deadline, cancel=None) -> Completion:
        self.calls.append(messages)
        if not self.replies:
            raise ProviderError("the script ran out of replies")
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        if self.seconds_per_call:
            time.sleep(self.seconds_per_call)
        if cancel is not None and cancel.is_set():
            raise CallTimeout("the turn was cancelled")
        text = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
        return Completion(text=text, prompt_tokens=sum(len(m["content"]) for m in messages) // 3,
                          completion_tokens=len(text) // 3, seconds=self.seconds_per_call)
