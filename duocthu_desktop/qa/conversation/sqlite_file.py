"""One small SQLite file with its schema, opened per call: shared by the conversation and trace stores."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from duocthu_desktop.settings import private_dir, private_file


class SqliteFile:
    """Opens `path` (creating its folder and `schema`) with a short lock timeout, so a locked store fails fast.

    Deleted rows are overwritten on disk (`secure_delete`), so nothing a store once held lingers in free pages. A
    file older than `version` is upgraded once (`_upgrade`, under the write lock) the first time it is opened. The
    folder is 0700 and the file 0600 (SQLite gives its journal files the file's mode), made so or tightened.
    """

    schema: str = ""
    pragmas: tuple[str, ...] = ("PRAGMA secure_delete = ON",)
    version: int = 0

    def __init__(self, path: Path, timeout: float = 1.0) -> None:
        self.path = Path(path)
        self.timeout = timeout

    def _connect(self) -> sqlite3.Connection:
        """A connection in autocommit mode: a write is one statement, or one `_transaction`."""
        private_dir(self.path.parent)
        private_file(self.path)
        conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
        try:
            for pragma in self.pragmas:
                conn.execute(pragma)
            conn.execute(self.schema)
            if self._version(conn) < self.version:
                with self._transaction(conn):
                    if self._version(conn) < self.version:  # not upgraded by another process meanwhile
                        self._upgrade(conn)
                        conn.execute(f"PRAGMA user_version = {int(self.version)}")
                conn.execute("VACUUM")  # what the upgrade deleted leaves the file
        except BaseException:
            conn.close()
            raise
        return conn

    @staticmethod
    def _version(conn: sqlite3.Connection) -> int:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])

    def _upgrade(self, conn: sqlite3.Connection) -> None:
        """Bring a file written by an earlier version up to `version` (inside a write transaction)."""

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
