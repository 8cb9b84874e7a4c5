"""The app's list of past conversations, from the conversation store (no Qt): recent first with a masked title
and times, continued by a handle, renamed and deleted; an older store file keeps its conversations."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from duocthu_desktop.qa.conversation.memory import (
    TITLE_CHARS,
    ConversationStore,
    handle,
    store_key,
)
from duocthu_desktop.qa.conversation.personal_data import conversation_key
from duocthu_desktop.qa.understanding.frame import QueryFrame

FIRST = "Liều paracetamol cho bé Nguyễn Văn An 5 tuổi, SĐT 0912345678?"
SECOND = "Chống chỉ định của metformin?"


def frame(question: str) -> QueryFrame:
    return QueryFrame(question=question)


def test_recent_lists_the_latest_first_with_the_masked_first_question_as_title(tmp_path: Path):
    store = ConversationStore(tmp_path / "c.sqlite3")
    assert store.save("c1", frame(FIRST), "clarify", "missing_route")
    assert store.save("c2", frame(SECOND), "answerable", None)
    assert store.save("c1", frame(FIRST + " Uống"), "answerable", None)  # a follow-up: c1 is the latest now
    listed = store.recent()
    assert [s.key for s in listed] == [conversation_key("c1"), conversation_key("c2")]
    first = listed[0]
    assert first.title.startswith("Liều paracetamol cho bé") and first.title.endswith("?")
    assert "0912345678" not in first.title and "Nguyễn Văn An" not in first.title
    assert first.last_question.endswith("Uống") and first.turns == 2 and first.decision == "answerable"
    assert first.started < first.updated and listed[1].title == SECOND
    assert store.recent(limit=1) == listed[:1]


def test_a_long_first_question_is_capped_in_the_title(tmp_path: Path):
    store = ConversationStore(tmp_path / "c.sqlite3")
    store.save("c1", frame("Liều paracetamol " + "rất dài " * 50), "answerable", None)
    title = store.recent()[0].title
    assert len(title) == TITLE_CHARS and title.endswith("…")


def test_a_listed_conversation_continues_through_its_handle(tmp_path: Path):
    path = tmp_path / "c.sqlite3"
    ConversationStore(path).save("app-123", frame(FIRST), "clarify", "missing_route")
    summary = ConversationStore(path).recent()[0]  # after a restart: only the digest is known
    assert summary.conversation_id == handle(summary.key) and store_key(summary.conversation_id) == summary.key
    again = ConversationStore(path)
    assert again.load(summary.conversation_id).frame.question == summary.last_question
    assert again.save(summary.conversation_id, frame(FIRST + " Uống"), "answerable", None)
    (only,) = again.recent()
    assert only.key == summary.key and only.turns == 2 and only.title == summary.title
    assert store_key("key:not-a-digest") == conversation_key("key:not-a-digest")


def test_rename_is_stored_masked_and_an_empty_name_gives_the_question_back(tmp_path: Path):
    path = tmp_path / "c.sqlite3"
    store = ConversationStore(path)
    store.save("c1", frame(FIRST), "answerable", None)
    key = store.recent()[0].conversation_id
    assert store.rename(key, "Hạ sốt — trẻ 5 tuổi")
    assert ConversationStore(path).recent()[0].title == "Hạ sốt — trẻ 5 tuổi"
    store.save(key, frame(FIRST + " Uống"), "answerable", None)
    assert store.recent()[0].title == "Hạ sốt — trẻ 5 tuổi"  # a later turn keeps the name
    assert store.rename(key, "Bà Trần Thị Bích Ngọc 0912345678")
    assert "0912345678" not in store.recent()[0].title and "Bích Ngọc" not in store.recent()[0].title
    assert store.rename(key, "   ")
    assert store.recent()[0].title.startswith("Liều paracetamol cho bé")
    assert not store.rename("never-seen", "x")


def test_delete_removes_the_conversation_and_its_words_from_the_file(tmp_path: Path):
    path = tmp_path / "c.sqlite3"
    store = ConversationStore(path)
    store.save("c1", frame("Liều metformin cho người suy thận mạn độ ba?"), "answerable", None)
    store.save("c2", frame(SECOND), "answerable", None)
    doomed = next(s for s in store.recent() if s.key == conversation_key("c1"))
    assert store.forget(doomed.conversation_id)
    assert [s.key for s in store.recent()] == [conversation_key("c2")]
    assert store.load("c1") is None
    assert "suy thận mạn độ ba".encode() not in path.read_bytes()


def test_a_version_1_file_keeps_its_conversations_and_gains_the_list_columns(tmp_path: Path):
    path = tmp_path / "c.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE conversations (id TEXT PRIMARY KEY, frame TEXT NOT NULL, decision TEXT NOT NULL, "
                 "reason TEXT, clarify_streak INTEGER NOT NULL DEFAULT 0, turns INTEGER NOT NULL DEFAULT 0, "
                 "updated REAL NOT NULL)")
    conn.execute("INSERT INTO conversations VALUES (?, ?, 'answerable', NULL, 0, 1, 5.0)",
                 (conversation_key("c1"), frame(SECOND).model_dump_json()))
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    store = ConversationStore(path)
    (old,) = store.recent()
    assert old.title == SECOND and old.started == old.updated == 5.0
    assert store.rename("c1", "Metformin") and store.recent()[0].title == "Metformin"


def test_an_unreadable_store_lists_nothing_and_does_not_fail(tmp_path: Path):
    folder = tmp_path / "c.sqlite3"
    folder.mkdir()  # a folder where the file should be
    store = ConversationStore(folder)
    assert store.recent() == [] and not store.rename("c1", "x") and not store.forget("c1")
