"""Where a frozen build (PyInstaller, build.spec) keeps what it ships: the sample index, its PDF and the models.

Everything is found at run time from the running program (`sys._MEIPASS`, else the executable's folder), never
from the build machine's paths, so the folder works wherever an admin copies it. Outside a frozen build there is
no bundle: every function answers None and a development checkout behaves as before. Imports nothing heavy: the
package's __init__ calls `go_offline` before any dependency loads.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

FOLDER = "bundled"  # inside the bundle's resource folder (`_internal` in a one-folder build)
INDEX = "sample-index"
MODELS = "models"
# Set by the frozen app itself (not left to the environment): nothing is fetched at start, nothing reported.
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1",
               "ANONYMIZED_TELEMETRY": "False", "ORT_DISABLE_TELEMETRY": "1", "DO_NOT_TRACK": "1",
               "TOKENIZERS_PARALLELISM": "false"}


def frozen() -> bool:
    return bool(getattr(sys, "frozen", False))


def root() -> Path | None:
    """The bundle's resource folder, or None when not running from a bundle."""
    if not frozen():
        return None
    base = getattr(sys, "_MEIPASS", None) or Path(sys.executable).resolve().parent
    return Path(base) / FOLDER


def _existing(name: str) -> Path | None:
    base = root()
    return base / name if base is not None and (base / name).exists() else None


def index_dir() -> Path | None:
    """The prebuilt index of the sample book shipped in the bundle (its PDF lies beside it)."""
    return _existing(INDEX)


def models_dir() -> Path | None:
    """The bundle's models folder (`embeddinggemma-300m/`, `gguf/FILE.gguf`), laid out like `duocthu-models`'."""
    return _existing(MODELS)


def go_offline() -> None:
    """In a frozen build: no library may reach the network (the laptops have none; the models are inside)."""
    if frozen():
        os.environ.update(OFFLINE_ENV)
