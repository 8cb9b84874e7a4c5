"""Settings: defaults here, then saved settings, then environment, then command-line flags (last wins).

Folders come from platformdirs so the app behaves like any desktop program; every one can be overridden.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

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
ENV_CHROMA_TOKEN = "DUOCTHU_CHROMA_TOKEN"  # server mode: bearer token for the reverse proxy in front of it
ENV_CHROMA_TIMEOUT = "DUOCTHU_CHROMA_TIMEOUT"  # server mode: seconds every HTTP call may take
ENV_CONFIG_DIR = "DUOCTHU_CONFIG_DIR"  # where settings.json lives
ENV_BUNDLED_INDEX = "DUOCTHU_BUNDLED_INDEX"  # names the index a bundle ships (default: duocthu_desktop.bundled)

# Where a value in use came from: a command-line flag, the environment, settings.json, shipped with the bundle,
# or the built-in default. A flag's or the environment's value is this run's alone: never saved.
Source = Literal["flag", "environment", "saved", "bundled", "default"]
ONE_OFF: frozenset[str] = frozenset({"flag", "environment"})


def cache_dir() -> Path:
    return Path(os.environ.get(ENV_CACHE_DIR) or platformdirs.user_cache_dir(APP_NAME))


def data_dir() -> Path:
    return Path(os.environ.get(ENV_DATA_DIR) or platformdirs.user_data_dir(APP_NAME))


def bundled_index_dir() -> Path | None:
    """The prebuilt index a frozen app ships (duocthu_desktop.bundled), or the one DUOCTHU_BUNDLED_INDEX names;
    None when not frozen and not named. Used as shipped until an admin rebuilds into the user's data folder."""
    named = os.environ.get(ENV_BUNDLED_INDEX)
    if named:
        return Path(named)
    from duocthu_desktop import bundled

    return bundled.index_dir()


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


def first_unreadable(path: Path) -> Path:
    """The outermost folder on the way to `path` this user cannot list (what an admin must give access to), or
    `path` itself when every folder above it can be listed."""
    path = Path(path).absolute()
    for folder in (*reversed(path.parents), path):
        try:
            if folder.is_dir():
                os.listdir(folder)
        except PermissionError:
            return folder
        except OSError:
            continue
    return path


def settings_file() -> Path:
    return Path(os.environ.get(ENV_CONFIG_DIR) or platformdirs.user_config_dir(APP_NAME)) / "settings.json"


class Settings(BaseModel):
    """Everything a run can be configured with. Missing values fall back to these defaults."""

    model_config = ConfigDict(extra="forbid")

    index_dir: Path | None = Field(None, description="Folder made by `duocthu-ingest build --out`.")
    gguf_model: Path | None = Field(None, description="Local GGUF for the generative engine; none = extractive only.")
    engine: str = Field("extractive", description="'extractive' (default) or 'generative'.")
    chroma_url: str | None = Field(None, description="Server mode: URL of a Chroma server holding the index "
                                   "`duocthu-ingest publish` put there; index_dir, if set too, is the fallback.")
    chroma_token: str | None = Field(None, repr=False, description="Server mode: bearer token sent to the reverse "
                                     "proxy in front of the server.")
    chroma_timeout: float = Field(10.0, gt=0, le=600, description="Server mode: seconds any call to it may take.")
    embedding_model_dir: Path | None = Field(None, description="Assembled EmbeddingGemma folder; default in models_dir().")
    data_dir: Path = Field(default_factory=data_dir, description="Conversations and traces (SQLite).")
    pdf_path: Path | None = Field(None, description="The formulary PDF; none = the one the index was built from.")
    threads: int | None = Field(None, ge=1, le=256, description=(
        "CPU threads for the embedding and language models; none = all for the embedder, and for the language "
        "model the cores other programs leave free, chosen at each call."))
    context_size: int = Field(4096, ge=512, le=32768, description="The language model's context, in tokens.")
    text_size: float | None = Field(None, ge=6, le=40, description="The app's text size in points; none = system.")
    _sources: dict[str, Source] = PrivateAttr(default_factory=dict)  # field -> where its value came from

    @classmethod
    def load(cls, index: str | Path | None = None, model: str | Path | None = None, **overrides) -> Settings:
        """Saved settings < environment < explicit arguments; each value's source is kept (`source_of`)."""
        values: dict = cls.read_saved(settings_file())
        sources: dict[str, Source] = dict.fromkeys(values, "saved")
        for key, env in (("index_dir", ENV_INDEX), ("gguf_model", ENV_MODEL), ("chroma_url", ENV_CHROMA_URL),
                           ("chroma_token", ENV_CHROMA_TOKEN), ("chroma_timeout", ENV_CHROMA_TIMEOUT)):
            if os.environ.get(env):
                values[key], sources[key] = os.environ[env], "environment"
        given = {"index_dir": index, "gguf_model": model, **overrides}
        for key, value in given.items():
            if value is not None:
                values[key], sources[key] = value, "flag"
        settings = cls.model_validate(values)
        settings._sources = sources
        return settings

    def source_of(self, key: str) -> Source:
        """Where this run's value of `key` came from ("default" for a value nobody gave)."""
        if key in self._sources:
            return self._sources[key]
        if key == "data_dir" and os.environ.get(ENV_DATA_DIR):
            return "environment"
        return "default"

    def with_saved(self, changed: dict) -> Settings:
        """These settings with `changed` (what the dialog just saved) over them, those keys now "saved"."""
        updated = type(self).model_validate({**self.model_dump(), **changed})
        updated._sources = {**self._sources, **{k: "saved" for k in changed if changed[k] is not None}}
        for key in (k for k, v in changed.items() if v is None):
            updated._sources.pop(key, None)
        return updated

    def with_value(self, key: str, value, source: Source) -> Settings:
        """A copy with `key` set to `value` from `source` (e.g. a rebuilt index the window now opens)."""
        updated = self.model_copy(update={key: value})
        updated._sources = {**self._sources, key: source}
        return updated

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
        """Write the values set on these settings, except those a flag or the environment gave this run."""
        keep = {k for k in self.model_fields_set if self.source_of(k) not in ONE_OFF}
        self.save_changes(**{k: v for k, v in self.model_dump(mode="json").items() if k in keep})

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


class InUse(BaseModel):
    """One setting as this run uses it: the value, where it came from, and whether its file or folder is there.
    What the settings dialog shows (duocthu_desktop.in_use builds the list)."""

    model_config = ConfigDict(extra="forbid")

    key: str = Field(description="The Settings field, or a name for a value no field holds (e.g. 'data_dir').")
    value: str | None = Field(description="A path, URL or name; None when nothing is in use.")
    source: Source
    present: bool | None = Field(None, description="For a file or folder: it exists; None for other values.")
    name: str | None = Field(None, description="What the value is called for a person (e.g. the default GGUF).")
    value_is_own: bool = Field(True, description="The value was given (not a default found in a folder).")
