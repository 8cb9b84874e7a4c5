"""The answer payload of CONTRACT.md and its reason codes: the edge between the core and every front end."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Decision = Literal["answerable", "clarify", "abstain", "verify_pdf"]
BlockKind = Literal["dosage", "warning", "fact_list", "prose"]
Engine = Literal["extractive", "generative"]


class Reason(StrEnum):
    # clarify
    MISSING_POPULATION = "missing_population"
    MISSING_PEDIATRIC_AGE_OR_WEIGHT = "missing_pediatric_age_or_weight"
    MISSING_ROUTE = "missing_route"
    NEEDS_MORE_INFO = "needs_more_info"
    AMBIGUOUS_CONDITION = "ambiguous_condition"
    NO_CONDITION = "no_condition"
    NO_INDICATION = "no_indication"
    MISSING_ATTRIBUTE = "missing_attribute"
    NO_DRUG = "no_drug"
    # abstain
    OUT_OF_SCOPE = "out_of_scope"
    DRUG_NOT_IN_FORMULARY = "drug_not_in_formulary"
    UNSUPPORTED_REVERSE_RELATION = "unsupported_reverse_relation"
    NO_INTERACTION_EVIDENCE = "no_interaction_evidence"
    CLARIFY_LOOP_EXHAUSTED = "clarify_loop_exhausted"
    MISSING_PROVENANCE = "missing_provenance"
    PARENT_HYDRATION_FAILED = "parent_hydration_failed"
    EVIDENCE_INSUFFICIENT = "evidence_insufficient"
    UNGROUNDED_NUMBER = "ungrounded_number"
    INVALID_CITATION = "invalid_citation"
    UNCITED_CLAIM = "uncited_claim"
    UNSUPPORTED_CLAIM = "unsupported_claim"
    UNSUPPORTED_DRUG = "unsupported_drug"
    INCOMPLETE_ANSWER = "incomplete_answer"
    MALFORMED_OUTPUT = "malformed_output"
    PROVIDER_UNAVAILABLE = "provider_unavailable"
    REQUEST_BUDGET_EXHAUSTED = "request_budget_exhausted"
    UNDERSTANDING_PROVIDER_UNAVAILABLE = "understanding_provider_unavailable"
    UNDERSTANDING_MALFORMED_OUTPUT = "understanding_malformed_output"
    # answerable / verify_pdf
    SMALLTALK = "smalltalk"
    QUARANTINED_EVIDENCE = "quarantined_evidence"


CLARIFY_REASONS = frozenset(
    {
        Reason.MISSING_POPULATION,
        Reason.MISSING_PEDIATRIC_AGE_OR_WEIGHT,
        Reason.MISSING_ROUTE,
        Reason.NEEDS_MORE_INFO,
        Reason.AMBIGUOUS_CONDITION,
        Reason.NO_CONDITION,
        Reason.NO_INDICATION,
        Reason.MISSING_ATTRIBUTE,
        Reason.NO_DRUG,
    }
)
ANSWERABLE_REASONS = frozenset({Reason.SMALLTALK})
VERIFY_PDF_REASONS = frozenset({Reason.QUARANTINED_EVIDENCE})
ABSTAIN_REASONS = frozenset(set(Reason) - CLARIFY_REASONS - ANSWERABLE_REASONS - VERIFY_PDF_REASONS)


def decision_for(reason: Reason) -> Decision:
    """The decision a reason code belongs to (CONTRACT: reason codes table)."""
    if reason in CLARIFY_REASONS:
        return "clarify"
    if reason in ANSWERABLE_REASONS:
        return "answerable"
    if reason in VERIFY_PDF_REASONS:
        return "verify_pdf"
    return "abstain"


class Claim(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str
    citations: list[int] = Field(default_factory=list)


class Block(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str
    kind: BlockKind = "prose"
    claims: list[Claim] = Field(default_factory=list)


class Citation(BaseModel):
    model_config = ConfigDict(extra="forbid")
    index: int
    chunk_id: str
    drug_id: str
    section_key: str
    printed_page: int | None
    physical_page: int
    quote: str


class AnswerBody(BaseModel):
    """What an answer says: the part an engine produces, before the pipeline stamps engine and disclaimer."""

    model_config = ConfigDict(extra="forbid")
    decision: Decision
    reason: str | None = None
    message: str = ""
    blocks: list[Block] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    quick_replies: list[str] = Field(default_factory=list)


class AnswerPayload(AnswerBody):
    """The CONTRACT's answer payload: an answer body plus the engine that made it and the fixed disclaimer."""

    engine: Engine = "extractive"
    disclaimer: str
