"""Cutting a dosage section's text into paragraphs, sentences, clauses and the labels that open them.

A label is a short phrase the book prints before ":" ("Người lớn:", "Uống:", "Trẻ em 4 - 6 tuổi:", "Suy thận:").
What a label says (route, group, band, indication, ...) is `classify`'s business; this module only finds where
labels, statements and paragraphs begin and end, as offsets into the chunk's text, so every statement stays a
verbatim span.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from duocthu_desktop.text import fold

# A dose amount: where the description of a group ends and its dose begins.
DOSE = re.compile(
    r"\d+(?:,\d+)?\s*(?:mg|g|microgam|mcg|µg|ml(?!\s*/\s*ph)|đơn vị|đvqt|đv|UI|IU|viên|giọt|mmol|%)(?!\w)"
    # a dose counted in the packs it comes in: vials, ampoules, sachets ("4 - 6 lọ"), not a tube ("ống thông")
    r"|\d+(?:,\d+)?\s*(?:lọ|ống|gói)(?!\w)(?!\s+(?:thông|nghiệm|chứa|có|\d))"
    r"|(?<=dải )\d+(?:,\d+)?\s*cm(?!\w)",  # "bôi một dải 1,3 cm": an ointment's amount by length
    re.I,
)
# What a number measures when it is not an amount given: a concentration ("5 mg/ml", "0,9%") or a rate.
# ("12 g/100 ml", "10 mg/dl": a level in the blood, a concentration by its volume)
_NOT_AMOUNT_AFTER = re.compile(r"\s*/\s*(?:ml|lít|l|giờ|phút|h|dl|\d+\s*ml)(?!\w)", re.I)
_PER_BEFORE = re.compile(r"/\s*$")  # the "100 ml" of "12 g/100 ml": the volume of a concentration
# How often a dose is given: a dosing frequency is part of a regimen even with no amount ("Ngày bôi 5 lần").
_FREQUENCY = re.compile(
    r"\d+\s*(?:lần|liều)(?:\s+(?!mỗi|một|trong)[^\W\d_]+){0,2}\s*(?:/|mỗi|một|trong)\s*(?:\d+\s*)?(?:ngày|giờ|tuần)|ngày\s*(?:\w+\s*)?\d+(?:\s*-\s*\d+)?\s*lần"
    r"|cách(?: nhau)?\s*\d+(?:\s*-\s*\d+)?\s*giờ|\d+\s*giờ\s*(?:/|một)\s*lần"
    r"|(?:nhắc|lặp) lại (?:\w+\s+)?sau\s*\d+(?:\s*-\s*\d+)?\s*giờ"
    r"|(?:ngày|mỗi ngày)\s+(?:một|hai|ba|bốn)\s+lần|(?:một|hai|ba|bốn)\s+lần\s+(?:mỗi|một|/)\s*ngày",
    re.I,
)
# A dose given by reference to another group's dose ("Liều như người lớn", "dùng 1/2 liều người lớn").
# ("Liều dùng như người lớn", "1 liều thường dùng cho sau thẩm phân", "Giống như đối với người < 50 kg",
# "Áp dụng chế độ liều và cách dùng giống như ...")
_REFERENCE = re.compile(
    r"liều(?:\s+(?:dùng|thường dùng|thông thường|tiêm|uống|truyền))?\s+(?:như|bằng|giống như|tương tự(?: như)?)\s"
    r"|\d+\s*/\s*\d+\s+liều\s|\d+\s*%\s+liều\s|\b\d+\s+liều\s+(?:thường dùng|thông thường|bình thường)\b"
    r"|^\s*(?:giống|tương tự)(?:\s+như)?\s+(?:đối với|ở|cho|với)\s|chế độ liều[^.;]{0,30}\s(?:giống như|tương tự)\s"
    # a dose said as a change of the one above ("cần giảm liều khoảng 25 - 50%", "lúc đầu dùng ½ liều")
    r"|(?:giảm|tăng|điều chỉnh)(?: \w+){0,2} liều[^.;()]{0,25}?\d+(?:,\d+)?(?:\s*-\s*\d+(?:,\d+)?)?\s*%"
    r"|(?<!\w)(?:½|1/2|một nửa)\s+liều\b",
    re.I,
)
_PARENS = re.compile(r"\([^()]*\)")
_MODAL = re.compile(r"\b(?:nên|phải|cần|có thể|được|dùng|chỉ định)\b", re.I)
_REGIMEN_NAME = re.compile(r"phác đồ\s*$", re.I)  # "theo phác đồ 1 lần/ngày" names a regimen, gives no dose
# What a vial or a solution holds, a diluent's volume, an equivalence: amounts of preparing, not of dosing.
_CONTENT_BEFORE = re.compile(r"(?:chứa|(?<!tăng )thêm|vào)\s+(?:\d+(?:,\d+)?\s*(?:-|–|đến)\s*)?$", re.I)
_CONTENT_AFTER = re.compile(r"\s*(?:\w+\s+){0,2}?(?:nước|dung dịch|dung môi|được pha|tương đương)\b", re.I)


# An amount per hour or minute is the dose of a statement that opens on its route or on "liều" ("Truyền tĩnh mạch
# 0,5 đvqt/giờ.", "Liều duy trì thông thường từ 50 - 150 microgam/phút."), not of one about how fast to give it.
_PER_TIME = re.compile(r"\s*/\s*(?:giờ|phút|h)(?!\w)", re.I)
_RATE_DOSE = re.compile(r"^\s*(?:(?:tiêm|truyền)(?: nhỏ giọt| liên tục)?(?: tĩnh mạch)?(?: liên tục)?|liều)\b", re.I)
_SPEED = re.compile(r"tốc độ|tiêm chậm|truyền chậm|trong (?:ít nhất )?\d+", re.I)
_DROPS = re.compile(r"giọt$", re.I)  # "1 giọt dung dịch 0,25%": drops of a solution are the amount given

_CEILING = re.compile(  # ("không nên dùng quá 4,5 mg/kg")
    r"(?:tối đa|cao nhất|không (?:được |nên )?(?:\w+ ){0,2}(?:vượt )?quá|vượt quá)(?:\s+(?:là|\w+))?\s*$", re.I
)


def _amounts(text: str) -> list[re.Match[str]]:
    """The amounts and frequencies a statement gives, outside brackets: not a concentration or a rate."""
    bare = _PARENS.sub(lambda m: " " * len(m.group(0)), text)
    rate_doses = _RATE_DOSE.match(bare) is not None and not _SPEED.search(bare)
    found = [m for m in DOSE.finditer(bare)
             if not m.group(0).endswith("%") and not _PER_BEFORE.search(bare, max(0, m.start() - 3), m.start())
             and not (_NOT_AMOUNT_AFTER.match(bare, m.end())
                      and not (rate_doses and _PER_TIME.match(bare, m.end())))
             and not _CONTENT_BEFORE.search(bare[max(0, m.start() - 12) : m.start()])
             and (not _CONTENT_AFTER.match(bare, m.end()) or _DROPS.search(m.group(0)))]
    found += [m for m in _FREQUENCY.finditer(bare) if not _REGIMEN_NAME.search(bare[max(0, m.start() - 20) : m.start()])]
    return found


def first_amount(text: str) -> int | None:
    """Where the first amount given (not a concentration, a percentage or a bracketed aside) begins."""
    found = _amounts(text)
    return min(m.start() for m in found) if found else None


def gives_dose(text: str) -> bool:
    """Whether a statement gives a dose: an amount outside brackets that is not a concentration or a rate,
    a dosing frequency, or another group's dose by reference. A bracketed number qualifies, it is not the dose."""
    return bool(_amounts(text) or _REFERENCE.search(_PARENS.sub(" ", text)) or _BRACKETED_REGIMEN.search(text))


# "Nên dùng liều khởi đầu thấp hơn (2,5 mg/lần/ngày)": a bracket holding an amount per dose or per day is the dose.
_BRACKETED_REGIMEN = re.compile(
    r"\(\s*\d+(?:,\d+)?(?:\s*-\s*\d+(?:,\d+)?)?\s*(?:mg|g|microgam|mcg|ml|đơn vị)\s*/\s*(?:lần|ngày|kg)[^()]*\)", re.I
)


def only_ceilings(text: str) -> bool:
    """Every amount the statement gives is a ceiling ("dùng tối đa 4 lần/24 giờ", "không quá 5 liều")."""
    found = _amounts(text)
    if not found:
        m = re.search(r"(?:không|chớ)[^.;]{0,30}quá\s*\d+\s*liều", text, re.I)
        return m is not None
    return all(_CEILING.search(text[max(0, m.start() - 30) : m.start()]) for m in found)


# "Để pha dung dịch ... cho thêm 2 ml nước", "Thêm lượng nước thích hợp vào lọ thuốc ...", "Giai đoạn 1: Hòa tan bột
# ...": making the solution up, whose amounts are not doses
_PREPARE = re.compile(r"(?:^|:\s)(?:(?:de|sau khi) )?(?:pha|hoa tan|pha loang)\b|(?:^|:\s)them (?:\w+ ){0,3}(?:nuoc|dung moi)\b"
                      r"|(?:^|:\s)the tich (?:\w+ ){0,2}them\b")
# "12,8 mg escitalopram oxalat tương đương 10 mg escitalopram", "1,09 g cloxacilin natri tương đương với 1,00 g
# cloxacilin": how much salt makes the base, not a dose
_EQUIVALENCE = re.compile(r"\d\s*(?:mg|g|microgam)\s+[^\d.;:]{2,60}?\s+tương đương(?: với)?\s+(?:khoảng\s+)?\d", re.I)


def equivalence(text: str) -> bool:
    """A statement of how much of a salt equals the base, whose amounts are not doses."""
    return _EQUIVALENCE.search(text) is not None


_PREPARE_LABEL = re.compile(r"\bde pha\b|^(?:pha|cach pha|hoa tan)\b|\bthe tich them\b|\bde (?:co|duoc) dung dich\b")


def prepares(text: str, label: bool = False) -> bool:
    """A statement (or, with `label`, the label before it) about making the solution up, not about a dose."""
    folded = fold(text).strip()
    return bool((_PREPARE_LABEL if label else _PREPARE).search(folded)) or (
        not label and bool(re.search(r"\bde pha\b[^:.]*:", folded)))


# ("Bệnh lậu ... do N. gonorrhoeae, ...:": a full stop of an abbreviated genus, before a lower-case word, is in the label)
_LABEL = re.compile(r"[ \t]*([^\s:;.!?](?:[^:;.!?\n]|(?<=\b[A-Z])\.(?= [a-z])|\n(?=[a-zà-ỹđ])){0,200}?)[ \t]*:(?=\s|$|\()")
# A sentence ends at ".", "!" or "?" before a capital letter, a digit or an opening bracket.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-ZĐÀ-Ỹ0-9(])")
_CLAUSE_END = re.compile(r";\s+(?=\S)")
_COMMA_END = re.compile(r",\s+(?=\S)")
# "Từ 10 tới 20 kg: 10 mg ≥ 20 kg: 10 hoặc 20 mg": a band's label right after the last band's dose, the two set
# side by side on one line with no stop between
_BAND_NEXT = re.compile(r"(?<=[^\W\d_])\s+(?=[≥≤<>]\s*\d+(?:,\d+)?\s*(?:kg|tuổi|tháng)\s*:)")


@dataclass
class Label:
    start: int
    end: int  # just after the ":"
    text: str  # the words before ":" as printed


@dataclass
class Piece:
    """A clause of a sentence: the labels that open it, then its own text (`body_start` to `end`)."""

    start: int
    end: int
    labels: list[Label]
    body_start: int


def paragraphs(text: str) -> list[tuple[int, int]]:
    """Paragraph spans. A line that starts with a lower-case letter continues the line before it (a heading
    or sentence wrapped by the extractor: "... (bổ" / "sung cho ...")."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in re.finditer(r"\n", text):
        nxt = text[m.end() : m.end() + 1]
        if nxt and nxt.islower():
            continue
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    cuts = [start] + [m.end() for m in _SENTENCE_END.finditer(text, start, end)] + [end]
    return [(a, _rstrip(text, a, b)) for a, b in zip(cuts, cuts[1:], strict=False) if text[a:b].strip()]


def labels_at(text: str, pos: int, end: int) -> tuple[list[Label], int]:
    """The run of labels that opens text[pos:end], and where the text after them begins."""
    found: list[Label] = []
    while True:
        m = _LABEL.match(text, pos, end)
        if m is None or DOSE.search(m.group(1)) or _opens_sentence_of_words(m.group(1)):
            break
        words = m.group(1)
        glued = _GLUED_GROUP.search(words)
        if glued is not None and not found:
            # "Suy tim Người lớn:": a heading the extractor joined to the group label after it, two labels
            found.append(Label(m.start(1), m.start(1) + glued.start(), words[: glued.start()].strip()))
            found.append(Label(m.start(1) + glued.end(), m.end(), words[glued.end() :]))
            pos = m.end()
            continue
        if words.startswith("(") and found:
            # "(sau 3 lần tái phát/năm):" qualifies the label before it
            prev = found[-1]
            found[-1] = Label(prev.start, m.end(), text[prev.start : m.start(1) + len(words)].rstrip(": "))
        else:
            found.append(Label(m.start(1), m.end(), words))
        pos = m.end()
    while pos < end and text[pos].isspace():
        pos += 1
    return found, pos


# a capitalised group word after words of a heading ("Suy tim Người lớn"), not after a preposition or a comma
_GLUED_GROUP = re.compile(r"(?<=[a-zà-ỹđ])\s+(?=(?:Người lớn|Người cao tuổi|Trẻ em|Trẻ sơ sinh|Sơ sinh)\b)")


def _opens_sentence_of_words(words: str) -> bool:
    """A long run of words before ":" is a sentence introducing what follows, not a label."""
    bare = _PARENS.sub(" ", words)  # a bracketed aside does not make a label a sentence
    if len(bare.split()) > 28:
        return True
    # a long label lists what it is for; one that says what to do is a sentence
    return len(words) > 90 and bool(_MODAL.search(bare))


def pieces(
    text: str,
    start: int,
    end: int,
    cuts: Callable[[str], bool] | None = None,
    cuts_clause: Callable[[str], bool] | None = None,
) -> list[Piece]:
    """A sentence cut into clauses at each ";" whose next clause opens with a label of its own; with `cuts`, only
    a label `cuts` accepts (a group, a route, a band) cuts: "; Liều thường dùng: ..." continues the clause. With
    `cuts_clause`, a clause with no label cuts too when it accepts the clause's text ("...; trẻ em 1 - 5 mg"),
    and so does a label after a comma that `cuts` accepts ("Người lớn: 2 g/ngày, trẻ em: 50 mg/kg/ngày")."""
    out: list[Piece] = []
    pos = start
    labels, body = labels_at(text, pos, end)
    ends = sorted([*_CLAUSE_END.finditer(text, start, end), *_COMMA_END.finditer(text, start, end),
                   *_BAND_NEXT.finditer(text, start, end)], key=lambda m: m.start())
    for m in ends:
        if m.start() < body:
            continue
        nxt_labels, nxt_body = labels_at(text, m.end(), end)
        comma = m.group(0).startswith(",")
        nxt_end = next((n.start() for n in _CLAUSE_END.finditer(text, m.end(), end)), end)
        if nxt_labels and (cuts is None or cuts(nxt_labels[0].text)) and not (comma and cuts_clause is None):
            if comma and not (gives_dose(text[body : m.start()]) and cuts_clause(text[m.end() : nxt_end])):
                continue
            out.append(Piece(pos, m.start(), labels, body))
            pos, labels, body = m.end(), nxt_labels, nxt_body
        elif not nxt_labels and not comma and cuts_clause is not None:
            if cuts_clause(text[m.end() : nxt_end]):
                out.append(Piece(pos, m.start(), labels, body))
                pos, labels, body = m.end(), [], m.end()
    out.append(Piece(pos, end, labels, body))
    return out


def _rstrip(text: str, a: int, b: int) -> int:
    while b > a and text[b - 1].isspace():
        b -= 1
    return b
