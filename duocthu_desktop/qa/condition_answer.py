"""A condition to drugs: the indication sentences of each matching drug, in alphabetical order (never a ranking),
and, when the patient is described, each drug's statements about that kind of patient.
"""

from __future__ import annotations

import re

from duocthu_desktop import messages
from duocthu_desktop.payload import Reason
from duocthu_desktop.qa import bands as band_mod
from duocthu_desktop.qa.cited_answer import (
    CitedAnswer,
    abstain,
    join_messages,
    ordered_chunks,
    quarantine_message,
    section_heading,
    statements,
)
from duocthu_desktop.qa.engine_types import EngineAnswer
from duocthu_desktop.qa.frame import QueryFrame
from duocthu_desktop.qa.sentences import split_sentences
from duocthu_desktop.retrieval.types import IndicationHit, SectionResult
from duocthu_desktop.text import fold

PATIENT_FACT_KEYS = ("chong_chi_dinh", "than_trong", "thoi_ky_mang_thai")

# Words that bear on a patient fact, matched on lower-cased text WITH diacritics ("thai" is not "thải",
# "thận" is not "thận trọng").
_PREGNANCY_WORDS = (
    r"(?<!\w)(?:mang thai|có thai|thai nhi|thai kỳ|thai phụ|sảy thai|quái thai|sinh sản)(?!\w)",
)
_CHILD_WORDS = (r"(?<!\w)(?:trẻ|sơ sinh|nhũ nhi|thiếu niên)(?!\w)", r"dưới \d+ tuổi")
_ELDERLY_WORDS = (r"(?<!\w)(?:cao tuổi|người già)(?!\w)", r"trên \d+ tuổi")
_RENAL_WORDS = (r"(?<!\w)thận(?! trọng)(?!\w)", r"(?<!\w)clcr(?!\w)", r"creatinin", r"thanh thải", r"lọc máu")
# Never shown in a condition list: the book's words are kept, but no ranking is added or selected.
_RANKING_WORDS = ("lua chon dau tay", "tot nhat", "uu tien", "hang dau", "thuoc dau tay")


def answer_condition(
    frame: QueryFrame, hits: list[IndicationHit], fact_sections: dict[str, dict[str, SectionResult]]
) -> EngineAnswer:
    """The drugs whose indications match, and the patient's facts for each when the question describes one."""
    answer = CitedAnswer()
    by_drug: dict[str, list[IndicationHit]] = {}
    for hit in hits:
        by_drug.setdefault(hit.drug_id, []).append(hit)
    if not by_drug:
        return EngineAnswer(
            decision="clarify",
            reason=Reason.NO_INDICATION.value,
            message=messages.message_for(Reason.NO_INDICATION),
        )
    condition = frame.condition or ""
    # Alphabetical: the order must never read as a ranking.
    for drug_id in sorted(by_drug):
        title = f"{drug_id.replace('_', ' ').capitalize()} — Chỉ định"
        for hit in by_drug[drug_id]:
            for start, end in _indication_spans(hit.chunk.text, hit.matched, condition):
                answer.add(title, "fact_list", hit.chunk, start, end)
    topics = _patient_topics(frame)
    message = ""
    if topics:
        facts_before = len(answer.blocks)
        for drug_id in sorted(by_drug):
            for key in PATIENT_FACT_KEYS:
                section = fact_sections.get(drug_id, {}).get(key)
                if section is None:
                    continue
                patterns = [
                    p
                    for name, pats in topics
                    for p in pats
                    if key != "thoi_ky_mang_thai" or name == "mang_thai"
                ]
                if key == "thoi_ky_mang_thai" and not any(name == "mang_thai" for name, _ in topics):
                    continue
                title = f"{drug_id.replace('_', ' ').capitalize()} — {section_heading(key)} (liên quan: {_topic_words(topics)})"
                for chunk in ordered_chunks(section):
                    if chunk.quarantined:
                        answer.add_quarantined(title + " — cần đối chiếu trang PDF", chunk)
                        continue
                    for start, end in statements(chunk.text):
                        lowered = chunk.text[start:end].lower()
                        if key == "thoi_ky_mang_thai" or any(re.search(p, lowered) for p in patterns):
                            answer.add(title, "warning", chunk, start, end)
        if len(answer.blocks) == facts_before:
            return abstain(
                Reason.EVIDENCE_INSUFFICIENT,
                join_messages(messages.message_for(Reason.EVIDENCE_INSUFFICIENT), messages.NO_INFERENCE),
            )
        message = messages.NO_INFERENCE
    else:
        message = "Danh sách các thuốc có chỉ định khớp trong Dược thư, xếp theo vần chữ cái."
    if any(
        c.quarantined for sections in fact_sections.values() for s in sections.values() for c in s.chunks
    ) and any("cần đối chiếu" in b.title for b in answer.blocks):
        return answer.result(Reason.QUARANTINED_EVIDENCE, join_messages(message, quarantine_message()))
    return answer.result(None, message)


_NEGATED_USE = re.compile(r"\b(?:khong (?:nen |duoc )?dung|chong chi dinh|tranh dung|khong chi dinh)\b")


def _indication_spans(text: str, matched: str, condition: str) -> list[tuple[int, int]]:
    """The sentence(s) of an indication chunk holding the matched words, trimmed of any ranking words."""
    sentences = split_sentences(text)
    want = fold(matched).strip()
    chosen = [sp for sp in sentences if want and want in fold(text[sp[0] : sp[1]])]
    if not chosen and condition:
        words = {w for w in re.findall(r"[0-9a-z]+", fold(condition)) if len(w) > 1}
        scored = [(len(words & set(re.findall(r"[0-9a-z]+", fold(text[s:e])))), (s, e)) for s, e in sentences]
        best = max((n for n, _ in scored), default=0)
        chosen = [sp for n, sp in scored if best and n == best]
    affirmed = [sp for sp in chosen if not _NEGATED_USE.search(fold(text[sp[0] : sp[1]]))]
    # "Vì vậy không dùng để điều trị tăng huyết áp cho người cao tuổi" names the condition but is a warning, not an
    # indication: the sentences that state the indication answer the question.
    chosen = affirmed or chosen
    chosen = chosen or sentences[:1]
    # A sentence that opens with a connective ("Vì vậy ...") is read with the one before it.
    for i, sp in enumerate(list(chosen)):
        k = sentences.index(sp)
        if k > 0 and re.match(r"(vi vay|do do|tuy nhien|vi the|nhung|ngoai ra)\b", fold(text[sp[0] : sp[1]])):
            if sentences[k - 1] not in chosen:
                chosen.insert(i, sentences[k - 1])
    chosen = sorted(set(chosen))
    out = []
    for s, e in chosen:
        folded = fold(text[s:e])
        if any(w in folded for w in _RANKING_WORDS):
            # keep only the clause that names the condition, never the ranking words
            for cs, ce in _clauses(text, s, e):
                cf = fold(text[cs:ce])
                if want in cf and not any(w in cf for w in _RANKING_WORDS):
                    out.append((cs, ce))
            continue
        out.append((s, e))
    return out


def _clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    out, pos = [], start
    for m in re.finditer(r"[;,]\s*|\s+-\s+|\(|\)", text[start:end]):
        out.append((pos, start + m.start()))
        pos = start + m.end()
    out.append((pos, end))
    return [(s, e) for s, e in out if text[s:e].strip()]


def _patient_topics(frame: QueryFrame) -> list[tuple[str, tuple[str, ...]]]:
    topics: list[tuple[str, tuple[str, ...]]] = []
    if frame.pregnant or frame.population == "mang_thai":
        topics.append(("mang_thai", _PREGNANCY_WORDS))
    age = frame.age_years
    if frame.population in ("tre_em", "so_sinh") or (age is not None and age < band_mod.ADULT_AGE):
        topics.append(("tre_em", _CHILD_WORDS))
    if frame.population == "nguoi_cao_tuoi" or (age is not None and age >= 60):
        topics.append(("nguoi_cao_tuoi", _ELDERLY_WORDS))
    if frame.clcr is not None:
        topics.append(("than", _RENAL_WORDS))
    return topics


_TOPIC_WORDS = {
    "mang_thai": "mang thai",
    "tre_em": "trẻ em",
    "nguoi_cao_tuoi": "người cao tuổi",
    "than": "chức năng thận",
}


def _topic_words(topics: list[tuple[str, tuple[str, ...]]]) -> str:
    return ", ".join(_TOPIC_WORDS[name] for name, _ in topics)
