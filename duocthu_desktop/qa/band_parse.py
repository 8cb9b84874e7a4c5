"""Cutting a dosage section into `Band`s: one pass over its paragraphs, sentences and clauses, keeping a stack of
the headings read so far so each band carries the route, group, indication and organ it sits under.
"""

from __future__ import annotations

import re

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.qa.band_context import Band, Level, drop_other_groups, first_of, push_indication
from duocthu_desktop.qa.band_labels import (
    DOSE,
    LABEL,
    Attrs,
    detect_attrs,
    detect_routes,
    extra_words,
    label_kind,
)
from duocthu_desktop.qa.band_pieces import (
    band_label_positions,
    clauses,
    only_labels,
    skip_space,
    trailing_group,
)
from duocthu_desktop.qa.sentences import paragraphs, split_sentences
from duocthu_desktop.text import fold


def cut_bands(chunks: list[Chunk]) -> list[Band]:
    """Every piece of a dosage section (chunks in the book's order) with its own and inherited labels."""
    bands: list[Band] = []
    stack: list[Level] = []
    part = "lieu"
    content = False  # whether any band was read since the last heading was pushed
    for chunk in chunks:
        if chunk.quarantined:
            continue
        text = chunk.text
        for p_start, p_end in paragraphs(text):
            inline = first_of(stack, ("organ",)) if any(lv.paragraph_only for lv in stack) else len(stack)
            del stack[inline:]
            heading = text[p_start:p_end].strip()
            if _bare_population_heading(heading):
                # "Người lớn" alone on its line, printed without a colon, heads what follows like "Người lớn:".
                del stack[first_of(stack, ("population", "organ", "indication")) :]
                stack.append(Level("population", heading, detect_attrs(heading), major=True))
                part, content = "lieu", False
                continue
            if _bare_organ_heading(heading):
                # "Người suy giảm chức năng thận và người cao tuổi" alone on its line, without a colon, opens the
                # renal part like "Suy thận:": the group of the paragraph before it ("Trẻ sơ sinh: ...") ends.
                stack.clear()
                stack.append(Level("organ", heading, Attrs(), major=True))
                part, content = "lieu", False
                continue
            sticky: Attrs | None = None  # the last band of this paragraph, for sentences that state no group
            sticky_label: str | None = None
            sticky_lead = False
            pieces: list[tuple[int, int]] = []
            for s_start, s_end in split_sentences(text, (p_start, p_end)):
                cuts = [s_start, *band_label_positions(text, s_start, s_end), s_end]
                for a, b in zip(cuts, cuts[1:], strict=False):
                    pieces.extend(clauses(text, a, b))
            for a, b in pieces:
                # Read the chain of labels at the start of this piece.
                pos = a
                own_label: str | None = None
                own_attrs: Attrs | None = None
                body_start = a
                last_label_start: int | None = None
                lead = False
                while True:
                    m = LABEL.match(text, pos, b)
                    if not m or m.start(1) != skip_space(text, pos):
                        break
                    label = m.group(1).strip()
                    if DOSE.search(label):
                        break  # "Uống 2 - 15 mg, trường hợp nặng có thể tăng liều:" is a dose, not a label
                    attrs = detect_attrs(label)
                    leads = only_labels(text, p_start, pos)
                    body_empty = only_labels(text, m.end(), p_end)
                    kind = label_kind(label, attrs, leads or body_empty)
                    if kind == "indication" and re.match(r"[(\d]", label) and sticky is not None:
                        kind, attrs = "band", Attrs(populations=set(sticky.populations))  # "(7 - 30 ngày):"
                    if kind == "generic":
                        stack.clear()
                        folded_label = fold(label)
                        part = (
                            "cach_dung"
                            if "cach dung" in folded_label and "lieu" not in folded_label
                            else "lieu"
                        )
                    elif kind == "organ":
                        stack.clear()
                        stack.append(Level("organ", label, attrs, paragraph_only=not body_empty))
                    elif kind == "population":
                        del stack[first_of(stack, ("population", "organ")) :]
                        drop_other_groups(stack, attrs.populations)
                        # A route read from a sentence ("Trường hợp nặng, tiêm tĩnh mạch 80 - 100 mg") ends at the next
                        # group heading; it must not carry over, nor take that group with it when the next route comes.
                        stack[:] = [lv for lv in stack if not (lv.kind == "route" and not lv.label)]
                        # major: alone on its line ("Người lớn:"), heading what follows; else it leads its own text
                        stack.append(Level("population", label, attrs, major=body_empty))
                        part = "lieu"
                    elif kind == "indication":
                        part = "lieu"  # "Cách dùng: Uống ... Tăng huyết áp: Liều thường dùng: 25 mg/lần": doses begin
                        push_indication(
                            stack, Level("indication", label, attrs, major=body_empty), leads, content
                        )
                    elif kind == "route":
                        del stack[first_of(stack, ("route",)) :]
                        stack.append(Level("route", label, attrs, major=body_empty))
                    if kind in ("generic", "organ", "population", "indication", "route"):
                        content = False
                        # A new heading ends the group a previous sentence opened ("Uống: Người lớn ...; trẻ em
                        # ... 10 mg/ngày. Dung dịch trực tràng: 500 microgam/kg"): the rectal dose is not the child's.
                        sticky, sticky_label, sticky_lead = None, None, False
                    elif kind == "band":
                        own_label, own_attrs = label, attrs
                        body_start = m.start(1)
                        pos = m.end()
                        break
                    # note labels are kept in the text, nothing nests under them
                    if kind == "note":
                        break
                    last_label_start = m.start(1) if kind in ("route", "indication", "population") else None
                    pos = m.end()
                    body_start = skip_space(text, pos)
                if own_attrs is None:
                    body = text[body_start:b]
                    dose = DOSE.search(body)
                    head = body[: dose.start()] if dose else body
                    own_attrs = detect_attrs(head, with_routes=False)
                    if dose and not own_attrs.populations and not own_attrs.is_band:
                        own_attrs = trailing_group(body, dose.end()) or own_attrs
                    own_attrs.clcr = detect_attrs(body, with_routes=False).clcr
                    own_attrs.routes = detect_routes(body)
                    heading_route = any(lv.kind == "route" and lv.major for lv in stack)
                    if own_attrs.routes and part == "lieu" and not heading_route:
                        # An unlabelled route at a sentence start ("Đường tiêm tĩnh mạch 10 - 20 mg") switches route
                        # for what follows; under a route heading ("Liều uống ...:") it is only this sentence's.
                        # Only the route changes: the group and indication read after the old route still hold
                        # ("Liều tiêm: Người lớn: Liều thông thường tiêm bắp hoặc tĩnh mạch 20 - 40 mg").
                        stack[:] = [lv for lv in stack if lv.kind != "route"]
                        stack.append(Level("route", "", Attrs(routes=set(own_attrs.routes))))
                        sticky, sticky_label = None, None
                    # "Đối với trẻ em, ... 1 mg/kg": a sentence that opens by naming its group is that group's,
                    # whatever heading it sits under, and so are the sentences after it in the paragraph.
                    lead = bool(own_attrs.populations) and bool(_LEAD_GROUP.match(fold(body)))
                    if own_attrs.empty and sticky is not None:
                        own_attrs, own_label, lead = sticky, sticky_label, sticky_lead
                    elif not own_attrs.empty:
                        sticky, sticky_label, sticky_lead = None, None, False
                        if lead:
                            sticky, sticky_label, sticky_lead = own_attrs, None, True
                else:
                    sticky, sticky_label, sticky_lead = own_attrs, own_label, False
                if not text[pos:b].strip() and own_label is None:
                    continue  # labels only
                if re.fullmatch(r"[^:]{0,90}:", text[body_start:b].strip()):
                    continue  # a note label with nothing after it ("Liều chung:")
                if (
                    own_label is None
                    and last_label_start is not None
                    and body_start == skip_space(text, pos)
                ):
                    body_start = (
                        last_label_start  # "Ngậm dưới lưỡi hoặc nhai: 2,5 - 5 mg/lần": keep the label read
                    )
                content = True
                bands.append(
                    Band(
                        chunk=chunk,
                        start=body_start,
                        end=b,
                        label=own_label,
                        own=own_attrs,
                        labelled=own_label is not None or lead,
                        context=[Level(lv.kind, lv.label, lv.attrs) for lv in stack],
                        part=part,
                    )
                )
    return [b for b in bands if b.text.strip()]


_LEAD_GROUP = re.compile(
    r"\W*(?:(?:doi voi|o|cho|voi|rieng|rieng voi|neu la)\s+)?"
    r"(?:tre|so sinh|nhu nhi|thieu nien|nguoi lon|nguoi cao tuoi|nguoi gia|benh nhan cao tuoi)\b"
)


def _bare_population_heading(line: str) -> bool:
    """A short line naming only a group ("Người lớn", "Trẻ em"), with no colon, dose or sentence end."""
    if not line or len(line) > 40 or re.search(r"[:.;,!?\d]", line):
        return False
    attrs = detect_attrs(line)
    return bool(attrs.populations) and not attrs.routes and extra_words(fold(line)) == 0


_BARE_ORGAN = re.compile(r"\bsuy (?:giam )?(?:chuc nang )?(?:than|gan)\b")


def _bare_organ_heading(line: str) -> bool:
    """A short line naming kidney or liver failure, with no colon, dose or sentence end."""
    if not line or len(line) > 70 or re.search(r"[:.;,!?\d]", line):
        return False
    return bool(_BARE_ORGAN.search(fold(line)))
