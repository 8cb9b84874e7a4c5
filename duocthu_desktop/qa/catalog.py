"""The catalog: every name the book gives a drug, and a resolver from a question's words to drug_ids.

Names come from the index itself (titles, their parenthetical, INN, and the trade names listed in each
`ten_thuong_mai` section), matched on folded text so diacritics and case do not matter, longest match first,
with one typo allowed in names of six letters or more. A name that is an ordinary word (every syllable
Vietnamese, like the trade name "Bé nóng", or a word many monographs use, like "amip") is not a drug name, and
neither are the class words the book uses ("NSAID", "aminoglycosid"): those are kept apart as classes.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from duocthu_desktop.artifacts import Chunk, Monograph
from duocthu_desktop.text import fold

_TOKEN = re.compile(r"[a-z0-9]+")
_PAREN = re.compile(r"\(([^)]*)\)")
MAX_NAME_TOKENS = 6
TYPO_MIN_LETTERS = 6

# Onset + nucleus + coda of a Vietnamese syllable (folded): such a word is Vietnamese, never a drug name.
_VI_SYLLABLE = re.compile(
    r"^(?:ngh|ng|nh|ch|gh|gi|kh|ph|qu|th|tr|[bcdghklmnprstvx])?"
    r"(?:[aeiouy]{1,3})"
    r"(?:ch|ng|nh|[cmnpt])?$"
)

# Pharmacological classes the book names in interaction and caution sections. Not drugs.
CLASS_WORDS: tuple[str, ...] = (
    "nsaid", "nsaids", "aine", "thuốc chống viêm không steroid", "salicylat", "aminoglycosid", "cephalosporin",
    "penicilin", "penicillin", "carbapenem", "macrolid", "quinolon", "fluoroquinolon", "tetracyclin", "sulfonamid",
    "sulfonylure", "sulfonylurea", "sulphonylure", "biguanid", "thiazid", "benzodiazepin", "barbiturat", "corticosteroid",
    "glucocorticoid", "nitrat", "statin", "imao", "ssri", "opioid", "opiat", "estrogen", "androgen", "antacid",
    "thuốc chống đông", "thuốc chống đông máu", "thuốc kháng acid", "thuốc lợi tiểu", "thuốc ức chế bơm proton",
    "thuốc ức chế men chuyển", "thuốc chẹn beta", "thuốc chẹn kênh calci", "kháng sinh", "thuốc chống động kinh",
    "thuốc chống trầm cảm", "thuốc an thần", "thuốc ngủ", "thuốc giảm đau", "thuốc hạ đường huyết",
    "thuốc chống kết tập tiểu cầu", "thuốc tiêu huyết khối",
)

# Class words the book writes in more than one way: asking about one finds statements worded with another.
CLASS_SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("NSAID", "NSAIDs", "AINS", "thuốc chống viêm không steroid", "chống viêm không steroid"),
    ("thuốc chống đông", "thuốc chống đông máu", "thuốc uống chống đông máu", "kháng vitamin K"),
    ("thuốc ức chế bơm proton", "PPI"),
    ("thuốc ức chế men chuyển", "ức chế enzym chuyển", "ACE"),
    ("thuốc lợi tiểu", "lợi tiểu"),
    ("sulfonylure", "sulfonylurea", "sulphonylurê", "sulfonylurê"),
    ("thuốc chẹn beta", "chẹn beta", "thuốc chẹn beta-adrenergic"),
    ("thuốc chẹn kênh calci", "chẹn kênh calci", "đối kháng kênh calci"),
    ("aminoglycosid", "kháng sinh aminoglycosid"),
    ("quinolon", "fluoroquinolon"),
)

# Words shaped like drug names that are not drugs (units, lab values, organisms, ordinary loanwords).
NOT_DRUG_WORDS: frozenset[str] = frozenset(
    {
        "creatinin", "creatinine", "protein", "enzym", "enzyme", "hormon", "hormone", "glucose", "lactat", "lactic",
        "transaminase", "amylase", "lipase", "urat", "oxalat", "bicarbonat", "electrolyt",
        "histamin", "serotonin", "dopamin", "cholesterol", "triglycerid", "hemoglobin", "albumin", "bilirubin",
        "staphylococcus", "streptococcus", "aureus", "enterococci", "enterococcus", "pneumoniae", "coli",
        "python", "iphone", "internet", "online", "cyclooxygenase", "prostaglandin", "thrombin", "fibrin",
        "microgam", "miligam", "gam", "kilogam", "lit", "mililit", "phut", "clcr", "egfr", "inr", "atc", "mic",
        "adr", "ml", "mg", "kg", "gram", "liposom", "plasmin", "heparin_like", "peptid", "glycosid",
    }
)
_DRUG_SUFFIXES: tuple[str, ...] = (
    "ol", "in", "ine", "id", "ide", "il", "an", "at", "ate", "on", "one", "em", "ex", "ix", "ax", "ox", "am",
    "um", "mab", "nib", "vir", "pril", "tan", "tide", "ast", "zole", "azol", "fen", "yl", "ac", "en", "rin",
)


def is_vietnamese_word(token: str) -> bool:
    return bool(_VI_SYLLABLE.match(token))


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(fold(text))


@dataclass(frozen=True)
class Name:
    drug_id: str
    text: str  # as the book prints it
    kind: str  # title | paren | inn | trade
    tokens: tuple[str, ...]


@dataclass(frozen=True)
class DrugMatch:
    drug_id: str
    said: str  # the person's words
    name: Name
    start: int  # token positions in the question
    end: int
    typo: bool = False


@dataclass
class Resolution:
    matches: list[DrugMatch] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # drug-like words not in the formulary
    classes: list[str] = field(default_factory=list)  # class words the book uses

    @property
    def drug_ids(self) -> list[str]:
        seen: list[str] = []
        for m in self.matches:
            if m.drug_id not in seen:
                seen.append(m.drug_id)
        return seen


_KIND_RANK = {"title": 0, "inn": 1, "paren": 2, "trade": 3}


def parse_trade_names(text: str) -> list[str]:
    """'*Agimfor 500; Andiabet; ...*' -> ['Agimfor 500', 'Andiabet', ...]."""
    cleaned = text.replace("*", " ").replace("\\_", "_").replace("\n", " ")
    names = []
    for part in cleaned.split(";"):
        name = re.sub(r"\s+", " ", part).strip(" .,")
        if name and not re.match(r"(?i)^t[eê]n th", name):
            names.append(name)
    return names


class Catalog:
    """Names of every monograph in one index, and the resolver over them."""

    def __init__(self, monographs: list[Monograph], chunks: list[Chunk]) -> None:
        self.monographs = {m.drug_id: m for m in monographs}
        self._names: dict[tuple[str, ...], Name] = {}
        self._by_drug: dict[str, list[Name]] = defaultdict(list)
        self._classes_by_drug: dict[str, list[str]] = {}
        word_spread = _word_spread(chunks)
        for mono in monographs:
            self._add_book_names(mono)
            self._classes_by_drug[mono.drug_id] = _class_words_of(mono)
        for chunk in chunks:
            if chunk.section_key == "ten_thuong_mai" and chunk.drug_id in self.monographs:
                for trade in parse_trade_names(chunk.text):
                    self._add_trade(chunk.drug_id, trade, word_spread)
        self._single_long = [n for key, n in self._names.items() if len(key) == 1 and len(key[0]) >= TYPO_MIN_LETTERS]
        self._classes = sorted({tuple(tokens(c)) for c in CLASS_WORDS}, key=len, reverse=True)

    # ---- building ----------------------------------------------------------------------------

    def _add(self, name: Name) -> None:
        if not name.tokens:
            return
        current = self._names.get(name.tokens)
        if current is None or _KIND_RANK[name.kind] < _KIND_RANK[current.kind]:
            self._names[name.tokens] = name
        if name not in self._by_drug[name.drug_id]:
            self._by_drug[name.drug_id].append(name)

    def _add_book_names(self, mono: Monograph) -> None:
        main = _PAREN.sub(" ", mono.title).strip()
        self._add(Name(mono.drug_id, main.title() if main.isupper() else main, "title", tuple(tokens(main))))
        for paren in _PAREN.findall(mono.title):
            toks = tuple(tokens(paren))
            if toks and not all(is_vietnamese_word(t) for t in toks):
                self._add(Name(mono.drug_id, paren.strip(), "paren", toks))
        if mono.inn:
            pieces = re.split(r"[;,]", _PAREN.sub(" ", mono.inn)) + _PAREN.findall(mono.inn)
            for inn in pieces:
                inn = inn.strip(" .")
                toks = tuple(tokens(inn))
                if toks and not all(is_vietnamese_word(t) for t in toks):
                    self._add(Name(mono.drug_id, inn, "inn", toks))

    def _add_trade(self, drug_id: str, trade: str, word_spread: dict[str, int]) -> None:
        toks = tuple(tokens(trade))
        variants = {toks}
        # "Agimfor 500", "Glucophage XR", "Captogen Tab.": people say the brand without its strength or form.
        while len(toks) > 1 and (toks[-1].isdigit() or toks[-1] in _FORM_SUFFIXES):
            toks = toks[:-1]
            variants.add(toks)
        for variant in variants:
            if _plausible_trade_name(variant, word_spread):
                self._add(Name(drug_id, trade, "trade", variant))

    # ---- questions ---------------------------------------------------------------------------

    def names_for(self, drug_id: str) -> list[str]:
        """Every name the book uses for a drug: title, INN, parenthetical, trade names (book spelling)."""
        out: list[str] = []
        for name in sorted(self._by_drug.get(drug_id, []), key=lambda n: _KIND_RANK[n.kind]):
            if name.text not in out:
                out.append(name.text)
        return out

    def classes_for(self, drug_id: str) -> list[str]:
        """The class words of a monograph's 'Loại thuốc' line, as the book words them."""
        return list(self._classes_by_drug.get(drug_id, []))

    @staticmethod
    def class_names(word: str) -> list[str]:
        """Every wording of a class the person named ('NSAID' -> 'thuốc chống viêm không steroid', ...)."""
        folded = fold(word).strip()
        for group in CLASS_SYNONYMS:
            if folded in (fold(w) for w in group):
                return [word] + [w for w in group if fold(w) != folded]
        return [word]

    def title(self, drug_id: str) -> str:
        mono = self.monographs.get(drug_id)
        if mono is None:
            return drug_id
        main = _PAREN.sub(" ", mono.title).strip()
        return main.capitalize() if main.isupper() else main

    def resolve(self, text: str) -> Resolution:
        """Drugs named in `text` (longest match first), class words, and drug-like words not in the formulary."""
        folded = fold(text)
        spans = [(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(folded)]
        words = [s[0] for s in spans]
        res = Resolution()
        i = 0
        while i < len(words):
            found = self._match_at(words, i)
            if found is not None:
                name, length, typo = found
                said = text[spans[i][1] : spans[i + length - 1][2]]
                res.matches.append(DrugMatch(name.drug_id, said, name, i, i + length, typo))
                i += length
                continue
            cls = self._class_at(words, i)
            if cls:
                res.classes.append(text[spans[i][1] : spans[i + cls - 1][2]])
                i += cls
                continue
            word = words[i]
            original = text[spans[i][1] : spans[i][2]]
            if self._drug_like(word, original):
                res.unknown.append(original)
            i += 1
        return res

    def _match_at(self, words: list[str], i: int) -> tuple[Name, int, bool] | None:
        for length in range(min(MAX_NAME_TOKENS, len(words) - i), 0, -1):
            name = self._names.get(tuple(words[i : i + length]))
            if name is not None:
                return name, length, False
        word = words[i]
        if len(word) >= TYPO_MIN_LETTERS and word.isalpha() and not is_vietnamese_word(word):
            for name in self._single_long:
                if abs(len(name.tokens[0]) - len(word)) <= 1 and _within_one_edit(word, name.tokens[0]):
                    return name, 1, True
        return None

    def _class_at(self, words: list[str], i: int) -> int:
        for cls in self._classes:
            if tuple(words[i : i + len(cls)]) == cls:
                return len(cls)
        return 0

    def _drug_like(self, word: str, original: str) -> bool:
        """Shaped like an INN: Latin letters, not a Vietnamese syllable, a drug-name ending, not a known term."""
        if len(word) < 5 or not word.isalpha() or word in NOT_DRUG_WORDS or is_vietnamese_word(word):
            return False
        if fold(original) != original.lower():  # typed with Vietnamese diacritics: a Vietnamese word
            return False
        return word.endswith(_DRUG_SUFFIXES)


# Release/form words printed after a brand ("XR", "SR", "Tab.", "Inj"): not part of the name people say.
_FORM_SUFFIXES = frozenset(
    {"xr", "sr", "mr", "er", "cr", "la", "od", "tab", "tabs", "inj", "retard", "fc", "dt", "caps", "syrup"}
)


def _plausible_trade_name(toks: tuple[str, ...], word_spread: dict[str, int]) -> bool:
    letters = "".join(toks)
    if len(letters) < 4 or not any(c.isalpha() for c in letters):
        return False
    if all(is_vietnamese_word(t) or t.isdigit() for t in toks):
        return False
    if len(toks) == 1 and (toks[0] in NOT_DRUG_WORDS or word_spread.get(toks[0], 0) >= 3):
        return False
    return True


def _class_words_of(mono: Monograph) -> list[str]:
    """The 'Loại thuốc' parts, plus every wording of a known class a part contains.

    "Kháng sinh nhóm aminoglycosid" is worded "aminoglycosid" in other monographs' interaction sections
    ("aminoglycosid làm tăng độc tính với tai và thận"), so the class's synonyms name the drug too.
    """
    if not mono.drug_class:
        return []
    parts = [p.strip(" .()") for p in re.split(r"[;,()]", mono.drug_class) if p.strip(" .()")]
    out = list(parts)
    for part in parts:
        folded = fold(part)
        for group in CLASS_SYNONYMS:
            if any(re.search(r"(?<![0-9a-z])" + re.escape(fold(w)) + r"(?![0-9a-z])", folded) for w in group):
                out.extend(w for w in group if w not in out)
    return out


def _word_spread(chunks: list[Chunk]) -> dict[str, int]:
    """In how many monographs each folded word appears (outside trade-name lists)."""
    seen: dict[str, set[str]] = defaultdict(set)
    for chunk in chunks:
        if chunk.section_key == "ten_thuong_mai":
            continue
        for tok in set(_TOKEN.findall(fold(chunk.text))):
            seen[tok].add(chunk.drug_id)
    return {tok: len(ids) for tok, ids in seen.items()}


def _within_one_edit(a: str, b: str) -> bool:
    """Levenshtein distance <= 1 (one substitution, insertion or deletion)."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    if la > lb:
        a, b, la, lb = b, a, lb, la
    i = j = 0
    edited = False
    while i < la and j < lb:
        if a[i] == b[j]:
            i += 1
            j += 1
            continue
        if edited:
            return False
        edited = True
        if la == lb:
            i += 1
        j += 1
    return True
