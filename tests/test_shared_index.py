"""A shared index: `duocthu-ingest publish` to chromadb's own server on loopback, and the app reading it.

The dev eval answers the same from the server as from the folder; a server killed or paused mid-eval is one
line (provider_unavailable) within the time limit, or the local folder takes over, said once; a publish stopped
half-way leaves the server serving what it served before; a token is needed through the proxy in front.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path

import platformdirs
import pytest

from duocthu_desktop import cli_eval
from duocthu_desktop.errors import IndexError_, InputRefused, ServerUnavailable
from duocthu_desktop.messages import FELL_BACK_MID_SESSION, SERVER_UNAVAILABLE
from duocthu_desktop.payload import AnswerPayload
from duocthu_desktop.qa.answers.cited_answer import join_messages
from duocthu_desktop.qa.pipeline import Assistant
from duocthu_desktop.retrieval.fakes import HashingEmbedder
from duocthu_desktop.retrieval.published import POINTER_COLLECTION, read_pointer
from duocthu_desktop.retrieval.server import ServerAddress, http_client
from duocthu_desktop.retrieval.service import RetrievalService
from duocthu_desktop.settings import Settings
from ingestion import publish as publishing
from ingestion.cli import main as ingest
from tests.chroma_server import PROCESSES, publish_to, running_chroma_server
from tests.test_retrieval_service import build_fake_index
from tests.token_proxy import token_proxy

pytestmark = pytest.mark.integration
LIMIT = 3.0  # seconds any call to the server may take, in these tests


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """Cache (the fetched files), data and config folders of this module's own; no index from the environment."""
    base = tmp_path_factory.mktemp("shared-env")
    with pytest.MonkeyPatch.context() as mp:
        for name, sub in (("DUOCTHU_CACHE_DIR", "cache"), ("DUOCTHU_DATA_DIR", "data"),
                          ("DUOCTHU_CONFIG_DIR", "config")):
            mp.setenv(name, str(base / sub))
        for name in ("DUOCTHU_INDEX", "DUOCTHU_MODEL", "DUOCTHU_CHROMA_URL", "DUOCTHU_CHROMA_TOKEN"):
            mp.delenv(name, raising=False)
        yield base


@pytest.fixture(scope="module")
def folder(request, env) -> Path:
    """A copy of the sample index setup built (or, where it did not, the session's own)."""
    built = Path(platformdirs.user_data_dir("duocthu")) / "sample-index"
    source = built if (built / "manifest.json").is_file() else request.getfixturevalue("sample_index")
    out = env / "sample-index"
    shutil.copytree(source, out)
    return out


@pytest.fixture(scope="module")
def server(env, folder):
    """A Chroma server holding the published sample index, for the module."""
    with running_chroma_server(env / "server" / "data") as url:
        assert ingest(["publish", str(folder), "--url", url]) == 0
        yield url


@pytest.fixture()
def own_server(tmp_path, folder):
    """A server of the test's own, the sample index published to it: the test may kill or pause it."""
    with running_chroma_server(tmp_path / "server" / "data") as url:
        publish_to(folder, url)
        yield url


@pytest.fixture(scope="module")
def cases(shared):
    return cli_eval.read_cases(shared / "eval" / "dev.jsonl")


def _assistant(tmp: Path, embedder, **settings) -> Assistant:
    tmp.mkdir(parents=True, exist_ok=True)
    return Assistant.open(Settings(data_dir=tmp, chroma_timeout=LIMIT, **settings), embedder=embedder)


@pytest.fixture(scope="module")
def local_report(env, folder, embedder, cases):
    assistant = _assistant(env / "local-data", embedder, index_dir=folder)
    try:
        yield cli_eval.run_eval(assistant, cases, assistant.service.index_dir)
    finally:
        assistant.service.close()


def _payloads(report: dict) -> list[list[dict]]:
    return [case["payloads"] for case in report["cases"]]


def test_the_dev_eval_answers_the_same_from_the_server_as_from_the_folder(env, server, folder, embedder, cases,
                                                                         local_report):
    remote = _assistant(env / "remote-data", embedder, chroma_url=server)  # no folder: everything from the server
    try:
        assert remote.service.store.location == server
        assert remote.service.index_dir != folder and remote.service.index_dir.is_relative_to(env / "cache")
        report = cli_eval.run_eval(remote, cases, remote.service.index_dir)
    finally:
        remote.service.close()
    assert _payloads(report) == _payloads(local_report)
    assert report["totals"]["passed"] == local_report["totals"]["passed"] > 0
    assert report["totals"]["ungrounded_numbers"] == 0


def test_the_fetched_files_are_the_folders_and_a_file_changed_on_the_server_is_refused(env, own_server, folder,
                                                                                      embedder, capsys):
    service = RetrievalService.open(None, Settings(chroma_url=own_server), embedder)
    fetched = service.index_dir
    service.close()
    for name in ("manifest.json", "monographs.jsonl", "chunks.jsonl", "dosing.jsonl", "pages.json", "report.json"):
        assert (fetched / name).read_bytes() == (folder / name).read_bytes(), name

    os.environ["DUOCTHU_CHROMA_URL"] = own_server
    try:
        assert ingest(["check"]) == 0  # no folder: the published index, checked where it is
        out = capsys.readouterr()
        assert "artifact_mismatches: 0" in out.out and own_server in out.err

        client = http_client(ServerAddress(own_server))
        pointer = read_pointer(client, own_server)
        files = client.get_collection(pointer.files_collection, embedding_function=None)
        got = files.get(ids=["dosing.jsonl#0"], include=["metadatas"])
        data = got["metadatas"][0]["data"]
        files.update(ids=["dosing.jsonl#0"], metadatas=[{"data": data.replace("500 mg", "800 mg", 1)}])
        shutil.rmtree(fetched)  # so the files are fetched again
        with pytest.raises(IndexError_, match="sha256"):
            RetrievalService.open(None, Settings(chroma_url=own_server), embedder)
        assert ingest(["check"]) == 2
        err = capsys.readouterr().err.strip()
        assert "dosing.jsonl" in err and "sha256" in err and len(err.splitlines()) == 1
    finally:
        del os.environ["DUOCTHU_CHROMA_URL"]


class _Killing:
    """An Assistant that runs `stop()` just before its `at`-th turn and times every turn after."""

    def __init__(self, assistant: Assistant, at: int, stop) -> None:
        self._assistant, self._at, self._stop = assistant, at, stop
        self.turns, self.after = 0, []

    def ask(self, question, conversation_id=None, cancel=None):
        self.turns += 1
        if self.turns == self._at:
            self._stop()
        start = time.perf_counter()
        payload = self._assistant.ask(question, conversation_id=conversation_id, cancel=cancel)
        if self.turns >= self._at:
            self.after.append((time.perf_counter() - start, payload))
        return payload

    def __getattr__(self, name):
        return getattr(self._assistant, name)


def _kill(url: str):
    def stop() -> None:
        PROCESSES[url].kill()
        PROCESSES[url].wait()
    return stop


def _pause(url: str):
    return lambda: os.kill(PROCESSES[url].pid, signal.SIGSTOP)


@pytest.mark.parametrize("stop", [_kill, _pause], ids=["killed", "paused"])
def test_a_server_lost_mid_eval_is_one_line_within_the_time_limit(tmp_path, own_server, embedder, cases, stop,
                                                                  local_report):
    assistant = _assistant(tmp_path / "data", embedder, chroma_url=own_server)
    killing = _Killing(assistant, at=8, stop=stop(own_server))
    try:
        report = cli_eval.run_eval(killing, cases[:16], assistant.service.index_dir)  # 8 before, 8 after
    finally:
        assistant.service.close()
    assert _payloads(report)[:5] == _payloads(local_report)[:5]  # before it went
    down = [p for _, p in killing.after if p.reason == "provider_unavailable"]
    assert len(down) >= 4, [p.reason for _, p in killing.after]
    for seconds, payload in killing.after:
        AnswerPayload.model_validate(payload.model_dump())
        assert payload.disclaimer and seconds < 2 * LIMIT + 1, (seconds, payload.reason)
        if payload.reason == "provider_unavailable":
            assert payload.message == SERVER_UNAVAILABLE and not payload.citations


def test_the_local_index_takes_over_mid_eval_said_once(tmp_path, own_server, folder, embedder, cases,
                                                       local_report):
    assistant = _assistant(tmp_path / "data", embedder, chroma_url=own_server, index_dir=folder)
    killing = _Killing(assistant, at=8, stop=_kill(own_server))
    try:
        report = cli_eval.run_eval(killing, cases, assistant.service.index_dir)
    finally:
        assistant.service.close()
    notice = FELL_BACK_MID_SESSION.format(url=own_server, folder=folder)
    got, want = [p for c in _payloads(report) for p in c], [p for c in _payloads(local_report) for p in c]
    noticed = [i for i, p in enumerate(got) if notice in p["message"]]
    assert len(noticed) == 1 and noticed[0] >= 7  # once, at the first turn that read the store after the kill
    i = noticed[0]
    assert got[i]["message"] == join_messages(notice, want[i]["message"])
    assert got[:i] + got[i + 1:] == want[:i] + want[i + 1:]
    assert all(seconds < 2 * LIMIT + 1 for seconds, _ in killing.after)


def test_publish_refuses_in_one_line_and_the_token_goes_through_the_proxy(tmp_path, server, folder, embedder,
                                                                         capsys):
    def refused(*argv: str) -> str:
        assert ingest(["publish", *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "Traceback" not in err
        return err

    assert "No index at" in refused(str(tmp_path / "none"), "--url", server)
    assert "does not answer within 2 s" in refused(str(folder), "--url", "http://127.0.0.1:9", "--timeout", "2")
    with token_proxy(server, "s3cret") as proxied:
        assert "needs a token" in refused(str(folder), "--url", proxied)
        assert "token was not accepted" in refused(str(folder), "--url", proxied, "--token", "wrong")
        assert ingest(["publish", str(folder), "--url", proxied, "--token", "s3cret"]) == 0
        with pytest.raises(ServerUnavailable, match="needs a token"):
            RetrievalService.open(None, Settings(chroma_url=proxied), embedder)
        assistant = _assistant(tmp_path / "data", embedder, chroma_url=proxied, chroma_token="s3cret")
        local = _assistant(tmp_path / "local", embedder, index_dir=folder)
        try:
            question = "Chống chỉ định của metformin là gì?"
            assert assistant.ask(question) == local.ask(question)
            assert "s3cret" not in repr(assistant.settings)
        finally:
            assistant.service.close()
            local.service.close()


def test_a_publish_stopped_half_way_leaves_the_server_serving_the_earlier_index(tmp_path, monkeypatch):
    indexes = {dims: build_fake_index(tmp_path / f"index-{dims}", tmp_path / f"cache-{dims}.sqlite3",
                                      HashingEmbedder(dims)) for dims in (64, 32, 48)}

    with running_chroma_server(tmp_path / "server" / "data") as url:
        first = publish_to(indexes[64], url)
        reader = RetrievalService.open(None, Settings(chroma_url=url), HashingEmbedder(64))

        def broken(*args, **kwargs):
            raise ConnectionError("the network went away")

        monkeypatch.setattr(publishing, "_upload_files", broken)
        with pytest.raises(InputRefused, match="nothing was switched"):
            publish_to(indexes[32], url)  # its chunks are on the server by now, its files are not
        monkeypatch.undo()
        assert read_pointer(http_client(ServerAddress(url)), url) == first
        again = RetrievalService.open(None, Settings(chroma_url=url), HashingEmbedder(64))
        assert again.manifest == reader.manifest
        again.close()

        second = publish_to(indexes[32], url)
        assert second.previous == first.collections
        assert reader.retrieve_framed("paracetamol", "chi_dinh").chunks  # a desk still on the first one goes on
        reader.close()
        third = publish_to(indexes[48], url)
        names = {c.name for c in http_client(ServerAddress(url)).list_collections()}
        assert names == {POINTER_COLLECTION, *third.collections, *second.collections}  # the first one is gone
        now = RetrievalService.open(None, Settings(chroma_url=url), HashingEmbedder(48))
        assert now.manifest.model_id == "hashing-fake-48"
        now.close()


@pytest.mark.parametrize("text", ["", "one line, no end", "a\nb\n", "x" * 25 + "\n" + "y" * 3, "đ\r\nê\n\n"])
def test_a_file_cut_into_pieces_joins_back_byte_for_byte(text):
    from duocthu_desktop.retrieval.published import pieces_of

    pieces = pieces_of(text.encode("utf-8"), limit=10)
    assert "".join(pieces).encode("utf-8") == text.encode("utf-8")
    assert all(len(p) <= 10 for p in pieces)


def test_a_copy_that_does_not_check_out_after_publishing_stops_before_the_switch():
    """Each verify stage (chunks, files) reports its start and end, reads the copy back unless it was checked
    already, and stops with the problems it found (the files' first three) before anything is switched."""
    from duocthu_desktop.errors import IndexError_
    from ingestion import publish

    seen: list[tuple] = []
    report = lambda stage, done, total: seen.append((stage, done, total))  # noqa: E731
    publish._verify(report, "chunks", True, lambda: pytest.fail("a checked copy is not read again"))
    publish._verify(report, "files", False, lambda: [])
    assert seen == [("verify-chunks", 0, 1), ("verify-chunks", 1, 1), ("verify-files", 0, 1), ("verify-files", 1, 1)]
    with pytest.raises(IndexError_) as chunks:
        publish._verify(report, "chunks", False, lambda: ["a", "b", "c", "d"])
    assert str(chunks.value) == ("the server's copy of the chunks does not check out after publishing (a; b; c; d); "
                                 "nothing was switched")
    with pytest.raises(IndexError_) as files:
        publish._verify(report, "files", False, lambda: ["a", "b", "c", "d"], most=3)
    assert "(a; b; c);" in str(files.value) and seen[-1] == ("verify-files", 0, 1)
