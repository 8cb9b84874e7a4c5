"""Vietnamese sentence splitting and the choice of sentences that answer a question about one section.

Every piece is a (start, end) span of the original text, so a claim is always an exact substring of its chunk.
A split never happens inside a number ("0,5", "1.500", "1/1 000"), a unit ("mg/ kg") or an abbreviation
("v.v."): a sentence ends at ".", "!" or "?" only when whitespace and an upper-case letter (or a digit, quote or
bracket) follow, and always at a paragraph break.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from duocthu_desktop.text import fold

Span = tuple[int, int]

# End of sentence: terminal punctuation, whitespace, then something that starts a sentence.
_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"”)]?\s+(?=[A-ZĐÀ-Ỹ0-9\"“(\[*•–-])")
_ABBREVIATIONS = ("v.v.", "vv.", "tr.", "TS.", "BS.", "ThS.", "Dr.", "e.g.", "i.e.", "cf.", "vs.", "St.")
_WORD = re.compile(r"[0-9a-z][0-9a-z\-]*")


def paragraphs(text: str) -> list[Span]:
    """Non-blank lines, as spans with their surrounding whitespace trimmed."""
    out: list[Span] = []
    pos = 0
    for line in text.split("\n"):
        start, end = pos, pos + len(line)
        pos = end + 1
        stripped = line.strip()
        if stripped:
            lead = len(line) - len(line.lstrip())
            out.append((start + lead, start + lead + len(stripped)))
    return out


def split_sentences(text: str, span: Span | None = None) -> list[Span]:
    """Sentence spans of `text` (or of `text[span]`), in order, trimmed, never empty."""
    base_start, base_end = span if span is not None else (0, len(text))
    out: list[Span] = []
    for p_start, p_end in paragraphs(text[base_start:base_end]):
        p_start += base_start
        p_end += base_start
        cursor = p_start
        for m in _SENTENCE_END.finditer(text, p_start, p_end):
            before = text[cursor : m.start()]
            if before.rstrip().endswith(_ABBREVIATIONS) and not _abbreviation_ends_sentence(before):
                continue
            if text[cursor : m.start()].strip():
                out.append(_trim(text, cursor, m.start()))
            cursor = m.end()
        if text[cursor:p_end].strip():
            out.append(_trim(text, cursor, p_end))
    return out


def _abbreviation_ends_sentence(before: str) -> bool:
    # "v.v." closes a list; treat it as a sentence end only when the list itself looked like a sentence.
    return before.rstrip().endswith("v.v.") and len(before.strip()) > 120


def _trim(text: str, start: int, end: int) -> Span:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end)


def words(text: str) -> list[str]:
    """Folded word tokens (hyphenated names like n-acetylcystein kept whole)."""
    return _WORD.findall(fold(text))


# ---- choosing the sentences that answer --------------------------------------------------------------

LONG_SECTION_CHARS = 1500

# Words of a question that say what kind of question it is, not what it is about.
_STOPWORDS = frozenset(
    """
    la gi bao nhieu nhu the nao co khong duoc dung cua cho va voi bang trong khi thi nay do cac nhung mot
    nguoi benh thuoc lieu xu tri qua lieu tac dung mong muon chong chi dinh than trong thoi ky mang thai
    cho con bu bao quan tuong tac on dinh huong dan cach ra sao gi nao hay hoi toi muon biet xin vui long
    phu nu dang phai nen can nhu vay ve theo sau truoc tu den hoac the cung tren duoi lam gay ma
    adr ky cac duong
    """.split()
)

# A frequency header starts a line or follows a sentence ("... Protein niệu. Hiếm gặp, ADR <1/1 000").
_FREQUENCY_HEADER = re.compile(
    r"(?:^|(?<=\n)|(?<=[.:] ))(Rất thường gặp|Thường gặp|Ít gặp|Hiếm gặp|Rất hiếm gặp|Rất hiếm"
    r"|Chưa rõ tần suất|Không rõ tần suất|Không xác định tần suất)(?=\s*[,:(]|\s*\n|\s*ADR|$)"
)


def focus_terms(question: str, drop: Iterable[str] = ()) -> list[str]:
    """The folded content words of a question, without question words, section words or the drug's names."""
    dropped = {w for name in drop for w in words(name)}
    return [w for w in words(question) if len(w) >= 2 and w not in _STOPWORDS and w not in dropped]


def frequency_blocks(text: str) -> list[tuple[str, Span]]:
    """ADR frequency blocks ("Thường gặp, ADR > 1/100" ... up to the next frequency header)."""
    heads = list(_FREQUENCY_HEADER.finditer(text))
    out: list[tuple[str, Span]] = []
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        out.append((fold(m.group(1)), _trim(text, m.start(), end)))
    return out


def select_answer_spans(
    text: str, question: str, drop_names: Iterable[str] = (), whole: bool = False
) -> list[Span]:
    """The spans of a non-dosage section that answer `question`, in the book's order.

    Short sections, and any section asked for whole, are answered whole (one span a paragraph). A long section
    with a narrow question is trimmed: an ADR frequency asked for gives that frequency's block; otherwise the
    sentences carrying the question's most specific words (all of them when some sentence has all).
    """
    paras = paragraphs(text)
    if whole:
        return paras
    folded_q = fold(question)
    blocks = frequency_blocks(text)
    for freq in ("rat thuong gap", "thuong gap", "it gap", "rat hiem gap", "hiem gap"):
        if re.search(r"(?<![a-z])" + freq, folded_q):
            chosen = [span for name, span in blocks if name == freq]
            if chosen:
                return chosen
            break
    if len(text) <= LONG_SECTION_CHARS:
        return paras
    terms = focus_terms(question, drop_names)
    if not terms:
        return paras
    sentences = split_sentences(text)
    bags = [set(words(text[s:e])) for s, e in sentences]
    present = [t for t in dict.fromkeys(terms) if any(t in b for b in bags)]
    if not present:
        return paras
    with_all = [sp for sp, b in zip(sentences, bags, strict=True) if all(t in b for t in present)]
    if with_all:
        return with_all
    # The rarest word in the section is the most specific one the person used.
    rarest = min(present, key=lambda t: sum(t in b for b in bags))
    return [sp for sp, b in zip(sentences, bags, strict=True) if rarest in b]
