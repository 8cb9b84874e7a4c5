"""Conversation memory in SQLite: the last frame of each conversation, and its run of clarifying questions.

A follow-up ("Uống", "Bé nặng 18 kg") completes the earlier question: the earlier frame and the new one merge
into one self-contained frame. The clarify count lives in the store, not in the process, so a fourth clarify
in a row abstains even across restarts, and it is counted inside one write transaction, so turns of one
conversation running at once never lose a count. What is stored is the frame's clinical facts and its masked,
capped question (a follow-up's answer reads the earlier question's words), never the sentence as typed, and
the conversation id only as a digest. A store that fails (locked, corrupt, unwritable) gives a turn without
memory, never a crash.
"""

from __future__ import annotations

import logging
import re
import sqlite3
import time
from dataclasses import dataclass

from pydantic import ValidationError

from duocthu_desktop.dosage.fit import cases_replaced
from duocthu_desktop.dosage.words import ADULT_YEARS
from duocthu_desktop.payload import Reason
from duocthu_desktop.qa.conversation.personal_data import conversation_key, stored_frame, stored_text
from duocthu_desktop.qa.conversation.sqlite_file import SqliteFile
from duocthu_desktop.qa.conversation.traces import TRACES_FILE, TraceStore
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.qa.understanding.lexicon import CASE_REFERENCE_PHRASES, SWITCH_PHRASES
from duocthu_desktop.qa.understanding.section_asked import DOSING, INTERACTION, asks_amount
from duocthu_desktop.qa.understanding.textmatch import Text, any_of
from duocthu_desktop.text import fold

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
    updated REAL NOT NULL,
    asked TEXT,
    title TEXT,
    started REAL
)
"""
_LIST_COLUMNS = (("asked", "TEXT"), ("title", "TEXT"), ("started", "REAL"))  # added in version 2
TITLE_CHARS = 80  # of a conversation's title in the list (the first question masked, or the name given)
HANDLE_PREFIX = "key:"  # a conversation id that names a stored conversation by its digest (to continue it)
_HANDLE = re.compile(r"key:([0-9a-f]{32})")
_STORE_ERRORS = (sqlite3.Error, OSError, ValidationError, ValueError, UnicodeError)


@dataclass(frozen=True)
class ConversationSummary:
    """One past conversation as the app's list shows it: no id as typed, only its digest and masked words."""

    key: str
    title: str  # the name given to it, else its first question (masked, capped)
    last_question: str  # the question as it stands now (a follow-up merged in), masked
    decision: str
    turns: int
    started: float
    updated: float

    @property
    def conversation_id(self) -> str:
        """The id that continues this conversation (its digest, marked as one)."""
        return handle(self.key)


def handle(key: str) -> str:
    return f"{HANDLE_PREFIX}{key}"


def store_key(conversation_id: str) -> str:
    """The stored key of a conversation id: a handle names its key; any other id is digested."""
    found = _HANDLE.fullmatch(conversation_id.strip())
    return found.group(1) if found else conversation_key(conversation_id)


def _title(text: str | None) -> str:
    words = " ".join((text or "").split())
    return words if len(words) <= TITLE_CHARS else words[: TITLE_CHARS - 1].rstrip() + "…"


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
    version = 2  # 1: frames masked, ids digested; 2: first question, title and start kept for the list

    def _upgrade(self, conn: sqlite3.Connection) -> None:
        if self._version(conn) < 1:
            conn.execute("DELETE FROM conversations")  # rows from before version 1 hold questions as typed
        have = {row[1] for row in conn.execute("PRAGMA table_info(conversations)")}
        for name, kind in _LIST_COLUMNS:
            if name not in have:
                conn.execute(f"ALTER TABLE conversations ADD COLUMN {name} {kind}")

    def load(self, conversation_id: str) -> Remembered | None:
        try:
            conn = self._connect()
            try:
                row = conn.execute(
                    "SELECT frame, decision, reason, clarify_streak, turns FROM conversations WHERE id = ?",
                    (store_key(conversation_id),),
                ).fetchone()
            finally:
                conn.close()
            if row is None:
                return None
            return Remembered(QueryFrame.model_validate_json(row[0]), row[1], row[2], int(row[3]), int(row[4]))
        except _STORE_ERRORS as exc:
            log.warning("conversation store unreadable (%s): answering without memory", exc)
            return None

    def count_clarify(self, conversation_id: str, frame: QueryFrame) -> bool:
        """Count this turn's clarifying question, in one write transaction (BEGIN IMMEDIATE: read, decide, write
        under the lock), and say whether it is one too many (MAX_CLARIFIES_IN_A_ROW already in a row): then the
        run starts again, as the turn abstains. Turns of one conversation running at once each see the count the
        one before left, so five at once reach the breaker. False when the store fails (no memory, no breaker)."""
        try:
            key = store_key(conversation_id)
            with self._transaction() as conn:
                row = conn.execute("SELECT clarify_streak FROM conversations WHERE id = ?", (key,)).fetchone()
                streak = int(row[0]) if row else 0
                exhausted = streak >= MAX_CLARIFIES_IN_A_ROW
                counted = 0 if exhausted else streak + 1
                if row:
                    conn.execute("UPDATE conversations SET clarify_streak = ? WHERE id = ?", (counted, key))
                else:  # the conversation's first turn: its row, which save() completes
                    masked, now = stored_frame(frame), time.time()
                    conn.execute(
                        "INSERT INTO conversations (id, frame, decision, reason, clarify_streak, turns, updated, "
                        "asked, started) VALUES (?, ?, 'clarify', NULL, ?, 0, ?, ?, ?)",
                        (key, masked.model_dump_json(), counted, now, _title(masked.question), now),
                    )
            return exhausted
        except _STORE_ERRORS as exc:
            log.warning("conversation store unwritable (%s): clarify not counted", exc)
            return False

    def save(self, conversation_id: str, frame: QueryFrame, decision: str, reason: str | None,
             counted: bool = False) -> bool:
        """Record the turn: the counts are read and written in one transaction, from what is stored now (not from
        what this turn loaded at its start), so a turn finishing at the same time is counted too. `counted`: this
        clarify was counted already (count_clarify), so the run is left as it stands."""
        try:
            masked = stored_frame(frame)
            stored = masked.model_dump_json()
            key = store_key(conversation_id)
            with self._transaction() as conn:
                row = conn.execute(
                    "SELECT clarify_streak, turns FROM conversations WHERE id = ?", (key,)
                ).fetchone()
                streak, turns = (int(row[0]), int(row[1])) if row else (0, 0)
                streak = (streak if counted else streak + 1) if decision == "clarify" else 0
                now = time.time()
                conn.execute(  # the first question, the title and the start stay as the first turn wrote them
                    "INSERT INTO conversations (id, frame, decision, reason, clarify_streak, turns, updated, asked, "
                    "started) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
                    "frame = excluded.frame, decision = excluded.decision, reason = excluded.reason, "
                    "clarify_streak = excluded.clarify_streak, turns = excluded.turns, updated = excluded.updated",
                    (key, stored, decision, reason, streak, turns + 1, now, _title(masked.question), now),
                )
            return True
        except _STORE_ERRORS as exc:
            log.warning("conversation store unwritable (%s): turn not remembered", exc)
            return False

    def forget(self, conversation_id: str) -> bool:
        """Delete the conversation and its traces (`traces.sqlite3` beside this file, rotated ones included; rows
        overwritten on disk); False when a store failed."""
        key = store_key(conversation_id)
        try:
            conn = self._connect()
            try:
                conn.execute("DELETE FROM conversations WHERE id = ?", (key,))
            finally:
                conn.close()
            TraceStore(self.path.with_name(TRACES_FILE)).forget(key)
            return True
        except _STORE_ERRORS as exc:
            log.warning("conversation store failed (%s)", exc)
            return False

    # ---- the app's list of past conversations -------------------------------------------------------------

    def recent(self, limit: int = 100) -> list[ConversationSummary]:
        """The most recently used conversations first; [] when the store cannot be read."""
        try:
            conn = self._connect()
            try:
                rows = conn.execute(
                    "SELECT id, frame, decision, turns, updated, asked, title, started FROM conversations "
                    "ORDER BY updated DESC LIMIT ?", (int(limit),),
                ).fetchall()
            finally:
                conn.close()
        except _STORE_ERRORS as exc:
            log.warning("conversation store unreadable (%s): no past conversations listed", exc)
            return []
        found = []
        for key, frame, decision, turns, updated, asked, title, started in rows:
            try:
                last = QueryFrame.model_validate_json(frame).question
            except _STORE_ERRORS:
                last = ""
            found.append(ConversationSummary(
                key=key, title=title or asked or _title(last), last_question=last, decision=decision,
                turns=int(turns), started=float(started or updated), updated=float(updated)))
        return found

    def rename(self, conversation_id: str, title: str) -> bool:
        """Name a conversation (masked and capped like a question; empty gives back the first question)."""
        name = _title(stored_text(title, (), 4 * TITLE_CHARS)) or None
        try:
            conn = self._connect()
            try:
                changed = conn.execute("UPDATE conversations SET title = ? WHERE id = ?",
                                       (name, store_key(conversation_id))).rowcount
            finally:
                conn.close()
            return changed > 0
        except _STORE_ERRORS as exc:
            log.warning("conversation store failed (%s): not renamed", exc)
            return False


def loop_exhausted(prior: Remembered | None) -> bool:
    """This turn would be one clarify too many (three already in a row)."""
    return prior is not None and prior.clarify_streak >= MAX_CLARIFIES_IN_A_ROW


# ---- merging a follow-up -------------------------------------------------------------------------

_FRESH_TURNS = ("smalltalk", "out_of_scope", "condition_relation")
# What a follow-up does with each field of QueryFrame (tests/test_qa_memory.py holds a rule for every field):
# the new turn's value when it gives one (these, the trimester, the condition); the drug fields and the section
# fields each as a whole when the new turn names a drug or a section; either turn's flag for the flags below;
# the new turn's own for injection_attempt and non_medical; the age bound goes with the age.
_FACT_FIELDS = (
    "population", "age_years", "age_text", "gestational_weeks", "weight_kg", "weight_text", "route", "clcr",
)
_DRUG_FIELDS = ("drug_ids", "drug_mentions", "unknown_drugs", "drug_classes", "via_trade_name")
_EITHER_TURN = ("pregnant", "breastfeeding", "non_human", "hepatic_impairment", "ranking")


def is_follow_up(new: QueryFrame, prior: Remembered) -> bool:
    """Does the new turn complete the remembered question rather than ask a new one?"""
    if new.turn_type in _FRESH_TURNS or prior.frame.turn_type in ("smalltalk",):
        return False
    partner = names_partner_only(new, prior.frame)
    if prior.decision == "abstain" and not (partner and prior.reason == Reason.NO_INTERACTION_EVIDENCE.value):
        return False  # a refusal is not a question to complete ("not found" for a pair is an answer)
    if partner:
        return True  # "Còn với thuốc có sắt thì sao?": the same drug with another partner
    if names_context_only(new, prior.frame):
        return True  # "Bệnh nhân dị ứng aspirin thì sao?" after a clopidogrel question: still clopidogrel
    if new.turn_type == "condition_to_drug":
        return False
    has_drug = bool(new.drug_ids or named_unknowns(new))
    if has_drug and (new.section_key is not None or new.turn_type == "interaction") and not switches_drug(new):
        return False  # a whole new question
    if prior.decision == "clarify":
        return True
    if speaks_of_the_case(new):
        return True  # "bn đang hồi tỉnh sau mê rồi": the patient just asked about, with the drug just answered
    # after an answer: "Còn trẻ em thì sao?", "còn chống chỉ định?", "còn metformin?", and a turn that only adds
    # to the patient or the case ("Nếu bệnh nhân có suy gan nhẹ thì sao?", "Nếu là phẫu thuật chỉnh hình lớn?")
    return (has_drug or new.section_key is not None or any(getattr(new, f) is not None for f in _FACT_FIELDS)
            or _adds_to_the_case(new))


# What a clarify asked, and the field of the next turn that answers it.
_CLARIFY_ANSWERS = {
    Reason.MISSING_ROUTE.value: "route",
    Reason.MISSING_POPULATION.value: "population",
}


def as_clarify_answer(new: QueryFrame, prior: Remembered) -> QueryFrame:
    """"Bạn dùng đường nào?" answered "tiêm bắp được không?": a turn naming no drug that gives what the clarify
    asked is its answer, whatever its asking words say ("được không" reads as a may-I of the contraindications):
    the question stays the one asked before (its section, its kind)."""
    if prior.decision != "clarify" or new.drug_ids or named_unknowns(new):
        return new
    if prior.reason == Reason.MISSING_ATTRIBUTE.value and new.section_key is None and (
            asks_amount(Text.of(new.question)) or new.population or new.age_years is not None
            or new.weight_kg is not None):
        # "Bạn muốn biết thông tin gì?" answered "bệnh nhân 30 tuổi thì tối đa 1 ngày bao nhiêu?": the dose
        return new.model_copy(update={"section_key": DOSING, "turn_type": "dosing"})
    field_name = _CLARIFY_ANSWERS.get(prior.reason or "")
    if field_name is None or getattr(new, field_name) is None:
        return new
    if new.turn_type == "interaction" or new.drug_classes:
        return new
    return new.model_copy(update={"section_key": None, "whole_section": False, "turn_type": "unknown"})


def speaks_of_the_case(new: QueryFrame) -> bool:
    """A turn naming no drug, class or section that speaks of the patient or the case (CASE_REFERENCE_PHRASES)."""
    return (not new.drug_ids and not named_unknowns(new) and not new.drug_classes and new.turn_type == "unknown"
            and new.section_key is None and any_of(Text.of(new.question), CASE_REFERENCE_PHRASES))


def adds_only_words(new: QueryFrame) -> bool:
    """Such a turn that gives no fact the frame reads (a group, an age, a route, a condition, an organ): its words
    alone say what it adds ("Bệnh nhân cai rượu nặng, vật vã")."""
    return speaks_of_the_case(new) and not (any(getattr(new, f) is not None for f in _FACT_FIELDS)
                                            or _adds_to_the_case(new))


def switches_drug(new: QueryFrame) -> bool:
    """"Nếu đổi sang thuốc B thì liều thế nào?": another drug for the same patient and the same case, whose
    facts (group, age, weight, kidneys, the condition) the earlier turns gave."""
    return bool(new.drug_ids) and any_of(Text.of(new.question), SWITCH_PHRASES)


def named_unknowns(new: QueryFrame) -> list[str]:
    """The turn's words read as drugs the book lacks, less those inside the condition it names ("viêm đại tràng
    do Clostridium difficile") and those the patient is said to take: an organism or an eponym of the case, or a
    medicine already taken, is not a new subject."""
    inside = " " + " ".join(fold(new.condition or "").lower().split()) + " "
    taken = {fold(t).lower() for t in new.taking_names}  # "bn đang uống X": a fact of the patient, not a subject
    return [u for u in new.unknown_drugs if f" {fold(u).lower()} " not in inside and fold(u).lower() not in taken]


def _adds_to_the_case(new: QueryFrame) -> bool:
    """A turn naming no drug that says something of the patient or the case: it completes the last question."""
    return bool(new.condition or new.hepatic_impairment or new.renal_impairment or new.pregnant
                or new.breastfeeding or new.lab_values or new.trimester is not None)


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
            merged.gestational_weeks = merged.age_bound = None
    if new.population in ("tre_em", "so_sinh") and new.age_years is None and merged.age_years is not None:
        if merged.age_years >= ADULT_YEARS:
            merged.age_years = merged.age_text = merged.weight_kg = merged.weight_text = None
            merged.age_bound = None


def names_partner_only(new: QueryFrame, prior: QueryFrame) -> bool:
    """After an interaction question, a turn naming only another drug or class, no section: its partner."""
    named = bool(new.drug_ids or new.unknown_drugs or new.drug_classes)
    return prior.turn_type == "interaction" and named and new.section_key is None and new.turn_type == "unknown"


def names_context_only(new: QueryFrame, prior: QueryFrame) -> bool:
    """The turn names drugs only as facts of the patient ("dị ứng aspirin", "không dùng được aspirin", "đang dùng
    warfarin"), after a question about another drug: that drug stays the subject."""
    return (bool(new.drug_ids) and all(d in new.context_drugs for d in new.drug_ids) and not new.unknown_drugs
            and prior.turn_type != "interaction" and any(d not in new.context_drugs for d in prior.drug_ids))


def _keep_subject(merged: QueryFrame, prior: QueryFrame, new: QueryFrame) -> None:
    """A drug the patient cannot take is a fact of the patient: the earlier drug and section stay, unless the turn
    asks another section in its own words. A drug the patient already takes is asked about with the earlier
    drug: the pair's interaction."""
    taking = [d for d in new.drug_ids if new.context_drugs.get(d) == "taking"]
    if new.context_section is not None:
        merged.section_key = new.context_section
        merged.whole_section = new.whole_section
    if taking:
        base = [d for d in prior.drug_ids[:1] if d not in taking]
        merged.drug_ids = base + taking
        merged.drug_mentions = {**{d: prior.drug_mentions.get(d, d) for d in base},
                                **{d: new.drug_mentions.get(d, d) for d in taking}}
        merged.via_trade_name = {**{d: v for d, v in prior.via_trade_name.items() if d in base},
                                 **{d: v for d, v in new.via_trade_name.items() if d in taking}}
        merged.section_key = INTERACTION
    merged.context_drugs = dict(new.context_drugs)
    merged.context_section = new.context_section


def _swap_partner(merged: QueryFrame, prior: QueryFrame, new: QueryFrame) -> None:
    """'X có tương tác với Y không?' then 'còn với Z thì sao?': X stays, Z replaces Y, and the question reads
    'X còn với Z thì sao?' (Y's words would otherwise still be searched for)."""
    base = [d for d in prior.drug_ids[:1] if d not in new.drug_ids]
    merged.drug_ids = base + list(new.drug_ids)
    merged.drug_mentions = {**{d: prior.drug_mentions.get(d, d) for d in base}, **new.drug_mentions}
    merged.via_trade_name = {**{d: v for d, v in prior.via_trade_name.items() if d in base}, **new.via_trade_name}
    merged.unknown_drugs = list(new.unknown_drugs)
    merged.drug_classes = list(new.drug_classes)
    merged.question = " ".join([*(merged.drug_mentions[d] for d in base), new.question.strip()])


def merge(prior: QueryFrame, new: QueryFrame) -> QueryFrame:
    """One self-contained frame: the earlier question with what the new turn adds or changes."""
    merged = prior.model_copy(deep=True)
    # a case the new turn names in place of an earlier one (a phase, a severity, which dialysis) replaces it
    merged.question = f"{cases_replaced(prior.question, new.question)} {new.question}".strip()
    merged.follow_up = True
    merged.injection_attempt = new.injection_attempt
    merged.non_medical = new.non_medical
    for name in _EITHER_TURN:
        setattr(merged, name, getattr(prior, name) or getattr(new, name))
    context_only = names_context_only(new, prior)
    if names_partner_only(new, prior):
        _swap_partner(merged, prior, new)
    elif context_only:
        _keep_subject(merged, prior, new)
    elif new.drug_ids or named_unknowns(new):
        named = new.model_copy(deep=True)
        for name in (*_DRUG_FIELDS, "context_drugs", "context_section"):
            setattr(merged, name, getattr(named, name))
    if new.section_key is not None and not context_only:
        merged.section_key = new.section_key
        merged.whole_section = new.whole_section
    _drop_contradicted_group(merged, new)
    for name in _FACT_FIELDS:
        value = getattr(new, name)
        if value is not None:
            setattr(merged, name, value)
    if new.population is not None or new.age_years is not None or new.weight_kg is not None:
        merged.population_assumed = False  # the group is now said, not read from "bệnh nhân"
    if new.age_years is not None:
        merged.age_bound = new.age_bound  # "75 tuổi" replaces "trên 65 tuổi"
        if new.gestational_weeks is None:
            merged.gestational_weeks = None
    if new.trimester is not None:
        merged.trimester = new.trimester
    # a lab value given now replaces the earlier one of its analyte; the others still hold
    given = {v.analyte for v in new.lab_values}
    merged.lab_values = [v for v in prior.lab_values if v.analyte not in given] + list(new.lab_values)
    # a medicine the patient takes stays a fact of the patient until the turn names another
    merged.taking_names = list(new.taking_names or prior.taking_names)
    # A Clcr given now says how the kidneys are now; without one, either turn's "suy thận" counts.
    if new.clcr is not None:
        merged.renal_impairment = new.renal_impairment
    else:
        merged.renal_impairment = prior.renal_impairment or new.renal_impairment
    if new.condition:
        merged.condition = new.condition
    elif prior.turn_type == "condition_to_drug" and not new.drug_ids and new.section_key is None:
        merged.condition = new.question.strip(" ?.!") or prior.condition
    if context_only:
        merged.turn_type = "interaction" if merged.section_key == INTERACTION else "unknown"
    elif new.turn_type not in ("unknown",):
        merged.turn_type = new.turn_type
    if merged.turn_type == "unknown" and merged.section_key is not None:
        merged.turn_type = "dosing" if merged.section_key == "lieu_luong_cach_dung" else "drug_attribute"
    if merged.turn_type in ("dosing", "drug_attribute") and merged.section_key is not None:
        merged.turn_type = "dosing" if merged.section_key == "lieu_luong_cach_dung" else "drug_attribute"
    return merged
