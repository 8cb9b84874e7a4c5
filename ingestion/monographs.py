"""Stage 4: monograph boundaries and the identity block.

A monograph starts at a title line (bold capitals in the title size) that is followed, within a few lines, by
the identity block ("Tên chung quốc tế:", "Mã ATC:", "Loại thuốc:"). A notice the book sets in italics between
the title and the identity block (a withdrawn marketing authorisation, say) is stepped over, however many lines
it wraps to: it is part of the block under the title. drug_ids come from the CONTRACT rule,
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
_NOTICE_MAX_LINES = 20  # an italic notice under a title is a paragraph, not a page
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


def _continues_title(title_lines: list[Line], item: Item) -> bool:
    """A wrapped title's next line: capitals in the title style, or, while the title's parenthetical is still
    open, the rest of it in the title's bold and size ("(Methylrosanilin" / "clorid)")."""
    if not isinstance(item, Line):
        return False
    if _is_title_line(item):
        return True
    so_far = " ".join(t.text for t in title_lines)
    first = item.first
    return (so_far.count("(") > so_far.count(")") and first.bold and first.size >= _TITLE_MIN_SIZE
            and item.physical == title_lines[-1].physical)


def _notice_line(item: Item) -> bool:
    """A line set wholly in italics, none of it bold: the shape of a notice under a title."""
    if not isinstance(item, Line):
        return False
    spans = [s for s in item.spans if s.text.strip()]
    return bool(spans) and all(s.italic and not s.bold for s in spans)


def _identity_follows(items: list[Item], j: int) -> bool:
    """Do the identity lines open within a few lines of items[j], once an italic notice is stepped over?"""
    k = j
    while k < len(items) and k - j < _NOTICE_MAX_LINES and _notice_line(items[k]):
        k += 1
    for start in dict.fromkeys((j, k)):
        for a in items[start : start + _IDENTITY_LOOKAHEAD]:
            if isinstance(a, Line) and _is_title_line(a):
                break
            if isinstance(a, Line) and identity_label(a):
                return True
    return False


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
            while j < len(items) and _continues_title(title_lines, items[j]):
                title_lines.append(items[j])
                j += 1
            if _identity_follows(items, j):
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


def identity_entries(lines: list[Line]) -> list[tuple[str | None, list[tuple[str, int]]]]:
    """The block under the title as entries (label or None, [(text piece, physical page), ...]): each label
    line with its wrapped continuations; a notice before the labels is an entry of its own, which may run
    onto the next page."""
    entries: list[tuple[str | None, list[tuple[str, int]]]] = []
    for ln in lines:
        label = identity_label(ln)
        if label or not entries:
            entries.append((label, [(ln.text, ln.physical)]))
        else:
            pieces = entries[-1][1]
            sep = "" if pieces[-1][0].endswith(("/", "-")) else " "
            pieces.append((sep + ln.text, ln.physical))
    return entries


def parse_identity(lines: list[Line]) -> tuple[list[str], dict[str, str]]:
    """Identity block lines (label lines with their wrapped continuations) and the parsed fields."""
    entries = [(label, "".join(t for t, _ in pieces)) for label, pieces in identity_entries(lines)]
    fields = {label: _label_value(text) for label, text in entries if label}
    return [text for _, text in entries], fields


def atc_codes(value: str | None) -> list[str]:
    return _ATC.findall(value or "")


def clean_field(value: str | None) -> str | None:
    if not value:
        return None
    return value.rstrip(" .") or None
