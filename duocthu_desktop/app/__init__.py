"""The desktop app: a PySide6 window over the Qt-free core (`python -m duocthu_desktop.app`).

Nothing outside this package imports it; the core never imports Qt (tests/test_architecture.py).
"""
