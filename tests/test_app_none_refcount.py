"""The window survives building a tree the size of the real formulary (PySide6 drops references to None: see
duocthu_desktop.app.none_refcount); without the guard this process aborts with "deallocating None"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD_A_BIG_TREE = """
import sys
import duocthu_desktop.app  # the guard, as every window module has it
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QTreeWidgetItem
app = QApplication([])
before = sys.getrefcount(None)
top = QTreeWidgetItem()
for i in range(30000):  # 12,000 items at full size, each given text and data
    child = QTreeWidgetItem()
    child.setText(0, "x")
    child.setData(0, Qt.ItemDataRole.UserRole, i)
    top.addChild(child)
print("built", before - sys.getrefcount(None) < 1 << 39)
"""


def test_a_full_size_tree_does_not_free_none():
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    out = subprocess.run([sys.executable, "-c", BUILD_A_BIG_TREE], capture_output=True, text=True, env=env,
                         timeout=300, check=False)
    assert out.returncode == 0 and out.stdout.split() == ["built", "True"], out.stderr[-1500:]
