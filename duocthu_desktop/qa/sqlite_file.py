"""One small SQLite file with its schema, opened per call: shared by the conversation and trace stores."""

from __future__ import annotations

import sqlite3
from pathlib import Path


class SqliteFile:
    """Opens `path` (creating its folder and `schema`) with a short lock timeout, so a locked store fails fast."""

    schema: str = ""

    def __init__(self, path: Path, timeout: float = 1.0) -> None:
        self.path = Path(path)
        self.timeout = timeout

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=self.timeout)
        conn.execute(self.schema)
        return conn
