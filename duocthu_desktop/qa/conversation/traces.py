"""Turn traces in SQLite: question, frame, decision, reason, citations, timings and the answer of every turn.

Personal data is masked before anything is written (`personal_data`: phones, ID numbers, emails, names, and their
pieces in the frame's word lists), the question is capped, the conversation id is a digest. Past `max_bytes` the
live file's rows move to `traces.1.sqlite3`, the older files shift up and the one past `keep` is deleted. A trace
store that fails never fails the turn.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
import uuid
from pathlib import Path

from duocthu_desktop.payload import AnswerBody, AnswerPayload
from duocthu_desktop.qa.conversation.personal_data import (
    conversation_key,
    echo_masker,
    stored_frame,
    stored_text,
)
from duocthu_desktop.qa.conversation.sqlite_file import SqliteFile
from duocthu_desktop.qa.understanding.frame import QueryFrame

log = logging.getLogger(__name__)

TRACES_FILE = "traces.sqlite3"  # in the data folder, beside conversations.sqlite3
MAX_BYTES = 5_000_000
KEEP_FILES = 3

_COLUMNS = """
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ts REAL NOT NULL,
    conversation_id TEXT,
    question TEXT NOT NULL,
    frame TEXT NOT NULL,
    rule TEXT,
    decision TEXT NOT NULL,
    reason TEXT,
    engine TEXT,
    citations TEXT NOT NULL,
    timings TEXT NOT NULL,
    answer TEXT
"""
_SCHEMA = f"CREATE TABLE IF NOT EXISTS traces ({_COLUMNS})"
_ERRORS = (sqlite3.Error, OSError, UnicodeError, ValueError)


def stored_answer(payload: AnswerPayload, keep: list[str], index_id: str | None = None, said: str = "") -> str:
    """The answer as the person saw it, to show again when a past conversation is continued (app.history):
    the citations' quotes and the claims that repeat a quote are the book's words and kept as printed; every
    other text (the message, titles, quick replies, a computed line) is masked, as the question is, and so is
    any personal piece of the question (`said`) it repeats. `index_id` names the index the citations point into."""
    mask = echo_masker(said, keep)
    body = payload.model_dump(mode="json", include=set(AnswerBody.model_fields))
    quotes = {c.quote for c in payload.citations}
    body["message"] = mask(body["message"]) if body["message"] else ""
    body["quick_replies"] = [mask(r) for r in body["quick_replies"]]
    for block in body["blocks"]:
        block["title"] = mask(block["title"])
        for claim in block["claims"]:
            if claim["text"] not in quotes:
                claim["text"] = mask(claim["text"])
    if index_id:
        body["index_id"] = index_id
    return json.dumps(body, ensure_ascii=False)


class TraceStore(SqliteFile):
    schema = _SCHEMA
    # a new file gives its deleted pages back to the disk, so the live file shrinks after a rotation
    pragmas = (*SqliteFile.pragmas, "PRAGMA auto_vacuum = FULL")
    version = 2  # 1: personal_data masking, ids digested, capped; 2: the answer as shown (stored_answer)

    def _upgrade(self, conn: sqlite3.Connection) -> None:
        if self._version(conn) < 1:
            conn.execute("DELETE FROM traces")  # rows from before version 1 may hold what the old scrubber missed
        if "answer" not in {row[1] for row in conn.execute("PRAGMA table_info(traces)")}:
            conn.execute("ALTER TABLE traces ADD COLUMN answer TEXT")

    def __init__(self, path: Path, timeout: float = 1.0, max_bytes: int = MAX_BYTES, keep: int = KEEP_FILES) -> None:
        super().__init__(path, timeout)
        self.max_bytes = max_bytes
        self.keep = keep
        self.index_id: str | None = None  # the open index's identity, set by whoever opened it (app.session)

    def record(
        self,
        question: str,
        frame: QueryFrame,
        payload: AnswerPayload,
        timings: dict[str, float],
        conversation_id: str | None = None,
        rule: str | None = None,
    ) -> bool:
        try:
            citations = [
                {"chunk_id": c.chunk_id, "printed_page": c.printed_page, "section_key": c.section_key}
                for c in payload.citations
            ]
            kept = stored_frame(frame, said=question)
            keep = [*frame.drug_mentions.values(), *frame.via_trade_name.values()]
            row = (
                time.time(),
                conversation_key(conversation_id) if conversation_id else None,
                stored_text(question, keep),
                kept.model_dump_json(),
                rule,
                payload.decision,
                payload.reason,
                payload.engine,
                json.dumps(citations, ensure_ascii=False),
                json.dumps({k: round(v, 4) for k, v in timings.items()}),
                stored_answer(payload, keep, self.index_id, said=question),
            )
            conn = self._connect()
            try:
                conn.execute(
                    "INSERT INTO traces (ts, conversation_id, question, frame, rule, decision, reason, engine, "
                    "citations, timings, answer) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    row,
                )
            finally:
                conn.close()
        except _ERRORS as exc:
            log.warning("trace store unwritable (%s): turn not traced", exc)
            return False
        try:
            if self.path.stat().st_size > self.max_bytes:
                self._rotate()
        except _ERRORS as exc:
            log.warning("trace store not rotated (%s)", exc)
        return True

    def forget(self, key: str) -> int:
        """Delete every trace of the conversation stored under `key` (its digest), in the live file and the older
        ones (their rows are overwritten on disk); the number deleted."""
        deleted = 0
        for path in (self.path, *(self.rotated(n) for n in range(1, self.keep + 1))):
            if not path.exists():
                continue
            db = TraceStore(path, self.timeout)._connect()
            try:
                deleted += db.execute("DELETE FROM traces WHERE conversation_id = ?", (key,)).rowcount
            finally:
                db.close()
        return deleted

    def recent(self, limit: int = 50) -> list[dict]:
        conn = self._connect()
        try:
            conn.row_factory = sqlite3.Row
            rows = conn.execute("SELECT * FROM traces ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
            return [dict(r) for r in rows]
        finally:
            conn.close()

    # ---- rotation ------------------------------------------------------------------------------------

    def rotated(self, n: int) -> Path:
        """The n-th older file: traces.1.sqlite3 is the most recent one."""
        return self.path.with_name(f"{self.path.stem}.{n}{self.path.suffix}")

    def _rotate(self) -> None:
        """Move the live file's rows into a new file, under the live file's write lock. The live file itself is
        never renamed, so a writer in another process never writes to a file that has moved away."""
        fresh = self.path.with_name(f"{self.path.stem}.rotating-{os.getpid()}-{uuid.uuid4().hex[:8]}")
        conn = self._connect()
        try:
            conn.execute("ATTACH DATABASE ? AS archive", (str(fresh),))
            with self._transaction(conn):
                used = conn.execute("PRAGMA main.page_count").fetchone()[0]
                used -= conn.execute("PRAGMA main.freelist_count").fetchone()[0]
                if used * conn.execute("PRAGMA main.page_size").fetchone()[0] <= self.max_bytes:
                    return  # another turn rotated it first
                conn.execute(f"CREATE TABLE archive.traces ({_COLUMNS})")
                conn.execute("INSERT INTO archive.traces SELECT * FROM main.traces")
                conn.execute("DELETE FROM main.traces")
            conn.execute("DETACH DATABASE archive")
            self.rotated(self.keep).unlink(missing_ok=True)
            for n in range(self.keep - 1, 0, -1):
                if self.rotated(n).exists():
                    self.rotated(n).replace(self.rotated(n + 1))
            fresh.replace(self.rotated(1))
        finally:
            conn.close()
            fresh.unlink(missing_ok=True)
