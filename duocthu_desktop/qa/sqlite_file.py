"""One small SQLite file with its schema, opened per call: shared by the conversation and trace stores."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class SqliteFile:
    """Opens `path` (creating its folder and `schema`) with a short lock timeout, so a locked store fails fast.

    Deleted rows are overwritten on disk (`secure_delete`), so nothing a store once held lingers in free pages.
    """

    schema: str = ""
    pragmas: tuple[str, ...] = ("PRAGMA secure_delete = ON",)

    def __init__(self, path: Path, timeout: float = 1.0) -> None:
        self.path = Path(path)
        self.timeout = timeout

    def _connect(self) -> sqlite3.Connection:
        """A connection in autocommit mode: a write is one statement, or one `_transaction`."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
        try:
            for pragma in self.pragmas:
                conn.execute(pragma)
            conn.execute(self.schema)
        except BaseException:
            conn.close()
            raise
        return conn

    @contextmanager
    def _transaction(self, conn: sqlite3.Connection | None = None) -> Iterator[sqlite3.Connection]:
        """A write transaction that takes the write lock at its start (BEGIN IMMEDIATE), so a read-modify-write
        never interleaves with another process's: a second writer waits (up to `timeout`), then fails."""
        own = conn is None
        conn = conn or self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        finally:
            if own:
                conn.close()
