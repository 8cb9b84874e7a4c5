"""The language model writes with only the cores other processes leave free (its threads wait on each other at
every token, so one thread sharing a core stalls them all)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from duocthu_desktop.qa.generation.llm import busy_elsewhere, cores, generation_threads


@pytest.mark.parametrize(("n", "busy", "expected"), [
    (2, 0.0, 2), (2, 0.3, 2), (2, 0.6, 1), (2, 1.0, 1), (2, 2.0, 1),  # never fewer than one
    (8, 0.0, 8), (8, 3.2, 5), (1, 0.0, 1),
    (2, None, 1), (8, None, 4),  # where the machine cannot be read: llama.cpp's own default, half the cores
])
def test_threads_follow_the_free_cores(n, busy, expected) -> None:
    assert generation_threads(n, busy) == expected


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_busy_process_elsewhere_is_seen() -> None:
    spin = subprocess.Popen([sys.executable, "-c", "import time\nt = time.time()\nwhile time.time() - t < 5: pass"])
    try:
        time.sleep(0.5)
        seen = busy_elsewhere(0.3)
    finally:
        spin.kill()
        spin.wait()
    assert seen is not None and 0.6 <= seen <= cores() + 0.2  # the spinning child keeps one core busy


def test_the_prompt_is_read_with_the_free_cores_too(monkeypatch) -> None:
    """At a load average of 12 on 2 cores two threads read a prompt at about half the speed of one."""
    import types

    import llama_cpp

    from duocthu_desktop.qa.generation import llm

    set_to: list[tuple] = []
    monkeypatch.setattr(llama_cpp, "llama_set_n_threads", lambda ctx, n, n_batch: set_to.append((ctx, n, n_batch)))
    monkeypatch.setattr(llm, "cores", lambda: 2)
    model = object.__new__(llm.LlamaCppModel)
    model.threads, model._llama = None, types.SimpleNamespace(ctx="ctx")
    monkeypatch.setattr(llm, "busy_elsewhere", lambda: 1.5)
    model._choose_threads()
    monkeypatch.setattr(llm, "busy_elsewhere", lambda: 0.0)
    model._choose_threads()
    assert set_to == [("ctx", 1, 1), ("ctx", 2, 2)]
