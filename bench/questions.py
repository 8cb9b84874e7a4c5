"""The questions the turn benchmark asks: the dev eval file's conversations, and questions made from an index's
own monographs (so the full-size book is asked about its synthetic drugs), condition lists included.

Templates name no drug: the names come from the index's monographs.jsonl, spread over the whole book.
"""

from __future__ import annotations

import json
from pathlib import Path

from duocthu_desktop.artifacts import MONOGRAPHS_FILE, read_monographs

PER_DRUG = [
    "Liều {a} cho người lớn?",
    "Chống chỉ định của {a}?",
    "Tác dụng không mong muốn của {a}?",
    "{a} dùng cho phụ nữ có thai được không?",
    "{a} bảo quản thế nào?",
]
PAIRS = ["{a} và {b} có tương tác không?"]
# Condition lists: at full size each spans dozens of monographs (forty copies of each sample drug).
CONDITIONS = ["tăng huyết áp", "đau thắt ngực", "đái tháo đường", "suy tim", "sốt"]
CONDITION_QUESTION = "Thuốc nào trị {c}?"
CONTRAINDICATED = ["Thuốc nào chống chỉ định khi suy thận?"]  # reads every monograph's Chống chỉ định
DRUGS = 8


def dev_cases(path: Path) -> list[dict]:
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            case = json.loads(line)
            cases.append({"id": case["id"], "turns": case["turns"]})
    return cases


def _name(title: str) -> str:
    """The name a person types: the title without its parenthetical, in lower case."""
    return title.split(" (")[0].strip().lower()


def book_cases(index: Path, drugs: int = DRUGS) -> list[dict]:
    """Questions about `drugs` monographs spread evenly over the book, pairs of them, and condition lists."""
    monographs = read_monographs(index / MONOGRAPHS_FILE)
    step = max(1, len(monographs) // drugs)
    names = [_name(m.title) for m in monographs[::step][:drugs]]
    cases = []
    for i, a in enumerate(names):
        for j, template in enumerate(PER_DRUG):
            cases.append({"id": f"drug{i}-q{j}", "turns": [template.format(a=a)]})
    for i in range(0, len(names) - 1, 2):
        for template in PAIRS:
            cases.append({"id": f"pair{i}", "turns": [template.format(a=names[i], b=names[i + 1])]})
    for i, condition in enumerate(CONDITIONS):
        cases.append({"id": f"condition{i}", "turns": [CONDITION_QUESTION.format(c=condition)], "condition": condition})
    for i, question in enumerate(CONTRAINDICATED):
        cases.append({"id": f"contraindicated{i}", "turns": [question]})
    return cases
