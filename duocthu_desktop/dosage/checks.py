"""Gold-free checks of the dose rows of a whole book (`duocthu-ingest check DIR --dosing`).

No gold exists for most monographs, so these look for rows that contradict themselves or the book's own layout:
a dose with no group in a section that names groups, an indication that is a sentence, a glossary line or a
regimen label, a row whose own words name a route, group, age or clearance its fields do not hold, a dose read as
an instruction, duplicate or empty rows. They are a report (each finding says which row and why), not a gate.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from duocthu_desktop.dosage import labels, reading
from duocthu_desktop.dosage.rows import DoseRow
from duocthu_desktop.dosage.words import age_in, populations_in, renal_in, routes_in
from duocthu_desktop.text import fold

CHECKS = ("ungrouped_dose", "indication_not_heading", "own_words_contradicted", "dose_as_instruction",
          "duplicate_or_empty")
_DOSE_KINDS = {"dose", "max_dose", "loading_dose", "adjustment"}
# "người lớn", "trẻ em" ... as the row's own words state them, on folded text
# A dose in any unit the book prints, or a frequency in words ("bôi một dải 1,3 cm ... ngày một lần"): looser than
# the parser's own test, so a dose the parser missed shows here.
_DOSE_LIKE = re.compile(
    r"(?<![\d,/])(?<!/ )\d+(?:,\d+)?\s*(?:mg|g|microgam|mcg|µg|ml|đơn vị|đvqt|đv|UI|IU|viên|giọt|mmol|cm|ống|gói|nhát|miếng)(?!\w)"
    r"(?!\s*/\s*(?:ml|lít|l|dl|100\s*ml)\b)(?!(?<=ml)\s*/\s*phút)"  # "5 mg/ml", "2 g/100 ml": a concentration;
    # "Clcr < 20 ml/phút": a clearance; the "100 ml" after "/" is the volume of a concentration
    r"|(?:ngày|mỗi ngày)\s+(?:một|hai|ba|bốn|\d+)\s+lần|(?:một|hai|ba|bốn|\d+)\s+lần\s*(?:/|mỗi|một|trong)\s*ngày",
    re.I,
)
# what a sentence does and a heading does not: tells the reader what to do
# ("mắc phải" and "nhất là" are words of a disease's name: "Viêm phổi mắc phải tại cộng đồng", "Chàm, nhất là ...")
_SENTENCE_VERB = re.compile(r"\b(?:(?<!mac )phai|can|nen|co the|khong duoc|khuyen cao|thuong dung|duoc dung|(?<!nhat )la)\b")


@dataclass
class Finding:
    check: str
    drug_id: str
    text: str
    why: str


@dataclass
class Report:
    rows: int = 0
    findings: list[Finding] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        c = Counter(f.check for f in self.findings)
        return {name: c.get(name, 0) for name in CHECKS}

    def by_drug(self) -> dict[str, dict[str, int]]:
        out: dict[str, Counter] = {}
        for f in self.findings:
            out.setdefault(f.drug_id, Counter())[f.check] += 1
        return {d: {name: c.get(name, 0) for name in CHECKS} for d, c in out.items()}


def indication_problem(indication: str | None) -> str | None:
    """Why an indication is not a heading the book prints: a sentence, a glossary line or a qualifier label."""
    if not indication:
        return None
    words = indication.strip()
    if labels.is_glossary(words):
        return "glossary line"
    rule = labels.match_label(words)
    if rule is not None and rule.kind == "qualifier":
        return f"qualifier label ({rule.name})"
    bare = fold(re.sub(r"\([^()]*\)", " ", words))
    if re.search(r"[.!?]$", words) or _SENTENCE_VERB.search(bare) or reading.gives_dose(words):
        return "sentence"
    return None


def _own_words(row: DoseRow) -> str:
    """The statement's words before its first dose, where it names its route, group and band."""
    m = reading.DOSE.search(row.text)
    return row.text[: m.start()] if m else row.text


def contradictions(row: DoseRow) -> list[str]:
    """What a row's own words name that its fields do not hold: a route, a group, an age, a clearance."""
    if row.quarantined:
        return []
    out: list[str] = []
    named = [r for r in routes_in(row.text) if r != "other"]
    missing = [r for r in named if r not in row.route]
    if missing and not row.route:
        out.append(f"route {missing} named, route []")
    elif missing and "other" in row.route:
        out.append(f"route {missing} named, route {row.route}")
    head = _own_words(row)
    pops = populations_in(head)
    if len(pops) == 1:
        pop = next(iter(pops))
        older = row.age is not None and (row.age.years()[1] or 0) > 1  # "Trẻ sơ sinh cho đến 12 tuổi"
        if row.population != pop and not (pop == "tre_em" and row.population == "so_sinh") and not (
                pop == "so_sinh" and row.population == "tre_em" and older):
            out.append(f"group {pop} named, population {row.population}")
    age = age_in(head)
    if age is not None and row.age is None and (age.min is not None or age.max is not None):
        out.append(f"age {age.min}-{age.max} {age.unit} named, age null")
    band = renal_in(head)
    if band is not None and (band.clcr_min is not None or band.clcr_max is not None):
        got = row.renal
        if got is None or (got.clcr_min, got.clcr_max) != (band.clcr_min, band.clcr_max):
            out.append(f"Clcr {band.clcr_min}-{band.clcr_max} named, renal {got and (got.clcr_min, got.clcr_max)}")
    return out


def _empty(text: str) -> bool:
    letters = re.findall(r"[^\W\d_]", text)
    return len(letters) < 3


def check_rows(rows: Iterable[DoseRow]) -> Report:
    report = Report()
    by_drug: dict[str, list[DoseRow]] = {}
    for row in rows:
        report.rows += 1
        by_drug.setdefault(row.drug_id, []).append(row)
    for mine in by_drug.values():
        grouped = any(r.population is not None for r in mine)
        seen: set[str] = set()
        for r in mine:
            def add(check: str, why: str, r: DoseRow = r) -> None:
                report.findings.append(Finding(check, r.drug_id, r.text[:90].replace("\n", " "), why))

            text = re.sub(r"\s+", " ", r.text).strip()
            if _empty(text):
                add("duplicate_or_empty", "empty")
            elif text in seen and not r.quarantined:
                add("duplicate_or_empty", "duplicate")
            seen.add(text)
            if r.quarantined:
                continue
            unbounded = r.age is None and r.weight_kg is None and r.renal is None and not r.hepatic
            if grouped and r.kind in _DOSE_KINDS and r.population is None and unbounded:
                add("ungrouped_dose", "dose with no group in a section that names groups")
            problem = indication_problem(r.indication)
            if problem:
                add("indication_not_heading", f"{problem}: {r.indication[:60]!r}")
            for c in contradictions(r):
                add("own_words_contradicted", c)
            if r.kind == "instruction" and (reading.gives_dose(r.text) or _DOSE_LIKE.search(r.text)) and not (
                    reading.prepares(r.text) or reading.equivalence(r.text)):  # amounts that are not doses
                add("dose_as_instruction", "gives a dose")
    return report


def format_report(report: Report, details: bool = False) -> list[str]:
    """One line per monograph with a finding, then the totals; with `details`, each finding under its drug."""
    lines: list[str] = []
    per = report.by_drug()
    for drug in sorted(per):
        counts = per[drug]
        lines.append(f"dosing {drug}: " + ", ".join(f"{k} {v}" for k, v in counts.items() if v))
        if details:
            lines += [f"  {f.check}: {f.why} | {f.text}" for f in report.findings if f.drug_id == drug]
    totals = report.counts()
    lines.append(f"dosing totals: rows {report.rows}, " + ", ".join(f"{k} {v}" for k, v in totals.items()))
    return lines
