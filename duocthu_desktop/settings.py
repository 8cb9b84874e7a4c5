"""Settings: defaults here, then saved settings, then environment, then command-line flags (last wins).

Folders come from platformdirs so the app behaves like any desktop program; every one can be overridden.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, ValidationError

# The embedder reads its torch thread count here; defined in settings (which imports nothing of the
# project's) so settings -> retrieval -> models -> settings is no circle.
ENV_THREADS = "DUOCTHU_TORCH_THREADS"

log = logging.getLogger(__name__)

APP_NAME = "duocthu"

ENV_INDEX = "DUOCTHU_INDEX"
ENV_MODEL = "DUOCTHU_MODEL"  # a GGUF for the generative engine
ENV_MODELS_DIR = "DUOCTHU_MODELS_DIR"  # where assembled model folders live
ENV_DATA_DIR = "DUOCTHU_DATA_DIR"  # conversations and traces
ENV_CACHE_DIR = "DUOCTHU_CACHE_DIR"  # embedding cache and other rebuildable things
ENV_CHROMA_URL = "DUOCTHU_CHROMA_URL"  # server mode: http://host:port of a Chroma server
ENV_CONFIG_DIR = "DUOCTHU_CONFIG_DIR"  # where settings.json lives


def cache_dir() -> Path:
    return Path(os.environ.get(ENV_CACHE_DIR) or platformdirs.user_cache_dir(APP_NAME))


def data_dir() -> Path:
    return Path(os.environ.get(ENV_DATA_DIR) or platformdirs.user_data_dir(APP_NAME))


PRIVATE_DIR_MODE = 0o700  # the data folder: what a clinician typed, masked, is still theirs alone
PRIVATE_FILE_MODE = 0o600


def private_dir(path: Path) -> Path:
    """`path` created 0700, or tightened to 0700 when it exists with more (an earlier version made it 0755)."""
    path = Path(path)
    path.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    if path.stat().st_mode & 0o777 != PRIVATE_DIR_MODE:
        os.chmod(path, PRIVATE_DIR_MODE)
    return path


def private_file(path: Path) -> Path:
    """`path` created empty 0600 if missing, or tightened to 0600 (with its SQLite journal files) if it exists."""
    path = Path(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, PRIVATE_FILE_MODE)
    os.close(fd)
    for one in (path, *(path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal"))):
        try:
            if one.stat().st_mode & 0o777 != PRIVATE_FILE_MODE:
                os.chmod(one, PRIVATE_FILE_MODE)
        except FileNotFoundError:
            pass
    return path


def models_dir() -> Path:
    """DUOCTHU_MODELS_DIR, else the models a frozen bundle ships, else the cache's (`duocthu-models prepare`)."""
    if os.environ.get(ENV_MODELS_DIR):
        return Path(os.environ[ENV_MODELS_DIR])
    from duocthu_desktop import bundled

    return bundled.models_dir() or cache_dir() / "models"


def settings_file() -> Path:
    return Path(os.environ.get(ENV_CONFIG_DIR) or platformdirs.user_config_dir(APP_NAME)) / "settings.json"


class Settings(BaseModel):
    """Everything a run can be configured with. Missing values fall back to these defaults."""

    model_config = ConfigDict(extra="forbid")

    index_dir: Path | None = Field(None, description="Folder made by `duocthu-ingest build --out`.")
    gguf_model: Path | None = Field(None, description="Local GGUF for the generative engine; none = extractive only.")
    engine: str = Field("extractive", description="'extractive' (default) or 'generative'.")
    chroma_url: str | None = Field(None, description="Server mode: URL of a Chroma server holding the index.")
    embedding_model_dir: Path | None = Field(None, description="Assembled EmbeddingGemma folder; default in models_dir().")
    data_dir: Path = Field(default_factory=data_dir, description="Conversations and traces (SQLite).")
    pdf_path: Path | None = Field(None, description="The formulary PDF; none = the one the index was built from.")
    threads: int | None = Field(None, ge=1, le=256, description=(
        "CPU threads for the embedding and language models; none = all for the embedder, and for the language "
        "model the cores other programs leave free, chosen at each call."))
    context_size: int = Field(4096, ge=512, le=32768, description="The language model's context, in tokens.")
    text_size: float | None = Field(None, ge=6, le=40, description="The app's text size in points; none = system.")

    @classmethod
    def load(cls, index: str | Path | None = None, model: str | Path | None = None, **overrides) -> Settings:
        """Saved settings < environment < explicit arguments."""
        values: dict = cls.read_saved(settings_file())
        if os.environ.get(ENV_INDEX):
            values["index_dir"] = os.environ[ENV_INDEX]
        if os.environ.get(ENV_MODEL):
            values["gguf_model"] = os.environ[ENV_MODEL]
        if os.environ.get(ENV_CHROMA_URL):
            values["chroma_url"] = os.environ[ENV_CHROMA_URL]
        if index is not None:
            values["index_dir"] = index
        if model is not None:
            values["gguf_model"] = model
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls.model_validate(values)

    @classmethod
    def read_saved(cls, path: Path) -> dict:
        """The usable values of a saved settings file. A file that cannot be read or is not a JSON object is
        ignored, an unknown key dropped and a value of the wrong type left at its default, each with a warning:
        a damaged settings file never stops the app from starting."""
        try:
            if not path.is_file():
                return {}
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            log.warning("settings file %s ignored: unreadable (%s)", path, type(err).__name__)
            return {}
        if not isinstance(raw, dict):
            log.warning("settings file %s ignored: not a JSON object", path)
            return {}
        values: dict = {}
        for key, value in raw.items():
            if key not in cls.model_fields:
                log.warning("settings file %s: unknown key %r dropped", path, key)
                continue
            try:
                cls.model_validate({key: value})
            except ValidationError:
                log.warning("settings file %s: bad value for %r, default used", path, key)
                continue
            values[key] = value
        return values

    def save(self) -> None:
        from duocthu_desktop import atomic

        atomic.write_text(settings_file(), self.model_dump_json(indent=1))

    @classmethod
    def save_changes(cls, **changes) -> dict:
        """Write `changes` over the saved settings (None removes a key), keeping only what was saved or changed:
        values from the environment or a flag are not frozen into the file. Returns what is now saved."""
        from duocthu_desktop import atomic

        values = {**cls.read_saved(settings_file()), **changes}
        values = {k: v for k, v in values.items() if v is not None}
        dumped = cls.model_validate(values).model_dump(mode="json")  # ValidationError on a bad change
        saved = {k: dumped[k] for k in values}
        atomic.write_text(settings_file(), json.dumps(saved, ensure_ascii=False, indent=1))
        return saved


def apply_threads(settings: Settings) -> None:
    """The saved thread count, for the embedder (read when it loads); the environment's own value wins."""
    if settings.threads and not os.environ.get(ENV_THREADS):
        os.environ[ENV_THREADS] = str(settings.threads)
