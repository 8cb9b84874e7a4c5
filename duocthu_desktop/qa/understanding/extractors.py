"""Patient facts read from a question: age, weight, route, renal function, population, condition.

Each extractor is a small pure function over `textmatch.Text`, so "bé 5 tuổi", "be 5 tuoi" and "5 tuổi" read
the same. Dose numbers are never read as patient facts: "15 mg/kg" is not a weight.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from duocthu_desktop.dosage.words import ADULT_YEARS, ELDERLY_YEARS
from duocthu_desktop.qa.understanding.lexicon import (
    CONDITION_TRIGGERS,
    NOT_CAUSE_TERMS,
    NOT_ROUTE_TERMS,
    POPULATION_PHRASES,
    ROUTE_PHRASES,
    ROUTE_PHRASES_TYPED_ONLY,
    ROUTE_SITE_DISEASE_WORDS,
)
from duocthu_desktop.qa.understanding.textmatch import Text, find, first_of, without_terms
from duocthu_desktop.text import fold

__all__ = ["CONDITION_TRIGGERS", "POPULATION_PHRASES", "ROUTE_PHRASES"]

_NUM = r"(\d+(?:[.,]\d+)?)"


def _number(text: str) -> float:
    return float(text.replace(",", "."))


def _plain(value: float, typed: str) -> str:
    """The number as Vietnamese writes it ("18", "18,5"); the person's own digits when a float cannot show it
    plainly (310 digits read as infinity, "0,0000001" as 1e-07)."""
    shown = str(value)
    if not math.isfinite(value) or "e" in shown:
        return typed
    return str(int(value)) if value.is_integer() else shown.replace(".", ",")


# ---- age -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Age:
    years: float | None
    text: str
    gestational_weeks: float | None = None
    neonate: bool = False


_CHILD_WORD = r"(?:be|tre|chau|con|em be|tre em|tre so sinh|so sinh)"
_AGE_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # "sơ sinh non 32 tuần", "sinh non 30 tuần", "sơ sinh thiếu tháng 30 tuần": weeks of gestation
    (re.compile(r"(?:so sinh\s*(?:thieu thang\s*|non\s*)?|sinh non\s*)(?:tren\s*|duoi\s*)?" + _NUM + r"\s*tuan"
                r"(?!\s*tuoi(?! thai))"), "gestation"),
    (re.compile(r"(?<![\d/,.])" + _NUM + r"\s*tuan tuoi thai"), "gestation"),
    (re.compile(r"(?<![\d/,.])" + _NUM + r"\s*tuoi"), "years"),
    # "bn nữ 30t", "bé 5t": the clinician's shorthand for tuổi (a lone "t" after the number, nothing after it)
    (re.compile(r"(?<![\d/,.\w])" + _NUM + r" ?t(?![\w/])"), "years"),
    (re.compile(r"(?<![\d/,.])" + _NUM + r"\s*thang tuoi"), "months"),
    (re.compile(_CHILD_WORD + r"\s+(?:duoc\s+|moi\s+|khoang\s+)?" + _NUM + r"\s*thang(?!\s*tuoi)"), "months"),
    (re.compile(r"(?<![\d/,.])" + _NUM + r"\s*tuan tuoi"), "weeks"),
    (re.compile(r"(?<![\d/,.])" + _NUM + r"\s*ngay tuoi"), "days"),  # "sơ sinh đủ tháng 10 ngày tuổi"
    (re.compile(_CHILD_WORD + r"\s+(?:duoc\s+|moi\s+)?" + _NUM + r"\s*(?:tuan|ngay tuoi|ngay)"), "weeks_or_days"),
)


def extract_age(text: Text) -> Age | None:
    """Age in years from '5 tuổi', '3 tháng tuổi', 'bé 8 tháng', 'sơ sinh 30 tuần' (gestation), '10 ngày tuổi'."""
    folded = text.folded
    for rx, unit in _AGE_PATTERNS:
        m = rx.search(folded)
        if not m:
            continue
        value = _number(m.group(1))
        original = text.norm[m.start() : m.end()]
        if unit == "gestation":
            return Age(years=0.0, text=original, gestational_weeks=value, neonate=True)
        if unit == "years":
            return Age(years=value, text=original)
        if unit == "months":
            return Age(years=value / 12.0, text=original)
        if unit == "weeks":
            return Age(years=value / 52.0, text=original)
        if unit == "days":
            return Age(years=value / 365.0, text=original)
        days = "ngay" in folded[m.start() : m.end()]
        return Age(years=value / (365.0 if days else 52.0), text=original)
    return None


# ---- weight --------------------------------------------------------------------------------------

_WEIGHT = re.compile(
    r"(?<![\d/,.])" + _NUM + r"\s*(?:kg|kilogram|kilogam|ki lo|kilo|ky|ki|can)(?![a-z/])"
)


def extract_weight(text: Text) -> tuple[float, str] | None:
    """Weight in kg from '18 kg', '18kg', '18 ký', 'nặng 18 cân'. A per-kg dose ('15 mg/kg') is not a weight."""
    for m in _WEIGHT.finditer(text.folded):
        before = text.folded[max(0, m.start() - 12) : m.start()]
        if re.search(r"(mg|g|microgam|mcg|ml|don vi)\s*/\s*$", before):
            continue
        value = _number(m.group(1))
        return value, f"{_plain(value, m.group(1))} kg"
    return None


# ---- route ---------------------------------------------------------------------------------------

_NEGATED_BEFORE = re.compile(r"(?:khong|chua|chang)(?: the)?\s*$")
# "chuyển sang uống": the route the patient goes on to is the one asked about
_SWITCHED_TO = re.compile(r"(?:chuyen|doi)\s+(?:sang|qua)(?:\s+(?:dung|duong))?\s*$")
# "sau khi tiêm", "đã tiêm": a route already given, not the one asked about when another is named
_ALREADY_GIVEN = re.compile(r"(?:(?<!\w)da|sau khi|sau)\s*$")
# "đang uống thuốc chống đông": another medicine the patient takes, not how this one is given
_OTHER_MEDICINE = re.compile(r"^\s*(?:cac\s+|mot\s+)?thuoc\b")


_NOT_ROUTE = re.compile(
    r"(?<!\w)(?:(?:" + "|".join(re.escape(fold(w)) for w in ROUTE_SITE_DISEASE_WORDS) + r")\s+(?:\w+\s+)?"
    r"(?:tinh mach|dong mach|da|mat|truc trang|am dao|hau mon|bap|co)"
    r"|" + "|".join(re.escape(fold(w)) for w in NOT_ROUTE_TERMS) + r")(?!\w)"
)


def disease_site_spans(folded: str) -> list[tuple[int, int]]:
    """Where folded text names a disease of a route's site ("huyet khoi tinh mach") or a route-like term."""
    return [m.span() for m in _NOT_ROUTE.finditer(folded)]


def _without_disease_sites(text: Text) -> Text:
    """The question with diseases of a route's site and route-like terms blanked out, positions kept."""
    spans = disease_site_spans(text.folded)
    if not spans or len(text.norm) != len(text.folded):
        return text
    norm = list(text.norm)
    for start, end in spans:
        norm[start:end] = " " * (end - start)
    return Text.of("".join(norm))


def _routes_named(text: Text) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []  # (start, -length, key)
    for phrase, key in ROUTE_PHRASES:
        if phrase in ROUTE_PHRASES_TYPED_ONLY and not text.accented:
            continue
        m = find(text, phrase, strict=phrase in ROUTE_PHRASES_TYPED_ONLY)
        if m:
            found.append((m.start(), -len(m.group(0)), key))
    return found


def _ruled_out(text: Text, named: tuple[int, int, str]) -> bool:
    return bool(_NEGATED_BEFORE.search(text.folded[max(0, named[0] - 12) : named[0]]))


def routes_ruled_out(text: Text) -> list[str]:
    """The routes the person says the patient cannot take ("không uống được thuốc"): not the route asked, and no
    dose by them is this patient's."""
    text = _without_disease_sites(text)
    return [key for named in _routes_named(text) if _ruled_out(text, named) for key in [named[2]]]


def extract_route(text: Text) -> str | None:
    """The route named first in the question ('uống', 'đặt hậu môn', 'tiêm tĩnh mạch', 'kem bôi', 'viên', ...),
    as a CONTRACT route key ('tiem' when an injection names no site)."""
    text = _without_disease_sites(text)
    # "không uống được, đặt trực tràng": a route the person says cannot be used is not the route asked for
    found = [f for f in _routes_named(text) if not _ruled_out(text, f)]
    if not found:
        return None
    switched = [f for f in found if _SWITCHED_TO.search(text.folded[max(0, f[0] - 16) : f[0]])]
    if switched:
        return sorted(switched)[0][2]
    current = [f for f in found if not _ALREADY_GIVEN.search(text.folded[max(0, f[0] - 9) : f[0]])
               and not _OTHER_MEDICINE.search(text.folded[f[0] - f[1] : f[0] - f[1] + 12])]
    found = current or found
    found.sort()
    key = found[0][2]
    if key == "tiem":  # "tiêm vào khoang dưới màng nhện": the site named later is the route
        sites = [k for _, _, k in found if k.startswith(("tiem_", "truyen_"))]
        return sites[0] if sites else key
    return key


# ---- renal function ------------------------------------------------------------------------------

_CLCR = re.compile(
    r"(?:clcr|cl ?cr|do thanh thai creatinin|thanh thai creatinin|do thanh thai|(?:muc|toc do|do) loc cau than"
    r"|loc cau than|egfr|gfr)"
    # "Clcr 30", "Clcr là 30", "Clcr giảm còn 8", "Clcr chỉ còn khoảng 8": up to three joining words before it
    r"\s*(?:(?:la|=|:|khoang|con|chi|giam|xuong|tang|len|<|>|duoi|tren)\s*){0,3}" + _NUM
)


def extract_clcr(text: Text) -> float | None:
    """Creatinine clearance from 'Clcr 30 ml/phút', 'độ thanh thải creatinin 30'."""
    m = _CLCR.search(text.folded)
    return _number(m.group(1)) if m else None


# ---- population ----------------------------------------------------------------------------------

def extract_population(text: Text, age: Age | None = None) -> str | None:
    """The population named; an age implies one (neonate, child under 18, adult, older adult from 65)."""
    hit = first_of(text, [p for p, _ in POPULATION_PHRASES])
    named = dict(POPULATION_PHRASES)[hit[0]] if hit else None
    if age is not None and age.neonate:
        return "so_sinh"
    if age is not None and age.years is not None and named in (None, "tre_em", "nguoi_lon", "nguoi_cao_tuoi"):
        if age.years < ADULT_YEARS:
            return "tre_em"
        return "nguoi_cao_tuoi" if age.years >= ELDERLY_YEARS else "nguoi_lon"
    return named


def is_pregnant(text: Text) -> bool:
    return first_of(text, [p for p, k in POPULATION_PHRASES if k == "mang_thai"]) is not None


def is_breastfeeding(text: Text) -> bool:
    return first_of(text, [p for p, k in POPULATION_PHRASES if k == "cho_con_bu"]) is not None


# ---- condition -----------------------------------------------------------------------------------

# Words that end a condition phrase.
_CONDITION_STOPS = re.compile(
    r"[,.;:?!()]|\s(?:thì|dùng|liều|uống|tiêm|là|nào|gì|không|có|được|cho|với|ở|như|nên|bao|thế|ra sao|"
    r"thi|dung|lieu|uong|tiem|la|nao|gi|khong|co|duoc|voi|o|nhu|nen)\b"
)
_CONDITION_PREFIX = re.compile(r"^(?:bệnh|chứng|benh|chung|cơn|con)\s+(?=\S)")


# "liều giảm đau", "thuốc hạ sốt", "chống nôn": the symptom a dose is for, said by what the dose does to it (the
# phrase whole, as the book's Chỉ định prints it: "giảm đau")
_RELIEVED = re.compile(r"(?<![a-z])(?:giam|ha|chong|cat)\s+(dau|ho|sot|ngua|buon non|non|co giat|co that)(?![a-z])")

# "loét dạ dày do uống thuốc giảm đau kháng viêm": a drug that caused the condition, not a symptom the dose is for
_CAUSED_BY_DRUG = re.compile(r"(?<![a-z])do\s+(?:(?:uong|dung|tiem)\s+)?(?:cac\s+)?thuoc\s+$")


def extract_condition(text: Text) -> str | None:
    """The condition or symptom named after a trigger word, in the person's words ('tăng huyết áp')."""
    text = without_terms(text, NOT_CAUSE_TERMS)  # "đang gây mê": no condition after "gây"
    hit = first_of(text, CONDITION_TRIGGERS)
    if hit is None:
        relieved = next((m for m in _RELIEVED.finditer(text.folded)
                         if not _CAUSED_BY_DRUG.search(text.folded[: m.start()])), None)
        return text.norm[relieved.start() : relieved.end()] if relieved else None
    phrase, m = hit
    rest = text.norm[m.end() :].strip()
    stop = _CONDITION_STOPS.search(" " + rest)
    condition = (" " + rest)[: stop.start()].strip() if stop else rest
    condition = condition.strip(" -")
    if phrase in ("cắt cơn", "lên cơn") and condition:
        condition = "cơn " + condition
    if len(condition) < 2:
        return None
    return condition


def strip_condition_prefix(condition: str) -> str:
    """'bệnh tăng huyết áp' -> 'tăng huyết áp' (for matching indications)."""
    return _CONDITION_PREFIX.sub("", condition)


def find_phrase(text: Text, phrase: str) -> bool:
    return find(text, phrase) is not None
