"""The one script every executable of the bundle runs (build.spec): it starts the command named like the executable.

One script and one analysis for all of them keep the build to a single pass over torch, Qt and chromadb; each
executable is this script under another name. The table is pyproject's [project.scripts] (a test holds them equal).
"""

import importlib
import multiprocessing
import os
import sys

COMMANDS = {
    "duocthu": "duocthu_desktop.app.main:main",
    "duocthu-ingest": "ingestion.cli:main",
    "duocthu-models": "models.cli:main",
    "duocthu-ask": "duocthu_desktop.cli_ask:main",
    "duocthu-eval": "duocthu_desktop.cli_eval:main",
}


def command_name(executable: str) -> str:
    """`duocthu-ingest` from `/opt/duocthu/duocthu-ingest` or `C:\\duocthu\\duocthu-ingest.exe`."""
    name = os.path.basename(executable.replace("\\", "/"))
    return name[:-4] if name.lower().endswith(".exe") else name


def main() -> int:
    multiprocessing.freeze_support()  # a worker process (embedder, quote finder) runs its task, not a command
    name = command_name(sys.executable)
    target = COMMANDS.get(name)
    if target is None:
        print(f"{name}: not one of this bundle's commands ({', '.join(COMMANDS)})", file=sys.stderr)
        return 2
    module, function = target.split(":")
    return getattr(importlib.import_module(module), function)()


if __name__ == "__main__":
    sys.exit(main())
