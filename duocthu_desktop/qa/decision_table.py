"""The decision table: what to do with a QueryFrame (clarify, abstain, or which answer path), first matching row wins.

Rows that depend on the book (what does this drug's dosage section still need to know of this patient?) ask a
`DosingFacts`, so the table stays a pure function of the frame and those facts and is testable without an index.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from duocthu_desktop.messages import message_for
from duocthu_desktop.payload import Reason
from duocthu_desktop.qa.understanding import plausibility
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.qa.understanding.section_asked import sentence_ask
from duocthu_desktop.qa.understanding.textmatch import Text, find
from duocthu_desktop.text import fold

Action = Literal["abstain", "clarify", "greet", "single", "interaction", "condition", "sentences"]

# Conditions too broad to pick indications from: the person is asked which one they mean.
_AMBIGUOUS_WRITTEN: tuple[str, ...] = (
    "đau", "bệnh", "viêm", "nhiễm", "nhiễm trùng", "nhiễm khuẩn", "ung thư", "rối loạn", "suy", "khó chịu",
    "mệt", "mệt mỏi", "ốm", "bệnh tim", "bệnh gan", "bệnh thận", "tim", "gan", "thận", "phổi", "dạ dày",
)
AMBIGUOUS_CONDITIONS: frozenset[str] = frozenset(fold(c) for c in _AMBIGUOUS_WRITTEN)


class DosingFacts(Protocol):
    """What the book's dosage section of one drug needs to know about this patient (answered from the index by
    `dosage.fit`, the same rules that choose the doses)."""

    def missing_dose_fact(self, frame: QueryFrame) -> Literal["population", "age_or_weight"] | None:
        """'population' when the doses that fit differ between children and adults and the group is unknown;
        'age_or_weight' when a child's doses differ by an age or weight not given; None otherwise."""
        ...


@dataclass
class Route:
    rule: str  # the table row that matched
    action: Action
    reason: Reason | None = None
    message: str = ""
    quick_replies: list[str] = field(default_factory=list)
    warn_first: bool = True  # a clarify may show the book's warnings for this patient first (not on doubted facts)


Row = tuple[str, Callable[[QueryFrame, DosingFacts], bool], Callable[[QueryFrame], Route]]


def _dosing_known_drug(frame: QueryFrame) -> bool:
    return frame.turn_type == "dosing" and len(frame.drug_ids) == 1


def _needs_population(frame: QueryFrame, facts: DosingFacts) -> bool:
    return _dosing_known_drug(frame) and facts.missing_dose_fact(frame) == "population"


def _needs_child_facts(frame: QueryFrame, facts: DosingFacts) -> bool:
    return _dosing_known_drug(frame) and facts.missing_dose_fact(frame) == "age_or_weight"


def pediatric_question(frame: QueryFrame) -> str:
    """Ask only for what is missing, repeating what is known: 'Bé nặng 18 kg, vậy bé bao nhiêu tuổi?'."""
    age_known = frame.age_years is not None or frame.population == "so_sinh"
    if frame.weight_kg is not None and not age_known:
        return f"Bé nặng {frame.weight_text}, vậy bé bao nhiêu tuổi?"
    if age_known and frame.weight_kg is None:
        said = frame.age_text or ""
        known = said[:1].upper() + said[1:] if fold(said).startswith("be ") else f"Bé {said}" if said else "Trẻ sơ sinh"
        return f"{known}, vậy bé nặng bao nhiêu kg?"
    return message_for(Reason.MISSING_PEDIATRIC_AGE_OR_WEIGHT)


def _is_ambiguous(condition: str) -> bool:
    """Typed with diacritics, compared with them ("bệnh than" is anthrax, not "bệnh thận"); plain, folded."""
    words = re.sub(r"[^\w\s]", " ", fold(condition)).split()
    if " ".join(words) not in AMBIGUOUS_CONDITIONS:
        return False
    text = Text.of(re.sub(r"[^\w\s]", " ", condition))
    return any((m := find(text, c, strict=True)) and m.span() == (0, len(text.norm)) for c in _AMBIGUOUS_WRITTEN)


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
        and frame.turn_type not in ("interaction", "condition_to_drug", "condition_relation", "contraindicated_in",
                                    "out_of_scope")
    )


def _abstain_route(rule: str, reason: Reason, **fields: str) -> Callable[[QueryFrame], Route]:
    return lambda frame: Route(rule, "abstain", reason, message_for(reason, **fields))


def _not_in_formulary(frame: QueryFrame) -> Route:
    names = ", ".join(frame.unknown_drugs)
    return Route("unknown_drugs_only", "abstain", Reason.DRUG_NOT_IN_FORMULARY,
                 message_for(Reason.DRUG_NOT_IN_FORMULARY, names=names))


TABLE: tuple[Row, ...] = (
    ("non_human", lambda f, _: f.non_human, _abstain_route("non_human", Reason.OUT_OF_SCOPE)),
    # "nặng 5000 kg", "200 tuổi": asked back, repeating what was read, before anything uses the value
    (
        "implausible_patient_value",
        lambda f, _: bool(plausibility.implausible(f)),
        lambda f: Route("implausible_patient_value", "clarify", Reason.NEEDS_MORE_INFO,
                        plausibility.clarify_message(f) or "", warn_first=False),
    ),
    # "Có tiêm bắp được không?", "uống như thế nào?", "quá liều thì dùng thuốc giải độc gì?": not a dose, a
    # contraindication, an indication list or an interaction; the drug's sentences that answer it (before the
    # dose rows ask for a group the question does not need)
    (
        "sentence_answer",
        lambda f, _: sentence_ask(f) is not None,
        lambda f: Route("sentence_answer", "sentences"),
    ),
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
        _abstain_route("reverse_relation", Reason.UNSUPPORTED_REVERSE_RELATION),
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
    ("out_of_scope", lambda f, _: f.turn_type == "out_of_scope", _abstain_route("out_of_scope", Reason.OUT_OF_SCOPE)),
    ("unknown_drugs_only", lambda f, _: not f.drug_ids and bool(f.unknown_drugs), _not_in_formulary),
    (
        "no_drug",
        lambda f, _: not f.drug_ids,
        lambda f: Route("no_drug", "clarify", Reason.NO_DRUG, message_for(Reason.NO_DRUG)),
    ),
    ("interaction", lambda f, _: f.turn_type == "interaction", lambda f: Route("interaction", "interaction")),
    ("single_drug", lambda f, _: True, lambda f: Route("single_drug", "single")),
)


def route(frame: QueryFrame, facts: DosingFacts, skip: tuple[str, ...] = ()) -> Route:
    """The first row of TABLE whose condition holds (rows named in `skip` passed over)."""
    for name, when, then in TABLE:
        if name not in skip and when(frame, facts):
            return then(frame)
    raise AssertionError("the last row always matches")
