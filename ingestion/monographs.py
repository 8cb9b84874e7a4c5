"""Stage 4: monograph boundaries and the identity block.

A monograph starts at a title line (bold capitals in the title size) that is followed, within a few lines, by
the identity block ("Tên chung quốc tế:", "Mã ATC:", "Loại thuốc:"). drug_ids come from the CONTRACT rule,
collisions resolved over the whole book (duocthu_desktop.text.assign_drug_ids).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from duocthu_desktop.text import assign_drug_ids, fold
from ingestion.spans import Line
from ingestion.tables import TableBlock

Item = Line | TableBlock

_TITLE_MIN_SIZE = 10.5
_IDENTITY_LOOKAHEAD = 4
_ATC = re.compile(r"\b[A-Z]\d{2}[A-Z]{2}\d{2}\b")
IDENTITY_LABELS = {"inn": "ten chung quoc te", "atc": "ma atc", "drug_class": "loai thuoc"}


@dataclass
class RawMonograph:
    title: str
    title_line: Line
    items: list[Item] = field(default_factory=list)  # everything after the title, in reading order
    drug_id: str = ""


def _is_title_line(line: Line) -> bool:
    first = line.first
    if not (first.bold and first.size >= _TITLE_MIN_SIZE):
        return False
    head = line.text.split("(")[0]
    letters = [c for c in head if c.isalpha()]
    return bool(letters) and all(c.isupper() for c in letters)


def identity_label(line: Line) -> str | None:
    """Which identity field a line opens ('inn', 'atc', 'drug_class'), if it opens one."""
    if not isinstance(line, Line) or not line.first.bold:
        return None
    folded = fold(line.text)
    for name, label in IDENTITY_LABELS.items():
        if folded.startswith(label):
            return name
    return None


def split_monographs(items: list[Item]) -> list[RawMonograph]:
    """Cut the book's item stream at title lines; what comes before the first title is front matter."""
    out: list[RawMonograph] = []
    i = 0
    while i < len(items):
        item = items[i]
        if isinstance(item, Line) and _is_title_line(item):
            # a title may wrap onto a second line of the same style
            title_lines = [item]
            j = i + 1
            while j < len(items) and isinstance(items[j], Line) and _is_title_line(items[j]):
                title_lines.append(items[j])
                j += 1
            ahead = []
            for a in items[j : j + _IDENTITY_LOOKAHEAD]:
                if isinstance(a, Line) and _is_title_line(a):
                    break
                ahead.append(a)
            if any(isinstance(a, Line) and identity_label(a) for a in ahead):
                title = " ".join(t.text for t in title_lines)
                out.append(RawMonograph(title=title, title_line=item))
                i = j
                continue
        if out:
            out[-1].items.append(item)
        i += 1
    for m, did in zip(out, assign_drug_ids([m.title for m in out]), strict=True):
        m.drug_id = did
    return out


def _label_value(text: str) -> str:
    return text.split(":", 1)[1].strip() if ":" in text else ""


def parse_identity(lines: list[Line]) -> tuple[list[str], dict[str, str]]:
    """Identity block lines (label lines with their wrapped continuations) and the parsed fields."""
    entries: list[tuple[str | None, str]] = []
    for ln in lines:
        label = identity_label(ln)
        if label or not entries:
            entries.append((label, ln.text))
        else:
            prev_label, prev_text = entries[-1]
            sep = "" if prev_text.endswith(("/", "-")) else " "
            entries[-1] = (prev_label, prev_text + sep + ln.text)
    fields = {label: _label_value(text) for label, text in entries if label}
    return [text for _, text in entries], fields


def atc_codes(value: str | None) -> list[str]:
    return _ATC.findall(value or "")


def clean_field(value: str | None) -> str | None:
    if not value:
        return None
    return value.rstrip(" .") or None
