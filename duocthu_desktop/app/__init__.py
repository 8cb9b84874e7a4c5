"""The desktop app: a PySide6 window over the Qt-free core (`python -m duocthu_desktop.app`).

Nothing outside this package imports it; the core never imports Qt (tests/test_architecture.py).
"""

from duocthu_desktop.app.none_refcount import keep_none_alive

keep_none_alive()  # before any Qt call: see none_refcount
