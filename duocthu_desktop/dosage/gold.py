"""Measuring the dosage parser against a hand-written gold file, field by field.

Gold rows are matched to parser rows of the same drug by their text (whitespace and markdown ignored): the parser
row that contains the gold text, is contained in it, or shares the most words with it. A gold row with no match
counts as missed. Fields are then compared as the CONTRACT defines them; `indication` compares the book's words
loosely (one contains the other, or most words shared), since a heading may be quoted whole or in part.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

from duocthu_desktop.dosage.rows import DoseRow
from duocthu_desktop.text import fold

FIELDS = ("route", "population", "age", "weight", "renal", "hepatic", "indication", "kind")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[*#]|</?sup>", "", text)).strip()


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", fold(text)))


def _match(gold: dict, rows: list[DoseRow]) -> DoseRow | None:
    g = _norm(gold["text"])
    best, best_score = None, 0.0
    for row in rows:
        r = _norm(row.text)
        if g == r:
            return row
        if g in r or r in g:
            score = 0.9 + min(len(g), len(r)) / max(len(g), len(r)) / 10
        else:
            gw, rw = _words(g), _words(r)
            score = len(gw & rw) / max(1, len(gw | rw))
        if score > best_score:
            best, best_score = row, score
    return best if best_score >= 0.6 else None


def _age(value: dict | None) -> tuple | None:
    if value is None:
        return None
    return (value.get("min"), value.get("max"), value.get("unit"), bool(value.get("gestational")))


def _renal(value: dict | None) -> tuple | None:
    if value is None:
        return None
    return (value.get("clcr_min"), value.get("clcr_max"), bool(value.get("dialysis")))


def _indication_same(gold: str | None, found: str | None) -> bool:
    if gold is None or found is None:
        return gold is None and found is None
    g, f = fold(_norm(gold)).rstrip(":"), fold(_norm(found)).rstrip(":")
    if g in f or f in g:
        return True
    gw, fw = _words(g), _words(f)
    return len(gw & fw) / max(1, len(gw | fw)) >= 0.5


def same(field: str, gold: dict, row: DoseRow) -> bool:
    found = row.model_dump()
    if field == "route":
        return set(gold["route"]) == set(row.route)
    if field == "age":
        return _age(gold["age"]) == _age(found["age"])
    if field == "weight":
        return (gold["weight_kg"] or None) == (found["weight_kg"] or None)
    if field == "renal":
        return _renal(gold["renal"]) == _renal(found["renal"])
    if field == "indication":
        return _indication_same(gold["indication"], row.indication)
    return gold[field] == found[field]


def read_gold(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def measure(gold: Iterable[dict], rows: list[DoseRow]) -> dict:
    """{"rows", "matched", "fields": {field: accuracy over matched rows}, "misses": {field: [(gold text, got)]}}"""
    by_drug: dict[str, list[DoseRow]] = {}
    for row in rows:
        by_drug.setdefault(row.drug_id, []).append(row)
    total = matched = 0
    right = dict.fromkeys(FIELDS, 0)
    misses: dict[str, list] = {f: [] for f in FIELDS}
    unmatched: list[str] = []
    for g in gold:
        total += 1
        row = _match(g, by_drug.get(g["drug_id"], []))
        if row is None:
            unmatched.append(f"{g['drug_id']}: {g['text'][:70]}")
            continue
        matched += 1
        for field in FIELDS:
            if same(field, g, row):
                right[field] += 1
            else:
                misses[field].append((g["drug_id"], g["text"][:60], row.model_dump().get(
                    "weight_kg" if field == "weight" else field)))
    return {
        "rows": total,
        "matched": matched,
        "fields": {f: round(right[f] / matched, 4) if matched else 0.0 for f in FIELDS},
        "misses": misses,
        "unmatched": unmatched,
    }
