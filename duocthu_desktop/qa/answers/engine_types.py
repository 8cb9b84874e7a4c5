"""The answer engine's swap point: extractive now, generative later; the pipeline only sees this."""

from __future__ import annotations

from typing import Literal, Protocol

from pydantic import BaseModel

from duocthu_desktop.artifacts import Monograph
from duocthu_desktop.payload import AnswerBody
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.retrieval.types import IndicationHit, SectionResult


class EngineAnswer(AnswerBody):
    """What an engine returns; the pipeline adds the disclaimer, engine name and runs grounding."""

    # True when a dosage answer was chosen statement by statement, so it already decided whether an untrusted
    # part (a table) fits the patient; the pipeline then does not send the whole section to the PDF.
    dosage_filtered: bool = False
    # True when the answer holds the book's words against this patient that forbid or tell to avoid or adjust
    # (a contraindication, a renal limit): such an answer stands even when the dose itself needs a fact first.
    warns_against: bool = False
    # True when the book's Chống chỉ định names this patient: no usual dose is shown beside it.
    contraindicated: bool = False
    # True when a dosage answer is the book's words for this patient's own group or organ (the elderly, pregnancy,
    # a renal or hepatic band), not the usual doses: kept beside a contraindication.
    for_this_patient: bool = False
    # Who wrote the claims: the model ("generative") or the book's words ("extractive"); None = the engine's name.
    written_by: Literal["extractive", "generative"] | None = None


class AnswerEngine(Protocol):
    """Turns retrieved evidence into blocks of cited claims."""

    name: str

    def answer_section(self, frame: QueryFrame, section: SectionResult, monograph: Monograph) -> EngineAnswer:
        """One drug, one section (dosage included)."""
        ...

    def answer_interaction(
        self, frame: QueryFrame, sections: dict[str, SectionResult], names: dict[str, list[str]]
    ) -> EngineAnswer:
        """`sections`: drug_id -> its tuong_tac_thuoc; `names`: drug id or unknown name -> every name to look for."""
        ...

    def answer_condition(
        self, frame: QueryFrame, hits: list[IndicationHit], fact_sections: dict[str, dict[str, SectionResult]]
    ) -> EngineAnswer:
        """`fact_sections`: drug_id -> section_key -> section (chong_chi_dinh, than_trong, thoi_ky_mang_thai)."""
        ...


class GroundingFailure(BaseModel):
    code: str  # a payload.Reason value
    detail: str
