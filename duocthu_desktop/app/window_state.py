"""What the window remembers of how a person arranged it, apart from their settings (Qt-free): the splitters'
sizes, in `window-state.json` in the data folder. A file that cannot be read is ignored: the defaults apply."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from duocthu_desktop import atomic

log = logging.getLogger(__name__)

STATE_FILE = "window-state.json"


def _sizes(value) -> list[int] | None:
    if isinstance(value, list) and len(value) >= 2 and all(isinstance(v, int) and v >= 0 for v in value):
        return value if sum(value) > 0 else None
    return None


def read_state(folder: Path) -> dict[str, list[int]]:
    """{splitter name: sizes} as last saved; {} when there is none or it is damaged."""
    try:
        raw = json.loads((Path(folder) / STATE_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as err:
        log.warning("window state ignored: %s", err)
        return {}
    if not isinstance(raw, dict):
        return {}
    return {name: sizes for name, value in raw.items() if isinstance(name, str) and (sizes := _sizes(value))}


def save_state(folder: Path, state: dict[str, list[int]]) -> bool:
    """Write the splitters' sizes (atomically); False, with a warning, when the folder cannot be written."""
    try:
        atomic.write_text(Path(folder) / STATE_FILE, json.dumps(state, indent=1))
    except OSError as err:
        log.warning("window state not saved: %s", err)
        return False
    return True
