"""Dose labels and what they say: the route, group, age, gestational weeks, weight and clearance a printed label
or sentence names, and how a label nests (heading, group, route, band, indication, organ, note).

Everything here reads one piece of text; nothing here knows about the section around it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

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
IV_FAMILY = frozenset({"tiem_tinh_mach", "truyen_tinh_mach"})
INJECTION = frozenset({"tiem_bap", "tiem_tinh_mach", "truyen_tinh_mach", "tiem_duoi_da"})

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

POPULATION_PATTERNS: list[tuple[re.Pattern[str], str]] = [
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
DOSE = re.compile(
    r"\d+(?:,\d+)?\s*(?:mg|g|microgam|mcg|µg|ml(?!\s*/\s*ph)|đơn vị|UI|IU|viên|giọt|mmol|%)(?!\w)", re.I
)

# Labels: a short phrase ending in ":" at the start of a paragraph or sentence, or after another label or ";".
LABEL = re.compile(r"\s*([^\s:;.!?][^:;.!?\n]{0,90}?)\s*:(?=\s|$|\()")
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
            if low[: m.start()].endswith("không ") and not re.match(r" ?(?:vượt )?quá\b", low[m.end() :]):
                continue  # "không tiêm tĩnh mạch" rules a route out; "không tiêm vượt quá 1 g" still names it
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
    for pattern, pop in POPULATION_PATTERNS:
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


def label_kind(label: str, attrs: Attrs, leads_paragraph: bool) -> str:
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
        if extra_words(folded) >= 2:
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


def extra_words(folded_label: str) -> int:
    return sum(1 for w in re.findall(r"[a-z]+", folded_label) if w not in _FILLER)
