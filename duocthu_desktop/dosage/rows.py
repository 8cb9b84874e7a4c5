"""`DoseRow`: one dose statement of a dosage section, the row of `dosing.jsonl` (CONTRACT)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from duocthu_desktop import atomic

DOSING_FILE = "dosing.jsonl"

RouteKey = Literal[
    "uong", "tiem_tinh_mach", "truyen_tinh_mach", "tiem_bap", "tiem_duoi_da", "truc_trang", "hit", "khi_dung",
    "nho_mat", "tra_mat", "boi", "dat_am_dao", "ngam_duoi_luoi", "tiem_trong_da", "tiem_noi_tuy", "other",
]
PopulationKey = Literal["nguoi_lon", "tre_em", "so_sinh", "nguoi_cao_tuoi", "mang_thai", "cho_con_bu"]
AgeUnit = Literal["nam", "thang", "tuan", "ngay"]
RowKind = Literal["dose", "max_dose", "loading_dose", "adjustment", "instruction"]


class AgeBound(BaseModel):
    model_config = ConfigDict(extra="forbid")
    min: float | None = None
    max: float | None = None
    unit: AgeUnit = "nam"
    gestational: bool = False

    def years(self) -> tuple[float | None, float | None]:
        scale = {"nam": 1.0, "thang": 1 / 12, "tuan": 1 / 52, "ngay": 1 / 365}[self.unit]
        return (
            None if self.min is None else self.min * scale,
            None if self.max is None else self.max * scale,
        )


class WeightBound(BaseModel):
    model_config = ConfigDict(extra="forbid")
    min: float | None = None
    max: float | None = None


class RenalBand(BaseModel):
    model_config = ConfigDict(extra="forbid")
    clcr_min: float | None = None
    clcr_max: float | None = None
    dialysis: bool = False


class DoseRow(BaseModel):
    """One statement as printed, with every field it states or inherits from the headings above it."""

    model_config = ConfigDict(extra="forbid")
    drug_id: str
    chunk_id: str
    printed_page: int | None
    text: str
    start: int = Field(description="Offset of `text` in its chunk's text.")
    end: int
    route: list[RouteKey] = Field(default_factory=list)
    indication: str | None = None
    population: PopulationKey | None = None
    age: AgeBound | None = None
    weight_kg: WeightBound | None = None
    renal: RenalBand | None = None
    hepatic: bool = False
    kind: RowKind = "dose"
    quarantined: bool = Field(False, description="A table or other text that cannot be trusted as read.")
    headings: list[str] = Field(default_factory=list, description="The printed headings it sits under.")


def write_dosing(path: Path, rows: Iterable[DoseRow]) -> None:
    text = "".join(json.dumps(r.model_dump(), ensure_ascii=False) + "\n" for r in rows)
    atomic.write_text(path, text)


def read_dosing(path: Path) -> list[DoseRow]:
    with open(path, encoding="utf-8") as fh:
        return [DoseRow.model_validate_json(line) for line in fh if line.strip()]
