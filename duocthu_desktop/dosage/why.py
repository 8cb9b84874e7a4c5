"""Which rule set each field of a dose row: for `duocthu-ingest inspect DIR --drug ID --dosing` only.

A row's fields come from its own words or from the headings it sits under (CONTRACT: its own words win). This
reads the row's own labels and opening words, then its headings innermost first, and names, for each field that
is set, the first source that states the same value and the label rule (dosage/labels.py) that classified it.
It explains the parser's result; it does not change it, and dosing.jsonl does not carry it.
"""

from __future__ import annotations

from duocthu_desktop.dosage import reading
from duocthu_desktop.dosage.parser import Fields, classify_rule, read_fields
from duocthu_desktop.dosage.rows import DoseRow

_FIELDS = ("route", "population", "age", "weight_kg", "renal", "hepatic", "indication")


def _values(f: Fields) -> dict:
    return {
        "route": f.routes or None,
        "population": f.population,
        "age": f.age.model_dump() if f.age else None,
        "weight_kg": f.weight.model_dump() if f.weight else None,
        "renal": f.renal.model_dump() if f.renal else None,
        "hepatic": f.hepatic or None,
        "indication": f.indication,
    }


def _same(field: str, got, stated) -> bool:
    if stated is None:
        return False
    if field == "route":
        return bool(set(got) & set(stated))
    if field == "indication":
        return got == stated or (got in stated) or (stated in got)
    return got == stated


def explain(row: DoseRow) -> dict[str, str]:
    """{field: "why"} for every field the row sets, plus "kind"."""
    got = row.model_dump()
    sources: list[tuple[str, dict]] = []
    labels, body = reading.labels_at(row.text, 0, len(row.text))
    for lab in labels:
        kind, f, rule = classify_rule(lab.text)
        sources.append((f"own label {lab.text!r} (rule {rule.name}: {kind})", _values(f)))
    own = read_fields(row.text[body:])
    sources.append(("own words", _values(own)))
    for heading in reversed(row.headings):
        kind, f, rule = classify_rule(heading)
        sources.append((f"heading {heading[:60]!r} (rule {rule.name}: {kind})", _values(f)))
    out: dict[str, str] = {}
    for field in _FIELDS:
        value = got[field]
        if value in (None, [], False):
            continue
        out[field] = next((why for why, vals in sources if _same(field, value, vals[field])),
                          "carried from the statement before it in its paragraph")
    out["kind"] = "no dose amount or frequency: instruction" if row.kind == "instruction" and not \
        reading.gives_dose(row.text) else f"{row.kind} (dose words of the statement and its band)"
    return out
