"""Personal data masked before anything is written: phone numbers, ID card numbers, emails and names.

The conversation store and the traces keep what a turn needs (the clinical facts, the question's words), never
who asked. A number is personal by its shape: a phone is 0, 84 or +84 then 9-10 digits, a CMND 9 digits and a
CCCD 12, with any spacing or punctuation between the digits, and no dose unit after them ("1 200 000 đơn vị" is a
dose). A name is a capitalised Vietnamese family name from a closed list followed by one to three capitalised
syllables ("Nguyễn Văn An"), or capitalised syllables after a title word ("bệnh nhân", "tôi là", "chị", "bé").
Doses, Clcr, weights, ages, dates and drug names are left as typed.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from duocthu_desktop.qa.understanding.catalog import is_vietnamese_word
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.text import fold

PHONE_MASK = "[SĐT]"
ID_MASK = "[SỐ ĐỊNH DANH]"
EMAIL_MASK = "[EMAIL]"
NAME_MASK = "[TÊN]"
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


def _name_word(word: str, case: str | None) -> bool:
    lower = word.lower()
    not_names = _NOT_NAMES_TYPED_PLAIN if word.isascii() else _NOT_NAMES
    return _case(word) == case and is_vietnamese_word(fold(word)) and lower not in not_names


def _name_spans(text: str) -> list[tuple[int, int, str]]:
    words = [(m.start(), m.end(), m.group(0)) for m in _WORD.finditer(text)]
    folded = [fold(w) for _, _, w in words]
    spans = []
    i = 0
    while i < len(words):
        end = _name_at(text, words, folded, i)
        if end is not None:
            start_word, end_word = end
            spans.append((words[start_word][0], words[end_word - 1][1], NAME_MASK))
            i = end_word
        else:
            i += 1
    return spans


def _adjacent(text: str, words: list[tuple[int, int, str]], a: int, gap: re.Pattern[str]) -> bool:
    """Only `gap` between word a and word a + 1."""
    return a + 1 < len(words) and gap.fullmatch(text, words[a][1], words[a + 1][0]) is not None


def _following_names(text: str, words, first: int, case: str | None, most: int) -> int:
    """The index after the last name syllable of the run starting at `first` (== first when there is none)."""
    j = first
    while j < len(words) and j - first < most and _name_word(words[j][2], case):
        if j > first and not _adjacent(text, words, j - 1, _NAME_GAP):
            break
        j += 1
    return j


def _name_at(text: str, words, folded: list[str], i: int) -> tuple[int, int] | None:
    """(first word, after last word) of a name starting at or after a title starting at word i, else None."""
    word = words[i][2]
    lower = word.lower()
    case = _case(word)
    family = (lower in _FAMILY and case in ("title", "upper")) or lower in _ONLY_A_NAME or (
        folded[i] in _FOLDED_FAMILY and case == "title" and word.isascii()
    )
    if family and _adjacent(text, words, i, _NAME_GAP):
        end = _following_names(text, words, i + 1, case, 3)
        if end > i + 1:
            return i, end
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
        if name_case == "title" or (name_case == "upper" and title_case != "upper"):
            end = _following_names(text, words, first, name_case, 4)
            if end > first:
                return first, end
        if name_case == "lower" and titles[key] and words[first][2] in _FAMILY:  # "tôi là lê minh tuấn"
            end = _following_names(text, words, first + 1, "lower", 3)
            if end > first + 1:
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
    for finder in (_email_spans, _number_spans, _name_spans):
        for start, end, label in finder(text):
            overlaps = any(s.start < end and start < s.end for s in found)
            if not overlaps and not any(a < end and start < b for a, b in protected):
                found.append(Span(start, end, label))
    return sorted(found, key=lambda s: s.start)


def mask(text: str, keep: Iterable[str] = ()) -> str:
    """`text` with each phone number, ID number, email and name replaced by its mask."""
    text = _clean(text)
    out, last = [], 0
    for span in find(text, keep):
        out += [text[last : span.start], span.mask]
        last = span.end
    out.append(text[last:])
    return "".join(out)


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


def stored_frame(frame: QueryFrame, said: str = "") -> QueryFrame:
    """The frame as it may be written: every clinical fact kept, its text masked and capped, personal pieces
    dropped from its word lists. `said` is the turn's own text, when the frame's question is not all of it."""
    keep = [*frame.drug_mentions.values(), *frame.via_trade_name.values()]
    text = frame.question if said in ("", frame.question) else f"{said}\n{frame.question}"

    # the personal pieces found in the question, removed from the fields read out of it whatever their case:
    # "đặt trần thị bích ngọc" in a lower-cased condition has no capital left to be found by
    cleaned = _clean(text)
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


def conversation_key(conversation_id: str) -> str:
    """What the stores write for a conversation id the caller chose (it could be a phone number): a digest."""
    return hashlib.sha256(_clean(conversation_id).encode("utf-8")).hexdigest()[:32]
