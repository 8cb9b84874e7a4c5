"""First launch on a fresh machine: a missing xcb library is named, with the apt command, before Qt aborts."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from duocthu_desktop.app import main as app_main  # noqa: E402
from duocthu_desktop.app import qt_libs  # noqa: E402

GONE = {"libxcb-icccm.so.4", "libxcb-keysyms.so.1"}


def test_qt_picks_xcb_only_on_linux_with_an_x_display_and_no_other_platform_asked():
    assert qt_libs.uses_xcb({"DISPLAY": ":0"}, "linux")
    assert qt_libs.uses_xcb({"DISPLAY": ":0", "QT_QPA_PLATFORM": "xcb"}, "linux")
    assert not qt_libs.uses_xcb({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"}, "linux")
    assert not qt_libs.uses_xcb({}, "linux")
    assert not qt_libs.uses_xcb({"DISPLAY": ":0"}, "win32")
    assert not qt_libs.uses_xcb({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"},
                                "linux")


def test_the_message_names_each_missing_library_its_package_and_the_apt_command():
    missing = qt_libs.missing_libraries(lambda soname: soname not in GONE)
    assert set(missing) == GONE
    line = qt_libs.missing_message(missing)
    assert "\n" not in line
    assert "libxcb-icccm.so.4 (libxcb-icccm4)" in line and "libxcb-keysyms.so.1 (libxcb-keysyms1)" in line
    command = line.split("sudo apt-get install -y ", 1)[1].split()
    assert {"libxcb-icccm4", "libxcb-keysyms1", "libxcb-cursor0", "libxkbcommon-x11-0"} <= set(command)


def test_setup_installs_nothing_when_every_library_loads_and_every_package_needed_otherwise():
    assert qt_libs.packages_to_install(lambda soname: True) == []
    wanted = qt_libs.packages_to_install(lambda soname: soname != "libxcb-image.so.0")
    assert "libxcb-image0" in wanted and "libxcb-icccm4" in wanted and len(wanted) == len(set(wanted))


def test_the_app_prints_one_line_and_exits_instead_of_letting_qt_abort(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("DUOCTHU_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.setattr(qt_libs, "_loadable", lambda soname: soname not in GONE)
    code = app_main.main(["--index", str(tmp_path / "none")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == app_main.WINDOW_FAILED
    assert len(err) == 1 and "libxcb-keysyms1" in err[0] and "apt-get install" in err[0]
    assert os.environ.get("QT_QPA_PLATFORM") is None  # no window was attempted


def test_a_library_shipped_beside_qt_counts_as_present(monkeypatch, tmp_path):
    (tmp_path / "libxcb-icccm.so.4").write_bytes(b"")  # as a frozen build's folder holds it
    monkeypatch.setattr(qt_libs, "_bundled_dirs", lambda: [tmp_path])
    assert qt_libs._loadable("libxcb-icccm.so.4")
    assert not qt_libs._loadable("libxcb-no-such-thing.so.9")


def test_the_window_process_hands_the_interpreter_lock_over_within_a_fifth_of_a_millisecond(monkeypatch):
    """A repaint while a turn runs calls into Python once per widget drawn in Python: each call waits for the
    turn's thread to let the lock go (bench/app_bench.py, full size)."""
    import sys

    monkeypatch.setattr(app_main.os, "environ", dict(app_main.os.environ))  # QT_NO_GUI_THREADPOOL stays here
    before = sys.getswitchinterval()
    try:
        app_main.tune_process()
        assert abs(sys.getswitchinterval() - app_main.SWITCH_INTERVAL_S) < 1e-9 and app_main.SWITCH_INTERVAL_S <= 0.0002
    finally:
        sys.setswitchinterval(before)
