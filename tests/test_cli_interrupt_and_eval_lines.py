"""Ctrl+C in `duocthu-ask`, `duocthu-ingest build` and `duocthu-eval` is one line and exit 130 (the old index
kept), and an eval line of the wrong shape is one line naming it and exit 2: never a traceback."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from duocthu_desktop import cli_eval

BIN = Path(sys.executable).parent


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "DUOCTHU_DATA_DIR": str(tmp_path / "data"), "DUOCTHU_CONFIG_DIR": str(tmp_path / "config"),
           "PYTHONUNBUFFERED": "1"}
    env.pop("DUOCTHU_CHROMA_URL", None)
    env.update(extra)
    return env


def _default_sigint() -> None:
    """A job started in the background of a non-interactive shell ignores SIGINT, and its children inherit that:
    each program is started as a terminal starts it, with Ctrl+C's default action."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _popen(*args, **kwargs) -> subprocess.Popen:
    return subprocess.Popen(*args, preexec_fn=_default_sigint, **kwargs)


def _interrupt(proc: subprocess.Popen, ready, timeout: float = 120) -> tuple[int, str]:
    """SIGINT once `ready()` says the program is at work, then its exit code and stderr."""
    deadline = time.monotonic() + timeout
    while not ready():
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, "the program never got to work"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err


def _one_line_130(code: int, err: str) -> None:
    lines = [line for line in err.splitlines() if line.strip() and "Loading weights" not in line]
    assert "Traceback" not in err, err
    assert code == 130, (code, err)
    assert len(lines) == 1 and "Ctrl+C" in lines[0], err


@pytest.mark.integration
def test_ctrl_c_in_ask_is_one_line_and_130(sample_index: Path, tmp_path: Path) -> None:
    """Stopped while it waits on a Chroma server that never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    connected = threading.Event()
    held: list[socket.socket] = []

    def accept() -> None:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        held.append(conn)  # read nothing, answer nothing
        connected.set()

    threading.Thread(target=accept, daemon=True).start()
    url = f"http://127.0.0.1:{server.getsockname()[1]}"
    proc = _popen([str(BIN / "duocthu-ask"), "--index", str(sample_index), "Liều paracetamol?"],
                            env=_env(tmp_path, DUOCTHU_CHROMA_URL=url), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        _one_line_130(*_interrupt(proc, connected.is_set))
    finally:
        proc.kill()
        server.close()
        for conn in held:
            conn.close()


@pytest.mark.integration
def test_ctrl_c_in_eval_is_one_line_and_130(tmp_path: Path) -> None:
    """Stopped while it reads its eval file (a pipe nothing is written to yet)."""
    fifo = tmp_path / "cases.jsonl"
    os.mkfifo(fifo)
    proc = _popen([str(BIN / "duocthu-eval"), "--index", str(tmp_path), str(fifo)],
                            env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    writer: list[int] = []

    def reading() -> bool:
        try:
            writer.append(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # succeeds once the program has it open
        except OSError:
            return False
        return True

    try:
        _one_line_130(*_interrupt(proc, reading))
    finally:
        proc.kill()
        for fd in writer:
            os.close(fd)


def _digests(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.integration
def test_ctrl_c_in_build_keeps_the_old_index(sample_pdf: Path, sample_build: Path, tmp_path: Path) -> None:
    """A real build of the sample over an earlier one, stopped once it is writing its new folder."""
    out = tmp_path / "index"
    shutil.copytree(sample_build, out)
    before = _digests(out)
    proc = _popen([str(BIN / "duocthu-ingest"), "build", "--pdf", str(sample_pdf), "--out", str(out),
                             "--no-embed"], env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        _one_line_130(*_interrupt(proc, lambda: any(tmp_path.glob(".index.staging.*"))))
    finally:
        proc.kill()
    assert _digests(out) == before
    assert not [p.name for p in tmp_path.iterdir() if "staging" in p.name]  # no half-built folder left beside it


# ---- eval lines ---------------------------------------------------------------------------------------------

BAD_LINES = [
    ('{"id": "a", "turns": [42, null], "expect": {}}', '"turns"[0] is 42'),
    ('["Liều paracetamol?"]', "got an array"),
    ('{"id": "a", "turns": "Liều paracetamol?", "expect": {"decision": "answerable"}}', 'got a str'),
    ('{"id": "a", "turns": ["Liều paracetamol?"]}', '"expect" is missing'),
    ('{"id": "a", "turns": ["Liều paracetamol?"], "expect": ["answerable"]}', '"expect": must be an object'),
    ('{"id": "a", "turns": ["Liều paracetamol?"], "expect": {"numbers": "500 mg"}}', "numbers must be a list"),
    ('{"id": "a", "turns": ["Liều paracetamol?"], "expect": {"decison": "answerable"}}', "unknown field"),
    ('{"id": "a", "turns": ["x"], "expect": {}', "not JSON"),
]


@pytest.mark.parametrize(("line", "said"), BAD_LINES)
def test_a_malformed_eval_line_is_one_line_and_exit_2(line: str, said: str, tmp_path: Path, capsys) -> None:
    path = tmp_path / "cases.jsonl"
    good = json.dumps({"id": "ok", "turns": ["Xin chào"], "expect": {"decision": "answerable"}}, ensure_ascii=False)
    path.write_text(f"{good}\n\n{line}\n", encoding="utf-8")
    code = cli_eval.main(["--index", str(tmp_path), str(path)])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert "line 3" in lines[0] and said in lines[0], lines[0]


def test_a_well_formed_file_reads() -> None:
    root = Path(__file__).parent / "eval"
    for path in sorted(root.glob("*.jsonl")):
        assert cli_eval.read_cases(path), path
