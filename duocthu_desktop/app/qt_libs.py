"""The system libraries Qt's X11 platform plugin (xcb) loads, checked before the QApplication exists (Qt-free).

When one is missing Qt aborts the process with a message that names the plugin, or a library already present,
not the one to install; so the app looks first (a dlopen per library, well under a millisecond each) and says
in one line which Debian/Ubuntu packages are missing and the apt command that installs them.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path

# soname -> the Debian/Ubuntu package that ships it: what libqxcb.so and libQt6XcbQpa.so.6 link against beyond
# libX11/libxcb themselves (read with ldd on PySide6 6.x)
XCB_LIBRARIES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-util.so.1": "libxcb-util1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libX11-xcb.so.1": "libx11-xcb1",
}
# what scripts/setup.sh installs, and the command names: the usual missing ones, then whatever else is missing
APT_PACKAGES = ("libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1", "libxcb-xinerama0", "libxkbcommon-x11-0")
MISSING = ("duocthu: không mở được cửa sổ: Qt (xcb) thiếu thư viện hệ thống {libraries}; "
           "cài bằng: sudo apt-get install -y {packages}")


def _bundled_dirs() -> list[Path]:
    """Where a library may sit beside Qt rather than on the system: PySide6's own lib folder, and a frozen
    build's folder (PyInstaller copies the libraries it found on the build machine there)."""
    folders = []
    spec = importlib.util.find_spec("PySide6")
    if spec is not None and spec.origin:
        folders.append(Path(spec.origin).parent / "Qt" / "lib")
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        folders += [Path(bundle), Path(bundle) / "PySide6" / "Qt" / "lib"]
    return folders


def _loadable(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        return any((folder / soname).is_file() for folder in _bundled_dirs())
    return True


def uses_xcb(env: dict[str, str] | None = None, platform: str = sys.platform) -> bool:
    """Whether Qt will pick its X11 plugin: Linux, an X display, and no other platform asked for."""
    env = os.environ if env is None else env
    if not platform.startswith("linux"):
        return False
    asked = env.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0]
    if asked:
        return asked == "xcb"
    if env.get("WAYLAND_DISPLAY") and env.get("XDG_SESSION_TYPE") == "wayland":
        return False
    return bool(env.get("DISPLAY"))


def missing_libraries(loadable: Callable[[str], bool] | None = None) -> list[str]:
    """The sonames of XCB_LIBRARIES this machine cannot load."""
    loadable = loadable or _loadable
    return [soname for soname in XCB_LIBRARIES if not loadable(soname)]


def missing_message(missing: list[str]) -> str:
    """The one line the app prints: the missing libraries, and the apt command with their packages."""
    packages = list(APT_PACKAGES) + [XCB_LIBRARIES[s] for s in missing if XCB_LIBRARIES[s] not in APT_PACKAGES]
    return MISSING.format(libraries=", ".join(f"{s} ({XCB_LIBRARIES[s]})" for s in missing),
                          packages=" ".join(packages))


def packages_to_install(loadable: Callable[[str], bool] | None = None) -> list[str]:
    """The apt packages scripts/setup.sh installs: none when every library loads, else the usual set and the rest."""
    missing = missing_libraries(loadable)
    if not missing:
        return []
    return list(dict.fromkeys([*APT_PACKAGES, *(XCB_LIBRARIES[s] for s in missing)]))


if __name__ == "__main__":  # scripts/setup.sh: the packages to install, on one line (nothing when none is missing)
    print(" ".join(packages_to_install()))
