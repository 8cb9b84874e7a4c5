"""Group words the book prints in dosage text, and the age at which a patient counts as an adult.

What is left of the old passage-by-passage band reader: `dosage/parser.py` reads a label's population with
`POPULATION_PATTERNS`; `memory.py` and `condition_answer.py` tell a child from an adult with `ADULT_AGE`.
"""

from __future__ import annotations

import re

ADULT_AGE = 18.0

# Matched on folded text (diacritics dropped, lower case).
POPULATION_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bnguoi (?:benh )?cao tuoi\b|\bnguoi gia\b"), "nguoi_cao_tuoi"),
    (re.compile(r"\bnguoi lon\b"), "nguoi_lon"),
    (re.compile(r"\bso sinh\b|\btre moi (?:de|sinh)\b"), "so_sinh"),
    # "trẻ" of "trẻ sơ sinh" / "trẻ mới đẻ" names neonates only
    # ("người trẻ tuổi" is young adults, not children)
    (re.compile(r"(?<!nguoi )\btre\b(?! so sinh\b| moi de\b| moi sinh\b| tuoi\b)|\bthieu nien\b|\bnhu nhi\b|\bnhi khoa\b"), "tre_em"),
]
