"""Start chromadb's own server (`chroma run`) on a free loopback port for server-mode tests; stop it after."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

PROCESSES: dict[str, subprocess.Popen] = {}  # url -> the server process, for a test that stops it on purpose


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def chroma_command() -> list[str]:
    exe = Path(sys.executable).parent / "chroma"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("chroma")
    if found:
        return [found]
    return [sys.executable, "-c", "from chromadb.cli.cli import app; app()"]


@contextlib.contextmanager
def running_chroma_server(data_dir: Path, timeout: float = 60.0) -> Iterator[str]:
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    log = open(data_dir.parent / f"chroma-server-{port}.log", "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [*chroma_command(), "run", "--path", str(data_dir), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ, ANONYMIZED_TELEMETRY="False"),
    )
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"chroma server exited with {proc.returncode}; see {log.name}")
            try:
                with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"chroma server did not answer within {timeout:.0f} s; see {log.name}")
            time.sleep(0.3)
        PROCESSES[url] = proc
        yield url
    finally:
        PROCESSES.pop(url, None)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGCONT)  # a test may have paused it
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def publish_to(folder: Path, url: str, token: str | None = None):
    """Publish the index in `folder` to the server at `url` as `duocthu-ingest publish` does; the pointer."""
    from duocthu_desktop.retrieval.server import ServerAddress
    from ingestion.publish import publish

    return publish(folder, ServerAddress(url=url, token=token)).pointer
