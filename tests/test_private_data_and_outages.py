"""What the clinician types stays theirs: the data files are 0600 in a 0700 folder, deleting a conversation deletes
its traces, no dependency leaves telemetry behind; five clarify turns at once reach the circuit breaker; and a
Chroma server that stops answering is said to be down, not an index to rebuild."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from duocthu_desktop.errors import ServerUnavailable
from duocthu_desktop.messages import SERVER_UNAVAILABLE
from duocthu_desktop.qa.conversation.memory import ConversationStore
from duocthu_desktop.qa.conversation.personal_data import conversation_key
from duocthu_desktop.qa.conversation.traces import TraceStore
from duocthu_desktop.qa.pipeline import Assistant
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.retrieval.service import RetrievalService
from duocthu_desktop.settings import Settings, models_dir

BIN = Path(sys.executable).parent


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# ---- permissions and deleting ------------------------------------------------------------------------------


@pytest.mark.integration
def test_data_files_are_0600_in_a_0700_folder(qa_service, catalog, tmp_path: Path) -> None:
    data = tmp_path / "data"
    assistant = Assistant(qa_service, catalog=catalog, settings=Settings(data_dir=data), engine_name="extractive")
    assistant.ask("Liều paracetamol cho người lớn?", "perm")
    assert _mode(data) == 0o700
    files = sorted(data.iterdir())
    assert [p.name for p in files] == ["conversations.sqlite3", "traces.sqlite3"]
    assert all(_mode(p) == 0o600 for p in files), [(p.name, oct(_mode(p))) for p in files]


def test_existing_data_files_are_tightened_on_open(tmp_path: Path) -> None:
    """A folder and files an earlier version left 0755/0644 are 0700/0600 once a store opens them."""
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    os.chmod(data, 0o755)
    for name in ("conversations.sqlite3", "traces.sqlite3"):
        sqlite3.connect(data / name).close()
        os.chmod(data / name, 0o644)
    ConversationStore(data / "conversations.sqlite3").load("c1")
    TraceStore(data / "traces.sqlite3").recent()
    assert _mode(data) == 0o700
    assert {p.name: _mode(p) for p in data.iterdir()} == {"conversations.sqlite3": 0o600, "traces.sqlite3": 0o600}


@pytest.mark.integration
def test_deleting_a_conversation_deletes_its_traces(qa_service, catalog, tmp_path: Path) -> None:
    data = tmp_path / "data"
    assistant = Assistant(qa_service, catalog=catalog, settings=Settings(data_dir=data), engine_name="extractive")
    assistant.ask("Liều paracetamol cho người lớn?", "doomed")
    summary = assistant.conversations.recent()[0]
    assistant.ask("Uống", summary.conversation_id)  # continued from the list, by its handle
    assistant.ask("Chống chỉ định của metformin là gì?", "kept")
    old = TraceStore(data / "traces.sqlite3").rotated(1)  # a trace already rotated into an older file
    TraceStore(old).record("Liều paracetamol?", QueryFrame(question="Liều paracetamol?"),
                           assistant.ask("Xin chào"), {}, "doomed")
    doomed, kept = conversation_key("doomed"), conversation_key("kept")

    def keys() -> list[str]:
        found = []
        for path in (data / "traces.sqlite3", old):
            conn = sqlite3.connect(path)
            found += [r[0] for r in conn.execute("SELECT conversation_id FROM traces")]
            conn.close()
        return found

    assert keys().count(doomed) == 3
    assert assistant.conversations.forget(summary.conversation_id)
    assert doomed not in keys() and kept in keys()
    assert assistant.conversations.load("doomed") is None


# ---- no telemetry ------------------------------------------------------------------------------------------

_TELEMETRY_SWITCHES = ("ORT_DISABLE_TELEMETRY", "ANONYMIZED_TELEMETRY", "HF_HUB_DISABLE_TELEMETRY", "DO_NOT_TRACK")


@pytest.mark.integration
def test_a_build_and_a_turn_write_nothing_but_the_apps_own_files(sample_pdf: Path, sample_index: Path,
                                                                 tmp_path: Path) -> None:
    """HOME and every folder the app writes to point into one empty folder; after a build (the PDF reader loads
    onnxruntime) and a real turn, the files there are the app's own, no device id or queued telemetry."""
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in _TELEMETRY_SWITCHES and not k.startswith("XDG_")}
    env.update(HOME=str(home), DUOCTHU_DATA_DIR=str(home / "data"), DUOCTHU_CACHE_DIR=str(home / "cache"),
               DUOCTHU_CONFIG_DIR=str(home / "config"), DUOCTHU_MODELS_DIR=str(models_dir()), HF_HUB_OFFLINE="1")
    env.pop("DUOCTHU_CHROMA_URL", None)
    build = subprocess.run([str(BIN / "duocthu-ingest"), "build", "--pdf", str(sample_pdf), "--out",
                            str(home / "built"), "--no-embed"], env=env, capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr
    turn = subprocess.run([str(BIN / "duocthu-ask"), "--index", str(sample_index), "--conversation", "t1",
                           "Thuốc nào được chỉ định cho tăng huyết áp?"], env=env, capture_output=True, text=True,
                          timeout=300)
    assert turn.returncode == 0, turn.stderr
    written = sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file())
    own = [w for w in written if w.startswith(("built/", "data/conversations.sqlite3", "data/traces.sqlite3",
                                               "cache/embeddings.sqlite3")) or w == "built.lock"]
    assert [w for w in written if w not in own] == []


# ---- the clarify circuit breaker under concurrent turns ----------------------------------------------------


class _ReadTogether(ConversationStore):
    """Every turn has read the conversation before any turn counts it: the worst interleaving, every time."""

    def __init__(self, path: Path, barrier: threading.Barrier) -> None:
        super().__init__(path, timeout=5.0)
        self.barrier = barrier

    def load(self, conversation_id: str):
        found = super().load(conversation_id)
        self.barrier.wait(timeout=30)
        return found


@pytest.mark.integration
def test_five_clarify_turns_at_once_reach_the_breaker(qa_service, catalog, tmp_path: Path) -> None:
    n = 5
    barrier = threading.Barrier(n)
    path = tmp_path / "conversations.sqlite3"
    payloads = []

    def turn() -> None:
        assistant = Assistant(qa_service, catalog=catalog, settings=Settings(data_dir=tmp_path),
                              engine_name="extractive", conversations=_ReadTogether(path, barrier))
        payloads.append(assistant.ask("Cho tôi hỏi liều thuốc", "together"))

    threads = [threading.Thread(target=turn) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    reasons = sorted(p.reason for p in payloads)
    assert len(payloads) == n and reasons.count("clarify_loop_exhausted") == 1, reasons
    assert [p.decision for p in payloads].count("clarify") == n - 1


# ---- a Chroma server that stops answering ------------------------------------------------------------------


class _DeadServer:
    """A server store whose server has gone away: every read fails as the HTTP client does."""

    location = "http://127.0.0.1:9"

    def _down(self, *args, **kwargs):
        raise ConnectionError("[Errno 111] Connection refused")

    get = all = query = count = get_by_id = _down


@pytest.mark.integration
def test_a_dead_server_is_said_to_be_down(qa_book, catalog, tmp_path: Path) -> None:
    service = RetrievalService(_DeadServer(), qa_book[0])
    assistant = Assistant(service, catalog=catalog, settings=Settings(data_dir=tmp_path), engine_name="extractive")
    payload = assistant.ask("Chống chỉ định của metformin là gì?")
    assert (payload.decision, payload.reason) == ("abstain", "provider_unavailable")
    assert payload.message == SERVER_UNAVAILABLE and "dựng lại chỉ mục bằng" not in payload.message


def test_an_unreachable_server_at_open_is_said_to_be_down() -> None:
    from duocthu_desktop.retrieval.chroma_store import ChromaStore

    with pytest.raises(ServerUnavailable) as err:
        ChromaStore.connect("http://127.0.0.1:9", "duocthu")
    assert "rebuild" not in str(err.value) and "server" in str(err.value)
