"""The patient's own conditions ("bệnh nhân nhược cơ", "đang loét dạ dày") matched against the items the book
lists in a warning sentence ("Nhược cơ, suy hô hấp nặng.").

Nothing here knows a disease: a sentence is cut into its items at the book's list punctuation and joining words,
both sides keep only their content words (general words such as "bệnh", "người", "nặng" are dropped), and an item
bears on the patient when the question holds a run of the item's content words in the item's order: two words or
more, covering more than half of the item (three words always do) ("hẹp động mạch thận 2 bên" in "Hẹp động mạch thận 2 bên hoặc ..."),
or the item's only content word when it is a long one ("Parkinson"). A run the question negates ("không có rối
loạn thần kinh") is not the patient's, and a run whose neighbours point the other way ("tăng huyết áp" against
"Huyết áp thấp") is not the same condition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from duocthu_desktop.qa.understanding.catalog import is_vietnamese_word
from duocthu_desktop.qa.understanding.extractors import disease_site_spans
from duocthu_desktop.qa.understanding.lexicon import (
    CONDITION_KINDS,
    CONDITION_SYNONYMS,
    GENERAL_WORDS,
    PATIENT_CONDITION_NAMES,
    ROUTE_PHRASES,
    SALT_WORDS,
    expand_abbreviations,
)
from duocthu_desktop.text import fold

_WORD = re.compile(r"\w+")
_ITEM_SPLIT = re.compile(
    r"[,;:()\[\]/]"
    r"|\s(?:hoặc|hoac|hay|và|va|như|nhu|kể cả|ke ca|bao gồm|bao gom|trừ khi|tru khi|do|vì|vi)\s",
    re.IGNORECASE,
)
_DASH = re.compile(r"(?<=[^\d\s])\s[-–]\s(?=[^\d\s])")


def split_items(text: str) -> list[str]:
    """The items of a printed list. A dash between words parts a compound ("loét dạ dày - tá tràng" is read as
    its two organs too); a single word after it is the compound's last part, not an item ("blốc nhĩ - thất": its
    "thất" alone is no condition)."""
    items: list[str] = []
    for part in _ITEM_SPLIT.split(text):
        pieces = _DASH.split(part)
        kept = [pieces[0]]
        for piece in pieces[1:]:
            if len(_WORD.findall(piece)) == 1:
                kept[-1] = f"{kept[-1]} {piece}"
            else:
                kept.append(piece)
        items += kept
    return items
_CAUSED = re.compile(r"(?:gây(?: ra)?|gay(?: ra)?|làm|lam|dẫn (?:tới|đến)|dan (?:toi|den))\s.*$")
_NEGATION = frozenset({"không", "chưa", "khong", "chua"})
# "(ngoại trừ sốc nhiễm khuẩn hoặc lao màng não)": conditions an item of the list leaves out
_EXCEPT = re.compile(r"\(\s*(?:ngoại trừ|ngoai tru|trừ|tru)\s([^)]*)\)|(?<!\w)(?:ngoại trừ|ngoai tru)\s([^,;.()]*)")
_NEGATED_SPAN = re.compile(r"(?<!\w)(?:không|chưa|khong|chua)\s[^.,;:()\n]*")
_NORMAL = frozenset({("bình", "thường"), ("binh", "thuong")})
_UP = frozenset({"tăng", "cao", "tang"})
_DOWN = frozenset({"thấp", "hạ", "giảm", "thap", "ha", "giam"})
_SINGLE_MIN_LETTERS = 6
# "dị ứng với bất kỳ loại penicilin nào": a quantifier of the item, no word of the condition
_ANY_OF = re.compile(r"(?<!\w)(?:bất kỳ|bất kì|bất cứ|bat ky|bat ki|bat cu)(?:\s+(?:loại|một|loai|mot))?(?!\w)",
                     re.IGNORECASE)
_GIVEN_WORDS = frozenset({"dùng", "dụng", "uống", "tiêm", "dung", "uong", "tiem"})  # "dùng X", "sử dụng X"
_HEAD_MIN_LETTERS = 3  # a shorter item word alone ("da", "u") is too many things to be one condition
MAX_TOKENS = 400  # a question's conditions are in its first few hundred words; a pasted document is not read whole
# General words as typed: with diacritics they are the book's words ("đã" is general, "da" the skin, "tại" general,
# "tai" the ear); folded, only their folded forms can be told
_GENERAL_MARKED = frozenset(GENERAL_WORDS) | {"."}
_GENERAL_FOLDED = frozenset(fold(w) for w in GENERAL_WORDS) | {"."}


def _general(folded: bool) -> frozenset[str]:
    return _GENERAL_FOLDED if folded else _GENERAL_MARKED
# What a dosing question asks for or the step it is at ("tối đa một ngày", "chuyển sang uống"): the question's
# ask, never a condition of the patient ("tối đa 30 mg" printed among the contraindications is no disease)
ASKING_PHRASES = ("tối đa", "tối thiểu", "chuyển sang", "đổi sang", "chuyển từ")


@dataclass(frozen=True)
class Said:
    """The question's words in order, each with whether it is negated and the clause it stands in."""

    words: tuple[str, ...]
    negated: tuple[bool, ...]
    clauses: tuple[int, ...]
    folded: bool  # the person typed no diacritics: compare folded
    # the words of the drugs asked about: in the book's item ("người có tiền sử bệnh hen không được dùng aspirin")
    # the drug's own name is not a word of the condition
    drugs: frozenset[str] = frozenset()

    @classmethod
    def of(cls, question: str, drop: list[str]) -> Said:
        # "bn THA", "K tuyến giáp": the ward's abbreviations name the conditions the book writes out
        question = expand_abbreviations(question[: MAX_TOKENS * 12])  # about MAX_TOKENS words
        folded = fold(question) == question.lower()
        text = fold(question) if folded else question.lower()
        # drugs and routes are not conditions ("truyền tĩnh mạch" is how, "tĩnh mạch" no disease), but a disease
        # of a route's site is ("huyết khối tĩnh mạch sâu")
        text = _WORD_HYPHEN.sub(" ", text)  # "Wolff-Parkinson-White", "blốc nhĩ-thất": one condition's words
        text, kept = _disease_sites(text)
        for name in [*drop, *sorted((phrase for phrase, _ in ROUTE_PHRASES), key=len, reverse=True),
                     *ASKING_PHRASES]:
            name = fold(name) if folded else name.lower()
            if name.strip():
                text = re.sub(r"(?<!\w)" + re.escape(name.strip()) + r"(?!\w)", " . ", text)
        for placeholder, phrase in kept.items():
            text = text.replace(placeholder, phrase)
        text += _general_kinds(text, folded)
        text += _other_names(text, folded)
        words: list[str] = []
        negated: list[bool] = []
        clauses: list[int] = []
        neg, clause = False, 0
        for token in re.findall(r"\w+|[^\w\s]", text)[:MAX_TOKENS]:
            if not token[0].isalnum():
                neg, clause = False, clause + 1
                continue
            if token in _NEGATION:
                neg = True
            words.append(token)
            negated.append(neg)
            clauses.append(clause)
        _negate_before_normal(words, negated, clauses)
        drugs = frozenset(w for name in drop for w in _WORD.findall(fold(name) if folded else name.lower())
                          if len(w) >= _SINGLE_MIN_LETTERS)
        return cls(tuple(words), tuple(negated), tuple(clauses), folded, drugs)

    def without(self, text: str) -> Said:
        """The question without the conditions `text` (the drug's own indications) names: what a drug is given
        for is the reason for the question, not a condition to warn about."""
        text = fold(text) if self.folded else text.lower()
        # "ở bệnh nhân không bị tăng huyết áp": what the indication rules out is no reason the drug is given
        text = _NEGATED_SPAN.sub(" zzz ", text)
        printed = " " + " ".join(w for w in _WORD.findall(text) if w not in _general(self.folded)) + " "
        content = self.content()
        drop: set[int] = set()
        for k in range(len(content)):
            # the longest run from here that the text prints, grown one word at a time (linear, not quadratic)
            end = k + 1
            while (end < len(content) and self.clauses[content[end]] == self.clauses[content[k]]
                   and " " + " ".join(self.words[i] for i in content[k : end + 1]) + " " in printed):
                end += 1
            if end - k >= 2 and not _numbered_on(self, content, k, end):
                drop.update(content[k:end])
        if not drop:
            return self
        words = tuple("." if i in drop else w for i, w in enumerate(self.words))
        return Said(words, self.negated, self.clauses, self.folded, self.drugs)

    def core(self, item: str) -> list[str]:
        """The item's content words: no general words, nor the drug's own name where the item says it is given
        ("không được dùng aspirin"); "dị ứng với clopidogrel" keeps it, that allergy being to this drug only."""
        general = _general(self.folded)
        raw = _WORD.findall(_ANY_OF.sub(" ", item))
        return [w for i, w in enumerate(raw) if w not in general
                and not (w in self.drugs and i > 0 and raw[i - 1] in _GIVEN_WORDS)]

    def any(self) -> bool:
        return any(w not in _general(self.folded) and not w.isdigit() for w in self.words)

    def content(self) -> list[int]:
        return [i for i, w in enumerate(self.words) if w not in _general(self.folded)]


def _numbered_on(said: Said, content: list[int], k: int, end: int) -> bool:
    """The run the indication prints goes on, in its clause, with a number it does not print: "đái tháo đường typ
    1" said where the Chỉ định prints "đái tháo đường typ 2" is another condition than the one the drug is for."""
    if end >= len(content) or said.clauses[content[end]] != said.clauses[content[k]]:
        return False
    return said.words[content[end]].isdigit()


def _general_kinds(text: str, folded: bool) -> str:
    """The general conditions the book prints for the specific ones said ("huyết khối tĩnh mạch sâu" -> " .
    huyết khối tắc mạch"), each as a clause of its own, unless said negated."""
    extra = ""
    for specific, general in CONDITION_KINDS:
        for name in specific:
            name = fold(name) if folded else name
            m = re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", text)
            if m is None:
                continue
            before = text[max(0, m.start() - 40) : m.start()]
            if not any(n.end() == len(before) for n in _NEGATED_SPAN.finditer(before)):
                extra += " . " + (fold(general) if folded else general) + " . "
                break
    return extra


_WORD_HYPHEN = re.compile(r"(?<=[^\W\d_])[-–](?=[^\W\d_])")
_CLAUSE_EDGE = re.compile(r"[.,;:()\[\]\n?!]")
MAX_OTHER_NAMES = 24  # clauses added for other names of the conditions said: a pasted document gains no more


def _other_names(text: str, folded: bool) -> str:
    """Each clause that says a condition by one of its names, said again with each other name the book may print
    for it ("loét bao tử" -> " . loét dạ dày . ", "suy chức năng gan" -> " . suy gan . "), unless said negated."""
    extra: list[str] = []
    for group in (*PATIENT_CONDITION_NAMES, *CONDITION_SYNONYMS):
        names = [fold(n) if folded else n.lower() for n in group]
        for name in sorted(names, key=len, reverse=True):
            m = re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", text)
            if m is None:
                continue
            before = text[max(0, m.start() - 40) : m.start()]
            if any(n.end() == len(before) for n in _NEGATED_SPAN.finditer(before)):
                break
            start = max((e.end() for e in _CLAUSE_EDGE.finditer(text, 0, m.start())), default=0)
            edge = _CLAUSE_EDGE.search(text, m.end())
            end = edge.start() if edge else len(text)
            for other in dict.fromkeys(names):
                if other != name and other not in name:
                    extra.append(" . " + text[start : m.start()] + other + text[m.end() : end] + " . ")
            break
        if len(extra) >= MAX_OTHER_NAMES:
            break
    return "".join(extra[:MAX_OTHER_NAMES])


def _disease_sites(text: str) -> tuple[str, dict[str, str]]:
    """`text` with each disease of a route's site swapped for a placeholder the route blanking cannot touch,
    and placeholder -> the words, to be put back."""
    plain = fold(text)
    if len(plain) != len(text):
        return text, {}
    kept: dict[str, str] = {}
    for n, (start, end) in enumerate(reversed(disease_site_spans(plain))):
        placeholder = f"zzsite{n}zz"
        kept[placeholder] = text[start:end]
        text = text[:start] + placeholder + text[end:]
    return text, kept


def _negate_before_normal(words: list[str], negated: list[bool], clauses: list[int]) -> None:
    """"chức năng thận bình thường": what is said to be normal is not a condition of the patient (the words of
    its clause before "bình thường" are negated, as after "không")."""
    for i in range(len(words) - 1):
        if (words[i], words[i + 1]) in _NORMAL:
            j = i - 1
            while j >= 0 and clauses[j] == clauses[i]:
                negated[j] = True
                j -= 1


def bears_on(sentence: str, said: Said) -> bool:
    """Some item of the sentence is a condition the question says the patient has."""
    if not said.words:
        return False
    text = fold(sentence) if said.folded else sentence.lower()
    for m in reversed(list(_EXCEPT.finditer(text))):
        if any(_item_said_whole(item, said) for item in split_items(m.group(1) or m.group(2) or "")):
            # "nhiễm khuẩn nặng (ngoại trừ sốc nhiễm khuẩn ...)" for a patient in septic shock: the item the
            # exception belongs to is not this patient's, nor the exception itself
            start = max(text.rfind(p, 0, m.start()) for p in ",;.:\n")
            text = text[: start + 1] + " . " + text[m.end():]
    return any(_item_matches(item, said) for item in split_items(text))


_LEAVE = re.compile(r"(?<!\w)(?:tuy nhiên|tuy nhien)[^.;()]*")
STRONG_RUN = 3  # content words of an item said together, in its order, that name the condition beyond doubt


def said_beyond(sentence: str, said: Said, indications: str) -> bool:
    """The question says STRONG_RUN words or more of one item of the sentence, in its order and in one clause,
    and no single item of the drug's Chỉ định prints that run: the patient has more of this condition than of
    any indication ("vết loét da đang nhiễm khuẩn" against "Tổn thương da bị nhiễm khuẩn." when the Chỉ định
    names "nhiễm khuẩn da"), though some of its words are why the drug is asked about."""
    text = fold(sentence) if said.folded else sentence.lower()
    # "(tuy nhiên liều thấp để dự phòng huyết khối thì vẫn dùng)": leave the book gives, not what it forbids
    text = _LEAVE.sub(" . ", text)
    printed = fold(indications) if said.folded else indications.lower()
    printed = _NEGATED_SPAN.sub(" zzz ", printed)
    general = _general(said.folded)
    items = [" " + " ".join(w for w in _WORD.findall(i) if w not in general) + " " for i in split_items(printed)]
    content = said.content()
    for item in split_items(text):
        core = [w for w in _WORD.findall(_CAUSED.sub(" ", item)) if w not in general]
        for start, _k, _at, length in _said_runs(core, said, content, negation_ends=True):
            run = core[start : start + length]
            if length < STRONG_RUN or any(w.isdigit() for w in run):
                continue
            if not any(" " + " ".join(run) + " " in i for i in items):
                return True
    return False


def _said_runs(core: list[str], said: Said, content: list[int], negation_ends: bool = False):
    """Each place the question says a run of the item's words together in one clause, the longest there:
    (the item's word it starts at, its place among the question's content words, the word's index, its length)."""
    for start in range(len(core)):
        for k, at in enumerate(content):
            if said.words[at] != core[start] or said.negated[at]:
                continue
            length = 1
            while (start + length < len(core) and k + length < len(content)
                   and said.words[content[k + length]] == core[start + length]
                   and said.clauses[content[k + length]] == said.clauses[at]
                   and not (negation_ends and said.negated[content[k + length]])):
                length += 1
            yield start, k, at, length


def _item_said_whole(item: str, said: Said) -> bool:
    """Every content word of the item, in its order, said together ("sốc nhiễm khuẩn", not "nhiễm khuẩn")."""
    core = said.core(item)
    if not core:
        return False
    words = [said.words[i] for i in said.content() if not said.negated[i]]
    return any(words[k : k + len(core)] == core for k in range(len(words) - len(core) + 1))


def _item_matches(item: str, said: Said) -> bool:
    # "có thể gây suy thận": what the drug may cause, not a condition the patient has
    item = _CAUSED.sub(" ", item)
    raw = _WORD.findall(item)
    core = said.core(item)
    if not core:
        return False
    content = said.content()
    if len(core) == 1:
        word = core[0]
        if word.isdigit():
            return False
        if len(word) >= _SINGLE_MIN_LETTERS:
            return any(said.words[i] == word and not said.negated[i] and not _inside_longer_name(said, i)
                       for i in content)
        return len(word) >= _HEAD_MIN_LETTERS and any(
            said.words[i] == word and not said.negated[i] and _heads_its_phrase(said, i) for i in content)
    if _named_by_its_head(core, said, content):
        return True
    for start, k, at, length in _said_runs(core, said, content):
        run = core[start : start + length]
        if len(run) < 2 or (len(run) * 2 <= len(core) and len(run) < 3) or all(w.isdigit() for w in run):
            continue
        if _differs_next(core, start + length, said, content, k + length, at) or _opposite(raw, run, said, at):
            continue
        return True
    return _run_skipping_one(core, said, content)


_FOREIGN_HEAD_MIN_LETTERS = 5


def _named_by_its_head(core: list[str], said: Said, content: list[int]) -> bool:
    """"bị lupus, huyết áp ..." for "Lupus ban đỏ hệ thống (SLE)": the item opens on a foreign disease name (not a
    Vietnamese syllable, which is too often a general head: "suy", "viêm") and the patient says that name alone
    in its clause, nothing after it that could tell another condition of the same name."""
    head = core[0]
    if len(core) < 2 or len(head) < _FOREIGN_HEAD_MIN_LETTERS or not head.isalpha() or is_vietnamese_word(fold(head)):
        return False
    if fold(head) in SALT_WORDS or head in said.drugs:
        return False  # "timolol maleat": the salt of the drug named, no disease
    for n, i in enumerate(content):
        if said.words[i] != head or said.negated[i] or _inside_longer_name(said, i):
            continue
        after = content[n + 1] if n + 1 < len(content) else None
        if after is None or said.clauses[after] != said.clauses[i]:
            return True
    return False


def _inside_longer_name(said: Said, i: int) -> bool:
    """The word said at `i` is one part of a longer foreign name the question gives ("Wolff-Parkinson-White",
    "hội chứng Stevens-Johnson"): a Latin word stands next to it in its clause, so the book's one-word item
    ("Parkinson") is not what the patient has."""
    def latin(j: int) -> bool:
        if not 0 <= j < len(said.words) or said.clauses[j] != said.clauses[i]:
            return False
        w = said.words[j]
        return w.isalpha() and len(w) >= 3 and fold(w) == w and not is_vietnamese_word(w)
    return latin(i - 1) or latin(i + 1)


def _heads_its_phrase(said: Said, i: int) -> bool:
    """The word said at `i` opens the patient's condition: the word before it in its clause, if any, is a general
    one ("bệnh nhân HEN phế quản", "có bệnh TIM"), so a short item word ("Hen.", "bệnh tim nặng") is its head
    noun, not a word inside another condition ("nhịp TIM nhanh", "suy TIM" is said by its own kind)."""
    if i == 0 or said.clauses[i - 1] != said.clauses[i]:
        return True
    return said.words[i - 1] in _general(said.folded)


def _run_skipping_one(core: list[str], said: Said, content: list[int]) -> bool:
    """Three words or more of the item, in its order, one item word left out between them: "nhịp chậm xoang"
    said, "Nhịp tim chậm xoang." printed. The words said stand together in one clause."""
    for start in range(len(core)):
        for k, at in enumerate(content):
            if said.words[at] != core[start] or said.negated[at]:
                continue
            i, j, matched, skipped = start + 1, k + 1, 1, False
            while i < len(core) and j < len(content) and said.clauses[content[j]] == said.clauses[at]:
                word = said.words[content[j]]
                if word == core[i]:
                    matched, i, j = matched + 1, i + 1, j + 1
                elif not skipped and i + 1 < len(core) and word == core[i + 1]:
                    skipped, i = True, i + 1
                else:
                    break
            if skipped and matched >= 3 and matched * 2 > len(core):
                return True
    return False


def _differs_next(core: list[str], item_next: int, said: Said, content: list[int], said_next: int, at: int) -> bool:
    """'hẹp động mạch thận' said, 'Hẹp động mạch chủ' printed: both go on, with different words."""
    if item_next >= len(core) or said_next >= len(content):
        return False
    nxt = content[said_next]
    return said.clauses[nxt] == said.clauses[at] and said.words[nxt] != core[item_next]


def _opposite(item_words: list[str], run: list[str], said: Said, at: int) -> bool:
    """'tăng huyết áp' said, 'Huyết áp thấp' printed: the words around the run point opposite ways."""
    i = item_words.index(run[0])
    item_around = set(item_words[max(0, i - 1) : i]) | set(item_words[i + len(run) : i + len(run) + 1])
    said_around = set(said.words[max(0, at - 1) : at]) | set(said.words[at + len(run) : at + len(run) + 1])
    return bool((item_around & _UP and said_around & _DOWN) or (item_around & _DOWN and said_around & _UP))
