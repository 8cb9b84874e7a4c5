"""The embedding model's weights are trusted by their sha256, at every load, never by their size or file dates.

A tiny fake model folder (weights pinned by monkeypatch) stands in for the 1.2 GB one, and the library load is
replaced by a recorder, so these run in milliseconds; one integration test copies the real prepared folder to
tmp_path (the real files are never touched).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from duocthu_desktop import cli_ask
from duocthu_desktop.errors import ModelError
from duocthu_desktop.messages import INDEX_UNAVAILABLE
from duocthu_desktop.qa.pipeline import Assistant
from duocthu_desktop.retrieval.embedder import LazyEmbedder, SentenceTransformerEmbedder
from duocthu_desktop.retrieval.memory_store import InMemoryStore
from duocthu_desktop.retrieval.service import RetrievalService
from duocthu_desktop.settings import Settings
from models import cli
from models import embedding_gemma as eg
from tests.retrieval_samples import sample_chunks, sample_monographs

WEIGHTS = bytes(range(256)) * 8
FILES = {"config.json": b"{}", "modules.json": b"[]", "tokenizer.json": b"{}", eg.WEIGHTS_FILE: WEIGHTS}
NEEDS_DENSE = "Thuốc nào điều trị bệnh gout?"  # no Chỉ định in the samples names gout: only the dense search can
ANSWERED_LEXICALLY = "Thuốc nào điều trị tăng huyết áp?"


# ---- a prepared fake model, and a load that records instead of running torch ---------------------------------


def _write_folder(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name, data in FILES.items():
        (folder / name).write_bytes(data)
    stat = (folder / eg.WEIGHTS_FILE).stat()
    marker = {"model": eg.MODEL_NAME, "sha256": eg.WEIGHTS_SHA256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    (folder / eg.MARKER_FILE).write_text(json.dumps(marker), encoding="utf-8")  # as `prepare` leaves it
    return folder


@pytest.fixture
def fake_model(tmp_path, monkeypatch) -> Path:
    """A folder `prepare` would have left, holding tiny weights whose hash is the pinned one; no registry."""
    monkeypatch.setattr(eg, "WEIGHTS_SHA256", hashlib.sha256(WEIGHTS).hexdigest())
    monkeypatch.setattr(eg, "WEIGHTS_SIZE", len(WEIGHTS))
    monkeypatch.setattr(eg, "FILE_SHA256", {name: hashlib.sha256(data).hexdigest() for name, data in FILES.items()
                                            if name != eg.WEIGHTS_FILE})
    monkeypatch.setenv("DUOCTHU_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("DUOCTHU_CACHE_DIR", str(tmp_path / "cache"))

    def no_registry(*args, **kwargs):
        raise ModelError("test: the registry must not be asked")

    monkeypatch.setattr(eg, "ensure_wheels", no_registry)
    return _write_folder(tmp_path / "models" / eg.MODEL_NAME)


class _FakeModel:
    def encode(self, texts, **kwargs):
        return np.ones((len(texts), 8), dtype="float32")


class _FakeTorch:
    def get_num_threads(self) -> int:
        return 1

    def set_num_threads(self, n: int) -> None:
        pass


@pytest.fixture
def loads(monkeypatch) -> list[Path]:
    """Folders the embedder really loaded (a fake that works like sentence-transformers would)."""
    seen: list[Path] = []

    def fake_load(self, folder):
        seen.append(Path(folder))
        self._model, self._torch, self._document_threads, self.dimensions = _FakeModel(), _FakeTorch(), 1, 8

    monkeypatch.setattr(SentenceTransformerEmbedder, "_load", fake_load)
    return seen


@pytest.fixture
def refused_loads(monkeypatch) -> list[Path]:
    """Folders handed to the library: each fails there, as unverified weights may."""
    seen: list[Path] = []

    def failing_load(self, folder):
        seen.append(Path(folder))
        raise RuntimeError("Error while deserializing header: InvalidHeaderDeserialization")

    monkeypatch.setattr(SentenceTransformerEmbedder, "_load", failing_load)
    return seen


def _flip_one_byte_keeping_size_and_mtime(weights: Path, at: int | None = None) -> None:
    stat = weights.stat()
    with open(weights, "r+b") as fh:
        fh.seek(stat.st_size // 2 if at is None else at)
        byte = fh.read(1)
        fh.seek(-1, os.SEEK_CUR)
        fh.write(bytes([byte[0] ^ 0x01]))
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    after = weights.stat()
    assert (after.st_size, after.st_mtime_ns) == (stat.st_size, stat.st_mtime_ns)


def _copy(folder: Path, to: Path) -> Path:
    """A copy as `cp -r` makes it: same bytes, new file dates."""
    time.sleep(0.01)
    copy = Path(shutil.copytree(folder, to, copy_function=shutil.copyfile))
    assert (copy / eg.WEIGHTS_FILE).stat().st_mtime_ns != (folder / eg.WEIGHTS_FILE).stat().st_mtime_ns
    return copy


def _assistant(folder: Path, tmp_path: Path) -> Assistant:
    service = RetrievalService(InMemoryStore(sample_chunks()), sample_monographs(), LazyEmbedder(folder))
    return Assistant(service, settings=Settings(data_dir=tmp_path / "data"), engine_name="extractive")


# ---- the hash is checked at every load ------------------------------------------------------------------------


def test_a_flipped_byte_with_size_and_date_kept_is_refused_at_load_with_the_verify_message(fake_model, loads):
    _flip_one_byte_keeping_size_and_mtime(fake_model / eg.WEIGHTS_FILE)
    with pytest.raises(ModelError) as at_load:
        SentenceTransformerEmbedder(fake_model)
    with pytest.raises(ModelError) as by_verify:
        eg.verify(fake_model)
    assert str(at_load.value) == str(by_verify.value)
    assert "tampered or corrupt" in str(at_load.value) and eg.WEIGHTS_SHA256 in str(at_load.value)
    assert loads == []  # refused before the library saw a byte of it


def test_a_copied_folder_with_the_right_hash_loads_in_verify_and_in_the_embedder(fake_model, loads, tmp_path):
    copy = _copy(fake_model, tmp_path / "elsewhere" / eg.MODEL_NAME)
    assert eg.verify(copy) == copy
    embedder = SentenceTransformerEmbedder(copy)
    assert loads == [copy]
    assert len(embedder.embed(["tăng huyết áp"], "query")[0]) == 8
    bare = tmp_path / "bare" / eg.MODEL_NAME  # copied without the hidden marker file: the hash alone decides
    bare.mkdir(parents=True)
    for name in FILES:
        shutil.copyfile(fake_model / name, bare / name)
    assert eg.verify(bare) == bare
    SentenceTransformerEmbedder(bare)
    assert loads == [copy, bare]


def test_models_cli_verify_accepts_a_copy_and_refuses_tampering_in_one_line_with_exit_2(
    fake_model, tmp_path, monkeypatch, capsys
):
    copy = _copy(fake_model, tmp_path / "copied-models" / eg.MODEL_NAME)
    monkeypatch.setenv("DUOCTHU_MODELS_DIR", str(copy.parent))
    assert cli.main(["verify"]) == 0
    assert capsys.readouterr().out.strip() == str(copy)
    _flip_one_byte_keeping_size_and_mtime(copy / eg.WEIGHTS_FILE, at=0)
    assert cli.main(["verify"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "tampered or corrupt" in lines[0] and "Traceback" not in captured.err


def test_unreadable_weights_are_refused_in_one_line_not_a_traceback(fake_model, monkeypatch, capsys):
    def unreadable(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(eg, "sha256_file", unreadable)
    assert cli.main(["verify"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "cannot be read" in err
    with pytest.raises(ModelError, match="cannot be read"):
        SentenceTransformerEmbedder(fake_model)


def test_prepare_keeps_a_copied_folder_with_the_right_hash_instead_of_reassembling(fake_model, tmp_path):
    copy = _copy(fake_model, tmp_path / "copied-models" / eg.MODEL_NAME)
    assert eg.prepare(base=copy.parent) == copy  # the fixture makes the registry fail if asked
    marker = json.loads((copy / eg.MARKER_FILE).read_text(encoding="utf-8"))
    assert marker["mtime_ns"] == (copy / eg.WEIGHTS_FILE).stat().st_mtime_ns  # the next prepare is instant
    assert (copy / eg.WEIGHTS_FILE).read_bytes() == WEIGHTS


# ---- a broken model on a question that needs the dense search: a reason code ------------------------------


def _missing(folder: Path) -> None:
    shutil.rmtree(folder)


def _truncated(folder: Path) -> None:
    weights = folder / eg.WEIGHTS_FILE
    weights.write_bytes(weights.read_bytes()[: len(WEIGHTS) // 3])


def _flipped(folder: Path) -> None:
    _flip_one_byte_keeping_size_and_mtime(folder / eg.WEIGHTS_FILE)


def _garbage_header(folder: Path) -> None:
    _flip_one_byte_keeping_size_and_mtime(folder / eg.WEIGHTS_FILE, at=0)


@pytest.mark.parametrize("damage", [_missing, _truncated, _flipped, _garbage_header],
                         ids=["missing", "truncated", "flipped", "corrupt-header"])
def test_a_broken_model_on_a_question_that_needs_the_dense_search_is_an_outage_reason(
    damage, fake_model, refused_loads, tmp_path, caplog
):
    damage(fake_model)
    assistant = _assistant(fake_model, tmp_path)
    with caplog.at_level(logging.WARNING):
        payload = assistant.ask(NEEDS_DENSE, conversation_id="c1")
    assert (payload.decision, payload.reason) == ("abstain", "provider_unavailable")
    assert "không phải Dược thư thiếu dữ liệu" in payload.message  # an outage never reads as "no such drug"
    assert payload.message != INDEX_UNAVAILABLE  # the index is fine: it is the model that is broken
    assert payload.blocks == [] and payload.citations == [] and payload.disclaimer
    assert refused_loads == []  # damaged weights never reach the library
    # the lexical search does not need the model: such a question is still answered from the book
    answered = assistant.ask(ANSWERED_LEXICALLY)
    assert answered.decision == "answerable"
    assert {c.drug_id for c in answered.citations} == {"amlodipin", "captopril"}


def test_duocthu_ask_with_a_tampered_model_prints_a_payload_with_the_reason(
    fake_model, refused_loads, tmp_path, monkeypatch, capsys
):
    _flipped(fake_model)
    assistant = _assistant(fake_model, tmp_path)
    monkeypatch.setattr(cli_ask, "open_assistant", lambda args: assistant)
    assert cli_ask.main([NEEDS_DENSE]) == 0
    captured = capsys.readouterr()
    payload = json.loads(captured.out)
    assert (payload["decision"], payload["reason"]) == ("abstain", "provider_unavailable")
    assert "Traceback" not in captured.err


def test_a_refused_model_is_not_hashed_again_on_every_question(fake_model, refused_loads, tmp_path, monkeypatch):
    _flipped(fake_model)
    hashed: list[Path] = []
    real = eg.sha256_file
    monkeypatch.setattr(eg, "sha256_file", lambda path: hashed.append(Path(path)) or real(path))
    assistant = _assistant(fake_model, tmp_path)
    for _ in range(3):
        assert assistant.ask(NEEDS_DENSE).reason == "provider_unavailable"
    assert hashed == [fake_model / eg.WEIGHTS_FILE]  # LazyEmbedder remembers the refusal


# ---- the real prepared model, copied (never modified in place) --------------------------------------------------


@pytest.mark.integration
def test_real_model_copied_loads_by_hash_and_a_flipped_copy_is_refused(tmp_path, monkeypatch):
    real = eg.model_dir()
    if not (real / eg.WEIGHTS_FILE).is_file():
        pytest.skip("run `duocthu-models prepare` first")
    copy = _copy(real, tmp_path / eg.MODEL_NAME)
    try:
        started = time.perf_counter()
        assert eg.verify(copy) == copy  # new dates, right hash
        hash_seconds = time.perf_counter() - started
        assert hash_seconds < 15  # the cost every load pays (about 1 s on two cores)
        _flip_one_byte_keeping_size_and_mtime(copy / eg.WEIGHTS_FILE)
        monkeypatch.setattr(SentenceTransformerEmbedder, "_load", lambda self, folder: pytest.fail("loaded"))
        with pytest.raises(ModelError, match="tampered or corrupt"):
            SentenceTransformerEmbedder(copy)
    finally:
        shutil.rmtree(copy, ignore_errors=True)


# ---- every file of the folder, not only the main weights (issue 20) ------------------------------------------


def _link_copy(real: Path, to: Path) -> Path:
    """A copy of the real folder whose 1.2 GB main weights are a symlink (never written); every other file is a
    real copy, safe to damage."""
    to.mkdir(parents=True)
    for path in real.rglob("*"):
        if not path.is_file():
            continue
        target = to / path.relative_to(real)
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.relative_to(real).as_posix() == eg.WEIGHTS_FILE:
            target.symlink_to(path)
        else:
            shutil.copyfile(path, target)
    return to


def test_every_file_of_the_real_folder_is_pinned():
    real = eg.model_dir()
    if not (real / eg.WEIGHTS_FILE).is_file():
        pytest.skip("run `duocthu-models prepare` first")
    files = {p.relative_to(real).as_posix() for p in real.rglob("*") if p.is_file()}
    assert files - {eg.WEIGHTS_FILE, eg.MARKER_FILE} == set(eg.FILE_SHA256)
    assert {"tokenizer.json", "2_Dense/model.safetensors", "3_Dense/model.safetensors",
            "modules.json"} <= set(eg.FILE_SHA256)


def test_a_flipped_byte_in_the_fake_tokenizer_is_refused_by_verify_and_at_load(fake_model, loads):
    _flip_one_byte_keeping_size_and_mtime(fake_model / "tokenizer.json", at=0)
    with pytest.raises(ModelError, match="tokenizer.json .*tampered or corrupt"):
        eg.verify(fake_model)
    with pytest.raises(ModelError, match="tokenizer.json"):
        SentenceTransformerEmbedder(fake_model)
    assert loads == []


def test_an_added_file_in_the_model_folder_is_refused(fake_model, loads):
    (fake_model / "4_Extra").mkdir()
    (fake_model / "4_Extra" / "model.safetensors").write_bytes(b"x")
    with pytest.raises(ModelError, match="4_Extra/model.safetensors"):
        eg.verify(fake_model)
    assert loads == []


@pytest.mark.integration
@pytest.mark.parametrize("name", ["tokenizer.json", "2_Dense/model.safetensors"])
def test_real_model_with_a_flipped_byte_in_another_file_is_refused_by_verify_in_one_line(
    name, tmp_path, monkeypatch, capsys
):
    real = eg.model_dir()
    if not (real / eg.WEIGHTS_FILE).is_file():
        pytest.skip("run `duocthu-models prepare` first")
    copy = _link_copy(real, tmp_path / "models" / eg.MODEL_NAME)
    monkeypatch.setenv("DUOCTHU_MODELS_DIR", str(copy.parent))
    assert cli.main(["verify"]) == 0
    capsys.readouterr()
    _flip_one_byte_keeping_size_and_mtime(copy / name)
    assert cli.main(["verify"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert captured.out == "" and "Traceback" not in captured.err
    assert len(lines) == 1 and name in lines[0] and "tampered or corrupt" in lines[0], lines
    monkeypatch.setattr(SentenceTransformerEmbedder, "_load", lambda self, folder: pytest.fail("loaded"))
    with pytest.raises(ModelError, match="tampered or corrupt"):
        SentenceTransformerEmbedder(copy)
    assert (real / name).read_bytes() != (copy / name).read_bytes()  # the real folder was never touched
