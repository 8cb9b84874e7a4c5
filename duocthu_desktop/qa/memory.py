"""Conversation memory in SQLite: the last frame of each conversation, and its run of clarifying questions.

A follow-up ("Uống", "Bé nặng 18 kg") completes the earlier question: the earlier frame and the new one merge
into one self-contained frame. The clarify count lives in the store, not in the process, so a fourth clarify
in a row abstains even across restarts. A store that fails (locked, corrupt, unwritable) gives a turn without
memory, never a crash.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from dataclasses import dataclass

from pydantic import ValidationError

from duocthu_desktop.dosage.words import ADULT_YEARS
from duocthu_desktop.qa.frame import QueryFrame
from duocthu_desktop.qa.sqlite_file import SqliteFile

log = logging.getLogger(__name__)

MAX_CLARIFIES_IN_A_ROW = 3  # the next clarify abstains with clarify_loop_exhausted
_SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    frame TEXT NOT NULL,
    decision TEXT NOT NULL,
    reason TEXT,
    clarify_streak INTEGER NOT NULL DEFAULT 0,
    turns INTEGER NOT NULL DEFAULT 0,
    updated REAL NOT NULL
)
"""
_STORE_ERRORS = (sqlite3.Error, OSError, ValidationError, ValueError)


@dataclass(frozen=True)
class Remembered:
    frame: QueryFrame
    decision: str
    reason: str | None
    clarify_streak: int
    turns: int


class ConversationStore(SqliteFile):
    """One SQLite file; every method swallows store failures (logged) and reports 'nothing remembered'."""

    schema = _SCHEMA

    def load(self, conversation_id: str) -> Remembered | None:
        try:
            conn = self._connect()
            try:
                row = conn.execute(
                    "SELECT frame, decision, reason, clarify_streak, turns FROM conversations WHERE id = ?",
                    (conversation_id,),
                ).fetchone()
            finally:
                conn.close()
            if row is None:
                return None
            return Remembered(QueryFrame.model_validate_json(row[0]), row[1], row[2], int(row[3]), int(row[4]))
        except _STORE_ERRORS as exc:
            log.warning("conversation store unreadable (%s): answering without memory", exc)
            return None

    def save(self, conversation_id: str, frame: QueryFrame, decision: str, reason: str | None,
             prior: Remembered | None) -> bool:
        streak = (prior.clarify_streak if prior else 0) + 1 if decision == "clarify" else 0
        turns = (prior.turns if prior else 0) + 1
        try:
            conn = self._connect()
            try:
                with conn:
                    conn.execute(
                        "INSERT OR REPLACE INTO conversations (id, frame, decision, reason, clarify_streak, turns, "
                        "updated) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (conversation_id, frame.model_dump_json(), decision, reason, streak, turns, time.time()),
                    )
            finally:
                conn.close()
            return True
        except _STORE_ERRORS as exc:
            log.warning("conversation store unwritable (%s): turn not remembered", exc)
            return False

    def forget(self, conversation_id: str) -> None:
        try:
            conn = self._connect()
            try:
                with conn:
                    conn.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
            finally:
                conn.close()
        except _STORE_ERRORS as exc:
            log.warning("conversation store failed (%s)", exc)


def loop_exhausted(prior: Remembered | None) -> bool:
    """This turn would be one clarify too many (three already in a row)."""
    return prior is not None and prior.clarify_streak >= MAX_CLARIFIES_IN_A_ROW


# ---- merging a follow-up -------------------------------------------------------------------------

_FRESH_TURNS = ("smalltalk", "out_of_scope", "condition_relation")
_FACT_FIELDS = (
    "population", "age_years", "age_text", "gestational_weeks", "weight_kg", "weight_text", "route", "clcr",
)


def is_follow_up(new: QueryFrame, prior: Remembered) -> bool:
    """Does the new turn complete the remembered question rather than ask a new one?"""
    if new.turn_type in _FRESH_TURNS or prior.frame.turn_type in ("smalltalk",):
        return False
    if prior.decision == "abstain":
        return False  # a refusal is not a question to complete
    if new.turn_type == "condition_to_drug":
        return False
    has_drug = bool(new.drug_ids or new.unknown_drugs)
    if has_drug and (new.section_key is not None or new.turn_type == "interaction"):
        return False  # a whole new question
    if prior.decision == "clarify":
        return True
    # after an answer: "Còn trẻ em thì sao?", "còn chống chỉ định?", "còn metformin?"
    return has_drug or new.section_key is not None or any(getattr(new, f) is not None for f in _FACT_FIELDS)


_ADULT_GROUPS = ("nguoi_lon", "nguoi_cao_tuoi", "mang_thai", "cho_con_bu")


def _drop_contradicted_group(merged: QueryFrame, new: QueryFrame) -> None:
    """A follow-up that changes the patient ("còn nếu bé 10 tuổi thì sao?" after an adult's question, "còn người
    lớn?" after a child's) replaces the earlier group, age and weight instead of keeping a group the new facts
    contradict: an adult's dose must never be chosen for a child because the first turn said "người lớn"."""
    new_age = new.age_years
    if new_age is not None and new.population is None and merged.population is not None:
        child_now = new_age < ADULT_YEARS
        if child_now == (merged.population in _ADULT_GROUPS) or (
            not child_now and merged.population in ("tre_em", "so_sinh")
        ):
            merged.population = None
            merged.weight_kg = merged.weight_text = None  # the earlier patient's weight, not this one's
    if new.population in _ADULT_GROUPS and new.age_years is None and merged.age_years is not None:
        if merged.age_years < ADULT_YEARS:
            merged.age_years = merged.age_text = merged.weight_kg = merged.weight_text = None
            merged.gestational_weeks = None
    if new.population in ("tre_em", "so_sinh") and new.age_years is None and merged.age_years is not None:
        if merged.age_years >= ADULT_YEARS:
            merged.age_years = merged.age_text = merged.weight_kg = merged.weight_text = None


def merge(prior: QueryFrame, new: QueryFrame) -> QueryFrame:
    """One self-contained frame: the earlier question with what the new turn adds or changes."""
    merged = prior.model_copy(deep=True)
    merged.question = f"{prior.question} {new.question}".strip()
    merged.follow_up = True
    merged.injection_attempt = new.injection_attempt
    merged.non_human = prior.non_human or new.non_human
    if new.drug_ids or new.unknown_drugs:
        merged.drug_ids = list(new.drug_ids)
        merged.drug_mentions = dict(new.drug_mentions)
        merged.unknown_drugs = list(new.unknown_drugs)
        merged.drug_classes = list(new.drug_classes)
    if new.section_key is not None:
        merged.section_key = new.section_key
        merged.whole_section = new.whole_section
    _drop_contradicted_group(merged, new)
    for name in _FACT_FIELDS:
        value = getattr(new, name)
        if value is not None:
            setattr(merged, name, value)
    if new.age_years is not None and new.gestational_weeks is None:
        merged.gestational_weeks = None
    if new.condition:
        merged.condition = new.condition
    elif prior.turn_type == "condition_to_drug" and not new.drug_ids and new.section_key is None:
        merged.condition = new.question.strip(" ?.!") or prior.condition
    merged.pregnant = prior.pregnant or new.pregnant
    merged.breastfeeding = prior.breastfeeding or new.breastfeeding
    if new.turn_type not in ("unknown",):
        merged.turn_type = new.turn_type
    if merged.turn_type == "unknown" and merged.section_key is not None:
        merged.turn_type = "dosing" if merged.section_key == "lieu_luong_cach_dung" else "drug_attribute"
    if merged.turn_type in ("dosing", "drug_attribute") and merged.section_key is not None:
        merged.turn_type = "dosing" if merged.section_key == "lieu_luong_cach_dung" else "drug_attribute"
    return merged
