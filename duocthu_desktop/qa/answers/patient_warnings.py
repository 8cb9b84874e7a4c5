"""The patient's safety first: the sentences of a drug's Chống chỉ định, pregnancy and lactation sections and
Thận trọng that bear on the facts the person gave, shown before any dose.

A sentence bears on a fact when it names it in the book's general words ("suy thận", "mang thai", "trẻ em") and,
when it prints a threshold ("Clcr < 60 ml/phút", "trẻ em dưới 16 tuổi", "3 tháng cuối"), the threshold includes
this patient, compared as numbers. A threshold only stressed ("suy thận, đặc biệt ... dưới 30 ml/phút") does not
narrow the words before it. No rule names a drug.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.dosage.words import GRADE_WORDS, child_pugh_grades
from duocthu_desktop.qa.answers import warning_rules as rules
from duocthu_desktop.qa.answers.cited_answer import CitedAnswer, join_messages, renumbered, section_heading
from duocthu_desktop.qa.answers.comorbidities import Said, bears_on, split_items
from duocthu_desktop.qa.answers.engine_types import EngineAnswer
from duocthu_desktop.qa.answers.sentences import split_sentences
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.retrieval.types import SectionResult
from duocthu_desktop.text import fold

CONTRAINDICATIONS = "chong_chi_dinh"
PREGNANCY = "thoi_ky_mang_thai"
LACTATION = "thoi_ky_cho_con_bu"
CAUTIONS = "than_trong"
# read only for the medicines the patient already takes ("đang dùng aspirin" in a question of warfarin's dose)
INTERACTIONS = "tuong_tac_thuoc"
INDICATIONS = "chi_dinh"
# The dosage section is read only for what it says of a patient past a number it prints ("người ... cân nặng
# dưới 50 kg, ... liều đầu tiên thông thường còn thấp hơn"), never for its doses: they are the dose answer's
DOSING = "lieu_luong_cach_dung"
_DOSING_TOPICS = frozenset({"can_nang", "xet_nghiem"})
# "không nên dùng cho trẻ đẻ non và sơ sinh": the youngest ruled out, which no dose row of theirs says (not "không
# dùng ... cho người lớn và trẻ em để tự điều trị sốt cao": a limit of self-treatment)
_GROUP_LIMIT = re.compile(r"(?<!\w)(?:không nên|không được|không|tránh) dùng (?:\w+ )?cho (?:trẻ )?"
                          r"(?:đẻ non|sơ sinh|thiếu tháng|nhũ nhi|(?:em )?dưới \d+)(?!\w)")
_DOSE_AMOUNT = re.compile(r"\d\s*(?:mg|g|microgam|mcg|µg|ml|đơn vị|đvqt|ui|iu|giọt|viên|ống)(?!\w)", re.IGNORECASE)
# Read in this order and shown in this order: what the book forbids first.
SECTION_KEYS = (CONTRAINDICATIONS, INTERACTIONS, PREGNANCY, LACTATION, CAUTIONS)
MAX_WARNINGS = 6
CONTRAINDICATED_NOTE = ("Dược thư ghi chống chỉ định khớp với người bệnh này (xem phần Chống chỉ định ở trên), "
                        "nên liều thông thường không được hiển thị.")
PER_SECTION = {CONTRAINDICATIONS: 4, INTERACTIONS: 2, PREGNANCY: 3, LACTATION: 2, CAUTIONS: 2, DOSING: 1}
# Which patient topics each section is read for (the pregnancy section only for a pregnant patient, ...).
_SECTION_TOPICS = {
    PREGNANCY: ("mang_thai",),
    LACTATION: ("cho_con_bu",),
}

TOPIC_LABELS = {
    "mang_thai": "phụ nữ mang thai",
    "cho_con_bu": "phụ nữ cho con bú",
    "tre_em": "trẻ em",
    "nguoi_cao_tuoi": "người cao tuổi",
    "can_nang": "cân nặng của người bệnh",
    "suy_than": "suy thận",
    "suy_gan": "suy gan",
    "xet_nghiem": "xét nghiệm của người bệnh",
    "benh_kem": "bệnh kèm theo",
    "dang_dung": "thuốc đang dùng",
}
# A sentence that leans on the one before it ("Tình trạng này ...", "Do đó, ...") is shown with it.
_LEANS_BACK = re.compile(r"^(?:(?:\w+\s){1,2}này|do đó|vì vậy|vì thế|do vậy|bởi vậy)(?!\w)", re.IGNORECASE)


@dataclass(frozen=True)
class Warning:
    """One verbatim sentence that bears on this patient."""

    chunk: Chunk
    start: int
    end: int
    section_key: str
    topics: tuple[str, ...]
    strength: int  # 0 forbids, 1 tells to avoid or limit, 2 warns of harm, 3 anything else

    @property
    def text(self) -> str:
        return self.chunk.text[self.start : self.end]

    def title(self, drug: str | None = None) -> str:
        head = section_heading(self.section_key)
        if self.section_key not in _SECTION_TOPICS:
            head += " — " + ", ".join(TOPIC_LABELS[t] for t in self.topics)
        return f"{drug} — {head}" if drug else head


def warnings_for(frame: QueryFrame, sections: dict[str, SectionResult]) -> list[Warning]:
    """The sentences of `sections` (section_key -> section) that bear on this patient's facts, strongest first:
    Chống chỉ định, then pregnancy and lactation, then Thận trọng; at most MAX_WARNINGS. The drug's Chỉ định,
    when among `sections`, tells which of the conditions named are what the drug is given for."""
    indications = sections.get(INDICATIONS)
    patient = rules.Patient.of(frame, " ".join(c.text for c in indications.chunks) if indications else "")
    if not patient.any():
        return []
    out: list[Warning] = []
    for key in SECTION_KEYS:
        section = sections.get(key)
        if section is None:
            continue
        found = _section_warnings(key, section, patient)
        found.sort(key=lambda w: (w.strength if key != CONTRAINDICATIONS else 0))
        out += found[: PER_SECTION[key]]
    dosing = sections.get(DOSING)
    if dosing is not None:
        shown = {w.text for w in out}
        out += [w for w in _section_warnings(DOSING, dosing, patient) if w.text not in shown][: PER_SECTION[DOSING]]
    if indications is not None:
        # a Chỉ định that rules this patient's group out ("... không dùng để điều trị tăng huyết áp cho người cao
        # tuổi"): a limit the book prints where it says what the drug is for
        limits = [w for w in _section_warnings(INDICATIONS, indications, patient)
                  if w.strength == 0 and set(w.topics) - {"benh_kem"}]
        out += limits[:1]
    return _grouped(out[:MAX_WARNINGS])


def warning_answer(
    frame: QueryFrame, sections: dict[str, SectionResult], drug: str | None = None
) -> EngineAnswer | None:
    """The warnings as cited "warning" blocks (titles prefixed with `drug` when given), or None when none bear."""
    found = warnings_for(frame, sections)
    if not found:
        return None
    answer = CitedAnswer()
    for warning in found:
        answer.add(warning.title(drug), "warning", warning.chunk, warning.start, warning.end)
    return answer.result(None).model_copy(update={
        "warns_against": any(w.strength <= 1 or w.section_key == CONTRAINDICATIONS for w in found),
        # "Suy gan nặng." for a patient said only to have "suy gan": shown first, but the usual dose is not hidden
        "contraindicated": any(w.section_key == CONTRAINDICATIONS and not _graver_than_said(w, frame)
                               and _unconditional(w) and not _group_qualified(w) and not _age_unknown(w, frame)
                               for w in found)
                           or any(_forbids_in_pregnancy(w) for w in found),
    })


# a pregnancy sentence that holds only for a part of pregnancy or leaves room ("3 tháng đầu", "trừ khi thật cần thiết")
_PART_OR_UNLESS = re.compile(r"(?<!\w)(?:3 tháng|ba tháng|tam cá nguyệt|quý|trừ khi|trừ trường hợp|chỉ dùng|cân nhắc|"
                             r"lợi ích|nếu|tuần|thường|nói chung)(?!\w)")


def _forbids_in_pregnancy(w: Warning) -> bool:
    """The pregnancy section forbids the drug in pregnancy outright ("Vì vậy, không được dùng ... trong thời kỳ mang
    thai."), read for a pregnant patient: as a contraindication, its usual doses are not shown as if they applied."""
    return (w.section_key == PREGNANCY and w.strength == 0 and "mang_thai" in w.topics
            and not _PART_OR_UNLESS.search(w.text.lower()) and _unconditional(w))


def _unconditional(w: Warning) -> bool:
    """The sentence forbids the drug itself: not only beside something else, under a condition, or with leave."""
    text = w.text.lower()
    return not _CONDITIONAL.search(text) and not _ALLOWS.search(text)


# "Dùng đồng thời với chế phẩm chứa calci ở trẻ em": forbidden with something else, not the drug for this patient
_CONDITIONAL = re.compile(r"(?<!\w)(?:dùng đồng thời|phối hợp|dùng cùng|dùng chung|kết hợp|nếu|khi đang dùng)(?!\w)")
_SEVERITY = re.compile(r"(?<!\w)(?:(?<!cân )nặng|vừa|nghiêm trọng|mất bù|giai đoạn cuối|tiến triển|cấp tính)(?!\w)")


# "Trẻ trên 12 tuổi, nếu cần, có thể dùng liều như liều người lớn." printed among the contraindications allows
_ALLOWS = re.compile(r"(?<!\w)(?:có thể|được phép) (?:dùng|sử dụng|cho)(?!\w)")
# "trẻ em (dưới 18 tuổi) thực hiện cắt amiđan", "trẻ em có vấn đề về thở": the group with a condition of its own
_GROUP_THEN_CONDITION = re.compile(
    r"(?<!\w)(?:trẻ|trẻ em|thiếu niên|người cao tuổi|người già|sơ sinh)(?:\s*\([^)]*\))?"
    r"(?:\s+(?:dưới|trên|từ|≤|≥|<|>)?\s*\d+(?:,\d+)?\s*(?:tuổi|tháng|tuần|ngày))?"
    r"\s+(?:có|bị|mắc|đang|thực hiện|sau|được)\s+(?!cân nặng|tuổi|thể trọng)\w+"
)
_GROUP_TOPICS = frozenset({"tre_em", "nguoi_cao_tuoi"})


# "trẻ dưới 30 tháng tuổi", "trẻ em dưới 12 tuổi": a contraindication bounded by an age
_AGE_BOUND = re.compile(r"(?<!\w)(?:(?:dưới|trên|từ|≤|≥|<|>)\s*\d+(?:,\d+)?\s*(?:tháng|tuần|ngày|tuổi|năm)"
                        r"|sơ sinh|đẻ non|thiếu tháng|nhũ nhi)(?!\w)")


def _age_unknown(warning: Warning, frame: QueryFrame) -> bool:
    """A contraindication for the patient's group within an age bound or for its youngest ("không dùng cho trẻ dưới
    30 tháng tuổi", "trẻ sơ sinh") for a child whose age the question does not give: shown first, but the dose is not
    hidden as if it were theirs."""
    return (set(warning.topics) <= _GROUP_TOPICS | {"can_nang"} and frame.age_years is None
            and frame.population != "so_sinh" and bool(_AGE_BOUND.search(warning.text.lower())))


def _group_qualified(warning: Warning) -> bool:
    """A contraindication for the patient's group only under a condition the person did not say ("trẻ em có
    vấn đề về thở") is shown first, but does not hide the dose: the patient may not have that condition."""
    return set(warning.topics) <= _GROUP_TOPICS and bool(_GROUP_THEN_CONDITION.search(warning.text.lower()))


def _graver_than_said(warning: Warning, frame: QueryFrame) -> bool:
    """The items of the sentence that are this patient's name a severity ("nặng", "mất bù") the question does
    not: it may not be this patient. Only those items count: in "Nhược cơ, suy hô hấp nặng." the "nặng" is the
    breathing's, not the myasthenia's a patient says they have."""
    said = Said.of(frame.question, list(frame.drug_mentions.values()))
    topic_words = [p for t in warning.topics if (p := _TOPIC_WORDS.get(t)) is not None]
    items: list[str] = []
    for item in (i for i in split_items(warning.text) if i and i.strip()):
        if items and not _SEVERITY.sub("", item.lower()).strip(" .;,"):
            items[-1] += " " + item  # "vừa và nặng": the severities of one item
        else:
            items.append(item)
    mine = [i for i in items if any(p.search(i.lower()) for p in topic_words) or (said.any() and bears_on(i, said))]
    return all(_severity_unsaid(item, frame.question) for item in (mine or [warning.text]))


# "nặng 60 kg" is a weight, not a severity the person says
_WEIGHT_SAID = re.compile(r"(?<!\w)(?:nặng|nang|cân nặng|can nang)\s*\d+(?:[,.]\d+)?\s*(?:kg|kí|ký|ki|cân)?(?!\w)")


def _severity_unsaid(text: str, question: str) -> bool:
    said = _WEIGHT_SAID.sub(" ", question.lower())
    # the severity a liver grade names ("Child-Pugh B" is a moderate impairment)
    said += "".join(f" {GRADE_WORDS[grade]}" for grade in sorted(child_pugh_grades(said)))
    # "vừa và nặng": the patient is in it when either is said
    named = [m.group(0) for m in _SEVERITY.finditer(text.lower())]
    return bool(named) and all(w not in said and fold(w) not in fold(said) for w in named)


_TOPIC_WORDS = {"can_nang": re.compile(r"\d\s*kg(?!\w)"), "suy_than": rules.RENAL_WORDS, "suy_gan": rules.HEPATIC_WORDS, "tre_em": rules.CHILD_WORDS,
                "nguoi_cao_tuoi": rules.ELDERLY_WORDS, "mang_thai": rules.PREGNANCY_WORDS}


def _section_warnings(key: str, section: SectionResult, patient: rules.Patient) -> list[Warning]:
    wanted = _SECTION_TOPICS.get(key)
    if wanted is not None and not any(patient.has(t) for t in wanted):
        return []
    if key == INTERACTIONS and not patient.has("dang_dung"):
        return []
    out: list[Warning] = []
    for chunk in section.chunks:
        if chunk.quarantined:
            continue  # a table or text read unreliably is never quoted as a warning
        sentences = split_sentences(chunk.text)
        for i, (start, end) in enumerate(sentences):
            sentence = chunk.text[start:end]
            topics = rules.topics_of(sentence, patient, own_section=wanted, contraindication=key == CONTRAINDICATIONS)
            if key == INTERACTIONS:
                topics = tuple(t for t in topics if t == "dang_dung")
            if key == DOSING:
                # a weight or lab band; and a group's limit the dosage section prints ("..., nhưng không nên dùng
                # cho trẻ đẻ non và sơ sinh"), which no dose row of that group says
                limit = bool(_GROUP_LIMIT.search(sentence.lower()))
                topics = tuple(t for t in topics if t in _DOSING_TOPICS or (limit and t in _GROUP_TOPICS))
                if _DOSE_AMOUNT.search(sentence) or sentence.rstrip().endswith(":"):
                    continue  # a dose the patient's band prints, or its label, is the dose answer's to show
                if _other_group(sentence, patient):
                    continue  # "Liều thông thường ở người cao tuổi: Giống như đối với người < 50 kg" for an adult
            if not topics:
                continue
            strength = rules.strength(sentence)
            if i + 1 < len(sentences):
                n_start, n_end = sentences[i + 1]
                following = chunk.text[n_start:n_end]
                if _LEANS_BACK.match(following) and _same_paragraph(chunk.text, end, n_start):
                    # "... có thể gây suy thận. Do đó phải ngừng ... 48 giờ sau": what to do comes with it
                    end, strength = n_end, min(strength, rules.strength(following))
            if topics == ("benh_kem",) and key == CAUTIONS and strength > 2:
                continue  # a caution that only names the condition, without a harm, a limit or a step to take
            if i > 0 and _LEANS_BACK.match(sentence) and _same_paragraph(chunk.text, sentences[i - 1][1], start):
                start = sentences[i - 1][0]
            out.append(Warning(chunk, start, end, key, topics, strength))
    # a sentence shown with the one it leans on is not shown again on its own
    return [w for w in out if not any(o is not w and _inside(w, o) for o in out)]


def _other_group(sentence: str, patient: rules.Patient) -> bool:
    """A dosage sentence labelled for a group (the elderly, children) this patient is not known to be in: the
    label before its colon names it ("Liều thông thường ở người cao tuổi: ..."). A group listed among others
    ("(cân nặng dưới 50 kg, cao tuổi, suy gan)") is one of several ways in, not the sentence's own group."""
    head, colon, _ = sentence.partition(":")
    if not colon:
        return False
    low = head.lower()
    if rules.ELDERLY_WORDS.search(low) and not patient.elderly:
        return True
    return bool(rules.CHILD_WORDS.search(low)) and not patient.child


def _inside(inner: Warning, outer: Warning) -> bool:
    return (
        inner.chunk.chunk_id == outer.chunk.chunk_id
        and outer.start <= inner.start
        and inner.end <= outer.end
        and (outer.start, outer.end) != (inner.start, inner.end)
    )


def _same_paragraph(text: str, prev_end: int, start: int) -> bool:
    return "\n" not in text[prev_end:start]


def _grouped(found: list[Warning]) -> list[Warning]:
    """Within a section, warnings with the same title side by side (one block each), in the order found."""
    out: list[Warning] = []
    for key in (*SECTION_KEYS, DOSING, INDICATIONS):
        titles: list[str] = []
        in_section = [w for w in found if w.section_key == key]
        for w in in_section:
            if w.title() not in titles:
                titles.append(w.title())
        for title in titles:
            out += [w for w in in_section if w.title() == title]
    return out


def warn_first(warnings: EngineAnswer, answer: EngineAnswer) -> EngineAnswer:
    """`warnings`' blocks before `answer`'s, whatever the answer is (a dose, a clarify, a quarantine notice): its
    decision, reason, message and quick replies are kept, its citations renumbered after the warnings'. A claim
    the warnings already show is not shown twice."""
    shown = frozenset(claim.text for block in warnings.blocks for claim in block.claims)
    message = answer.message
    if warnings.contraindicated and not answer.for_this_patient and any(b.kind == "dosage" for b in answer.blocks):
        # the book contraindicates the drug for this patient: its usual doses are not shown as if they applied
        kept = [b for b in answer.blocks if b.kind != "dosage"]
        used = {n for b in kept for c in b.claims for n in c.citations}
        answer = answer.model_copy(update={
            "blocks": kept, "citations": [c for c in answer.citations if c.index in used],
            "decision": "answerable" if answer.decision == "verify_pdf" else answer.decision,
            "reason": None if answer.decision == "verify_pdf" else answer.reason,
        })
        message = join_messages(CONTRAINDICATED_NOTE, answer.message)
    elif warnings.contraindicated and answer.decision == "abstain" and not answer.blocks:
        message = CONTRAINDICATED_NOTE  # not "check the patient's facts": the book has said why, above
    blocks, citations = renumbered(answer, len(warnings.citations), skip=shown)
    blocks = list(warnings.blocks) + blocks
    citations = list(warnings.citations) + citations
    update = {"blocks": blocks, "citations": citations, "message": message,
              "warns_against": answer.warns_against or warnings.warns_against,
              "contraindicated": answer.contraindicated or warnings.contraindicated}
    if warnings.warns_against and (answer.decision == "clarify" or not answer.blocks):
        # What the book says against this patient is the answer; the dose waits for the fact asked (or is absent)
        update |= {"decision": "answerable", "reason": None}
    return answer.model_copy(update=update)

