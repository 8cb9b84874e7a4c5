"""A patient's lab values and the book's thresholds on the same analyte, both read as number + unit.

"kali máu 6,2 mmol/l" in a question and "kali huyết trên 5,5 mmol/lít" in Chống chỉ định name the same analyte
with the same unit, so the sentence bears on this patient exactly when 6,2 lies in the book's band. Values are
converted to one unit per analyte (mEq/l of a monovalent ion is mmol/l; g/dl of haemoglobin is 10 g/l; G/l of a
blood count is 1 000/mm³); a unit that cannot be converted leaves the sentence shown, its own threshold saying
when it applies, the way a Clcr threshold is shown when no Clcr was given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel

from duocthu_desktop.text import fold

# analyte -> the folded words that name it, in questions and in the book (longest first when matched)
ANALYTES: dict[str, tuple[str, ...]] = {
    "kali": ("kali", "potassium", "k+"),
    "natri": ("natri", "sodium", "na+"),
    "calci": ("calci", "calcium", "ca++", "ca2+"),
    "magnesi": ("magnesi", "magnesium", "mg++", "mg2+"),
    "bach_cau_trung_tinh": ("bach cau trung tinh", "bach cau da nhan trung tinh", "neutrophil", "anc"),
    "bach_cau": ("bach cau", "wbc"),
    "tieu_cau": ("tieu cau", "platelet", "plt"),
    "hemoglobin": ("hemoglobin", "huyet sac to", "hb", "hgb"),
    "inr": ("inr",),
    "aptt": ("aptt",),
    "glucose": ("glucose", "duong huyet", "duong mau"),
    "acid_uric": ("acid uric", "axit uric"),
    "bilirubin": ("bilirubin",),
    "creatinin": ("creatinin huyet thanh", "creatinin huyet", "creatinin mau", "creatinin", "creatinine"),
    # the vital signs a threshold is printed on ("huyết áp tâm thu dưới 105 mmHg", "nhịp tim dưới 50 lần/phút")
    "huyet_ap_tam_thu": ("huyet ap tam thu", "ha tam thu", "huyet ap toi da"),
    "huyet_ap_tam_truong": ("huyet ap tam truong", "ha tam truong", "huyet ap toi thieu"),
    "nhip_tim": ("nhip tim", "tan so tim", "nhip mach"),
}
# folded unit as written -> (canonical unit, factor), per analyte family
_UNITS: dict[str, tuple[str, float]] = {
    "mmol/l": ("mmol/l", 1.0), "mmol/lit": ("mmol/l", 1.0), "meq/l": ("meq/l", 1.0), "meq/lit": ("meq/l", 1.0),
    "mg/dl": ("mg/dl", 1.0), "mg/100 ml": ("mg/dl", 1.0), "g/dl": ("g/l", 10.0), "g/100 ml": ("g/l", 10.0),
    "g/l": ("g/l", 1.0), "g/lit": ("g/l", 1.0), "/mm3": ("/mm3", 1.0), "/mm³": ("/mm3", 1.0), "/ul": ("/mm3", 1.0),
    "/µl": ("/mm3", 1.0), "/microlit": ("/mm3", 1.0), "x 10^9/l": ("/mm3", 1000.0), "x10^9/l": ("/mm3", 1000.0),
    "x 109/l": ("/mm3", 1000.0), "10^9/l": ("/mm3", 1000.0), "µmol/l": ("µmol/l", 1.0), "umol/l": ("µmol/l", 1.0),
    "micromol/l": ("µmol/l", 1.0), "micromol/lit": ("µmol/l", 1.0), "mg/decilit": ("mg/dl", 1.0),
    "mmhg": ("mmhg", 1.0), "lan/phut": ("/phut", 1.0), "lan/ phut": ("/phut", 1.0), "nhip/phut": ("/phut", 1.0),
    "nhip/ phut": ("/phut", 1.0), "bpm": ("/phut", 1.0),
}
# creatinine printed in mg/dl and typed in µmol/l (or the other way): 1 mg/dl is 88,4 µmol/l
_CREATININE_UMOL_PER_MG_DL = 88.4
# a creatinine typed without its unit: above this it can only be µmol/l (in mg/dl a value over 20 is not seen)
_CREATININE_BARE_UMOL = 20.0
# analytes whose monovalent ion makes mEq/l the same number as mmol/l
_MONOVALENT = ("kali", "natri")
# a blood count in G/l (Giga per litre) is 1 000/mm³; "g/l" of a count can only mean that
_COUNTS = ("bach_cau_trung_tinh", "bach_cau", "tieu_cau")

_NUM = r"(\d{1,3}(?:[  ]\d{3})+|\d+(?:[.,]\d+)?)"
_UNIT = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
_FILLER = (r"(?:\s*(?:mau|huyet thanh|huyet tuong|huyet|niệu|nieu|la|=|:|con|o muc|khoang|dem|so luong"
           r"|do duoc|hien tai|hien|luc nay))*")  # "APTT đo được 100 giây", "INR hiện tại 4"
_BELOW = ("<", "≤", "duoi", "nho hon", "thap hon", "it hon", "khong qua", "khong vuot qua", "toi da")
_ABOVE = (">", "≥", "tren", "lon hon", "cao hon", "vuot qua", "qua", "it nhat", "toi thieu", "tu")
_CMP = "|".join(re.escape(c) for c in sorted(_BELOW + _ABOVE, key=len, reverse=True))


def _names() -> str:
    words = sorted(((w, a) for a, ws in ANALYTES.items() for w in ws), key=lambda p: len(p[0]), reverse=True)
    return "|".join(re.escape(w) for w, _ in words)


# "thanh thải creatinin 25 ml/phút" is a clearance (Clcr), not the serum creatinine
_ANALYTE = re.compile(r"(?<![0-9a-z])(?<!thanh thai )(" + _names() + r")(?![0-9a-z])")
# "huyết áp 90/60 mmHg": the systolic and the diastolic pressure in one
_PRESSURE_PAIR = re.compile(r"(?<![0-9a-z])(?:huyet ap|ha)(?:\s*(?:la|=|:|do duoc|khoang|o muc))*\s*(\d{2,3})\s*/\s*(\d{2,3})"
                            r"(?!\d)(?:\s*mmhg)?")
_VALUE = re.compile(_FILLER + r"\s*" + _NUM + r"\s*(" + _UNIT + r")?")
_BOUND = re.compile(r"(?:(" + _CMP + r")\s*)?" + _NUM + r"\s*(" + _UNIT + r")?"
                    r"(?:\s*(?:-|–|den|toi)\s*" + _NUM + r"\s*(" + _UNIT + r")?)?")
_WINDOW = 70  # characters after the analyte's name within which its thresholds are printed
_CLAUSE_END = re.compile(r"[;)]|\.(?!\d)")


class LabValue(BaseModel):
    """One value the person gave: the analyte, the number and its unit as typed (folded), or None."""

    analyte: str
    value: float
    unit: str | None = None


@dataclass(frozen=True)
class Threshold:
    analyte: str
    lo: float
    hi: float
    unit: str | None


def _analyte_of(word: str) -> str:
    return next(a for a, ws in ANALYTES.items() if word in ws)


def _number(text: str) -> float:
    return float(re.sub(r"[  ]", "", text).replace(",", "."))


def _canonical(analyte: str, value: float, unit: str | None) -> tuple[float, str | None]:
    if analyte == "creatinin":
        if unit is None:
            unit = "umol/l" if value > _CREATININE_BARE_UMOL else "mg/dl"
        if _UNITS.get(unit, ("",))[0] == "µmol/l":
            return value / _CREATININE_UMOL_PER_MG_DL, "mg/dl"
    if unit is None:
        return value, None
    canon, factor = _UNITS[unit]
    if canon == "meq/l" and analyte in _MONOVALENT:
        canon = "mmol/l"
    if canon == "g/l" and analyte in _COUNTS:
        canon, factor = "/mm3", 1000.0
    return value * factor, canon


def lab_values(question: str) -> list[LabValue]:
    """Every analyte the question names with a number after it: 'kali máu 6,2 mmol/l', 'INR 4,5', 'tiểu cầu 40
    000/mm3'."""
    text = fold(question).lower()
    out: list[LabValue] = []
    for m in _PRESSURE_PAIR.finditer(text):
        out.append(LabValue(analyte="huyet_ap_tam_thu", value=_number(m.group(1)), unit="mmhg"))
        out.append(LabValue(analyte="huyet_ap_tam_truong", value=_number(m.group(2)), unit="mmhg"))
    for m in _ANALYTE.finditer(text):
        v = _VALUE.match(text, m.end())
        if not v:
            continue
        out.append(LabValue(analyte=_analyte_of(m.group(1)), value=_number(v.group(1)), unit=v.group(2)))
    return out


def without_values(question: str) -> str:
    """The question with each lab value it gives ("creatinin huyết thanh 1,2 mg/dl", "huyết áp 95/60 mmHg")
    blanked: a measured number is compared with the book's thresholds, it is not a condition the patient has."""
    text = fold(question).lower()
    if len(text) != len(question):
        return question
    spans = [m.span() for m in _PRESSURE_PAIR.finditer(text)]
    for m in _ANALYTE.finditer(text):
        v = _VALUE.match(text, m.end())
        if v:
            spans.append((m.start(), v.end()))
    for start, end in sorted(spans, reverse=True):
        question = question[:start] + " . " + question[end:]
    return question


def thresholds(sentence: str) -> list[Threshold]:
    """The bands a sentence prints after an analyte's name: 'natri máu dưới 130 mmol/lít' -> natri < 130."""
    text = fold(sentence).lower()
    out: list[Threshold] = []
    for m in _ANALYTE.finditer(text):
        analyte = _analyte_of(m.group(1))
        window = text[m.end() : m.end() + _WINDOW]
        # "creatinin ≥ 1,5 mg/decilít ở nam giới hoặc ≥ 1,4 mg/decilít ở nữ giới": each band, up to where another
        # analyte or another clause begins
        cut = _ANALYTE.search(window)
        window = _CLAUSE_END.split(window[: cut.start()] if cut else window, maxsplit=1)[0]
        end = None
        for b in _BOUND.finditer(window):
            found = _band(analyte, b)
            if found is None:
                continue  # a bare number ("kali 20 mmol") is an amount, not a band
            last = out[-1] if end is not None else None
            inf = float("inf")
            opposite = last is not None and ((last.hi == inf and found.lo == -inf) or (last.lo == -inf and found.hi == inf))
            if opposite and last.unit == found.unit and _JOINED.fullmatch(window[end : b.start()]):
                # "INR > 5 nhưng < 9": a bound joined to an open one before it narrows the same band
                out[-1] = Threshold(analyte, max(last.lo, found.lo), min(last.hi, found.hi), last.unit)
            else:
                out.append(found)
            end = b.end()
    return out


_JOINED = re.compile(r"\s*(?:,\s*)?(?:nhung|va|con|song)?\s*")


def _band(analyte: str, b: re.Match[str]) -> Threshold | None:
    cmp, first, unit, second, unit2 = b.groups()
    unit = unit or unit2
    if cmp is None and second is None:
        return None
    lo = hi = _number(first)
    if second is not None:
        lo, hi = sorted((lo, _number(second)))
    elif cmp in _BELOW:
        lo = float("-inf")
    elif cmp in _ABOVE:
        hi = float("inf")
    lo_c, canon = _canonical(analyte, lo, unit)
    hi_c, _ = _canonical(analyte, hi, unit)
    return Threshold(analyte, lo_c, hi_c, canon)


def bears_on(sentence: str, labs: list[LabValue]) -> bool | None:
    """True when the sentence prints a band on an analyte the patient's value lies in; False when every band
    it prints on the patient's analytes excludes the value; None when it prints none on them."""
    verdict: bool | None = None
    for t in thresholds(sentence):
        for lab in labs:
            if lab.analyte != t.analyte:
                continue
            value, unit = _canonical(lab.analyte, lab.value, lab.unit)
            if unit is not None and t.unit is not None and unit != t.unit:
                return True  # units that cannot be compared: shown, its threshold says when it applies
            if t.lo <= value <= t.hi:
                return True
            verdict = False
    return verdict
