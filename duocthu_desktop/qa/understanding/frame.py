"""QueryFrame: what a question asks, made explicit before any retrieval happens.

Built deterministically by `understanding.question`; merged with the previous turn's frame for follow-ups.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from duocthu_desktop.qa.understanding.lab_values import LabValue

TurnType = Literal[
    "drug_attribute",  # one drug, a section asked for (contraindications, storage, ATC, ...)
    "dosing",  # one drug, its dose
    "interaction",  # two or more drugs together
    "condition_to_drug",  # which drugs are indicated for a condition
    "condition_relation",  # which drug causes X (reverse relation; unsupported)
    "contraindicated_in",  # which drugs are contraindicated in a condition or group (over Chống chỉ định)
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
    "hit",
    "xit",  # older alias of "hit" (frames stored before issue 7)
    "khi_dung",
    "nho_mat",
    "tra_mat",
    "boi",
    "dat_am_dao",
    "tiem_trong_da",
    "tiem_noi_tuy",
    "other",
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
    # added with issue 7 (patient facts for the warnings shown first; read by qa.patient_facts)
    trimester: int | None = Field(None, description="Trimester of pregnancy, 1-3 ('3 tháng đầu' -> 1).")
    renal_impairment: bool = Field(False, description="'suy thận', 'bệnh thận', or a Clcr below normal given.")
    hepatic_impairment: bool = Field(False, description="'suy gan', 'bệnh gan', 'xơ gan'.")
    age_bound: Literal["below", "above"] | None = Field(
        None, description="The age was given as a bound: 'dưới 16 tuổi' -> below, 'trên 65 tuổi' -> above."
    )
    # added with issue 7 (names and words)
    via_trade_name: dict[str, str] = Field(
        default_factory=dict, description="drug_id -> the trade name typed, for drugs recognised only by it."
    )
    ranking: bool = Field(False, description="The person asked which drug is best ('tốt nhất'); the book does not rank.")
    # added with issue 17: compared as numbers with units against the book's thresholds
    lab_values: list[LabValue] = Field(default_factory=list, description="'kali máu 6,2 mmol/l', 'INR 4'.")
    # added with issue 19 (the subject of a turn): a drug named as a fact of the patient, not as what is asked
    context_drugs: dict[str, Literal["ruled_out", "taking"]] = Field(
        default_factory=dict,
        description="drug_id -> how the turn names it as the patient's context: 'dị ứng aspirin', 'không dùng "
                    "được aspirin' (ruled_out) or 'đang dùng warfarin' (taking).",
    )
    context_section: str | None = Field(
        None, description="The section the turn asks for with its context phrases left out (None: none named)."
    )
    # added in round 12: "bn ĐTĐ type 2 ... liều khởi đầu?" names no group, and its doses differ by group
    population_assumed: bool = Field(
        False, description="The adults' group was read from a patient spoken of as 'bệnh nhân' with no age, "
                           "weight or child word; the answer says so and offers the children's doses.")
    # added in round 6 (the patient's co-medication inside a dose question)
    taking_names: list[str] = Field(
        default_factory=list,
        description="The book's names of formulary drugs the patient already takes, when the turn asks another "
                    "drug's dose: read in that drug's Chống chỉ định and Tương tác thuốc before its dose.",
    )
