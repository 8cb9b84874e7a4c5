"""What this run uses and where each came from: the index, the embedding model, the language model, the data
folder. The settings dialog shows it (a one-off `--index` reads as a flag, not as a saved setting), and the
app opens the index `index_in_use` names.

The index, when no flag, environment or saved setting names one: the index an admin rebuilt into the user's
data folder, else the one shipped with the bundle (`settings.bundled_index_dir`), else the sample index
`scripts/setup.sh` built; none when there is none of these.
"""

from __future__ import annotations

import os
from pathlib import Path

from duocthu_desktop.settings import (
    ENV_DATA_DIR,
    ENV_MODELS_DIR,
    InUse,
    Settings,
    Source,
    bundled_index_dir,
)

REBUILT_INDEX = "index"  # the folder an admin's rebuild writes in the data folder when the index in use is shipped
SAMPLE_INDEX = "sample-index"  # where scripts/setup.sh builds the sample book's index


def _models_source() -> Source:
    return "environment" if os.environ.get(ENV_MODELS_DIR) else "default"


def index_in_use(settings: Settings) -> InUse:
    """The index folder this run opens and why (see the module's docstring for the order of the defaults)."""
    if settings.index_dir is not None:
        path = Path(settings.index_dir)
        return InUse(key="index_dir", value=str(path), source=settings.source_of("index_dir"), present=path.is_dir())
    from duocthu_desktop.retrieval.index_folder import settle

    data = Path(settings.data_dir)
    bundled = bundled_index_dir()
    for path, source, name in ((data / REBUILT_INDEX, "default", "rebuilt"), (bundled, "bundled", "bundled"),
                               (data / SAMPLE_INDEX, "default", "sample")):
        if path is not None and source != "bundled":
            settle(Path(path))  # a rebuild killed mid-swap must not make the app fall back to another index
        if path is not None and Path(path).is_dir():
            return InUse(key="index_dir", value=str(path), source=source, present=True, name=name)
    return InUse(key="index_dir", value=None, source="default", present=False)


def rebuild_target(settings: Settings, open_index: Path | None) -> Path:
    """Where a rebuild writes: the folder in use, unless it is the shipped one or cannot be written (a bundle
    under Program Files), then the data folder's own index, which is opened from then on."""
    if open_index is not None:
        shipped = bundled_index_dir()
        is_shipped = shipped is not None and _same(open_index, shipped)
        if not is_shipped and os.access(Path(open_index).parent, os.W_OK):
            return Path(open_index)
    return Path(settings.data_dir) / REBUILT_INDEX


def _same(a: Path, b: Path) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def gguf_in_use(settings: Settings) -> InUse:
    """The language model's GGUF: the one chosen, else the default `duocthu-models prepare` assembles, named."""
    from models import gguf

    if settings.gguf_model is not None:
        path = Path(settings.gguf_model)
        spec = gguf.spec_for(path)
        return InUse(key="gguf_model", value=str(path), source=settings.source_of("gguf_model"),
                     present=path.is_file(), name=spec.label if spec else path.name)
    path = gguf.model_path()
    return InUse(key="gguf_model", value=str(path), source=_models_source(), present=_is_file(path),
                 name=gguf.DEFAULT.label, value_is_own=False)


def embedder_in_use(settings: Settings) -> InUse:
    from models import embedding_gemma

    if settings.embedding_model_dir is not None:
        path, source = Path(settings.embedding_model_dir), settings.source_of("embedding_model_dir")
    else:
        path, source = embedding_gemma.model_dir(), _models_source()
    return InUse(key="embedding_model_dir", value=str(path), source=source, present=_is_dir(path),
                 name=embedding_gemma.MODEL_ID.split("@")[0])


def data_in_use(settings: Settings) -> InUse:
    path = Path(settings.data_dir)
    source: Source = settings.source_of("data_dir")
    if source == "default" and os.environ.get(ENV_DATA_DIR):
        source = "environment"
    return InUse(key="data_dir", value=str(path), source=source, present=_is_dir(path))


def in_use(settings: Settings) -> list[InUse]:
    """Everything the settings dialog says is in use, in the order it shows them."""
    found = [index_in_use(settings)]
    if settings.chroma_url:
        found.append(InUse(key="chroma_url", value=settings.chroma_url, source=settings.source_of("chroma_url")))
    return [*found, gguf_in_use(settings), embedder_in_use(settings), data_in_use(settings)]


def _is_file(path: Path) -> bool:
    try:
        return Path(path).is_file()
    except OSError:  # a folder on the way this user cannot read
        return False


def _is_dir(path: Path) -> bool:
    try:
        return Path(path).is_dir()
    except OSError:
        return False


# ---- said for a person (the settings dialog) -------------------------------------------------------------------

TITLES = {"index_dir": "Chỉ mục", "chroma_url": "Máy chủ Chroma", "gguf_model": "Mô hình GGUF",
          "embedding_model_dir": "Mô hình nhúng", "data_dir": "Thư mục dữ liệu"}
ENV_NAMES = {"index_dir": "DUOCTHU_INDEX", "gguf_model": "DUOCTHU_MODEL", "chroma_url": "DUOCTHU_CHROMA_URL",
             "data_dir": ENV_DATA_DIR, "embedding_model_dir": ENV_MODELS_DIR}
SOURCES = {"flag": "tham số dòng lệnh (chỉ lần chạy này, không lưu)",
           "environment": "biến môi trường {env} (chỉ lần chạy này, không lưu)",
           "saved": "đã lưu trong cài đặt", "bundled": "đi kèm bộ cài (dùng nguyên như khi phát hành)",
           "default": "mặc định"}
DEFAULT_INDEXES = {"rebuilt": "mặc định: chỉ mục dựng lại trong thư mục dữ liệu", "sample": "mặc định: chỉ mục mẫu"}
PRESENT, ABSENT = "có", "chưa có"
NONE = "(không có)"


def source_words(item: InUse) -> str:
    """Where the value came from, in the dialog's words."""
    if item.source == "default" and item.name in DEFAULT_INDEXES:
        return DEFAULT_INDEXES[item.name]
    env = ENV_NAMES.get(item.key, "")
    if item.source == "environment" and item.key == "gguf_model" and not item.value_is_own:
        env = ENV_MODELS_DIR  # the default file, in the models folder the environment names
    return SOURCES[item.source].format(env=env)


def describe(item: InUse) -> tuple[str, str]:
    """(the row's title, its text): the name and "có / chưa có", the path, and where it came from."""
    state = None if item.present is None else (PRESENT if item.present else ABSENT)
    value = item.value or NONE
    if item.name and item.key != "index_dir":  # a model: its name and whether it is there, then its path
        lines = [f"{item.name} — {state}" if state else item.name, value]
    else:
        lines = [f"{value} — {state}" if state and item.value else value]
    lines.append(f"Nguồn: {source_words(item)}")
    return TITLES.get(item.key, item.key), "\n".join(lines)
