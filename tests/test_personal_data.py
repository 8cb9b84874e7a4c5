"""Personal data never reaches the disk: phones, ID numbers, emails and names are masked in the conversation store
and the traces alike, clinical content (doses, Clcr, weights, ages, dates, drug names) is left as typed, what is
stored is capped, and traces rotate."""

from __future__ import annotations

import json
import re
import sqlite3
import time
import unicodedata
from pathlib import Path

import pytest

from duocthu_desktop.messages import DISCLAIMER
from duocthu_desktop.payload import AnswerPayload
from duocthu_desktop.qa.conversation.memory import ConversationStore
from duocthu_desktop.qa.conversation.personal_data import (
    EMAIL_MASK,
    ID_MASK,
    MAX_STORED_CHARS,
    NAME_MASK,
    PHONE_MASK,
    mask,
    stored_frame,
)
from duocthu_desktop.qa.conversation.traces import TraceStore
from duocthu_desktop.qa.pipeline import Assistant
from duocthu_desktop.qa.understanding.catalog import parse_trade_names
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.qa.understanding.question import understand
from duocthu_desktop.settings import Settings
from duocthu_desktop.text import fold

# ---- the masker ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "secret", "masked"),
    [
        ("gọi 0912345678 nhé", "0912345678", PHONE_MASK),
        ("SĐT 0912 345 678, liều?", "0912 345 678", PHONE_MASK),
        ("số 0912.345.678 ạ", "0912.345.678", PHONE_MASK),
        ("số 0912-345-678", "0912-345-678", PHONE_MASK),
        ("số +84 912 345 678", "912 345 678", PHONE_MASK),
        ("số +84912345678", "84912345678", PHONE_MASK),
        ("zalo 84912345678", "84912345678", PHONE_MASK),
        ("máy bàn 024 3826 1234", "3826 1234", PHONE_MASK),
        ("máy bàn (028) 3822.1234", "3822.1234", PHONE_MASK),
        ("SĐT0912345678", "0912345678", PHONE_MASK),
        ("CCCD 001203004567, email", "001203004567", ID_MASK),
        ("CCCD: 001203004567.", "001203004567", ID_MASK),
        ("CCCD 001 203 004 567 nhé", "203 004 567", ID_MASK),
        ("CCCD 001.203.004.567", "203.004.567", ID_MASK),
        ("CCCD 0012-0300-4567", "0300-4567", ID_MASK),
        ("CMND 123456789, 45 tuổi", "123456789", ID_MASK),
        ("CMND 123 456 789", "456 789", ID_MASK),
        ("email an.nguyen@gmail.com, liều", "an.nguyen@gmail.com", EMAIL_MASK),
        ("mail: Bich_Tran+yt@yahoo.com.vn", "yahoo", EMAIL_MASK),
        ("Tôi là Lê Minh Tuấn, 45 tuổi", "Lê Minh Tuấn", NAME_MASK),
        ("Nguyễn Văn An 45 tuổi uống metformin", "Nguyễn Văn An", NAME_MASK),
        ("hỏi giùm Phạm Thị Hồng Nhung ạ", "Phạm Thị Hồng Nhung", NAME_MASK),
        ("NGUYỄN VĂN AN, 60 tuổi", "NGUYỄN VĂN AN", NAME_MASK),
        ("benh nhan Nguyen Van An 45 tuoi", "Nguyen Van An", NAME_MASK),
        ("bệnh nhân Trần Bình bị suy thận", "Trần Bình", NAME_MASK),
        ("Chị Lan đang mang thai", "Lan", NAME_MASK),
        ("bé Hùng 5 tuổi", "Hùng", NAME_MASK),
        ("tên tôi là Quỳnh", "Quỳnh", NAME_MASK),
        ("Họ tên: Đỗ Thu Hà", "Đỗ Thu Hà", NAME_MASK),
        ("tôi là lê minh tuấn", "lê minh tuấn", NAME_MASK),
        ("Ông Trần Văn Hải (ĐT 0243.826.1234) bị suy gan", "826.1234", PHONE_MASK),
        ("số 0 9 1 2 3 4 5 6 7 8 nhé", "5 6 7 8", PHONE_MASK),
        ("email: nguyen.van.an (at) gmail.com", "nguyen.van.an", EMAIL_MASK),
    ],
)
def test_personal_data_is_masked(text: str, secret: str, masked: str) -> None:
    out = mask(text)
    assert secret not in out and masked in out
    assert mask(out) == out  # masking twice changes nothing


def test_the_issue_example_keeps_only_the_clinical_words() -> None:
    question = (
        "Bệnh nhân Nguyễn Văn An, SĐT 0912 345 678, CCCD 001203004567, email an.nguyen@gmail.com, "
        "nặng 60 kg, Clcr 35 ml/phút, uống metformin 500 mg được không?"
    )
    out = mask(question)
    for secret in ("Nguyễn", "Văn An", "0912", "345 678", "001203004567", "an.nguyen", "gmail"):
        assert secret not in out
    for kept in ("60 kg", "Clcr 35 ml/phút", "uống metformin 500 mg được không?", "Bệnh nhân"):
        assert kept in out


@pytest.mark.parametrize(
    "text",
    [
        "Liều metformin 500 mg hoặc 850 mg, tối đa 2 500 mg/ngày",
        "paracetamol 0,5 - 1 g/lần, 4 - 6 giờ một lần; tối đa là 4 g/ngày",
        "Clcr 10 - 50 ml/phút, 1.500 mg",
        "Clcr 35 ml/phút, bé nặng 18 kg, bé 5 tuổi, 3 tháng tuổi",
        "uống lúc 08:00 ngày 12/03/2024, lần trước 15-02-2024 và 2024.01.30",
        "benzathin penicilin 1 200 000 đơn vị, 2 400 000 IU tiêm bắp",
        "tiêm 100 000 000 đơn vị; 120 000 000 IU",
        "bà bầu dùng được không",
        "Chị đang mang thai 3 tháng đầu, suy thận, Clcr 25 ml/phút",
        "Người bệnh Suy Thận Mạn dùng liều nào?",
        "Thuốc Điều Trị Tăng Huyết Áp Cho Người Cao Tuổi",
        "Ho Khan Ở Trẻ Em Dùng Thuốc Gì",
        "Bà Bầu Dùng Paracetamol Được Không",
        "nguyên nhân hạ đường huyết",
        "Dương Tính với HIV thì dùng thuốc gì",
        "tôi là bác sĩ, hỏi liều cho bé 3 tháng tuổi",
        "Trẻ em: Một liều duy nhất 50 mg/kg",
        "Ở cơ: Làm tăng sự nhạy cảm với insulin, các chủng có MIC dưới 4,0 microgam/ml",
        "châu Á (99%) có alen giảm chức năng",
    ],
)
def test_clinical_content_is_left_as_typed(text: str) -> None:
    assert mask(text) == text


def _book_names(qa_book) -> set[str]:
    monographs, chunks = qa_book
    names = {m.title for m in monographs} | {m.inn for m in monographs if m.inn}
    for chunk in chunks:
        if chunk.section_key == "ten_thuong_mai":
            names.update(parse_trade_names(chunk.text))
    return names


@pytest.mark.integration
def test_drug_and_trade_names_of_the_book_are_never_masked(qa_book, catalog) -> None:
    names = _book_names(qa_book) | {n for m in qa_book[0] for n in catalog.names_for(m.drug_id)}
    assert len(names) > 500
    for name in names:
        for text in (name, name.upper(), f"Liều {name} 500 mg cho người lớn?", f"{name} cho trẻ 18 kg"):
            assert mask(text) == text, text
    # a trade name after a title word ("cho bé Hapacol 150") is kept when the catalog read it as a drug
    for name in ("Hapacol 150", "Gom Gom", "Efferalgan", "Bé nóng"):
        frame = understand(f"Chị Lan cho bé {name} được không?", catalog)
        kept = stored_frame(frame).question
        assert "Lan" not in kept and (name in kept or not frame.drug_ids), kept


@pytest.mark.integration
def test_the_books_own_text_is_never_masked(qa_book) -> None:
    """Every chunk of the sample book (doses, tables, dates, references) passes through the masker unchanged."""
    changed = [c.chunk_id for c in qa_book[1] if mask(c.text) != c.text]
    assert changed == []


# ---- the stores --------------------------------------------------------------------------------------

SECRETS = {
    "phone": "0912 345 678",
    "cccd": "001203004567",
    "email": "an.nguyen@gmail.com",
    "name": "Nguyễn Văn An",
}
QUESTION = (
    f"Bệnh nhân {SECRETS['name']}, SĐT {SECRETS['phone']}, CCCD {SECRETS['cccd']}, email {SECRETS['email']}, "
    "mang thai 3 tháng đầu, suy thận, Clcr 35 ml/phút, nặng 60 kg, 30 tuổi: liều metformin đường uống?"
)


def _payload(decision: str = "answerable") -> AnswerPayload:
    return AnswerPayload(decision=decision, disclaimer=DISCLAIMER)


@pytest.mark.integration
def test_conversation_store_keeps_the_facts_not_the_sentence(tmp_path: Path, catalog) -> None:
    frame = understand(QUESTION, catalog)
    assert frame.drug_ids == ["metformin"] and frame.clcr == 35.0
    path = tmp_path / "c.sqlite3"
    store = ConversationStore(path)
    assert store.save("c1", frame, "answerable", None)
    back = store.load("c1").frame
    for field in ("drug_ids", "section_key", "route", "clcr", "weight_kg", "age_years", "pregnant", "trimester",
                  "renal_impairment", "population", "turn_type"):
        assert getattr(back, field) == getattr(frame, field), field
    assert "metformin" in back.question and "Clcr 35 ml/phút" in back.question
    assert "gmail" not in back.unknown_drugs and "email" not in back.unknown_drugs
    _assert_nothing_personal(tmp_path)


@pytest.mark.integration
def test_trace_drops_email_and_name_fragments_from_unknown_drugs(tmp_path: Path, catalog) -> None:
    frame = understand(QUESTION, catalog)
    store = TraceStore(tmp_path / "t.sqlite3")
    assert store.record(QUESTION, frame, _payload(), {"total": 0.1}, "c1", "single_drug")
    row = store.recent(1)[0]
    unknown = json.loads(row["frame"])["unknown_drugs"]
    assert not {"gmail", "email", "an", "nguyen", "com"} & {fold(w) for w in unknown}
    assert "metformin" in row["question"] and "Clcr 35 ml/phút" in row["question"]
    _assert_nothing_personal(tmp_path)


def test_a_huge_question_is_stored_capped(tmp_path: Path) -> None:
    question = "Liều metformin cho bệnh nhân Nguyễn Văn An? " + "rất dài " * 300_000  # 2.4 MB
    frame = QueryFrame(question=question, drug_ids=["metformin"], unknown_drugs=["x" * 5000] * 500)
    traces = TraceStore(tmp_path / "t.sqlite3")
    start = time.perf_counter()
    assert traces.record(question, frame, _payload(), {"total": 1.0}, "big")
    conversations = ConversationStore(tmp_path / "c.sqlite3")
    assert conversations.save("big", frame, "answerable", None)
    assert time.perf_counter() - start < 10
    row = traces.recent(1)[0]
    assert len(row["question"]) <= MAX_STORED_CHARS and row["question"].startswith("Liều metformin")
    assert len(row["frame"]) <= 4 * MAX_STORED_CHARS
    assert len(conversations.load("big").frame.question) <= MAX_STORED_CHARS
    assert sum(p.stat().st_size for p in tmp_path.iterdir()) < 200_000
    _assert_nothing_personal(tmp_path)


def test_traces_rotate_and_keep_a_few_files(tmp_path: Path) -> None:
    store = TraceStore(tmp_path / "traces.sqlite3", max_bytes=64_000, keep=2)
    frame = QueryFrame(question="Liều metformin? " + "chữ " * 400, drug_ids=["metformin"])
    for i in range(300):
        assert store.record(frame.question, frame, _payload(), {"total": 0.01}, f"c{i}")
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["traces.1.sqlite3", "traces.2.sqlite3", "traces.sqlite3"], files
    for path in tmp_path.iterdir():
        assert path.stat().st_size <= 64_000 + 16_384, path
    # the newest turns are in the live file, the oldest are gone
    conn = sqlite3.connect(tmp_path / "traces.sqlite3")
    newest = conn.execute("SELECT max(ts) FROM traces").fetchone()[0]
    conn.close()
    old = sqlite3.connect(tmp_path / "traces.2.sqlite3")
    oldest_kept = old.execute("SELECT min(ts) FROM traces").fetchone()[0]
    old.close()
    assert newest > oldest_kept


def test_conversation_ids_are_written_as_digests(tmp_path: Path) -> None:
    """A caller may name a conversation by a phone number or an email: the stores never write it."""
    frame = QueryFrame(question="Liều metformin?", drug_ids=["metformin"], turn_type="dosing")
    conversations = ConversationStore(tmp_path / "c.sqlite3")
    assert conversations.save("0912 345 678", frame, "clarify", "missing_population")
    assert conversations.load("0912 345 678").frame.drug_ids == ["metformin"]
    assert conversations.load("0912 345 679") is None
    assert TraceStore(tmp_path / "t.sqlite3").record("Liều metformin?", frame, _payload(), {}, "an.nguyen@gmail.com")
    _assert_nothing_personal(tmp_path)


def test_a_store_written_before_masking_is_emptied_once(tmp_path: Path) -> None:
    """Rows an earlier version wrote in clear (the raw question, the id as given) are gone after the first open."""
    for name, table, row in (
        ("c.sqlite3", "conversations (id TEXT PRIMARY KEY, frame TEXT NOT NULL, decision TEXT NOT NULL, reason TEXT, "
         "clarify_streak INTEGER NOT NULL DEFAULT 0, turns INTEGER NOT NULL DEFAULT 0, updated REAL NOT NULL)",
         ("INSERT INTO conversations VALUES (?, ?, 'clarify', NULL, 1, 1, 0)",
          ("c1", QueryFrame(question=QUESTION).model_dump_json()))),
        ("t.sqlite3", "traces (id INTEGER PRIMARY KEY AUTOINCREMENT, ts REAL NOT NULL, conversation_id TEXT, "
         "question TEXT NOT NULL, frame TEXT NOT NULL, rule TEXT, decision TEXT NOT NULL, reason TEXT, engine TEXT, "
         "citations TEXT NOT NULL, timings TEXT NOT NULL)",
         ("INSERT INTO traces (ts, conversation_id, question, frame, decision, citations, timings) "
          "VALUES (0, 'c1', ?, '{}', 'clarify', '[]', '{}')", (QUESTION,))),
    ):
        conn = sqlite3.connect(tmp_path / name)
        conn.execute(f"CREATE TABLE {table}")
        conn.execute(*row)
        conn.commit()
        conn.close()
    assert ConversationStore(tmp_path / "c.sqlite3").load("c1") is None
    assert TraceStore(tmp_path / "t.sqlite3").recent() == []
    _assert_nothing_personal(tmp_path)


def test_a_question_with_invalid_unicode_is_traced(tmp_path: Path) -> None:
    question = "liều metformin \udcff\udcfe 0912345678"
    store = TraceStore(tmp_path / "t.sqlite3")
    assert store.record(question, QueryFrame(question=question), _payload(), {"total": 0.1}, "c\udcff")
    assert ConversationStore(tmp_path / "c.sqlite3").save("c\udcff", QueryFrame(question=question), "clarify", None)
    assert "0912345678" not in store.recent(1)[0]["question"]


# ---- end to end through the real assistant ---------------------------------------------------------

TURNS = [
    "Bệnh nhân Nguyễn Văn An, SĐT 0912 345 678, CCCD 001203004567, email an.nguyen@gmail.com, "
    "liều paracetamol cho người lớn?",
    "Uống",
    "Tôi là Lê Minh Tuấn, CCCD 079 203 004 568, số 0987.654.321, chống chỉ định của metformin là gì?",
    "Chị Trần Thị Bích (+84 903 123 456, bich.tran@yahoo.com.vn) mang thai 3 tháng đầu dùng aspirin được không?",
    "Bé Hùng 5 tuổi nặng 18 kg, CMND của mẹ 025 123 456, liều paracetamol?",
]
PERSONAL = [
    "0912 345 678", "001203004567", "an.nguyen@gmail.com", "Nguyễn Văn An", "Lê Minh Tuấn", "079 203 004 568",
    "0987.654.321", "Trần Thị Bích", "+84 903 123 456", "bich.tran@yahoo.com.vn", "Hùng", "025 123 456",
]


def _leaks(secret: str, data: bytes) -> list[str]:
    """The forms of `secret` found in a file's bytes: as typed, NFD, JSON-escaped, its digits whatever the
    separators, and each word of a name or of an email's local part (folded, as a whole word)."""
    text = data.decode("utf-8", "ignore")
    folded = fold(unicodedata.normalize("NFC", text))
    forms = {secret, unicodedata.normalize("NFD", secret), json.dumps(secret)[1:-1], secret.lower()}
    found = [f for f in sorted(forms) if f.encode() in data]
    digits = re.sub(r"\D", "", secret)
    if len(digits) >= 8:
        found += [d for d in (digits, digits[-9:]) if d in re.sub(r"\D", "", text)]
    else:
        said = secret.split("@")[0] if "@" in secret else secret
        for word in re.findall(r"[a-z]{3,}", fold(said)):
            if re.search(rf"(?<![a-z0-9]){word}(?![a-z0-9])", folded):
                found.append(word)
    return found


def _assert_nothing_personal(folder: Path, secrets: list[str] | None = None) -> None:
    found = [
        (path.name, secret, leak)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
        for secret in secrets or list(SECRETS.values())
        for leak in _leaks(secret, path.read_bytes())
    ]
    assert found == []


@pytest.mark.integration
def test_turns_with_personal_data_leave_none_in_the_data_folder(qa_service, catalog, tmp_path: Path) -> None:
    data = tmp_path / "data"
    assistant = Assistant(qa_service, catalog=catalog, settings=Settings(data_dir=data), engine_name="extractive")
    payloads = [assistant.ask(turn, "pd-1" if i < 2 else f"pd-{i}") for i, turn in enumerate(TURNS)]
    assert payloads[0].reason == "missing_route"
    assert payloads[1].decision == "answerable"  # the follow-up still completes the masked question
    assert "0,5 - 1 g/lần" in "\n".join(c.text for b in payloads[1].blocks for c in b.claims)
    assert payloads[2].decision == "answerable"
    remembered = assistant.conversations.load("pd-1")
    assert remembered.frame.drug_ids == ["paracetamol"] and remembered.frame.route == "uong"
    assert remembered.frame.population == "nguoi_lon"
    assert sorted(p.name for p in data.iterdir()) == ["conversations.sqlite3", "traces.sqlite3"]
    _assert_nothing_personal(data, PERSONAL)
