"""The section router: the Vietnamese words people use for each section of a monograph.

Phrases are tried most specific first (a list of (phrase, key) per tier), so "quá liều" wins over "liều",
"chống chỉ định" over "chỉ định", "tác dụng phụ" over "tác dụng". Within a tier the phrase earliest in the
question wins. Population words ("mang thai", "cho con bú") only choose their section when nothing else does,
so "liều metformin cho phụ nữ mang thai" is a dosing question for a pregnant woman.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from duocthu_desktop.qa.understanding.lexicon import (
    CAN_USE_PHRASES,
    CONTRAINDICATIONS,
    DOSING,
    GIVING_ACCENTED,
    GIVING_PHRASES,
    HOW_TO_PHRASES,
    INSTRUCTION_TOPICS,
    INTERACTION,
    MISSED_DOSE_PHRASES,
    POPULATION_PHRASES,
    PREGNANCY_SECTION_EXTRA,
    QUESTION_CUES,
    ROUTE_PHRASES,
    SECTION_PHRASES,
    STOPPING_ACCENTED,
    STOPPING_PHRASES,
    WHOLE_SECTION_PHRASES,
    expand_abbreviations,
)
from duocthu_desktop.qa.understanding.textmatch import Text, any_of, find, first_of
from duocthu_desktop.text import fold

__all__ = ["DOSING", "INTERACTION", "WHOLE_SECTION_PHRASES", "SectionAsk", "SentenceAsk", "mentions_interaction",
           "route_section", "sentence_ask", "without_names"]

# Most specific first: the list order is the priority.
_SPECIFIC = SECTION_PHRASES

# Chosen only when nothing above matched: the person named a group, not a section.
# The wordings are the population extractor's own, so a pregnancy word the extractor knows also picks the section.
_POPULATION_SECTIONS: tuple[tuple[str, str], ...] = (
    *((p, "thoi_ky_mang_thai") for p, k in POPULATION_PHRASES if k == "mang_thai"),
    *((p, "thoi_ky_mang_thai") for p in PREGNANCY_SECTION_EXTRA),
    *((p, "thoi_ky_cho_con_bu") for p, k in POPULATION_PHRASES if k == "cho_con_bu"),
)

_CAN_USE = CAN_USE_PHRASES

# Section phrases that also appear as a pregnancy/lactation heading word are resolved by _SPECIFIC first.
_TIER_PHRASES = [p for p, _ in _SPECIFIC]
_TIER_KEYS = dict(_SPECIFIC)


@dataclass(frozen=True)
class SectionAsk:
    key: str | None
    phrase: str | None
    whole_section: bool


def route_section(text: Text) -> SectionAsk:
    """The section a question asks for, the phrase that chose it, and whether the whole section was asked."""
    whole = any_of(text, WHOLE_SECTION_PHRASES)
    hit = _first_specific(text)
    if hit is not None:
        return SectionAsk(_TIER_KEYS[hit], hit, whole)
    pop = first_of(text, [p for p, _ in _POPULATION_SECTIONS])
    if pop is not None:
        if asks_amount(text):
            # "thai phụ ... tiêm TM bao nhiêu?": an amount for this group is the dose (its warnings come first)
            return SectionAsk(DOSING, pop[0], whole)
        return SectionAsk(dict(_POPULATION_SECTIONS)[pop[0]], pop[0], whole)
    can = first_of(text, _CAN_USE)
    if can is not None:
        return SectionAsk("chong_chi_dinh", can[0], whole)
    cue = _first_cue(text)
    if cue is not None:
        return SectionAsk(dict(QUESTION_CUES)[cue], cue, whole)
    return SectionAsk(None, None, whole)


def _first_cue(text: Text) -> str | None:
    """The first question cue of QUESTION_CUES the question holds (the list order is the priority)."""
    for phrase, _ in QUESTION_CUES:
        if first_of(text, (phrase,)) is not None:
            return phrase
    return None


def _first_specific(text: Text) -> str | None:
    """The most specific phrase: the list order is the priority; the first phrase found wins."""
    for phrase in _TIER_PHRASES:
        if first_of(text, (phrase,)) is not None:
            return phrase
    return None


def without_names(raw: str, said: list[str]) -> str:
    """The question with each drug name as typed left out, so the words around it stand together ("dùng
    warfarin thế nào" asks "dùng thế nào")."""
    for mention in sorted(said, key=len, reverse=True):
        if mention.strip():
            raw = re.sub(rf"(?<!\w){re.escape(mention.strip())}(?!\w)", " ", raw, flags=re.IGNORECASE)
    return " ".join(raw.split())


def mentions_interaction(text: Text) -> bool:
    return any_of(text, [p for p, k in _SPECIFIC if k == INTERACTION])


# ---- questions a sentence answers -----------------------------------------------------------------------------

# Sections whose name in a question says where to look, not what to list: their sentences are weighed up.
WEIGHED_SECTIONS = frozenset({
    "qua_lieu_xu_tri", "do_on_dinh_bao_quan", "thoi_ky_mang_thai", "thoi_ky_cho_con_bu", "tuong_ky",
})
# Sections a lab value's band is asked of: what to do at that value ("xử trí", "chỉnh liều") or no section named.
LAB_BAND_SECTIONS = frozenset({"qua_lieu_xu_tri", "xu_tri_adr", DOSING, None})
_CONTRA_PHRASES = tuple(p for p, k in _SPECIFIC if k == CONTRAINDICATIONS)
_AMOUNT = re.compile(r"(?<![a-z])(?:lieu|bao nhieu|may (?:vien|lan|ong|goi|giot)|mg|ml|mcg|microgam|g/ngay)(?![a-z])")
# Words that only carry the asking; with the section words (answers.sentences) they are no content.
ASKING_WORDS = frozenset(
    """
    la gi bao nhieu nhu the nao co khong duoc dung cua cho va voi bang trong khi thi nay do cac nhung mot
    nguoi benh thuoc lieu xu tri qua tac mong muon chong chi dinh than trong thoi ky mang thai
    con bu quan tuong tac on dinh huong dan cach ra sao nao hay hoi toi muon biet xin vui long
    phu nu dang phai nen can vay ve theo sau truoc tu den hoac cung tren duoi lam gay ma adr duong
    neu minh em anh chi ban oi a nhe roi sao su nhan ke ca luon bn
    """.split()
)
_WORD = re.compile(r"[^\W_]+(?:-[^\W_]+)*")
# The words of "dùng chung / uống cùng / phối hợp với thuốc khác": they name togetherness, not a partner.
_TOGETHER_WORDS = frozenset("chung cung kem dong thoi phoi hop ket khac uong".split())
_INTERACTION_WORDS = frozenset("tuong tac boi tiem".split())  # "tương tác", and how it is given with the other


@dataclass(frozen=True)
class SentenceAsk:
    """A question about one drug that its sentences answer: a route ("tiêm bắp được không?"), how it is taken
    ("cách dùng"), or any other focused question; `section` is a section it names, to weigh up."""

    kind: Literal["route", "how_to", "focused", "lab"]
    section: str | None = None


def content_words(question: str, names: list[str]) -> list[str]:
    """The folded words of a question that say what it is about (no asking words, numbers or drug names)."""
    dropped = {fold(w) for name in names for w in _WORD.findall(name)}
    out = []
    for word in _WORD.findall(unicodedata.normalize("NFC", question)):
        folded = fold(word)
        if len(folded) >= 2 and not folded.isdigit() and folded not in ASKING_WORDS and folded not in dropped:
            out.append(folded)
    return out


def _route_words(text: Text, route: str | None) -> set[str]:
    """The folded words the question used to name its route ("tiêm bắp", "đường uống")."""
    out: set[str] = set()
    if route is None:
        return out
    for phrase, key in ROUTE_PHRASES:
        if key in (route, "tiem") and find(text, phrase):
            out.update(fold(w) for w in _WORD.findall(phrase))
    return out


# Sections about the product, not the patient: a "condition" read from such a question ("để ở nhiệt độ phòng
# bền ...") is a word of the question, not an illness of someone.
PRODUCT_SECTIONS = frozenset({"do_on_dinh_bao_quan", "tuong_ky"})


def _patient_condition(frame) -> bool:
    """A condition the question names for a patient: not in a question about the product, and not a section's
    own word ("điều trị giải độc thế nào" names the overdose section's treatment, not an illness)."""
    if not frame.condition or frame.section_key in PRODUCT_SECTIONS:
        return False
    return route_section(Text.of(frame.condition)).key is None


def _gives(text: Text) -> bool:
    """The question speaks of how the drug is given or taken ("uống lúc đói", "tưới vào ổ áp xe")."""
    return any_of(text, GIVING_PHRASES) or (text.accented and any_of(text, GIVING_ACCENTED))


def _stops(text: Text) -> bool:
    """The question speaks of stopping the drug ("ngừng thuốc", "dừng"; "dung" typed bare is "dùng")."""
    return any_of(text, STOPPING_PHRASES) or (text.accented and any_of(text, STOPPING_ACCENTED))


def _other_facts(frame, labs: bool = True) -> bool:
    """Facts of a patient: the dose, contraindication and warning paths are built for them (a pregnancy or a
    child is first a matter of what the book forbids or warns for that patient); `labs`: lab values count."""
    return bool(
        frame.population is not None or frame.age_years is not None or frame.weight_kg is not None
        or frame.clcr is not None or frame.gestational_weeks is not None or frame.renal_impairment
        or frame.hepatic_impairment or _patient_condition(frame)
        or (labs and getattr(frame, "lab_values", None)) or frame.pregnant
        or frame.breastfeeding or frame.trimester is not None
    )


# "nồng độ tối đa bao nhiêu", "tốc độ truyền bao nhiêu": how it is made up or run, not an amount to give
_NOT_AN_AMOUNT = re.compile(r"(?<![a-z])(?:nong do|toc do)(?:\s+[a-z]+){0,3}?\s+bao nhieu(?![a-z])")


def asks_amount(text: Text) -> bool:
    """"liều bao nhiêu", "tối đa 1 ngày bao nhiêu mg": an amount to give is asked."""
    return bool(_AMOUNT.search(_NOT_AN_AMOUNT.sub(" ", text.folded)))


_HOW_LONG = re.compile(r"(?<![a-z])(?:bao lau|bao nhieu (?:ngay|tuan|thang)|may (?:ngay|tuan|thang))(?![a-z])")


def _asks_how_long(frame, text: Text) -> bool:
    """"Điều trị bằng X thường kéo dài bao lâu?": a duration, no amount, for no patient in particular (what the
    drug treats is the reason for the question, not a fact of a patient)."""
    if not _HOW_LONG.search(text.folded) or asks_amount(text) or frame.section_key not in (DOSING, None):
        return False
    return not (frame.population is not None or frame.age_years is not None or frame.weight_kg is not None
                or frame.clcr is not None or frame.renal_impairment or frame.hepatic_impairment or frame.pregnant
                or frame.breastfeeding or getattr(frame, "lab_values", None))


# A question of how much of one form is how much of another: answered by the sentence that converts them.
EQUIVALENCE_PHRASES = ("tương đương", "quy đổi", "quy ra", "tương ứng với")


def sentence_ask(frame) -> SentenceAsk | None:
    """Whether the question is one the drug's sentences answer (not a dose, a contraindication, an indication
    list or an interaction), and how; None leaves it to the section paths."""
    if not frame.drug_ids or frame.drug_classes:
        return None
    if frame.turn_type not in ("drug_attribute", "dosing", "unknown"):
        return None
    key = frame.section_key
    if frame.unknown_drugs and key not in WEIGHED_SECTIONS:
        return None  # a name the book lacks, in a section a sentence answers ("chai Ringer lactat"), is context
    text = Text.of(expand_abbreviations(without_names(frame.question, list(frame.drug_mentions.values()))))
    if _asks_how_long(frame, text):
        return SentenceAsk("focused", key if key in WEIGHED_SECTIONS else DOSING)
    if getattr(frame, "lab_values", None) and not _other_facts(frame, labs=False) and key in LAB_BAND_SECTIONS \
            and not (key == DOSING and _AMOUNT.search(text.folded)):
        # "INR 6,5, không chảy máu, xử trí thế nào?": the sentence whose printed band holds the patient's value
        return SentenceAsk("lab", key)
    if _other_facts(frame):
        return None
    if key == DOSING and frame.population is None and any_of(text, MISSED_DOSE_PHRASES):
        return SentenceAsk("focused", DOSING)  # "Quên một liều thì phải làm sao?": no amount is asked
    if key == DOSING and any_of(text, EQUIVALENCE_PHRASES):
        # "viên X oxalat 12,8 mg tương đương bao nhiêu mg X?": the book's sentence of equivalence, not a dose
        return SentenceAsk("focused", DOSING)
    if key == DOSING and (asks_amount(text) or frame.population is not None):
        return None  # an amount, or a group to dose: the dose rows
    if key == DOSING and frame.route in (None, "uong") and any_of(text, HOW_TO_PHRASES):
        return SentenceAsk("how_to", DOSING)
    if key == DOSING and any(any_of(text, list(asks)) for asks, _ in INSTRUCTION_TOPICS):
        return None  # "uống lúc nào, trước hay sau ăn?": the statements that print the topic (dosage.fit)
    content = content_words(frame.question, list(frame.drug_mentions.values()))
    if not content:
        return None
    only_route = frame.route is not None and set(content) <= _route_words(text, frame.route)
    if key == DOSING:
        # "uống trước hay sau bữa ăn?", "tiêm tĩnh mạch với tốc độ nào?": how it is given, beyond the route
        if only_route or any_of(text, HOW_TO_PHRASES):
            return None
        return SentenceAsk("focused", DOSING)
    if key == INTERACTION and len(frame.drug_ids) == 1:
        # "uống cùng bữa ăn", "dùng kèm sữa": no other drug named, so what it is taken with (a bare "dùng chung
        # với thuốc khác" is the interaction section)
        if set(content) <= _TOGETHER_WORDS | _INTERACTION_WORDS:
            return None  # "bôi chung với thuốc khác có tương tác gì không?": no partner, the section as such
        return SentenceAsk("focused", INTERACTION)
    if key is None:
        return SentenceAsk("focused")
    if key == CONTRAINDICATIONS:
        # "có tiêm bắp được không?": a can-I question, not the contraindications, unless it names them
        # (a section no phrase chose was the contraindications by default, for a patient's condition: none here)
        if any_of(text, _CONTRA_PHRASES) or not (only_route or frame.route or _gives(text) or _stops(text)):
            return None  # "có dùng aspirin giảm đau được không?" is whether it may be used: the contraindications
        # "bn loét ở mặt bôi X được không?": the patient's case beside the route; what the book forbids is
        # weighed first, then every section
        return SentenceAsk("route") if only_route else SentenceAsk("focused", CONTRAINDICATIONS)
    if key in WEIGHED_SECTIONS:
        return SentenceAsk("focused", key)
    return None
