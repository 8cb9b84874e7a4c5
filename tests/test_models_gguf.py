"""The language models (GGUF) are assembled from pinned wheels and trusted by their sha256 alone.

A tiny fake spec (two wheels built here) drives assembly and refusal in milliseconds; the real SmolLM2 file,
prepared by `duocthu-models prepare`, is copied to tmp_path for the tamper checks (the real file is never touched).
"""

from __future__ import annotations

import hashlib
import shutil
import zipfile
from pathlib import Path

import pytest

from duocthu_desktop.errors import ModelError
from models import gguf

PARTS = [b"GGUF-part-one-" * 50, b"part-two" * 70]


def _wheel(directory: Path, package: str, member: str, data: bytes) -> tuple[str, str, str, str]:
    name = f"{package.replace('-', '_')}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(directory / name, "w") as wheel:
        wheel.writestr(member, data)
    return package, "1.0", hashlib.sha256((directory / name).read_bytes()).hexdigest(), member


@pytest.fixture
def fake_spec(tmp_path, monkeypatch) -> gguf.GgufSpec:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    monkeypatch.setattr(gguf, "wheels_dir", lambda: wheels)
    joined = b"".join(PARTS)
    return gguf.GgufSpec(
        key="fake", file_name="fake.gguf", sha256=hashlib.sha256(joined).hexdigest(), size=len(joined),
        wheels=tuple(_wheel(wheels, f"fake-part{n}", f"fake_part{n}/data/part{n:02d}.bin", data)
                     for n, data in enumerate(PARTS, start=1)),
    )


def test_parts_are_joined_in_order_verified_and_reused(fake_spec, tmp_path) -> None:
    path = gguf.prepare(fake_spec, base=tmp_path / "models")
    assert path.read_bytes() == b"".join(PARTS)
    assert gguf.check(path, fake_spec) == path
    stamp = path.stat().st_mtime_ns
    assert gguf.prepare(fake_spec, base=tmp_path / "models") == path and path.stat().st_mtime_ns == stamp
    assert not list(path.parent.glob(".fake.gguf.*"))  # no staging file left


def test_a_wheel_with_another_hash_is_refused_with_what_to_do(fake_spec, tmp_path) -> None:
    package, version, _sha, member = fake_spec.wheels[0]
    bad = gguf.GgufSpec(**{**fake_spec.__dict__, "wheels": ((package, version, "0" * 64, member),
                                                            fake_spec.wheels[1])})
    with pytest.raises(ModelError, match="delete it and run `duocthu-models prepare`"):
        gguf.prepare(bad, base=tmp_path / "models")
    assert not gguf.model_path(bad, tmp_path / "models").exists()


def test_parts_that_do_not_hash_to_the_published_model_are_never_installed(fake_spec, tmp_path) -> None:
    wrong = gguf.GgufSpec(**{**fake_spec.__dict__, "sha256": "f" * 64})
    with pytest.raises(ModelError, match="refusing to install"):
        gguf.prepare(wrong, base=tmp_path / "models")
    assert not gguf.model_path(wrong, tmp_path / "models").exists()


@pytest.fixture(scope="module")
def smollm_copy(tmp_path_factory) -> Path:
    real = gguf.model_path(gguf.SMOLLM2_135M)
    if not real.is_file():
        pytest.fail(f"{real} missing: the test command runs `duocthu-models prepare` first")
    copy = tmp_path_factory.mktemp("gguf") / real.name
    shutil.copyfile(real, copy)
    return copy


def test_the_real_file_verifies_and_a_flipped_byte_or_truncation_is_refused(smollm_copy, tmp_path) -> None:
    assert gguf.check(smollm_copy) == smollm_copy
    flipped = tmp_path / smollm_copy.name
    shutil.copyfile(smollm_copy, flipped)
    with open(flipped, "r+b") as fh:
        fh.seek(1_000_000)
        byte = fh.read(1)
        fh.seek(1_000_000)
        fh.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(ModelError, match="tampered or corrupt"):
        gguf.check(flipped)
    with open(flipped, "r+b") as fh:
        fh.truncate(1000)
    with pytest.raises(ModelError, match="truncated"):
        gguf.check(flipped)
    with pytest.raises(ModelError, match="duocthu-models prepare"):
        gguf.check(tmp_path / "absent" / smollm_copy.name)
