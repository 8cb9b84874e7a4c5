"""Personal data masked before anything is written: phones, ID, card and record numbers, emails, birth dates,
addresses, rooms and names.

The conversation store and the traces keep what a turn needs (the clinical facts, the question's words), never
who asked. A number is personal by its shape: a phone is 0, 84 or +84 then 9-10 digits, a CMND 9 digits and a
CCCD 12, with any spacing or punctuation between the digits, and no dose unit after them ("1 200 000 đơn vị" is a
dose); a health-insurance card is two letters and 13 digits ("DN4010123456789"); a record number is letters
joined to digit groups ("HS24-7781"), or any code after a record word ("mã hồ sơ 2024/001234"). A date is
personal after a birth word ("sinh ngày 12/03/1985"), a number after a room word ("phòng 305"), and an address
is a run of its parts ("số 12 ngõ 34 phố Huế"). A name is a Vietnamese family name from a closed list followed
by given-name syllables, in any case with or without diacritics ("Nguyễn Văn An", "nguyen thi hoa"), syllables
after a title or kin word ("bệnh nhân", "tôi là", "chị", "bé ngọc anh"), or a foreign given name or title before
capitalised words ("John Smith", "Mr Brown"). Doses, Clcr, weights, ages, lab values, other dates and drug
names are left as typed.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from duocthu_desktop.qa.conversation import personal_words as pw
from duocthu_desktop.qa.understanding.catalog import is_vietnamese_word
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.text import fold

PHONE_MASK = "[SĐT]"
ID_MASK = "[SỐ ĐỊNH DANH]"
EMAIL_MASK = "[EMAIL]"
NAME_MASK = "[TÊN]"
BIRTH_MASK = "[NGÀY SINH]"
ADDRESS_MASK = "[ĐỊA CHỈ]"
ROOM_MASK = "[PHÒNG]"
MAX_STORED_CHARS = 2000  # of a question, after masking
MAX_WORD_CHARS = 60  # of one stored word or phrase (a drug said, a condition's words)
MAX_WORDS = 20  # of one stored list (unknown drugs, class words)

# ---- numbers -------------------------------------------------------------------------------------------

_SEP = r"[\s.\-–—_()\u200b-\u200d\ufeff]"
_NUMBER = re.compile(rf"(?<!\d)\+?\d(?:{_SEP}{{0,3}}\d)*")
_DIGITS = re.compile(r"\d+")
_DOSE_UNIT = re.compile(
    r"\s*(?:mg|mcg|µg|μg|microgam|g|gam|kg|ml|l|lít|iu|ui|đv|đơn\s+vị|dv|don\s+vi|%|mmol|meq|viên|giọt|ống|lọ|gói)"
    r"(?![^\W\d_])",
    re.IGNORECASE,
)
_MAX_GROUPS = 13  # a personal number has at most 13 digits, so at most 13 digit groups


def _number_kind(digits: str) -> str | None:
    """PHONE_MASK, ID_MASK or None for a run of ASCII digits."""
    if digits.startswith("0084"):
        return PHONE_MASK if 9 <= len(digits) - 4 <= 10 else None
    if digits.startswith("84") and len(digits) in (11, 12):
        return PHONE_MASK
    if digits.startswith("0") and len(digits) in (10, 11):
        return PHONE_MASK
    return ID_MASK if len(digits) in (9, 12) else None


def _number_spans(text: str) -> list[tuple[int, int, str]]:
    """Phone and ID numbers; a run of several numbers ("CCCD 001203004567 0912345678") is split at its gaps."""
    spans: list[tuple[int, int, str]] = []
    for run in _NUMBER.finditer(text):
        at = run.start()
        groups = [(at + m.start(), at + m.end(), m.group(0)) for m in _DIGITS.finditer(run.group(0))]
        i = 0
        while i < len(groups):
            for j in range(min(len(groups), i + _MAX_GROUPS), i, -1):
                digits = "".join(str(unicodedata.digit(ch)) for _, _, g in groups[i:j] for ch in g)
                kind = _number_kind(digits) if len(digits) <= 14 else None
                if kind and not _DOSE_UNIT.match(text, groups[j - 1][1]):
                    start = groups[i][0] - (1 if i == 0 and run.group(0).startswith("+") else 0)
                    spans.append((start, groups[j - 1][1], kind))
                    i = j
                    break
            else:
                i += 1
    return spans


# ---- emails -----------------------------------------------------------------------------------------------

_AT = re.compile(r"@|＠|\s?[(\[]at[)\]]\s?", re.IGNORECASE)
_LOCAL_CHAR = re.compile(r"[\w.+%\-]")
_DOMAIN = re.compile(r"\s*[\w\-]+(?:\.[\w\-]+)*")


def _email_spans(text: str) -> list[tuple[int, int, str]]:
    spans = []
    for at in _AT.finditer(text):
        start = at.start()
        while start > 0 and at.start() - start < 64 and _LOCAL_CHAR.match(text[start - 1]):
            start -= 1
        domain = _DOMAIN.match(text, at.end())
        if start < at.start() and domain and domain.end() - domain.start() <= 255:
            spans.append((start, domain.end(), EMAIL_MASK))
    return spans


# ---- labelled data: cards and records, birth dates, rooms, addresses --------------------------------------


@functools.lru_cache(maxsize=4)  # each finder reads the same text folded
def _folded_same_length(text: str) -> str:
    """`text` folded (lower case, no diacritics) with every character where it was, so spans carry over."""
    folded = fold(text)
    return folded if len(folded) == len(text) else "".join(fold(ch)[:1] or ch for ch in text)


def _words_re(phrases) -> str:
    """Any of the folded phrases as whole words, any spacing; the longest first."""
    alternatives = sorted({p for p in phrases}, key=len, reverse=True)
    return "(?:" + "|".join(r"\s+".join(re.escape(w) for w in p.split()) for p in alternatives) + r")(?![a-z0-9])"


_CARD = re.compile(r"(?<![a-z0-9])[a-z]{2}[\s.\-]?\d(?:[\s.\-]?\d){12}(?!\d)")
_RECORD_SHAPE = re.compile(r"(?<![a-z0-9])[a-z]{1,5}-?\d{2,}(?:[/.\-]\d{2,})+(?![a-z0-9])")
_RECORD_UPPER = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2,5}\d{6,}(?![A-Za-z0-9])")
_RECORD_LABELLED = re.compile(
    rf"(?<![a-z0-9]){_words_re(pw.RECORD_LABELS)}\s*(?:so\s+)?[:#]?\s*"
    r"(?P<v>[a-z0-9][a-z0-9/.\-]*\d[a-z0-9/.\-]*)"
)
_DATE = (
    r"(?:\d{1,2}\s*[/.\-]\s*\d{1,2}\s*[/.\-]\s*\d{2,4}"
    r"|\d{4}\s*[/.\-]\s*\d{1,2}\s*[/.\-]\s*\d{1,2}"
    r"|\d{1,2}\s+thang\s+\d{1,2}(?:\s*(?:,|nam)\s*\d{2,4})?"
    r"|(?:thang\s+)?\d{1,2}\s*[/.\-]\s*\d{4}"
    r"|(?:nam\s+)?(?:19|20)\d{2})(?!\d)"
)
_BIRTH = re.compile(rf"(?<![a-z0-9]){_words_re(pw.BIRTH_LABELS)}\s*[:\-]?\s*(?P<v>{_DATE})")
_ROOM = re.compile(
    rf"(?<![a-z0-9]){_words_re(pw.ROOM_LABELS)}\s*[:#]?\s*(?P<v>[a-z]?\d+[a-z]?(?:[\-/.]\d+[a-z]?)*)(?![a-z0-9])"
)
_NUM = r"\d+[a-z]?(?:/\d+[a-z]?)*"
_NUMBERED_PLACE = re.compile(rf"(?<![a-z0-9]){_words_re(pw.NUMBERED_PLACES)}\s*:?\s*{_NUM}(?![a-z0-9])")
_NAMED_PLACE = re.compile(rf"(?<![a-z0-9]){_words_re(pw.NAMED_PLACES)}(?:(?<=tp)\.)?[ \t]*")
_HOUSE_NUMBER = re.compile(rf"(?<![a-z0-9])(?:so\s+)?{_NUM}(?![a-z0-9])")
_PLACE_GAP = re.compile(r"[\s,;]*")


def _typed_as(text: str, start: int, end: int, spelled: frozenset[str]) -> bool:
    """The label at text[start:end] is typed as one of `spelled` (with its diacritics), or in lower case without
    any ("Quân" and "Phong" are names, "quận" and "phòng" are not)."""
    typed = " ".join(text[start:end].split()).rstrip(".:")
    return typed.islower() if typed.isascii() else typed.lower() in spelled


def _not_a_dose(text: str, end: int) -> bool:
    return not _DOSE_UNIT.match(text, end)


def _code_spans(text: str) -> list[tuple[int, int, str]]:
    """Insurance cards, record numbers by their shape, and any code after a record word."""
    low = _folded_same_length(text)
    spans = [(m.start(), m.end(), ID_MASK) for m in _CARD.finditer(low)]
    spans += [(m.start(), m.end(), ID_MASK) for m in _RECORD_SHAPE.finditer(low) if _not_a_dose(text, m.end())]
    spans += [(m.start(), m.end(), ID_MASK) for m in _RECORD_UPPER.finditer(text)]
    for m in _RECORD_LABELLED.finditer(low):
        value = m.group("v").rstrip(".-/")
        if sum(ch.isdigit() for ch in value) >= 3 and _not_a_dose(text, m.start("v") + len(value)):
            spans.append((m.start("v"), m.start("v") + len(value), ID_MASK))
    return spans


def _birth_spans(text: str) -> list[tuple[int, int, str]]:
    return [(m.start("v"), m.end("v"), BIRTH_MASK) for m in _BIRTH.finditer(_folded_same_length(text))]


def _room_spans(text: str) -> list[tuple[int, int, str]]:
    low = _folded_same_length(text)
    spans = []
    for m in _ROOM.finditer(low):
        before = low[max(0, m.start() - 3) : m.start()]
        label = m.group(0)[: m.start("v") - m.start()]
        if before != "du " and _not_a_dose(text, m.end()) and (  # "dự phòng 2 lần" is prevention
                label.strip().startswith("p.") or _typed_as(text, m.start(), m.start() + len(label), pw.ROOM_WORDS)):
            spans.append((m.start("v"), m.end(), ROOM_MASK))
    return spans


def _place_name(text: str, at: int) -> tuple[int, bool] | None:
    """(end, capitalised) of the name after a place word at `at`: 1-4 capitalised words, or 1-3 lower-case ones
    (counted only beside a numbered part); None when the words are a route or body part ("đường uống")."""
    words = []
    for m in _WORD.finditer(text, at):
        if words and not _NAME_GAP.fullmatch(text, words[-1].end(), m.start()):
            break
        if not words and text[at : m.start()].strip():
            return None
        words.append(m)
        if len(words) == 4:
            break
    if not words or len(words[0].group(0)) < 2 or words[0].group(0).lower() in pw.NOT_PLACE_NAMES:
        return None
    capitalised = words[0].group(0)[0].isupper()
    end = None
    for n, w in enumerate(words):
        word = w.group(0)
        lower = word.lower()
        if word[0].isupper() != capitalised or lower in pw.NOT_PLACE_NAMES or (not capitalised and (
                n == 3 or lower in _NOT_NAMES or fold(word) in _NOT_NAMES_TYPED_PLAIN)):
            break
        end = w.end()
    return (end, capitalised) if end is not None else None


def _address_spans(text: str) -> list[tuple[int, int, str]]:
    """Runs of address parts: a numbered part ("ngõ 34") or a place word with a number or a capitalised name
    ("quận 3", "phố Huế") makes one; a house number before it ("số 12") and lower-case names beside a numbered
    part ("ngo 34 pho hue") join it."""
    low = _folded_same_length(text)
    parts: list[tuple[int, int, str]] = []  # (start, end, "strong" | "weak" | "near")
    for m in _NUMBERED_PLACE.finditer(low):
        label = re.match(r"[^\d]*", m.group(0)).group(0)
        if _not_a_dose(text, m.end()) and _typed_as(text, m.start(), m.start() + len(label), pw.PLACE_WORDS):
            named = _place_name(text, m.end())  # "hẻm 12 Kim Mã": the street's name after its number
            parts.append((m.start(), named[0] if named and named[1] else m.end(), "strong"))
    for m in _NAMED_PLACE.finditer(low):
        if not _typed_as(text, m.start(), m.end(), pw.PLACE_WORDS):
            continue
        number = re.compile(rf"{_NUM}(?![a-z0-9])").match(low, m.end())
        if number and _not_a_dose(text, number.end()):
            parts.append((m.start(), number.end(), "strong"))
            continue
        named = _place_name(text, m.end())
        if named is not None:
            parts.append((m.start(), named[0], "strong" if named[1] else "near"))
    for m in _HOUSE_NUMBER.finditer(low):
        if _not_a_dose(text, m.end()):
            parts.append((m.start(), m.end(), "weak"))
    parts.sort(key=lambda p: (p[0], -p[1]))
    kept: list[tuple[int, int, str]] = []
    for part in parts:  # no overlaps: the earliest, then the longest
        if not kept or part[0] >= kept[-1][1]:
            kept.append(part)
    spans = []
    chain: list[tuple[int, int, str]] = []

    def close() -> None:
        while chain and chain[-1][2] == "weak":  # a number after an address is no house number ("5 tuổi")
            chain.pop()
        kinds = [k for _, _, k in chain]
        if "strong" in kinds and (kinds.count("near") == 0 or any(
                _NUMBERED_PLACE.match(low, s) for s, _, k in chain if k == "strong")):
            spans.append((chain[0][0], chain[-1][1], ADDRESS_MASK))
        chain.clear()

    for part in kept:
        if chain and not _PLACE_GAP.fullmatch(low, chain[-1][1], part[0]):
            close()
        chain.append(part)
    close()
    return spans


# ---- names --------------------------------------------------------------------------------------------------

# The common Vietnamese family names, as written. Left out: those that are also clinical words when capitalised
# or places ("Tăng Huyết Áp", "Cao Huyết Áp", "Giang Mai", "Lâm Sàng", "Kim Tiêm", "Đào Thải", "Lưu Ý",
# "Thân Nhiệt", "Hà Nội", "Châu Âu").
FAMILY_NAMES = (
    "Nguyễn", "Trần", "Lê", "Phạm", "Hoàng", "Huỳnh", "Phan", "Vũ", "Võ", "Đặng", "Bùi", "Đỗ", "Hồ", "Ngô",
    "Dương", "Lý", "Đinh", "Đoàn", "Trương", "Trịnh", "Lương", "Mai", "Quách", "Vương", "Triệu", "Phùng", "Kiều",
    "Hứa", "Diệp", "Tống", "Khổng", "Lã", "Mạc", "Nghiêm", "Doãn", "Khúc",
)
# Typed without diacritics: only those that are no other word ("Do", "Ho", "Dang" are "do", "ho", "đang").
_FOLDED_FAMILY = frozenset(fold(n) for n in FAMILY_NAMES) - {"do", "ho", "dang", "ly", "mai", "la"}
_FAMILY = frozenset(n.lower() for n in FAMILY_NAMES)
_ONLY_A_NAME = frozenset({"nguyễn"})  # a family name that is no other word, so read even in lower case
# Words before a name: those that name a person may take a colon ("Họ tên: ..."), kinship words may not ("Trẻ em:
# Một liều ..." is a heading). Matched with the diacritics typed ("châu Á" is no "cháu"), or folded when typed
# without any.
NAMING_TITLES = (
    "bệnh nhân", "bệnh nhi", "người bệnh", "bn", "họ tên", "họ và tên", "tên", "tên là", "tên tôi là", "tôi là",
    "tôi tên", "tôi tên là", "mình là", "mình tên", "em là", "em tên", "cháu là", "cháu tên", "con tôi là",
    "con tôi tên",
)
KIN_TITLES = ("anh", "chị", "em", "bé", "cháu", "cô", "chú", "bác", "ông", "bà", "bạn", "con")
_TITLES = {tuple(t.split()): t in NAMING_TITLES for t in (*NAMING_TITLES, *KIN_TITLES)}  # words -> takes a colon
_TITLES_PLAIN = {tuple(fold(" ".join(words)).split()): colon for words, colon in _TITLES.items()}
_MAX_TITLE_WORDS = max(len(t) for t in _TITLES)
# Capitalised words that follow a title word in Title Case text and are no name ("Bà Bầu", "Người Bệnh Suy Thận"),
# compared with their diacritics ("thì" is no name, "Thị" is), and typed without them (only those no name shares).
_NOT_NAMES = frozenset((
    "bị", "có", "đang", "dùng", "uống", "tiêm", "bầu", "nặng", "mang", "suy", "bệnh", "thuốc", "liều", "được",
    "không", "nên", "cần", "muốn", "hỏi", "sốt", "ho", "đau", "nôn", "là", "và", "của", "cho", "với", "thì",
    "này", "ấy", "nhỏ", "lớn", "già", "trẻ", "sơ", "nóng", "tôi", "em", "mình", "bé", "con", "khan", "gà",
    "tuổi", "tháng", "tuần", "ngày", "kg", "mg", "ml", "sđt", "cccd", "cmnd", "email", "hiv", "huyết", "áp",
    "tiểu", "viêm", "nhiễm", "ung", "hen", "mổ", "đẻ", "thai", "phụ", "nữ", "người", "tính", "ơi", "ạ", "à",
))
_NOT_NAMES_TYPED_PLAIN = frozenset((
    "bi", "co", "dang", "dung", "uong", "tiem", "bau", "nang", "mang", "suy", "benh", "thuoc", "duoc", "khong",
    "nen", "can", "muon", "sot", "dau", "va", "cua", "cho", "voi", "nay", "tuoi", "kg", "mg", "ml", "sdt", "cccd",
    "cmnd", "email", "hiv", "huyet", "ap", "viem", "nhiem", "hen",
))
_WORD = re.compile(r"[^\W\d_]+")
_COLON_GAP = re.compile(r"[ \t]*:[ \t]*|[ \t]+")
_NAME_GAP = re.compile(r"[ \t]+")


def _case(word: str) -> str | None:
    if word.isupper():
        return "upper"
    if word[0].isupper() and (len(word) == 1 or word[1:].islower()):
        return "title"
    return "lower" if word.islower() else None


_AMBIGUOUS_FOLDED = frozenset({"do", "ho", "dang", "ly", "mai", "la"})
_ALL_FOLDED_FAMILY = frozenset(fold(n) for n in FAMILY_NAMES)
_KIN_WORDS = frozenset(KIN_TITLES) | {fold(k) for k in KIN_TITLES} | {
    "mẹ", "bố", "ba", "má", "vợ", "chồng", "me", "bo", "vo", "chong", "tôi", "toi"}


def _given(word: str, common_too: bool = True) -> bool:
    """A given or middle name syllable, compared with its diacritics, or folded when typed without any; with
    `common_too` False, none that is also a common word ("thai", "trong" typed plain)."""
    lower = word.lower()
    if word.isascii():
        folded = fold(word)
        found = folded in pw.GIVEN_FOLDED or folded in pw.MIDDLE_FOLDED
        return found and (common_too or folded not in pw.COMMON_FOLDED)
    found = lower in pw.GIVEN_NAMES or lower in pw.MIDDLE_NAMES
    return found and (common_too or lower not in pw.COMMON_WORDS)


def _middle(word: str) -> bool:
    return (fold(word) in pw.MIDDLE_FOLDED) if word.isascii() else word.lower() in pw.MIDDLE_NAMES


def _name_word(word: str, case: str | None, in_name: bool = False) -> bool:
    """A syllable of a name in `case`; inside a name already begun, any given name counts ("Tran Thi Dung")."""
    if _case(word) != case or not is_vietnamese_word(fold(word)):
        return False
    if case == "lower":
        return _given(word)
    not_names = _NOT_NAMES_TYPED_PLAIN if word.isascii() else _NOT_NAMES
    return word.lower() not in not_names or (in_name and _given(word))


def _name_spans(text: str) -> list[tuple[int, int, str]]:
    words = [(m.start(), m.end(), m.group(0)) for m in _WORD.finditer(text)]
    folded = [fold(w) for _, _, w in words]
    spans = []
    i = 0
    while i < len(words):
        end = _name_at(text, words, folded, i) if folded[i] in _NAME_STARTS else None
        if end is not None:
            start_word, end_word = end
            spans.append((words[start_word][0], words[end_word - 1][1], NAME_MASK))
            i = end_word
        else:
            i += 1
    return spans


# the folded words a name (or its title) can start with: any other word is passed over at once
_NAME_STARTS = _ALL_FOLDED_FAMILY | {fold(k[0]) for k in _TITLES} | pw.FOREIGN_TITLES | pw.FOREIGN_GIVEN


def _adjacent(text: str, words: list[tuple[int, int, str]], a: int, gap: re.Pattern[str]) -> bool:
    """Only `gap` between word a and word a + 1."""
    return a + 1 < len(words) and gap.fullmatch(text, words[a][1], words[a + 1][0]) is not None


def _following_names(text: str, words, first: int, case: str | None, most: int, in_name: bool = False,
                     common_first: bool = True) -> int:
    """The index after the last name syllable of the run starting at `first` (== first when there is none)."""
    j = first
    while j < len(words) and j - first < most and _name_word(words[j][2], case, in_name or j > first):
        if j > first and not _adjacent(text, words, j - 1, _NAME_GAP):
            break
        if j == first and not common_first and not _given(words[j][2], common_too=False):
            break
        j += 1
    return j


def _family(word: str) -> bool:
    """A family name of the list, as written, or typed without diacritics."""
    return word.lower() in _FAMILY or (word.isascii() and fold(word) in _ALL_FOLDED_FAMILY)


def _family_name_at(text: str, words, i: int) -> int | None:
    """The end of a name that starts with a family name at word i ("Nguyễn Văn An", "nguyen thi hoa")."""
    word = words[i][2]
    case = _case(word)
    if not _family(word) or not _adjacent(text, words, i, _NAME_GAP) or case is None:
        return None
    plain = word.isascii()
    ambiguous = plain and fold(word) in _AMBIGUOUS_FOLDED  # "do", "ho", "dang" are other words
    if case in ("title", "upper") and not ambiguous and (not plain or fold(word) in _FOLDED_FAMILY):
        end = _following_names(text, words, i + 1, case, 3, in_name=True)
        return end if end > i + 1 else None
    if word.lower() in _ONLY_A_NAME:
        end = _following_names(text, words, i + 1, case, 3, in_name=True)
        return end if end > i + 1 else None
    # lower case, or a family name that is also a word: a middle name or two given names must follow
    end = _following_names(text, words, i + 1, case, 3, in_name=True)
    if case != "lower":
        end = i + 1 + next((n for n in range(end - i - 1) if not _given(words[i + 1 + n][2])), end - i - 1)
    if end - (i + 1) < 2 or (ambiguous and not _middle(words[i + 1][2])):
        return None
    following = [w for _, _, w in words[i + 1 : end]]
    if case == "lower" and not word.isascii() and following[0].lower() not in _MARKERS and all(
            _common(w) for w in following):
        return None  # "nghiêm trọng như": a family name that is also a word, then only common words
    return end


def _common(word: str) -> bool:
    return (fold(word) in _COMMON_WORDS_FOLDED) if word.isascii() else word.lower() in pw.COMMON_WORDS


_COMMON_WORDS_FOLDED = frozenset(fold(w) for w in pw.COMMON_WORDS)


_MARKERS = frozenset({"thị", "văn", "thi", "van"})  # after a family name: only ever a middle name


def _foreign_name_at(text: str, words, i: int) -> tuple[int, int] | None:
    """A foreign given name before capitalised words ("John Smith"), or capitalised words after a title ("Mr.
    Brown"): (first word, after last word)."""
    word = words[i][2]
    lower = word.lower()
    if lower in pw.FOREIGN_TITLES and i + 1 < len(words):
        gap = text[words[i][1] : words[i + 1][0]]
        if re.fullmatch(r"\.?[ \t]+", gap) and _case(words[i + 1][2]) in ("title", "upper"):
            end = i + 1
            while end < len(words) and end - i <= 3 and _case(words[end][2]) in ("title", "upper") and (
                    end == i + 1 or _adjacent(text, words, end - 1, _NAME_GAP)):
                end += 1
            return i + 1, end
    if word.isascii() and lower in pw.FOREIGN_GIVEN and _case(word) in ("title", "upper"):
        end = i + 1
        while end < len(words) and end - i <= 2 and _case(words[end][2]) == _case(word) and _adjacent(
                text, words, end - 1, _NAME_GAP) and words[end][2].lower() not in _NOT_NAMES:
            end += 1
        if end > i + 1:
            return i, end
    return None


def _name_at(text: str, words, folded: list[str], i: int) -> tuple[int, int] | None:
    """(first word, after last word) of a name starting at or after a title starting at word i, else None."""
    end = _family_name_at(text, words, i)
    if end is not None:
        return i, end
    foreign = _foreign_name_at(text, words, i)
    if foreign is not None:
        return foreign
    for n in range(min(_MAX_TITLE_WORDS, len(words) - i), 0, -1):
        said = words[i : i + n]
        plain = all(w.isascii() for _, _, w in said)
        titles = _TITLES_PLAIN if plain else _TITLES
        key = tuple(folded[i : i + n]) if plain else tuple(w.lower() for _, _, w in said)
        if key not in titles:
            continue
        if any(not _adjacent(text, words, k, _NAME_GAP) for k in range(i, i + n - 1)):
            continue
        last = i + n - 1
        if not _adjacent(text, words, last, _COLON_GAP if titles[key] else _NAME_GAP):
            continue
        first = last + 1
        name_case = _case(words[first][2])
        title_case = _case(words[last][2])
        if _family(words[first][2]) and name_case is not None:  # "tôi là lê minh tuấn", "benh nhan trinh anh"
            end = _following_names(text, words, first + 1, name_case, 3, in_name=True)
            if end > first + 1:
                return first, end
        if name_case == "title" or (name_case == "upper" and title_case != "upper"):
            end = _following_names(text, words, first, name_case, 4)
            if end > first:
                return first, end
        if name_case == "lower":  # "bé ngọc anh", "tên tôi là lan": given names, none a common word first
            end = _following_names(text, words, first, "lower", 3, common_first=False)
            if end > first:
                return first, end
        return None
    return None


# ---- masking ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    mask: str


def _clean(text: str) -> str:
    """NFC (so a name typed decomposed is one word), and no lone surrogates (invalid UTF-8 from the command line)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")
    return unicodedata.normalize("NFC", text)


def find(text: str, keep: Iterable[str] = ()) -> list[Span]:
    """The personal data in `text` (already clean), in order, never overlapping; the words in `keep` (the drug
    names the catalog read) are never part of one."""
    protected = [
        (m.start(), m.end())
        for word in keep
        if word.strip()
        for m in re.finditer(rf"(?<!\w){re.escape(word.strip())}(?!\w)", text, re.IGNORECASE)
    ]
    found: list[Span] = []
    for finder in (_email_spans, _code_spans, _birth_spans, _number_spans, _name_spans, _room_spans,
                   _address_spans):
        for start, end, label in finder(text):
            if any(a < end and start < b for a, b in protected):
                continue
            overlaps = [s for s in found if s.start < end and start < s.end]
            if label == ADDRESS_MASK and all(s.mask in _INSIDE_AN_ADDRESS for s in overlaps):
                # a street named after a person ("phố Trần Hưng Đạo") or a room number is part of the address
                found = [s for s in found if s not in overlaps]
                start, end = min([start, *(s.start for s in overlaps)]), max([end, *(s.end for s in overlaps)])
                overlaps = []
            if not overlaps:
                found.append(Span(start, end, label))
    return sorted(found, key=lambda s: s.start)


_INSIDE_AN_ADDRESS = (NAME_MASK, ROOM_MASK)


def mask(text: str, keep: Iterable[str] = ()) -> str:
    """`text` with each piece of personal data (phone, ID, card or record number, email, birth date, address,
    room, name) replaced by its mask."""
    text = _clean(text)
    out, last = [], 0
    for span in find(text, keep):
        out += [text[last : span.start], span.mask]
        last = span.end
    out.append(text[last:])
    return "".join(out)


def echo_masker(said: str, keep: Iterable[str] = ()) -> Callable[[str], str]:
    """`mask`, and also each piece of what the person typed (`said`) that was personal data there and holds a
    digit ("B1-04", "12A"): the answer may repeat it where nothing around it says what it is ("không ghi liều
    riêng cho "số B1-04""), so it is found by the question's own spans, not by its new context."""
    said = _clean(said)
    pieces = {m.group(0): span.mask for span in find(said, keep)
              for m in re.finditer(r"[^\s\"'“”(),;:]+", said[span.start : span.end]) if re.search(r"\d", m.group(0))}
    patterns = [(re.compile(rf"(?<![\w-]){re.escape(piece)}(?![\w-])", re.IGNORECASE), label)
                for piece, label in sorted(pieces.items(), key=lambda kv: -len(kv[0]))]

    def masked(text: str) -> str:
        text = mask(text, keep)
        for pattern, label in patterns:
            text = pattern.sub(label, text)
        return text

    return masked


def cap(text: str, limit: int = MAX_STORED_CHARS) -> str:
    """At most `limit` characters: the beginning and the end, joined by an ellipsis."""
    if len(text) <= limit:
        return text
    head = (limit - 3) // 2
    return f"{text[:head]} … {text[len(text) - (limit - 3 - head):]}"


def stored_text(text: str, keep: Iterable[str] = (), limit: int = MAX_STORED_CHARS) -> str:
    """Masked, then capped. A long text is masked only near the parts kept, so a cut never splits a number."""
    margin = 4 * limit  # masks shorten a text by far less than this
    if len(text) > 2 * margin:
        text = mask(text[:margin], keep)[: limit // 2] + " … " + mask(text[-margin:], keep)[-(limit // 2) :]
    return cap(mask(text, keep), limit)


# ---- frames and lists of words ---------------------------------------------------------------------------------

# Words that label personal data ("email", "SĐT") or come from an address: never a drug's name.
LABEL_WORDS = frozenset({
    "email", "e-mail", "mail", "gmail", "yahoo", "hotmail", "outlook", "icloud", "zalo", "facebook", "sdt", "dt",
    "cccd", "cmnd", "cmt", "hotline", "tel", "phone", "com", "vn", "net", "org",
})


_AROUND = 300  # characters each side: more than any phone, ID, email or name with its title word


def _inside_personal_data(word: str, text: str) -> bool:
    """Is `word` ("gmail", "Tuấn"), as typed in `text`, inside its personal data? Its first few places are looked
    at, each in the text around it, so a long text costs no more than a short one."""
    at, seen, tries = text.find(word), 0, 0
    while at >= 0 and seen < 5 and tries < 1000:
        tries += 1
        end = at + len(word)
        whole = (at == 0 or not text[at - 1].isalnum()) and (end == len(text) or not text[end].isalnum())
        if whole:
            seen += 1
            lo = max(0, at - _AROUND)
            if any(s.start <= at - lo and end - lo <= s.end for s in find(text[lo : end + _AROUND])):
                return True
        at = text.find(word, at + 1)
    return False


def clean_words(words: Iterable[str], text: str, keep: Iterable[str] = ()) -> list[str]:
    """`words` (read from `text`) without those that are personal data, a piece of it in `text`, or a label of it
    ("email", "SĐT"); each capped, and at most MAX_WORDS."""
    text = _clean(text)
    out = []
    for word in words:
        word = _clean(word).strip()
        tokens = {fold(t) for t in re.findall(r"[^\W_]+", word)}
        if not tokens or tokens <= LABEL_WORDS or mask(word, keep) != word or _inside_personal_data(word, text):
            continue
        out.append(cap(word, MAX_WORD_CHARS))
        if len(out) == MAX_WORDS:
            break
    return out


_PIECES_FROM = 16 * MAX_STORED_CHARS  # characters of a turn's text searched for the pieces of its fields


def stored_frame(frame: QueryFrame, said: str = "") -> QueryFrame:
    """The frame as it may be written: every clinical fact kept, its text masked and capped, personal pieces
    dropped from its word lists. `said` is the turn's own text, when the frame's question is not all of it."""
    keep = [*frame.drug_mentions.values(), *frame.via_trade_name.values()]
    text = frame.question if said in ("", frame.question) else f"{said}\n{frame.question}"

    # the personal pieces found in the question, removed from the fields read out of it whatever their case:
    # "đặt trần thị bích ngọc" in a lower-cased condition has no capital left to be found by
    cleaned = _clean(text)
    if len(cleaned) > _PIECES_FROM:  # a pasted document: its pieces are looked for where the fields are kept
        cleaned = f"{cleaned[:_PIECES_FROM // 2]}\n{cleaned[-_PIECES_FROM // 2:]}"
    pieces = [cleaned[sp.start : sp.end] for sp in find(cleaned, keep)]

    def short(value: str | None) -> str | None:
        if value is None:
            return None
        for piece in sorted(pieces, key=len, reverse=True):
            value = re.sub(re.escape(piece), " ", value, flags=re.IGNORECASE)
        return stored_text(value, keep, MAX_WORD_CHARS * 4)

    return frame.model_copy(
        update={
            "question": stored_text(frame.question, keep),
            "condition": short(frame.condition),
            "age_text": short(frame.age_text),
            "weight_text": short(frame.weight_text),
            "unknown_drugs": clean_words(frame.unknown_drugs, text, keep),
            "drug_classes": clean_words(frame.drug_classes, text, keep),
            "drug_mentions": _short_map(frame.drug_mentions),
            "via_trade_name": _short_map(frame.via_trade_name),
        }
    )


def _short_map(said: dict[str, str]) -> dict[str, str]:
    return {k: cap(_clean(v), MAX_WORD_CHARS) for k, v in list(said.items())[:MAX_WORDS]}


_HANDLE = re.compile(r"key:([0-9a-f]{32})")  # a stored conversation named by its digest (the app continues one)


def conversation_key(conversation_id: str) -> str:
    """What the stores write for a conversation id the caller chose (it could be a phone number): a digest; a
    handle ("key:<digest>") is its digest, so every turn of a conversation is under one key in every store."""
    found = _HANDLE.fullmatch(conversation_id.strip())
    return found.group(1) if found else hashlib.sha256(_clean(conversation_id).encode("utf-8")).hexdigest()[:32]
