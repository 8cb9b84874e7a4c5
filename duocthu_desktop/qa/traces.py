"""Turn traces in SQLite: question, frame, decision, reason, citations and timings of every turn.

Personal data is scrubbed before anything is written: phone numbers, ID card numbers (CMND 9 digits, CCCD 12)
and names after words like "bệnh nhân", "tên", "anh", "chị", "ông", "bà". Doses ("500 mg", "0,5 - 1 g") are not
personal and stay. A trace store that fails never fails the turn.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import time

from duocthu_desktop.payload import AnswerPayload
from duocthu_desktop.qa.frame import QueryFrame
from duocthu_desktop.qa.sqlite_file import SqliteFile

log = logging.getLogger(__name__)

PHONE_MASK = "[SĐT]"
ID_MASK = "[SỐ ĐỊNH DANH]"
NAME_MASK = "[TÊN]"

# Vietnamese phones: 0 or +84 then 9-10 digits, with optional spaces, dots or dashes between groups.
_PHONE = re.compile(r"(?<![\w])(?:\+84|0084|0)(?:[\s.\-]?\d){8,10}(?![\w])")
# CMND (9 digits) / CCCD (12 digits), written together or in groups of three/four.
_ID = re.compile(r"(?<![\w,.])(?:\d{12}|\d{9}|\d{3}[\s.\-]\d{3}[\s.\-]\d{3}(?:[\s.\-]\d{3})?)(?![\w,.])")
_UPPER = "A-ZÀÁẢÃẠĂẰẮẲẴẶÂẦẤẨẪẬĐÈÉẺẼẸÊỀẾỂỄỆÌÍỈĨỊÒÓỎÕỌÔỒỐỔỖỘƠỜỚỞỠỢÙÚỦŨỤƯỪỨỬỮỰỲÝỶỸỴ"
_NAME_WORD = rf"[{_UPPER}][\w]*"
_TITLES = (
    r"bệnh nhân|bệnh nhi|người bệnh|tên là|tên|họ tên|anh|chị|ông|bà|cô|chú|bác|cháu|em|bé|bn|bệnh nhân tên"
)
_NAME_AFTER_TITLE = re.compile(
    rf"(?i:\b(?:{_TITLES}))(?::)?\s+({_NAME_WORD}(?:\s+{_NAME_WORD}){{0,4}})"
)


def scrub(text: str) -> str:
    """The text with phone numbers, ID numbers and personal names masked."""
    text = _PHONE.sub(PHONE_MASK, text)
    text = _ID.sub(ID_MASK, text)

    def _mask(m: re.Match[str]) -> str:
        return m.group(0)[: m.start(1) - m.start(0)] + NAME_MASK

    return _NAME_AFTER_TITLE.sub(_mask, text)


_SCHEMA = """
CREATE TABLE IF NOT EXISTS traces (
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
    timings TEXT NOT NULL
)
"""


class TraceStore(SqliteFile):
    schema = _SCHEMA

    def record(
        self,
        question: str,
        frame: QueryFrame,
        payload: AnswerPayload,
        timings: dict[str, float],
        conversation_id: str | None = None,
        rule: str | None = None,
    ) -> bool:
        citations = [
            {"chunk_id": c.chunk_id, "printed_page": c.printed_page, "section_key": c.section_key}
            for c in payload.citations
        ]
        row = (
            time.time(),
            conversation_id,
            scrub(question),
            scrub(frame.model_dump_json()),
            rule,
            payload.decision,
            payload.reason,
            payload.engine,
            json.dumps(citations, ensure_ascii=False),
            json.dumps({k: round(v, 4) for k, v in timings.items()}),
        )
        try:
            conn = self._connect()
            try:
                with conn:
                    conn.execute(
                        "INSERT INTO traces (ts, conversation_id, question, frame, rule, decision, reason, engine, "
                        "citations, timings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        row,
                    )
            finally:
                conn.close()
            return True
        except (sqlite3.Error, OSError) as exc:
            log.warning("trace store unwritable (%s): turn not traced", exc)
            return False

    def recent(self, limit: int = 50) -> list[dict]:
        conn = self._connect()
        try:
            conn.row_factory = sqlite3.Row
            rows = conn.execute("SELECT * FROM traces ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
            return [dict(r) for r in rows]
        finally:
            conn.close()
