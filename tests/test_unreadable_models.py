"""A models folder this user cannot read: `duocthu-models verify` says so in one line (exit 2) and a generative
turn abstains with provider_unavailable naming the folder, never a traceback or "lỗi không lường trước".

The command runs for real: the folder chmod 000, and as root (whom modes do not stop) under `setpriv` with the
capabilities that override file modes dropped. The turn takes the same PermissionError from a scripted `is_file`.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from duocthu_desktop.qa.pipeline import Assistant
from duocthu_desktop.settings import ENV_MODELS_DIR, Settings

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "Liều paracetamol cho bé 5 tuổi nặng 18 kg, đường uống?"


def _without_override() -> list[str]:
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("root without setpriv: file modes do not stop root here")
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]


def test_verify_with_an_unreadable_models_folder_is_one_line_naming_it(tmp_path):
    models = tmp_path / "models"
    (models / "embeddinggemma-300m").mkdir(parents=True)
    models.chmod(0)
    try:
        env = dict(os.environ, **{ENV_MODELS_DIR: str(models)})
        done = subprocess.run([*_without_override(), sys.executable, "-m", "models.cli", "verify"], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=120)
    finally:
        models.chmod(0o755)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"{models} (Permission denied)" in lines[0]


def test_a_generative_turn_with_an_unreadable_models_folder_abstains_naming_it(qa_service, catalog, tmp_path,
                                                                              monkeypatch):
    models = tmp_path / "models"
    gguf = models / "gguf" / "model.gguf"
    real_is_file = pathlib.Path.is_file

    def is_file(self):
        if str(self).startswith(str(models)):
            raise PermissionError(13, "Permission denied", str(self))
        return real_is_file(self)

    monkeypatch.setattr(pathlib.Path, "is_file", is_file)
    settings = Settings(data_dir=tmp_path / "data", gguf_model=gguf, engine="generative")
    assistant = Assistant(qa_service, catalog=catalog, settings=settings, engine_name="generative")
    payload = assistant.ask(QUESTION)
    assert (payload.decision, payload.reason) == ("abstain", "provider_unavailable")
    assert f"Không đọc được thư mục mô hình {models / 'gguf'} (Permission denied)" in payload.message
    assert "không lường trước" not in payload.message and payload.disclaimer
