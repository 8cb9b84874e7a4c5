"""Dosage bands: a "Liều lượng và cách dùng" section cut into the pieces the book prints for each group, and the
choice of the pieces that fit one patient.

The book nests its dose labels (route > population > age or weight, with indications and renal bands in
between), always as printed words ending in ":" ("Người lớn:", "Uống:", "Trẻ em 4 - 6 tuổi:", "Trên 50 kg:",
"Đau, sốt:", "Suy thận:", "Clcr 10 - 50 ml/phút"). A section is read once, in order, into `Band`s: a verbatim span
of one chunk plus what it applies to, its own label and the labels it inherits. `fit_bands` keeps the bands whose
group matches the QueryFrame; a band with no stated group applies to every group of its context.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.qa.frame import QueryFrame
from duocthu_desktop.qa.sentences import paragraphs, split_sentences
from duocthu_desktop.text import fold

Range = tuple[float, float, bool, bool]  # low, high, low inclusive, high inclusive

ADULT_AGE = 18.0
NEONATE_AGE = 28 / 365

ROUTE_NAMES: dict[str, str] = {
    "uong": "Uống",
    "truc_trang": "Đặt trực tràng",
    "tiem_tinh_mach": "Tiêm tĩnh mạch",
    "truyen_tinh_mach": "Truyền tĩnh mạch",
    "tiem_bap": "Tiêm bắp",
    "tiem_duoi_da": "Tiêm dưới da",
    "ngam_duoi_luoi": "Ngậm dưới lưỡi",
    "xit": "Xịt",
    "khi_dung": "Khí dung",
    "nho_mat": "Nhỏ mắt",
    "boi": "Bôi",
    "tiem": "Tiêm",
}
_IV_FAMILY = frozenset({"tiem_tinh_mach", "truyen_tinh_mach"})
_INJECTION = frozenset({"tiem_bap", "tiem_tinh_mach", "truyen_tinh_mach", "tiem_duoi_da"})

# Route words, matched on lower-cased text WITH diacritics ("khí dung" is a route, "khi dùng" is "when using";
# "bôi" is a route, "bởi" is "by"), at the start of a label or sentence only: "uống" deep in a sentence is part
# of the dose, not its route.
_W = r"(?<!\w)"
_E = r"(?!\w)"
_ROUTE_PATTERNS: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    (
        re.compile(_W + r"(?:tiêm|truyền) hoặc (?:tiêm|truyền) tĩnh mạch" + _E),
        ("tiem_tinh_mach", "truyen_tinh_mach"),
    ),
    (re.compile(_W + r"(?:truyền(?: nhỏ giọt)? tĩnh mạch|truyền)" + _E), ("truyen_tinh_mach",)),
    (re.compile(_W + r"(?:tiêm(?: bắp)?(?:,| hoặc| và)? tĩnh mạch|tĩnh mạch)" + _E), ("tiem_tinh_mach",)),
    (re.compile(_W + r"(?:tiêm bắp|bắp)" + _E), ("tiem_bap",)),
    (re.compile(_W + r"(?:tiêm )?dưới da" + _E), ("tiem_duoi_da",)),
    (re.compile(_W + r"(?:dưới lưỡi|ngậm)" + _E), ("ngam_duoi_luoi",)),
    # "phẫu thuật kết/đại trực tràng" is surgery on the colon, not a route
    (
        re.compile(_W + r"(?:(?<!kết )(?<!đại )trực tràng|hậu môn|thuốc đạn|viên đạn|đạn)" + _E),
        ("truc_trang",),
    ),
    (re.compile(_W + r"uống" + _E), ("uong",)),
    (re.compile(_W + r"khí dung" + _E), ("khi_dung",)),
    (re.compile(_W + r"(?:xịt|phun)" + _E), ("xit",)),
    (re.compile(_W + r"nhỏ mắt" + _E), ("nho_mat",)),
    (re.compile(_W + r"(?:bôi|dùng ngoài)" + _E), ("boi",)),
    (
        re.compile(_W + r"tiêm" + _E),
        ("tiem_bap", "tiem_tinh_mach"),
    ),  # "Liều tiêm ...:", injection unspecified
]
_ROUTE_WINDOW_WORDS = 6

_POPULATION_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bnguoi (?:benh )?cao tuoi\b|\bnguoi gia\b"), "nguoi_cao_tuoi"),
    (re.compile(r"\bnguoi lon\b"), "nguoi_lon"),
    (re.compile(r"\bso sinh\b|\btre moi (?:de|sinh)\b"), "so_sinh"),
    # "trẻ" of "trẻ sơ sinh" / "trẻ mới đẻ" names neonates only
    # ("người trẻ tuổi" is young adults, not children)
    (re.compile(r"(?<!nguoi )\btre\b(?! so sinh\b| moi de\b| moi sinh\b| tuoi\b)|\bthieu nien\b|\bnhu nhi\b|\bnhi khoa\b"), "tre_em"),
]

_NUM = r"(\d+(?:,\d+)?)"
_CMP = r"(trên|dưới|lớn hơn|nhỏ hơn|từ|>|<|≥|≤|=>|<=|>=)"
_AGE_UNIT = r"(tháng|tuần|tuổi|năm|ngày)"
_LIKE_GROUP = re.compile(r"\b(?:nhu|tuong tu|giong)\s+(?:(?:o|cho|voi)\s+)?(?:nguoi lon|tre em|tre)\b")
_POPULATION_WORD = re.compile(r"\b(?:tre|so sinh|nhu nhi|thieu nien|nguoi lon|cao tuoi)\b")
_AGE_RANGE = re.compile(
    _NUM + r"\s*" + _AGE_UNIT + r"?(?:\s*tuổi)?\s*(?:-|–|đến)\s*" + _NUM + r"\s*" + _AGE_UNIT, re.I
)  # "4 - 6 tuổi", "1 tháng tuổi – 12 tuổi", "1 tháng tuổi đến 5 tuổi"
_AGE_CMP = re.compile(_CMP + r"\s*" + _NUM + r"\s*" + _AGE_UNIT, re.I)
_WEIGHT_RANGE = re.compile(r"(?<![\d,/])" + _NUM + r"\s*(?:-|–|đến)\s*" + _NUM + r"\s*kg\b(?!\s*/)", re.I)
_WEIGHT_CMP = re.compile(_CMP + r"\s*" + _NUM + r"\s*kg\b(?!\s*/)", re.I)
_CLCR = re.compile(
    r"(?:clcr|cl\s*cr|độ thanh thải creatinin|hệ số thanh thải creatinin|thanh thải creatinin)"
    r"[^0-9<>≤≥\n]{0,25}?" + r"(?:" + _CMP + r"\s*)?" + _NUM + r"(?:\s*(?:-|–|đến)\s*" + _NUM + r")?\s*ml",
    re.I,
)
# A label that is only a clearance range ("Clcr: 10 - 30 ml/phút: 250 - 500 mg/12 giờ"): the word "Clcr" was the
# label before it.
_CLCR_LEADING = re.compile(
    r"\s*(?:" + _CMP + r"\s*)?" + _NUM + r"(?:\s*(?:-|–|đến)\s*" + _NUM + r")?\s*ml\s*/\s*phút", re.I
)
# A dose amount: where the description of a group ends and its dose begins.
_DOSE = re.compile(
    r"\d+(?:,\d+)?\s*(?:mg|g|microgam|mcg|µg|ml(?!\s*/\s*ph)|đơn vị|UI|IU|viên|giọt|mmol|%)(?!\w)", re.I
)

# Labels: a short phrase ending in ":" at the start of a paragraph or sentence, or after another label or ";".
_LABEL = re.compile(r"\s*([^\s:;.!?][^:;.!?\n]{0,90}?)\s*:(?=\s|$|\()")
_GENERIC_HEADINGS = frozenset(
    fold(x)
    for x in (
        "Cách dùng",
        "Liều dùng",
        "Liều lượng",
        "Liều lượng và cách dùng",
        "Cách dùng và liều lượng",
        "Cách dùng - liều lượng",
        "Liều dùng và cách dùng",
    )
)
_NOTE_LABELS = frozenset(fold(x) for x in ("Ghi chú", "Chú ý", "Lưu ý", "Khuyến cáo", "Ví dụ", "Thí dụ"))


@dataclass
class Attrs:
    """What a label or a sentence says it applies to."""

    routes: set[str] = field(default_factory=set)
    populations: set[str] = field(default_factory=set)
    age: Range | None = None
    weeks: Range | None = None
    weight: Range | None = None
    clcr: Range | None = None

    @property
    def is_band(self) -> bool:
        return any(x is not None for x in (self.age, self.weeks, self.weight, self.clcr))

    @property
    def empty(self) -> bool:
        return not (self.routes or self.populations or self.is_band)


@dataclass
class Level:
    """One inherited label: its kind (population, indication, route, organ) and words as printed."""

    kind: str
    label: str
    attrs: Attrs
    paragraph_only: bool = (
        False  # an inline label ("Bệnh nhân suy gan: Liều ... giảm.") ends with its paragraph
    )
    major: bool = False  # a heading alone on its line ("Đau, sốt:"), not a label leading its own text


@dataclass
class Band:
    """A verbatim piece of a dosage section and the group it applies to."""

    chunk: Chunk
    start: int
    end: int
    label: str | None  # its own label as printed, when it has one ("Trẻ em 4 - 6 tuổi")
    own: Attrs
    context: list[Level]
    part: str  # "cach_dung" (the general how-to-use part) or "lieu" (doses)
    labelled: bool = False  # `own` was read from a printed label (else from the sentence's words)

    @property
    def text(self) -> str:
        return self.chunk.text[self.start : self.end]

    def levels(self, kind: str) -> list[Level]:
        return [lv for lv in self.context if lv.kind == kind]

    @property
    def routes(self) -> set[str]:
        if self.own.routes:
            return set(self.own.routes)
        for lv in reversed(self.context):
            if lv.attrs.routes:
                return set(lv.attrs.routes)
        return set()

    @property
    def context_populations(self) -> set[str]:
        for lv in reversed(self.context):
            if lv.attrs.populations:
                return set(lv.attrs.populations)
        return set()

    @property
    def populations(self) -> set[str]:
        inherited = self.context_populations
        if self.own.populations:
            if not self.labelled and inherited and not (self.own.populations & inherited):
                # A group word inside a sentence ("nhiễm khuẩn huyết sơ sinh") under a printed group label:
                # the printed label decides.
                return inherited
            return set(self.own.populations)
        return inherited

    @property
    def indication(self) -> str | None:
        found = self.levels("indication")
        return found[-1].label if found else None

    @property
    def organ(self) -> str | None:
        found = self.levels("organ")
        return found[-1].label if found else None

    def range_of(self, name: str) -> Range | None:
        value = getattr(self.own, name)
        if value is not None:
            return value
        for lv in reversed(self.context):
            value = getattr(lv.attrs, name)
            if value is not None:
                return value
        return None


# ---- reading labels ---------------------------------------------------------------------------------------


def _num(text: str) -> float:
    return float(text.replace(",", "."))


def _years(value: float, unit: str) -> float:
    unit = fold(unit)
    if unit == "thang":
        return value / 12
    if unit == "tuan":
        return value / 52
    if unit == "ngay":
        return value / 365
    return value


def _cmp_range(op: str, value: float) -> Range:
    op = fold(op)
    if op in ("tren", "lon hon", ">"):
        return (value, math.inf, False, False)
    if op in (">=", "=>", "≥", "tu"):
        return (value, math.inf, True, False)
    if op in ("duoi", "nho hon", "<"):
        return (0.0, value, True, False)
    return (0.0, value, True, True)  # ≤, <=


def detect_routes(text: str) -> set[str]:
    """Routes named in the first words of a label or sentence."""
    head = " ".join(re.findall(r"\w+|,", text.lower())[: _ROUTE_WINDOW_WORDS + 2])
    found: set[str] = set()
    for pattern, routes in _ROUTE_PATTERNS:
        m = pattern.search(head)
        if (
            m
            and len(head[: m.start()].split()) < _ROUTE_WINDOW_WORDS
            and not head[: m.start()].endswith("không ")
        ):
            if "truyen_tinh_mach" in found and routes == ("tiem_tinh_mach",) and "tiêm" not in head:
                continue
            found.update(routes)
            head = head[: m.start()] + " " * (m.end() - m.start()) + head[m.end() :]
    return found


def mentioned_routes(text: str) -> set[str]:
    """Every route a piece of text names anywhere ("... 100 - 300 microgam/kg, tiêm tĩnh mạch cứ 1 - 4 giờ")."""
    low = " ".join(re.findall(r"\w+|,", text.lower()))
    found: set[str] = set()
    for pattern, routes in _ROUTE_PATTERNS:
        for m in pattern.finditer(low):
            if low[: m.start()].endswith("không "):
                continue
            if routes == ("tiem_bap", "tiem_tinh_mach") and found & {"tiem_bap", "tiem_tinh_mach", "tiem_duoi_da"}:
                continue  # the bare "tiêm" of "tiêm bắp hoặc tiêm tĩnh mạch" adds nothing
            found.update(routes)
            low = low[: m.start()] + " " * (m.end() - m.start()) + low[m.end() :]
    return found


def _age_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """An age (or gestational) range: "4 - 6 tuổi", "3 tháng tuổi", or months/weeks after a group's name.

    "trong 2 - 3 tháng", "sốt kéo dài trên 3 ngày" are durations, not ages.
    """
    for m in pattern.finditer(text):
        unit = fold(m.group(m.lastindex or 0) or "")
        after = fold(text[m.end() : m.end() + 6])
        if unit == "tuoi" or after.lstrip().startswith("tuoi"):
            return m
        if unit in ("thang", "tuan") and _POPULATION_WORD.search(fold(text[: m.start()])):
            return m
    return None


def detect_attrs(text: str, with_routes: bool = True) -> Attrs:
    """Population, age, gestational weeks, weight, Clcr and (optionally) route stated in `text`."""
    attrs = Attrs()
    # "Dùng liều như người lớn" compares with a group; it does not say the dose is for that group.
    folded = _LIKE_GROUP.sub(" ", fold(text))
    for pattern, pop in _POPULATION_PATTERNS:
        if pattern.search(folded):
            attrs.populations.add(pop)
    if "nguoi_cao_tuoi" in attrs.populations and not re.search(r"\bnguoi lon\b", folded):
        attrs.populations.discard("nguoi_lon")
    gestational = "so sinh" in folded or "tuoi thai" in folded
    m = _age_match(_AGE_RANGE, text)
    if m:
        unit_hi = m.group(4)
        unit_lo = m.group(2) or unit_hi
        if fold(unit_hi) == "tuan" and gestational:
            attrs.weeks = (_num(m.group(1)), _num(m.group(3)), True, True)
        else:
            attrs.age = (_years(_num(m.group(1)), unit_lo), _years(_num(m.group(3)), unit_hi), True, True)
    else:
        m = _age_match(_AGE_CMP, text)
        if m:
            value, unit = _num(m.group(2)), m.group(3)
            if fold(unit) == "tuan" and gestational:
                attrs.weeks = _cmp_range(m.group(1), value)
            else:
                attrs.age = _cmp_range(m.group(1), _years(value, unit))
    m = _WEIGHT_RANGE.search(text)
    if m:
        attrs.weight = (_num(m.group(1)), _num(m.group(2)), True, True)
    else:
        m = _WEIGHT_CMP.search(text)
        if m:
            attrs.weight = _cmp_range(m.group(1), _num(m.group(2)))
    m = _CLCR.search(text) or _CLCR_LEADING.match(text)
    if m:
        if m.group(3):
            attrs.clcr = (_num(m.group(2)), _num(m.group(3)), True, True)
        elif m.group(1):
            attrs.clcr = _cmp_range(m.group(1), _num(m.group(2)))
        else:
            attrs.clcr = (_num(m.group(2)), _num(m.group(2)), True, True)
    if attrs.age is not None and not attrs.populations and attrs.age[1] <= ADULT_AGE:
        attrs.populations.add("tre_em")
    if attrs.weeks is not None:
        attrs.populations.add("so_sinh")
    if with_routes:
        attrs.routes = detect_routes(text)
    return attrs


def _label_kind(label: str, attrs: Attrs, leads_paragraph: bool) -> str:
    """How a label nests: generic heading, note, organ, population, route, band or indication."""
    folded = fold(label).strip()
    if folded in _GENERIC_HEADINGS:
        return "generic"
    if folded in _NOTE_LABELS:
        return "note"
    if re.match(
        r"(?:nguoi benh |benh nhan )?suy (?:than|gan)\b|(?:nguoi benh |benh nhan )?(?:loc mau|tham phan)",
        folded,
    ):
        return "organ"
    if attrs.is_band:
        return "band"
    if attrs.populations and not attrs.routes:
        if _extra_words(folded) >= 2:
            return "indication"  # "Sốt sau khi tiêm chủng ở trẻ nhỏ": an indication for a group
        return "population" if leads_paragraph else "band"
    if attrs.routes:
        return "route"
    if folded.startswith(("lieu ", "tong lieu", "toc do", "nong do")):
        return "note"  # "Liều được tính theo cân nặng như sau:" describes the dose that follows
    return "indication"


_FILLER = frozenset(
    "va o cho ke ca benh nhan nguoi em nho tre lon cao tuoi so sinh hoac thieu nien nhu nhi gia".split()
)


def _extra_words(folded_label: str) -> int:
    return sum(1 for w in re.findall(r"[a-z]+", folded_label) if w not in _FILLER)


# ---- cutting a section into bands -------------------------------------------------------------------------

_CLAUSE_START = re.compile(r";\s+(?=\S)")


def _clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A sentence cut at each ";" whose next clause names a group of its own ("...: 60 mg; Trẻ em 6 tháng...")."""
    cuts = [start]
    for m in _CLAUSE_START.finditer(text, start, end):
        nxt = text[m.end() : end]
        head = nxt[: _DOSE.search(nxt).start()] if _DOSE.search(nxt) else nxt
        a = detect_attrs(head[:80])
        trailing = _trailing_group(nxt, _DOSE.search(nxt).end()) if _DOSE.search(nxt) else None
        if a.populations or a.is_band or detect_routes(nxt[:40]) or trailing is not None:
            cuts.append(m.end())
    cuts.append(end)
    out = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        seg = text[a:b].rstrip()
        if seg.endswith(";"):
            b = a + len(seg) - 1
        if text[a:b].strip():
            out.append((a, b))
    return out


_TRAILING_GROUP = re.compile(r"(?<!\w)(?:cho|ở|đối với)\s+(?=(?:trẻ|sơ sinh|người|bệnh nhân)(?!\w))", re.I)


def _trailing_group(text: str, after: int) -> Attrs | None:
    """The group stated just after a dose ("0,32 mg/kg/ngày cho trẻ < 12 tháng tuổi"), when it has an age or
    weight range."""
    gap = re.compile(r"[^\s,;.]*\s*,?\s*").match(text, after)  # the rest of the unit ("/kg/ngày") and a comma
    m = _TRAILING_GROUP.match(text, gap.end()) if gap else None
    if m is None:
        return None
    stop = re.search(r"[;.]", text[m.end() :])
    attrs = detect_attrs(text[m.end() : m.end() + stop.start()] if stop else text[m.end() :], with_routes=False)
    return attrs if attrs.populations and attrs.is_band else None


def _band_label_positions(text: str, start: int, end: int) -> list[int]:
    """Where a group label begins inside a sentence: after ":" ("... như sau: Trên 50 kg: ...") or after a dose
    and "," ("Người lớn: 2 g/ngày chia 2 lần, trẻ em: 50 mg/kg/ngày")."""
    out = []
    for m in re.finditer(r"(?<=[:,])\s+(?=\S)", text[start:end]):
        pos = start + m.end()
        nxt = _LABEL.match(text, pos, end)
        if not nxt or nxt.start(1) != pos or _DOSE.search(nxt.group(1)):
            continue
        a = detect_attrs(nxt.group(1))
        if text[start + m.start() - 1] == ",":
            if (a.populations or a.is_band) and _DOSE.search(text, start, start + m.start()):
                out.append(pos)
        elif a.populations or a.is_band or a.routes:
            out.append(pos)
    return out


def cut_bands(chunks: list[Chunk]) -> list[Band]:
    """Every piece of a dosage section (chunks in the book's order) with its own and inherited labels."""
    bands: list[Band] = []
    stack: list[Level] = []
    part = "lieu"
    content = False  # whether any band was read since the last heading was pushed
    for chunk in chunks:
        if chunk.quarantined:
            continue
        text = chunk.text
        for p_start, p_end in paragraphs(text):
            inline = _first(stack, ("organ",)) if any(lv.paragraph_only for lv in stack) else len(stack)
            del stack[inline:]
            heading = text[p_start:p_end].strip()
            if _bare_population_heading(heading):
                # "Người lớn" alone on its line, printed without a colon, heads what follows like "Người lớn:".
                del stack[_first(stack, ("population", "organ", "indication")) :]
                stack.append(Level("population", heading, detect_attrs(heading), major=True))
                part, content = "lieu", False
                continue
            if _bare_organ_heading(heading):
                # "Người suy giảm chức năng thận và người cao tuổi" alone on its line, without a colon, opens the
                # renal part like "Suy thận:": the group of the paragraph before it ("Trẻ sơ sinh: ...") ends.
                stack.clear()
                stack.append(Level("organ", heading, Attrs(), major=True))
                part, content = "lieu", False
                continue
            sticky: Attrs | None = None  # the last band of this paragraph, for sentences that state no group
            sticky_label: str | None = None
            sticky_lead = False
            pieces: list[tuple[int, int]] = []
            for s_start, s_end in split_sentences(text, (p_start, p_end)):
                cuts = [s_start, *_band_label_positions(text, s_start, s_end), s_end]
                for a, b in zip(cuts, cuts[1:], strict=False):
                    pieces.extend(_clauses(text, a, b))
            for a, b in pieces:
                # Read the chain of labels at the start of this piece.
                pos = a
                own_label: str | None = None
                own_attrs: Attrs | None = None
                body_start = a
                last_label_start: int | None = None
                lead = False
                while True:
                    m = _LABEL.match(text, pos, b)
                    if not m or m.start(1) != _skip_space(text, pos):
                        break
                    label = m.group(1).strip()
                    if _DOSE.search(label):
                        break  # "Uống 2 - 15 mg, trường hợp nặng có thể tăng liều:" is a dose, not a label
                    attrs = detect_attrs(label)
                    leads = _only_labels(text, p_start, pos)
                    body_empty = _only_labels(text, m.end(), p_end)
                    kind = _label_kind(label, attrs, leads or body_empty)
                    if kind == "indication" and re.match(r"[(\d]", label) and sticky is not None:
                        kind, attrs = "band", Attrs(populations=set(sticky.populations))  # "(7 - 30 ngày):"
                    if kind == "generic":
                        stack.clear()
                        folded_label = fold(label)
                        part = (
                            "cach_dung"
                            if "cach dung" in folded_label and "lieu" not in folded_label
                            else "lieu"
                        )
                    elif kind == "organ":
                        stack.clear()
                        stack.append(Level("organ", label, attrs, paragraph_only=not body_empty))
                    elif kind == "population":
                        del stack[_first(stack, ("population", "organ")) :]
                        _drop_other_groups(stack, attrs.populations)
                        # A route read from a sentence ("Trường hợp nặng, tiêm tĩnh mạch 80 - 100 mg") ends at the next
                        # group heading; it must not carry over, nor take that group with it when the next route comes.
                        stack[:] = [lv for lv in stack if not (lv.kind == "route" and not lv.label)]
                        # major: alone on its line ("Người lớn:"), heading what follows; else it leads its own text
                        stack.append(Level("population", label, attrs, major=body_empty))
                        part = "lieu"
                    elif kind == "indication":
                        part = "lieu"  # "Cách dùng: Uống ... Tăng huyết áp: Liều thường dùng: 25 mg/lần": doses begin
                        _push_indication(
                            stack, Level("indication", label, attrs, major=body_empty), leads, content
                        )
                    elif kind == "route":
                        del stack[_first(stack, ("route",)) :]
                        stack.append(Level("route", label, attrs, major=body_empty))
                    if kind in ("generic", "organ", "population", "indication", "route"):
                        content = False
                        # A new heading ends the group a previous sentence opened ("Uống: Người lớn ...; trẻ em
                        # ... 10 mg/ngày. Dung dịch trực tràng: 500 microgam/kg"): the rectal dose is not the child's.
                        sticky, sticky_label, sticky_lead = None, None, False
                    elif kind == "band":
                        own_label, own_attrs = label, attrs
                        body_start = m.start(1)
                        pos = m.end()
                        break
                    # note labels are kept in the text, nothing nests under them
                    if kind == "note":
                        break
                    last_label_start = m.start(1) if kind in ("route", "indication", "population") else None
                    pos = m.end()
                    body_start = _skip_space(text, pos)
                if own_attrs is None:
                    body = text[body_start:b]
                    dose = _DOSE.search(body)
                    head = body[: dose.start()] if dose else body
                    own_attrs = detect_attrs(head, with_routes=False)
                    if dose and not own_attrs.populations and not own_attrs.is_band:
                        own_attrs = _trailing_group(body, dose.end()) or own_attrs
                    own_attrs.clcr = detect_attrs(body, with_routes=False).clcr
                    own_attrs.routes = detect_routes(body)
                    heading_route = any(lv.kind == "route" and lv.major for lv in stack)
                    if own_attrs.routes and part == "lieu" and not heading_route:
                        # An unlabelled route at a sentence start ("Đường tiêm tĩnh mạch 10 - 20 mg") switches route
                        # for what follows; under a route heading ("Liều uống ...:") it is only this sentence's.
                        # Only the route changes: the group and indication read after the old route still hold
                        # ("Liều tiêm: Người lớn: Liều thông thường tiêm bắp hoặc tĩnh mạch 20 - 40 mg").
                        stack[:] = [lv for lv in stack if lv.kind != "route"]
                        stack.append(Level("route", "", Attrs(routes=set(own_attrs.routes))))
                        sticky, sticky_label = None, None
                    # "Đối với trẻ em, ... 1 mg/kg": a sentence that opens by naming its group is that group's,
                    # whatever heading it sits under, and so are the sentences after it in the paragraph.
                    lead = bool(own_attrs.populations) and bool(_LEAD_GROUP.match(fold(body)))
                    if own_attrs.empty and sticky is not None:
                        own_attrs, own_label, lead = sticky, sticky_label, sticky_lead
                    elif not own_attrs.empty:
                        sticky, sticky_label, sticky_lead = None, None, False
                        if lead:
                            sticky, sticky_label, sticky_lead = own_attrs, None, True
                else:
                    sticky, sticky_label, sticky_lead = own_attrs, own_label, False
                if not text[pos:b].strip() and own_label is None:
                    continue  # labels only
                if re.fullmatch(r"[^:]{0,90}:", text[body_start:b].strip()):
                    continue  # a note label with nothing after it ("Liều chung:")
                if (
                    own_label is None
                    and last_label_start is not None
                    and body_start == _skip_space(text, pos)
                ):
                    body_start = (
                        last_label_start  # "Ngậm dưới lưỡi hoặc nhai: 2,5 - 5 mg/lần": keep the label read
                    )
                content = True
                bands.append(
                    Band(
                        chunk=chunk,
                        start=body_start,
                        end=b,
                        label=own_label,
                        own=own_attrs,
                        labelled=own_label is not None or lead,
                        context=[Level(lv.kind, lv.label, lv.attrs) for lv in stack],
                        part=part,
                    )
                )
    return [b for b in bands if b.text.strip()]


_LEAD_GROUP = re.compile(
    r"\W*(?:(?:doi voi|o|cho|voi|rieng|rieng voi|neu la)\s+)?"
    r"(?:tre|so sinh|nhu nhi|thieu nien|nguoi lon|nguoi cao tuoi|nguoi gia|benh nhan cao tuoi)\b"
)


def _bare_population_heading(line: str) -> bool:
    """A short line naming only a group ("Người lớn", "Trẻ em"), with no colon, dose or sentence end."""
    if not line or len(line) > 40 or re.search(r"[:.;,!?\d]", line):
        return False
    attrs = detect_attrs(line)
    return bool(attrs.populations) and not attrs.routes and _extra_words(fold(line)) == 0


_BARE_ORGAN = re.compile(r"\bsuy (?:giam )?(?:chuc nang )?(?:than|gan)\b")


def _bare_organ_heading(line: str) -> bool:
    """A short line naming kidney or liver failure, with no colon, dose or sentence end."""
    if not line or len(line) > 70 or re.search(r"[:.;,!?\d]", line):
        return False
    return bool(_BARE_ORGAN.search(fold(line)))


def _push_indication(stack: list[Level], level: Level, leads: bool, content: bool) -> None:
    """Nest an indication heading: under the heading just read when nothing came between, else beside its sibling.

    "Trẻ em:" then "Đau, sốt:" nest; a later "Đau sau phẫu thuật:" replaces "Đau, sốt:" and keeps "Trẻ em:";
    "Nhiễm Helicobacter pylori:" after "Nhiễm vi khuẩn...: Người lớn: ..." replaces the first heading and the group
    under it; a label leading its own text ("Nhiễm khuẩn nặng: 500 mg") replaces the previous such label.
    """
    if stack and stack[0].kind == "organ" and level.attrs.populations:
        stack.clear()  # "Cách dùng và liều lượng ở trẻ em:" leaves the renal/hepatic part
    if level.major and level.attrs.populations:
        # "Người lớn (khuyến cáo đối với một số bệnh cụ thể):" after "Một số chỉ định đặc biệt đối với trẻ em:"
        # leaves the children's headings: an adult dose must never sit under a children's title.
        _drop_other_groups(stack, level.attrs.populations)
    # A route label leading its own text ("Uống: 5 mg") never holds an indication; a route heading does.
    minor_route = next((i for i, lv in enumerate(stack) if lv.kind == "route" and not lv.major), None)
    if minor_route is not None:
        del stack[minor_route:]
    if not content and stack:
        stack.append(level)
        return
    # An indication heading that names a group ("Một số chỉ định đặc biệt đối với trẻ em:") heads that group's
    # indications like a population heading: the indications under it replace each other, not it.
    grouped = [i for i, lv in enumerate(stack) if lv.kind == "indication" and lv.major and lv.attrs.populations]
    floor = max(grouped, default=-1) if not level.attrs.populations else -1
    majors = [i for i, lv in enumerate(stack) if lv.kind == "indication" and lv.major and i > floor]
    minors = [i for i, lv in enumerate(stack) if lv.kind == "indication" and not lv.major and i > floor]
    groups = [i for i, lv in enumerate(stack) if lv.kind == "population" or i in grouped]
    if not level.major and minors and minors[-1] > max(majors + groups, default=-1):
        del stack[minors[-1] :]
    elif level.major or (leads and groups):
        if majors:
            del stack[majors[-1] :]
        elif minors:
            del stack[minors[0] :]
        elif groups and content:
            del stack[floor + 1 :]
    elif minors:
        del stack[minors[-1] :]
    stack.append(level)


def _drop_other_groups(stack: list[Level], populations: set[str]) -> None:
    """Cut the stack at the first heading that names a group other than `populations`."""
    for i, lv in enumerate(stack):
        if lv.attrs.populations and not (lv.attrs.populations & populations):
            del stack[i:]
            return


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _only_labels(text: str, start: int, pos: int) -> bool:
    """True when text[start:pos] is nothing but labels ("Liều lượng: Người lớn:")."""
    while start < pos:
        m = _LABEL.match(text, start, pos)
        if not m or m.start(1) != _skip_space(text, start):
            return False
        start = m.end()
        start = _skip_space(text, start)
    return True


def _first(stack: list[Level], kinds: tuple[str, ...]) -> int:
    for i, lv in enumerate(stack):
        if lv.kind in kinds:
            return i
    return len(stack)


# ---- matching a patient -----------------------------------------------------------------------------------


def _contains(r: Range, value: float) -> bool:
    lo, hi, lo_in, hi_in = r
    above = value > lo or (lo_in and value == lo)
    below = value < hi or (hi_in and value == hi)
    return above and below


def frame_populations(frame: QueryFrame) -> set[str] | None:
    """The population labels a patient belongs to (None: not known)."""
    pop = frame.population
    if pop in ("mang_thai", "cho_con_bu"):
        pop = "nguoi_lon"
    if pop is None and frame.age_years is not None:
        pop = "tre_em" if frame.age_years < ADULT_AGE else "nguoi_lon"
    if pop is None and frame.gestational_weeks is not None:
        pop = "so_sinh"
    if pop is None:
        return None
    if pop == "nguoi_cao_tuoi":
        return {"nguoi_cao_tuoi", "nguoi_lon"}
    if pop == "nguoi_lon":
        return {"nguoi_lon"}
    if pop == "so_sinh":
        return {"so_sinh", "tre_em"}
    accepted = {"tre_em"}
    if frame.age_years is None or frame.age_years <= NEONATE_AGE:
        accepted.add("so_sinh")
    return accepted


def routes_compatible(band_routes: set[str], route: str | None) -> bool:
    if route is None or not band_routes:
        return True
    if route in band_routes:
        return True
    if route == "tiem":  # "tiêm" with no site: every injection band, each shown under its own route
        return bool(band_routes & _INJECTION)
    return route in _IV_FAMILY and bool(band_routes & _IV_FAMILY)


def condition_score(condition: str, label: str) -> float:
    """Share of the condition's words found in an indication label (diacritics folded)."""
    stop = {"dieu", "tri", "cat", "bi", "benh", "nguoi", "cho", "va", "cua", "do", "trong"}
    want = {w for w in re.findall(r"[0-9a-z]+", fold(condition)) if w not in stop}
    have = set(re.findall(r"[0-9a-z]+", fold(label)))
    if not want:
        return 0.0
    return len(want & have) / len(want)


def fits(band: Band, frame: QueryFrame, check_route: bool = True) -> bool:
    """Whether one band applies to the patient of `frame` (unknown facts never exclude a band)."""
    if check_route and not routes_compatible(band.routes, frame.route):
        return False
    if check_route and frame.route is not None and not band.routes:
        # No route heads the band, but its sentence names one later ("Người lớn và trẻ em 100 - 300 microgam/kg,
        # tiêm tĩnh mạch ..."): a band naming only other routes is not for this route.
        named = mentioned_routes(band.text)
        if named and not any(routes_compatible({r}, frame.route) for r in named):
            return False
    accepted = frame_populations(frame)
    band_pops = band.populations
    if accepted is not None and band_pops and not (band_pops & accepted):
        return False
    if band.part == "cach_dung" and accepted is not None and not (band_pops & accepted):
        return False  # the how-to-use prose is shown only where it names the patient's group
    age = band.range_of("age")
    if age is not None:
        if frame.age_years is not None:
            if not _contains(age, frame.age_years):
                return False
        elif frame.population == "so_sinh" or (
            frame.population is None and frame.gestational_weeks is not None
        ):
            if age[0] > NEONATE_AGE:
                return False  # a neonate is younger than any band that starts after the first month
        elif accepted == {"nguoi_lon"} or accepted == {"nguoi_cao_tuoi", "nguoi_lon"}:
            if age[1] <= ADULT_AGE:
                return False
    weeks = band.range_of("weeks")
    if weeks is not None:
        if frame.gestational_weeks is not None:
            if not _contains(weeks, frame.gestational_weeks):
                return False
        elif frame.age_years is not None and frame.age_years > NEONATE_AGE:
            return False
    weight = band.range_of("weight")
    if weight is not None and frame.weight_kg is not None and not _contains(weight, frame.weight_kg):
        return False
    clcr = band.range_of("clcr")
    organ = fold(band.organ or "")
    if clcr is not None or "than" in organ.split() or "loc mau" in organ or "tham phan" in organ:
        if frame.clcr is None:
            return False
        if clcr is not None and not _contains(clcr, frame.clcr):
            return False
    if "gan" in organ.split() and not re.search(r"\bgan\b", fold(frame.question)):
        return False
    if _DIALYSIS.search(organ) and not _DIALYSIS.search(fold(frame.question)):
        return False  # a dose given after dialysis is not the dose for a clearance the person stated
    return True


_DIALYSIS = re.compile(r"\b(?:tham phan|tham tach|loc mau|chay than|than nhan tao)\b")


@dataclass
class BandChoice:
    """The outcome of matching: the bands to show, or why none can be chosen yet."""

    bands: list[Band]
    missing_route: list[str] = field(default_factory=list)  # the book's routes, when one must be chosen
    missing_population: bool = False
    no_fit: bool = False  # nothing fits: `bands` then holds every band, to show with its own label


def choose_bands(bands: list[Band], frame: QueryFrame) -> BandChoice:
    """The bands for this patient, in the book's order; or the question to ask first."""
    fitting_any_route = [b for b in bands if fits(b, frame, check_route=False)]
    if frame.condition:
        # The indication is chosen among the bands for this patient: "nhiễm khuẩn huyết" for an adult is not the
        # neonates' "Nhiễm khuẩn huyết sơ sinh" heading, even though those words match it best.
        # Ties go to the label with fewest other words: "tăng huyết áp" is "Tăng huyết áp:", not "Cơn tăng huyết áp:".
        scored = [
            ((condition_score(frame.condition, b.indication), condition_score(b.indication, frame.condition)), b)
            for b in fitting_any_route
            if b.indication
        ]
        best = max((s for s, _ in scored), default=(0.0, 0.0))
        if best[0] >= 0.5:
            keep = {id(b) for s, b in scored if s == best}
            fitting_any_route = [b for b in fitting_any_route if id(b) in keep]
    if frame.route is None:
        routes: list[str] = []
        for b in fitting_any_route:
            for r in sorted(b.routes):
                if r not in routes:
                    routes.append(r)
        if len(_route_families(routes)) >= 2:
            return BandChoice(bands=[], missing_route=routes)
    chosen = [b for b in fitting_any_route if fits(b, frame)]
    accepted = frame_populations(frame)
    if accepted is not None and any(
        b.populations and b.populations <= accepted | {"tre_em", "so_sinh", "nguoi_lon"} for b in chosen
    ):
        # The book has doses for this patient's own group: leave out pieces that name no group at all,
        # except renal and other organ bands, which are about the patient's kidneys, not age.
        chosen = [b for b in chosen if b.populations or b.range_of("clcr") is not None or b.organ]
    if accepted is not None and "so_sinh" in accepted and any("so_sinh" in b.populations for b in chosen):
        # A neonate, and the book has neonates' doses: "Trẻ nhỏ:" / "Trẻ lớn:" with no age are other children's.
        chosen = [
            b for b in chosen
            if "so_sinh" in b.populations or not b.populations or b.range_of("age") is not None
            or b.range_of("weeks") is not None
        ]
    if frame_populations(frame) is None:
        pops = {p for b in chosen for p in b.populations}
        if "nguoi_lon" in pops and pops & {"tre_em", "so_sinh"}:
            return BandChoice(bands=[], missing_population=True)
    if not any(b.part == "lieu" for b in chosen):
        # Only general how-to-use prose fits: no dose is printed for this patient.
        return BandChoice(bands=[b for b in bands if b.part == "lieu"] or bands, no_fit=True)
    return BandChoice(bands=chosen)


def _route_families(routes: list[str]) -> set[str]:
    return {"iv" if r in _IV_FAMILY else r for r in routes}


def band_title(band: Band) -> str:
    """A Vietnamese title naming exactly the group this band's dose is for."""
    parts: list[str] = []
    own = band.label
    own_names_group = bool(own) and any(p.search(fold(own)) for p, _ in _POPULATION_PATTERNS)
    for lv in band.context:
        if lv.kind == "population" and not own_names_group:
            parts.append(lv.label)
        elif lv.kind in ("indication", "organ"):
            parts.append(lv.label)
    if own:
        parts.append(own)
    route_labels = [lv.label for lv in band.context if lv.kind == "route" and lv.label]
    if band.own.routes and not own:
        route_text = ", ".join(ROUTE_NAMES[r] for r in sorted(band.own.routes))
    elif route_labels:
        route_text = route_labels[-1]
    elif band.routes:
        route_text = ", ".join(ROUTE_NAMES[r] for r in sorted(band.routes))
    else:
        route_text = ""
    title = "Liều dùng"
    if band.part == "cach_dung":
        parts.insert(0, "Cách dùng")
    if parts:
        title += " — " + " — ".join(parts)
    if route_text:
        title += f" ({route_text[0].lower() + route_text[1:]})"
    return title
