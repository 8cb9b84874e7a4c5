"""Failures are reasons, not exceptions: a broken embedding model, a failing index store, a damaged settings file
and undecodable command-line bytes each give an answer with a reason code or a warning, never a traceback."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from duocthu_desktop import cli_ask
from duocthu_desktop.errors import IndexError_, ModelError
from duocthu_desktop.messages import INDEX_UNAVAILABLE
from duocthu_desktop.qa.pipeline import Assistant
from duocthu_desktop.retrieval.embedder import LazyEmbedder
from duocthu_desktop.retrieval.memory_store import InMemoryStore
from duocthu_desktop.retrieval.service import RetrievalService
from duocthu_desktop.settings import ENV_CONFIG_DIR, ENV_INDEX, Settings
from tests.retrieval_samples import sample_chunks, sample_monographs

# ---- scripted fakes -------------------------------------------------------------------------------------------


class RaisingEmbedder:
    """An embedder whose model cannot be used: `embed` raises what a missing or corrupt model raises."""

    model_id = "broken"
    dimensions = 8

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.calls = 0

    def embed(self, texts, kind):
        self.calls += 1
        raise self.error


class FailingStore(InMemoryStore):
    """A store that opened (start-up reads every chunk) and then breaks on the named reads, as a Chroma file with
    a corrupt page in the middle does."""

    def __init__(self, chunks, fail_on: tuple[str, ...] = ("get", "query")) -> None:
        super().__init__(chunks, vectors=[[1.0] * 8 for _ in chunks])
        self.fail_on = fail_on
        self.location = "/tmp/fake-index/chroma"

    def _broken(self) -> None:
        raise sqlite3.DatabaseError("database disk image is malformed")

    def get(self, where):
        if "get" in self.fail_on:
            self._broken()
        return super().get(where)

    def query(self, vector, k, where=None):
        if "query" in self.fail_on:
            self._broken()
        return super().query(vector, k, where)


def _assistant(service: RetrievalService, tmp_path: Path) -> Assistant:
    return Assistant(service, settings=Settings(data_dir=tmp_path / "data"), engine_name="extractive")


# ---- a missing or corrupt embedding model ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "error",
    [
        ModelError("Embedding model not found at /nowhere: run `duocthu-models prepare`."),
        RuntimeError("Error while deserializing header: HeaderTooLarge"),  # corrupt safetensors, as torch says it
        OSError("unable to open file"),
    ],
)
def test_dense_search_with_a_broken_model_finds_nothing_with_a_warning(error, caplog) -> None:
    embedder = RaisingEmbedder(error)
    service = RetrievalService(InMemoryStore(sample_chunks()), sample_monographs(), embedder)
    with caplog.at_level(logging.WARNING, logger="duocthu_desktop.retrieval.service"):
        assert service.dense_search("bệnh gout") == []
        assert service.search_indication("bệnh gout") == []  # no lexical hit, so the dense fallback runs
    assert embedder.calls == 2
    assert any("dense search skipped" in r.getMessage() for r in caplog.records)
    # the lexical search is untouched by the broken model
    assert [h.drug_id for h in service.search_indication("tăng huyết áp")] == ["amlodipin", "captopril"]


def test_a_question_that_needs_the_dense_search_is_answered_with_a_reason(tmp_path, caplog) -> None:
    embedder = RaisingEmbedder(ModelError("Embedding model at /m is incomplete: run `duocthu-models prepare`."))
    assistant = _assistant(RetrievalService(InMemoryStore(sample_chunks()), sample_monographs(), embedder), tmp_path)
    with caplog.at_level(logging.WARNING):
        payload = assistant.ask("Thuốc nào điều trị bệnh gout?")
    assert embedder.calls >= 1  # the dense fallback was really asked
    assert payload.decision == "abstain"
    assert payload.reason == "provider_unavailable"  # an outage, never "no drug in the book has it"
    assert "không phải Dược thư thiếu dữ liệu" in payload.message and payload.disclaimer


def test_lazy_embedder_with_a_missing_model_raises_model_error_once_then_fails_fast(tmp_path, monkeypatch) -> None:
    import duocthu_desktop.retrieval.embedder as embedder_mod

    lazy = LazyEmbedder(tmp_path / "no-model-here")
    with pytest.raises(ModelError):
        lazy.embed(["x"], "query")
    tries = []
    monkeypatch.setattr(embedder_mod, "SentenceTransformerEmbedder", lambda folder: tries.append(folder))
    with pytest.raises(ModelError):  # the remembered failure, not a second ~10 s attempt
        lazy.load()
    assert tries == []
    assert not lazy.loaded


def test_weights_that_fail_inside_the_library_become_model_error(tmp_path, monkeypatch) -> None:
    import duocthu_desktop.retrieval.embedder as embedder_mod

    monkeypatch.setattr(embedder_mod, "check_assembled", lambda folder: Path(folder))

    def corrupt(self, folder):
        raise RuntimeError("Error while deserializing header: InvalidHeaderDeserialization")

    monkeypatch.setattr(embedder_mod.SentenceTransformerEmbedder, "_load", corrupt)
    with pytest.raises(ModelError, match="cannot be loaded"):
        embedder_mod.SentenceTransformerEmbedder(tmp_path)
    service = RetrievalService(InMemoryStore(sample_chunks()), sample_monographs(), LazyEmbedder(tmp_path))
    assert service.dense_search("bệnh gout") == []


# ---- a store that fails during a query --------------------------------------------------------------------------


def test_store_errors_during_reads_become_index_errors() -> None:
    service = RetrievalService(FailingStore(sample_chunks()), sample_monographs(), RaisingEmbedder(ValueError()))
    with pytest.raises(IndexError_, match="DatabaseError"):
        service.retrieve_framed("paracetamol", "lieu_luong_cach_dung")
    working = RetrievalService(FailingStore(sample_chunks()), sample_monographs(), _ConstantEmbedder())
    with pytest.raises(IndexError_, match="nearest chunks"):
        working.dense_search("bệnh gout")


class _ConstantEmbedder:
    model_id = "constant"
    dimensions = 8

    def embed(self, texts, kind):
        return [[1.0] * 8 for _ in texts]


@pytest.mark.parametrize(
    "question",
    [
        "Liều paracetamol cho người lớn?",
        "Chống chỉ định của captopril là gì?",
        "Paracetamol có tương tác với warfarin không?",
    ],
)
def test_a_store_error_during_a_turn_is_an_abstention_not_a_traceback(question, tmp_path, caplog) -> None:
    service = RetrievalService(FailingStore(sample_chunks()), sample_monographs())
    assistant = _assistant(service, tmp_path)
    with caplog.at_level(logging.WARNING, logger="duocthu_desktop.qa.pipeline"):
        payload = assistant.ask(question, conversation_id="c1")
    assert payload.decision == "abstain"
    assert payload.reason == "provider_unavailable"
    assert payload.message == INDEX_UNAVAILABLE
    assert "không phải Dược thư thiếu dữ liệu" in payload.message  # an outage never reads as "no data"
    assert payload.blocks == [] and payload.citations == []
    assert payload.disclaimer
    assert any("index unreadable" in r.getMessage() for r in caplog.records)


def test_a_store_error_in_the_dense_fallback_of_a_condition_question_is_an_abstention(tmp_path) -> None:
    service = RetrievalService(FailingStore(sample_chunks(), fail_on=("query",)), sample_monographs(),
                               _ConstantEmbedder())
    payload = _assistant(service, tmp_path).ask("Thuốc nào điều trị bệnh gout?")
    assert (payload.decision, payload.reason) == ("abstain", "provider_unavailable")


# ---- settings.json ------------------------------------------------------------------------------------------------


@pytest.fixture
def config_dir(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "config"
    folder.mkdir()
    monkeypatch.setenv(ENV_CONFIG_DIR, str(folder))
    for name in (ENV_INDEX, "DUOCTHU_MODEL", "DUOCTHU_CHROMA_URL"):
        monkeypatch.delenv(name, raising=False)
    return folder


def _write_settings(config_dir: Path, content: str | bytes) -> None:
    path = config_dir / "settings.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")


def test_unknown_key_is_dropped_with_a_warning(config_dir, caplog) -> None:
    _write_settings(config_dir, json.dumps({"index_dir": "/srv/index", "theme": "dark", "engine": "extractive"}))
    with caplog.at_level(logging.WARNING, logger="duocthu_desktop.settings"):
        settings = Settings.load()
    assert settings.index_dir == Path("/srv/index")  # the good keys are kept
    assert any("unknown key 'theme'" in r.getMessage() for r in caplog.records)


def test_value_of_the_wrong_type_is_defaulted_with_a_warning(config_dir, caplog) -> None:
    _write_settings(config_dir, json.dumps({"index_dir": 42, "engine": ["x"], "chroma_url": "http://h:8000"}))
    with caplog.at_level(logging.WARNING, logger="duocthu_desktop.settings"):
        settings = Settings.load()
    assert settings.index_dir is None and settings.engine == "extractive"
    assert settings.chroma_url == "http://h:8000"
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "'index_dir'" in messages and "'engine'" in messages


@pytest.mark.parametrize(
    "content",
    ["[1, 2, 3]", '"index_dir"', "null", "42", "{not json", "", b'{"index_dir": "/a\xff"}'],
    ids=["list", "string", "null", "number", "broken", "empty", "bad-utf8"],
)
def test_a_file_that_is_not_a_json_object_is_ignored_with_a_warning(config_dir, caplog, content) -> None:
    _write_settings(config_dir, content)
    with caplog.at_level(logging.WARNING, logger="duocthu_desktop.settings"):
        settings = Settings.load(index="/cli/index")
    assert settings.index_dir == Path("/cli/index")  # flags still apply
    assert settings.engine == "extractive"
    assert any("ignored" in r.getMessage() for r in caplog.records)


def test_environment_and_flags_still_win_over_a_damaged_file(config_dir, monkeypatch) -> None:
    _write_settings(config_dir, json.dumps({"index_dir": "/saved", "gguf_model": 3, "bogus": 1}))
    assert Settings.load().index_dir == Path("/saved")
    monkeypatch.setenv(ENV_INDEX, "/from-env")
    assert Settings.load().index_dir == Path("/from-env")
    assert Settings.load(index="/from-flag").index_dir == Path("/from-flag")


def test_duocthu_ask_starts_with_a_damaged_settings_file(config_dir, tmp_path, capsys) -> None:
    _write_settings(config_dir, '{"theme": 1, "index_dir": []}')
    code = cli_ask.main(["--index", str(tmp_path / "missing-index"), "liều paracetamol"])
    assert code == 2  # the missing index, said in one line: the settings file did not stop the start
    err = capsys.readouterr().err
    assert err.startswith("duocthu-ask: No index at") and "Traceback" not in err


# ---- invalid UTF-8 in argv --------------------------------------------------------------------------------------

BAD_BYTES = b"Li\xe1\xbb\x81u paracetamol cho ng\xc6\xb0\xe1\xbb\x9di l\xe1\xbb\x9bn \xff\xfe\xc3"


def test_clean_arg_replaces_only_the_bad_bytes() -> None:
    raw = os.fsdecode(BAD_BYTES)  # how Python hands undecodable argv to main()
    cleaned = cli_ask.clean_arg(raw)
    assert cleaned.startswith("Liều paracetamol cho người lớn")
    assert cleaned.endswith("\ufffd")
    cleaned.encode("utf-8")  # strict: no lone surrogate left
    assert cli_ask.clean_arg("liều") == "liều"
    assert cli_ask.clean_arg("a\ud800b").encode("utf-8")


def test_duocthu_ask_with_invalid_utf8_answers(tmp_path, monkeypatch, capsys) -> None:
    service = RetrievalService(InMemoryStore(sample_chunks()), sample_monographs())
    assistant = _assistant(service, tmp_path)
    monkeypatch.setattr(cli_ask, "open_assistant", lambda args: assistant)
    code = cli_ask.main(["--conversation", os.fsdecode(b"c\xff1"), os.fsdecode(BAD_BYTES)])
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["disclaimer"] and payload["decision"] in ("answerable", "clarify", "abstain", "verify_pdf")


ASK_OVER_SAMPLES = """
import sys
from pathlib import Path
from duocthu_desktop import cli_ask
from duocthu_desktop.qa.pipeline import Assistant
from duocthu_desktop.retrieval.memory_store import InMemoryStore
from duocthu_desktop.retrieval.service import RetrievalService
from duocthu_desktop.settings import Settings
from tests.retrieval_samples import sample_chunks, sample_monographs

service = RetrievalService(InMemoryStore(sample_chunks()), sample_monographs())
assistant = Assistant(service, settings=Settings(data_dir=Path(sys.argv.pop(1))), engine_name="extractive")
cli_ask.open_assistant = lambda args: assistant
sys.exit(cli_ask.main())
"""


def test_duocthu_ask_process_with_invalid_utf8_argv_answers(tmp_path) -> None:
    """The real process, real undecodable bytes in argv, the whole turn (traces and conversation written)."""
    env = {**os.environ, ENV_CONFIG_DIR: str(tmp_path)}
    run = subprocess.run(
        [sys.executable.encode(), b"-c", ASK_OVER_SAMPLES.encode(), str(tmp_path / "data").encode(),
         b"--conversation", b"c\xff", BAD_BYTES],
        env=env, capture_output=True, timeout=120, cwd=Path(__file__).resolve().parents[1],
    )
    assert run.returncode == 0, run.stderr.decode("utf-8", "replace")
    assert b"Traceback" not in run.stderr
    payload = json.loads(run.stdout.decode("utf-8"))
    assert payload["disclaimer"]


def test_interactions_of_a_monograph_that_prints_none_are_not_found_never_safe(tmp_path) -> None:
    """A monograph with no Tương tác thuốc section, asked what it interacts with: not found, said as never safe
    (no_interaction_evidence), not an index failure and not a sentence from another section."""
    from duocthu_desktop.artifacts import Chunk, Monograph
    from duocthu_desktop.qa.pipeline import Assistant
    from duocthu_desktop.qa.understanding.catalog import Catalog
    from duocthu_desktop.retrieval.memory_store import InMemoryStore
    from duocthu_desktop.retrieval.service import RetrievalService
    from duocthu_desktop.settings import Settings

    monographs = [Monograph(drug_id="zentamol", title="ZENTAMOL", start_physical=1, end_physical=1, start_printed=10,
                            end_printed=10)]
    chunks = [Chunk(chunk_id=f"zentamol__{key}__0", drug_id="zentamol", section_key=key, part_index=0, text=text,
                    printed_pages=[10], physical_pages=[1], page_spans=[[1, 0, len(text)]])
              for key, text in (("chi_dinh", "Nhiễm nấm da."),
                                ("duoc_ly_co_che", "Zentamol dùng chung với nhiều chất sát khuẩn khác trên da."),
                                ("lieu_luong_cach_dung", "Bôi 2 lần/ngày."))]
    assistant = Assistant(RetrievalService(InMemoryStore(chunks), monographs), catalog=Catalog(monographs, chunks),
                          settings=Settings(data_dir=tmp_path), engine_name="extractive")
    payload = assistant.ask("Zentamol bôi chung với thuốc khác có tương tác gì không?")
    assert payload.decision == "abstain" and payload.reason == "no_interaction_evidence"
    assert "KHÔNG có nghĩa là an toàn" in payload.message and not payload.blocks
