"""A past conversation's turns, read back from the core's turn traces to show when a person continues it (Qt-free).

The traces (qa.conversation.traces) keep each turn's question with personal data masked, its decision, reason,
the chunks it cited (page, section) and, since version 2, the answer as shown (masked as stored): a past turn
comes back as that answer, its chips numbered and quoting as they did. A turn traced before keeps only what was
decided and a chip for each passage it cited, which opens that passage in the viewer. The trace files are
opened read-only, the live one and its rotated predecessors.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.payload import AnswerBody, Citation
from duocthu_desktop.qa.conversation.memory import handle
from duocthu_desktop.qa.conversation.personal_data import conversation_key

log = logging.getLogger(__name__)

MAX_TURNS = 30  # the latest ones, when a conversation ran longer


@dataclass(frozen=True)
class PastTurn:
    asked_at: float
    question: str  # as the trace keeps it: capped, personal data masked
    decision: str
    reason: str | None
    cited: list[dict] = field(default_factory=list)  # {"chunk_id", "printed_page", "section_key"}
    answer: AnswerBody | None = None  # the answer as shown, when the trace kept it (version 2)
    index_id: str | None = None  # the index its citations point into, when the trace says


def _answer(stored: str | None) -> tuple[AnswerBody | None, str | None]:
    if not stored:
        return None, None
    try:
        body = json.loads(stored)
        index_id = body.pop("index_id", None) if isinstance(body, dict) else None
        return AnswerBody.model_validate(body), index_id if isinstance(index_id, str) else None
    except ValueError as err:
        log.warning("a traced answer not read: %s", err)
        return None, None


def _rows(conn: sqlite3.Connection, key: str) -> list[tuple]:
    """(ts, question, decision, reason, citations, answer) of the conversation's turns in one trace file; a file
    from before version 2 has no answer column."""
    query = "SELECT ts, question, decision, reason, citations, {answer} FROM traces WHERE conversation_id IN (?, ?)"
    try:
        return conn.execute(query.format(answer="answer"), trace_keys(key)).fetchall()
    except sqlite3.OperationalError:
        return conn.execute(query.format(answer="NULL"), trace_keys(key)).fetchall()


def trace_keys(key: str) -> tuple[str, str]:
    """The digests a conversation's turns are traced under: its first turns under the id the app made (whose
    digest is the store's key), turns after it was continued under the handle that names that key."""
    return key, conversation_key(handle(key))


def trace_files(traces) -> list[Path]:
    """The live trace file and the rotated ones, oldest last."""
    path = Path(traces.path)
    return [path, *(traces.rotated(n) for n in range(1, int(getattr(traces, "keep", 0)) + 1))]


def past_turns(traces, key: str, limit: int = MAX_TURNS) -> list[PastTurn]:
    """The conversation's traced turns in the order they were asked; [] when nothing can be read."""
    if traces is None:
        return []
    rows = []
    for path in trace_files(traces):
        if not path.is_file():
            continue
        try:
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1.0)
        except sqlite3.Error as err:
            log.warning("trace file %s not read: %s", path.name, err)
            continue
        try:
            rows += _rows(conn, key)
        except sqlite3.Error as err:
            log.warning("trace file %s not read: %s", path.name, err)
        finally:
            conn.close()
    turns = []
    for ts, question, decision, reason, cited, answer in sorted(rows, key=lambda row: row[0])[-limit:]:
        try:
            cited = [c for c in json.loads(cited or "[]") if isinstance(c, dict) and c.get("chunk_id")]
        except ValueError:
            cited = []
        turns.append(PastTurn(float(ts), question or "", decision or "", reason, cited, *_answer(answer)))
    return turns


def citation_of(index: int, cited: dict, chunk: Chunk | None, physical_for) -> Citation | None:
    """A chip for a traced citation: the cited chunk's text on the cited page (the quote itself is not kept)."""
    if chunk is None:
        return None
    printed = cited.get("printed_page")
    physical = physical_for(printed) if isinstance(printed, int) else None
    spans = [span for span in chunk.page_spans if len(span) == 3]
    if physical is None:
        physical = spans[0][0] if spans else (chunk.physical_pages[0] if chunk.physical_pages else None)
    if physical is None:
        return None
    on_page = [chunk.text[start:end] for page, start, end in spans if page == physical]
    quote = (on_page[0] if on_page else chunk.text).strip()
    if not quote:
        return None
    return Citation(index=index, chunk_id=chunk.chunk_id, drug_id=chunk.drug_id,
                    section_key=cited.get("section_key") or chunk.section_key,
                    printed_page=printed if isinstance(printed, int) else None, physical_page=physical, quote=quote)
