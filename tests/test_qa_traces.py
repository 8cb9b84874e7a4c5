"""Traces: every turn recorded, personal data masked before writing, doses left alone."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from duocthu_desktop.messages import DISCLAIMER
from duocthu_desktop.payload import AnswerPayload
from duocthu_desktop.qa.conversation.personal_data import ID_MASK, NAME_MASK, PHONE_MASK, mask
from duocthu_desktop.qa.conversation.traces import TraceStore
from duocthu_desktop.qa.pipeline import Assistant
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.settings import Settings


@pytest.mark.parametrize(
    ("text", "gone", "masked"),
    [
        ("gọi 0912345678 nhé", "0912345678", PHONE_MASK),
        ("sđt 0912 345 678", "0912 345 678", PHONE_MASK),
        ("số +84 912 345 678", "912 345 678", PHONE_MASK),
        ("CCCD 001203004567", "001203004567", ID_MASK),
        ("CMND 123456789", "123456789", ID_MASK),
        ("bệnh nhân Nguyễn Văn An 45 tuổi", "Nguyễn Văn An", NAME_MASK),
        ("tên Trần Thị Bích", "Trần Thị Bích", NAME_MASK),
        ("Chị Lan đang mang thai", "Lan", NAME_MASK),
        ("ông Hùng bị suy thận", "Hùng", NAME_MASK),
        ("bà Hoa 70 tuổi", "Hoa", NAME_MASK),
        ("anh Minh uống metformin", "Minh", NAME_MASK),
    ],
)
def test_mask_personal_data(text, gone, masked):
    out = mask(text)
    assert gone not in out
    assert masked in out


@pytest.mark.parametrize(
    "text",
    [
        "Liều metformin 500 mg hoặc 850 mg, tối đa 2 500 mg/ngày",
        "paracetamol 0,5 - 1 g/lần, 4 - 6 giờ một lần; tối đa là 4 g/ngày",
        "Clcr 10 - 50 ml/phút, 1.500 mg",
        "Bé nặng 18 kg, bé 5 tuổi",
        "bà bầu dùng được không",
    ],
)
def test_mask_keeps_doses_and_ordinary_words(text):
    assert mask(text) == text


def payload(decision="answerable") -> AnswerPayload:
    return AnswerPayload(decision=decision, disclaimer=DISCLAIMER)


def test_record_writes_scrubbed_rows(tmp_path: Path):
    store = TraceStore(tmp_path / "t.sqlite3")
    question = "Bệnh nhân Nguyễn Văn An, SĐT 0912345678, uống metformin 500 mg được không?"
    frame = QueryFrame(question=question, drug_ids=["metformin"])
    assert store.record(question, frame, payload(), {"total": 0.01}, "c1", "single_drug")
    row = store.recent(1)[0]
    for secret in ("Nguyễn Văn An", "0912345678"):
        assert secret not in row["question"] and secret not in row["frame"]
    assert "500 mg" in row["question"]
    assert row["decision"] == "answerable" and row["rule"] == "single_drug"


def test_unwritable_trace_store_does_not_fail(tmp_path: Path):
    directory = tmp_path / "dir.sqlite3"
    directory.mkdir()
    assert TraceStore(directory).record("q", QueryFrame(), payload(), {}) is False


@pytest.mark.integration
def test_every_turn_is_traced_with_timings(qa_service, catalog, tmp_path: Path):
    assistant = Assistant(
        qa_service, catalog=catalog, settings=Settings(data_dir=tmp_path), engine_name="extractive"
    )
    assistant.ask("Chống chỉ định của metformin? Tôi là chị Lan, 0987654321", "t1")
    assistant.ask("Xin chào", "t1")
    conn = sqlite3.connect(tmp_path / "traces.sqlite3")
    rows = conn.execute(
        "SELECT question, decision, reason, citations, timings FROM traces ORDER BY id"
    ).fetchall()
    conn.close()
    assert len(rows) == 2
    assert "0987654321" not in rows[0][0] and "Lan" not in rows[0][0]
    assert "metformin__chong_chi_dinh" in rows[0][3]
    assert '"total"' in rows[0][4]
    assert rows[1][1:3] == ("answerable", "smalltalk")
