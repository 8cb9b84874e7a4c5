"""Patient facts the safety warnings need beyond age, weight and Clcr: the trimester, kidney and liver disease,
and an age given as a bound ("trẻ em dưới 16 tuổi").

`add_patient_facts` runs at the end of `understanding.understand`. Phrases are matched with diacritics where the
person typed them and folded only where they typed none, so "gần đây" never reads as "gan"; a fact preceded by
"không" or "chưa" ("không suy thận") is not a fact.
"""

from __future__ import annotations

import re

from duocthu_desktop.dosage.words import NORMAL_CLCR
from duocthu_desktop.qa.answers.comorbidities import Said
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.qa.understanding.lab_values import lab_values
from duocthu_desktop.qa.understanding.lexicon import CONDITION_TRIGGERS, PURPOSE_TRIGGERS
from duocthu_desktop.qa.understanding.textmatch import Text, find, first_of
from duocthu_desktop.text import fold

# Clcr (ml/phút) from which kidney function counts as normal.
# Serum creatinine above which kidney function is impaired (adult upper limit of normal).
CREATININE_NORMAL_MG_DL = 1.3
CREATININE_NORMAL_UMOL_L = 115.0
_CREATININE = re.compile(
    r"creatinin(?:e)?(?:\s+(?:huyet thanh|huyet|mau|mau))?\s*(?:la|=|:)?\s*(\d+(?:[.,]\d+)?)\s*"
    r"(mg\s*/\s*(?:dl|decilit)|(?:µ|u|micro)mol\s*/\s*l)"
)

TRIMESTER_PHRASES: tuple[tuple[str, int], ...] = (
    ("3 tháng đầu", 1), ("ba tháng đầu", 1), ("tam cá nguyệt thứ nhất", 1), ("tam cá nguyệt thứ 1", 1),
    ("tam cá nguyệt đầu", 1), ("tam cá nguyệt i", 1), ("đầu thai kỳ", 1),
    ("3 tháng giữa", 2), ("ba tháng giữa", 2), ("tam cá nguyệt thứ hai", 2), ("tam cá nguyệt thứ 2", 2),
    ("tam cá nguyệt giữa", 2), ("tam cá nguyệt ii", 2), ("giữa thai kỳ", 2),
    ("3 tháng cuối", 3), ("ba tháng cuối", 3), ("tam cá nguyệt thứ ba", 3), ("tam cá nguyệt thứ 3", 3),
    ("tam cá nguyệt cuối", 3), ("tam cá nguyệt iii", 3), ("cuối thai kỳ", 3), ("sắp sinh", 3), ("sắp đẻ", 3),
)
# Words that make a trimester phrase about pregnancy on their own ("3 tháng đầu" alone may be of treatment).
_PREGNANCY_CONTEXT = ("tam cá nguyệt", "thai kỳ", "thai", "bầu", "sắp sinh", "sắp đẻ")
# "thai 8 tuần", "bầu 7 tháng", "mang thai tuần thứ 30", "thai tháng thứ 5" (folded: digits carry the meaning).
_GESTATION = re.compile(
    r"(?:thai|bau)\s+(?:(?:duoc|dang|o|khoang|da|roi)\s+)*"
    r"(?:(tuan|thang)\s+thu\s+(\d+)|(\d+)\s*(tuan|thang))"
)

RENAL_PHRASES: tuple[str, ...] = (
    "suy thận", "bệnh thận", "suy giảm chức năng thận", "suy chức năng thận", "giảm chức năng thận", "rối loạn chức năng thận",
    "chức năng thận kém", "chức năng thận suy giảm", "chức năng thận giảm", "thận yếu", "yếu thận",
    "lọc máu", "chạy thận", "thẩm phân", "thận nhân tạo", "bệnh thận mạn", "suy thận mạn", "vô niệu", "thiểu niệu",
)
HEPATIC_PHRASES: tuple[str, ...] = (
    "suy gan", "bệnh gan", "xơ gan", "viêm gan", "suy giảm chức năng gan", "suy chức năng gan", "giảm chức năng gan",
    "rối loạn chức năng gan", "chức năng gan kém", "tổn thương gan", "tăng men gan", "men gan cao",
    "gan nhiễm mỡ", "ung thư gan",
)
_NEGATED = re.compile(r"(?:không|khong|chưa|chua)(?:\s+(?:bị|bi|có|co|mắc|mac))?\s*$")
# Folded "gan day" is "gần đây", never the liver.
_NOT_LIVER_AFTER = re.compile(r"\s+day(?!\w)")

_AGE_BOUND = re.compile(r"(duoi|nho hon|be hon|<|≤|tren|lon hon|>|≥|tu)\s*(\d+(?:[.,]\d+)?)\s*tuoi(\s+tro len)?")
_BELOW_WORDS = ("duoi", "nho hon", "be hon", "<", "≤")


def add_patient_facts(frame: QueryFrame, text: str) -> QueryFrame:
    """The frame with trimester, renal and hepatic impairment and the age bound read from `text` (in place)."""
    words = Text.of(text)
    _mother_and_baby(frame, words)
    frame.renal_impairment = _any_fact(words, RENAL_PHRASES) or (
        frame.clcr is not None and frame.clcr < NORMAL_CLCR
    ) or _creatinine_raised(words)
    frame.hepatic_impairment = _any_fact(words, HEPATIC_PHRASES, liver=True)
    frame.lab_values = lab_values(text)
    trimester = extract_trimester(words, frame.pregnant)
    if trimester is not None:
        frame.trimester = trimester
        frame.pregnant = True
    frame.age_bound = _age_bound(words, frame.age_years)
    if frame.turn_type == "unknown" and frame.drug_ids and frame.section_key is None and _names_its_purpose(words):
        # "amoxicilin dự phòng viêm nội tâm mạc người lớn", "aciclovir điều trị thủy đậu": the indication the drug
        # is given for, so its dose there (a disease the patient has besides is the matter of what follows)
        frame.section_key = "lieu_luong_cach_dung"
        frame.turn_type = "dosing"
    if (
        frame.turn_type == "unknown"
        and frame.drug_ids
        and frame.section_key is None
        and (frame.renal_impairment or frame.hepatic_impairment or frame.trimester is not None
             or frame.lab_values or _names_a_condition(frame))
    ):
        # "Người suy gan dùng paracetamol được không?": whether this patient may use it is first a matter of the
        # drug's contraindications.
        frame.section_key = "chong_chi_dinh"
        frame.turn_type = "drug_attribute"
    return frame


# "Mẹ đang cho con 3 tháng tuổi bú": the mother breastfeeds; the age is the baby's, not the patient's
_BREASTFEEDS = re.compile(r"\bcho (?:con|be|tre) (?:\w+ ){0,4}?bu\b|\b(?:me|nguoi me)\b.*\bbu\b")
_BABY_AGE = re.compile(r"\b(?:con|be|chau)(?: nha)? (\d+(?:[.,]\d+)? (?:ngay|tuan|thang|nam) tuoi|\d+ (?:ngay|tuan|thang))")


def _mother_and_baby(frame: QueryFrame, text: Text) -> None:
    if not _BREASTFEEDS.search(text.folded):
        return
    frame.breastfeeding = True
    baby = _BABY_AGE.search(text.folded)
    if baby and frame.age_text and fold(frame.age_text) in baby.group(0):
        frame.age_years = frame.age_text = None
        if frame.population in ("tre_em", "so_sinh"):
            frame.population = "cho_con_bu"


def _creatinine_raised(text: Text) -> bool:
    """'creatinin huyết thanh 2,5 mg/dl', 'creatinin 180 µmol/l': a serum creatinine above the upper limit of
    normal is a kidney impairment, whatever threshold the book then prints."""
    for m in _CREATININE.finditer(text.folded):
        value = float(m.group(1).replace(",", "."))
        unit = m.group(2)
        if value > (CREATININE_NORMAL_MG_DL if unit.startswith("mg") else CREATININE_NORMAL_UMOL_L):
            return True
    return False


def _names_its_purpose(text: Text) -> bool:
    """The condition the question names is introduced as what the drug is for ("điều trị ...", "dự phòng ...")."""
    hit = first_of(text, CONDITION_TRIGGERS)
    return hit is not None and hit[0] in PURPOSE_TRIGGERS


def _names_a_condition(frame: QueryFrame) -> bool:
    """'Bệnh nhân có tiền sử hen phế quản có dùng aspirin được không?': the patient's own condition, asked about
    a drug, is first a matter of the drug's contraindications."""
    return Said.of(frame.question, list(frame.drug_mentions.values())).any()


def extract_trimester(text: Text, pregnant: bool = False) -> int | None:
    """1-3 from '3 tháng đầu', 'tam cá nguyệt thứ hai', 'thai 30 tuần', 'bầu 5 tháng'; None when not said."""
    in_context = pregnant or any(find(text, w, strict=True) for w in _PREGNANCY_CONTEXT)
    for phrase, trimester in TRIMESTER_PHRASES:
        if in_context and find(text, phrase, strict=True):
            return trimester
    m = _GESTATION.search(text.folded)
    if m:
        unit = m.group(1) or m.group(4)
        digits = m.group(2) or m.group(3)
        value = int(digits) if len(digits) <= 3 else 0  # a 5000-digit run is no week (int() refuses it)
        if unit == "tuan" and 1 <= value <= 42:
            return 1 if value <= 13 else 2 if value <= 27 else 3
        if unit == "thang" and 1 <= value <= 10:
            return min(3, (value + 2) // 3)
    return None


def _any_fact(text: Text, phrases: tuple[str, ...], liver: bool = False) -> bool:
    for phrase in phrases:
        m = find(text, phrase, strict=True)
        if m is None:
            continue
        haystack = text.norm if text.accented else text.folded
        if _NEGATED.search(haystack[: m.start()]):
            continue
        if liver and not text.accented and _NOT_LIVER_AFTER.match(haystack, m.end()):
            continue
        return True
    return False


def _age_bound(text: Text, age_years: float | None) -> str | None:
    """'below' for 'dưới 16 tuổi', 'above' for 'trên 65 tuổi' / 'từ 65 tuổi trở lên', when that is the age read."""
    if age_years is None:
        return None
    for m in _AGE_BOUND.finditer(fold(text.norm)):
        if float(m.group(2).replace(",", ".")) != age_years:
            continue
        word = m.group(1)
        if word == "tu":
            return "above" if m.group(3) else None
        return "below" if word in _BELOW_WORDS else "above"
    return None
