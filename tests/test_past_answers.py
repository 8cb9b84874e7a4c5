"""A past conversation's answers, kept in the turn traces as shown (masked as stored) and read back for the
window (app.history, Qt-free): the book's quotes as printed, anything else masked, old trace files still read."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from duocthu_desktop.app.history import past_turns
from duocthu_desktop.app.session import Session
from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.messages import DISCLAIMER
from duocthu_desktop.payload import AnswerPayload, Block, Citation, Claim
from duocthu_desktop.qa.conversation.memory import store_key
from duocthu_desktop.qa.conversation.personal_data import PHONE_MASK
from duocthu_desktop.qa.conversation.traces import _COLUMNS, TraceStore
from duocthu_desktop.qa.understanding.frame import QueryFrame

QUOTE = "Người lớn: uống 500 mg mỗi lần, ngày 2 lần."
PHONE = "0912345678"


def answered() -> AnswerPayload:
    cite = Citation(index=3, chunk_id="metformin__lieu__0", drug_id="metformin", section_key="lieu_luong_cach_dung",
                    printed_page=990, physical_page=12, quote=QUOTE)
    return AnswerPayload(
        decision="answerable", message=f"Bệnh nhân gọi {PHONE}", citations=[cite], disclaimer=DISCLAIMER,
        quick_replies=[f"Còn {PHONE}?"],
        blocks=[Block(title=f"Metformin — Người lớn · {PHONE}", kind="dosage",
                      claims=[Claim(text=QUOTE, citations=[3]), Claim(text=f"Liều cho {PHONE}", citations=[3])])])


def test_the_answer_is_kept_as_shown_with_the_books_words_as_printed_and_the_rest_masked(tmp_path: Path):
    traces = TraceStore(tmp_path / "traces.sqlite3")
    assert traces.record("Liều metformin?", QueryFrame(question="x"), answered(), {}, "c-1")
    [turn] = past_turns(traces, store_key("c-1"))
    answer = turn.answer
    assert answer is not None and answer.decision == "answerable"
    [cite] = answer.citations
    assert cite.index == 3 and cite.quote == QUOTE and cite.physical_page == 12  # numbered and quoting as shown
    claims = [c.text for c in answer.blocks[0].claims]
    assert claims[0] == QUOTE
    stored = " ".join([answer.message, answer.blocks[0].title, claims[1], *answer.quick_replies])
    assert PHONE not in stored and stored.count(PHONE_MASK) == 4


def test_a_trace_file_from_before_answers_were_kept_is_upgraded_and_its_turns_still_read(tmp_path: Path):
    old_columns = _COLUMNS.replace(",\n    answer TEXT", "")
    path = tmp_path / "traces.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute(f"CREATE TABLE traces ({old_columns})")
    conn.execute("INSERT INTO traces (ts, conversation_id, question, frame, decision, citations, timings) "
                 "VALUES (1.0, ?, 'Liều?', '{}', 'answerable', ?, '{}')",
                 (store_key("c-1"), '[{"chunk_id": "metformin__lieu__0", "printed_page": 990, "section_key": "x"}]'))
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    rotated = tmp_path / "traces.1.sqlite3"  # an archive of version 1 is never upgraded: read without answers
    rotated.write_bytes(path.read_bytes())
    traces = TraceStore(path)
    assert traces.record("Còn trẻ em?", QueryFrame(question="x"), answered(), {}, "c-1")
    turns = past_turns(traces, store_key("c-1"))
    assert [t.question for t in turns] == ["Liều?", "Liều?", "Còn trẻ em?"]
    assert [t.answer is None for t in turns] == [True, True, False]


class _Service:
    def __init__(self, chunks) -> None:
        self._chunks = chunks

    def all_chunks(self):
        return self._chunks


class _Assistant:
    def __init__(self, traces, chunks) -> None:
        self.traces = traces
        self.service = _Service(chunks)


def test_a_turn_without_its_answer_gets_a_chip_per_passage_and_one_with_it_its_own_chips(tmp_path: Path):
    chunk = Chunk(chunk_id="metformin__lieu__0", drug_id="metformin", section_key="lieu_luong_cach_dung",
                  part_index=0, text=QUOTE, printed_pages=[990], physical_pages=[12], page_spans=[[12, 0, len(QUOTE)]])
    traces = TraceStore(tmp_path / "traces.sqlite3")
    traces.record("Liều metformin?", QueryFrame(question="x"), answered(), {}, "c-1")
    conn = sqlite3.connect(traces.path)
    conn.execute("INSERT INTO traces (ts, conversation_id, question, frame, decision, citations, timings) "
                 "VALUES (0.5, ?, 'Trước đó?', '{}', 'answerable', ?, '{}')",
                 (store_key("c-1"), '[{"chunk_id": "metformin__lieu__0", "printed_page": 990, "section_key": "x"}]'))
    conn.commit()
    conn.close()
    session = Session(_Assistant(traces, [chunk]))
    (before, made), (after, kept) = session.history(store_key("c-1"))
    assert before.answer is None and [c.index for c in made] == [1] and made[0].quote == QUOTE
    assert after.answer is not None and [c.index for c in kept] == [3]
