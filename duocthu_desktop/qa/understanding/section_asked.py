"""The section router: the Vietnamese words people use for each section of a monograph.

Phrases are tried most specific first (a list of (phrase, key) per tier), so "quá liều" wins over "liều",
"chống chỉ định" over "chỉ định", "tác dụng phụ" over "tác dụng". Within a tier the phrase earliest in the
question wins. Population words ("mang thai", "cho con bú") only choose their section when nothing else does,
so "liều metformin cho phụ nữ mang thai" is a dosing question for a pregnant woman.
"""

from __future__ import annotations

from dataclasses import dataclass

from duocthu_desktop.qa.understanding.lexicon import (
    CAN_USE_PHRASES,
    DOSING,
    INTERACTION,
    POPULATION_PHRASES,
    PREGNANCY_SECTION_EXTRA,
    SECTION_PHRASES,
    WHOLE_SECTION_PHRASES,
)
from duocthu_desktop.qa.understanding.textmatch import Text, any_of, first_of

__all__ = ["DOSING", "INTERACTION", "WHOLE_SECTION_PHRASES", "SectionAsk", "mentions_interaction", "route_section"]

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
        return SectionAsk(dict(_POPULATION_SECTIONS)[pop[0]], pop[0], whole)
    can = first_of(text, _CAN_USE)
    if can is not None:
        return SectionAsk("chong_chi_dinh", can[0], whole)
    return SectionAsk(None, None, whole)


def _first_specific(text: Text) -> str | None:
    """The most specific phrase: the list order is the priority; the first phrase found wins."""
    for phrase in _TIER_PHRASES:
        if first_of(text, (phrase,)) is not None:
            return phrase
    return None


def mentions_interaction(text: Text) -> bool:
    return any_of(text, [p for p, k in _SPECIFIC if k == INTERACTION])
