"""The dosage section read as the book structures it: every statement with the fields it inherits.

The book nests its labels in no fixed order (route → indication → group in one monograph, group → route in
another), so nothing here assumes an order. A stack holds the headings read so far, each of one dimension
(group, indication, route). A new heading replaces the last heading of its own dimension and everything nested
under it, or nests under the current ones when its dimension is not on the stack yet; a generic heading
("Liều lượng:", "Cách dùng:") starts over. A label that leads its own text ("Người lớn: 500 mg ...") holds for its
paragraph; a band label ("Trẻ em 4 - 6 tuổi:") and the group words a sentence states hold for the sentences after
it in the same paragraph until another group is named. A statement's own words win over everything inherited.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.dosage import labels, reading
from duocthu_desktop.dosage.rows import AgeBound, DoseRow, RenalBand, WeightBound
from duocthu_desktop.dosage.words import (
    ROUTE_NAMES,
    age_in,
    monograph_route,
    names_hepatic,
    names_renal,
    populations_in,
    renal_in,
    routes_in,
    weight_in,
)
from duocthu_desktop.text import fold

DOSAGE_KEY = "lieu_luong_cach_dung"
IDENTITY_KEY = "thong_tin_chung"  # the INN line: a monograph of one form names it there ("Timolol (eye drops)")

_GENERIC = re.compile(next(r.pattern for r in labels.RULES if r.name == "generic"))
_RENAL_DISEASE = re.compile(next(r.pattern for r in labels.RULES if r.name == "renal_disease"))
_SEVERITY = re.compile(labels.SEVERITY)
# printed labels a question may name, kept among a row's headings for their paragraph (they state no field)
_REGIMEN_OR_SEVERITY = re.compile(r"^phac do\b|" + labels.PHASE + "|" + labels.SEVERITY)
# Words with no Vietnamese letter ("Epoetin alpha", "Epoetin zeta"), one of them no Vietnamese syllable: names of
# products or agents, not of a disease ("Ho khan" is Vietnamese without diacritics).
_NAME_ONLY = re.compile(r"[A-Za-z][a-z]+(?:[ -][A-Za-z][a-z]*)*")
_SYLLABLE = re.compile(r"(?:ngh|ch|gh|gi|kh|ng|nh|ph|qu|th|tr|[bcdghklmnprstvx])?[aeiouy]{1,3}(?:ch|ng|nh|[cmnpt])?")


def _names_only(label: str) -> bool:
    words = label.strip()
    return bool(_NAME_ONLY.fullmatch(words)) and any(not _SYLLABLE.fullmatch(w) for w in re.split(r"[ -]", words.lower()))
# "Khi tiêm tĩnh mạch gián đoạn:", "Nếu tiêm dưới da sâu:": a route as the condition of one paragraph's remark, not
# a heading of the paragraphs after it
_WHEN_ROUTE = re.compile(r"^(?:khi|neu|trong khi|luc)\b")
# "Với trường hợp X:", "Trong trường hợp X:": a case within its paragraph.
_CASE = re.compile(r"^(?:voi|trong|doi voi) truong hop\b")
# a paragraph that opens on the group it is about ("Ở người lớn đang dùng hóa trị liệu ...", "Trẻ em ...")
_OPENS_ON_GROUP = re.compile(r"^(?:o |cho |doi voi |voi )?(?:nhung )?(?:nguoi lon|tre|so sinh|benh nhi|phu nu"
                             r"|thieu nien|nhu nhi|nguoi cao tuoi|nguoi gia)\b")
# ("trên" folds to "tren": not "trẻ")
_GROUP_FIRST = re.compile(r"^(?:o |cho |doi voi )?(?:(?:nguoi|tre|so sinh|benh nhi|phu nu|thieu nien|nhu nhi)\b|\d)")
_FOR_GROUP = re.compile(r"\b(?:o|cho|doi voi) (?:nguoi|tre|so sinh|phu nu|benh nhi)")
_REMARK = re.compile(r"^(?:ghi chu|chu y|luu y)$")
# A note on how to prepare or give the drug ("Pha dung dịch tiêm truyền:", "Thời gian tiêm truyền:").
_ADMIN_NOTE = re.compile(
    r"^(?:pha\b|cach pha|thoi gian (?:tiem|truyen|dung thuoc|dieu tri)|toc do|nong do|cach tiem|cach truyen)"
)
_MAX = re.compile(r"^(?:lieu (?:\w+ ){0,3})?(?:toi da|cao nhat|khong (?:duoc )?(?:\w+ )?(?:vuot )?qua)\b")
_MAX_LABEL = re.compile(r"\btoi da\b")
# "Không dùng liều tấn công", "Nếu không đáp ứng với liều đầu tiên, ...": a loading dose named, not given.
_NOT_THIS = re.compile(r"(?:khong(?: \w+)?|voi|sau|cua|tranh)\s*$")
# ("Tiêm tĩnh mạch đầu tiên 1 liều 5 000 đvqt ..., sau đó truyền ...": first a dose of, then the regimen)
_LOADING = re.compile(r"\blieu (?:nap|tan cong|dau tien)\b|\bdau tien (?:mot|1) lieu\b")
_ADJUST = re.compile(
    r"\b(?:giam lieu|dieu chinh lieu|gian (?:rong )?khoang|noi rong|giam \w+ lieu|thay doi|bo sung|lieu thap"
    r"|lieu cao hon|lieu \w+ hon|(?:hieu )?chinh lieu|keo dai khoang|than trong)\b"
)
# Words of a group label that say nothing beyond the group and its band: what is left names an indication.
_BAND_WORDS = frozenset(
    "va o cho ke ca benh nhan nguoi em nho tre lon cao tuoi so sinh hoac nien nhu nhi gia tren duoi tu den"
    " toi kg tuan thang ngay nam thai chinh theo can nang thang hon tro len con bu mang co phu nu"
    " clcr ml phut do thanh thai creatinin suy than gan chuc nang giam tinh sau khi tat kinh".split()
)
# "thiếu" names a group only in "thiếu niên", "thiếu tháng" ("Thiếu máu ở trẻ sơ sinh thiếu tháng" is an indication)
_BAND_PHRASES = re.compile(r"\bthieu (?:nien|thang)\b")
OWN_ROUTE_WINDOW = 8  # a sentence names its own route within its first words ("Liều uống thường dùng là ...")
_ROUTE_WORDS = frozenset(
    w for name in ROUTE_NAMES.values() for w in fold(name).split()
) | {"tiem", "truyen", "tinh", "mach", "duong", "dung", "cham", "lien", "tuc", "thuoc", "mo", "kem"}


@dataclass
class Fields:
    """What a label, a sentence or a heading says a statement applies to."""

    routes: list[str] = field(default_factory=list)
    population: str | None = None
    age: AgeBound | None = None
    weight: WeightBound | None = None
    renal: RenalBand | None = None
    hepatic: bool = False
    indication: str | None = None
    age_only: bool = False  # the group is inferred from an age band alone ("3 - 6 tháng tuổi")

    @property
    def has_group(self) -> bool:
        return self.population is not None or self.age is not None or self.weight is not None


@dataclass
class Level:
    dim: str  # "group" | "indication" | "route"
    label: str
    fields: Fields
    inline: bool = False  # a label that opened a statement, not a heading alone on its line
    paragraph_only: bool = False  # holds for its paragraph only
    piece: int = 0  # the statement whose labels pushed it
    soft: bool = False  # a label opening a paragraph of remarks ("Trẻ em: Kinh nghiệm ... còn hạn chế.")
    below: tuple[str, ...] = ()  # the headings it nests under: a heading's siblings nest under the same ones
    held: set[str] = field(default_factory=set)  # a group heading's block so far: "text" and/or "labels"
    ceiling: bool = False  # a maximum's heading ("Liều tối đa cho người lớn:"): its statements are ceilings
    # a sentence introducing the lines below ("Để điều trị X ở trẻ em trên 1 tuổi, liều ... như sau:"): it holds for
    # the paragraph after it and the band lines that follow that one; `lines`: paragraphs read under it
    intro: bool = False
    lines: int = 0
    # an impaired organ's label opening a remark that ends in a full stop ("Bệnh nhân suy gan: Liều ... có thể cần
    # phải giảm."): a label opening the next paragraph on a route ends it
    remark: bool = False
    # an indication heading the section opens with, before any statement or generic label ("Tăng huyết áp", then
    # "Cách dùng:", "Liều lượng:"): the generic labels under it are its parts, not a new start
    section_wide: bool = False


def read_fields(text: str, *, label: bool = False) -> Fields:
    """The fields one label or one statement's opening words state (a fresh copy: callers change it)."""
    return _copy(_read_fields(text, label))


def _copy(f: Fields) -> Fields:
    return replace(f, routes=list(f.routes))  # the bounds are not changed in place, the route list may be


@lru_cache(maxsize=8192)
def _read_fields(text: str, label: bool) -> Fields:
    f = Fields(routes=routes_in(text), age=age_in(text, label), weight=weight_in(text), renal=renal_in(text, label))
    pops = populations_in(_group_part(text) if label else text)
    if f.age is not None and (f.age.gestational or (pops == {"tre_em"} and _neonatal(f.age))):
        pops = (pops - {"tre_em"}) | {"so_sinh"}  # "Trẻ 7 đến 28 ngày tuổi": a neonate by its age
    elif f.age is not None and pops == {"so_sinh"} and (f.age.years()[1] or 0) > 1:
        pops = {"tre_em"}  # "Trẻ sơ sinh cho đến 12 tuổi": children from birth up to the bound
    together = _TOGETHER.search(fold(text))
    if pops == {"nguoi_lon", "tre_em"} and together and (
        "thieu nien" in together.group(0) or (f.age is not None and f.age.min is not None and f.age.max is None)
    ):
        pops = {"nguoi_lon"}  # "Người lớn và trẻ em trên 12 tuổi", "Người lớn và thiếu niên": the adults' dose
    if len(pops) == 1:
        f.population = next(iter(pops))
    elif not pops and f.age is not None:
        lo, hi = f.age.years()
        if hi is not None and hi <= 18:
            f.population = "tre_em"
            f.age_only = True
        elif lo is not None and lo >= 60:
            f.population = "nguoi_cao_tuoi"  # "Bệnh nhân trên 60 tuổi": the book's elderly
        elif lo is not None and (lo >= 18 or (lo >= 12 and hi is not None and hi > 18)):
            f.population = "nguoi_lon"  # "Người bệnh từ 16 - 64 tuổi": a band of adults (and the oldest children)
    if f.renal is None and names_renal(_LIKE_RENAL.sub(" ", fold(text))):
        f.renal = RenalBand()
    f.hepatic = names_hepatic(text)
    if label and (f.renal is not None or f.hepatic) and f.population is not None and _EITHER.search(
            _between_group_and_organ(fold(text))):
        f.population = None  # "Người suy thận và người cao tuổi", "Trên bệnh nhân cao tuổi, bệnh nhân suy gan": either
    return f


_EITHER = re.compile(r"\b(?:va|hoac)\b|,")
_ORGAN_WORDS = re.compile(r"\b(?:suy|chuc nang|than|gan|clcr|thanh thai|tham phan|tham tach|loc mau|chay than)\b")
_GROUP_WORDS = re.compile(r"\b(?:nguoi lon|tre|so sinh|cao tuoi|nguoi gia|thieu nien|nhu nhi|mang thai|cho con bu)\b")


def _between_group_and_organ(folded: str) -> str:
    """The words between where a label names its group and where it names an impaired organ: a "và"/"hoặc" there
    joins two groups ("Người cao tuổi và người suy thận"); one inside the organ's words does not ("Người lớn đang
    thẩm tách máu hoặc chuẩn bị thẩm tách máu")."""
    group, organ = _GROUP_WORDS.search(folded), _ORGAN_WORDS.search(folded)
    if group is None or organ is None:
        return folded
    a, b = sorted([group, organ], key=lambda m: m.start())
    return folded[a.end() : b.start()]


# "Liều như người suy thận", "Giống như đối với người < 50 kg hoặc có chức năng thận suy giảm": a dose given by
# comparison with the renal group, not a statement for it
_LIKE_RENAL = re.compile(r"\b(?:nhu|tuong tu|giong)\b(?:[^.;:]{0,50}?)\b(?:suy than|than (?:bi )?suy giam)\b")


# adults named with older children as one group: the children's bound, if any, is a lower one
_TOGETHER = re.compile(r"\bnguoi lon(?: va|,| hoac)? (?:tre em|tre|thieu nien)\b(?! (?:duoi|nho hon|<))"
                       r"|\b(?:tre em|tre|thieu nien)\b(?! (?:duoi|nho hon|<))[^,:;]{0,30}? (?:va|hoac) nguoi lon\b")


def groups_together(label: str) -> bool:
    """A label that lists groups only, each item a group ("Cho người lớn, người cao tuổi và trẻ em")."""
    items = [i for i in re.split(r",|\bvà\b|\bhoặc\b", label) if i.strip()]
    if "thieu nien" in fold(label):
        return False  # adults named with adolescents ("Người lớn, thanh thiếu niên") are the adults' group
    return len(items) > 1 and all(populations_in(i) for i in items)


def _group_part(label: str) -> str:
    """Where a label names its group: its first listed item ("Nhiễm khuẩn huyết, nhiễm khuẩn huyết sơ sinh, ..."
    lists diseases), or a group it is for ("... ở trẻ em")."""
    if groups_together(label):
        return label  # "Cho người lớn, người cao tuổi và trẻ em": groups named together, each item a group
    first = label.split(",")[0]
    rest = re.findall(r"(?:\b(?:ở|cho|đối với)\s+)(?:người|trẻ|sơ sinh|phụ nữ|bệnh nhi)[^,;]*", label[len(first):], re.I)
    return " ".join([first, *rest])


def classify_rule(words: str) -> tuple[str, Fields, labels.LabelRule]:
    """What a label is (labels.RULES, first rule that holds) and the fields its words state."""
    kind, f, rule = _classify_rule(words)
    return kind, _copy(f), rule


@lru_cache(maxsize=8192)
def _classify_rule(words: str) -> tuple[str, Fields, labels.LabelRule]:
    words = words.strip().rstrip(":").strip()
    f = read_fields(words, label=True)
    facts = labels.stated(group=f.has_group, route=bool(f.routes), renal=f.renal is not None, hepatic=f.hepatic)
    # a bracketed aside or what follows an inner ":" does not change what the label is ("Cách dùng: (gồm ...)")
    head = re.sub(r"\([^()]*\)", " ", words).split(":")[0].strip() or words
    folded = fold(head)
    rule = labels.first_rule(head, folded, facts)
    kind = rule.kind
    if f.population is None and not f.has_group and groups_together(head):
        # several groups named as one ("Cho người lớn, người cao tuổi và trẻ em:"): no single group, no indication
        return "note", f, rule
    band_free = _BAND_PHRASES.sub(" ", folded)
    if rule.name == "group" and not (
        sum(1 for w in re.findall(r"[a-z]+", band_free) if w not in _BAND_WORDS) < 2 or _GROUP_FIRST.match(folded)
    ):
        kind = "indication"  # an indication that names its group ("Điều trị tăng huyết áp ở trẻ em")
    if kind == "indication":
        f.indication = words
        if rule.name == "purpose":
            f.indication = words.split(",")[0].strip()  # "Để giảm đau": the purpose, not how it is given
    return kind, f, rule


def classify(words: str) -> tuple[str, Fields]:
    """What a label is for the heading stack: generic, note, kind, group, route or indication. A qualifier
    (alternative, phase, severity, INR band) and a glossary line set nothing, as a note."""
    kind, f, _ = classify_rule(words)
    return ("note" if kind in ("qualifier", "glossary") else kind), f


def _merged_heading(text: str, start: int, end: int) -> int | None:
    """A route or generic heading the extractor joined to the sentence after it ("Truyền tĩnh mạch Liều dùng
    được ...", "Liều lượng Liệu pháp ..."): where that sentence begins, or None."""
    m = re.match(r"([^\W\d][\w ]{2,40}?) (?=[A-ZĐÀ-Ỹ][a-zà-ỹ])", text[start:end])
    if m is not None and _GENERIC.match(fold(m.group(1))):
        return start + m.end()
    if m is None or not routes_in(m.group(1)) or not text[start + m.end()].isupper():
        return None  # "À-Ỹ" spans lower-case letters too: "Tiêm tĩnh mạch đầu tiên 1 liều ..." is one sentence
    if not set(fold(m.group(1)).split()) <= _ROUTE_WORDS:
        return None
    return start + m.end()


def _standalone_heading(text: str, start: int, end: int) -> bool:
    """A short line with no number and no full stop is a heading even without ":"; so is a paragraph of one
    phrase ending in ":"."""
    line = text[start:end].strip()
    if not line or not line[0].isupper():
        return False
    if re.match(r"\S{1,8} là\s", line):
        return False  # "Ccr là nồng độ creatinin huyết thanh (micromol/lít)": a formula's symbol explained
    if line.endswith(":") and not re.search(r"[.!?;]\s", line):
        return True  # a list of indications or an intro that runs over lines, ending in ":"
    # ("... Xem mục chống chỉ định. Uống:" is a sentence, then a heading: not one heading)
    return len(line) <= 90 and not re.search(r"\d|[.;!?]$|[.!?;]\s", line)


class SectionReader:
    """Walks one dosage section, chunk by chunk, in the book's order."""

    def __init__(self, drug_id: str, default_routes: tuple[str, ...] = ()) -> None:
        self.drug_id = drug_id
        self.default_routes = list(default_routes)  # the monograph's own route (monograph_route), if it names one
        self.stack: list[Level] = []
        self.rows: list[DoseRow] = []
        self.piece_no = 0
        self.group_heads: list[Level] = []  # the group headings alone on their line since the last generic one
        # the group a statement named in its own words ("Ở người lớn đang dùng hóa trị liệu ..."): it holds for the
        # later paragraphs of its block until another group is named or a heading or label starts a new block
        self.block_group: Fields | None = None
        # the routes a paragraph opened with a sentence of how the drug is given, no dose ("Có thể tiêm dưới da
        # hoặc tiêm tĩnh mạch ...", "... có thể dùng X tiêm dưới da để chữa ..."): they hold for the doses of the
        # later paragraphs of its block that name no route, until a heading or another such sentence. Such
        # sentences in a row with no dose between them ("X: Có thể tiêm dưới da ...", "Y: Có thể tiêm tĩnh mạch.")
        # add up: the doses after them may be given by either
        self.block_routes: list[str] = []
        self.block_routes_open = False
        # the routes the doses of the block named in their own words so far ("Bắt đầu uống 100 - 200 mg ..."): a
        # dose of a later paragraph of the block that names none, under no route heading, is given by them
        self.block_dose_routes: list[str] = []
        # the last paragraph read named an impaired organ by a label of no other group ("Người suy thận: ... theo
        # bảng sau:"): a table right after it is that organ's band of the drug, not the group or indication above
        self.organ_label_before = False
        self.group_run = 0  # paragraphs in a row opening on a group's label with a dose of their own
        self.generic_seen = False  # a generic label ("Liều lượng:", "Cách dùng:") has been read in the section

    # ---- the heading stack ---------------------------------------------------------------------------

    def end_paragraph(self) -> None:
        self.stack = [lv for lv in self.stack if not lv.paragraph_only]

    def lists_routes(self) -> bool:
        """Under a heading of other routes ("Các đường dùng khác:"), each route label is one item of a list."""
        return any(lv.dim == "route" and not lv.inline and not lv.fields.routes for lv in self.stack)

    def push(self, kind: str, label: str, f: Fields, inline: bool, paragraph_only: bool = False) -> None:
        """A heading alone on its line closes the labels that opened statements above it and replaces its own
        dimension with all nested under it; a label opening a statement replaces the label of its dimension that
        opened an earlier statement, and holds on top of the headings until the next heading."""
        if kind in ("generic", "group", "indication") or (kind == "route" and not inline):
            self.block_group = None
        if kind not in ("qualifier", "note") and (not inline or kind in ("generic", "indication")):
            self.block_routes = []  # a new topic of a regimen ("Đáp ứng không thỏa đáng ...:") keeps them
            self.block_dose_routes = []
        if kind == "generic":
            # starts over, but not under the labels of its own statement ("Tăng huyết áp: Liều thường dùng: ...")
            self.stack = [lv for lv in self.stack if (lv.piece == self.piece_no and lv.inline) or lv.section_wide]
            self.group_heads = []
            self.generic_seen = True
            return
        if kind not in ("group", "route", "indication", "qualifier"):
            return
        level = Level(kind, label, f, inline, paragraph_only, self.piece_no)
        if inline or paragraph_only:
            # a sibling label: the earlier one goes, with the labels of earlier statements nested under it
            if kind == "indication":
                # the routes labelled under the indication before this one do not hold for this one
                self.stack = [lv for lv in self.stack if not (lv.inline and lv.dim == "route"
                                                              and lv.piece != self.piece_no)]
            same = [i for i, lv in enumerate(self.stack) if lv.inline and lv.dim == kind]
            if same:
                self.stack = self.stack[: same[-1]] + [
                    lv for lv in self.stack[same[-1] + 1 :] if not lv.inline or lv.piece == self.piece_no
                ]
            self.stack.append(level)
            return
        self.stack = [lv for lv in self.stack if not lv.inline]
        same = [i for i, lv in enumerate(self.stack) if lv.dim == kind]
        if same:
            gone = {lv.label for lv in self.stack[same[-1] :] if lv.dim == "indication" and lv.soft}
            del self.stack[same[-1] :]
            if kind == "indication":
                # the group a paragraph's indication label named ("Duy trì ... ở trẻ sơ sinh: ...") goes with it
                self.stack = [lv for lv in self.stack if not (lv.dim == "group" and lv.soft and lv.label in gone)]
        level.below = tuple(lv.label for lv in self.stack)
        level.section_wide = kind == "indication" and not self.rows and not self.generic_seen and not self.stack
        if kind == "group":
            self.group_heads.append(level)
        self.stack.append(level)

    def _group_head(self) -> Level | None:
        """The innermost group heading alone on its line whose block the text is in."""
        heads = [lv for lv in self.stack if lv.dim == "group" and not (lv.inline or lv.soft or lv.paragraph_only)
                 and any(lv is g for g in self.group_heads)]
        return heads[-1] if heads else None

    def _group_block(self, opening: str | None, standalone: bool = False) -> None:
        """Group headings alone on their line whose blocks hold running text only (a group heading, then its
        paragraphs with no label) are one level of the section: a topic label that opens a paragraph after such
        a block's text is their sibling, not nested in the last of them. A block whose earlier siblings held
        labels (a group heading over a list of indications) keeps its labels, and so does a group heading with
        no sibling before it (nothing shows its level). `opening`: the label the paragraph opens with, None for
        running text, "" for other structure (a table, its intro, a merged heading)."""
        head = self._group_head()
        if head is None:
            return
        if opening is None:
            head.held.add("text")
            return
        if not opening.strip():
            head.held.add("labels")
            return
        kind, f = classify(opening)
        if standalone and kind == "group" and not _is_band(f):
            return  # the next heading of the same level: the block ends at it
        siblings = [g for g in self.group_heads if g is not head and g.below == head.below and not g.soft
                    and not any(g is lv for lv in self.stack)]
        if (kind == "indication" and not f.has_group and head.held == {"text"} and siblings
                and all(g.held == {"text"} for g in siblings)):
            self.stack = self.stack[: next(i for i, lv in enumerate(self.stack) if lv is head)]
            return
        head.held.add("labels")

    def inherited(self) -> Fields:
        out = Fields()
        for lv in self.stack:
            out = _overlay(out, lv.fields)
        return out

    # ---- reading ---------------------------------------------------------------------------------------

    def read_chunk(self, chunk: Chunk, before_table: bool = False) -> None:
        """`before_table`: a table follows this chunk, so a last line ending in ":" introduces it."""
        if chunk.quarantined:
            self._group_block("")
            self._table_row(chunk)
            return
        text = chunk.text
        spans = reading.paragraphs(text)
        intros = _table_intros(text, spans) if before_table else set()
        for i, (p_start, p_end) in enumerate(spans):
            self._paragraph(chunk, p_start, p_end, table_intro=i in intros)
            self.end_paragraph()

    def _paragraph(self, chunk: Chunk, start: int, end: int, table_intro: bool = False) -> None:
        text = chunk.text
        self.organ_label_before = False
        merged = _merged_heading(text, start, end)
        standalone = merged is None and _standalone_heading(text, start, end) and not reading.DOSE.search(
            text[start:end])
        labels = reading.labels_at(text, start, end)[0]
        self._intro_lines(labels)
        opening = "" if merged is not None or table_intro else labels[0].text if labels else (
            text[start:end].strip().rstrip(":") if standalone else None)
        self._group_block(opening, standalone)
        if merged is not None:
            words = text[start:merged].strip()
            kind, f = classify(words)
            self.push(kind, words, f, inline=False)
            start = merged
        elif table_intro:
            # a table's intro or caption: a statement of its own, under the headings above it; what the
            # paragraph says before its last sentence is read as usual
            spans = reading.sentences(text, start, end)
            if len(spans) > 1:
                self._sentences(chunk, spans[:-1], end=spans[-1][0])
                start = spans[-1][0]
            words = text[start:end].strip().rstrip(":")
            if _is_organ(read_fields(words, label=True)):
                self._leave_inline_indications()
            f = _overlay(self.inherited(), _group_only(read_fields(words, label=True)))
            f.routes = routes_in(words) or f.routes
            kind = "adjustment" if f.renal is not None or f.hepatic else "instruction"
            self.rows.append(self._row(chunk, start, _rstrip_end(text, start, end), f, words, None, kind))
            return
        elif standalone:
            labels, body = reading.labels_at(text, start, end)
            if body < _rstrip_end(text, start, end) or not labels:
                labels = [reading.Label(start, end, text[start:end].strip().rstrip(":"))]
            for lab in labels:  # "Nhiễm vi khuẩn ... đường tiết niệu: Người lớn:" is two headings
                kind, f = classify(lab.text)
                kind = _heading_kind(kind, lab.text, f)
                head = _indication_before_remark(lab.text) if kind == "note" else None
                if head is not None:
                    kind, f = classify(head)
                if kind == "note" and len(labels) == 1 and _INTRO.search(fold(lab.text)) and self._intro(lab.text, f):
                    continue  # a sentence of its own line introducing the lines below, not a heading of remarks
                self._heading(kind, lab.text, f, inline=False)
            return
        self._group_list(labels[0].text if labels else None, text[start:end])
        self._sentences(chunk, reading.sentences(text, start, end), end)

    def _group_list(self, opening: str | None, paragraph: str) -> None:
        """Paragraphs in a row that each open on a group's label with a dose of their own ("Người lớn: ... 10
        mg", "Người cao tuổi: ... 10 mg") are a list of the section's groups: a paragraph after them that opens on
        an indication's label naming no group ("Cơn tăng huyết áp: ...") is the list's sibling, not the last
        group's. One group label over the indications after it ("Trẻ em: Trên 1 tuổi, dùng đường uống.", then
        "Viêm tai giữa cấp: ...") still holds for them."""
        if opening is None:
            return  # running text goes on under the labels above it
        kind, f = classify(opening)
        if kind == "group" and f.has_group and not _is_organ(f) and reading.DOSE.search(paragraph):
            self.group_run += 1
            return
        if kind == "indication" and not f.has_group and self.group_run >= 2:
            self.stack = [lv for lv in self.stack if not (lv.dim == "group" and lv.inline)]
        self.group_run = 0

    def _intro(self, words: str, f: Fields) -> bool:
        """"Để điều trị X ở trẻ em trên 1 tuổi, liều lượng được xác định theo thể trọng như sau:": a sentence that
        introduces the lines below with what is treated and the group they are dosed for, where no indication
        heading holds. It nests on top of the headings above it, not replacing them: they hold again where it
        ends (`_intro_lines`). True when it does."""
        what = own_indication(words)
        if what is None or self._indication_heading():
            return False
        if _ANY_OF.match(fold(what)):
            what = None  # "để điều trị các nhiễm khuẩn": what the drug is for in general, no indication of its own
        self.stack.append(Level("indication", words, replace(f, routes=[], indication=what), piece=self.piece_no,
                                soft=True, intro=True))
        return True

    def _intro_lines(self, opening: list[reading.Label]) -> None:
        """A sentence that introduced the lines below holds for the first paragraph after it and for the lines
        after that which open on a band label of their own ("Từ 10 đến 20 kg: ..."); the first other paragraph
        ends it (the book has gone on to something else)."""
        intros = [lv for lv in self.stack if lv.intro]
        if not intros:
            return
        kind, f = classify(opening[0].text) if opening else ("", Fields())
        if intros[0].lines and not (kind == "group" and _is_band(f) and not _is_organ(f)):
            self.stack = [lv for lv in self.stack if not lv.intro]
            return
        for lv in intros:
            lv.lines += 1

    def _sentences(self, chunk: Chunk, spans: list[tuple[int, int]], end: int) -> None:
        carry = replace(self.block_group) if self.block_group is not None else Fields()
        first = True
        for s_start, s_end in spans:
            for piece in reading.pieces(chunk.text, s_start, s_end, cuts=_cuts_clause, cuts_clause=_own_group_dose):
                carry = self._piece(chunk, piece, carry, at_end=piece.end >= end, first=first)
                first = False
        if spans and not re.search(r"[.;:!?)]\s*$", chunk.text[spans[-1][0] : spans[-1][1]]):
            # "... (tối đa 60 000 đơn vị). Người bệnh phẫu thuật": a paragraph ending on no stop ends on a heading
            # the extractor glued to it; the group its sentences named does not cross it
            self.block_group = None
            self.block_routes = []
            self.block_dose_routes = []

    def _heading(self, kind: str, words: str, f: Fields, inline: bool, paragraph_only: bool = False,
                 soft: bool = False) -> None:
        if not inline:
            self.block_group = None  # a heading alone on its line, a note's included, starts a new block
        if kind == "note" and not inline and groups_together(words.strip().rstrip(":")):
            # "Cho người lớn, người cao tuổi và trẻ em:" alone on its line: the groups every statement below is for
            # (no single group to set; the heading stays above them, so a child's dose is among them)
            kind = "group"
        if kind == "note" and _REMARK.match(fold(words)):
            self.stack = [lv for lv in self.stack if not lv.inline]  # a general remark: no label above holds
        if kind == "note" and not inline and not _ADMIN_NOTE.match(fold(words)):
            # a new topic ("Theo dõi INR và điều chỉnh liều:") ends the groups a paragraph's label opened
            self.stack = [lv for lv in self.stack
                          if not (lv.soft and lv.dim != "route" and lv.piece != self.piece_no)]
        if kind == "note" and _ADMIN_NOTE.match(fold(words)):
            # how to prepare or give the drug: no longer about one organ's impairment
            self.stack = [lv for lv in self.stack if not (lv.dim == "group" and _is_organ(lv.fields))]
        if kind == "group" and _is_organ(f):
            self._leave_inline_indications()
            if not inline:
                # an impaired organ's heading on its own line is the drug's band, under no indication (but a
                # kidney disease the drug treats stays: its dialysis groups are groups of that indication)
                self.stack = [lv for lv in self.stack if lv.dim != "indication" or _treats_kidneys(lv)]
        if kind == "group" and _is_organ(f) and _ORGAN_RULE.search(fold(words)):
            # "Đối với người suy thận, phải giảm liều theo ...:": a rule for the drug, not for the indication or
            # the labelled group whose paragraph it ends; only the section's own group headings stay above it
            self.stack = [lv for lv in self.stack if lv.dim == "group" and not lv.inline and not _is_organ(lv.fields)]
        if kind == "indication" and f.has_group and _FOR_GROUP.search(fold(words)):
            # "Một số chỉ định đặc biệt đối với trẻ em:": a group heading and an indication heading under it
            group = Fields(population=f.population, age=f.age, weight=f.weight)
            self.push("group", words, group, inline, paragraph_only)
            f = replace(f, population=None, age=None, weight=None)
        if kind == "kind" and not inline and f.has_group and _MAX_LABEL.search(fold(words)):
            # "Liều tối đa cho người lớn 16 - 64 tuổi 50 kg, chức năng thận bình thường:" alone on its line: a group
            # heading whose statements are ceilings, until the next group heading
            self.push("group", words, _group_only(f), inline=False)
            self.stack[-1].ceiling = True
            return
        if kind == "indication" and not inline and not paragraph_only and not soft:
            # a heading alone on its line ends the narrower group a label opening a paragraph of remarks named
            # ("Người cao tuổi: Bệnh nhân trên 60 tuổi ... có thể cần dùng liều thấp hơn.", then "Chống đông trong
            # truyền máu:"); the adults, whose doses the book prints unlabelled, stay
            self.stack = [lv for lv in self.stack
                          if not (lv.dim == "group" and lv.soft and lv.fields.population != "nguoi_lon")]
        if kind == "indication" and f.routes and not inline and not paragraph_only:
            # "Để giảm đau, dùng dạng tiêm hoặc uống:": an indication heading and a route heading under it, so a
            # later route heading ("Uống:") replaces the routes and the groups under them, not the indication
            self.push(kind, words, replace(f, routes=[]), inline, paragraph_only)
            kind, f = "route", Fields(routes=f.routes)
        self.push(kind, words, f, inline, paragraph_only)
        if soft:
            for lv in self.stack[-2:]:
                lv.soft = lv.soft or lv.label == words

    def _indication_heading(self) -> bool:
        """An indication heading alone on its line holds here (not a label that opened a statement)."""
        return any(lv.dim == "indication" and not lv.inline and not lv.soft and not lv.paragraph_only
                   for lv in self.stack)

    def _leave_inline_indications(self) -> None:
        """An impaired organ's band ("Đối với suy thận:", a renal table) is the drug's, not the indication a label
        opened a paragraph with above it ("Cấp cứu: 12,5 - 25 mg/lần ..."); headings alone on their line stay."""
        self.stack = [lv for lv in self.stack
                      if not (lv.dim == "indication" and (lv.inline or lv.soft) and not _treats_kidneys(lv))]

    def _piece(self, chunk: Chunk, piece: reading.Piece, carry: Fields, at_end: bool, first: bool) -> Fields:
        text = chunk.text
        self.piece_no += 1
        if first and piece.labels and labels.is_glossary(piece.labels[0].text):
            return carry  # "FFP: fresh frozen plasma" explains an abbreviation: not a statement, not a heading
        body = text[piece.body_start : piece.end]
        if len(re.findall(r"[^\W\d_]", body)) < 3 and not piece.labels:
            return carry  # a step number ("- 1.") of a list of steps is not a statement
        doses = reading.gives_dose(body)
        heading_only = not body.strip() and at_end
        # a label opening a paragraph whose own sentence gives no dose heads what follows, like a heading; so
        # does a label whose statement ends the paragraph with ":" (it introduces the lines below)
        as_heading = heading_only or (first and not doses) or (at_end and not doses and body.rstrip().endswith(":"))
        # a group label opening a paragraph's last sentence, with no dose ("... trong 7 - 14 ngày. Trẻ em: Trên 1
        # tuổi, dùng đường uống."): a group heading the extractor glued to the paragraph, with the band its words add
        glued = (at_end and not first and not doses and bool(piece.labels)
                 and classify(piece.labels[0].text)[0] == "group" and not _is_organ(classify(piece.labels[0].text)[1]))
        as_heading = as_heading or glued
        kind_label = None
        label_fields = Fields()
        label_routes: list[str] = []
        labelled_indication = False
        generic_label = False
        if first and _opens_for_a_group(piece, body, doses):
            # a paragraph that opens on a group ("Liều dùng cho trẻ em: ...", "Hiệu chỉnh liều ở những bệnh nhân
            # suy thận, người già ...") is no longer under an indication whose label opened a paragraph of remarks
            self.stack = [lv for lv in self.stack if not (lv.dim == "indication" and lv.soft)]
        for lab in piece.labels:
            kind, f = classify(lab.text)
            if kind == "group" and _is_organ(f) and f.population is None and f.age is None and f.weight is None:
                self.organ_label_before = True
            if first and kind == "group":
                self.block_dose_routes = []  # another group's doses ("Trẻ em: ..." after "Người lớn: Uống ..."): not its way
            if heading_only:
                kind = _heading_kind(kind, lab.text, f)
            if kind == "indication" and labelled_indication:
                # "Dự phòng viêm nội tâm mạc nhiễm khuẩn: Để thay thế amoxicilin ... cho người bị dị ứng penicilin:
                # 1 liều ...": a second label of words describes the indication the first one named
                continue
            if glued and kind == "group" and not f.age and not f.weight:
                f = _overlay(f, _group_only(read_fields(_head(body))))
            if glued and kind == "group" and not f.routes:
                f = replace(f, routes=routes_in(body))  # "Trẻ em: Trên 1 tuổi, dùng đường uống.": its block's route
            generic_label = generic_label or kind == "generic"
            label_routes += [r for r in f.routes if r not in label_routes and not (kind == "note" and r == "other")]
            if kind == "generic" and not (as_heading or heading_only):
                # "...: Liều thường dùng: 25 mg" inside a statement, or opening one that gives its dose under a
                # group heading ("Trẻ em:" / "Liều thường dùng: 25 - 100 mg/kg ngày"), names its dose: it starts nothing
                continue
            if kind == "kind" and heading_only and f.has_group and _MAX_LABEL.search(fold(lab.text)):
                self._heading(kind, lab.text, f, inline=False)  # a maximum's group heading ending the paragraph
            elif kind == "kind":
                kind_label = lab.text
                label_fields = _overlay(label_fields, f)
            elif kind == "group" and not as_heading and _is_band(f) and not _is_organ(f) and not f.indication:
                # a band label leading its text: holds for this paragraph's sentences; an impaired organ that a
                # label of an earlier paragraph named is not this band's
                label_fields = _overlay(label_fields, f)
                # a new band ends the group a label of an earlier statement named ("Trẻ sơ sinh: ..." above
                # "Trẻ từ 1 tháng - 1 tuổi: ..."), and an impaired organ a label of an earlier paragraph named
                self.stack = [lv for lv in self.stack
                              if not (lv.dim == "group" and (lv.soft or lv.inline) and lv.piece != self.piece_no
                                      and (_is_organ(lv.fields) or _other_group(lv.fields, f)))]
            else:
                # an indication opening a later sentence, a route item of a list: for this paragraph only
                if kind == "indication" and first:
                    # "Suy gan nhẹ và vừa: ..." then "Người chuyển hóa chậm CYP2C19: ...": the organ's label held
                    # for its own paragraph's statements, not for a new topic's
                    self.stack = [lv for lv in self.stack if not (lv.dim == "group" and lv.inline and _is_organ(lv.fields)
                                                                  and lv.piece != self.piece_no)]
                    # "Trên 45 kg, bệnh lậu ...: Điều trị như người lớn." then "Bệnh thương hàn ...: Trẻ em: ...": an
                    # indication label opening a paragraph is the sibling of a case with its own band that a label
                    # opened an earlier paragraph of remarks with; that case goes, with its band and the labels
                    # nested under it (a case with no band may be the topic the new label is a part of: "Cơn tăng
                    # huyết áp:" ... "Cấp cứu: ...")
                    sibling = next((i for i, lv in enumerate(self.stack) if lv.dim == "indication" and lv.soft
                                    and not lv.inline and lv.piece != self.piece_no and _is_band(lv.fields)), None)
                    if sibling is not None:
                        self.stack = self.stack[:sibling] + [lv for lv in self.stack[sibling + 1 :]
                                                             if not (lv.soft or lv.inline) or lv.piece == self.piece_no]
                only = (kind == "indication" and _CASE.match(fold(lab.text)) is not None) or (
                    kind == "route" and (self.lists_routes() or _WHEN_ROUTE.match(fold(lab.text)) is not None)) or (
                    not as_heading and kind == "indication" and not first) or (
                    # "... mong muốn. Người bệnh đang thẩm tách qua màng bụng: Có thể dùng ...": an impaired organ
                    # named by a label opening a later sentence is that sentence's paragraph's, not the next ones'
                    not as_heading and kind == "group" and _is_organ(f) and not first)
                if (kind == "indication" and as_heading and not heading_only and not glued and not f.has_group
                        and self._indication_heading() and _names_only(lab.text)):
                    # "Epoetin alpha: Có thể tiêm dưới da ...", under "Thiếu máu ở người bệnh suy thận mạn tính:": a
                    # label of names only (no Vietnamese word) opening a paragraph with no dose names a product or
                    # an agent within the indication heading above, not a new indication
                    self.push("qualifier", lab.text, Fields(), inline=False)
                    self.stack[-1].soft = True
                    continue
                if first and kind == "route":
                    # "Tiêm, truyền tĩnh mạch: ..." after "Bệnh nhân suy gan: Liều ... có thể cần phải giảm.": the
                    # organ's remark is over; the doses by the route this paragraph opens on are not that organ's
                    self.stack = [lv for lv in self.stack if not (lv.remark and lv.piece != self.piece_no)]
                self._heading(kind, lab.text, f, inline=not as_heading, paragraph_only=only,
                              soft=as_heading and not heading_only)
                if (as_heading and not heading_only and kind == "group" and _is_organ(f) and not f.has_group
                        and not body.rstrip().endswith(":") and self.stack and self.stack[-1].label == lab.text):
                    self.stack[-1].remark = True
                if kind == "note" and _REGIMEN_OR_SEVERITY.match(fold(lab.text)):
                    # "Phác đồ tiêm liều cách xa nhau:", "Bệnh nhẹ:": a printed label the question may name,
                    # kept among the row's headings for its paragraph (it states no field)
                    self.push("qualifier", lab.text, Fields(), inline=True, paragraph_only=True)
                if kind == "group":
                    carry = Fields(routes=carry.routes)
                elif kind == "route":
                    carry = Fields()  # "...; trẻ em ... 10 mg/ngày. Dung dịch trực tràng: ...": the book names no group
                elif kind == "indication":
                    carry = Fields()  # a new indication starts a new regimen
                    labelled_indication = True
        if heading_only or not body.strip():
            return carry
        if at_end and not doses and body.rstrip().endswith(":"):
            # "Đối với người suy thận, phải giảm liều theo ...:" introduces the lines below: a statement, and
            # a heading of the group or band it names
            # only its last sentence introduces them ("Xem mục chống chỉ định. Uống:" refers elsewhere, then
            # heads the oral doses)
            intro = _LAST_SENTENCE.split(body.strip())[-1]
            words = _head(intro).rstrip().rstrip(":")
            kind, f = classify(words)
            kind = _heading_kind(kind, words, f)
            if kind in ("group", "route") or (kind == "kind" and f.has_group):
                self._heading(kind, intro.strip().rstrip(":"), f, inline=False)
            elif kind in ("indication", "note"):
                self._intro(intro.strip().rstrip(":"), f)
        if not doses and generic_label and routes_in(body, window=2):
            # "Cách dùng: Uống thuốc trước ăn 1 giờ.": the route the whole section is given by
            self._heading("route", body.strip(), Fields(routes=routes_in(body, window=2)), inline=False, soft=True)
        if not doses and not piece.labels and _INDICATION_ONLY.match(body.strip()):
            self._heading("indication", body.strip().rstrip("."), Fields(indication=body.strip().rstrip(".")),
                          inline=False)
            return Fields()
        if not doses and _only_routes(body):
            if first and not piece.labels:
                # "Dùng đường uống." opening a paragraph under a heading: the route of that heading's block, to
                # where the book starts a new heading of its level (like the group it sits under)
                self._heading("route", body.strip().rstrip("."), Fields(routes=routes_in(body)), inline=False)
            # "Phác đồ ...: Tiêm tĩnh mạch chậm.": a route given to what follows in the paragraph, not a statement
            return replace(carry, routes=routes_in(body))
        own = read_fields(_head(body))
        if not own.has_group:
            tail = _trailing_group(body)
            own = replace(own, population=tail.population, age=tail.age, weight=tail.weight)
        own.routes = _own_routes(body, doses or bool(label_routes))
        inherited = self.inherited()
        if not labelled_indication and not self._indication_heading():
            # an indication is a heading the book prints; a sentence names its own only where no heading does
            own.indication = own_indication(body)
        if (doses or own.has_group) and not own.routes and not label_routes and not (
                carry.routes or inherited.routes):
            # no route above: one the statement names anywhere ("..., ngày uống 3 lần"), in a dose or in a sentence
            # about its group ("Không khuyến cáo dùng cho trẻ em ..., nhưng khi thật cần thiết, có thể cho uống ...")
            own.routes = routes_in(body)
        new_carry = carry
        if label_fields.has_group or label_fields.renal:
            new_carry = replace(_group_only(label_fields), routes=carry.routes, indication=carry.indication)
        if own.has_group or own.renal is not None or own.indication:
            new_carry = _overlay(new_carry, _group_only(own))
        if first and own.has_group and not piece.labels and _OPENS_ON_GROUP.match(fold(body)):
            # the group only: its bounds ("dưới 3 tuổi") are the sentence's, a later band prints its own
            self.block_group = Fields(population=new_carry.population) if new_carry.population else None
        if (doses and not (label_routes or own.routes or carry.routes) and self.block_routes
                and any(m.re is reading.DOSE for m in reading._amounts(body))):
            new_carry = replace(new_carry, routes=list(self.block_routes))  # the route its block was given
            self.block_routes_open = False
        elif (doses and not (label_routes or own.routes or carry.routes or inherited.routes) and self.block_dose_routes
              and any(m.re is reading.DOSE for m in reading._amounts(body))):
            new_carry = replace(new_carry, routes=list(self.block_dose_routes))
        elif doses:
            self.block_routes_open = False
        if doses and (label_routes or own.routes):
            self.block_dose_routes += [r for r in label_routes + own.routes if r not in self.block_dose_routes]
        routes = _merge_routes(label_routes, own.routes, new_carry.routes or inherited.routes)
        if label_routes or own.routes:
            new_carry = replace(new_carry, routes=routes)
        fields = _overlay(_overlay(inherited, new_carry), Fields(hepatic=own.hepatic))
        start = piece.labels[0].start if piece.labels else piece.body_start
        if kind_label is None:
            kind_label = next((lv.label for lv in self.stack if lv.ceiling), None)
        self.rows.append(self._row(chunk, start, piece.end, fields, body, kind_label))
        if first and not doses:
            given = _given_by(body)
            if given:
                kept = self.block_routes if self.block_routes_open else []
                self.block_routes = kept + [r for r in given if r not in kept]
                self.block_routes_open = True
        # what a sentence with no dose says of itself (a warning, a general remark) is not carried on
        if not doses and not label_fields.has_group and not label_fields.renal and not own.indication:
            opening = routes_in(body, window=2)
            kept = replace(carry, routes=own.routes) if opening else carry
            # but the group a paragraph opens on is its block's ("Ở người lớn đang dùng hóa trị liệu ..., có thể ...")
            return _overlay(kept, self.block_group) if first and self.block_group is not None and own.has_group \
                else kept
        return new_carry

    def _row(self, chunk: Chunk, start: int, end: int, f: Fields, body: str, kind_label: str | None,
             kind: str | None = None) -> DoseRow:
        return DoseRow(
            drug_id=self.drug_id,
            chunk_id=chunk.chunk_id,
            printed_page=page_at(chunk, start),
            text=chunk.text[start:end],
            start=start,
            end=end,
            route=self._routes(f.routes),
            indication=f.indication,
            population=f.population,
            age=f.age,
            weight_kg=f.weight,
            renal=f.renal,
            hepatic=f.hepatic,
            kind=kind or _kind(body, kind_label, f),
            headings=[lv.label for lv in self.stack],
        )

    def _routes(self, routes: list[str]) -> list[str]:
        """A statement's routes, else the monograph's; a vague one ("tra mắt" in a monograph of eye drops) yields
        to the monograph's."""
        if not self.default_routes:
            return routes
        if not routes or all(set(self.default_routes) & _UNDER_TITLE.get(r, set()) for r in routes):
            return list(self.default_routes)
        return routes

    def _table_row(self, chunk: Chunk) -> None:
        f = self.inherited()
        if self.organ_label_before:
            f = replace(f, population=None, age=None, weight=None, indication=None)
        header = chunk.text.split("\n", 1)[0]
        if renal_in(header, label=True) is not None or names_renal(header) or "creatinin" in fold(header):
            f = replace(f, renal=f.renal or RenalBand())
        # a table of doses by band is a dose statement of its band (read on the PDF page, not quoted)
        kind = "adjustment" if f.renal is not None or f.hepatic else (
            "dose" if reading.gives_dose(chunk.text) else "instruction")
        row = self._row(chunk, 0, len(chunk.text), f, chunk.text, None, kind)
        self.rows.append(row.model_copy(update={"quarantined": True}))


# "các nhiễm khuẩn", "những bệnh nhiễm trùng", "mọi nhiễm khuẩn": a kind of disease as a whole (a plural or "any")
_ANY_OF = re.compile(r"^(?:cac|nhung|moi)\b")
# "... như sau", "... theo bảng sau", "... dưới đây": a sentence that introduces the lines after it
_INTRO = re.compile(r"(?:nhu sau|bang sau|sau day|duoi day)$")


def _treats_kidneys(level: Level) -> bool:
    """An indication that names the kidney disease the drug treats ("Thiếu máu ở người bệnh suy thận mạn tính"):
    the dialysis and renal groups printed under it are groups of that indication, not the drug's renal bands."""
    return level.dim == "indication" and _RENAL_DISEASE.search(fold(level.label)) is not None


def _other_group(above: Fields, band: Fields) -> bool:
    """A band that names its own group ("Trẻ từ 1 tháng - 1 tuổi") is not nested in another group a label above
    named ("Trẻ sơ sinh:"); a bare age band ("Trên 2 tuổi") is."""
    return not band.age_only and band.population is not None and above.population not in (None, band.population)


def _indication_before_remark(words: str) -> str | None:
    """"Viêm thực quản trợt xước, liều dùng dựa theo trọng lượng cơ thể ...:" alone on its line: an indication
    heading with a remark on its doses after the comma; the indication's words, or None when the words before the
    first comma are no indication or what follows is no remark on the dose."""
    head, comma, rest = words.partition(",")
    if not comma or len(head.split()) < 2:
        return None
    if classify_rule(rest.strip())[2].name not in ("dose_remark", "dose_kind") \
            or classify_rule(head.strip())[2].name != "indication":
        return None
    return head.strip()


def _heading_kind(kind: str, words: str, f: Fields) -> str:
    """A dose-kind label alone on its line heads the lines below it: "Liều uống cho người có chức năng thận bình
    thường:" is a route heading, "Liều cho trẻ em từ 6 đến 12 tuổi:" a group heading (not a maximum's)."""
    if kind != "kind":
        return kind
    if f.has_group and not _MAX_LABEL.search(fold(words)) and not _LOADING.search(fold(words)):
        return "group"
    return "route" if f.routes else kind


def _cuts_clause(label: str) -> bool:
    """A ";" cuts before a label of a group, route, band, indication or severity, not before a kind or a
    formulation ("; Liều thường dùng: ...", "; viên giải phóng chậm: ...")."""
    kind, _ = classify(label)
    return kind in ("group", "route", "indication") or bool(_SEVERITY.match(fold(label)))


# An impaired organ's heading written as a rule ("..., phải giảm liều theo ..."), not a label ("Suy thận:").
_ORGAN_RULE = re.compile(r"\b(?:phai|can|nen) (?:giam|dieu chinh|chinh)\b")


def _opens_for_a_group(piece: reading.Piece, body: str, doses: bool) -> bool:
    if piece.labels:
        kind, f = classify(piece.labels[0].text)
        return kind == "kind" and f.has_group  # "Liều dùng cho trẻ em:", not a bare "Người lớn:" under it
    own = read_fields(_head(body))
    return not doses and (own.has_group or own.renal is not None or own.hepatic)


def _own_group_dose(clause: str) -> bool:
    """An unlabelled clause that gives a dose for a group of its own ("trẻ em 1 - 5 mg", "0,09 mg/kg/ngày cho
    trẻ từ 10 - 18 tuổi"): a statement of its own, not the rest of the one before."""
    return reading.gives_dose(clause) and (read_fields(_head(clause)).has_group or _trailing_group(clause).has_group
                                           or _own_route_dose(clause) or _own_case_dose(clause))


def _own_case_dose(clause: str) -> bool:
    """"...: với X là 4 - 6 lọ; với Y là 3 - 5 lọ": after a ";", a clause that names its own case (a product, a
    form) and gives that case's dose is a statement of its own, so the case's words stand with its dose only."""
    return reading.first_amount(clause) is not None and re.match(r"\s*(?:với|đối với) (?!(?:liều|mỗi|lần)\b)",
                                                                 clause, re.I) is not None


def _own_route_dose(clause: str) -> bool:
    """An unlabelled clause that opens on the way it gives its own dose ("...; liều khởi đầu tiêm tĩnh mạch 50
    đơn vị/kg, 3 lần/tuần"): a statement of its own, with its own route, not more of the one before. A later step
    ("; sau đó truyền ...") stays with its regimen."""
    at = reading.first_amount(clause)
    return (at is not None and bool(routes_in(clause[:at], window=4)) and not _NEXT_STEP.match(fold(clause))
            and "other" not in routes_in(clause[:at], window=4))


_NEXT_STEP = re.compile(r"\s*(?:sau do|roi|tiep theo|tiep do|sau)\b")


_FOR_WHOM = re.compile(r"^\S*[\s,]*(?:\([^()]*\)\s*)?(?:cho|ở|đối với|dùng cho)\s+(?=(?:trẻ|người|bệnh nhân|sơ sinh|bệnh nhi))",
                       re.I)


def _trailing_group(body: str) -> Fields:
    """The group a statement names after its dose ("0,32 mg/kg/ngày cho trẻ < 12 tháng tuổi")."""
    found = list(reading.DOSE.finditer(body))
    if not found:
        return Fields()
    tail = body[found[-1].end() :]
    tail = re.split(r"[;.]", tail, maxsplit=1)[0]
    m = _FOR_WHOM.match(tail)
    if m is None:
        return Fields()
    if read_fields(body[: found[-1].start()]).has_group:
        # "... 1 000 mg/ngày cho trẻ em từ 12 đến 15 tuổi và 1 200 mg cho người bệnh trên 15 tuổi": each dose has
        # its group; the sentence is for both, not for the last one named
        return Fields()
    return _group_only(read_fields(tail[m.end() :]))


def _table_intros(text: str, spans: list[tuple[int, int]]) -> set[int]:
    """The last paragraphs of a chunk a table follows that introduce it: a line ending in ":" and a caption
    ("Bảng ...") printed just before the table."""
    out: set[int] = set()
    last = len(spans) - 1
    if last < 0:
        return out
    line = text[spans[last][0] : spans[last][1]].strip()
    caption = fold(line).startswith("bang ")
    if (line.endswith(":") or caption) and not reading.gives_dose(line):
        out.add(last)
        before = text[spans[last - 1][0] : spans[last - 1][1]].strip() if last > 0 else ""
        if caption and before.endswith(":") and not reading.gives_dose(before):
            out.add(last - 1)
    return out


def _rstrip_end(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


# A route that says only "an injection" or "applied": a route named by the label or heading above is more exact.
_VAGUE_ROUTES = {"other": {"tiem_tinh_mach", "truyen_tinh_mach", "tiem_bap", "tiem_duoi_da", "tiem_trong_da",
                           "tiem_noi_tuy"},
                 "boi": {"tra_mat", "nho_mat"}}


# "tra mắt" is putting a medicine into the eye, drops or ointment: the monograph's form says which
_UNDER_TITLE = {**_VAGUE_ROUTES, "tra_mat": {"nho_mat"}, "boi": {"tra_mat", "nho_mat", "dat_am_dao"}}


def _merge_routes(label: list[str], own: list[str], above: list[str]) -> list[str]:
    """A statement's routes: those its label and its own words name; a vague own route ("tiêm", "bôi") yields to
    a more exact one named above it."""
    context = label or above
    kept = [r for r in own if not (r in _VAGUE_ROUTES and set(context) & _VAGUE_ROUTES[r])]
    if own and not kept:
        return list(context)
    out = list(label)
    out += [r for r in kept if r not in out]
    if set(out) & _VAGUE_ROUTES["other"]:
        out = [r for r in out if r != "other"]  # "Đường tiêm: ... tiêm bắp": the injection is named
    return out


def _only_routes(body: str) -> bool:
    words = fold(body).replace(".", " ").split()
    return bool(words) and bool(routes_in(body)) and set(words) <= _ROUTE_WORDS | {"hoac", "va"}


def _own_routes(body: str, doses: bool) -> list[str]:
    """The routes a statement names for itself: near its start, in the clause that leads to its first dose
    ("... thì chuyển sang tiêm tĩnh mạch: 400 mg"), or just after a dose amount ("15 mg/kg uống")."""
    found = routes_in(body, window=OWN_ROUTE_WINDOW if doses else OWN_ROUTE_WINDOW * 2)
    if not doses:
        # "..., phải đưa thuốc bằng đường tiêm dưới da": the way a remark names as the way of giving, anywhere
        # in it (not in brackets, not in a clause that rules it out)
        for clause in re.split(r"[,;]", re.sub(r"\([^()]*\)", " ", body)):
            way = _BY_WAY.search(clause)
            if way and not _PROHIBITION.search(fold(clause)) and not _NEGATED_WAY.search(fold(clause)):
                found += [r for r in routes_in(clause[way.start() :], window=4) if r not in found]
    at = reading.first_amount(body)
    head = body[:at] if at is not None else body
    if doses and head != body:
        lead = re.split(r"[,;]", head)[-1]
        found += [r for r in routes_in(lead) if r not in found]
        prev_end = 0
        for m in reading.DOSE.finditer(body):
            phrase = re.split(r"[,.;(]", body[m.end() :], maxsplit=1)[0]  # "1 mg/kg tiêm bắp hoặc tĩnh mạch"
            if routes_in(phrase, window=4):
                found += [r for r in routes_in(phrase) if r not in found]
            # "20 mg một ngày, cả đường uống hoặc đường tĩnh mạch": the clause after the dose names its routes
            after = re.split(r"[,;(]", body[m.end() :], maxsplit=2)
            if len(after) > 1 and _BY_ROUTE.match(re.split(r"[.;(]", after[1])[0]):
                found += [r for r in routes_in(re.split(r"[.;(]", after[1])[0]) if r not in found]
            # "..., hoặc uống 30 - 160 mg/ngày", "..., sau đó truyền tĩnh mạch 18 đvqt/kg/giờ": a later step or an
            # alternative that names its route in the words leading straight to its own dose
            if m.start() > at:
                before = _STEP_CUT.split(body[prev_end : m.start()])[-1]
                if routes_in(before, window=4):
                    found += [r for r in routes_in(before) if r not in found]
            prev_end = m.end()
    return found


# A sentence of how the drug is given: a modal, "được dùng" or "thường dùng", then within a few words the way ("có
# thể tiêm dưới da", "được dùng theo đường tiêm tĩnh mạch", "có thể dùng X, Y hoặc Z tiêm dưới da", "Thường dùng
# dạng sirô"); not a prohibition.
_GIVING = re.compile(r"\b(?:co the|duoc|phai|nen|can|thuong)\b")
_PROHIBITION = re.compile(r"\bkhong (?:duoc|nen|the)\b")
GIVEN_BY_WINDOW = 10  # words after the modal


def _given_by(body: str) -> list[str]:
    """The routes a sentence of how the drug is given names (brackets aside), or none."""
    bare = re.sub(r"\([^()]*\)", " ", body)
    folded = fold(bare)
    if _PROHIBITION.search(folded):
        return []
    found: list[str] = []
    for m in _GIVING.finditer(folded):
        words = bare[m.start() :].split()
        found += [r for r in routes_in(" ".join(words[: GIVEN_BY_WINDOW + 4]), window=GIVEN_BY_WINDOW + 1 + sum(
            w.endswith(",") for w in words[: GIVEN_BY_WINDOW + 1])) if r not in found]  # a "," counts as a word
    return found


_BY_WAY = re.compile(r"\b(?:bằng|theo|qua) đường\s", re.I)
_NEGATED_WAY = re.compile(r"\bkhong\b")


_LAST_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-ZĐÀ-Ỹ])")
# A clause that opens by naming the way of giving ("cả đường uống hoặc ...", "bằng đường tiêm bắp").
_BY_ROUTE = re.compile(r"^\s*(?:(?:cả|bằng|theo|qua|dùng) )?(?:cả )?đường\s", re.I)
# Where the words leading to a later dose of a statement begin: a clause, a bracket, a next step, an alternative
# ("Uống 250 - 500 mg/lần, ngày 4 lần hoặc tiêm bắp 250 - 500 mg": the second dose is led by its own route).
_STEP_CUT = re.compile(r"[,;(]|\s(?:và|hoặc|hay|sau đó|rồi|tiếp theo|tiếp đó)\s", re.I)


# Words a disease's name starts with (general clinical vocabulary).
_DISEASE = (r"(?:viêm|nhiễm|bệnh|phù|suy (?!thận|gan)|tăng|hạ|loét|đau|sốt|ung thư|hen|co giật|ỉa chảy|tiêu chảy"
            r"|nhồi máu|rối loạn|lậu|giang mai|lao|sốc|cơn)\b")
# An indication a sentence names in its own words: "để điều trị X", "Trong X, ..." (not "Trong khi", "Trong
# trường hợp", "Trong vòng" ...).
_FOR_WHAT = re.compile(r"(?<!\w)để (?:điều trị|dự phòng|phòng ngừa|phòng|chữa)(?: bổ trợ| ngắn hạn| dài hạn)?"
                       r"(?: (?:và|hoặc) (?:điều trị|dự phòng|phòng ngừa|phòng|chữa))?"
                       r" (?!cho\b)([^,.;:()]+?)(?= (?:dùng|tiêm|uống|truyền|với liều|liều)\b|[,.;:()]|$)", re.I)
# "để dự phòng và điều trị X", "để điều trị X dùng ... 250 mg": what is treated ends where how it is given begins
_IN_WHAT = re.compile(
    r"^trong (?!(?:khi|trường hợp|mọi|vòng|thời gian|quá trình|đó|các trường hợp|số|ngày|tuần|giờ|lúc"
    r"|(?:đại )?đa số|phần lớn|hầu hết|một số|nhiều)\b)(?![^,]*trường hợp)"
    r"([^,.;:()]{3,80}),", re.I,
)
# A sentence that only names what is treated: "Điều trị nhiễm khuẩn tái phát." (no
# verb of its own: no "phải", "cần", "có thể", no clause after a comma).
_INDICATION_ONLY = re.compile(
    r"^(?:Điều trị|Dự phòng)\s(?![^.]*\b(?:phải|cần|có thể|nên|được|thường|bằng|với|trong|khi|từ)\b)[^,;:\d]{3,120}\.?$"
)
_GROUP_WITH = re.compile(
    r"^(?:(?:ở|đối với) )?(?:người lớn|người bệnh|bệnh nhân|trẻ em|trẻ|người cao tuổi) (?:có |bị |mắc )?"
    r"((?=" + _DISEASE + r")[^,.;:()]+?)(?:,| cần| phải| nên|$)", re.I
)
# "... 0,3% điều trị viêm tai ngoài", "Ỉa chảy nhiễm khuẩn thường điều trị trong 3 - 7 ngày"
_TREAT_DISEASE = re.compile(
    r"(?<!thời gian )(?<!quá trình )(?<!liệu pháp )(?<!tự )\bđiều trị ((?=" + _DISEASE + r")[^,.;:()]+)", re.I
)
_DISEASE_SUBJECT = re.compile(r"^((?=" + _DISEASE + r")[^,.;:()]{3,60}?) (?:thường |cần |phải )?(?:được )?điều trị\b",
                              re.I)
_GROUP_TAIL = re.compile(r"\s+(?:ở|cho)\s+(?:người|trẻ|sơ sinh|bệnh nhân|phụ nữ|bệnh nhi)\b.*$", re.I)


def own_indication(body: str) -> str | None:
    """The indication a sentence names for itself, as printed, without a trailing group ("ở người lớn")."""
    b = body.strip()
    m = (_IN_WHAT.match(b) or _GROUP_WITH.match(b) or _FOR_WHAT.search(b) or _TREAT_DISEASE.search(b)
         or _DISEASE_SUBJECT.match(b))
    if m is None:
        return None
    words = _GROUP_TAIL.sub("", m.group(1)).strip()
    words = re.sub(r"\s+(?:nếu|khi) cần(?: thiết)?$", "", words, flags=re.I)
    words = re.split(r"\s(?:vì|nhưng|mà|nên)\s", words, maxsplit=1)[0]  # "nhiễm Candida vì bệnh dễ ...": the reason
    if _PHASE_WORDS.match(fold(words)):
        return None  # "... để điều trị duy trì": the maintenance phase of the regimen, not what is treated
    return words if len(words.split()) >= 2 else None


_PHASE_WORDS = re.compile(r"^(?:duy tri|tan cong|cung co|ban dau|khoi dau)$")


def _is_organ(f: Fields) -> bool:
    """A renal or hepatic group ("Suy thận:", "Thẩm phân máu:") rather than a clearance band ("Clcr 10 - 50")."""
    return f.hepatic or (f.renal is not None and not _is_band(f))


def _is_band(f: Fields) -> bool:
    """A label that bounds an age, a weight or a clearance (numbers), as opposed to a group heading."""
    renal_numbers = f.renal is not None and (f.renal.clcr_min is not None or f.renal.clcr_max is not None)
    return f.age is not None or f.weight is not None or renal_numbers


def _head(body: str) -> str:
    """A statement's opening words: before its first dose amount (where group words describe the group)."""
    m = reading.DOSE.search(body)
    return body[: m.start()] if m else body


def _group_only(f: Fields) -> Fields:
    return Fields(population=f.population, age=f.age, weight=f.weight, renal=f.renal, hepatic=f.hepatic,
                  indication=f.indication)


def _overlay(base: Fields, top: Fields) -> Fields:
    """`top` wins where it says something. Group words (population, age, weight) travel together."""
    out = replace(base)
    if top.routes:
        out.routes = list(top.routes)
    if top.has_group and top.age_only and base.population == "so_sinh" and _neonatal(top.age):
        out.population, out.age, out.weight = "so_sinh", top.age, None  # "(7 - 30 ngày):" under "Sơ sinh"
    elif top.has_group:
        out.population = top.population if top.population is not None else (
            base.population if top.age is None and top.weight is None else _compatible(base.population, top)
        )
        out.age = top.age if top.age is not None else (base.age if top.population in (None, base.population)
                                                       else None)
        out.weight = top.weight if top.weight is not None else (
            base.weight if top.population in (None, base.population) else None)
    if top.renal is not None:
        out.renal = top.renal
    if top.hepatic:
        out.hepatic = True
    if base.renal is not None and base.hepatic and top.renal is not None and not top.hepatic and (
            top.renal.clcr_min is not None or top.renal.clcr_max is not None or top.renal.dialysis):
        out.hepatic = False  # a kidney band under "Suy thận hoặc suy gan:": its own words say which organ
    if top.indication:
        out.indication = top.indication
    return out


# "Liều có thể lên tới 4 g/ngày", "Những liều tới 1 600 mg/ngày ...", "với liều tối đa là 250 mg/lần": how high
# the dose may go, said just before the amount
# ("tăng liều tới 80 mg" is a step of the regimen, not its ceiling)
_LIFTED = re.compile(r"(?:(?<!tang )(?<!chinh )\blieu toi|\blen toi|toi da(?: la)?|khong (?:duoc )?(?:\w+ )?qua)\s*$")


def _lifted_to(body: str) -> bool:
    """Every dose amount the statement gives outside brackets is a ceiling it names just before it."""
    plain = re.sub(r"\([^)]*\)", lambda m: " " * len(m.group(0)), body)
    found = [m for m in reading.DOSE.finditer(plain) if not re.match(r"\s*/\s*(?:ml|lít|l|phút|giờ|h)\b", plain[m.end():])]
    return bool(found) and all(_LIFTED.search(fold(_amount_lead(plain, m.start()))) for m in found)


def _amount_lead(text: str, at: int) -> str:
    """The words before an amount, with the number run it ends ("1 000 - 5 000") left out."""
    head = text[:at]
    head = re.sub(r"(?:\d+(?:[ ,.]\d+)*\s*(?:-|đến|tới|–)?\s*)+$", "", head)
    return head[-30:]


def _neonatal(age: AgeBound | None) -> bool:
    hi = age.years()[1] if age is not None else None
    return hi is not None and hi <= 1 / 12 + 1e-6


def _compatible(population: str | None, top: Fields) -> str | None:
    """A band with no group word under a group heading keeps the heading's group when the band fits it."""
    if top.age is not None:
        lo, hi = top.age.years()
        if population == "nguoi_lon" and hi is not None and hi <= 18:
            return "tre_em"
    return population


# "Không khuyến cáo sử dụng liều trên 300 microgam/kg/phút": a ceiling said as what not to give
_NOT_ABOVE = re.compile(r"\bkhong (?:nen |duoc )?(?:khuyen cao|dung|su dung|vuot)[^.;]{0,25}\blieu (?:tren|cao hon|vuot qua)\b")


def _kind(body: str, kind_label: str | None, f: Fields) -> str:
    folded = fold(body).strip()
    label = fold(kind_label or "")
    doses = reading.gives_dose(body)
    loading = _LOADING.search(fold(_head(body)))
    named = loading is not None and not _NOT_THIS.search(fold(_head(body))[: loading.start()])
    # a statement that gives no amount is a loading dose when it opens on it ("Clcr < 20 ml/phút: Liều nạp (tấn
    # công), sau đó ..."), not when it names one further on ("Mỗi lần ... đều gồm có một liều nạp và ...")
    opens_on = loading is not None and len(fold(_head(body))[: loading.start()].split()) <= 1
    if _LOADING.search(label) or (named and (doses or opens_on)):
        return "loading_dose"
    if reading.prepares(body) or reading.prepares(kind_label or "", label=True) or reading.equivalence(body):
        return "instruction"  # the amounts of making the solution up or of a salt's equivalence, not of dosing
    if (_MAX_LABEL.search(label) or _MAX.match(folded) or reading.only_ceilings(body) or _lifted_to(body)
            or _NOT_ABOVE.search(folded)):
        return "max_dose"
    impaired = f.hepatic or (f.renal is not None and not _RENAL_DISEASE.search(fold(f.indication or "")))
    if impaired and (doses or _ADJUST.search(folded)):
        return "adjustment"  # a change for an impaired organ; elsewhere "giảm liều" is part of the regimen
    if not doses:
        return "instruction"
    return "dose"


def page_at(chunk: Chunk, offset: int) -> int | None:
    """The printed page of the character at `offset` of the chunk."""
    for physical, start, end in chunk.page_spans:
        if start <= offset < end:
            for phys, printed in zip(chunk.physical_pages, chunk.printed_pages, strict=False):
                if phys == physical:
                    return printed
    return chunk.printed_pages[0] if chunk.printed_pages else None


def read_section(drug_id: str, chunks: list[Chunk], default_routes: tuple[str, ...] = ()) -> list[DoseRow]:
    """Every dose statement of one drug's dosage section, in the book's order. `default_routes`: the route the
    monograph's title names (monograph_route), for statements under no route of their own or of a heading."""
    reader = SectionReader(drug_id, default_routes)
    for chunk, nxt in zip(chunks, chunks[1:] + [None], strict=True):
        reader.read_chunk(chunk, before_table=nxt is not None and nxt.table_id is not None)
    return reader.rows


_READ: dict[tuple, list[DoseRow]] = {}


def section_rows(drug_id: str, chunks: list[Chunk]) -> list[DoseRow]:
    """`read_section`, once per process for the same chunks (a section takes 25-50 ms to read), or the rows the
    build read from the same chunks with the same code (`stored`)."""
    from duocthu_desktop.dosage import stored

    key = (drug_id, *((c.chunk_id, hash(c.text)) for c in chunks))
    if key not in _READ:
        if len(_READ) > 4096:
            _READ.clear()
        rows = stored.stored_rows(drug_id, chunks)
        _READ[key] = rows if rows is not None else read_section(drug_id, chunks, stored.monograph_routes(drug_id))
    return _READ[key]


def read_book(chunks: list[Chunk]) -> list[DoseRow]:
    """Every dosage section of a book, chunks in their artifact order (sections are contiguous)."""
    by_drug: dict[str, list[Chunk]] = {}
    identity: dict[str, tuple[str, ...]] = {}
    for chunk in chunks:
        if chunk.section_key == DOSAGE_KEY:
            by_drug.setdefault(chunk.drug_id, []).append(chunk)
        elif chunk.section_key == IDENTITY_KEY and chunk.drug_id not in identity:
            identity[chunk.drug_id] = tuple(monograph_route(chunk.text))
    rows: list[DoseRow] = []
    for drug_id, section in by_drug.items():
        rows.extend(read_section(drug_id, sorted(section, key=_order), identity.get(drug_id, ())))
    return rows


def _order(chunk: Chunk) -> tuple[int, int]:
    return (chunk.part_index, 0 if chunk.table_id is None else 1)
