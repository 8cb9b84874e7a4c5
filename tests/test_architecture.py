"""The core and the ingest tool never import Qt (STYLE.md: the core never imports the GUI)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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


def _project_imports() -> dict[str, set[str]]:
    """Every project module and the project modules it imports, at top level or inside a function."""
    import ast

    mods = {}
    for pkg in ("duocthu_desktop", "ingestion", "models"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(p for p in parts if p != "__init__")
            mods[name] = path
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                targets = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            deps |= {t for t in targets if t in mods and t != name}
        graph[name] = deps
    return graph


def test_settings_retrieval_models_form_no_import_circle():
    """settings -> retrieval.embedder -> models.embedding_gemma -> settings was a circle (issue 17): settings
    is a leaf the rest reads, so it imports nothing that leads back to it."""
    graph = _project_imports()

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            mod = todo.pop()
            for dep in graph.get(mod, ()):
                if dep == goal:
                    return True
                if dep not in seen:
                    seen.add(dep)
                    todo.append(dep)
        return False

    assert "duocthu_desktop.settings" in graph
    for mod in ("duocthu_desktop.retrieval.embedder", "models.embedding_gemma"):
        assert not (reaches("duocthu_desktop.settings", mod) and reaches(mod, "duocthu_desktop.settings")), mod


@pytest.mark.parametrize(
    "module", ["duocthu_desktop.settings", "duocthu_desktop.retrieval.embedder", "models.embedding_gemma"]
)
def test_each_module_of_the_old_circle_imports_alone(module):
    """Each of the three imports first in a fresh interpreter: a circle shows there as a partly initialised
    module (ImportError / AttributeError) that an import order hiding it in one process never reveals."""
    done = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_ingest_does_not_load_pymupdfs_layout_analyser():
    """`duocthu-ingest` never uses PyMuPDF's layout analyser (find_tables with use_layout=False), so importing
    it (three ONNX sessions, issue 17's profile) is spared: the ingest's modules load, PyMuPDF with them, and
    the analyser is neither imported nor recommended on stdout; PyMuPDF itself reads and finds tables as before."""
    code = (
        "import sys\n"
        "import ingestion.cli, ingestion.pipeline, ingestion.tables\n"
        "import pymupdf\n"
        "doc = pymupdf.open(); page = doc.new_page(); page.insert_text((72, 72), 'Lieu dung')\n"
        "assert 'Lieu dung' in page.get_text('text'), page.get_text('text')\n"
        "assert page.find_tables(use_layout=False).tables == []\n"
        "print(pymupdf._get_layout is None, sys.modules.get('pymupdf.layout') is None)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.split() == ["True", "True"], out.stdout + out.stderr
