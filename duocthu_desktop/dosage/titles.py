"""A dose block's title, composed from the row's typed fields (drug, group, route, indication, kind), never from
the headings that happened to come before it. Numbers stay out of titles unless the cited statement prints them,
so a title can never state a bound the evidence does not."""

from __future__ import annotations

import re

from duocthu_desktop.dosage.rows import DoseRow
from duocthu_desktop.dosage.words import ELDERLY_YEARS, ROUTE_NAMES
from duocthu_desktop.text import squash_spaces

POPULATION_NAMES = {
    "nguoi_lon": "Người lớn",
    "tre_em": "Trẻ em",
    "so_sinh": "Trẻ sơ sinh",
    "nguoi_cao_tuoi": "Người cao tuổi",
    "mang_thai": "Phụ nữ mang thai",
    "cho_con_bu": "Phụ nữ cho con bú",
}
KIND_NAMES = {
    "max_dose": "Liều tối đa",
    "loading_dose": "Liều nạp / liều đầu",
    "adjustment": "Điều chỉnh liều",
}
NO_ROUTE = "đường dùng không ghi rõ"


def title(drug: str, row: DoseRow) -> str:
    parts = [POPULATION_NAMES.get(_population(row) or "", "Đối tượng không ghi rõ")]
    if row.weight_kg is not None:
        parts[0] += " (theo cân nặng)"
    if row.renal is not None:
        parts.append("Thẩm phân" if row.renal.dialysis else "Suy thận")
    if row.hepatic:
        parts.append("Suy gan")
    parts.append(", ".join(ROUTE_NAMES[r].lower() for r in row.route) if row.route else NO_ROUTE)
    # a remark that gives no dose names no indication: it is about the group, whatever heading it sits under
    if row.indication and _numbers_printed(row.indication, row.text) and row.kind != "instruction":
        parts.append(indication_name(row.indication))
    if row.kind in KIND_NAMES:
        parts.append(KIND_NAMES[row.kind].lower())
    return f"{drug} — " + " · ".join(parts)


def indication_name(label: str) -> str:
    """An indication's printed label as a name on one line (a title's tag, a quick reply, a list of the others):
    a line break the book's narrow column put inside it ("... sau nhồi\\nmáu cơ tim") is layout, not part of the
    name; the colon that ends it on the page is dropped."""
    return squash_spaces(label).rstrip(": ")


def _numbers_printed(words: str, text: str) -> bool:
    """A heading with numbers goes into a title only when the quoted statement prints that heading itself."""
    return not re.search(r"\d", words) or words.rstrip(": ") in text


def _population(row: DoseRow) -> str | None:
    """An adults' row whose age band starts at the elderly's age ("người trên 65 tuổi") is the elderly's."""
    if row.population == "nguoi_lon" and row.age is not None and not row.age.gestational:
        lo, _ = row.age.years()
        if lo is not None and lo >= ELDERLY_YEARS:
            return "nguoi_cao_tuoi"
    return row.population
