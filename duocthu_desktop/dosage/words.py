"""What one piece of dosage text says: the routes it names (CONTRACT route keys), the age, weight and clearance
it bounds, as typed values. Nothing here knows the section around the text.
"""

from __future__ import annotations

import re
from functools import lru_cache

from duocthu_desktop.dosage.rows import AgeBound, RenalBand, WeightBound
from duocthu_desktop.text import fold

ADULT_YEARS = 18.0  # the age from which the book's adult doses apply
ELDERLY_YEARS = 65.0  # the age from which a patient is "người cao tuổi"
NORMAL_CLCR = 90.0  # ml/phút: a clearance from here is normal kidney function, in no "suy thận" band
NEONATE_YEARS = 28 / 365

# The groups the book names, matched on folded text (diacritics dropped, lower case).
POPULATION_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bcao tuoi\b|\bnguoi gia\b"), "nguoi_cao_tuoi"),
    (re.compile(r"\bnguoi lon\b"), "nguoi_lon"),
    (re.compile(r"\bso sinh\b|\btre moi (?:de|sinh)\b"), "so_sinh"),
    # "trẻ" of "trẻ sơ sinh" / "trẻ mới đẻ" names neonates only
    # ("người trẻ tuổi" is young adults, not children)
    (re.compile(r"(?<!nguoi )\btre\b(?! so sinh\b| moi de\b| moi sinh\b| tuoi\b)|\bthieu nien\b|\bnhu nhi\b|\bnhi khoa\b"), "tre_em"),
]

_LIKE_GROUP = re.compile(
    r"\b(?:nhu|tuong tu|giong|bang)\s+(?:(?:lieu|o|cho|voi|doi voi)\s+)?(?:nguoi lon|tre em|tre)\b"
    r"|(?:\d+\s*/\s*\d+|vuot(?: qua)?|qua|hon)\s+lieu\s+(?:(?:o|cho|cua)\s+)?(?:nguoi lon|tre em|tre)\b"
    # "Liều tối đa thấp hơn liều tối đa được khuyến cáo cho người lớn": a comparison with the adults' dose
    r"|\b(?:thap|cao|it|nhieu) hon\b[^.;]{0,40}?\b(?:cho|o|cua)\s+(?:nguoi lon|tre em|tre)\b"
)


# a group the text leaves out ("Liều chung (ngoài thời kỳ sơ sinh)", "trừ trẻ sơ sinh") is not a group it names
_EXCEPT_GROUP = re.compile(
    r"\b(?:ngoai|tru)\s+(?:(?:thoi ky|giai doan|lua tuoi)\s+)?(?:(?:tre|nguoi)\s+)?(?:so sinh|nhu nhi|tre em|nguoi lon)\b"
)


def populations_in(text: str) -> set[str]:
    """The groups `text` names ("người lớn", "trẻ em", "sơ sinh", "người cao tuổi"); a comparison with a group
    ("liều như người lớn") names none."""
    # "người lớn16 - 64 tuổi": a word the extractor glued to the number after it
    folded = _EXCEPT_GROUP.sub(" ", _LIKE_GROUP.sub(" ", re.sub(r"(?<=[a-z])(?=\d)", " ", fold(text))))
    found = {pop for pattern, pop in POPULATION_PATTERNS if pattern.search(folded)}
    if re.search(r"\b(?:phu nu )?(?:mang thai|co thai)\b", folded):
        found.add("mang_thai")
    if re.search(r"\bcho con bu\b", folded):
        found.add("cho_con_bu")
    if "nguoi_cao_tuoi" in found:
        found.discard("nguoi_lon")
    return found


_W = r"(?<!\w)"
_E = r"(?!\w)"

# Route words, matched on lower-cased text WITH diacritics ("khí dung" is a route, "khi dùng" is "when using";
# "bôi" is a route, "bởi" is "by"). Longest phrases first; a matched phrase is masked so "tiêm truyền tĩnh mạch"
# is not also read as "tiêm tĩnh mạch".
ROUTE_PATTERNS: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    # vascular access named for a dialysis circuit ("lọc máu động - tĩnh mạch"), not a route of giving
    (re.compile(_W + r"(?:động|tĩnh) (?:tĩnh mạch|động mạch)" + _E), ()),
    # "đường tĩnh mạch" with no "tiêm"/"truyền": either; "nhỏ giọt (liên tục)" into a vein: an infusion
    (re.compile(_W + r"tiêm (?:theo |qua |bằng )?đường tĩnh mạch" + _E), ("tiem_tinh_mach",)),
    (re.compile(_W + r"truyền (?:theo |qua |bằng )?đường tĩnh mạch" + _E), ("truyen_tinh_mach",)),
    (re.compile(_W + r"(?:tiêm )?tĩnh mạch nhỏ giọt|(?:tiêm )?nhỏ giọt (?:liên tục|tĩnh mạch)" + _E), ("truyen_tinh_mach",)),
    (re.compile(_W + r"đường tĩnh mạch" + _E), ("tiem_tinh_mach", "truyen_tinh_mach")),
    (re.compile(_W + r"(?:khoang dưới màng nhện|(?:trong )?ống (?:tủy )?sống|nội tủy|(?:tiêm )?trong vỏ|não thất)"
                + _E), ("tiem_noi_tuy",)),
    (re.compile(_W + r"(?:tiêm|truyền) hoặc (?:tiêm|truyền) tĩnh mạch" + _E), ("tiem_tinh_mach", "truyen_tinh_mach")),
    (re.compile(_W + r"(?<!di )(?:(?:tiêm )?truyền(?! máu| hồng cầu| tiểu cầu| huyết tương)(?: nhỏ giọt| nhanh| chậm)?(?:(?: vào)? tĩnh mạch)?|tiêm truyền)" + _E),
     ("truyen_tinh_mach",)),  # not "di truyền" (genetic), nor "truyền máu/hồng cầu" (a transfusion)
    (re.compile(_W + r"(?:(?:tiêm )?tĩnh mạch|tiêm mạch)" + _E), ("tiem_tinh_mach",)),  # "tiêm mạch": short for it
    (re.compile(_W + r"(?:tiêm )?bắp(?: thịt)?" + _E), ("tiem_bap",)),
    (re.compile(_W + r"(?:tiêm )?dưới da" + _E), ("tiem_duoi_da",)),
    (re.compile(_W + r"(?:tiêm )?trong da" + _E), ("tiem_trong_da",)),
    (re.compile(_W + r"(?:dưới lưỡi|(?<!đầu )ngậm)" + _E), ("ngam_duoi_luoi",)),  # "đầu ngậm": a mouthpiece
    (re.compile(_W + r"(?:(?<!kết )(?<!đại )trực tràng|hậu môn|thuốc đạn|viên đạn)" + _E), ("truc_trang",)),
    (re.compile(_W + r"(?:(?:đặt|viên|kem|gel) âm đạo)" + _E), ("dat_am_dao",)),
    (re.compile(_W + r"(?:(?:hít qua )?(?:khí dung|phun sương))" + _E), ("khi_dung",)),
    (re.compile(_W + r"(?:hít|xịt|(?:dạng )?phun(?! sương))" + _E), ("hit",)),
    (re.compile(_W + r"(?:(?:thuốc )?(?:mỡ )?tra mắt|(?:thuốc )?mỡ mắt)" + _E), ("tra_mat",)),
    (re.compile(_W + r"nhỏ mắt" + _E), ("nho_mat",)),
    # a patch ("dùng thuốc qua da", "miếng dán") is "other"; "can thiệp mạch vành qua da" is a procedure, no route
    (re.compile(_W + r"(?:nhỏ tai|dưới kết mạc|thể thủy tinh|(?:dùng thuốc|dùng|thuốc|đường|hấp thu) qua da|miếng dán)"
                + _E), ("other",)),
    (re.compile(_W + r"(?:bôi|dùng ngoài(?: da)?|thuốc mỡ|kem)" + _E), ("boi",)),
    # tablets and syrups are oral
    (re.compile(_W + r"(?:uống|viên (?:nén|nang|bao|sủi|nhai|giải phóng)|(?:dạng |thuốc )?(?:sirô|siro|si rô))" + _E),
     ("uong",)),
    (re.compile(_W + r"tiêm(?! chủng| phòng| vắc)" + _E), ("other",)),  # an injection with no site named
]
ROUTE_NAMES: dict[str, str] = {
    "uong": "Uống",
    "tiem_tinh_mach": "Tiêm tĩnh mạch",
    "truyen_tinh_mach": "Truyền tĩnh mạch",
    "tiem_bap": "Tiêm bắp",
    "tiem_duoi_da": "Tiêm dưới da",
    "truc_trang": "Đặt trực tràng",
    "hit": "Hít",
    "khi_dung": "Khí dung",
    "nho_mat": "Nhỏ mắt",
    "tra_mat": "Tra mắt",
    "boi": "Bôi ngoài da",
    "dat_am_dao": "Đặt âm đạo",
    "ngam_duoi_luoi": "Ngậm dưới lưỡi",
    "tiem_trong_da": "Tiêm trong da",
    "tiem_noi_tuy": "Tiêm nội tủy / não thất",
    "other": "Đường dùng khác",
}
# Names for a route the person gave: the CONTRACT keys, "tiêm" with no site, and "xịt" kept for older frames.
FRAME_ROUTE_NAMES: dict[str, str] = {**ROUTE_NAMES, "tiem": "Tiêm", "xit": "Xịt"}
_NEGATED = re.compile(r"(?:không|tránh|chớ|đừng)(?: thể| được| nên)*(?: dùng)?(?: đường)? $")


_DISEASE_OF = re.compile(r"(?:viêm|nhiễm khuẩn|nhiễm trùng|nhiễm|tắc|huyết khối|ngứa|nứt|rò|loét|suy|giãn|suy giãn) $")
_OVER = re.compile(r" (?:quá|vượt)")
# "1 giờ sau khi tiêm", "(sau khi đã tiêm)", "tiếp sau liệu pháp tiêm ban đầu": the injection before, not this dose's
_WHEN = re.compile(r"(?:sau|trước) (?:khi(?: đã)?|liệu pháp|đợt) $")
_JOINED = re.compile(r"\s*(?:,\s*)?(?:hoặc|và|hay|/)\s*(?:đường\s+)?")


def routes_in(text: str, window: int | None = None) -> list[str]:
    """Every route `text` names, in CONTRACT keys, in the order first named; a route ruled out ("không tiêm dưới
    da") is not named. "other" from a bare "tiêm" only when no other injection route is named. With `window`,
    only routes named within the first `window` words count (a sentence's route is named where it begins)."""
    return list(_routes_in(text, window))  # a fresh list: callers extend it


@lru_cache(maxsize=8192)
def _routes_in(text: str, window: int | None) -> tuple[str, ...]:
    """routes_in, once per text and window (the parser asks the same statement several times)."""
    low = " ".join(re.findall(r"\w+|[,/]", text.lower()))
    found: list[str] = []
    late: list[tuple[str, int, int]] = []  # named past the window: kept only as one more of a list begun in it
    ends: list[int] = []
    for pattern, keys in ROUTE_PATTERNS:
        for m in pattern.finditer(low):
            if _NEGATED.search(low[max(0, m.start() - 24) : m.start()]) and not _OVER.match(low, m.end()):
                continue  # "không tiêm dưới da" rules a route out; "không truyền quá 2 g" does not
            if _DISEASE_OF.search(low[max(0, m.start() - 16) : m.start()]):
                continue  # "viêm tĩnh mạch", "nhiễm khuẩn não thất": a site of disease, not a route
            if window is not None and len(low[: m.start()].split()) >= window:
                late += [(key, m.start(), m.end()) for key in keys if key != "other"]
                low = low[: m.start()] + " " * (m.end() - m.start()) + low[m.end() :]
                continue
            ends.append(m.end())
            for key in keys:
                bare = key == "other" and m.group(0) == "tiêm"
                if bare and (found or _WHEN.search(low[max(0, m.start() - 20) : m.start()])):
                    continue  # "tiêm" beside a named site, or a time ("1 giờ sau khi tiêm")
                if key not in found:
                    found.append((key, m.start()))  # type: ignore[arg-type]
            low = low[: m.start()] + " " * (m.end() - m.start()) + low[m.end() :]
    for key, start, end in sorted(late, key=lambda t: t[1]):
        # "uống hoặc tiêm bắp, 30 mg": a route joined by "hoặc"/"và"/"/" to one named within the window
        if any(e <= start and _JOINED.fullmatch(low[e:start]) for e in ends):
            if key not in [k for k, _ in found]:  # type: ignore[misc]
                found.append((key, start))  # type: ignore[arg-type]
            ends.append(end)
    ordered = sorted({k: p for k, p in reversed(found)}.items(), key=lambda kv: kv[1])  # type: ignore[misc]
    return tuple(k for k, _ in ordered)


# ---- numbers with units --------------------------------------------------------------------------------------

_NUM = r"(\d+(?:,\d+)?)"
_CMP = r"(trên|dưới|lớn hơn|nhỏ hơn|từ|tới|đến|>|<|≥|≤|=>|<=|>=)"
_AGE_UNIT = r"(tháng|tuần|tuổi|năm|ngày)"
_UNIT_KEYS = {"thang": "thang", "tuan": "tuan", "tuoi": "nam", "nam": "nam", "ngay": "ngay"}
_UNIT_ORDER = ["ngay", "tuan", "thang", "nam"]
_UNIT_SCALE = {"ngay": 1 / 365, "tuan": 1 / 52, "thang": 1 / 12, "nam": 1.0}
_AGE_RANGE = re.compile(
    _NUM + r"\s*" + _AGE_UNIT + r"?(?:\s*tuổi)?\s*(?:-|–|đến|tới)\s*" + _NUM + r"\s*" + _AGE_UNIT, re.I
)
_AGE_CMP = re.compile(_CMP + r"\s*" + _NUM + r"\s*" + _AGE_UNIT, re.I)
_PLUS = re.compile(r"\s*(?:tuổi\s*)?(?:trở lên|hoặc (?:lớn hơn|trên))", re.I)
_POPULATION_WORD = re.compile(r"\b(?:tre|so sinh|nhu nhi|thieu nien|nguoi lon|cao tuoi|benh nhi)\b")
_WEIGHT_RANGE = re.compile(r"(?<![\d,/])" + _NUM + r"\s*(?:-|–|đến|tới)\s*" + _NUM + r"\s*kg\b(?!\s*/)", re.I)
# both ends with their own unit: "≥ 14 kg - 21 kg", "> 21 kg - dưới 30 kg"
_WEIGHT_SPAN = re.compile(
    r"(?:" + _CMP + r"\s*)?" + _NUM + r"\s*kg\s*(?:-|–|đến)\s*(?:" + _CMP + r"\s*)?" + _NUM + r"\s*kg\b(?!\s*/)", re.I
)
_AT_LEAST = re.compile(r"\b(?:ít nhất|tối thiểu)(?=\s*\d)", re.I)  # "cân nặng ít nhất 50 kg"
_WEIGHT_CMP = re.compile(_CMP + r"\s*" + _NUM + r"\s*kg\b(?!\s*/)", re.I)
_CLCR = re.compile(
    r"(?:clcr|cl\s*cr|độ thanh thải creatinin|hệ số thanh thải creatinin|thanh thải creatinin|(?:mức|tốc độ) lọc cầu thận"
    r"|e?gfr|độ thanh thải)"
    r"[^0-9<>≤≥\n.;]{0,25}?(?:" + _CMP + r"\s*)?" + _NUM + r"(?:\s*(?:-|–|đến)\s*" + _NUM + r")?\s*ml",
    re.I,
)
_CLCR_BARE = re.compile(
    r"^\s*(?:" + _CMP + r"\s*)?" + _NUM + r"(?:\s*(?:-|–|đến)\s*" + _NUM + r")?\s*ml\s*/\s*phút", re.I
)
_DIALYSIS = re.compile(r"\b(?:tham phan|tham tach|loc mau|chay than|sieu loc|than nhan tao|loc (?:qua )?mang bung)\b")
_RENAL_WORDS = re.compile(
    r"\b(?:suy (?:giam chuc nang )?than|chuc nang than(?! binh thuong)|than (?:bi )?suy|vo nieu"
    r"|clcr|(?:do |he so )?thanh thai creatinin|(?:muc|toc do) loc cau than)\b"
)
_HEPATIC_WORDS = re.compile(r"\b(?:suy (?:giam chuc nang )?gan|chuc nang gan|benh gan|xo gan)\b")


# a bound printed after its number ("7 ngày tuổi hoặc nhỏ hơn", "cân nặng 2 kg hoặc hơn"), read as "≤ 7 ngày tuổi"
_AFTER_BOUND = re.compile(
    # (an age only with "tuổi": "trong 10 ngày hoặc hơn" is a duration)
    r"(?<![\d,])(\d+(?:,\d+)?\s*(?:kg|(?:ngày|tuần|tháng|năm)\s*tuổi|tuổi))\s+(hoặc (?:nhỏ hơn|ít hơn|thấp hơn|nhẹ hơn)"
    r"|trở xuống|hoặc (?:hơn|lớn hơn|nhiều hơn|cao hơn|nặng hơn))\b", re.I)


def _comparator_after(text: str) -> str:
    if "hoặc" not in text and "trở xuống" not in text:
        return text
    return _AFTER_BOUND.sub(lambda m: ("≤ " if re.search(r"nhỏ|ít|thấp|nhẹ|xuống", m.group(2)) else "≥ ") + m.group(1), text)


def _num(text: str) -> float:
    return float(text.replace(",", "."))


def _is_lower_bound(op: str) -> bool:
    return fold(op) in ("tren", "lon hon", "tu", ">", ">=", "=>", "≥")


def _age_unit(word: str | None) -> str | None:
    return _UNIT_KEYS.get(fold(word or ""))


def _looks_like_age(text: str, m: re.Match[str], unit: str) -> bool:
    """"4 - 6 tuổi" is an age; "trong 2 - 3 tháng", "trên 3 ngày" are durations unless a group is named."""
    after = fold(text[m.end() : m.end() + 6]).lstrip()
    if unit == "nam" and fold(m.group(0)).rstrip().endswith("tuoi"):
        return True
    if after.startswith("tuoi"):
        return True
    before = fold(text[max(0, m.start() - 40) : m.start()])
    return bool(_POPULATION_WORD.search(before)) or "thai" in fold(text[m.end() : m.end() + 12])


def age_in(text: str, label: bool = False) -> AgeBound | None:
    """The age `text` bounds ("Trẻ em 4 - 6 tuổi", "3 tháng - 2 tuổi" in months, "dưới 1 tuần tuổi",
    "28 - 32 tuần chỉnh theo tuổi thai" gestational), else None."""
    text = _comparator_after(unlatex(text))
    for m in _AGE_RANGE.finditer(text):
        hi_unit = _age_unit(m.group(4)) or "nam"
        lo_unit = _age_unit(m.group(2)) or hi_unit
        whole = label and not re.sub(r"[\s()]", "", text[: m.start()] + text[m.end() :])
        if not whole and not _looks_like_age(text, m, hi_unit):
            continue
        unit = min(lo_unit, hi_unit, key=_UNIT_ORDER.index)
        lo = _num(m.group(1)) * _UNIT_SCALE[lo_unit] / _UNIT_SCALE[unit]
        hi = _num(m.group(3)) * _UNIT_SCALE[hi_unit] / _UNIT_SCALE[unit]
        return AgeBound(min=round(lo, 3), max=round(hi, 3), unit=unit, gestational=_gestational(text, m, unit))
    for m in _AGE_CMP.finditer(text):
        unit = _age_unit(m.group(3)) or "nam"
        if not _looks_like_age(text, m, unit) and not _PLUS.match(text, m.end()):
            continue
        value = _num(m.group(2))
        gest = _gestational(text, m, unit)
        if _is_lower_bound(m.group(1)):
            return AgeBound(min=value, unit=unit, gestational=gest)
        return AgeBound(max=value, unit=unit, gestational=gest)
    return None


def _gestational(text: str, m: re.Match[str], unit: str) -> bool:
    return unit == "tuan" and "thai" in fold(text[m.start() : m.end() + 30])


def weight_in(text: str) -> WeightBound | None:
    """The weight `text` bounds ("10 - 50 kg", "≥ 14 kg - 21 kg", "> 21 kg - dưới 30 kg", "dưới 50 kg")."""
    text = _comparator_after(unlatex(text))
    m = _WEIGHT_SPAN.search(text)
    if m:
        return WeightBound(min=_num(m.group(2)), max=_num(m.group(4)))
    m = _WEIGHT_RANGE.search(text)
    if m:
        return WeightBound(min=_num(m.group(1)), max=_num(m.group(2)))
    m = _WEIGHT_CMP.search(_AT_LEAST.sub("≥", text))
    if m:
        value = _num(m.group(2))
        return WeightBound(min=value) if _is_lower_bound(m.group(1)) else WeightBound(max=value)
    return None


_LIKE = re.compile(r"\b(?:nhu|tuong tu|giong)\b")  # "liều như đối với Clcr < 10": another band's dose


def renal_in(text: str, label: bool = False) -> RenalBand | None:
    """The clearance band `text` names ("Clcr 10 - 50 ml/phút", "độ thanh thải creatinin dưới 10 ml/phút");
    a bare "10 - 25 ml/phút" counts only as a label. Dialysis words make a dialysis band."""
    text = unlatex(text)
    m = next((c for c in _CLCR.finditer(text) if not _LIKE.search(fold(text[max(0, c.start() - 30) : c.start()]))),
             None) or (_CLCR_BARE.match(text) if label else None)
    folded = fold(text)
    if m is None:
        if _DIALYSIS.search(folded):
            return RenalBand(dialysis=True)
        return None
    op, lo, hi = m.group(1), _num(m.group(2)), m.group(3)
    band = RenalBand(dialysis=bool(_DIALYSIS.search(folded)))
    if hi is not None:
        band.clcr_min, band.clcr_max = lo, _num(hi)
    elif op and _is_lower_bound(op):
        band.clcr_min = lo
    elif op:
        band.clcr_max = lo
    else:
        band.clcr_min = band.clcr_max = lo
    return band


def names_renal(text: str) -> bool:
    return bool(_RENAL_WORDS.search(fold(text)) or _DIALYSIS.search(fold(text)))


def names_dialysis(text: str) -> bool:
    """'chạy thận nhân tạo', 'thẩm phân máu', 'lọc máu', 'lọc màng bụng'."""
    return bool(_DIALYSIS.search(fold(text)))


def names_hepatic(text: str) -> bool:
    return bool(_HEPATIC_WORDS.search(fold(text)))


# A dose kind the person asks for by name; the statements of that kind answer it.
_KIND_ASKED = (
    (re.compile(r"\blieu (?:nap|tan cong)\b"), "loading_dose"),
    (re.compile(r"\blieu (?:toi da|cao nhat)\b"), "max_dose"),
)


def kind_asked(question: str) -> str | None:
    """'liều nạp clopidogrel?' -> 'loading_dose'; 'liều tối đa?' -> 'max_dose'; otherwise None."""
    folded = fold(question)
    return next((kind for pattern, kind in _KIND_ASKED if pattern.search(folded)), None)


# Comparators the extractor printed as LaTeX ("Trẻ em $\\geq$ 6 tuổi", "${\\rm Cl_{cr}}$ < 25 ml/phút").
_LATEX = (
    # "Trẻ em $\\geq 1$ tháng tuổi": the number printed inside the formula
    (re.compile(r"\$\s*\\(?:geq|ge)\s*(\d+(?:,\d+)?)\s*\$"), r"≥ \1"),
    (re.compile(r"\$\s*\\(?:leq|le)\s*(\d+(?:,\d+)?)\s*\$"), r"≤ \1"),
    (re.compile(r"\$\s*\\(?:geq|ge)\s*\$"), "≥"), (re.compile(r"\$\s*\\(?:leq|le)\s*\$"), "≤"),
    (re.compile(r"\$\s*(?:<|\\lt)\s*\$"), "<"), (re.compile(r"\$\s*(?:>|\\gt)\s*\$"), ">"),
    (re.compile(r"\$\s*\{?\\rm\s*Cl_\{?cr\}?\}?\s*\$"), "Clcr"),
)


def unlatex(text: str) -> str:
    """The text with the LaTeX comparators and Clcr the extractor printed read as the book prints them."""
    if "$" not in text:
        return text
    for pattern, plain in _LATEX:
        text = pattern.sub(plain, text)
    return text


# ---- the forms the book lists -------------------------------------------------------------------------------

# "Dạng thuốc và hàm lượng" names the drug's forms; each says by which way it is given. A family holds the routes
# one form can serve (a "thuốc tiêm" may be given into a vein, a muscle or under the skin).
FORM_FAMILIES: tuple[tuple[str, str], ...] = (
    (r"viên|nang|sir[oô]|uống|cồn thuốc|gói|cốm|nhai|ngậm", "mouth"),
    (r"tiêm|truyền|pha tiêm|ống tiêm|bơm tiêm", "injection"),
    (r"thuốc đạn|viên đạn|đạn|trực tràng|thụt", "rectum"),
    (r"nhỏ mắt|mỡ mắt|tra mắt|nhãn khoa", "eye"),
    (r"kem|thuốc mỡ|gel|bôi|dùng ngoài|ngoài da|dung dịch dùng ngoài|cồn|thuốc xức|miếng dán|qua da", "skin"),
    (r"âm đạo", "vagina"),
    (r"khí dung|hít|xịt|phun", "airway"),
    (r"dưới lưỡi", "mouth"),
    (r"nhỏ mũi|nhỏ tai", "nose_ear"),
)
_FORM_PATTERNS = tuple((re.compile(r"(?<!\w)(?:" + words + r")(?!\w)"), fam) for words, fam in FORM_FAMILIES)
ROUTE_FAMILY: dict[str, str] = {
    "uong": "mouth", "ngam_duoi_luoi": "mouth", "tiem_tinh_mach": "injection", "truyen_tinh_mach": "injection",
    "tiem_bap": "injection", "tiem_duoi_da": "injection", "tiem_trong_da": "injection", "tiem_noi_tuy": "injection",
    "tiem": "injection", "truc_trang": "rectum", "nho_mat": "eye", "tra_mat": "eye", "boi": "skin",
    "dat_am_dao": "vagina", "hit": "airway", "xit": "airway", "khi_dung": "airway",
}


# a family as a person reads it, the route name of ROUTE_NAMES where one route stands for it
FAMILY_NAMES: dict[str, str] = {
    "mouth": "Uống", "injection": "Tiêm", "rectum": "Đặt trực tràng", "eye": "Nhỏ mắt", "skin": "Bôi ngoài da",
    "vagina": "Đặt âm đạo", "airway": "Hít", "nose_ear": "Nhỏ mũi, nhỏ tai",
}


def form_families(text: str) -> set[str]:
    """The ways of giving the forms a "Dạng thuốc và hàm lượng" text lists ("Viên nén 5 mg" -> {"mouth"})."""
    low = text.lower()
    return {fam for pattern, fam in _FORM_PATTERNS if pattern.search(low)}


# The form a monograph covers, as its INN line prints it in brackets ("Tên chung quốc tế: X (eye drops).", the
# English of a title "X (Thuốc nhỏ mắt)"): the route of every statement of its dosage section that names none.
# An injection is left out: it does not say which one.
_INN_FORM_ROUTES = (
    (re.compile(r"\beye (?:drops?|solution)\b|\bophthalmic (?:drops?|solution)\b"), "nho_mat"),
    (re.compile(r"\beye ointment\b|\bophthalmic ointment\b"), "tra_mat"),
    (re.compile(r"\boral\b"), "uong"),
    (re.compile(r"\btopical\b|\bcutaneous\b|\bdermal\b"), "boi"),
    (re.compile(r"\bvaginal\b"), "dat_am_dao"),
    (re.compile(r"\brectal\b|\bsuppositor"), "truc_trang"),
    (re.compile(r"\binhal"), "hit"),
)
_INN_LINE = re.compile(r"tên chung quốc tế\W*[^\n(]*\(([^()\n]+)\)", re.I)


def monograph_route(identity: str) -> list[str]:
    """The one route the INN line's bracket names for the whole monograph, else [] (a synonym in brackets,
    "Aciclovir (Acyclovir)", names none)."""
    m = _INN_LINE.search(identity)
    if m is None:
        return []
    words = m.group(1).lower()
    found = [key for pattern, key in _INN_FORM_ROUTES if pattern.search(words)]
    return found if len(found) == 1 else []


# A liver impairment's grade by its Child-Pugh class (folded text): A, B, C are mild, moderate, severe; a
# decompensated cirrhosis ("xơ gan mất bù") is severe. Read from the book's rows and from the person's words.
_CHILD_PUGH = re.compile(r"(?<![a-z])child(?:[\s-]*pugh)?\s*(?:loai\s*|do\s*|nhom\s*)?([abc])(?![a-z])")
_DECOMPENSATED = re.compile(r"(?<![a-z])mat bu(?![a-z])")
CHILD_PUGH_GRADES = {"a": "mild", "b": "moderate", "c": "severe"}
GRADE_WORDS = {"mild": "nhẹ", "moderate": "vừa", "severe": "nặng"}


def child_pugh_grades(text: str) -> set[str]:
    """The liver grades a text names by its Child-Pugh class or as a decompensated cirrhosis."""
    folded = fold(text)
    grades = {CHILD_PUGH_GRADES[m.group(1)] for m in _CHILD_PUGH.finditer(folded)}
    return grades | ({"severe"} if _DECOMPENSATED.search(folded) else set())
