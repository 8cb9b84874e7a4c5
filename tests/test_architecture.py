"""The core and the ingest tool never import Qt (STYLE.md: the core never imports the GUI)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _core_modules() -> list[str]:
    mods = []
    for pkg in ("duocthu_desktop", "ingestion", "models"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = rel.parts
            if "ui" in parts or "app" in parts:  # the Qt window (duocthu_desktop/app) is the only GUI
                continue
            mods.append(".".join(p for p in parts if p != "__init__"))
    return mods


def test_core_imports_no_qt():
    mods = _core_modules()
    assert len(mods) > 5
    code = (
        "import importlib, sys\n"
        f"for m in {mods!r}:\n"
        "    importlib.import_module(m)\n"
        "bad = [m for m in sys.modules if m.startswith(('PySide6', 'shiboken6', 'PyQt'))]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "", f"core modules pulled in Qt: {out.stdout}"


def test_core_sources_do_not_mention_qt():
    for path in _core_modules():
        src = (ROOT / (path.replace(".", "/") + ".py"))
        if not src.exists():
            src = ROOT / path.replace(".", "/") / "__init__.py"
        text = src.read_text(encoding="utf-8")
        assert "PySide6" not in text and "from PyQt" not in text, f"{src} mentions Qt"
