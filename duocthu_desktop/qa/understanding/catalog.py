"""The catalog: every name the book gives a drug, and a resolver from a question's words to drug_ids.

Names come from the index itself (titles, their parenthetical, INN, and the trade names listed in each
`ten_thuong_mai` section), matched on folded text so diacritics and case do not matter, longest match first,
with one typo allowed in names of six letters or more. A name that is an ordinary word (every syllable
Vietnamese, like the trade name "Bé nóng", or a word many monographs use, like "amip") is not a drug name, and
neither are the class words the book uses ("NSAID", "aminoglycosid"): those are kept apart as classes.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import chain

from duocthu_desktop.artifacts import Chunk, Monograph
from duocthu_desktop.qa.understanding.lexicon import (
    CLASS_SYNONYMS,
    CLASS_WORDS,
    DRUG_HEAD_WORDS,
    DRUG_SUFFIXES,
    EPONYM_HEAD_WORDS,
    FORM_SUFFIXES,
    GREEK_FORM,
    LAB_VALUE_WORDS,
    NOT_DRUG_WORDS,
    SALT_WORDS,
)
from duocthu_desktop.qa.understanding.spelling import (
    MIN_KEYED_LETTERS,
    in_word_table,
    spelling_key,
    spelling_keys,
)
from duocthu_desktop.qa.understanding.textmatch import has_diacritics
from duocthu_desktop.text import fold

__all__ = ["CLASS_SYNONYMS", "CLASS_WORDS", "NOT_DRUG_WORDS", "Catalog", "DrugMatch", "Name", "Resolution"]

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

_DRUG_SUFFIXES = DRUG_SUFFIXES
# "epoetin alpha", "interferon alfa-2b": a form of a drug named by a Greek letter (folded text)
GREEK_MIN_TIMES = 3
_FORM_SUFFIXES = FORM_SUFFIXES
PREFIX_MIN_LETTERS = 4
# A title of Vietnamese words said without its last word is named by at least this many of its first words
TITLE_HEAD_MIN_WORDS = 4
INN_HEAD_MIN_WORDS = 2
# A word the book uses in this many monographs is an ordinary word, never a brand or a name's prefix.
COMMON_WORD_SPREAD = 3
# Sections in which the book names other drugs: a Latin-shaped word a named drug's sections print is a drug
# (its partner), not a guess from its ending ("lithi", "kali" have no drug-name ending).
PARTNER_SECTIONS = ("tuong_tac_thuoc", "chong_chi_dinh")


def is_vietnamese_word(token: str) -> bool:
    return bool(_VI_SYLLABLE.match(token))


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(fold(text))


def spelled_tokens(text: str) -> list[tuple[str, str]]:
    """(folded, as written in lower case) for every name token of `text`: "Gần đây" -> [("gan", "gần"), ...]."""
    text = unicodedata.normalize("NFC", text)
    folded = fold(text)
    if len(folded) != len(text):
        folded = "".join(fold(ch)[:1] or ch for ch in text)
    return [(m.group(0), text[m.start() : m.end()].lower()) for m in _TOKEN.finditer(folded)]


@dataclass(frozen=True)
class Name:
    drug_id: str
    text: str  # as the book prints it
    kind: str  # title | paren | inn | stem (the name without its salt words) | variant | trade
    tokens: tuple[str, ...]
    spelled: tuple[str, ...] = ()  # the tokens as the book writes them (lower case, with diacritics)


@dataclass(frozen=True)
class DrugMatch:
    drug_id: str
    said: str  # the person's words
    name: Name
    start: int  # token positions in the question
    end: int
    typo: bool = False
    prefix: bool = False  # the person typed the start of the name ("cipro")

    @property
    def via_trade_name(self) -> bool:
        return self.name.kind == "trade"


@dataclass
class Resolution:
    matches: list[DrugMatch] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # drug-like words not in the formulary
    classes: list[str] = field(default_factory=list)  # class words the book uses
    near_two: list[str] = field(default_factory=list)  # one typo from the names of two drugs: neither is read

    @property
    def drug_ids(self) -> list[str]:
        seen: list[str] = []
        for m in self.matches:
            if m.drug_id not in seen:
                seen.append(m.drug_id)
        return seen

    @property
    def via_trade_name(self) -> dict[str, str]:
        """drug_id -> the trade name typed, for drugs named in the question only by a trade name."""
        out: dict[str, str] = {}
        for drug_id in self.drug_ids:
            matches = [m for m in self.matches if m.drug_id == drug_id]
            if all(m.via_trade_name for m in matches):
                out[drug_id] = matches[0].said
        return out


_KIND_RANK = {"title": 0, "inn": 1, "paren": 2, "stem": 3, "variant": 3, "trade": 4}


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
        self._word_spread, self._partner_words, own_words = _chunk_words(chunks)
        stems: dict[tuple[str, ...], dict[str, Name]] = defaultdict(dict)
        for mono in monographs:
            for name in self._add_book_names(mono):
                stem = self._salt_stem(name)
                if stem is not None:
                    stems[stem.tokens].setdefault(stem.drug_id, stem)
            self._classes_by_drug[mono.drug_id] = _class_words_of(mono)
        for by_drug in stems.values():
            if len(by_drug) == 1:  # "calci" of two calci salts names neither
                self._add(next(iter(by_drug.values())))
        for name in self._title_heads():
            self._add(name)
        for name in self._spelling_variants(own_words):
            self._add(name)
        self._book_names = {key: n for key, n in self._names.items()}  # titles, INNs, parentheticals
        for name in self._greek_variants(chunks):
            self._add(name)
        self._near_book_words = _deletion_index(
            [key[0] for key in self._book_names if len(key) == 1 and len(key[0]) >= TYPO_MIN_LETTERS]
        )
        trades: dict[tuple[str, ...], dict[str, Name]] = defaultdict(dict)
        for chunk in chunks:
            if chunk.section_key == "ten_thuong_mai" and chunk.drug_id in self.monographs:
                for trade in parse_trade_names(chunk.text):
                    for name in self._trade_variants(chunk.drug_id, trade):
                        trades[name.tokens].setdefault(name.drug_id, name)
        for by_drug in trades.values():
            if len(by_drug) == 1:  # a brand the book lists under two monographs proves neither
                name = next(iter(by_drug.values()))
                if not self._names_another_drug(name):
                    self._add(name)
        self._derive()

    def _derive(self) -> None:
        """The lookups made from the names (cheap): what `from_data` need not store."""
        self._single_long = [n for key, n in self._names.items() if len(key) == 1 and len(key[0]) >= TYPO_MIN_LETTERS]
        self._near_single = _deletion_index([n.tokens[0] for n in self._single_long])
        # a name of several words with one long word mistyped ("tim gendian"): the name with that word left out,
        # and where -> the names
        self._typo_slots: dict[tuple[int, tuple[str, ...]], list[tuple[Name, int]]] = defaultdict(list)
        for key, name in self._names.items():
            if 1 < len(key) <= MAX_NAME_TOKENS:
                for p, tok in enumerate(key):
                    if len(tok) >= TYPO_MIN_LETTERS and tok.isalpha():
                        self._typo_slots[(p, key[:p] + ("",) + key[p + 1 :])].append((name, p))
        self._prefix_heads: dict[str, list[Name]] = defaultdict(list)  # a book name's first token -> names
        for key, name in self._book_names.items():
            self._prefix_heads[key[0]].append(name)
        self._classes = sorted({tuple(tokens(c)) for c in CLASS_WORDS}, key=len, reverse=True)
        # the book's names by their spelling keys ("canxi", "axit", "cephalexin" read as printed); a key two
        # drugs share names neither (None); brands are matched as printed only
        self._by_key: dict[tuple[str, ...], Name | None] = {}
        for key, name in self._names.items():
            if name.kind == "trade":
                continue
            spelled = spelling_keys(key)
            held = self._by_key.get(spelled, name)
            self._by_key[spelled] = name if held is not None and held.drug_id == name.drug_id else None

    # ---- stored by the build (catalog.json), read at open ---------------------------------------------------

    def to_data(self) -> dict:
        """What __init__ computed from the chunks, as JSON-ready data (`from_data` reads it back equal). Tokens
        and word sets are space-joined strings (tokens never hold a space): read back by `str.split`, in C."""
        table: dict[Name, int] = {}
        for name in chain(self._names.values(), self._book_names.values(), *self._by_drug.values()):
            table.setdefault(name, len(table))
        return {
            "names": [[n.drug_id, n.text, n.kind, " ".join(n.tokens), " ".join(n.spelled)] for n in table],
            "by_tokens": [table[n] for n in self._names.values()],
            "book_names": [table[n] for n in self._book_names.values()],
            "by_drug": {d: [table[n] for n in names] for d, names in self._by_drug.items()},
            "classes_by_drug": self._classes_by_drug,
            "spread_words": " ".join(self._word_spread),
            "spread_counts": list(self._word_spread.values()),
            "partner_words": {d: " ".join(sorted(ws)) for d, ws in self._partner_words.items()},
        }

    @classmethod
    def from_data(cls, monographs: list[Monograph], data: dict) -> Catalog:
        """The catalog `to_data` stored, over the same monographs; ValueError (or KeyError, TypeError) if the
        data is not such a catalog."""
        self = cls.__new__(cls)
        self.monographs = {m.drug_id: m for m in monographs}
        names = [Name(d, text, kind, tuple(toks.split()), tuple(spelled.split()))
                 for d, text, kind, toks, spelled in data["names"]]
        self._names = {names[i].tokens: names[i] for i in data["by_tokens"]}
        self._book_names = {names[i].tokens: names[i] for i in data["book_names"]}
        self._by_drug = defaultdict(list, {d: [names[i] for i in ids] for d, ids in data["by_drug"].items()})
        self._classes_by_drug = {d: list(c) for d, c in data["classes_by_drug"].items()}
        words, counts = data["spread_words"].split(), data["spread_counts"]
        if len(words) != len(counts):
            raise ValueError("the stored word counts do not match the words")
        self._word_spread = dict(zip(words, counts, strict=True))
        self._partner_words = {d: set(ws.split()) for d, ws in data["partner_words"].items()}
        self._near_book_words = _deletion_index(
            [key[0] for key in self._book_names if len(key) == 1 and len(key[0]) >= TYPO_MIN_LETTERS]
        )
        self._derive()
        return self

    # ---- building ----------------------------------------------------------------------------

    def _add(self, name: Name) -> None:
        if not name.tokens:
            return
        current = self._names.get(name.tokens)
        if current is None or _KIND_RANK[name.kind] < _KIND_RANK[current.kind]:
            self._names[name.tokens] = name
        if name not in self._by_drug[name.drug_id]:
            self._by_drug[name.drug_id].append(name)

    def _book_name(self, drug_id: str, text: str, kind: str) -> Name:
        pairs = spelled_tokens(text)
        return Name(drug_id, text, kind, tuple(f for f, _ in pairs), tuple(w for _, w in pairs))

    def _add_book_names(self, mono: Monograph) -> list[Name]:
        """Title, its parentheticals and the INN line's names, added; returned for their salt stems."""
        main = _PAREN.sub(" ", mono.title).strip()
        added = [self._book_name(mono.drug_id, main.title() if main.isupper() else main, "title")]
        for paren in _PAREN.findall(mono.title):
            toks = tuple(tokens(paren))
            if toks and not all(is_vietnamese_word(t) for t in toks):
                added.append(self._book_name(mono.drug_id, paren.strip(), "paren"))
        if mono.inn:
            pieces = re.split(r"[;,]", _PAREN.sub(" ", mono.inn)) + _PAREN.findall(mono.inn)
            for inn in pieces:
                inn = inn.strip(" .")
                toks = tuple(tokens(inn))
                if toks and not all(is_vietnamese_word(t) for t in toks):
                    added.append(self._book_name(mono.drug_id, inn, "inn"))
        for name in added:
            self._add(name)
        return added

    def _title_heads(self) -> list[Name]:
        """A name the book prints said without its last word ("huyết thanh kháng độc" for a title "Huyết thanh
        kháng độc X"; "snake antiserum" for an INN "Snake antiserum Y"): its first words, when no other name of the
        book starts with them; at least TITLE_HEAD_MIN_WORDS of them for a name of Vietnamese words, which
        ordinary talk may hold, else INN_HEAD_MIN_WORDS."""
        starting: dict[tuple[str, ...], set[str]] = defaultdict(set)  # the first words of every name -> its drugs
        for key, n in self._names.items():
            for end in range(1, len(key) + 1):
                starting[key[:end]].add(n.drug_id)
        out = []
        for name in [n for n in self._names.values() if n.kind in ("title", "inn", "paren")]:
            head = name.tokens[:-1]
            vietnamese = all(is_vietnamese_word(t) for t in name.tokens)
            if len(head) < (TITLE_HEAD_MIN_WORDS if vietnamese else INN_HEAD_MIN_WORDS) or head in self._names:
                continue
            if starting[head] - {name.drug_id}:
                continue
            spelled = name.spelled[:-1] if len(name.spelled) == len(name.tokens) else ()
            out.append(Name(name.drug_id, " ".join(spelled or head).capitalize(), "stem", head, spelled))
        return out

    def _salt_stem(self, name: Name) -> Name | None:
        """The name without its salt words ("Esmolol hydroclorid" -> "Esmolol"), when what is left is a drug-shaped
        word: not Vietnamese, not a lab value's element ("kali" of "kali clorid" is also "kali máu")."""
        keep = [i for i, t in enumerate(name.tokens) if t not in SALT_WORDS]
        if not keep or len(keep) == len(name.tokens):
            return None
        toks = tuple(name.tokens[i] for i in keep)
        if all(is_vietnamese_word(t) or t.isdigit() for t in toks) or len("".join(toks)) < PREFIX_MIN_LETTERS:
            return None
        spelled = tuple(name.spelled[i] for i in keep) if len(name.spelled) == len(name.tokens) else ()
        text = " ".join(w.capitalize() if j == 0 else w for j, w in enumerate(spelled or toks))
        return Name(name.drug_id, text, "stem", toks, spelled)

    def _spelling_variants(self, own_words: dict[str, set[str]]) -> list[Name]:
        """Other spellings of a one-word name that the monograph itself prints ("gentamycin" in the gentamicin
        monograph): one edit from the name, Latin letters, not another drug's name. The book printing a word
        elsewhere keeps it from reading as a typo; printed in the drug's own text, it is that drug's name."""
        out: list[Name] = []
        taken = {key[0] for key in self._names if len(key) == 1}
        for drug_id, words in own_words.items():
            heads = {n.tokens[0] for n in self._by_drug.get(drug_id, [])
                     if len(n.tokens) == 1 and len(n.tokens[0]) >= TYPO_MIN_LETTERS and n.tokens[0].isalpha()}
            for head in heads:
                for word in words:
                    if (word[:2] == head[:2] and word not in taken and word.isalpha()
                            and not is_vietnamese_word(word) and one_spelling_apart(word, head)):
                        out.append(Name(drug_id, word, "variant", (word,), (word,)))
        return out

    def _greek_variants(self, chunks: list[Chunk]) -> list[Name]:
        """The forms of a drug its own monograph names by a Greek letter ("epoetin alpha", "epoetin beta" in the
        Erythropoietin monograph): the name before the letter, and the name with it, are that drug's. Counted
        outside the sections that name other drugs (an interaction's "agalsidase beta" is another drug), at least
        GREEK_MIN_TIMES times, and in one monograph far more than in all others together."""
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        pairs: dict[tuple[str, str], set[str]] = defaultdict(set)
        for chunk in chunks:
            if chunk.section_key in (*PARTNER_SECTIONS, "ten_thuong_mai", "tuong_ky") or chunk.drug_id not in \
                    self.monographs:
                continue
            for m in GREEK_FORM.finditer(fold(chunk.text)):
                head = m.group(1)
                if len(head) < PREFIX_MIN_LETTERS + 1 or is_vietnamese_word(head) or head in NOT_DRUG_WORDS:
                    continue
                counts[head][chunk.drug_id] += 1
                pairs[(head, chunk.drug_id)].add(m.group(2))
        out: list[Name] = []
        for head, by_drug in counts.items():
            (drug_id, times), *rest = by_drug.most_common()
            if times < GREEK_MIN_TIMES or times < 3 * sum(n for _, n in rest) or (head,) in self._names:
                continue
            out.append(Name(drug_id, head, "variant", (head,), (head,)))
            for letter in sorted(pairs[(head, drug_id)]):
                out.append(Name(drug_id, f"{head} {letter}", "variant", (head, letter), (head, letter)))
        return out

    def _trade_variants(self, drug_id: str, trade: str) -> list[Name]:
        """The trade name, and without its strength or form ("Agimfor 500" -> "Agimfor"), if plausible."""
        pairs = spelled_tokens(trade)
        variants = [pairs]
        # "Agimfor 500", "Glucophage XR", "Captogen Tab.": people say the brand without its strength or form.
        while len(pairs) > 1 and (pairs[-1][0].isdigit() or pairs[-1][0] in _FORM_SUFFIXES):
            pairs = pairs[:-1]
            variants.append(pairs)
        out = []
        for variant in variants:
            toks = tuple(f for f, _ in variant)
            if _plausible_trade_name(toks, self._word_spread):
                out.append(Name(drug_id, trade, "trade", toks, tuple(w for _, w in variant)))
        return out

    def _names_another_drug(self, trade: Name) -> bool:
        """A brand that is, or contains, or is one typo from, another drug's title/INN proves nothing."""
        full = tuple(tokens(trade.text))
        for i in range(len(full)):
            for j in range(i + 1, min(len(full), i + MAX_NAME_TOKENS) + 1):
                book = self._book_names.get(full[i:j])
                if book is not None and book.drug_id != trade.drug_id:
                    return True
        if len(trade.tokens) == 1 and len(trade.tokens[0]) >= TYPO_MIN_LETTERS:
            word = trade.tokens[0]
            for near in {w for d in _deletions(word) for w in self._near_book_words.get(d, ())}:
                book = self._book_names[(near,)]
                if book.drug_id != trade.drug_id and _within_one_edit(word, near):
                    return True
        return False

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
        """Drugs named in `text` (longest match first), class words, and drug-like words not in the formulary.

        A word typed with diacritics must be spelled as the book spells the name; a plain word is read folded.
        """
        text = unicodedata.normalize("NFC", text)
        pairs = spelled_tokens(text)
        folded = fold(text)
        if len(folded) != len(text):
            folded = "".join(fold(ch)[:1] or ch for ch in text)
        spans = [(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(folded)]
        words = [s[0] for s in spans]
        typed = [w for _, w in pairs]
        res = Resolution()
        latin: list[tuple[int, str, str]] = []  # (place among the unknown, as typed, folded) awaiting proof
        i = 0
        while i < len(words):
            found = self._match_at(words, typed, i)
            if found is not None:
                name, length, how = found
                said = text[spans[i][1] : spans[i + length - 1][2]]
                res.matches.append(
                    DrugMatch(name.drug_id, said, name, i, i + length, how == "typo", how == "prefix")
                )
                i += length
                continue
            cls = self._class_at(words, i)
            if cls:
                res.classes.append(text[spans[i][1] : spans[i + cls - 1][2]])
                i += cls
                continue
            word = words[i]
            original = text[spans[i][1] : spans[i][2]]
            if word in SALT_WORDS and res.matches and res.matches[-1].end == i:
                i += 1  # "ciprofloxacin hydroclorid": the salt of the drug just named, not another drug
                continue
            if _names_a_disease(text, spans, typed, i):
                pass  # "hội chứng Zollinger-Ellison": the disease's name, not a drug the book lacks
            elif self.is_ambiguous_typo(word, typed[i]):
                res.near_two.append(original)  # not a drug the book lacks: a name the person must say again
            elif self._drug_like(word, original) or self._named_as_drug(words, typed, i):
                res.unknown.append(original)
            elif self._latin_word(word, original) and not _lab_value_follows(typed[i + 1 : i + 2]):
                latin.append((len(res.unknown), original, word))
            i += 1
        proven = self.partner_words(res.drug_ids)
        keyed = {spelling_key(w) for w in proven} if latin else set()
        for place, original, word in reversed(latin):
            # printed there as typed, or in the book's spelling of it ("canxi" typed, "calci" printed)
            if word in proven or spelling_key(word) in keyed:
                res.unknown.insert(place, original)
        return res

    def partner_words(self, drug_ids: list[str]) -> set[str]:
        """Folded words of the named drugs' Tương tác thuốc and Chống chỉ định sections."""
        return set().union(*(self._partner_words.get(d, set()) for d in drug_ids))

    def _match_at(self, words: list[str], typed: list[str], i: int) -> tuple[Name, int, str] | None:
        for length in range(min(MAX_NAME_TOKENS, len(words) - i), 0, -1):
            name = self._names.get(tuple(words[i : i + length]))
            if name is not None and _spelled_as_typed(name, typed[i : i + length]):
                return name, length, "exact"
            name = self._spelled_other_way(words[i : i + length], typed[i : i + length])
            if name is not None:
                return name, length, "exact"
        found = self._typo_in_several(words, typed, i)
        if found is not None:
            return found
        word = words[i]
        if has_diacritics(typed[i]) or not word.isalpha() or is_vietnamese_word(word):
            return None
        near = self._typo_names(word) if self._may_be_typo(word, typed[i]) else []
        prefixed = self._prefix_of(word)
        drugs = {n.drug_id for n in near} | ({prefixed.drug_id} if prefixed is not None else set())
        if len(drugs) != 1:
            return None  # no name, or two drugs' names ("vanco" starts one, is a letter short of another's brand)
        if prefixed is not None and (len(word) < TYPO_MIN_LETTERS or not near):
            return prefixed, 1, "prefix"  # five letters that start a title read as its start, not as a typo
        return near[0], 1, "typo"

    def _spelled_other_way(self, words: list[str], typed: list[str]) -> Name | None:
        """The one book name these words spell another way ("axit acetylsalicylic", "canxi", "cephalexin"): the
        same spelling keys, one word at least a word of the table or a Latin word of MIN_KEYED_LETTERS typed
        plain (a Vietnamese word alone is never read through the table)."""
        if not any(in_word_table(w) or (len(w) >= MIN_KEYED_LETTERS and w.isalpha() and not has_diacritics(t) and
                   not is_vietnamese_word(w) and w not in NOT_DRUG_WORDS) for w, t in zip(words, typed, strict=True)):
            return None
        name = self._by_key.get(spelling_keys(words))
        if name is None or not _spelled_as_typed(name, typed):
            return None
        return name

    def _may_be_typo(self, word: str, typed: str) -> bool:
        """A plain Latin word, not Vietnamese, that the book itself never prints ("candida" is no misspelling of a
        brand "Candid" one letter away), one letter short of a long name at least."""
        return (word.isalpha() and not has_diacritics(typed) and not is_vietnamese_word(word)
                and word not in NOT_DRUG_WORDS and len(word) >= TYPO_MIN_LETTERS - 1 and not self._word_spread.get(word))

    def _typo_names(self, word: str) -> list[Name]:
        """The one-word names of six letters or more one edit from the word (a word of five letters: only a name
        it drops one letter of). Names of two drugs among them name neither: the caller asks which."""
        near = {w for d in _deletions(word) for w in self._near_single.get(d, ())}
        out = [self._names[(w,)] for w in sorted(near) if _within_one_edit(word, w)
               and (len(word) >= TYPO_MIN_LETTERS or len(w) == len(word) + 1)]
        return sorted(out, key=lambda n: _KIND_RANK[n.kind])

    def is_ambiguous_typo(self, word: str, typed: str) -> bool:
        """One edit from the names of two or more drugs, or from one's and the start of another's (neither is
        read)."""
        if not self._may_be_typo(word, typed):
            return False
        prefixed = self._prefix_of(word)
        drugs = {n.drug_id for n in self._typo_names(word)} | ({prefixed.drug_id} if prefixed is not None else set())
        return len(drugs) > 1

    def _typo_in_several(self, words: list[str], typed: list[str], i: int) -> tuple[Name, int, str] | None:
        """A name of several words typed with one of its long words one edit off, the others as printed; None
        when no name, or the names of two drugs, fit."""
        for length in range(min(MAX_NAME_TOKENS, len(words) - i), 1, -1):
            key = tuple(words[i : i + length])
            found: list[Name] = []
            for p in range(length):
                if not self._may_be_typo(key[p], typed[i + p]):
                    continue
                for name, _ in self._typo_slots.get((p, key[:p] + ("",) + key[p + 1 :]), ()):
                    if _within_one_edit(key[p], name.tokens[p]) and _spelled_as_typed(name, typed[i : i + length]):
                        found.append(name)
            if found:
                if len({n.drug_id for n in found}) > 1:
                    return None
                return min(found, key=lambda n: _KIND_RANK[n.kind]), length, "typo"
        return None

    def _prefix_of(self, word: str) -> Name | None:
        """The one formulary title/INN a clinician's short form starts ("para", "cipro", "amox"), or None.

        Four letters at least, not a word the book itself uses widely ("acid"), and the start of exactly one
        drug's title or INN: a short form two drugs share names neither.
        """
        if len(word) < PREFIX_MIN_LETTERS or word in NOT_DRUG_WORDS:
            return None
        if self._word_spread.get(word, 0) >= COMMON_WORD_SPREAD:
            return None
        found = [n for head, names in self._prefix_heads.items() if head.startswith(word) and head != word
                 for n in names]
        drugs = {n.drug_id for n in found}
        if len(drugs) != 1:
            return None
        return min(found, key=lambda n: _KIND_RANK[n.kind])

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

    def _named_as_drug(self, words: list[str], typed: list[str], i: int) -> bool:
        """'thuốc X123', 'biệt dược Zyx': a word the person calls a drug, not a Vietnamese word nor a known
        term, is a drug name even without an INN's ending (a follow-up naming it starts a new subject)."""
        if i == 0 or words[i - 1] not in _DRUG_HEAD_WORDS or not _is_drug_head(typed[i - 1]):
            return False
        word = words[i]
        if len(word) < 3 or not any(c.isalpha() for c in word) or word in NOT_DRUG_WORDS:
            return False
        return not is_vietnamese_word(word) and not has_diacritics(typed[i])

    @staticmethod
    def _latin_word(word: str, original: str) -> bool:
        """Latin letters typed without diacritics, not a Vietnamese syllable nor a known non-drug term: a drug
        name when the book's own partner sections print it."""
        if len(word) < PREFIX_MIN_LETTERS or not word.isalpha() or word in NOT_DRUG_WORDS:
            return False
        return not is_vietnamese_word(word) and fold(original) == original.lower()


_DRUG_HEADS_TYPED = frozenset(DRUG_HEAD_WORDS)
_DRUG_HEAD_WORDS = frozenset(fold(w) for w in DRUG_HEAD_WORDS)


_EPONYM_HEADS = tuple(tuple(w.split()) for w in EPONYM_HEAD_WORDS)


def _names_a_disease(text: str, spans: list[tuple[str, int, int]], typed: list[str], i: int) -> bool:
    """The word is a disease's name: right after "hội chứng" / "bệnh" (as typed, or typed plain), or joined by a
    hyphen to such a name ("Zollinger-Ellison")."""
    j = i
    while j > 0 and text[spans[j - 1][2] : spans[j][1]] == "-":
        j -= 1
    for head in _EPONYM_HEADS:
        k = j - len(head)
        if k >= 0 and all(typed[k + n] == w or (not has_diacritics(typed[k + n]) and typed[k + n] == fold(w))
                          for n, w in enumerate(head)):
            return True
    return False


def _is_drug_head(typed: str) -> bool:
    return typed in _DRUG_HEADS_TYPED or not has_diacritics(typed)


def _spelled_as_typed(name: Name, typed: list[str]) -> bool:
    """Every word typed with diacritics is spelled as the book spells the name ("gần" never reads as "gan")."""
    if len(name.spelled) != len(typed):
        return True
    return all(not has_diacritics(t) or t == w for t, w in zip(typed, name.spelled, strict=True))


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
        for group, pattern in _class_patterns():
            if pattern.search(folded):
                out.extend(w for w in group if w not in out)
    return out


@functools.cache
def _class_patterns() -> list[tuple[tuple[str, ...], re.Pattern]]:
    """Each class's wordings, and one pattern finding any of them as whole words in folded text."""
    return [(tuple(group), re.compile(r"(?<![0-9a-z])(?:" + "|".join(re.escape(fold(w)) for w in group)
                                      + r")(?![0-9a-z])")) for group in CLASS_SYNONYMS]


_WORD = re.compile(r"[^\W_]+")  # a run of letters or digits, as written


def _chunk_words(chunks: list[Chunk]) -> tuple[dict[str, int], dict[str, set[str]], dict[str, set[str]]]:
    """In how many monographs each folded word appears (outside trade-name lists), drug_id -> the folded
    words of its PARTNER_SECTIONS, and drug_id -> the folded words of its own text. A monograph's text is read as one, and each distinct word as written is folded
    once (folding every chunk's whole text, word by word in Python, cost 1.4 s at each index open for a book the
    real size)."""
    texts: dict[str, list[str]] = defaultdict(list)
    partner_texts: dict[str, list[str]] = defaultdict(list)
    for chunk in chunks:
        if chunk.section_key != "ten_thuong_mai":
            texts[chunk.drug_id].append(chunk.text)
        if chunk.section_key in PARTNER_SECTIONS:
            partner_texts[chunk.drug_id].append(chunk.text)
    folded: dict[str, tuple[str, ...]] = {}

    def words_of(parts: list[str]) -> set[str]:
        written = set(_WORD.findall(unicodedata.normalize("NFC", "\n".join(parts)).lower()))
        for word in written - folded.keys():
            folded[word] = tuple(_TOKEN.findall(fold(word)))
        return set(chain.from_iterable(map(folded.__getitem__, written)))

    spread: Counter[str] = Counter()
    own: dict[str, set[str]] = {}
    for drug_id, parts in texts.items():
        own[drug_id] = words_of(parts)
        spread.update(own[drug_id])
    return dict(spread), {drug_id: words_of(parts) for drug_id, parts in partner_texts.items()}, own


def _lab_value_follows(next_word: list[str]) -> bool:
    """'kali máu', 'natri huyết': the word after is a body fluid (as typed, or folded when typed plain)."""
    if not next_word:
        return False
    typed = next_word[0]
    return any(typed == w or (not has_diacritics(typed) and typed == fold(w)) for w in LAB_VALUE_WORDS)


def _deletions(word: str) -> set[str]:
    """The word and every form of it with one letter deleted."""
    return {word} | {word[:i] + word[i + 1 :] for i in range(len(word))}


def _deletion_index(words: list[str]) -> dict[str, list[str]]:
    """Each one-letter deletion -> the words it comes from: words within one edit share an entry."""
    index: dict[str, list[str]] = defaultdict(list)
    for word in words:
        for d in _deletions(word):
            index[d].append(word)
    return index


def one_spelling_apart(word: str, name: str) -> bool:
    """`word` and `name` (folded) are one spelling of one drug: one edit apart, as written or once both are read
    through the spelling table ("cephalexin" and "cefalexin": "ph" / "f")."""
    for a, b in ((word, name), (spelling_key(word), spelling_key(name))):
        if abs(len(a) - len(b)) <= 1 and _within_one_edit(a, b):
            return True
    return False


def _within_one_edit(a: str, b: str) -> bool:
    """One substitution, insertion, deletion, or two neighbouring letters swapped ("codien" for "codein")."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if la == lb:
        diff = [i for i in range(la) if a[i] != b[i]]
        if len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]:
            return True
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
