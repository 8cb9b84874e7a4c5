"""The routing table: what to do with a QueryFrame, first matching row wins (issue 4, in that order).

Rows that depend on the book (does this drug's dosage section give separate doses for children?) ask a
`DosingFacts`, so the table stays a pure function of the frame and those facts and is testable without an index.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from duocthu_desktop.messages import message_for
from duocthu_desktop.payload import Reason
from duocthu_desktop.qa.frame import QueryFrame
from duocthu_desktop.text import fold

Action = Literal["abstain", "clarify", "greet", "single", "interaction", "condition"]

CHILD_POPULATIONS = frozenset({"tre_em", "so_sinh"})

# Conditions too broad to pick indications from: the person is asked which one they mean.
AMBIGUOUS_CONDITIONS: frozenset[str] = frozenset(
    fold(c)
    for c in (
        "đau", "bệnh", "viêm", "nhiễm", "nhiễm trùng", "nhiễm khuẩn", "ung thư", "rối loạn", "suy", "khó chịu",
        "mệt", "mệt mỏi", "ốm", "bệnh tim", "bệnh gan", "bệnh thận", "tim", "gan", "thận", "phổi", "dạ dày",
    )
)


class DosingFacts(Protocol):
    """What the book's dosage section of one drug says about groups (answered from the index)."""

    def has_child_doses(self, drug_id: str) -> bool:
        """The section states a dose for children or neonates (not just 'not established in children')."""
        ...


@dataclass
class Route:
    rule: str  # the table row that matched
    action: Action
    reason: Reason | None = None
    message: str = ""
    quick_replies: list[str] = field(default_factory=list)


Row = tuple[str, Callable[[QueryFrame, DosingFacts], bool], Callable[[QueryFrame], Route]]


def _dosing_known_drug(frame: QueryFrame) -> bool:
    return frame.turn_type == "dosing" and len(frame.drug_ids) == 1


def _needs_population(frame: QueryFrame, facts: DosingFacts) -> bool:
    return _dosing_known_drug(frame) and frame.population is None and facts.has_child_doses(frame.drug_ids[0])


def _needs_child_facts(frame: QueryFrame, facts: DosingFacts) -> bool:
    if not (_dosing_known_drug(frame) and frame.population in CHILD_POPULATIONS):
        return False
    if not facts.has_child_doses(frame.drug_ids[0]):
        return False
    age_known = frame.age_years is not None or frame.population == "so_sinh"
    return not (age_known and frame.weight_kg is not None)


def pediatric_question(frame: QueryFrame) -> str:
    """Ask only for what is missing, repeating what is known: 'Bé nặng 18 kg, vậy bé bao nhiêu tuổi?'."""
    age_known = frame.age_years is not None or frame.population == "so_sinh"
    if frame.weight_kg is not None and not age_known:
        return f"Bé nặng {frame.weight_text}, vậy bé bao nhiêu tuổi?"
    if age_known and frame.weight_kg is None:
        known = f"Bé {frame.age_text}" if frame.age_text else "Trẻ sơ sinh"
        return f"{known}, vậy bé nặng bao nhiêu kg?"
    return message_for(Reason.MISSING_PEDIATRIC_AGE_OR_WEIGHT)


def _is_ambiguous(condition: str) -> bool:
    words = re.sub(r"[^\w\s]", " ", fold(condition)).split()
    return " ".join(words) in AMBIGUOUS_CONDITIONS


def _condition_route(frame: QueryFrame) -> Route:
    if not frame.condition:
        return Route("condition_to_drug", "clarify", Reason.NO_CONDITION, message_for(Reason.NO_CONDITION))
    if _is_ambiguous(frame.condition):
        return Route(
            "condition_to_drug", "clarify", Reason.AMBIGUOUS_CONDITION, message_for(Reason.AMBIGUOUS_CONDITION)
        )
    return Route("condition_to_drug", "condition")


def _nothing_asked(frame: QueryFrame) -> bool:
    return (
        bool(frame.drug_ids)
        and frame.section_key is None
        and frame.turn_type not in ("interaction", "condition_to_drug", "condition_relation", "contraindicated_in")
    )


def _abstain(rule: str, reason: Reason, **fields: str) -> Callable[[QueryFrame], Route]:
    return lambda frame: Route(rule, "abstain", reason, message_for(reason, **fields))


def _not_in_formulary(frame: QueryFrame) -> Route:
    names = ", ".join(frame.unknown_drugs)
    return Route("unknown_drugs_only", "abstain", Reason.DRUG_NOT_IN_FORMULARY,
                 message_for(Reason.DRUG_NOT_IN_FORMULARY, names=names))


TABLE: tuple[Row, ...] = (
    ("non_human", lambda f, _: f.non_human, _abstain("non_human", Reason.OUT_OF_SCOPE)),
    (
        "dosing_without_population",
        _needs_population,
        lambda f: Route("dosing_without_population", "clarify", Reason.MISSING_POPULATION,
                        message_for(Reason.MISSING_POPULATION), ["Người lớn", "Trẻ em"]),
    ),
    (
        "child_without_age_or_weight",
        _needs_child_facts,
        lambda f: Route("child_without_age_or_weight", "clarify", Reason.MISSING_PEDIATRIC_AGE_OR_WEIGHT,
                        pediatric_question(f)),
    ),
    (
        "reverse_relation",
        lambda f, _: f.turn_type == "condition_relation",
        _abstain("reverse_relation", Reason.UNSUPPORTED_REVERSE_RELATION),
    ),
    ("condition_to_drug", lambda f, _: f.turn_type == "condition_to_drug", _condition_route),
    # "Thuốc nào chống chỉ định cho phụ nữ có thai?": a list over Chống chỉ định, never a clarify
    (
        "contraindicated_in",
        lambda f, _: f.turn_type == "contraindicated_in",
        lambda f: Route("contraindicated_in", "condition"),
    ),
    (
        "drug_without_attribute",
        lambda f, _: _nothing_asked(f),
        lambda f: Route("drug_without_attribute", "clarify", Reason.MISSING_ATTRIBUTE,
                        message_for(Reason.MISSING_ATTRIBUTE),
                        ["Liều dùng", "Chỉ định", "Chống chỉ định", "Tương tác thuốc", "Tác dụng không mong muốn"]),
    ),
    ("smalltalk", lambda f, _: f.turn_type == "smalltalk",
     lambda f: Route("smalltalk", "greet", Reason.SMALLTALK, message_for(Reason.SMALLTALK))),
    ("out_of_scope", lambda f, _: f.turn_type == "out_of_scope", _abstain("out_of_scope", Reason.OUT_OF_SCOPE)),
    ("unknown_drugs_only", lambda f, _: not f.drug_ids and bool(f.unknown_drugs), _not_in_formulary),
    (
        "no_drug",
        lambda f, _: not f.drug_ids,
        lambda f: Route("no_drug", "clarify", Reason.NO_DRUG, message_for(Reason.NO_DRUG)),
    ),
    ("interaction", lambda f, _: f.turn_type == "interaction", lambda f: Route("interaction", "interaction")),
    ("single_drug", lambda f, _: True, lambda f: Route("single_drug", "single")),
)


def route(frame: QueryFrame, facts: DosingFacts) -> Route:
    """The first row of TABLE whose condition holds."""
    for _name, when, then in TABLE:
        if when(frame, facts):
            return then(frame)
    raise AssertionError("the last row always matches")


# ---- the book fact the table asks for ------------------------------------------------------------

_CHILD_WORDS = re.compile(r"\b(tre em|tre nho|tre so sinh|tre|so sinh|thieu nien|nhi)\b|\d+\s*(tuoi|thang tuoi)")
_DOSE = re.compile(r"\d+(?:[.,]\d+)?\s*(?:mg|g|microgam|mcg|ml|don vi|ui|mmol)\b")
_SENTENCE_END = re.compile(r"(?<=[.;])\s+|\n+")


def text_has_child_doses(section_text: str) -> bool:
    """Some sentence of a dosage section names children (or an age) and states a dose in it."""
    for sentence in _SENTENCE_END.split(fold(section_text)):
        if _CHILD_WORDS.search(sentence) and _DOSE.search(sentence):
            return True
    return False
