"""Where a sentence of a dosage section is cut: at a group label inside it, at a ";" opening another group's clause,
and the run of labels that opens a piece.
"""

from __future__ import annotations

import re

from duocthu_desktop.qa.band_labels import DOSE, LABEL, Attrs, detect_attrs, detect_routes

_CLAUSE_START = re.compile(r";\s+(?=\S)")


def clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A sentence cut at each ";" whose next clause names a group of its own ("...: 60 mg; Trẻ em 6 tháng...")."""
    cuts = [start]
    for m in _CLAUSE_START.finditer(text, start, end):
        nxt = text[m.end() : end]
        head = nxt[: DOSE.search(nxt).start()] if DOSE.search(nxt) else nxt
        a = detect_attrs(head[:80])
        trailing = trailing_group(nxt, DOSE.search(nxt).end()) if DOSE.search(nxt) else None
        if a.populations or a.is_band or detect_routes(nxt[:40]) or trailing is not None:
            cuts.append(m.end())
    cuts.append(end)
    out = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        seg = text[a:b].rstrip()
        if seg.endswith(";"):
            b = a + len(seg) - 1
        if text[a:b].strip():
            out.append((a, b))
    return out


_TRAILING_GROUP = re.compile(r"(?<!\w)(?:cho|ở|đối với)\s+(?=(?:trẻ|sơ sinh|người|bệnh nhân)(?!\w))", re.I)


def trailing_group(text: str, after: int) -> Attrs | None:
    """The group stated just after a dose ("0,32 mg/kg/ngày cho trẻ < 12 tháng tuổi"), when it has an age or
    weight range."""
    gap = re.compile(r"[^\s,;.]*\s*,?\s*").match(text, after)  # the rest of the unit ("/kg/ngày") and a comma
    m = _TRAILING_GROUP.match(text, gap.end()) if gap else None
    if m is None:
        return None
    stop = re.search(r"[;.]", text[m.end() :])
    attrs = detect_attrs(text[m.end() : m.end() + stop.start()] if stop else text[m.end() :], with_routes=False)
    return attrs if attrs.populations and attrs.is_band else None


def band_label_positions(text: str, start: int, end: int) -> list[int]:
    """Where a group label begins inside a sentence: after ":" ("... như sau: Trên 50 kg: ...") or after a dose
    and "," ("Người lớn: 2 g/ngày chia 2 lần, trẻ em: 50 mg/kg/ngày")."""
    out = []
    for m in re.finditer(r"(?<=[:,])\s+(?=\S)", text[start:end]):
        pos = start + m.end()
        nxt = LABEL.match(text, pos, end)
        if not nxt or nxt.start(1) != pos or DOSE.search(nxt.group(1)):
            continue
        a = detect_attrs(nxt.group(1))
        if text[start + m.start() - 1] == ",":
            if (a.populations or a.is_band) and DOSE.search(text, start, start + m.start()):
                out.append(pos)
        elif a.populations or a.is_band or a.routes:
            out.append(pos)
    return out


def skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def only_labels(text: str, start: int, pos: int) -> bool:
    """True when text[start:pos] is nothing but labels ("Liều lượng: Người lớn:")."""
    while start < pos:
        m = LABEL.match(text, start, pos)
        if not m or m.start(1) != skip_space(text, start):
            return False
        start = m.end()
        start = skip_space(text, start)
    return True
