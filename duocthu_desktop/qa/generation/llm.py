"""The language model behind one small protocol, and llama.cpp as its real implementation.

Every call is a chat completion constrained by a JSON schema at temperature 0, bounded by a token limit and a
deadline, and stoppable by a cancel event (checked between generated tokens). A model that cannot load or fails
mid-call raises `ProviderError`, never anything else, so the engine can fail closed with its own reason.
"""

from __future__ import annotations

import json
import logging
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


class LlamaCppModel:
    """A GGUF through llama-cpp-python, loaded once per process (per file, context size and threads)."""

    def __init__(self, path: Path, *, n_ctx: int = 4096, threads: int | None = None, verify: bool = True) -> None:
        self.path = Path(path)
        self.name = self.path.name
        self.n_ctx = n_ctx
        self.threads = threads
        self._lock = threading.Lock()  # one generation at a time on one context
        self._llama = self._load(verify)

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
                llama = Llama(model_path=str(self.path), n_ctx=self.n_ctx, n_threads=self.threads,
                              n_threads_batch=self.threads, verbose=False)
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
                raise ProviderError(f"{self.name} failed during a call: {err}") from err
        text = "".join(pieces)
        return Completion(text=text, prompt_tokens=max(0, in_context - len(pieces)),
                          completion_tokens=len(pieces), seconds=time.monotonic() - started)


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
