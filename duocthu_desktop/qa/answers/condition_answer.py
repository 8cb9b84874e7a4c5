"""A condition to drugs: the indication sentences of each matching drug, in alphabetical order (never a ranking),
and, when the patient is described, each drug's statements about that kind of patient.
"""

from __future__ import annotations

import re

from duocthu_desktop import messages
from duocthu_desktop.dosage.words import ADULT_YEARS
from duocthu_desktop.payload import Reason
from duocthu_desktop.qa.answers import drug_classes
from duocthu_desktop.qa.answers import warning_rules as rules
from duocthu_desktop.qa.answers.cited_answer import (
    CitedAnswer,
    abstain,
    join_messages,
    ordered_chunks,
    quarantine_message,
    section_heading,
    statements,
)
from duocthu_desktop.qa.answers.comorbidities import Said, bears_on
from duocthu_desktop.qa.answers.engine_types import EngineAnswer
from duocthu_desktop.qa.answers.sentences import split_sentences
from duocthu_desktop.qa.understanding.frame import QueryFrame
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
NOT_RANKED = "Dược thư không xếp hạng các thuốc; dưới đây là các thuốc có chỉ định này, theo thứ tự chữ cái."


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
        message = join_messages(_list_message(frame, by_drug, hits), messages.NO_INFERENCE)
    else:
        message = _list_message(frame, by_drug, hits)
    if any(
        c.quarantined for sections in fact_sections.values() for s in sections.values() for c in s.chunks
    ) and any("cần đối chiếu" in b.title for b in answer.blocks):
        return answer.result(Reason.QUARANTINED_EVIDENCE, join_messages(message, quarantine_message()))
    return answer.result(None, message)


def _list_message(frame: QueryFrame, by_drug: dict[str, list[IndicationHit]], hits: list[IndicationHit]) -> str:
    """How many drugs, in what order; a ranking question is told the book does not rank."""
    count = len(by_drug)
    condition = (frame.condition or "").strip()
    if all(h.method == "dense" for h in hits):
        head = f"Không có thuốc nào ghi đúng cụm từ “{condition}”; {count} thuốc có chỉ định gần nghĩa nhất"
    else:
        head = f"Dược thư có {count} thuốc có chỉ định khớp với “{condition}”"
        book = _book_wordings(condition, hits)
        if book:
            head += " (sách ghi: " + ", ".join(f"“{w}”" for w in book) + ")"
    text = head + ", xếp theo thứ tự chữ cái."
    if getattr(frame, "ranking", False):
        text = join_messages(NOT_RANKED, text)
    return text


MAX_BOOK_WORDINGS = 4


def _words(text: str) -> str:
    return " ".join(re.findall(r"[0-9a-z]+", fold(text)))


def _book_wordings(condition: str, hits: list[IndicationHit]) -> list[str]:
    """The book's own words that matched, when they are not what the person typed ("tiểu đường" found as "đái
    tháo đường", "nhiễm khuẩn tiết niệu" as "nhiễm khuẩn đường tiết niệu"): the person sees what was searched."""
    said = _words(condition)
    seen: dict[str, str] = {}
    for hit in hits:
        if hit.method == "lexical":
            seen.setdefault(_words(hit.matched), " ".join(hit.matched.split()))
    if set(seen) <= {said}:
        return []
    return [w for k, w in seen.items() if k != said][:MAX_BOOK_WORDINGS]


# ---- which drugs are contraindicated in X ---------------------------------------------------------------------

CONTRAINDICATION_KEY = "chong_chi_dinh"
# The patient groups a contraindication list is asked for, and the book's words for each (with diacritics: the
# book prints them; the person's folded words are recognised by the understanding step and by `_group_of`).
_GROUP_WORDS: dict[str, tuple[str, ...]] = {
    "mang_thai": ("phụ nữ có thai", "phụ nữ mang thai", "người mang thai", "mang thai", "có thai", "thai kỳ",
                  "thai phụ"),
    "cho_con_bu": ("cho con bú", "nuôi con bú"),
    "tre_em": ("trẻ em", "trẻ nhỏ", "trẻ sơ sinh", "sơ sinh", "nhũ nhi"),
    "nguoi_cao_tuoi": ("người cao tuổi", "người già", "cao tuổi"),
}


def answer_contraindicated(frame: QueryFrame, sections: dict[str, SectionResult], titles: dict[str, str]
                           ) -> EngineAnswer:
    """Every drug whose Chống chỉ định names X, in alphabetical order, each with the sentences that name it.

    `sections`: every monograph's chong_chi_dinh. Never chosen from indications; nothing found abstains.
    """
    words = _contraindication_words(frame)
    if not words:
        return EngineAnswer(decision="clarify", reason=Reason.NO_CONDITION.value,
                            message=messages.message_for(Reason.NO_CONDITION))
    # a condition is also met as the book's list items name it: "suy gan nặng" is in "Suy gan vừa và nặng"
    said = Said.of(words[0], []) if _group_of(frame) is None else None
    # "Clcr dưới 30": every sentence whose printed Clcr threshold holds such a patient ("Clcr < 60 ml/phút"),
    # compared as numbers, an emphasised one too ("đặc biệt ... dưới 30 ml/phút")
    clcr = _clcr_asked(frame)
    answer = CitedAnswer()
    drugs: list[str] = []
    unreadable = 0
    for drug_id in sorted(sections, key=lambda d: fold(titles.get(d, d))):
        title = f"{titles.get(drug_id, drug_id)} — {section_heading(CONTRAINDICATION_KEY)}"
        for chunk in ordered_chunks(sections[drug_id]):
            if chunk.quarantined:
                answer.add_quarantined(title + ": bảng/đoạn cần đối chiếu trang PDF", chunk)
                unreadable += 1
                continue
            for start, end in split_sentences(chunk.text):
                sentence = chunk.text[start:end]
                if any(drug_classes.mentions(sentence, w) for w in words) or (
                        said is not None and said.any() and bears_on(sentence, said)) or (
                        clcr is not None and any(b.overlaps(*clcr) for b in rules.clcr_bounds(sentence))):
                    answer.add(title, "warning", chunk, start, end)
                    if drug_id not in drugs:
                        drugs.append(drug_id)
    asked = words[0]
    if not drugs:
        message = join_messages(messages.message_for(Reason.EVIDENCE_INSUFFICIENT),
                                f"Không thấy mục Chống chỉ định nào nêu “{asked}”.")
        if unreadable:
            return answer.result(Reason.QUARANTINED_EVIDENCE, join_messages(message, quarantine_message()))
        return abstain(Reason.EVIDENCE_INSUFFICIENT, message)
    message = (
        f"Dược thư có {len(drugs)} thuốc ghi trong mục Chống chỉ định một câu nói về “{asked}”, xếp theo thứ tự "
        "chữ cái. Thuốc không có trong danh sách không có nghĩa là dùng được: cần đọc chuyên luận của thuốc đó."
    )
    if unreadable:
        return answer.result(Reason.QUARANTINED_EVIDENCE, join_messages(message, quarantine_message()))
    return answer.result(None, message)


_CLCR_CMP = re.compile(r"(?:clcr|thanh thải creatinin|thanh thai creatinin|lọc cầu thận|loc cau than|egfr|gfr)"
                       r"\s*(?:là|la|=|:|ở mức|o muc)?\s*(<|≤|dưới|duoi|nhỏ hơn|nho hon|thấp hơn|thap hon|>|≥|trên|tren|"
                       r"lớn hơn|lon hon|cao hơn|cao hon)?\s*\d", re.IGNORECASE)
_CLCR_BELOW = frozenset({"<", "≤", "dưới", "duoi", "nhỏ hơn", "nho hon", "thấp hơn", "thap hon"})


def _clcr_asked(frame: QueryFrame) -> tuple[float, float] | None:
    """The Clcr interval the question asks about: 'Clcr dưới 30' -> [0, 30), 'Clcr 25' -> [25, 25]."""
    if frame.clcr is None:
        return None
    m = _CLCR_CMP.search(frame.question or frame.condition or "")
    cmp = (m.group(1) or "").lower() if m else ""
    if cmp in _CLCR_BELOW:
        return (0.0, frame.clcr - 1e-6)
    if cmp:
        return (frame.clcr + 1e-6, 1e9)
    return (frame.clcr, frame.clcr)


def _contraindication_words(frame: QueryFrame) -> tuple[str, ...]:
    """The book's words for the group asked about, or the person's own words for a condition."""
    group = _group_of(frame)
    if group:
        return _GROUP_WORDS[group]
    condition = _PERSON_WORDS.sub("", (frame.condition or "").strip()).strip()
    return (condition,) if condition else ()


# "người suy thận", "bệnh nhân bị hen": the book's sentence names the condition, not always the person.
_PERSON_WORDS = re.compile(r"^(?:(?:cho|ở|với)\s+)?(?:người bệnh|bệnh nhân|người|nguoi benh|benh nhan|nguoi)?\s*(?:bị|bi)?\s+",
                           re.IGNORECASE)


def _group_of(frame: QueryFrame) -> str | None:
    if frame.pregnant or frame.population == "mang_thai":
        return "mang_thai"
    if frame.breastfeeding or frame.population == "cho_con_bu":
        return "cho_con_bu"
    said = fold(" ".join(filter(None, [frame.condition, frame.question])))
    for group, words in _GROUP_WORDS.items():
        if any(re.search(r"(?<![0-9a-z])" + re.escape(fold(w)) + r"(?![0-9a-z])", said) for w in words):
            return group
    if frame.population in _GROUP_WORDS:
        return frame.population
    return None


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
    if frame.population in ("tre_em", "so_sinh") or (age is not None and age < ADULT_YEARS):
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
