"""QueryFrame: what a question asks, made explicit before any retrieval happens.

Built deterministically by `qa.understanding`; merged with the previous turn's frame for follow-ups.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

TurnType = Literal[
    "drug_attribute",  # one drug, a section asked for (contraindications, storage, ATC, ...)
    "dosing",  # one drug, its dose
    "interaction",  # two or more drugs together
    "condition_to_drug",  # which drugs are indicated for a condition
    "condition_relation",  # which drug causes X (reverse relation; unsupported)
    "smalltalk",
    "out_of_scope",
    "unknown",  # nothing recognisable yet (e.g. "không biết" in a clarify loop)
]

Population = Literal["nguoi_lon", "tre_em", "so_sinh", "nguoi_cao_tuoi", "mang_thai", "cho_con_bu"]

Route = Literal[
    "uong",
    "truc_trang",
    "tiem_tinh_mach",
    "truyen_tinh_mach",
    "tiem_bap",
    "tiem_duoi_da",
    "ngam_duoi_luoi",
    "xit",
    "khi_dung",
    "nho_mat",
    "boi",
    "tiem",  # "tiêm" with no site named: any injection route
]


class QueryFrame(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field("", description="The self-contained question this frame was built from.")
    turn_type: TurnType = "unknown"
    drug_ids: list[str] = Field(default_factory=list, description="Formulary drugs named, in the order named.")
    drug_mentions: dict[str, str] = Field(default_factory=dict, description="drug_id -> the words the person used.")
    unknown_drugs: list[str] = Field(default_factory=list, description="Drug-like words not in the formulary.")
    section_key: str | None = Field(None, description="The section asked for, if any.")
    whole_section: bool = Field(False, description="The person asked for a whole section ('toàn bộ', 'tất cả').")
    population: Population | None = None
    age_years: float | None = Field(None, description="Age in years (months and weeks converted).")
    age_text: str | None = Field(None, description="Age as the person wrote it ('5 tuổi', '3 tháng tuổi').")
    gestational_weeks: float | None = Field(None, description="'sơ sinh 30 tuần': weeks of (corrected) gestation.")
    weight_kg: float | None = None
    weight_text: str | None = Field(None, description="Weight as the person wrote it ('18 kg').")
    route: Route | None = None
    clcr: float | None = Field(None, description="Creatinine clearance, ml/phút.")
    condition: str | None = Field(None, description="Condition or symptom named ('tăng huyết áp', 'đau thắt ngực').")
    pregnant: bool = False
    breastfeeding: bool = False
    non_human: bool = Field(False, description="Asked about an animal (chó, mèo, thú y): out of scope.")
    non_medical: bool = Field(False, description="Plainly not a medical question (weather, football).")
    injection_attempt: bool = Field(False, description="The text tries to override the rules or supply evidence.")
    # added with issue 4 (additive)
    drug_classes: list[str] = Field(default_factory=list, description="Class words named ('NSAID', 'salicylat').")
    follow_up: bool = Field(False, description="Completed from the conversation's earlier frame.")
