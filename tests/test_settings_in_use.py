"""What is in use and where it came from (flag, environment, saved, bundled, default), and that a value a flag
or the environment gave this run is never written into settings.json (issues 18 and 19)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from duocthu_desktop import in_use
from duocthu_desktop.settings import (
    ENV_BUNDLED_INDEX,
    ENV_CONFIG_DIR,
    ENV_DATA_DIR,
    ENV_INDEX,
    ENV_MODEL,
    ENV_MODELS_DIR,
    Settings,
    bundled_index_dir,
)
from models import gguf


@pytest.fixture()
def clean(tmp_path: Path, monkeypatch) -> Path:
    """A config and data folder of the test's own; nothing of the machine's environment."""
    monkeypatch.setenv(ENV_CONFIG_DIR, str(tmp_path / "config"))
    monkeypatch.setenv(ENV_DATA_DIR, str(tmp_path / "data"))
    monkeypatch.setenv(ENV_MODELS_DIR, str(tmp_path / "models"))
    for name in (ENV_INDEX, ENV_MODEL, ENV_BUNDLED_INDEX, "DUOCTHU_CHROMA_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "config" / "settings.json"


def test_each_value_says_where_it_came_from(clean, tmp_path, monkeypatch):
    Settings.save_changes(index_dir=str(tmp_path / "saved-index"), engine="generative")
    settings = Settings.load()
    assert settings.source_of("index_dir") == "saved" and settings.source_of("engine") == "saved"
    assert settings.source_of("gguf_model") == "default" and settings.source_of("data_dir") == "environment"
    monkeypatch.setenv(ENV_INDEX, str(tmp_path / "env-index"))
    settings = Settings.load()
    assert (settings.index_dir, settings.source_of("index_dir")) == (tmp_path / "env-index", "environment")
    settings = Settings.load(index=tmp_path / "flag-index", engine="extractive")
    assert (settings.index_dir, settings.source_of("index_dir")) == (tmp_path / "flag-index", "flag")
    assert settings.source_of("engine") == "flag"


def test_a_one_off_flag_or_environment_value_is_never_saved(clean, tmp_path, monkeypatch):
    """The issue's case: the app run on `--index` with DUOCTHU_DATA_DIR set; saving wrote both into the file."""
    monkeypatch.setenv(ENV_MODEL, str(tmp_path / "env.gguf"))
    settings = Settings.load(index=tmp_path / "one-off")
    settings.save()
    Settings.save_changes(engine="generative")
    assert json.loads(clean.read_text(encoding="utf-8")) == {"engine": "generative"}
    again = Settings.load()
    assert again.index_dir is None and again.source_of("index_dir") == "default"


def test_the_default_index_is_the_rebuilt_one_then_the_bundles_then_the_sample(clean, tmp_path, monkeypatch):
    data = tmp_path / "data"
    assert bundled_index_dir() is None  # not frozen, none named
    assert in_use.index_in_use(Settings.load()).value is None
    (data / in_use.SAMPLE_INDEX).mkdir(parents=True)
    found = in_use.index_in_use(Settings.load())
    assert (found.value, found.source, found.name) == (str(data / in_use.SAMPLE_INDEX), "default", "sample")
    shipped = tmp_path / "bundle" / "index"
    shipped.mkdir(parents=True)
    monkeypatch.setenv(ENV_BUNDLED_INDEX, str(shipped))
    found = in_use.index_in_use(Settings.load())
    assert (found.value, found.source) == (str(shipped), "bundled")
    assert in_use.rebuild_target(Settings.load(), shipped) == data / in_use.REBUILT_INDEX  # never into the bundle
    (data / in_use.REBUILT_INDEX).mkdir()
    found = in_use.index_in_use(Settings.load())
    assert (found.value, found.source, found.name) == (str(data / in_use.REBUILT_INDEX), "default", "rebuilt")
    mine = tmp_path / "mine"
    assert in_use.index_in_use(Settings.load(index=mine)).source == "flag"
    assert in_use.rebuild_target(Settings.load(index=mine), mine) == mine


def test_the_default_gguf_is_named_with_whether_it_is_there_and_its_path(clean, tmp_path):
    found = in_use.gguf_in_use(Settings.load())
    assert found.value == str(tmp_path / "models" / "gguf" / gguf.DEFAULT.file_name)
    assert found.name == gguf.DEFAULT.label and found.present is False
    title, text = in_use.describe(found)
    assert title == "Mô hình GGUF"
    assert text.splitlines() == [f"{gguf.DEFAULT.label} — chưa có", found.value,
                                 f"Nguồn: biến môi trường {ENV_MODELS_DIR} (chỉ lần chạy này, không lưu)"]
    Path(found.value).parent.mkdir(parents=True)
    Path(found.value).write_bytes(b"GGUF")
    assert in_use.describe(in_use.gguf_in_use(Settings.load()))[1].startswith(f"{gguf.DEFAULT.label} — có\n")


def test_every_row_of_what_is_in_use_names_a_source(clean, tmp_path):
    rows = in_use.in_use(Settings.load(index=tmp_path / "x"))
    assert [r.key for r in rows] == ["index_dir", "gguf_model", "embedding_model_dir", "data_dir"]
    said = {r.key: in_use.describe(r)[1] for r in rows}
    assert said["index_dir"].endswith("Nguồn: tham số dòng lệnh (chỉ lần chạy này, không lưu)")
    assert said["data_dir"].endswith(f"Nguồn: biến môi trường {ENV_DATA_DIR} (chỉ lần chạy này, không lưu)")


def test_a_rebuild_killed_mid_swap_in_the_data_folder_is_finished_before_the_default_is_chosen(clean, tmp_path):
    """Killed between its renames, a rebuild into the data folder leaves `.index.new` and no `index`: the app
    must open that new index, not fall back to the sample index beside it."""
    data = tmp_path / "data"
    (data / in_use.SAMPLE_INDEX).mkdir(parents=True)
    whole = data / ".index.new"
    whole.mkdir()
    (whole / "manifest.json").write_text("{}", encoding="utf-8")
    found = in_use.index_in_use(Settings.load())
    assert (found.value, found.name) == (str(data / in_use.REBUILT_INDEX), "rebuilt")
    assert not whole.exists()
