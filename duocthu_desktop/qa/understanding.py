"""Deterministic understanding: a question's words -> a QueryFrame, before any retrieval.

The catalog finds the drugs, the router the section, the extractors the patient facts, the scope guard the
questions the app must not answer. No model is involved, so the same words always give the same frame.
"""

from __future__ import annotations

import re

from duocthu_desktop.qa import extractors, scope
from duocthu_desktop.qa.catalog import Catalog
from duocthu_desktop.qa.frame import QueryFrame
from duocthu_desktop.qa.router import DOSING, INTERACTION, mentions_interaction, route_section
from duocthu_desktop.qa.textmatch import Text, any_of, first_of

# "Which drugs ...": the person names a condition, not a drug.
WHICH_DRUG_PHRASES: tuple[str, ...] = (
    "thuốc nào", "thuốc gì", "những thuốc", "các thuốc", "loại thuốc nào", "nhóm thuốc nào", "dùng gì",
    "uống gì", "nên dùng gì", "thuốc nào được", "có thuốc nào", "kể tên thuốc", "liệt kê thuốc",
    "thuốc chữa", "thuốc trị", "thuốc điều trị",
)
# "... causes X": a reverse relation the book is not organised to answer completely.
CAUSE_PHRASES: tuple[str, ...] = (
    "gây", "gây ra", "có thể gây", "làm tăng nguy cơ", "dẫn đến", "dẫn tới", "làm xuất hiện", "gây nên",
    "có tác dụng phụ", "có tác dụng không mong muốn", "là nguyên nhân", "làm tăng", "gây hại",
)
_JOINERS: tuple[str, ...] = ("và", "với", "cùng", "cùng với", "+", "chung với")
# Words around "thuốc nào" that are not the condition ("Tăng huyết áp dùng thuốc gì?", "Thuốc nào tốt cho gan?").
_CONDITION_FILLER = re.compile(
    r"^(?:(?:bị|bi|nên|nen|dùng|dung|uống|uong|được|duoc|chỉ định|chi dinh|tốt|tot|dành|danh|cho|để|de|trị|tri|"
    r"điều trị|dieu tri|chữa|chua|người|nguoi|bệnh nhân|benh nhan|tôi|toi|thì|thi|là|la|có|co|hiệu quả|hieu qua)\s+)+"
)
_CONDITION_TAIL = re.compile(r"(?:\s+(?:thì|thi|nên|nen|dùng|dung|uống|uong|là|la|có|co|gì|gi|nào|nao|không|khong))+$")


def understand(text: str, catalog: Catalog) -> QueryFrame:
    """The frame of one question, on its own (the conversation's earlier turns are merged by memory)."""
    raw_text = Text.of(text)
    clean = Text.of(scope.strip_injection(text))
    interaction_cue = mentions_interaction(clean)
    resolution = catalog.resolve(clean.raw)
    drug_ids = resolution.drug_ids
    mentions: dict[str, str] = {}
    for match in resolution.matches:
        mentions.setdefault(match.drug_id, match.said)

    ask = route_section(clean)
    age = extractors.extract_age(clean)
    weight = extractors.extract_weight(clean)
    condition = extractors.extract_condition(clean)
    population = extractors.extract_population(clean, age)

    frame = QueryFrame(
        question=text.strip(),
        drug_ids=drug_ids,
        drug_mentions=mentions,
        unknown_drugs=_dedupe(resolution.unknown),
        drug_classes=_dedupe(resolution.classes),
        section_key=ask.key,
        whole_section=ask.whole_section,
        population=population,
        age_years=age.years if age else None,
        age_text=age.text if age else None,
        gestational_weeks=age.gestational_weeks if age else None,
        weight_kg=weight[0] if weight else None,
        weight_text=weight[1] if weight else None,
        route=extractors.extract_route(clean),
        clcr=extractors.extract_clcr(clean),
        condition=condition,
        pregnant=extractors.is_pregnant(clean),
        breastfeeding=extractors.is_breastfeeding(clean),
        non_human=scope.is_non_human(clean),
        non_medical=not drug_ids and scope.is_non_medical(clean),
        injection_attempt=scope.is_injection_attempt(raw_text),
    )
    frame.turn_type = _turn_type(frame, clean, interaction_cue)
    if frame.turn_type == "condition_to_drug" and not frame.condition:
        frame.condition = _condition_around_which(clean)
    if frame.turn_type == "interaction":
        frame.section_key = INTERACTION
    return frame


def _turn_type(frame: QueryFrame, text: Text, interaction_cue: bool) -> str:
    if frame.non_human or frame.non_medical:
        return "out_of_scope"
    if not frame.drug_ids:
        which = any_of(text, WHICH_DRUG_PHRASES)
        if which and any_of(text, CAUSE_PHRASES):
            return "condition_relation"
        if which or (frame.section_key == "chi_dinh" and frame.condition):
            return "condition_to_drug"
        if scope.is_smalltalk(text) and frame.section_key is None:
            return "smalltalk"
    partners = len(frame.drug_ids) + len(frame.unknown_drugs) + len(frame.drug_classes)
    if frame.drug_ids and partners >= 2:
        if interaction_cue or (frame.section_key is None and len(frame.drug_ids) >= 2 and any_of(text, _JOINERS)):
            return "interaction"
    if frame.section_key is None and frame.drug_ids and _has_dosing_facts(frame):
        # "Vancomycin truyền tĩnh mạch cho trẻ 6 tuổi nặng 20 kg?": a route, an age, a weight or a Clcr with a
        # drug and no section named asks how much to give.
        frame.section_key = DOSING
    if frame.section_key == DOSING:
        return "dosing"
    if frame.section_key is not None:
        return "drug_attribute"
    return "unknown"


def _has_dosing_facts(frame: QueryFrame) -> bool:
    return (
        frame.route is not None
        or frame.age_years is not None
        or frame.weight_kg is not None
        or frame.clcr is not None
        or frame.gestational_weeks is not None
    )


def _condition_around_which(text: Text) -> str | None:
    """The condition of 'Tăng huyết áp dùng thuốc gì?' / 'Thuốc nào tốt cho gan?' (no trigger word before it)."""
    hit = first_of(text, WHICH_DRUG_PHRASES)
    if hit is None:
        return None
    _, m = hit
    for part in (text.norm[: m.start()], text.norm[m.end() :]):
        part = re.sub(r"[?!.,;:]", " ", part).strip()
        part = _CONDITION_TAIL.sub("", _CONDITION_FILLER.sub("", part + " ").strip()).strip()
        if len(part) >= 2:
            return part
    return None


def _dedupe(items: list[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        if item.lower() not in (o.lower() for o in out):
            out.append(item)
    return out
