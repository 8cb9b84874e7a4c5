"""Two drugs (or a drug and a class) together: what each drug's Chống chỉ định, Tương tác thuốc and Thận trọng
sections say about the other, under every name the book gives it and every wording of its classes.

Inside Tương tác thuốc the book's own sub-headings ("Chống chỉ định phối hợp:", "Tăng tác dụng/độc tính:",
"Tránh phối hợp:") label the statements under them: they become part of the block title, and the message says
under which of them the book files the partner, so the answer's first line carries the book's own verdict
("Chống chỉ định phối hợp") and not only its quotes. Not finding a statement
is never "safe": it is `NO_INTERACTION_EVIDENCE`, and an unreadable table makes the answer
`QUARANTINED_EVIDENCE` so the person checks the page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from duocthu_desktop import messages
from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.payload import Reason
from duocthu_desktop.qa.answers import drug_classes
from duocthu_desktop.qa.answers.cited_answer import (
    LONG_STATEMENT_CHARS,
    CitedAnswer,
    abstain,
    join_messages,
    ordered_chunks,
    quarantine_message,
    section_heading,
    statements,
)
from duocthu_desktop.qa.answers.engine_types import EngineAnswer
from duocthu_desktop.qa.answers.sentences import paragraphs, split_sentences
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.retrieval.types import SectionResult
from duocthu_desktop.text import fold, squash_spaces

INTERACTION_KEY = "tuong_tac_thuoc"
# Read for each drug, shown in this order: what the book forbids first.
SECTION_ORDER = ("chong_chi_dinh", INTERACTION_KEY, "than_trong")

# Sub-headings the book prints inside Tương tác thuốc (general vocabulary). Found even where a printed line break
# splits one or glues it to the sentence before ("... sau mỗi lần thay đổi Chống chỉ định phối\nhợp:").
_SUBHEADINGS = (
    "chống chỉ định phối hợp", "phối hợp chống chỉ định", "không nên phối hợp", "phối hợp không nên dùng",
    "phối hợp nên tránh", "tránh phối hợp", "thận trọng khi phối hợp", "cần thận trọng khi phối hợp",
    "phối hợp cần thận trọng", "phối hợp rất thận trọng", "cần lưu ý khi phối hợp", "phối hợp cần lưu ý",
    "tăng tác dụng/độc tính", "giảm tác dụng", "tương tác dược động học", "tương tác dược lực học",
)


def _words_pattern(phrase: str) -> str:
    """Whole words, any whitespace between them (a printed line break), "/" with or without spaces."""
    return r"\s+".join(r"\s*/\s*".join(map(re.escape, w.split("/"))) for w in phrase.split())


_SUBHEADING = re.compile(
    r"(?<!\w)(?:" + "|".join(_words_pattern(h) for h in _SUBHEADINGS) + r")[^\n.:;]{0,40}?\s*:", re.IGNORECASE
)
# A short line ending in ":" that starts a line or follows a sentence: the book's own sub-heading.
_LINE_HEADING = re.compile(r"(?m)(?:^|(?<=[.!?]\s))[ \t]*([^\W\d_][^\n.:;]{1,80}?)[ \t]*:[ \t]*$")
MAX_HEADING_WORDS = 8
# Words that make an opening "...:" a heading of its own ("Tác dụng của X có thể tăng khi dùng với:"), not the
# name of one drug under the heading above ("Tamoxifen: Nguy cơ ..."); such a paragraph ends that heading's reach.
_HEADING_WORDS = ("phối hợp", "tương tác", "tác dụng", "dùng với", "dùng cùng", "dùng chung", "đồng thời", "nồng độ")


@dataclass(frozen=True)
class Statement:
    chunk: Chunk
    start: int
    end: int
    label: str | None = None


def answer_interaction(
    frame: QueryFrame, sections: dict[str, SectionResult], names: dict[str, list[str]]
) -> EngineAnswer:
    """Every statement of either drug's sections that names the other, titled by the pair, section and label.

    `sections`: drug_id -> its chunks of Chống chỉ định, Tương tác thuốc and Thận trọng (any of them; each chunk
    carries its own section_key). `names`: drug id, unknown drug or class word -> every wording to look for.
    """
    answer = CitedAnswer()
    unreadable: list[Chunk] = []
    display = {key: (vals[0] if vals else key.replace("_", " ")) for key, vals in names.items()}
    filed: dict[tuple[str, str], list[str]] = {}  # (drug, sub-heading) -> the partners the book files under it
    for drug_id, section in sections.items():
        own = {fold(n) for n in names.get(drug_id, []) if not _is_class_wording(n)}
        own.add(fold(drug_id.replace("_", " ")))
        others = {
            key: sorted({n for n in vals if n.strip() and fold(n) not in own}, key=len, reverse=True)
            for key, vals in names.items()
            if key != drug_id
        }
        for key in _section_keys(section):
            chunks = [c for c in ordered_chunks(section) if c.section_key == key]
            for chunk in chunks:
                if chunk.quarantined and not _quarantined_hits(chunk, others):
                    unreadable.append(chunk)
            for st in _statements(chunks, key):
                text = st.chunk.text[st.start : st.end]
                hit = [k for k, vals in others.items() if any(drug_classes.mentions(text, v) for v in vals)]
                if not hit:
                    continue
                title = _title(display, drug_id, hit, key, st.label)
                if st.label:
                    partners = filed.setdefault((drug_id, st.label), [])
                    partners.extend(k for k in hit if k not in partners)
                if st.chunk.quarantined:
                    title += " (bảng: cần đối chiếu trang PDF)"
                answer.add(title, "warning", st.chunk, st.start, st.end)
    all_names = " và ".join(display[k] for k in names) if names else " và ".join(sections)
    cited = {c.chunk_id for c in answer.citations}
    quarantined_hit = any(c.quarantined and c.chunk_id in cited for s in sections.values() for c in s.chunks)
    for chunk in unreadable:
        answer.add_quarantined(
            f"{_title_name(display, chunk.drug_id)} — {section_heading(chunk.section_key)}: "
            "bảng cần đối chiếu trang PDF",
            chunk,
        )
    if not cited:
        message = messages.message_for(Reason.NO_INTERACTION_EVIDENCE, names=all_names)
        if unreadable:
            return answer.result(Reason.QUARANTINED_EVIDENCE, join_messages(message, quarantine_message()))
        return abstain(Reason.NO_INTERACTION_EVIDENCE, message)
    labels = _labels_message(display, filed)
    if quarantined_hit or unreadable:
        return answer.result(Reason.QUARANTINED_EVIDENCE, join_messages(labels, quarantine_message()))
    return answer.result(None, labels)


def _labels_message(display: dict[str, str], filed: dict[tuple[str, str], list[str]]) -> str:
    """'Mục Tương tác thuốc của Warfarin ghi tamoxifen dưới tiêu đề "Chống chỉ định phối hợp".' for each
    sub-heading the partners were found under, in the book's order."""
    lines = []
    for (drug_id, label), partners in filed.items():
        said = ", ".join(display.get(k, k) for k in partners)
        lines.append(
            f"Mục {section_heading(INTERACTION_KEY)} của {_title_name(display, drug_id)} ghi {said} "
            f"dưới tiêu đề \"{label}\"."
        )
    return " ".join(lines)


def _section_keys(section: SectionResult) -> list[str]:
    present = list(dict.fromkeys(c.section_key for c in section.chunks))
    return sorted(present, key=lambda k: SECTION_ORDER.index(k) if k in SECTION_ORDER else len(SECTION_ORDER))


def _quarantined_hits(chunk: Chunk, others: dict[str, list[str]]) -> bool:
    return any(drug_classes.mentions(chunk.text, v) for vals in others.values() for v in vals)


def _is_class_wording(name: str) -> bool:
    folded = fold(name)
    return any(folded == fold(w) for cls in drug_classes.CLASSES for w in cls.synonyms)


def _title(display: dict[str, str], drug_id: str, hit: list[str], key: str, label: str | None) -> str:
    title = f"{_title_name(display, drug_id)} với " + ", ".join(display.get(k, k) for k in hit)
    title += f" — {section_heading(key)}"
    return title + (f" — {label}" if label else "")


def _title_name(display: dict[str, str], key: str) -> str:
    name = display.get(key, key.replace("_", " "))
    return name[:1].upper() + name[1:]


# ---- statements, with the sub-heading each sits under ---------------------------------------------------------


def _statements(chunks: list[Chunk], key: str) -> list[Statement]:
    """Interaction sections: paragraphs (sentences when long) labelled by the sub-heading above them; the other
    sections: sentences, since one paragraph there speaks of many things."""
    if key != INTERACTION_KEY:
        return [Statement(c, s, e) for c in chunks for s, e in split_sentences(c.text)]
    out: list[Statement] = []
    current: str | None = None  # a line heading's reach runs on across paragraphs and chunks
    for chunk in chunks:
        if chunk.quarantined:
            out.extend(Statement(chunk, s, e) for s, e in statements(chunk.text))
            continue
        labels = _labels(chunk.text)
        for ps, pe in paragraphs(chunk.text):
            inline: str | None = None
            if _opens_with_heading(chunk.text[ps:pe]):
                current = None
            # a heading broken over two lines ("phối\nhợp:") covers the start of this paragraph too
            cursor = max([ps] + [le for ls, le, _, _ in labels if ls < ps < le])
            for ls, le, label, line_end in labels:
                if not ps <= ls < pe:
                    continue
                out.extend(_pieces(chunk, cursor, ls, inline or current))
                if line_end:
                    current, inline = label, None
                else:
                    inline, current = label, None
                cursor = max(cursor, le)
            out.extend(_pieces(chunk, cursor, pe, inline or current))
    return out


def _pieces(chunk: Chunk, start: int, end: int, label: str | None) -> list[Statement]:
    text = chunk.text
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if not re.search(r"[^\W_]", text[start:end]):
        return []
    spans = split_sentences(text, (start, end)) if end - start > LONG_STATEMENT_CHARS else [(start, end)]
    return [Statement(chunk, s, e, label) for s, e in spans]


def _labels(text: str) -> list[tuple[int, int, str | None, bool]]:
    """(start, end, label, ends its line) of each sub-heading; label None when it holds a number (a title may
    only show numbers its quotes hold)."""
    found: list[tuple[int, int]] = []
    for m in _SUBHEADING.finditer(text):
        at_boundary = m.start() == 0 or text[m.start() - 1] == "\n" or text[max(0, m.start() - 2) : m.start()] == ". "
        if at_boundary or text[m.start()].isupper():
            found.append((m.start(), m.end()))
    for m in _LINE_HEADING.finditer(text):
        words = m.group(1).split()
        if m.group(1)[0].isupper() and len(words) <= MAX_HEADING_WORDS:
            if not any(s <= m.start(1) < e or m.start(1) <= s < m.end() for s, e in found):
                found.append((m.start(1), m.end()))
    out = []
    for start, end in sorted(found):
        label = squash_spaces(text[start:end].rstrip().rstrip(":"))
        line_end = not text[end:].split("\n", 1)[0].strip()
        out.append((start, end, None if re.search(r"\d", label) else label, line_end))
    return out


def _opens_with_heading(paragraph: str) -> bool:
    """'Tác dụng của warfarin có thể tăng lên khi dùng với: ...' opens with a heading of its own."""
    head, sep, _ = paragraph.partition(":")
    if not sep or "." in head or len(head.split()) > 14:
        return False
    lowered = head.lower()
    return any(re.search(r"(?<!\w)" + re.escape(w) + r"(?!\w)", lowered) for w in _HEADING_WORDS)
