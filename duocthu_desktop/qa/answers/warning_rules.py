"""The rules that decide whether one sentence of the book bears on this patient, and how strongly it speaks.

They read the book's general words (matched with their diacritics, as the book prints them: "thai" is never
"thải") and its thresholds, parsed as comparator + number + unit and compared as numbers with the patient's Clcr
or age. A threshold the book only stresses ("đặc biệt ...", "nhất là ...") does not narrow the sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from duocthu_desktop.dosage.words import ADULT_YEARS, ELDERLY_YEARS, routes_in
from duocthu_desktop.qa.answers import drug_classes
from duocthu_desktop.qa.answers.comorbidities import Said, bears_on, said_beyond
from duocthu_desktop.qa.understanding import lab_values
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.qa.understanding.lab_values import LabValue
from duocthu_desktop.text import fold

# The patient topics a sentence can bear on; "benh_kem" is a condition the person says the patient has,
# "xet_nghiem" a lab value they give that lies in a band the sentence prints, "dang_dung" a class of medicines
# the person says the patient takes ("đang uống thuốc chống đông") that the sentence names in its own words.
TOPICS = ("mang_thai", "cho_con_bu", "tre_em", "nguoi_cao_tuoi", "can_nang", "suy_than", "suy_gan", "xet_nghiem",
          "benh_kem", "dang_dung")
_EPS = 1e-6
_NUM = r"(\d+(?:,\d+)?)"

# ---- the patient -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Patient:
    pregnant: bool = False
    trimester: int | None = None
    breastfeeding: bool = False
    age: tuple[float, float] | None = None  # years, the closed interval the patient's age lies in
    weight: float | None = None  # kg, compared with the weight thresholds the book prints ("dưới 50 kg")
    renal: bool = False
    clcr: float | None = None
    hepatic: bool = False
    said: Said | None = None  # the conditions the person says the patient has, as content words
    # the question's words with the drug's indications kept, and those indications: a contraindication the
    # question names more of than any indication is the patient's, though the indication shares some words
    said_all: Said | None = None
    indications: str = ""
    labs: tuple[LabValue, ...] = ()  # lab values given, compared with the thresholds the book prints
    route: str | None = None  # the route asked about: a sentence naming only other routes is another product
    taking: frozenset[str] = frozenset()  # keys of the medicine classes the patient is said to take
    taking_names: tuple[str, ...] = ()  # the book's names of formulary drugs the patient takes (another's dose asked)

    @classmethod
    def of(cls, frame: QueryFrame, indications: str = "") -> Patient:
        """`indications`: the drug's Chỉ định, whose conditions are why it is asked about, not warnings."""
        drugs = [*frame.drug_mentions.values(), *frame.taking_names]
        said_all = Said.of(lab_values.without_values(frame.question), drugs)
        said = said_all.without(indications)
        return cls(
            said=said if said is not None and said.any() else None,
            said_all=said_all if said_all.any() and indications else None,
            indications=indications,
            pregnant=frame.pregnant or frame.population == "mang_thai",
            trimester=frame.trimester,
            breastfeeding=frame.breastfeeding or frame.population == "cho_con_bu",
            age=_age_interval(frame),
            weight=frame.weight_kg,
            renal=frame.renal_impairment,
            clcr=frame.clcr,
            hepatic=frame.hepatic_impairment,
            labs=tuple(frame.lab_values),
            route=frame.route,
            taking=_classes_taken(frame),
            taking_names=tuple(frame.taking_names),
        )

    @property
    def child(self) -> bool:
        return self.age is not None and self.age[1] < ADULT_YEARS

    @property
    def elderly(self) -> bool:
        return self.age is not None and self.age[0] >= ELDERLY_YEARS

    def has(self, topic: str) -> bool:
        return {
            "mang_thai": self.pregnant,
            "cho_con_bu": self.breastfeeding,
            "tre_em": self.child,
            "nguoi_cao_tuoi": self.elderly,
            "can_nang": self.weight is not None,
            "suy_than": self.renal or self.clcr is not None,
            "suy_gan": self.hepatic,
            "xet_nghiem": bool(self.labs),
            "benh_kem": self.said is not None or self.said_all is not None,
            "dang_dung": bool(self.taking or self.taking_names),
        }[topic]

    def any(self) -> bool:
        return any(self.has(t) for t in TOPICS)


def _classes_taken(frame: QueryFrame) -> frozenset[str]:
    """The medicine classes the question names besides the drug asked about ("đang uống thuốc chống đông"); a
    class the drug itself belongs to ("heparin" among the anticoagulants) is the drug, not another medicine."""
    question = frame.question
    own = set()
    for name in frame.drug_mentions.values():
        own.update(c.key for c in drug_classes.with_parents(drug_classes.classes_of_member(name)))
        question = re.sub(r"(?<!\w)" + re.escape(name) + r"(?!\w)", " ", question, flags=re.IGNORECASE)
    named = {c.key for c, _ in drug_classes.class_mentions(question)}
    # "đang tiêm enoxaparin": a medicine the book has no monograph of, taken by the patient, is of its classes
    # ("Người bệnh đang dùng thuốc chống đông" bears on it)
    for name in frame.unknown_drugs:
        named.update(c.key for c in drug_classes.with_parents(drug_classes.classes_of_member(name)))
    return frozenset(named - own)


def _age_interval(frame: QueryFrame) -> tuple[float, float] | None:
    age = frame.age_years
    if age is not None:
        if frame.age_bound == "below":
            return (0.0, age - _EPS)
        if frame.age_bound == "above":
            return (age + _EPS, 150.0)
        return (age, age)
    return {
        "so_sinh": (0.0, 28 / 365),
        "tre_em": (0.0, ADULT_YEARS - _EPS),
        "nguoi_cao_tuoi": (ELDERLY_YEARS, 150.0),
    }.get(frame.population or "")


# ---- thresholds ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bound:
    lo: float
    hi: float
    stressed: bool  # "đặc biệt ... dưới 30 ml/phút": an emphasis, not a limit of the sentence

    def overlaps(self, lo: float, hi: float) -> bool:
        return lo <= self.hi and self.lo <= hi


_BELOW = {"<": False, "≤": True, "<=": True, "=<": True, r"$<$": False, r"$\leq$": True, r"$\le$": True,
          r"$\lt$": False, "dưới": False, "nhỏ hơn": False, "thấp hơn": False, "ít hơn": False,
          "không quá": True, "không vượt quá": True, "tối đa": True}
_ABOVE = {">": False, "≥": True, ">=": True, "=>": True, r"$>$": False, r"$\geq$": True, r"$\ge$": True,
          r"$\gt$": False, "trên": False, "lớn hơn": False, "cao hơn": False, "ít nhất": True,
          "tối thiểu": True, "từ": True}
_CMP = "|".join(re.escape(c) for c in sorted({**_BELOW, **_ABOVE}, key=len, reverse=True))
_RANGE = r"(?:\s*(?:-|–|đến|tới)\s*" + _NUM + r")?"
_BOUND = re.compile(r"(?:(" + _CMP + r")\s*)?" + _NUM + _RANGE + r"\s*")
_CLCR_UNIT = re.compile(r"ml\s*/\s*phút", re.IGNORECASE)
_AGE_UNIT = re.compile(r"(năm tuổi|tuổi|tháng tuổi|tuần tuổi|tháng)(?!\w)")
_AGE_SCALE = {"năm tuổi": 1.0, "tuổi": 1.0, "tháng tuổi": 1 / 12, "tuần tuổi": 1 / 52, "tháng": 1 / 12}
_RENAL_MEASURE = re.compile(r"clcr|thanh thải|lọc cầu thận|egfr|gfr|creatinin", re.IGNORECASE)
_STRESS = re.compile(r"(?:đặc biệt|nhất là)[^.;:]*$")
_CHILD_BEFORE_MONTHS = re.compile(r"(?:trẻ|sơ sinh|nhũ nhi)[^.;:]{0,25}$")


def _bounds(sentence: str, unit: re.Pattern[str], scale: dict[str, float] | None = None) -> list[tuple[Bound, int]]:
    """(bound, start) for each comparator + number (+ range) + unit of the sentence; a bare number is no bound."""
    out: list[tuple[Bound, int]] = []
    for m in _BOUND.finditer(sentence):
        u = unit.match(sentence, m.end())
        if u is None:
            continue
        cmp, a, b = m.group(1), _value(m.group(2)), m.group(3)
        factor = scale[u.group(1)] if scale else 1.0
        if scale and u.group(1) == "tháng" and not _CHILD_BEFORE_MONTHS.search(sentence[: m.start()]):
            continue  # "trong 6 tháng" is a duration; "trẻ dưới 6 tháng" an age
        if b is not None:
            lo, hi = a, _value(b)
        elif cmp in _BELOW:
            lo, hi = 0.0, a if _BELOW[cmp] else a - _EPS
        elif cmp in _ABOVE:
            lo, hi = (a if _ABOVE[cmp] else a + _EPS), 1e9
        else:
            continue
        stressed = bool(_STRESS.search(sentence[max(0, m.start() - 60) : m.start()]))
        out.append((Bound(lo * factor, hi * factor, stressed), m.start()))
    return out


def clcr_bounds(sentence: str) -> list[Bound]:
    """'Clcr < 60 ml/phút', 'tốc độ lọc cầu thận dưới 30 ml/phút', 'Clcr 10 - 50 ml/phút'."""
    return [
        b for b, start in _bounds(sentence, _CLCR_UNIT)
        if _RENAL_MEASURE.search(sentence[max(0, start - 80) : start])
    ]


def age_bounds(sentence: str) -> list[Bound]:
    """'trẻ em dưới 16 tuổi', 'trẻ em < 12 tuổi', 'người trên 65 tuổi', 'trẻ dưới 3 tháng', 'từ 2 đến 12 tuổi'."""
    return [b for b, _ in _bounds(sentence, _AGE_UNIT, _AGE_SCALE)]


# "50 kg" as a bound of the patient's weight; "1 mg/kg" is a dose per kilogram, "50 kg/m²" no weight
_KG_UNIT = re.compile(r"(kg)(?!\s*/|\w)", re.IGNORECASE)


def weight_bounds(sentence: str) -> list[Bound]:
    """'người có trọng lượng dưới 50 kg', 'trẻ cân nặng < 40 kg', 'người bệnh 10 - 30 kg'; a bare '50 kg' is none."""
    return [b for b, _ in _bounds(sentence, _KG_UNIT)]


def _value(text: str) -> float:
    return float(text.replace(",", "."))


# ---- topics --------------------------------------------------------------------------------------------------

_W = r"(?<!\w)"
_E = r"(?!\w)"
_NOT_CAUSED = r"(?<!gây )(?<!gây ra )(?<!làm )"
PREGNANCY_WORDS = re.compile(_W + r"(?:thai|tam cá nguyệt|chuyển dạ|(?:\d+|ba) tháng (?:đầu|giữa|cuối))" + _E)
LACTATION_WORDS = re.compile(_W + r"(?:bú|sữa)" + _E)
CHILD_WORDS = re.compile(_W + r"(?:trẻ(?! tuổi)|thiếu niên|nhi khoa|vị thành niên)" + _E)
NEONATE_WORDS = re.compile(_W + r"(?:trẻ sơ sinh|sơ sinh|trẻ nhũ nhi|nhũ nhi|trẻ đẻ non|trẻ sinh non|đẻ non|sinh non|trẻ non tháng|non tháng|thiếu tháng)" + _E)
ELDERLY_WORDS = re.compile(_W + r"(?:cao tuổi|người già|lớn tuổi|lão khoa|tuổi già)" + _E)
RENAL_WORDS = re.compile(
    _W + _NOT_CAUSED
    + r"(?:suy thận|bệnh thận|bệnh lý thận|(?:suy giảm|giảm|rối loạn|suy) chức năng thận"
    r"|chức năng thận (?:bị )?(?:suy|giảm|kém)|clcr|thanh thải creatinin|lọc cầu thận|creatinin huyết"
    r"|lọc máu|thẩm phân|thận nhân tạo|vô niệu|thiểu niệu|(?:suy|giảm) chức năng gan (?:hay|hoặc|và) (?:chức năng )?thận)"
    + _E,
    re.IGNORECASE,
)
HEPATIC_WORDS = re.compile(
    _W + _NOT_CAUSED
    + r"(?:suy gan|bệnh gan|bệnh lý gan|xơ gan|viêm gan|(?:suy giảm|giảm|rối loạn|suy) chức năng gan"
    r"|tổn thương gan|enzym gan|men gan|hôn mê gan)" + _E
)


def topics_of(sentence: str, patient: Patient, own_section: tuple[str, ...] | None = None,
              contraindication: bool = False) -> tuple[str, ...]:
    """The patient topics this sentence bears on ('mang_thai', 'tre_em', 'suy_than', ...), in a fixed order.
    `own_section`: the topics of a section that is wholly about them (the pregnancy or lactation section).
    `contraindication`: the sentence is one of the Chống chỉ định, where a condition the question names more of
    than of any indication is the patient's."""
    low = sentence.lower()
    if not _route_fits(sentence, patient.route):
        return ()
    found: list[str] = []
    if patient.pregnant and (own_section is None or "mang_thai" in own_section):
        if PREGNANCY_WORDS.search(low) and _trimester_fits(low, patient.trimester):
            found.append("mang_thai")
    if patient.breastfeeding and (own_section is None or "cho_con_bu" in own_section):
        if LACTATION_WORDS.search(low) or own_section:
            found.append("cho_con_bu")
    if own_section:
        return tuple(found)
    if patient.child and _age_fits(low, patient, _child_named(low, patient)):
        found.append("tre_em")
    if patient.elderly and _age_fits(low, patient, bool(ELDERLY_WORDS.search(low))):
        found.append("nguoi_cao_tuoi")
    if patient.weight is not None and _weight_fits(low, patient):
        found.append("can_nang")
    if patient.has("suy_than") and _renal_fits(low, patient):
        found.append("suy_than")
    if patient.hepatic and HEPATIC_WORDS.search(low):
        found.append("suy_gan")
    if patient.labs and lab_values.bears_on(sentence, list(patient.labs)):
        found.append("xet_nghiem")
    if patient.said is not None and bears_on(sentence, patient.said):
        found.append("benh_kem")
    elif contraindication and patient.said_all is not None and said_beyond(sentence, patient.said_all,
                                                                          patient.indications):
        found.append("benh_kem")
    if (patient.taking and patient.taking & {c.key for c in drug_classes.classes_in(sentence)}) or (
            names_drug(sentence, patient.taking_names)):
        # "đang dùng thuốc chống đông" said of the patient is the medicine taken, not also a condition they have
        found = [topic for topic in found if topic != "benh_kem"] + ["dang_dung"]
    return tuple(found)


def names_drug(sentence: str, names: tuple[str, ...] | list[str]) -> bool:
    """The sentence prints one of the names, as a whole word, folded ("Aspirin" in "... với aspirin liều cao")."""
    if not names:
        return False
    plain = fold(sentence)
    return any(len(n) >= 4 and re.search(r"(?<!\w)" + re.escape(n) + r"(?!\w)", plain)
               for n in {fold(name).strip() for name in names})


_INJECTED = ("tiem_tinh_mach", "truyen_tinh_mach", "tiem_bap", "tiem_duoi_da", "tiem_trong_da", "tiem_noi_tuy", "other")


# a product of the drug named by its route: "dung dịch nhỏ mắt", "thuốc tiêm", "dạng uống", "viên đặt"
_PRODUCT_ROUTE = re.compile(
    r"(?<!\w)(?:thuốc|dung dịch|dạng|chế phẩm|viên|kem|mỡ|gel|hỗn dịch|nhũ dịch|ống)\s+(?:\w+\s+)?"
    r"(?:nhỏ mắt|tra mắt|nhỏ mũi|bôi|tiêm(?: \w+)?|truyền|uống|đặt(?: \w+)?|xịt|hít|khí dung|đạn)(?!\w)"
)


def _route_fits(sentence: str, route: str | None) -> bool:
    """A sentence that names a product of the drug by its route bears on a patient given another route only if
    one of them is that route: "Chống chỉ định dùng dung dịch nhỏ mắt 10 % cho trẻ em" is not about the nasal
    drop asked for. A route named otherwise ("tiêm thuốc cản quang") is another drug's, and says nothing."""
    named = [r for m in _PRODUCT_ROUTE.finditer(sentence.lower()) for r in routes_in(m.group(0))]
    if route is None or not named:
        return True
    if route == "tiem":
        return any(r in _INJECTED for r in named)
    return route in named or (route in _INJECTED and "other" in named)


def _child_named(low: str, patient: Patient) -> bool:
    """The sentence names children; one that names only neonates or infants does not name an older child."""
    if CHILD_WORDS.search(NEONATE_WORDS.sub(" ", low)):
        return True
    return bool(NEONATE_WORDS.search(low)) and patient.age is not None and patient.age[0] < 1.0


def _age_fits(low: str, patient: Patient, named: bool) -> bool:
    hard = [b for b in age_bounds(low) if not b.stressed]
    if hard and patient.age is not None:
        return any(b.overlaps(*patient.age) for b in hard)
    return named


def _weight_fits(low: str, patient: Patient) -> bool:
    """The sentence bounds a weight the patient's lies in. A bound it draws for children ("trẻ cân nặng dưới 40
    kg") is not an adult's, when the patient's age says he is one."""
    # a weight stressed ("người đặc biệt có nguy cơ chảy máu (cân nặng dưới 50 kg, ...)") still names whom the
    # sentence is about: no other words of it name a weight
    hard = weight_bounds(low)
    if not hard or patient.weight is None:
        return False
    if patient.age is not None and not patient.child and _child_named(low, patient):
        return False
    return any(b.overlaps(patient.weight, patient.weight) for b in hard)


def _renal_fits(low: str, patient: Patient) -> bool:
    hard = [b for b in clcr_bounds(low) if not b.stressed]
    if hard:
        # no Clcr given: the sentence is shown, its own threshold says when it applies
        return patient.clcr is None or any(b.overlaps(patient.clcr, patient.clcr) for b in hard)
    return patient.renal and bool(RENAL_WORDS.search(low))


# ---- trimesters ------------------------------------------------------------------------------------------------

_MONTHS = re.compile(_W + r"(\d+|ba) tháng (đầu|giữa|cuối)" + _E)
_TAM_CA = re.compile(r"tam cá nguyệt (?:thứ )?(nhất|đầu|1|i|hai|giữa|2|ii|ba|cuối|3|iii)" + _E)
_TAM_CA_N = {"nhất": 1, "đầu": 1, "1": 1, "i": 1, "hai": 2, "giữa": 2, "2": 2, "ii": 2, "ba": 3, "cuối": 3,
             "3": 3, "iii": 3}
_WEEK_SPAN = re.compile(_W + r"tuần (?:thứ )?(\d+)(?:\s*[-–]\s*(\d+))?")
_FIRST_WEEKS = re.compile(_W + r"(\d+) tuần đầu")
_LATE = re.compile(r"cuối thai kỳ|đủ tháng|gần ngày sinh|sắp sinh|chuyển dạ|lúc đẻ|khi đẻ")
_EARLY = re.compile(r"đầu thai kỳ")


def trimesters_named(low: str) -> set[int]:
    """The trimesters a sentence speaks of ('3 tháng giữa và 3 tháng cuối' -> {2, 3}); empty when it is general."""
    named: set[int] = set()
    for m in _MONTHS.finditer(low):
        n = 3 if m.group(1) == "ba" else int(m.group(1))
        months = {"đầu": range(1, n + 1), "cuối": range(10 - n, 10), "giữa": range(4, 7)}[m.group(2)]
        named |= {min(3, max(1, (mo + 2) // 3)) for mo in months}
    named |= {_TAM_CA_N[m.group(1)] for m in _TAM_CA.finditer(low)}
    for m in _WEEK_SPAN.finditer(low):
        first, last = int(m.group(1)), int(m.group(2) or m.group(1))
        named |= {_week_trimester(w) for w in (first, last)}
    for m in _FIRST_WEEKS.finditer(low):
        named |= {_week_trimester(w) for w in (1, int(m.group(1)))}
    if _LATE.search(low):
        named.add(3)
    if _EARLY.search(low):
        named.add(1)
    return named


def _week_trimester(week: int) -> int:
    return 1 if week <= 13 else 2 if week <= 27 else 3


def _trimester_fits(low: str, trimester: int | None) -> bool:
    if trimester is None:
        return True
    named = trimesters_named(low)
    return not named or trimester in named


# ---- strength ---------------------------------------------------------------------------------------------------

_FORBIDS = re.compile(
    r"chống chỉ định|không được (?:dùng|sử dụng|chỉ định|uống|tiêm)|không (?:dùng|sử dụng)(?!\w)|cấm dùng"
)
_AVOIDS = re.compile(
    r"tránh|không nên|không (?:được )?khuyến cáo|hạn chế|ngừng|thay thế|phải (?:điều trị|dùng) bằng"
    r"|chỉ (?:nên |được )?(?:dùng|sử dụng|chỉ định|cho)\b"
    r"|giảm liều|điều chỉnh liều|thận trọng|cân nhắc"
)
_HARMS = re.compile(r"nguy cơ|gây|độc|tử vong|tổn thương|dị tật|chưa (?:được )?xác định|chưa rõ|theo dõi")
_NOT_FORBIDDEN = re.compile(r"không (?:phải là |bị )?chống chỉ định")


def strength(sentence: str) -> int:
    """0 forbids, 1 tells to avoid or limit, 2 warns of harm or uncertainty, 3 anything else (reassuring)."""
    low = _NOT_FORBIDDEN.sub(" ", sentence.lower())
    if _FORBIDS.search(low):
        return 0
    if _AVOIDS.search(low):
        return 1
    if _HARMS.search(low):
        return 2
    return 3
