"""Any other question about one drug answered by the monograph's own sentences that answer it.

Why: a question that is not a dose, a contraindication, an indication list or an interaction ("tiêm bắp được
không?", "uống lúc đói được không?", "quá liều thì dùng thuốc giải độc gì?") is answered by one or two sentences
that may sit in any section; a section picked by a keyword answered it with the wrong list. Every sentence of the
drug is ranked against the question: its words as typed (diacritics meant where typed) and folded, weighted by how
rare they are in this monograph, then, when the embedding model is loaded, by meaning; a section the question
names is weighed up. A best match that carries too little of the question abstains (evidence_insufficient).

A route question reads the dosage section's route too: the book gives that route (the sentence that says so is
the answer) or it does not (said plainly; a sentence that warns against the route is shown, else the routes it
does give are offered, `missing_route`, as for a dose asked by a route the book has no dose for).
"""

from __future__ import annotations

import logging
import math
import re
import unicodedata
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

from duocthu_desktop.artifacts import Chunk, Monograph
from duocthu_desktop.dosage import fit as dose_fit
from duocthu_desktop.dosage.parser import section_rows
from duocthu_desktop.dosage.words import FRAME_ROUTE_NAMES, ROUTE_NAMES
from duocthu_desktop.payload import Reason
from duocthu_desktop.qa.answers import drug_classes
from duocthu_desktop.qa.answers.cited_answer import CitedAnswer, abstain, join_messages, section_heading
from duocthu_desktop.qa.answers.engine_types import EngineAnswer
from duocthu_desktop.qa.answers.sentences import split_sentences
from duocthu_desktop.qa.answers.warning_rules import HEPATIC_WORDS, RENAL_WORDS
from duocthu_desktop.qa.understanding import lab_values
from duocthu_desktop.qa.understanding.lexicon import (
    GIVING_PHRASES,
    HOW_TO_PHRASES,
    INSTRUCTION_TOPICS,
    MISSED_DOSE_PHRASES,
    QUESTION_CUES,
    ROUTE_PHRASES,
    ROUTE_PHRASES_TYPED_ONLY,
    SECTION_PHRASES,
    WHICH_DRUG_PHRASES,
    expand_abbreviations,
)
from duocthu_desktop.qa.understanding.section_asked import (
    ASKING_WORDS,
    WEIGHED_SECTIONS,
    SentenceAsk,
    route_section,
)
from duocthu_desktop.qa.understanding.textmatch import Text, any_of, find
from duocthu_desktop.text import fold

log = logging.getLogger(__name__)

DOSAGE_KEY = "lieu_luong_cach_dung"
OVERDOSE_KEY = "qua_lieu_xu_tri"
CONTRAINDICATIONS_KEY = "chong_chi_dinh"
# Where the book says how a drug must not be given ("tránh tiêm bắp", "bắt buộc phải tiêm tĩnh mạch").
WARNING_SECTIONS = frozenset({"than_trong", DOSAGE_KEY, "tac_dung_khong_mong_muon", "duoc_ly_co_che"})
# Sections whose sentences never answer a question of this kind (names and registration).
SKIPPED_SECTIONS = frozenset({"ten_thuong_mai", "thong_tin_qui_che", "thong_tin_chung"})
MIN_SENTENCE_CHARS = 12
# The share of the question's weight (its words, rarer ones heavier) the best sentence must carry, by words
# alone, or with the embedding model's agreement (`DENSE_SUPPORT`) at the lower share.
MIN_COVERAGE = 0.6
MIN_COVERAGE_WITH_MEANING = 0.34
MAX_ABSENT = 0.25
MIN_COVERAGE_OF_KIND = 0.25  # a sentence printing the kind of figure asked for, with the model's agreement
# Cosine similarity (EmbeddingGemma, query vs document prompt) above which a sentence is taken to be about the
# question; below `DENSE_FLOOR` it adds nothing.
DENSE_SUPPORT = 0.5
# A sentence the person asked of in other words: this close in meaning, it answers with this share of the words
DENSE_STRONG = 0.62
MIN_COVERAGE_STRONG_MEANING = 0.2
DENSE_FLOOR = 0.3
DENSE_WEIGHT = 0.8
SECTION_WEIGHT = 0.15  # a named section's sentences: this much more, so they win a near-tie, never a clear loss
DENSE_CANDIDATES = 6  # sentences embedded per question (the lexical best): about a second on two busy cores
EMBED_CHARS = 300  # a sentence's head is what it is about; long dose sentences cost more than they tell
MAX_SENTENCES = 3
MAX_INTRODUCED = 5  # the lines shown after a lead that ends in ':'
KEEP_WITHIN = 0.85  # further sentences shown when their score is this close to the best one's
MAX_EMBEDDED = 4096  # sentence vectors kept in memory


@dataclass(frozen=True)
class Sentence:
    chunk: Chunk
    start: int
    end: int

    @property
    def text(self) -> str:
        return self.chunk.text[self.start : self.end]

    @property
    def section_key(self) -> str:
        return self.chunk.section_key


@dataclass
class Scored:
    sentence: Sentence
    lexical: float  # share of the question's weight the sentence holds, 0..1
    dense: float | None = None
    boosted: bool = False

    @property
    def score(self) -> float:
        meaning = 0.0 if self.dense is None else DENSE_WEIGHT * max(0.0, self.dense - DENSE_FLOOR)
        return self.lexical + meaning + (SECTION_WEIGHT if self.boosted else 0.0)

    absent: float = 0.0  # share of the question's weight in words the monograph never prints
    kind_held: bool = False  # prints the kind of figure the question asks for ("bao lâu?": a duration)

    @property
    def answers(self) -> bool:
        if self.lexical >= MIN_COVERAGE or (self.kind_held and self.lexical >= MIN_COVERAGE_WITH_MEANING):
            return True
        if self.kind_held and self.lexical >= MIN_COVERAGE_OF_KIND and self.dense is not None \
                and self.dense >= DENSE_SUPPORT:
            return True  # the figure asked for, some of the words, and the meaning
        if self.dense is None or self.absent >= MAX_ABSENT:
            return False  # the meaning alone never answers what the monograph prints nowhere
        # fewer of the question's words, but the same meaning; or few, in other words, but plainly the meaning
        return (self.lexical >= MIN_COVERAGE_WITH_MEANING and self.dense >= DENSE_SUPPORT) or (
            self.lexical >= MIN_COVERAGE_STRONG_MEANING and self.dense >= DENSE_STRONG)


# ---- words ----------------------------------------------------------------------------------------------------

_WORD = re.compile(r"[^\W_]+(?:-[^\W_]+)*")
_TONE_MARKS = frozenset("\u0300\u0301\u0303\u0309\u0323")


def _typed_key(word: str) -> str:
    """A word as written, tone-mark placement ignored ("hoá" is "hóa")."""
    chars = unicodedata.normalize("NFD", word.lower())
    letters = "".join(ch for ch in chars if ch not in _TONE_MARKS)
    tones = "".join(sorted(ch for ch in chars if ch in _TONE_MARKS))
    return unicodedata.normalize("NFC", letters) + tones


@dataclass(frozen=True)
class Term:
    folded: str
    typed: str  # _typed_key of the word as the person typed it
    accented: bool  # typed with diacritics: must be met as written


# A direction asked ("làm tăng nồng độ") and its opposite: a sentence printing only the opposite is not its answer.
_OPPOSITE = {"tang": "giam", "giam": "tang"}
_COUNTED = frozenset({"lieu", "lan", "vien", "ong", "goi", "giot", "nhat", "mieng"})

# What kind of answer the question wants, when its words say so ("bao lâu", "nhiệt độ nào"): the words that ask
# are replaced by one term that only a sentence printing that kind of figure holds ("12 - 18 tháng", "2 - 8 °C").
DURATION_TERM = "zzduration"
TEMPERATURE_TERM = "zztemperature"
_UNIT_OF_TIME = r"(?:giay|phut|gio|ngay|tuan|thang|nam)"
_ASKS_DURATION = re.compile(
    r"(?<![^\W_])(?:(?:keo dai|trong|dung|dieu tri|cach)\s+)?(?:bao lau|bao nhieu " + _UNIT_OF_TIME
    + r"|may " + _UNIT_OF_TIME + r")(?![^\W_])")
# ("ở nhiệt độ phòng" names a temperature, it does not ask one)
_ASKS_TEMPERATURE = re.compile(r"(?<![^\W_])nhiet do(?!\s+phong)(?:\s+(?:nao|bao nhieu|the nao))?(?![^\W_])")
_PRINTS_DURATION = re.compile(r"\d\s*(?:giây|phút|giờ|ngày|tuần|tháng|năm)(?!\w)", re.IGNORECASE)
# "15 - 25 <sup>o</sup> C" is read as "15 - 25 o C" once the superscript mark is dropped
_PRINTS_TEMPERATURE = re.compile(r"\d\s*(?:<sup>\s*)?(?:°|o\s*</sup>|º)\s*C|\d\s*độ\s*C(?!\w)|\d\s?o\s?C(?!\w)")
# the book's own word for how long ("Thời gian điều trị thường là ..."), asked with every "bao lâu"
DURATION_WORD_TERM = "zzdurationword"
_PRINTS_DURATION_WORD = re.compile(r"(?<!\w)thời gian(?!\w)", re.IGNORECASE)
# "nồng độ tối đa bao nhiêu?": a concentration ("7 mg/ml", "0,5%"); "tiêm vào vị trí nào?": a site of the body
CONCENTRATION_TERM = "zzconcentration"
_ASKS_CONCENTRATION = re.compile(
    r"(?<![^\W_])nong do(?:\s+(?:toi da|toi thieu|pha|pha loang|thuoc|dung dich|la|khoang|phai|can|nen))*"
    r"\s+(?:bao nhieu|nao|the nao|ra sao)(?![^\W_])")
_PRINTS_CONCENTRATION = re.compile(r"\d\s*(?:mg|g|microgam|mcg|đơn vị|đvqt|mmol|mEq)\s*/\s*(?:ml|lít|l)(?!\w)|\d\s*%",
                                   re.IGNORECASE)
SITE_TERM = "zzsite"
_ASKS_SITE = re.compile(r"(?<![^\W_])(?:(?:vi tri|cho|vung|noi) nao|o dau|vao dau|cho tiem|vi tri tiem)(?![^\W_])")
_PRINTS_SITE = re.compile(
    r"(?<!\w)(?:cơ (?:mông|đùi|delta|tam đầu|cánh tay)|(?:mặt|vùng|phần) (?:trước|ngoài|bên|trên)?\s*(?:của )?"
    r"(?:đùi|cánh tay|mông|bụng)|cung phần tư|thành bụng|da bụng|bắp tay|bắp đùi|mông)(?!\w)", re.IGNORECASE)
_SITE_WORDS = ("ở đâu", "vào đâu", "chỗ nào", "vị trí nào", "vùng nào", "nơi nào", "chỗ tiêm", "vị trí tiêm")


def _site_as_typed(said: str) -> bool:
    """Typed with diacritics, a site is asked as written ("ở đâu", not "ở đầu"); plain, folded."""
    said = unicodedata.normalize("NFC", said).lower()
    return fold(said) == said or said in _SITE_WORDS


# "đẩy nhanh được không?", "tiêm nhanh": how fast it may go in, answered by the sentence that prints a speed
SPEED_TERM = "zzspeed"
_ASKS_SPEED = re.compile(r"(?<![^\W_])(?:(?:day|tiem|truyen|bom|dua)\s+(?:thuoc\s+)?nhanh|toc do)(?![^\W_])")
_PRINTS_SPEED = re.compile(r"(?<!\w)(?:chậm|nhanh|tốc độ)(?!\w)", re.IGNORECASE)
ANSWER_TERMS = {DURATION_TERM: _PRINTS_DURATION, TEMPERATURE_TERM: _PRINTS_TEMPERATURE,
                DURATION_WORD_TERM: _PRINTS_DURATION_WORD, CONCENTRATION_TERM: _PRINTS_CONCENTRATION,
                SITE_TERM: _PRINTS_SITE, SPEED_TERM: _PRINTS_SPEED}
FILTERING_TERMS = (DURATION_TERM, TEMPERATURE_TERM, CONCENTRATION_TERM, SITE_TERM, SPEED_TERM)


def _answer_kinds(question: str) -> tuple[str, list[str]]:
    """The question with the words that ask for a duration or a temperature replaced by their term; the terms."""
    folded = fold(unicodedata.normalize("NFC", question))
    if len(folded) != len(question):
        return question, []
    kinds: list[str] = []
    for pattern, term in ((_ASKS_DURATION, DURATION_TERM), (_ASKS_TEMPERATURE, TEMPERATURE_TERM),
                          (_ASKS_CONCENTRATION, CONCENTRATION_TERM), (_ASKS_SITE, SITE_TERM),
                          (_ASKS_SPEED, SPEED_TERM)):
        spans = [m.span() for m in pattern.finditer(folded)
                 if term != SITE_TERM or _site_as_typed(question[m.start() : m.end()])]
        for start, end in reversed(spans):
            said = f" {term} {DURATION_WORD_TERM} " if term == DURATION_TERM else \
                f" nong do {term} " if term == CONCENTRATION_TERM else \
                f" {term} {question[start:end]} " if term == SPEED_TERM else f" {term} "  # "nhanh" still counts
            question = question[:start] + said + question[end:]
            folded = folded[:start] + said + folded[end:]
        if spans:
            kinds.append(term)
    return question, kinds


def _asks_how_given(question: str) -> bool:
    """The question asks how fast, how long, at what strength or where the drug goes in."""
    return any(term != TEMPERATURE_TERM for term in _answer_kinds(expand_abbreviations(question))[1])


# "... bao nhiêu và ... bao lâu?": two questions in one, joined where each side asks its own
_ASKING = re.compile(r"(?<![^\W_])(?:bao nhieu|bao lau|the nao|ra sao|nao|gi|dau|duoc khong)(?![^\W_])")
_JOIN = re.compile(r"\s*(?:,\s*)?(?<![^\W_])(?:va|con|dong thoi)(?![^\W_])\s*|\s*[,;]\s*")


def question_parts(question: str) -> list[str]:
    """The question cut where "và" joins two parts that each ask something; [question] when it is one."""
    question = unicodedata.normalize("NFC", question)
    folded = fold(question)
    if len(folded) != len(question):
        return [question]
    parts, start = [], 0
    for m in _JOIN.finditer(folded):
        left, right = folded[start : m.start()], folded[m.end() :]
        if _ASKING.search(left) and _ASKING.search(right):
            parts.append(question[start : m.start()])
            start = m.end()
    parts.append(question[start:])
    return [p for p in parts if p.strip()]


# The person's words for what the book says otherwise ("để ngoài tủ lạnh" is kept "ở nhiệt độ phòng").
# "ngưng" and "ngừng" are one verb, stop: the book prints "ngừng thuốc".
_SAID_OTHERWISE = ((re.compile(r"(?<!\w)ngoài tủ lạnh(?!\w)", re.IGNORECASE), "ở nhiệt độ phòng"),
                   (re.compile(r"(?<![^\W_])ngoai tu lanh(?![^\W_])", re.IGNORECASE), "o nhiet do phong"),
                   (re.compile(r"(?<!\w)(?:ngưng|ngừng|dừng|bỏ)(?: thuốc)? (?:luôn|ngay)(?!\w)", re.IGNORECASE),
                    "ngừng thuốc đột ngột"),
                   (re.compile(r"(?<!\w)ngưng(?!\w)", re.IGNORECASE), "ngừng"),
                   # the book's "ít nhất 15 giây" for the person's "tối thiểu bao lâu"
                   (re.compile(r"(?<!\w)tối thiểu(?!\w)", re.IGNORECASE), "ít nhất"),
                   (re.compile(r"(?<![^\W_])toi thieu(?![^\W_])", re.IGNORECASE), "it nhat"))


def question_terms(question: str, drop_names: Iterable[str] = ()) -> list[Term]:
    """The question's content words in order: no asking words, section words or the drug's own names."""
    dropped = {fold(w) for name in drop_names for w in _WORD.findall(name)}
    terms: list[Term] = []
    question = expand_abbreviations(unicodedata.normalize("NFC", question))  # "tiêm TM": "tiêm tĩnh mạch"
    for pattern, book in _SAID_OTHERWISE:
        question = pattern.sub(book, question)
    question, _ = _answer_kinds(question)
    words = _WORD.findall(unicodedata.normalize("NFC", question))
    for i, word in enumerate(words):
        folded = fold(word)
        if (len(folded) < 2 and not folded.isdigit()) or folded in ASKING_WORDS:
            continue  # a number stays: "INR > 9" is met by the sentence that prints it
        if folded.isdigit() and i + 1 < len(words) and fold(words[i + 1]) in _COUNTED:
            continue  # "quên 1 liều", "uống 2 viên": a count of doses, not a figure the book prints
        if folded in dropped:
            continue
        terms.append(Term(folded, _typed_key(word), fold(word) != word.lower()))
    return terms


@dataclass
class _Bag:
    folded: set[str]
    typed: set[str]
    pairs: set[tuple[str, str]]

    @classmethod
    def of(cls, text: str) -> _Bag:
        words = _WORD.findall(unicodedata.normalize("NFC", text))
        folded = [fold(w) for w in words]
        kinds = {term for term, printed in ANSWER_TERMS.items() if printed.search(text)}
        return cls(set(folded) | kinds, {_typed_key(w) for w in words},
                   set(zip(folded, folded[1:], strict=False)))

    def has(self, term: Term) -> bool:
        return term.typed in self.typed if term.accented else term.folded in self.folded


# ---- the sentences of one drug --------------------------------------------------------------------------------


def drug_sentences(chunks: Iterable[Chunk]) -> list[Sentence]:
    """Every trusted prose sentence of the drug's chunks, in the book's order."""
    out: list[Sentence] = []
    for chunk in chunks:
        if chunk.quarantined or chunk.kind != "prose" or chunk.section_key in SKIPPED_SECTIONS:
            continue
        if not chunk.printed_pages or not chunk.physical_pages:
            continue  # no page to cite
        for start, end in split_sentences(chunk.text):
            if end - start >= MIN_SENTENCE_CHARS and re.search(r"[^\W\d_]{2}", chunk.text[start:end]):
                out.append(Sentence(chunk, start, end))
    return out


def rank(
    question: str,
    sentences: list[Sentence],
    drop_names: Iterable[str] = (),
    boost: Iterable[str] = (),
    embedder=None,
    extra_terms: Iterable[Term] = (),
) -> list[Scored]:
    """The sentences scored against the question, best first ([] when the question has no content word)."""
    terms = list(dict.fromkeys([*question_terms(question, drop_names), *extra_terms]))
    if not terms or not sentences:
        return []
    bags = [_Bag.of(s.text) for s in sentences]
    n = len(bags)
    weight = {}
    for term in terms:
        df = sum(1 for b in bags if b.has(term))
        weight[term] = math.log((n + 1) / (df + 0.5))
    # "bao lâu?" is answered by a sentence that prints a duration: when some do, only they are weighed
    kind_held = False
    for kind in (t for t in terms if t.folded in FILTERING_TERMS):
        holding = [(s, b) for s, b in zip(sentences, bags, strict=True) if kind.folded in b.folded]
        if holding:
            sentences, bags, kind_held = [s for s, _ in holding], [b for _, b in holding], True
    pairs = [(a, b) for a, b in zip(terms, terms[1:], strict=False)]
    # the book's word for a duration only adds: a sentence that prints the figure without it still answers
    total = sum(w for t, w in weight.items() if t.folded != DURATION_WORD_TERM) \
        + 0.5 * sum(weight[a] + weight[b] for a, b in pairs) / 2
    boosted = set(boost)
    unprinted = {t for t in weight if not any(b.has(t) for b in bags)}
    dropped = _unprinted_alternative(question, terms, unprinted, drop_names)
    if dropped:
        # "bưởi chùm hay nước nho?": the book speaks of one of the alternatives; the other is not asked of it
        weight = {t: w for t, w in weight.items() if t not in dropped}
        pairs = [(a, b) for a, b in pairs if a not in dropped and b not in dropped]
        unprinted -= dropped
        total = sum(w for t, w in weight.items() if t.folded != DURATION_WORD_TERM) \
            + 0.5 * sum(weight[a] + weight[b] for a, b in pairs) / 2
    absent = sum(weight[t] for t in unprinted) / total if total > 0 else 0.0
    scored: list[Scored] = []
    directions = {t.folded for t in terms if t.folded in _OPPOSITE}
    for sentence, bag in zip(sentences, bags, strict=True):
        held = sum(w for t, w in weight.items() if bag.has(t))
        if held <= 0:
            continue
        if any(_OPPOSITE[d] in bag.folded and d not in bag.folded for d in directions):
            continue  # "làm tăng nồng độ" asked: a sentence that only says what lowers it answers the opposite
        joined = sum(weight[a] + weight[b] for a, b in pairs if bag.has(a) and bag.has(b)
                     and (a.folded, b.folded) in bag.pairs)
        lexical = min(1.0, (held + 0.5 * joined / 2) / total) if total > 0 else 0.0
        scored.append(Scored(sentence, lexical, boosted=sentence.section_key in boosted, absent=absent,
                             kind_held=kind_held))
    scored.sort(key=lambda s: -s.score)
    if embedder is not None and scored and _in_doubt(scored):
        _add_meaning(question, scored[:DENSE_CANDIDATES], embedder)
        scored.sort(key=lambda s: -s.score)
    return scored


# "A hay B", "A hoặc B": alternatives, when a content word follows (not "hay không")
_ALTERNATIVE = re.compile(r"(?<![^\W_])(?:hay|hoac|hay la)\s+(?!(?:khong|chua|sao|la|thoi|chi)(?![^\W_]))",
                          re.IGNORECASE)


def _unprinted_alternative(question: str, terms: list[Term], unprinted: set[Term],
                           drop_names: Iterable[str]) -> set[Term]:
    """The terms of one alternative the monograph never prints, when the other alternative's are all printed;
    else nothing (a question whose every alternative is missing still abstains)."""
    if not unprinted:
        return set()
    folded = fold(unicodedata.normalize("NFC", question))
    match = _ALTERNATIVE.search(folded) if len(folded) == len(question) else None
    if match is None:
        return set()
    left = set(question_terms(question[: match.start()], drop_names))
    right = set(question_terms(question[match.end() :], drop_names))
    for side, other in ((left, right), (right, left)):
        missing, own_other = side & unprinted, other - side
        if missing and own_other and not own_other & unprinted and not unprinted - side:
            return missing
    return set()


def _in_doubt(scored: list[Scored]) -> bool:
    """The words alone leave the answer open: the best holds too little of the question, or another is close."""
    if scored[0].lexical < MIN_COVERAGE:
        return True
    return len(scored) > 1 and scored[1].score >= KEEP_WITHIN * scored[0].score


_VECTORS: OrderedDict[str, list[float]] = OrderedDict()


def _add_meaning(question: str, scored: list[Scored], embedder) -> None:
    """Cosine of each sentence with the question by the embedding model; left None when it cannot run."""
    texts = [s.sentence.text[:EMBED_CHARS] for s in scored]
    missing = list(dict.fromkeys(t for t in texts if t not in _VECTORS))
    try:
        query = embedder.embed([question], "query")[0]
        if missing:
            for text, vector in zip(missing, embedder.embed(missing, "document"), strict=True):
                _VECTORS[text] = vector
                while len(_VECTORS) > MAX_EMBEDDED:
                    _VECTORS.popitem(last=False)
    except Exception as err:  # noqa: BLE001 - a missing or broken model leaves the words to decide
        log.warning("sentence ranking without meaning: %s", err)
        return
    for s in scored:
        vector = _VECTORS.get(s.sentence.text[:EMBED_CHARS])
        if vector is not None:
            s.dense = sum(a * b for a, b in zip(query, vector, strict=False))


# ---- routes ---------------------------------------------------------------------------------------------------


# Drug forms name a route for the question's reader ("viên", "thuốc mỡ"); in the book they name a product.
_FORM_WORDS = ("viên", "thuốc", "siro", "sirô", "kem", "mỡ", "gel", "dạng", "bình")


def _route_phrases(route: str) -> list[str]:
    """The book's wordings of a route (every injection's for a bare "tiêm"), drug forms left out."""
    return [p for p, k in ROUTE_PHRASES
            if (k == route or dose_fit.route_matches(route, [k])) and not p.startswith(_FORM_WORDS)]


def names_route(text: str, route: str, specific: bool = False) -> bool:
    """The text names the route; `specific`: by its site ("tiêm bắp"), not a bare "tiêm" (which may be said of
    another product: "tiêm chất cản quang")."""
    t = Text.of(text)
    return any(find(t, p, strict=p in ROUTE_PHRASES_TYPED_ONLY) for p in _route_phrases(route)
               if not (specific and p == "tiêm"))


_MAY_I = re.compile(r"(?<![^\W_])(?:duoc khong|co duoc|co the)(?![^\W_])")
# the route refused as such, not a way of giving it ("Không tiêm tĩnh mạch nhanh"): the clause ends, or gives its
# reason, after the route (and the drug's name)
_REFUSAL_END = r"(?:\s+[^\W\d_]+)?(?=\s*(?:[.;,)]|$)|\s+(?:vì|do|bởi|để tránh)(?!\w))"
_REFUSING = r"(?:không|tránh|chớ|cấm)(?:\s+(?:được|nên|dùng|sử dụng|bao giờ|bằng|theo))*(?:\s+đường)?\s+"


def refuses_route(text: str, route: str) -> bool:
    """The sentence opens a clause by refusing the route by its site ("Không tiêm bắp ...", "Không được dùng
    đường tiêm bắp"), not "không tiêm" said of something else."""
    if route == "uong":
        return False  # "không uống gấp đôi", "không uống rượu": the verb refuses other things
    lowered = unicodedata.normalize("NFC", text).lower()
    for phrase in _route_phrases(route):
        if phrase == "tiêm":
            continue
        if re.search(r"(?:^|[.;:,]\s*|\(\s*)" + _REFUSING + re.escape(phrase.lower()) + _REFUSAL_END, lowered):
            return True
    return False


CONTRA_KEY = "chong_chi_dinh"
MAX_ROUTE_ITEM_WORDS = 6


def _route_contraindicated(sentence: Sentence, route: str) -> bool:
    """"Tiêm tĩnh mạch hyaluronidase." among the contraindications: an item that is the route itself (opening on
    it, a few words long) forbids that route."""
    if sentence.section_key != CONTRA_KEY or route == "uong":
        return False
    text = unicodedata.normalize("NFC", sentence.text).strip().lower()
    if len(text.split()) > MAX_ROUTE_ITEM_WORDS:
        return False
    return any(text.startswith(p.lower()) for p in _route_phrases(route) if p != "tiêm")


def _refused(sentences: list[Sentence], route: str, drug: str) -> EngineAnswer | None:
    """The sentences that name the route and refuse it, cited with the book's no; None when none does."""
    refused = [s for s in sentences if names_route(s.text, route)
               and (refuses_route(s.text, route) or _route_contraindicated(s, route))]
    if not refused:
        return None
    asked = FRAME_ROUTE_NAMES.get(route, route).lower()
    return _cited(refused[:2], drug, f"Dược thư ghi không dùng {drug} theo đường {asked} (xem câu trích dẫn).")


# ---- answers --------------------------------------------------------------------------------------------------


def _drug_name(monograph: Monograph | None, drug_id: str) -> str:
    title = monograph.title if monograph is not None else drug_id.replace("_", " ")
    return title[:1].upper() + title[1:].lower()


def _cited(chosen: list[Sentence], drug: str, message: str = "") -> EngineAnswer:
    answer = CitedAnswer()
    for s in chosen:
        answer.add(f"{drug} — {section_heading(s.section_key)}", _kind(s.section_key), s.chunk, s.start, s.end)
    if not answer.blocks:
        return abstain(Reason.EVIDENCE_INSUFFICIENT)
    return answer.result(None, message)


def _kind(key: str):
    if key == DOSAGE_KEY:
        return "dosage"
    if key in ("chong_chi_dinh", "than_trong", "tuong_tac_thuoc"):
        return "warning"
    return "prose"


def _best(scored: list[Scored]) -> list[Sentence]:
    """The best sentence and those nearly as good (at most MAX_SENTENCES), best first."""
    if not scored or not scored[0].answers:
        return []
    top = scored[0].score
    return [s.sentence for s in scored[:MAX_SENTENCES] if s.answers and s.score >= KEEP_WITHIN * top]


def _for_unimpaired(chosen: list[Sentence], frame) -> list[Sentence]:
    """A patient whose kidneys and liver the question does not mention: a sentence for an impaired organ ("... ở
    người suy gan nặng: ... 4 mg/giờ") is another patient's, when a sentence without one answers beside it."""
    if getattr(frame, "renal_impairment", False) or getattr(frame, "hepatic_impairment", False) \
            or getattr(frame, "clcr", None) is not None:
        return chosen
    plain = [s for s in chosen if not (RENAL_WORDS.search(s.text.lower()) or HEPATIC_WORDS.search(s.text.lower()))]
    return plain or chosen


def _names(monograph: Monograph | None, frame) -> list[str]:
    names = [*frame.drug_mentions.values()]
    if monograph is not None:
        names += [monograph.title, monograph.drug_id.replace("_", " ")]
        if monograph.inn:
            names.append(monograph.inn)
    return names


def answer(ask: SentenceAsk, frame, chunks: list[Chunk], monograph: Monograph | None, embedder=None
           ) -> EngineAnswer:
    """The cited sentences of one drug that answer the question, or why none does."""
    drug_id = monograph.drug_id if monograph is not None else (chunks[0].drug_id if chunks else "")
    drug = _drug_name(monograph, drug_id)
    sentences = _for_this_patient(drug_sentences(chunks), frame, ask)
    names = _names(monograph, frame)
    frame = frame.model_copy(update={"question": _members_as_printed(frame.question, sentences)})
    if ask.kind == "route" and frame.route:
        routed = _route_answer(frame, chunks, sentences, names, drug, drug_id, embedder)
        if routed is not None:
            return routed
    if ask.kind != "route" and frame.route and _MAY_I.search(fold(frame.question)):
        # "Bệnh nhân không uống được, có tiêm bắp X được không?": the patient's context around a may-I of the
        # route; the book's refusal of that route is the answer
        refused = _refused(sentences, frame.route, drug)
        if refused is not None:
            return refused
    if ask.kind == "lab":
        return _lab_band(frame, sentences, names, drug, embedder)
    if ask.section == CONTRAINDICATIONS_KEY and frame.route:
        # "bn loét ở mặt bôi X được không?": whether this patient may have it; the route is how, the case is what
        # the book's sentences must hold ("đã từng được bôi để ..." holds the route only)
        names = [*names, *_route_phrases(frame.route)]
    boost = [ask.section] if ask.section else []
    if ask.kind == "how_to" or (ask.section == CONTRAINDICATIONS_KEY and _asks_how_given(frame.question)):
        # "tiêm TM đẩy nhanh được không, tối thiểu bao lâu?": a may-I of how fast, how long, where it goes in is
        # answered where the book says how it is given
        boost = [DOSAGE_KEY]
    if ask.section == OVERDOSE_KEY and _MANAGEMENT.search(fold(frame.question)):
        managed = _management(sentences)
        if managed:
            return _cited(managed, drug)
    if any_of(Text.of(frame.question), MISSED_DOSE_PHRASES):
        missed = _missed_dose(sentences)
        if missed:
            return _cited(missed, drug)
    if ask.section in WEIGHED_SECTIONS:
        # the section the question names by its heading ("quá liều", "bảo quản") answers first when one of its
        # sentences holds enough of the question: "suy hô hấp" in an overdose question is the overdose's
        own = rank(frame.question, [s for s in sentences if s.section_key == ask.section], names, boost, embedder)
        # the thing the question names ("Ringer lactat") printed only outside the section named: there first
        elsewhere = _named_elsewhere(frame.question, ask.section, sentences, names, own)
        if elsewhere:
            return _cited(elsewhere, drug)
        if own and own[0].lexical >= MIN_COVERAGE_WITH_MEANING:  # the heading named stands for the meaning
            top = own[0].score
            chosen = [s.sentence for s in own[:MAX_SENTENCES] if s.score >= KEEP_WITHIN * top]
            return _cited(_with_next(chosen, own, sentences, same_section=True), drug)
        said = _saying_the_phrase(frame.question, ask.section, sentences)
        if said:
            return _cited(said, drug)
        cued = _cued_section(frame.question, ask.section, sentences, names)
        if cued:
            return _cited(cued, drug)
    if ask.section in (None, DOSAGE_KEY):
        topical = _printing_the_topic(frame.question, sentences)
        if topical:
            # "uống lúc nào, nhai được không?": the dosage section's sentences that print each topic asked
            return _cited(topical, drug)
    parts = question_parts(frame.question)
    if len(parts) > 1:
        # "nồng độ tối đa bao nhiêu và phải truyền trong bao lâu?": each asking part gets its own sentence
        chosen = []
        for part in parts:
            own = rank(part, sentences, names, boost, embedder)
            for sentence in _with_next(_best(own)[:1], own, sentences):
                if sentence not in chosen:
                    chosen.append(sentence)
        if chosen and len(chosen) <= 2 * (MAX_SENTENCES + 1):
            return _cited(chosen, drug)
    scored = rank(frame.question, sentences, names, boost, embedder)
    if not scored and ask.kind == "how_to":
        return _instructions(chunks, drug_id, drug)
    chosen = _for_unimpaired(_best(scored), frame)
    if not chosen:
        return abstain(Reason.EVIDENCE_INSUFFICIENT, _not_found(drug))
    chosen = _with_next(chosen, scored, sentences)
    if any_of(Text.of(frame.question), WHICH_DRUG_PHRASES):
        # "Những thuốc nào ...?": the sentence that prints the list is read first (every sentence still shown)
        chosen = sorted(chosen, key=lambda s: not _prints_list(s.text))
    return _cited(chosen, drug)


# Sections that speak of one group of patients: a question that is not about that group is not answered there
GROUP_SECTIONS = frozenset({"thoi_ky_mang_thai", "thoi_ky_cho_con_bu"})


def _for_this_patient(sentences: list[Sentence], frame, ask: SentenceAsk) -> list[Sentence]:
    """The drug's sentences, those of the pregnancy and breastfeeding sections only when the question is about a
    pregnant or breastfeeding woman or names that section ("ngừng thuốc" for anyone is not the pregnancy's)."""
    if ask.section in GROUP_SECTIONS or getattr(frame, "pregnant", False) or getattr(frame, "breastfeeding", False):
        return sentences
    return [s for s in sentences if s.section_key not in GROUP_SECTIONS]


def _printing_the_topic(question: str, sentences: list[Sentence]) -> list[Sentence]:
    """The dosage section's sentences that print the words of the taking topics the question asks (lexicon
    INSTRUCTION_TOPICS: meals, crushing, preparing), in the book's order; [] unless every topic asked is printed."""
    said = Text.of(question)
    asked = [printed for asks, printed in INSTRUCTION_TOPICS if any_of(said, list(asks))]
    if not asked:
        return []
    dosage = [s for s in sentences if s.section_key == DOSAGE_KEY]
    found: list[Sentence] = []
    for printed in asked:
        pattern = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in printed) + r")(?!\w)")
        hits = [s for s in dosage if pattern.search(s.text.lower())]
        if not hits:
            return []
        found += [s for s in hits[:2] if s not in found]
    return sorted(found, key=sentences.index)[: MAX_SENTENCES + 1]


def _members_as_printed(question: str, sentences: list[Sentence]) -> str:
    """A drug the monograph never prints, named by its class where the monograph prints the class ("thiopental"
    asked, "barbiturat" printed): the question is ranked with the class's wording in its place."""
    texts = [s.text for s in sentences]
    for word in dict.fromkeys(_WORD.findall(question)):
        classes = drug_classes.with_parents(drug_classes.classes_of_member(word))
        if not classes or any(drug_classes.mentions(t, word) for t in texts):
            continue
        printed = next((w for w in drug_classes.wordings(classes) if any(drug_classes.mentions(t, w) for t in texts)),
                       None)
        if printed is not None:
            question = re.sub(r"(?<!\w)" + re.escape(word) + r"(?!\w)", printed, question)
    return question


def _prints_list(text: str) -> bool:
    """A sentence that lists names: three or more items after a colon or "như", separated by commas."""
    head = re.search(r"(?::|\bnhư\b|\bsau\b:?)\s*(.+)$", text)
    return bool(head) and head.group(1).count(",") >= 2


# Where the book says what to do at a value: its overdose handling first, then the ADR handling and the dosage.
_LAB_SECTIONS = (OVERDOSE_KEY, "xu_tri_adr", DOSAGE_KEY)


def _lab_band(frame, sentences: list[Sentence], names: list[str], drug: str, embedder) -> EngineAnswer:
    """"INR 6,5, không chảy máu, xử trí thế nào?": the sentences whose printed band on the analyte holds the
    patient's value ("Nếu INR > 5 nhưng < 9 ..."), ranked by the question's other words, with the sentence the
    book goes on with; a band that excludes the value is never shown. None printed: abstain (the section paths
    then answer)."""
    labs = list(frame.lab_values)
    holding = [s for s in sentences if s.section_key in _LAB_SECTIONS and lab_values.bears_on(s.text, labs)]
    if not holding:
        return abstain(Reason.EVIDENCE_INSUFFICIENT, _not_found(drug))
    question = _without_values(frame.question, labs)
    boost = [OVERDOSE_KEY] + ([frame.section_key] if frame.section_key else [])
    scored = rank(question, holding, names, boost, embedder)
    order = {key: i for i, key in enumerate(_LAB_SECTIONS)}
    if not scored:
        best = min(holding, key=lambda s: order[s.section_key])
        return _cited(_not_excluded(_with_next([best], [], sentences, same_section=True), labs), drug)
    top = scored[0]
    chosen = [s.sentence for s in scored[:MAX_SENTENCES]
              if s.sentence.section_key == top.sentence.section_key and s.score >= KEEP_WITHIN * top.score]
    return _cited(_not_excluded(_with_next(chosen, scored, sentences, same_section=True), labs), drug)


def _not_excluded(chosen: list[Sentence], labs) -> list[Sentence]:
    """The sentence the book goes on with is shown unless its own band excludes the patient's value."""
    return [s for s in chosen if lab_values.bears_on(s.text, labs) is not False]


def _without_values(question: str, labs) -> str:
    """The question without the numbers of its lab values (the band holds them, not the words)."""
    out = question
    for lab in labs:
        number = f"{lab.value:g}"
        for said in {number, number.replace(".", ",")}:
            out = re.sub(rf"(?<![\d,.]){re.escape(said)}(?![\d,.])", " ", out)
    return out


def _saying_the_phrase(question: str, section: str, sentences: list[Sentence]) -> list[Sentence]:
    """"Những thuốc nào tương kỵ với X khi pha truyền?": the words that named the section ("tương kỵ") are what
    is asked; the sentences of that section that print them, in the book's order, answer it whole (a list is
    shown with every item it prints), when the question's other words are ones the section does not print."""
    asked = route_section(Text.of(expand_abbreviations(question)))
    if asked.key != section or not asked.phrase:
        return []
    printing = [s for s in sentences if s.section_key == section and find(Text.of(s.text), asked.phrase)]
    return printing[: MAX_SENTENCES + 1]


# The words the app's own tables use to ask (a section's words, a route's, how it is given or kept, a ward's
# cues): "pha", "truyền", "chai" say how something is asked, not the thing asked about.
_ASKING_VOCABULARY = frozenset(
    fold(w) for phrase in (*(p for p, _ in SECTION_PHRASES), *(p for p, _ in QUESTION_CUES),
                           *(p for p, _ in ROUTE_PHRASES), *GIVING_PHRASES, *HOW_TO_PHRASES)
    for w in _WORD.findall(phrase))
RARE_IN_DRUG = 3  # a word printed in at most this many of the drug's sentences names a thing ("Ringer lactat")


def _named_elsewhere(question: str, section: str, sentences: list[Sentence], names: list[str],
                     own: list[Scored]) -> list[Sentence]:
    """"Pha X vào chai Ringer lactat được không?": the section named (Tương kỵ) never prints the thing the
    question names, a sentence elsewhere of the drug does ("Không dùng dung dịch Ringer lactat hòa tan thuốc ...",
    in the dosage section's preparation): those sentences first, then the named section's best. [] when the
    section prints every rare word the question holds, or no sentence elsewhere holds enough of the question."""
    terms = question_terms(question, names)
    bags = {id(s): _Bag.of(s.text) for s in sentences}
    in_section = [bags[id(s)] for s in sentences if s.section_key == section]
    if not in_section:
        return []
    rare = [t for t in terms if t.folded not in _ASKING_VOCABULARY
            and 0 < sum(1 for b in bags.values() if b.has(t)) <= RARE_IN_DRUG
            and not any(b.has(t) for b in in_section)]
    if not rare:
        return []
    scored = rank(question, sentences, names, [section], None)
    if not scored:
        return []
    top = scored[0].score
    chosen = [s.sentence for s in scored[:MAX_SENTENCES]
              if s.sentence.section_key != section and s.lexical >= MIN_COVERAGE_WITH_MEANING
              and s.score >= KEEP_WITHIN * top and any(bags[id(s.sentence)].has(t) for t in rare)]
    if not chosen:
        return []
    return chosen + [s.sentence for s in own[:2] if s.lexical > 0 and s.sentence not in chosen]


def _cued_section(question: str, section: str, sentences: list[Sentence], names: list[str]) -> list[Sentence]:
    """"X cất giữ thế nào cho khỏi hỏng?": a section chosen by a ward's words for it (QUESTION_CUES), not by words
    its sentences print; when the question's other words are ones the section never prints, what it asks is the
    section itself: its first sentences, in the book's order. [] when the section was named otherwise, or when
    the question asks something more the section could print (the words then decide)."""
    asked = route_section(Text.of(expand_abbreviations(question)))
    if asked.key != section or asked.phrase not in _CUE_PHRASES:
        return []
    own = [s for s in sentences if s.section_key == section]
    cue_words = {fold(w) for w in _WORD.findall(asked.phrase)}
    terms = [t for t in question_terms(question, names) if t.folded not in cue_words]
    bags = [_Bag.of(s.text) for s in own]
    if any(b.has(t) for t in terms for b in bags):
        return []
    return own[: MAX_SENTENCES + 1]


_CUE_PHRASES = frozenset(p for p, _ in QUESTION_CUES)


# "xử trí thế nào", "thuốc giải độc", "dùng thuốc giải gì", "trung hòa bằng gì": what to do, not what happens
_MANAGEMENT = re.compile(r"(?<![^\W_])(?:xu tri|giai doc|thuoc giai|doi khang|trung hoa|cap cuu|lam gi|dieu tri)(?![^\W_])")
# the book's own label for that part of an overdose section ("Xử trí:", "Điều trị:"), or the label printed as a
# run-in heading before the part's first sentence ("Điều trị Chẩn đoán sớm rất quan trọng ...")
_MANAGEMENT_LABEL = re.compile(r"^\W*(?:xu tri|dieu tri)(?:\s+qua lieu)?\s*:")
_RUN_IN_LABEL = re.compile(r"^\W*(?:Xử trí|Điều trị)(?: quá liều)?\s+(?=[A-ZĐÂĂÊÔƠƯÁÀẢÃẠÉÈÍÌÓÒÚÙÝ])")
MAX_MANAGEMENT = 6
MAX_REGIMEN = 2  # the part's sentences that give a dose (the antidote's regimen), shown beyond MAX_MANAGEMENT


def _management(sentences: list[Sentence]) -> list[Sentence]:
    """The overdose section's "Xử trí:" part, from its label on, in the book's order (what to do, the antidote
    with it, and the first sentences further on that give the antidote's dose); [] when the section prints no
    such label."""
    own = [s for s in sentences if s.section_key == OVERDOSE_KEY]
    for i, sentence in enumerate(own):
        if _MANAGEMENT_LABEL.search(fold(sentence.text)) or _RUN_IN_LABEL.search(sentence.text):
            part = own[i:]
            first = part[:MAX_MANAGEMENT]
            regimen = [s for s in part[MAX_MANAGEMENT:] if _gives_dose(s.text)][:MAX_REGIMEN]
            return first + regimen
    return []


def _missed_dose(sentences: list[Sentence]) -> list[Sentence]:
    """"Quên một liều thì sao?": the sentences that speak of a missed dose ("liều quên", "bỏ sót"), the dosage
    section's in the book's order; [] when it prints none (the words then decide)."""
    own = [s for s in sentences if s.section_key == DOSAGE_KEY and any_of(Text.of(s.text), MISSED_DOSE_PHRASES)]
    nxt = _next_in_paragraph(own[-1], sentences) if own else None
    if nxt is not None and re.search(r"(?<!\w)liều(?!\w)", nxt.text.lower()):
        # "... uống liều tiếp vào giờ đã định. Không tự ý uống gấp đôi liều ...": the paragraph goes on with the
        # rest of what to do about the missed dose
        own.append(nxt)
    return own[: MAX_SENTENCES + 1]


def _next_in_paragraph(sentence: Sentence, sentences: list[Sentence]) -> Sentence | None:
    """The sentence the book prints next in the same paragraph, or None (the last one, or a blank line after)."""
    for i, candidate in enumerate(sentences[:-1]):
        if candidate is sentence:
            following = sentences[i + 1]
            gap = sentence.chunk.text[sentence.end : following.start]
            return following if following.chunk is sentence.chunk and "\n\n" not in gap else None
    return None


def _introduced_by(lead: Sentence, sentences: list[Sentence]) -> list[Sentence]:
    """The lines a lead ending in ':' introduces, in its chunk: up to the next lead, a blank line, or
    MAX_INTRODUCED of them."""
    out: list[Sentence] = []
    at = next((i for i, s in enumerate(sentences) if s is lead), None)
    if at is None:
        return out
    previous = lead
    for following in sentences[at + 1 :]:
        gap = lead.chunk.text[previous.end : following.start]
        if following.chunk is not lead.chunk or "\n\n" in gap or len(out) == MAX_INTRODUCED:
            break
        if following.text.rstrip().endswith(":"):
            break
        out.append(following)
        previous = following
    return out


def _with_next(chosen: list[Sentence], scored: list[Scored], sentences: list[Sentence],
               same_section: bool = False) -> list[Sentence]:
    """The best sentence with the one the book goes on with in its paragraph ("... nên dùng xa bữa ăn." "Uống
    lúc đói, 1 giờ trước khi ăn."): shown when it holds half the words the best holds, or, in a section the
    question named, always."""
    if not chosen:
        return chosen
    best = chosen[0]
    if best.text.rstrip().endswith(":"):
        # "Có một số biện pháp có thể làm giảm các phản ứng cấp:": a lead is read with what it introduces
        items = _introduced_by(best, sentences)
        if items:
            shown = [best, *items]
            shown += [s for s in chosen[1:] if s not in shown]
            return shown[: MAX_SENTENCES + MAX_INTRODUCED]
    lexical = {id(s.sentence): s.lexical for s in scored}
    following = _next_in_paragraph(best, sentences)
    if following is None or following in chosen:
        return chosen
    if same_section or lexical.get(id(following), 0.0) >= 0.5 * lexical.get(id(best), 0.0):
        at = chosen.index(best) + 1
        return [*chosen[:at], following, *chosen[at:]][: MAX_SENTENCES + 1]
    return chosen


def _not_found(drug: str) -> str:
    return (f"Không tìm thấy câu nào trong chuyên luận {drug} của Dược thư trả lời đúng câu hỏi này. "
            "Vui lòng hỏi cụ thể hơn hoặc đối chiếu trang PDF.")


def _instructions(chunks: list[Chunk], drug_id: str, drug: str) -> EngineAnswer:
    """'Cách dùng X?' with nothing more: the book's instructions of how to give it that belong to no indication
    or group (the dosage section's own "Cách dùng")."""
    dosage = sorted((c for c in chunks if c.section_key == DOSAGE_KEY), key=lambda c: c.part_index)
    rows = [r for r in section_rows(drug_id, dosage) if r.kind == "instruction" and not r.quarantined
            and r.indication is None and r.population is None]
    by_id = {c.chunk_id: c for c in dosage}
    chosen = [Sentence(by_id[r.chunk_id], r.start, r.end) for r in rows[:MAX_SENTENCES] if r.chunk_id in by_id]
    if not chosen:
        return abstain(Reason.EVIDENCE_INSUFFICIENT, _not_found(drug))
    return _cited(chosen, drug)


def _route_answer(frame, chunks: list[Chunk], sentences: list[Sentence], names: list[str], drug: str,
                  drug_id: str, embedder) -> EngineAnswer | None:
    """Whether the book gives the route asked about, said with the sentences that name it; None when the dosage
    section names no route at all (the words alone then decide)."""
    route = frame.route
    dosage = sorted((c for c in chunks if c.section_key == DOSAGE_KEY), key=lambda c: c.part_index)
    rows = section_rows(drug_id, dosage) if dosage else []
    if not any(r.route for r in rows):
        return None
    given = any(dose_fit.route_matches(route, r.route) for r in rows)
    naming = [s for s in sentences if names_route(s.text, route)]
    asked = FRAME_ROUTE_NAMES.get(route, route).lower()
    # "Không tiêm bắp vì kích ứng tại chỗ.": the book says not to, though another sentence names the route (a
    # conversion "khi chuyển từ ... tiêm bắp sang ..." is no leave to give it)
    refused = _refused(naming, route, drug) if given else None
    if refused is not None:
        return refused
    if given:
        # the book's own words for how it is given by that route: its dosage section first, then the rest
        in_dosage = [s for s in naming if s.section_key == DOSAGE_KEY]
        pool = in_dosage or naming
        pool = [s for s in pool if not _gives_dose(s.text)] + [s for s in pool if _gives_dose(s.text)]
        scored = rank(frame.question, pool, names, [], None)
        chosen = [s.sentence for s in scored[:2]] or pool[:1]
        if chosen:
            return _cited(chosen, drug, f"Dược thư có ghi cách dùng {drug} theo đường {asked}.")
        return None
    dosed = _routes([r for r in rows if r.kind in dose_fit.DOSE_KINDS]) or _routes(rows)
    replies = [ROUTE_NAMES[r] for r in dosed if r in ROUTE_NAMES]
    listed = ", ".join(r.lower() for r in replies)
    said = f"Dược thư không ghi liều {drug} cho đường {asked}." + (f" Dược thư ghi liều cho các đường: {listed}."
                                                                   if listed else "")
    warned = [s for s in naming if s.section_key in WARNING_SECTIONS and not _gives_dose(s.text)
              and names_route(s.text, route, specific=True)]
    if warned:
        scored = rank(frame.question, warned, names, [], None)
        chosen = [s.sentence for s in scored[:2]] or warned[:1]
        # with how the book says it is given ("Thuốc để tiêm tĩnh mạch ..., hoặc để tiêm dưới da sâu")
        how = [s for s in sentences if s.section_key == DOSAGE_KEY and not _gives_dose(s.text)
               and any(names_route(s.text, r, specific=True) for r in dosed)]
        return _cited(chosen + [h for h in how[:1] if h not in chosen], drug, said)
    return EngineAnswer(decision="clarify", reason=Reason.MISSING_ROUTE.value,
                        message=join_messages(said, "Bạn muốn xem đường nào?"), quick_replies=replies)


_DOSE_NUMBER = re.compile(r"\d\s*(?:mg|g|microgam|mcg|ml|đơn vị)\b", re.IGNORECASE)


def _gives_dose(text: str) -> bool:
    return bool(_DOSE_NUMBER.search(text))


def _routes(rows) -> list[str]:
    out: list[str] = []
    for r in rows:
        for key in r.route:
            if key not in out and key != "other":
                out.append(key)
    return out
