"""Which dose statements fit one patient: a filter over `DoseRow`s, with the rules stated once.

- Route: a route the person gave keeps only rows whose route includes it (an injection with no site keeps every
  injection route; "tiêm tĩnh mạch" keeps infusion too); rows with no route stay only when the section names a
  single route. No row for that route: the book gives no dose for it (say so, offer the routes it has).
- Group: population, age, weight and gestational weeks are compared as numbers with their units against each
  row's bounds (15 tuổi is outside "3 tháng - 12 tuổi"); a row that bounds nothing fits its population.
- Indication (after the route): a condition the person named keeps the rows under a matching indication, or
  naming it; when none matches, the rows the book gives for no indication in particular.
- Renal: a Clcr keeps the renal rows whose band holds it, and drops the normal-function doses; no Clcr and no
  kidney disease drops the renal rows. Likewise hepatic rows only for liver disease.
- Size: past `MAX_ROWS` statements, ask for the missing fact (route, indication, age/weight) instead of listing.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field, replace
from functools import lru_cache

from duocthu_desktop.dosage.parser import classify, groups_together
from duocthu_desktop.dosage.rows import AgeBound, DoseRow, WeightBound
from duocthu_desktop.dosage.titles import indication_name
from duocthu_desktop.dosage.words import (
    ADULT_YEARS,
    ELDERLY_YEARS,
    NEONATE_YEARS,
    NORMAL_CLCR,
    POPULATION_PATTERNS,
    ROUTE_FAMILY,
    ROUTE_NAMES,
    age_in,
    child_pugh_grades,
    kind_asked,
    names_dialysis,
    renal_in,
    routes_in,
    weight_in,
)
from duocthu_desktop.qa.understanding.extractors import routes_ruled_out
from duocthu_desktop.qa.understanding.lexicon import (
    GREEK_FORM,
    INSTRUCTION_TOPICS,
    condition_variants,
    expand_abbreviations,
)
from duocthu_desktop.qa.understanding.section_asked import without_names
from duocthu_desktop.qa.understanding.textmatch import Text, find, words_agree
from duocthu_desktop.text import fold

MAX_ROWS = 8
INJECTION = frozenset({"tiem_tinh_mach", "truyen_tinh_mach", "tiem_bap", "tiem_duoi_da", "tiem_trong_da",
                       "tiem_noi_tuy"})
IV = frozenset({"tiem_tinh_mach", "truyen_tinh_mach"})
# Heavier than any newborn: a patient of this weight is never in a neonate's band (term newborns weigh 2.5-4.5 kg)
NEONATE_MAX_KG = 8.0
# an unlabelled weight band whose upper bound is at most this ("Người dưới 40 kg") doses children
CHILD_MAX_KG = 40.0
_ROUTE_ALIASES = {"xit": "hit"}
DOSE_KINDS = frozenset({"dose", "max_dose", "loading_dose", "adjustment"})


@dataclass
class Patient:
    """The facts a dose depends on, as the question gave them."""

    route: str | None = None
    population: str | None = None
    age_years: float | None = None
    weight_kg: float | None = None
    gestational_weeks: float | None = None
    clcr: float | None = None
    renal_impairment: bool = False
    dialysis: bool = False
    hepatic_impairment: bool = False
    condition: str | None = None
    question: str = ""  # the question's own words, drug names taken out: an indication may be named there
    kind: str | None = None  # a dose kind the question asks for ("liều nạp", "liều tối đa")
    ruled_out: tuple[str, ...] = ()  # routes the patient cannot take ("không uống được thuốc")
    product: tuple[str, str] | None = None  # the form named by its Greek letter ("X beta"): (stem, letter)

    @property
    def is_child(self) -> bool:
        young = self.age_years is not None and self.age_years < ADULT_YEARS
        return self.population in ("tre_em", "so_sinh") or young or self.gestational_weeks is not None

    @classmethod
    def from_frame(cls, frame) -> Patient:
        return cls(
            route=_ROUTE_ALIASES.get(frame.route, frame.route) if frame.route else None,
            # "thai 34 tuần", "sản phụ ... 3 tháng cuối": pregnant by the weeks or the trimester, with no group word
            population=frame.population or ("mang_thai" if getattr(frame, "pregnant", False) else None),
            age_years=frame.age_years,
            weight_kg=frame.weight_kg,
            gestational_weeks=frame.gestational_weeks,
            clcr=frame.clcr,
            renal_impairment=bool(getattr(frame, "renal_impairment", False)) or frame.clcr is not None,
            hepatic_impairment=bool(getattr(frame, "hepatic_impairment", False)),
            dialysis=names_dialysis(frame.question),
            condition=frame.condition,
            # "phác đồ diệt HP", "bn THA": the clinician's abbreviations written out, as the headings print them
            question=expand_abbreviations(without_names(frame.question, list(frame.drug_mentions.values()))),
            kind=kind_asked(frame.question),
            ruled_out=tuple(routes_ruled_out(Text.of(frame.question))),
            product=next(iter(products_named(frame.question)), None),
        )


@dataclass
class Fit:
    """The rows that fit, or the fact to ask for first."""

    rows: list[DoseRow] = field(default_factory=list)
    ask_route: list[str] = field(default_factory=list)  # routes the book gives, when the person must choose
    no_dose_for_route: bool = False  # the person's route has no dose in the book
    ask_indication: list[str] = field(default_factory=list)
    ask_age_or_weight: bool = False
    ask_population: bool = False  # the section doses adults and children differently and the group is unknown
    other_indications: list[str] = field(default_factory=list)  # offered as quick replies beside the answer
    notes: list[str] = field(default_factory=list)  # Vietnamese sentences for the message
    # the rows are what the book says for this patient's own group or organ (the elderly, pregnancy, a renal or
    # hepatic band), not the usual doses: they stand even beside a contraindication for that group
    specific: bool = False
    how_to: bool = False  # the question asks how to take the drug (a missed dose, with meals): its instructions

    @property
    def quarantined(self) -> bool:
        return any(r.quarantined for r in self.rows)


def route_matches(wanted: str, row_routes: list[str]) -> bool:
    if wanted == "tiem":
        return bool(INJECTION & set(row_routes)) or "other" in row_routes
    if wanted in IV:
        return bool(IV & set(row_routes))
    return wanted in row_routes


def fits_group(row: DoseRow, p: Patient) -> bool:
    """The row's group holds this patient (unknown facts never rule a row out)."""
    age = p.age_years
    pop = p.population
    if pop in ("mang_thai", "cho_con_bu"):
        if row.population == pop:
            return True  # "Ở phụ nữ mang thai: 15 mg/kg/lần": the book's dose for this very group
        pop = "nguoi_lon"
    if row.population is not None and pop is not None:
        same = row.population == pop or (
            pop == "nguoi_cao_tuoi" and row.population == "nguoi_lon"
        ) or (pop == "so_sinh" and row.population == "tre_em" and row.age is not None) or (
            pop == "tre_em" and row.population == "so_sinh" and age is not None and age <= NEONATE_YEARS
        ) or (pop == "tre_em" and age is not None and _adults_from_childhood(row))
        if not same:
            return False
    if row.population == "nguoi_lon" and age is not None and age < ADULT_YEARS and not _adults_from_childhood(row):
        return False
    if row.population in ("tre_em", "so_sinh") and age is not None and age > ADULT_YEARS:
        return False
    if row.population == "so_sinh" and age is None and p.weight_kg is not None and p.weight_kg > NEONATE_MAX_KG:
        return False  # "nặng 45 kg" is no neonate, whatever else the question leaves out
    bands = alternative_bands(row) or [(row.age, row.weight_kg or heading_weight(row))]
    return any(_fits_band(age_bound, weight, p) for age_bound, weight in bands)


# "cân nặng ít nhất 50 kg": a lower bound in words
_AT_LEAST_KG = re.compile(r"(?<!\w)(?:ít nhất|tối thiểu|không dưới|từ)\s*(\d+(?:,\d+)?)\s*kg(?!\w)", re.I)


def heading_weight(row: DoseRow) -> WeightBound | None:
    """The weight bound of the nearest heading above the row that prints one ("Người bệnh từ 16 - 64 tuổi, cân
    nặng ít nhất 50 kg ..."), when the row bounds none itself."""
    for heading in reversed(row.headings):
        bound = weight_in(heading)
        if bound is None:
            m = _AT_LEAST_KG.search(heading)
            bound = WeightBound(min=float(m.group(1).replace(",", "."))) if m else None
        if bound is not None:
            return bound
    return None


# The book saying a use is not established for a group ("... chưa được xác lập"); not a use allowed after all
# ("Không khuyến cáo ..., nhưng khi thật cần thiết, có thể ...")
_NOT_ESTABLISHED = re.compile(r"chua (?:duoc )?(?:xac lap|xac dinh|thiet lap)")
_ALLOWED_AFTER_ALL = re.compile(r"(?<![a-z])(?:nhung|tuy nhien|tru khi|khi (?:that )?can)(?![a-z])")


def _not_established_for_age(candidates: list[DoseRow], p: Patient) -> list[DoseRow]:
    """The statements bounded to the child's own age that say its use there is not established."""
    if p.age_years is None:
        return []
    return [r for r in candidates if r.kind == "instruction" and r.age is not None and not r.age.gestational
            and _fits_band(r.age, None, p) and _NOT_ESTABLISHED.search(text := fold(r.text))
            and not _ALLOWED_AFTER_ALL.search(text)]


def _fits_band(age_bound: AgeBound | None, weight: WeightBound | None, p: Patient) -> bool:
    age = p.age_years
    if age_bound is not None:
        if age_bound.gestational:
            if p.gestational_weeks is not None and not _within(p.gestational_weeks, age_bound.min, age_bound.max):
                return False
            if p.gestational_weeks is None and age is not None and age > NEONATE_YEARS:
                return False
        elif age is not None:
            lo, hi = age_bound.years()
            if not _within(age, lo, hi):
                return False
        elif p.gestational_weeks is not None or p.population == "so_sinh":
            # a neonate (weeks of gestation, or "sơ sinh" with no age in days) is under a band that starts after
            # the newborn period ("Trẻ từ 1 tháng - 1 tuổi")
            lo, _ = age_bound.years()
            if lo is not None and lo > NEONATE_YEARS:
                return False
    if weight is not None and p.weight_kg is not None:
        if not _within(p.weight_kg, weight.min, weight.max):
            return False
    return True


# "trẻ < 1 tuần có cân nặng > 2 kg và trẻ ≥ 1 tuần có cân nặng 1,2 - 2 kg: 75 mg/kg": two bands, one dose. A part
# after "và"/"hoặc" is a band of its own only when it names its own group ("trẻ", "người bệnh"), not "và cân nặng".
_OR_BANDS = re.compile(r",?\s+(?:và|hoặc)\s+(?=(?:các\s+)?(?:trẻ|người|bệnh nhân|bệnh nhi|sơ sinh)\b)", re.I)


@lru_cache(maxsize=4096)
def _bands_of(label: str) -> tuple[tuple[AgeBound | None, WeightBound | None], ...]:
    parts = _OR_BANDS.split(label)
    if len(parts) < 2:
        return ()
    bands = tuple((age_in(part, True), weight_in(part)) for part in parts)
    if not all(a is not None or w is not None for a, w in bands):
        return ()
    return bands


def alternative_bands(row: DoseRow) -> list[tuple[AgeBound | None, WeightBound | None]]:
    """The bands an opening label joins with "và"/"hoặc", each naming its own group and bound: the row is for
    whoever fits any of them. [] when the label names one band."""
    head, colon, _ = row.text.partition(":")
    if not colon or len(head) > 200:
        return []
    return list(_bands_of(head))


def fits_renal(row: DoseRow, p: Patient) -> bool | None:
    """True: a renal row for this clearance; False: ruled out; None: not a renal row."""
    if row.renal is None:
        return None
    if not p.renal_impairment and not p.dialysis:
        return False
    if p.dialysis:
        # a renal table printing a dialysis row among its bands holds this patient's dose (read on the page)
        return row.renal.dialysis or (row.quarantined and names_dialysis(row.text))
    if p.clcr is None or row.renal.dialysis:
        return not row.renal.dialysis or p.clcr is None
    if row.renal.clcr_min is None and row.renal.clcr_max is None:
        held = _clearance_table_holds(row, p.clcr) if row.quarantined else None
        if held is not None:
            return held  # a renal table none of whose printed bands holds this Clcr is another patient's
        # "có thể có suy giảm chức năng thận" printed without a number: a normal clearance is not in it
        return p.clcr < NORMAL_CLCR
    return _within(p.clcr, row.renal.clcr_min, row.renal.clcr_max)


def _clearance_table_holds(row: DoseRow, clcr: float) -> bool | None:
    """Does one of a renal table's printed clearance bands ("11 - 40", "Dưới 5") hold this Clcr? None when the
    header's first cell names no clearance or fewer than two first cells read as bands."""
    lines = [line for line in row.text.split("\n") if line.strip()]
    if len(lines) < 3 or not _CLEARANCE_HEADER.search(fold(lines[0].split("|")[0])):
        return None
    bands = [b for b in (table_cell_band(line.split("|")[0]) for line in lines[1:]) if b]
    if len(bands) < 2:
        return None
    return any(lo <= clcr <= hi for lo, hi in bands)


# a label that joins a weight bound and the kidneys as either: "< 50 kg và/hoặc có chức năng thận suy giảm"
_WEIGHT_OR_KIDNEY = re.compile(r"kg,?\s+(?:và\s*/\s*)?hoặc\s.*thận", re.I)


def _renal_or_weight(row: DoseRow, p: Patient) -> bool:
    """A band the book draws by a weight and/or a kidney ("Người bệnh < 50 kg và/hoặc có chức năng thận suy
    giảm"): a patient whose given weight is in it is in the band, whatever his kidneys."""
    if row.renal is None or row.weight_kg is None or p.weight_kg is None:
        return False
    head, colon, _ = row.text.partition(":")
    labels = [*row.headings, head if colon and len(head) <= 120 else ""]
    if not any(_WEIGHT_OR_KIDNEY.search(label) for label in labels):
        return False
    return _within(p.weight_kg, row.weight_kg.min, row.weight_kg.max)


_NORMAL_KIDNEYS = re.compile(r"(?:chức năng )?thận bình thường", re.I)


def _for_normal_kidneys(row: DoseRow) -> bool:
    """The row's own label ("Liều thông thường người lớn ..., chức năng thận bình thường, ...: ...") draws its band
    by normal kidney function."""
    head, colon, _ = row.text.partition(":")
    return bool(colon and len(head) <= 200 and _NORMAL_KIDNEYS.search(head))


def _in_band_by_kidney(row: DoseRow, p: Patient) -> bool:
    """The other half of a weight-and/or-kidney band: a kidney patient this renal row fits is in it whatever his
    weight ("Người bệnh < 50 kg và/hoặc có chức năng thận bị suy giảm" doses a 60 kg patient with impaired
    kidneys); his age and group are still compared."""
    if row.renal is None or row.weight_kg is None or p.weight_kg is None or fits_renal(row, p) is not True:
        return False
    head, colon, _ = row.text.partition(":")
    labels = [*row.headings, head if colon and len(head) <= 120 else ""]
    return any(_WEIGHT_OR_KIDNEY.search(label) for label in labels) and fits_group(row, replace(p, weight_kg=None))


def _within(value: float, lo: float | None, hi: float | None) -> bool:
    return (lo is None or value >= lo - 1e-9) and (hi is None or value <= hi + 1e-9)


# Words that name no disease by themselves ("viêm", "nhiễm khuẩn"): an indication must share a specific word.
_GENERIC_CONDITION_WORDS = frozenset(
    "viem nhiem khuan benh chung hoi trieu cap man tinh do va o cho nguoi tre em lon bi dieu tri phong du kem theo"
    " khong co".split()
)


def indication_matches(condition: str, row: DoseRow) -> bool:
    """At least half of the person's specific condition words (none of them generic) stand as whole words in the
    row's indication, headings or own words, diacritics folded ("trạng" is not "tràng")."""
    return indication_score(condition, row) >= 0.5


def indication_score(condition: str, row: DoseRow) -> float:
    """The share of the condition's specific words that stand in the indication the row is under. Words are
    compared as written when the person typed diacritics ("đậu" is not "đầu"), folded when they typed none."""
    typed = fold(condition) != condition.lower()
    words = [w for w in re.findall(r"\w+", condition.lower()) if len(w) > 1]
    specific = [w for w in words if fold(w) not in _GENERIC_CONDITION_WORDS] or words
    if not specific:
        return 0.0
    # the indications the row is under (not a phase or a severity within one: "Trong giai đoạn đầu có sốt" is
    # Kawasaki disease, not fever); only a row under none is matched by its own words and labels
    under = [h for h in row.headings if _is_indication_heading(h)]
    label = _opening_label(row)
    text = row.text[len(label) + 1 :] if label and not _is_indication_heading(label) else row.text
    where = " ".join([row.indication, *under, text]) if row.indication else " ".join([*row.headings, row.text])
    target = set(re.findall(r"\w+", where.lower() if typed else fold(where)))
    return sum(1 for w in specific if (w if typed else fold(w)) in target) / len(specific)


PRODUCT_STEM_MIN_LETTERS = 4  # "X alpha": a drug's stem, not a short word before a Greek letter


def products_named(text: str) -> list[tuple[str, str]]:
    """The Greek-letter forms a text names ("X alpha", "X zeta"; "alfa" as the box spells it), in order, as
    (stem, letter)."""
    return list(dict.fromkeys((m.group(1), m.group(2).replace("alfa", "alpha"))
                              for m in GREEK_FORM.finditer(fold(text))
                              if len(m.group(1)) >= PRODUCT_STEM_MIN_LETTERS))


def _for_product(rows: list[DoseRow], p: Patient) -> list[DoseRow]:
    """For a form asked by its letter ("X beta"), the statements that name only other forms of the same stem
    ("Liều khởi đầu của X alpha hoặc X zeta ...", under "X alpha:") are another product's;
    those naming it or no form stay."""
    if p.product is None:
        return rows
    kept = []
    for r in rows:
        named = {f for f in products_named(" ".join([*r.headings[-1:], r.text])) if f[0] == p.product[0]}
        if not named or p.product in named:
            kept.append(r)
    return kept or rows


def choose(rows: list[DoseRow], p: Patient) -> Fit:
    """The rows of one dosage section that fit the patient, in the book's order, or what to ask first."""
    fit = Fit()
    rows = _kind_bands(_for_product(rows, p))
    instructions = _instructions_asked(rows, p)
    if instructions:
        fit.rows, fit.how_to = instructions, True
        return fit
    tables = _tables_asked(rows, p)
    if tables:
        # "APTT 55 giây thì chỉnh thế nào?": the table whose header prints what the question measures answers it,
        # whatever else the patient's group or route would need for the other doses
        fit.rows = tables
        return fit
    # doses, and for an impaired organ also what the book tells to do ("Suy gan: ... dùng liều thấp", "Clcr < 30
    # ml/phút không được dùng viên 875 mg"): guidance for this very patient
    candidates = [r for r in rows if r.kind in DOSE_KINDS or _specific(r)
                  or (r.hepatic and p.hepatic_impairment) or (r.renal is not None and fits_renal(r, p) is True)]
    by_weight = [r for r in candidates if _renal_or_weight(r, p)]
    if p.renal_impairment and p.clcr is None and not p.dialysis:
        named = _asked_indication([r for r in candidates if r.renal is None], p)
        if named and all(r.indication and "thận" in r.indication.lower() for r in named):
            # "bệnh thận do đái tháo đường" is the disease treated (an indication the book names), not a band
            p = replace(p, renal_impairment=False)
    # organ: renal rows only for a kidney patient, and then instead of the normal-function doses
    renal = [r for r in candidates if fits_renal(r, p) is True]
    if (p.clcr is not None or p.dialysis or p.renal_impairment) and renal:
        fit.specific = True
        # the renal bands only: a normal-function ceiling beside them would read as this patient's limit
        liver = [r for r in candidates if p.hepatic_impairment and r.hepatic and r not in renal]
        candidates = _by_dialysis_kind(_by_clearance(renal, p), p) + liver
    else:
        # a heading for both organs ("Suy thận hoặc suy gan: Liều ... phải giảm") speaks to a liver patient too,
        # but not its clearance bands
        candidates = [r for r in candidates if r.renal is None or fits_renal(r, p) or r in by_weight
                      or (p.hepatic_impairment and r.hepatic and _no_clearance(r))]
        if by_weight:
            # the patient is in the "< 50 kg và/hoặc thận suy giảm" band by his weight: the band the book draws
            # beside it for normal kidneys ("..., chức năng thận bình thường: Khởi đầu 20 mg") is not his
            candidates = [r for r in candidates if r in by_weight or not _for_normal_kidneys(r)]
        if p.clcr is not None and p.clcr < NORMAL_CLCR:
            fit.notes.append("Dược thư không ghi mức điều chỉnh liều theo Clcr ở phần liều lượng; "
                             "dưới đây là liều sách ghi, cần đối chiếu phần Thận trọng.")
    hepatic = [r for r in candidates if r.hepatic]
    if p.hepatic_impairment and hepatic:
        # what the book says for an impaired liver, not the usual doses; for a patient whose kidneys are impaired
        # too, beside the renal bands chosen for him ("< 10 có kèm rối loạn chức năng gan" is a renal table's line)
        kidneys = [r for r in candidates if not r.hepatic] if fit.specific else []
        fit.specific = True
        candidates = kidneys + _by_liver_grade(hepatic, p)
    else:
        # a heading for both organs ("Suy thận hoặc suy gan:") doses a kidney patient too
        candidates = [r for r in candidates if not r.hepatic or (fit.specific and r.renal is not None)]
    candidates.sort(key=rows.index)
    # group: with no fact about the patient's group, the rows are first narrowed by what was given (route,
    # indication), and the group is asked only when what remains doses children and adults differently
    known = not (p.population is None and p.age_years is None and p.weight_kg is None and p.gestational_weeks is None)
    own_group = _said_of_the_elderly(rows, p)
    if own_group:
        # what the book says of this patient's own group ("Người cao tuổi: Liều ban đầu ...", "Hiệu chỉnh liều ở
        # ... người già là không cần thiết"), instructions included, before the doses of adults in general; with
        # the band of the patient's own kidneys or liver beside it when those were chosen ("Clcr 35")
        organ = [r for r in candidates if r not in own_group] if fit.specific else []
        fit.rows = sorted([*own_group, *organ], key=rows.index) if organ else own_group
        fit.specific = True
        return fit
    if known:
        candidates = [r for r in candidates if fits_group(r, p) or _in_band_by_kidney(r, p)]
        candidates = _by_gestation(candidates, p)
        candidates = _by_banded_strength(candidates, p)
        if p.is_child:  # for a child, only what the book says of children: an unlabelled dose is the adult one
            child = [r for r in candidates if _for_children(r) or _adults_from_childhood(r)]
            if not child and _applied_alike(rows, candidates):
                # a cream, an eye drop, a pessary whose section names no group: one way of applying it for all
                fit.notes.append("Dược thư không ghi đối tượng cho cách dùng tại chỗ này (không có liều riêng cho "
                                 "trẻ em); xem thêm phần Thận trọng.")
                child = candidates
            if not child:
                fit.notes.append("Dược thư không ghi liều riêng cho trẻ em ở nhóm tuổi/cân nặng này.")
                return fit
            candidates = _by_weight_band(_by_group_label(child, p), p)
            unset = _not_established_for_age(candidates, p)
            if unset:
                # "Độ an toàn và hiệu quả ... ở trẻ dưới 1 tuổi ... chưa được xác lập" for an 8-month-old: what the
                # book says of this child's own age, not the doses of older children's bands or a weight to ask
                fit.rows, fit.specific = unset, True
                return fit
    # route and indication: a route the person gave narrows first (its absence is said plainly); with no route
    # given, the indication narrows first, so a route is asked only when the doses that fit still differ by it.
    # What is missing of the patient (the group, a child's age or weight) is asked once these have narrowed.
    candidates = _by_printed_case(candidates, rows, p)
    if p.ruled_out and not p.route:
        # "không uống được thuốc": the doses by the other routes, when the book gives some
        candidates = [r for r in candidates if not (r.route and set(r.route) <= set(p.ruled_out))] or candidates
    asked = _asked_indication(_by_kind(candidates, p), p) if p.route else []
    if asked and not any(route_matches(p.route, r.route) for r in asked) and any(not r.route for r in asked):
        # the indication asked for is dosed with no route printed near its dose: shown under a title that says
        # the route is not stated, never replaced by another indication's doses for that route
        # (with the ceiling printed for no indication on this route: it holds for the indication asked too)
        candidates = [r for r in candidates if (r in asked and not r.route)
                      or (_general_ceiling(r, asked) and route_matches(p.route, r.route))]
        if _ask_patient(candidates, p, known, fit):
            return fit
    elif p.route:
        # the indication asked is dosed for this patient's own band ("Trẻ 4 - 7 tuổi: 150 mg x 3 lần/ngày" under
        # "Giảm đau và hạ sốt:") with no route printed: shown under a title that says the route is not stated,
        # beside the doses printed for the route asked, not dropped for them
        unrouted = _own_band_unrouted(candidates, asked, p)
        candidates = _by_route(candidates, rows, p, fit)
        if fit.ask_route and unrouted:
            fit.ask_route, fit.no_dose_for_route = [], False
            candidates = unrouted
        if fit.ask_route:
            return fit
        if unrouted:
            order = {(r.chunk_id, r.start): i for i, r in enumerate(rows)}  # the book's order
            candidates = sorted(candidates + [r for r in unrouted if r not in candidates],
                                key=lambda r: order.get((r.chunk_id, r.start), len(order)))
        candidates = _own_group(candidates, p, fit)
        candidates = _by_indication(candidates, p, fit)
        if _ask_patient(candidates, p, known, fit):
            return fit
    else:
        candidates = _by_indication(_own_group(candidates, p, fit), p, fit)
        if _ask_patient(candidates, p, known, fit):
            return fit
        candidates = _by_route(candidates, rows, p, fit)
        if fit.ask_route:
            return fit
    # size
    if len([r for r in candidates if not r.quarantined]) > MAX_ROWS:
        indications = _distinct(r.indication for r in candidates)
        general = [r for r in candidates if r.indication is None]
        if not p.condition and indications and general and len(general) <= MAX_ROWS:
            # the doses the book gives for no indication in particular; the others are offered by name
            fit.other_indications = indications
            fit.notes.append("Dược thư còn ghi liều riêng cho: " + "; ".join(indication_name(i) for i in indications)
                             + ".")
            candidates = general
        elif not p.condition and len(indications) > 1:
            fit.ask_indication = indications
            return fit
        if p.is_child and p.age_years is None and p.weight_kg is None and any(r.age or r.weight_kg for r in candidates):
            fit.ask_age_or_weight = True
            return fit
    candidates = [_own_alternative(r, p) for r in candidates]
    for group in _distinct(continued_label(r, rows) for r in candidates):
        if group:  # "(7 - 30 ngày): ..." prints its band only: the group it goes on is said
            fit.notes.append(f"Mức liều ghi trong ngoặc dưới đây tiếp theo nhóm «{group}» sách in ngay dòng trên.")
    chosen = _with_durations(rows, _with_stated_cases(rows, candidates, p), p)
    fit.rows = [_with_group_above(r, rows) for r in _with_referenced(rows, chosen, p)]
    return fit


def _own_band_unrouted(candidates: list[DoseRow], asked: list[DoseRow], p: Patient) -> list[DoseRow]:
    """The doses the book prints for the band that holds this patient's age or weight with no route stated, when
    no dose by the route asked is drawn for a band of his: of the indication asked, if one is."""
    if p.age_years is None and p.weight_kg is None:
        return []
    banded = [r for r in candidates if not r.route and (r.age is not None or r.weight_kg is not None)
              and not _organ(r) and r.kind in DOSE_KINDS and (not (asked or p.condition) or r in asked)]
    if any(route_matches(p.route, r.route) and (r.age is not None or r.weight_kg is not None)
           for r in candidates if r.kind in DOSE_KINDS):
        return []
    return banded


# "Nếu bệnh nhân không thể dùng aspirin thì ...": a statement the book makes for a case of the patient it names
_IF_CLAUSE = re.compile(r"^\W*Nếu\s+(.{3,120}?)\s+thì\s", re.I)


def _with_stated_cases(rows: list[DoseRow], chosen: list[DoseRow], p: Patient) -> list[DoseRow]:
    """The statements of the indication chosen that open with a case of the patient ("Nếu bệnh nhân không thể dùng
    aspirin thì ...") the question states in its own words ("không dùng được aspirin"): they go with the doses
    chosen, in the book's order (the patient is that case)."""
    if not chosen or not p.question:
        return chosen
    said = _said_words(p.question)
    keys = {(r.indication, r.population) for r in chosen}
    extra = []
    for r in rows:
        if r in chosen or r.kind not in DOSE_KINDS or (r.indication, r.population) not in keys:
            continue
        clause = _IF_CLAUSE.match(r.text)
        if clause and _naming_score(clause.group(1), said) > 0:
            extra.append(r)
    return [r for r in rows if r in chosen or r in extra] if extra else chosen


# a band the book draws by words, not by a clearance: "Suy thận mức độ nhẹ và vừa:"
_SEVERITY_WORDS = re.compile(r"(?<!\w)(?:nhẹ|vừa|nặng|trung bình)(?!\w)", re.I)


# a strength the book prints for a preparation: "dung dịch 0,5%", "nồng độ 5 mg/ml"
_STRENGTH = re.compile(r"(?<![\d,])\d+(?:,\d+)?\s*(?:%|mg\s*/\s*ml\b)")


def _strengths(text: str) -> set[str]:
    return {re.sub(r"\s+", "", m.group(0)) for m in _STRENGTH.finditer(text)}


def _by_banded_strength(candidates: list[DoseRow], p: Patient) -> list[DoseRow]:
    """'Viêm màng bồ đào: Nhỏ 1 giọt dung dịch 2% ...', then 'Đối với trẻ em từ 3 tháng - 2 tuổi: Chỉ dùng dung dịch
    0,5% ...': where a band that holds this patient prints its own strength, the statement of the same group and
    indication that bounds no age or weight and prints another strength is for the others, not for this patient."""
    if p.age_years is None and p.weight_kg is None and p.gestational_weeks is None:
        return candidates
    banded = [r for r in candidates if r.kind in DOSE_KINDS and (r.age is not None or r.weight_kg is not None)
              and _strengths(r.text)]

    def superseded(r: DoseRow) -> bool:
        if r.kind not in DOSE_KINDS or r.age is not None or r.weight_kg is not None or not _strengths(r.text):
            return False
        return any(b.population == r.population and b.indication == r.indication
                   and not _strengths(r.text) <= _strengths(b.text) for b in banded)

    return [r for r in candidates if not superseded(r)] or candidates


def _kind_bands(rows: list[DoseRow]) -> list[DoseRow]:
    """'Liều tối đa: Nếu cân nặng ... 60 kg hoặc nhẹ hơn: 50 mg/lần ...', then 'Nếu ... trên 60 kg: 100 mg/lần ...':
    the statements right after a ceiling (or a loading dose) drawn for one weight or age band, under the same
    headings, that print another band of the same measure are that kind's other bands, not doses of their own."""
    out = list(rows)
    for i, row in enumerate(rows):
        if row.kind not in ("max_dose", "loading_dose"):
            continue
        measure = "weight_kg" if row.weight_kg is not None else "age" if row.age is not None else None
        if measure is None:
            continue
        first = getattr(row, measure)
        for j in range(i + 1, len(rows)):
            nxt = rows[j]
            band = getattr(nxt, measure)
            if (nxt.kind != "dose" or band is None or band == first or nxt.headings != row.headings
                    or nxt.chunk_id != row.chunk_id or nxt.indication != row.indication
                    or nxt.population != row.population or nxt.route != row.route):
                break
            out[j] = nxt.model_copy(update={"kind": row.kind})
    return out


def _by_clearance(renal: list[DoseRow], p: Patient) -> list[DoseRow]:
    """With a Clcr given and a band printed in numbers that holds it, a band the book names only by a severity
    ("nhẹ và vừa") is not this patient's: the numbers say which band he is in."""
    if p.clcr is None:
        return renal
    bounded = [r for r in renal if r.renal and (r.renal.clcr_min is not None or r.renal.clcr_max is not None)]
    if not bounded:
        return renal
    return [r for r in renal if r in bounded or not _SEVERITY_WORDS.search(_head_label(r))]


# the two kinds of dialysis the book doses apart: through the blood and through the peritoneum
_DIALYSIS_KINDS = (re.compile(r"\b(?:tham phan|tham tach|loc) mau\b|\bthan nhan tao\b"),
                   re.compile(r"\bmang bung\b"))


def _by_dialysis_kind(renal: list[DoseRow], p: Patient) -> list[DoseRow]:
    """A patient on one kind of dialysis ("chạy thận nhân tạo"): not the rows whose own label names the other
    kind ("Thẩm phân màng bụng: ...")."""
    if not p.dialysis:
        return renal
    asked = [i for i, kind in enumerate(_DIALYSIS_KINDS) if kind.search(fold(p.question))]
    if len(asked) != 1:
        return renal
    other = _DIALYSIS_KINDS[1 - asked[0]]
    return [r for r in renal if not (other.search(fold(_head_label(r))) and not _DIALYSIS_KINDS[asked[0]].search(
        fold(_head_label(r))))] or renal


def _head_label(row: DoseRow) -> str:
    head, colon, _ = row.text.partition(":")
    return head if colon and len(head) <= 80 else ""


def _by_route(candidates: list[DoseRow], rows: list[DoseRow], p: Patient, fit: Fit) -> list[DoseRow]:
    before = candidates
    routes_here = _routes(candidates)
    if p.route:
        # a renal band that prints no route adjusts the drug by every route it is given by
        routed = [r for r in candidates if route_matches(p.route, r.route) or (_organ(r) and not r.route)]
        for alike in _same_by_route(rows, p.route):
            # "Liều ... uống và tiêm bắp, tiêm dưới da tương tự nhau": the doses printed for the other routes of
            # that statement are this route's too (under the same indication), shown with the statement
            same = [r for r in candidates if r not in routed and r.route and set(r.route) <= set(alike.route)
                    and (alike.indication is None or r.indication == alike.indication)]
            if same and alike not in candidates:
                candidates = sorted([*candidates, alike], key=rows.index)
            routed += same + ([alike] if same and alike not in routed else [])
        starting = [r for r in routed if not _started_by_another_route(r, p.route)]
        if starting and len(starting) < len(routed):
            # "Tiêm bắp khởi đầu là 2 - 4 mg/kg, sau đó tiếp tục truyền tĩnh mạch ...": a regimen that only goes on
            # by the route asked starts by another; the statements that start by it are the dose asked
            routed = starting
        if not routed and not (len(routes_here) <= 1 and not any(r.route for r in candidates)):
            fit.no_dose_for_route = True
            fit.ask_route = _routes([r for r in candidates if r.kind in DOSE_KINDS]) or _routes(
                [r for r in rows if r.kind in DOSE_KINDS])
            return []
        candidates = [r for r in candidates if r in routed or r in _continuations(routed, candidates)] if routed \
            else candidates
    elif len(routes_here) > 1:
        doses = [r for r in candidates if r.kind in ("dose", "loading_dose")]
        spare = _fallback_routes(candidates)
        usual = [r for r in doses if not set(r.route) & set(spare)]
        if spare and usual and not _route_choice_matters(usual):
            # "Còn có thể dùng ... theo đường trực tràng ..., cho người bệnh tạm thời không thể dùng đường uống":
            # a route for when the usual one cannot be used is no choice to ask about; the usual doses are shown
            # and the other route is said to be in the book
            fit.notes.append(f"Dược thư còn ghi liều {', '.join(ROUTE_NAMES[k].lower() for k in spare)} cho người "
                             f"bệnh không dùng được đường {', '.join(ROUTE_NAMES[k].lower() for k in _instead_of(candidates))}.")
            candidates = [r for r in candidates if not set(r.route) & set(spare)]
            doses = usual
        # a route the parser could not name ("other") is no choice a person can make: never offered, never the
        # reason to ask
        dose_routes = [k for k in _routes(doses) if k != "other"] or _routes(doses)
        general = [r for r in doses if r.indication is None and r.route]
        offered = False
        if len(dose_routes) > 1 and _route_choice_matters(doses) and not p.condition and general \
                and not _route_choice_matters(general):
            # the doses given for no indication in particular are by one route, the other route only under
            # indications of its own ("Uống ... viêm đại tràng do C. difficile"): those are offered, not asked
            keep = set(_routes(general))
            others = [r for r in doses if set(r.route) - {"other"} and not set(r.route) & keep]
            if others and all(r.indication for r in others):
                offered = True
                named = _distinct(r.indication for r in others)
                fit.other_indications = named
                fit.notes.append(f"Dược thư còn ghi liều {', '.join(route_names(others)).lower()} riêng cho: "
                                 + "; ".join(indication_name(i) for i in named) + ".")
                dose_routes = _routes(general)
        if len(dose_routes) > 1 and _route_choice_matters(doses) and not offered:
            fit.ask_route = dose_routes
            return []
        if dose_routes:  # (statements that only adjust or cap a dose name no route to choose by)
            candidates = [r for r in candidates if not r.route or set(r.route) & set(dose_routes)]
    dosed_routes = _routes([r for r in rows if r.kind in DOSE_KINDS])
    one_route = len(dosed_routes) <= 1 and (not p.route or not dosed_routes or route_matches(p.route, dosed_routes))
    if (len(_routes(candidates)) > 1 or p.route) and not one_route:
        # a statement with no route is shown only when the section doses by one route (the one asked for), or
        # when it goes on a group's regimen whose every routed statement is kept (the same headings above it)
        kept = [r for r in candidates if r.route or _organ(r)]
        candidates = [r for r in candidates if r in kept or r in _continuations(kept, before)]
    return candidates


# "tạm thời không thể dùng đường uống", "khi không uống được", "không dùng được đường tiêm": a route that cannot be
# used (a prohibition, "không tiêm bắp", is not this: it says the route must not be used, not that it cannot)
_CANNOT_USE = (
    re.compile(r"không thể (?:dùng |sử dụng |đưa thuốc )?(?:bằng |theo |qua )?(?:đường )?((?:\w+ ?){1,3})"),
    re.compile(r"không (?:dùng |sử dụng )được (?:bằng |theo |qua )?(?:đường )?((?:\w+ ?){1,3})"),
    re.compile(r"không ((?:\w+ ){1,2})được\b"),
)


def _cannot_use(text: str) -> list[str]:
    """The routes a statement says the patient cannot take the drug by."""
    low = text.lower()
    return _distinct(k for pattern in _CANNOT_USE for m in pattern.finditer(low) for k in routes_in(m.group(1))
                     if k != "other")


def _instead_of(rows: list[DoseRow]) -> list[str]:
    return _distinct(k for r in rows if r.kind in DOSE_KINDS for k in _cannot_use(r.text) if k not in r.route)


def _fallback_routes(rows: list[DoseRow]) -> list[str]:
    """The routes some dose statement gives for a patient who cannot take the drug by another route the section
    doses ("... theo đường trực tràng ..., cho người bệnh tạm thời không thể dùng đường uống")."""
    dosed = {k for r in rows if r.kind in DOSE_KINDS for k in r.route}
    out: list[str] = []
    for r in rows:
        if r.kind in DOSE_KINDS and r.route and any(k not in r.route and k in dosed for k in _cannot_use(r.text)):
            out += [k for k in r.route if k != "other" and k not in out]
    return out


# "... uống và tiêm bắp tương tự nhau", "Liều tiêm tương tự liều uống": the dose is the same by those routes
_SAME_BY_ROUTE = re.compile(r"(?<!\w)(?:tương tự nhau|như nhau|giống nhau|bằng nhau|tương tự liều|giống liều)(?!\w)")


def _same_by_route(rows: list[DoseRow], route: str) -> list[DoseRow]:
    """The statements of the section that say the routes they name, the route asked among them, are dosed alike."""
    return [r for r in rows
            if len(r.route) >= 2 and route_matches(route, r.route) and _SAME_BY_ROUTE.search(r.text.lower())]


# A liver impairment's grade, as the book prints it and as a person says it (folded): its severity word, or its
# Child-Pugh class (words.child_pugh_grades).
_LIVER_GRADES = (
    ("mild", re.compile(r"\bnhe\b")),
    ("moderate", re.compile(r"\bvua\b|\btrung binh\b")),
    ("severe", re.compile(r"\bnang\b")),
)


def _liver_grades(text: str) -> set[str]:
    folded = _WEIGHT_WORDS.sub(" ", fold(text))
    return {grade for grade, pattern in _LIVER_GRADES if pattern.search(folded)} | child_pugh_grades(folded)


def _by_liver_grade(hepatic: list[DoseRow], p: Patient) -> list[DoseRow]:
    """"Không cần giảm liều ở người suy gan nhẹ và trung bình. Suy gan nặng: ... 20 mg một ngày": for a patient
    whose grade the question says, the statements of that grade and those naming none, not another grade's."""
    said = _liver_grades(p.question or "")
    if not said:
        return hepatic
    own = [r for r in hepatic if _liver_grades(r.text) & said]
    if not own:
        return hepatic
    return [r for r in hepatic if r in own or not _liver_grades(r.text)]


# What a statement goes on with after its first dose ("..., sau đó tiếp tục truyền tĩnh mạch ...").
_THEN = re.compile(r"\b(?:sau đó|tiếp theo|tiếp đó)\b", re.IGNORECASE)


def _started_by_another_route(row: DoseRow, route: str) -> bool:
    """The statement names a route before its "sau đó" and the route asked is not that one: it starts by
    another route and reaches the one asked only after."""
    then = _THEN.search(row.text)
    if then is None:
        return False
    # an injection with no site named ("phải tiêm adrenalin đầu tiên và sau đó ...") starts by no other route
    before = [r for r in routes_in(row.text[: then.start()]) if r != "other"]
    return bool(before) and not route_matches(route, before)


def _continuations(kept: list[DoseRow], pool: list[DoseRow]) -> list[DoseRow]:
    """The statements of `pool` with no route that go on a regimen kept for its route: under the very headings of
    a kept routed statement and for its very band ("Liều cho trẻ em từ 6 đến 12 tuổi" > "Bắt đầu uống ..." then
    "Liều duy trì ..."), where no statement under those headings names a route that was not kept."""
    def path(r: DoseRow) -> tuple:
        return tuple(r.headings), r.population, repr(r.age), repr(r.weight_kg)  # the same headings, the same band

    paths = {path(r) for r in kept if r.route and r.headings}
    kept_routes = {route for r in kept for route in r.route}
    # a sibling form for the same organ ("tra mắt" beside "nhỏ mắt") is the same regimen; an injection's site is not
    dropped = {tuple(r.headings) for r in pool if r.route and r not in kept
               and not all(_same_organ(route, kept_routes) for route in r.route)}
    return [r for r in pool if not r.route and path(r) in paths and tuple(r.headings) not in dropped]


def _same_organ(route: str, others: set[str]) -> bool:
    """The route gives the drug to the same organ, by another form, as one of `others` (the eye's drops and
    ointment); never for injections, whose site changes the dose."""
    family = ROUTE_FAMILY.get(route)
    return family not in (None, "injection") and any(ROUTE_FAMILY.get(o) == family for o in others)


# A dose injected into a vein and one infused into it are one regimen (a bolus, then the infusion), not a choice
_VEIN = frozenset({"tiem_tinh_mach", "truyen_tinh_mach"})


# an amount given: "2 g", "500 mg", "50 mg/kg", "10 000 đơn vị" (numbers with a unit of quantity)
_AMOUNT = re.compile(r"\d+(?:[ .]\d{3})*(?:,\d+)?\s*(?:mg|g|microgam|mcg|µg|đơn vị|đvqt|ml|mmol)(?:/kg)?(?!\w)")


def _route_choice_matters(doses: list[DoseRow]) -> bool:
    """The doses differ by route: some statement is for a route another is not. Where every statement names the
    same routes ("uống hoặc tiêm tĩnh mạch"), or every route is a vein, the route need not be asked."""
    families = {frozenset("vein" if k in _VEIN else k for k in r.route if k != "other") for r in doses}
    if len(families - {frozenset()}) <= 1:
        return False
    # "Người lớn: Một liều duy nhất 2 g, uống ..." and "Người lớn: Truyền tĩnh mạch 2 g ...": the same amounts by
    # every route; each statement is shown under its own route, so none is to be chosen first
    amounts: dict[frozenset[str], set[str]] = defaultdict(set)
    for r in doses:
        family = frozenset("vein" if k in _VEIN else k for k in r.route if k != "other")
        if family:
            amounts[family] |= set(_AMOUNT.findall(r.text))
    return not (all(amounts.values()) and len({frozenset(a) for a in amounts.values()}) == 1)


def _by_indication(candidates: list[DoseRow], p: Patient, fit: Fit) -> list[DoseRow]:
    candidates = _by_kind(candidates, p)
    organ = [r for r in candidates if _organ(r)]
    if organ:
        # an impaired organ's bands hold for the drug, whatever it is given for; the other statements beside
        # them (a ceiling) are narrowed as usual
        rest = _by_indication([r for r in candidates if r not in organ], p, fit) if len(organ) < len(candidates) else []
        return [r for r in candidates if r in organ or r in rest]
    asked = _asked_indication(candidates, p)
    if asked:
        # a ceiling printed under no indication holds whatever the drug is given for ("không nên cho trẻ em quá 5
        # liều ... trong vòng 24 giờ"): it stays beside the indication the question names
        return [r for r in candidates if r in asked or _general_ceiling(r, asked)]
    if not p.condition:
        return candidates
    general = [r for r in candidates if r.indication is None]
    if general:
        fit.notes.append(f"Dược thư không ghi liều riêng cho \"{p.condition}\"; dưới đây là liều chung.")
        return general
    return candidates


def _general_ceiling(row: DoseRow, asked: list[DoseRow]) -> bool:
    """A ceiling printed under no indication, for the group of the doses asked (a children's ceiling is not said
    beside an unlabelled adult dose)."""
    return (row.kind == "max_dose" and row not in asked and row.indication is None
            and not any(_names_a_case(h) for h in row.headings) and row.population in {r.population for r in asked})


def _asked_indication(candidates: list[DoseRow], p: Patient) -> list[DoseRow]:
    """The statements of the indication the person named: the closest to the condition read from the question
    (not every partial match), then those under a heading the question names in full (an indication, a regimen
    or a severity label: "Phác đồ tiêm liều cách xa nhau:"); [] when none is named."""
    chosen = candidates
    if p.condition:
        # the condition as typed and by the book's names for it ("thủy đậu" / "nhiễm VZV")
        scores = {id(r): max(indication_score(c, r) for c in condition_variants(p.condition)) for r in candidates}
        best = max(scores.values(), default=0.0)
        if best >= 0.5:
            chosen = [r for r in candidates if scores[id(r)] == best]
            if not any(r.kind in ("dose", "loading_dose") for r in chosen):
                # "hạ sốt" printed only in a ceiling ("không nên cho trẻ em quá 5 liều ... để giảm đau hoặc hạ
                # sốt"): no dose of its own, so it names no indication the doses are under
                chosen = candidates
            own = {id(r): max(_own_score(c, r) for c in condition_variants(p.condition)) for r in chosen}
            if any(score >= best for score in own.values()):
                # the rows under the indication heading that matches, not those of a later heading of its own
                # that the earlier one is only printed above ("Ho khan: ..." then "Ỉa chảy cấp: ...")
                chosen = [r for r in chosen if own[id(r)] >= best or not _own_disease(r)]
    if p.question:
        said = _said_with_book_names(p.question)
        labels = {id(r): [t for t in (r.indication, *r.headings) if t and _names_a_case(t)] for r in chosen}
        scores = {t: _naming_score(t, said) for t in _distinct(t for ts in labels.values() for t in ts)}
        # the most specific heading named first: "Nhiễm HSV lan tỏa" named in full also names "Nhiễm HSV"
        full = sorted((t for t, score in scores.items() if score >= 1.0), key=lambda t: _specificity(t, said))
        best = max((score for score in scores.values() if score < 1.0), default=0.0)
        partial = [t for t, score in scores.items() if 0 < score == best]
        if not full and not partial:
            # "Đau, sốt" beside "Đau sau phẫu thuật", the question saying "sốt": a short word of one heading's list
            # that no other heading prints tells them apart ("đau", printed in both, does not)
            partial = _named_by_own_word(list(scores), said)
        if not full and not partial:
            # "cần gây mê nhanh" beside "Gây mê toàn thân" and "Tác dụng dịu thần kinh và giảm đau": words of a
            # heading said together and printed together in no other heading name it
            partial = _named_by_phrase(list(scores), said)
        pool: list[DoseRow] = chosen
        narrowed_by: str | None = None
        for label in full + (partial if len(partial) == 1 else []):
            narrowed = [r for r in chosen if label in labels[id(r)]]
            if any(r.indication == label for r in narrowed):
                narrowed = [r for r in narrowed if r.indication == label or not _own_disease(r)]
            if narrowed and len(narrowed) < len(chosen):
                chosen, narrowed_by = narrowed, label  # each label named in full narrows what the others left
            elif not narrowed and narrowed_by is not None and label in full \
                    and _specificity(label, said)[0] == _specificity(narrowed_by, said)[0]:
                # "Viêm họng, ..." printed under the adults and again under the children: the same indication named
                # as fully under another group, so both stand (the group then decides), not the first printed
                other = [r for r in pool if label in labels[id(r)]]
                if other and not {r.population for r in other} & {r.population for r in chosen}:
                    chosen = [r for r in pool if r in chosen or r in other]
    if len(chosen) < len(candidates):
        # a statement that opens with a case of its own the question does not name is that case's, not this one's
        chosen = [r for r in chosen if not _opens_another_case(r, p)] or chosen
    return chosen if len(chosen) < len(candidates) else []


def _opens_another_case(row: DoseRow, p: Patient) -> bool:
    """'Dự phòng viêm nội tâm mạc ...: 50 mg/kg/liều' printed under 'Nhiễm khuẩn đường tiết niệu': the row's own
    opening label is an indication heading other than the one it was filed under, and the question names it not."""
    head, colon, _ = row.text.partition(":")
    head = head.strip()
    if not colon or not head or len(head) > 250 or head == (row.indication or "").strip(": ") or head in row.headings:
        return False
    if not _is_indication_heading(head):
        return False
    if p.condition and max(indication_score(c, _label_row(row, head)) for c in condition_variants(p.condition)) >= 0.5:
        return False
    return _naming_score(head, _said_with_book_names(p.question)) == 0.0


def _label_row(row: DoseRow, label: str) -> DoseRow:
    return row.model_copy(update={"indication": label, "headings": [], "text": ""})


def _own_score(condition: str, row: DoseRow) -> float:
    """indication_score against the row's own indication alone, not the headings printed above it."""
    if not row.indication:
        return 0.0
    return indication_score(condition, row.model_copy(update={"headings": [], "text": ""}))


def _own_disease(row: DoseRow) -> bool:
    """The row's own indication is a heading naming a case of its own, not a qualifier (a phase, a severity, a
    regimen) of the heading above it."""
    return bool(row.indication) and _is_indication_heading(row.indication)


def _no_clearance(row: DoseRow) -> bool:
    return row.renal is None or (row.renal.clcr_min is None and row.renal.clcr_max is None and not row.renal.dialysis)


def _organ(row: DoseRow) -> bool:
    """A statement for an impaired kidney or liver: with no route printed, it holds for every route."""
    return row.renal is not None or row.hepatic


def _by_kind(candidates: list[DoseRow], p: Patient) -> list[DoseRow]:
    """'liều nạp', 'liều tối đa': the statements of that kind, when the book gives some."""
    if p.kind is None:
        return candidates
    # an impaired organ's bands stay: they are the ceiling and the start for this patient
    return [r for r in candidates if r.kind == p.kind or _organ(r)] or candidates


@lru_cache(maxsize=4096)
def _label_kind(label: str) -> str:
    """What a printed heading is (indication, note, group, route, ...), read once per heading."""
    return classify(label)[0]


def _names_a_case(label: str) -> bool:
    """An indication, a regimen or a severity the book prints as a heading, not a route or a group."""
    return _label_kind(label) in ("indication", "note")


def _is_indication_heading(label: str) -> bool:
    return _label_kind(label) == "indication"


def names_a_printed_case(rows: list[DoseRow], text: str) -> bool:
    """The words name in full an indication, a regimen or a severity the dose rows print as a heading
    ("viêm tai giữa cấp" of "Viêm tai giữa cấp: 75 - 100 mg/kg ..."): said after a dose answer, they choose among
    its rows."""
    said = _said_with_book_names(text)
    if not said:
        return False
    labels = _distinct(t for r in rows for t in (r.indication, *r.headings) if t and _names_a_case(t))
    return any(_names_indication(t, said) for t in labels)


def _said_words(text: str) -> list[str]:
    return [w.lower() for w in re.findall(r"\w+", text)]


def _said_with_book_names(text: str) -> list[str]:
    """The question's words, then those of each variant with a lay name replaced by the book's ("tiêu chảy cấp"
    also says "ỉa chảy cấp"), each variant whole, so a heading printed by the book's name is named too."""
    variants = condition_variants(text)
    return _said_words(" . ".join([text, *variants[1:]])) if len(variants) > 1 else _said_words(text)


def _names_indication(indication: str, said: list[str]) -> bool:
    return _naming_score(indication, said) >= 1.0


def _naming_score(indication: str, said: list[str]) -> float:
    """1.0 when the question names every specific word of one alternative of the heading ("Đau thắt ngực không
    ổn định, nhồi máu cơ tim ...": two alternatives); else the share of the heading's specific words it names,
    when that is three in five or more (two words at least); else 0. Words match as written, or folded where the
    person typed none."""

    said = said + _initials_spelled(indication, said)

    def present(word: str) -> bool:
        return any(words_agree(q, word) for q in said)

    def specific(text: str) -> list[str]:
        words = [w.lower() for w in re.findall(r"\w+", text) if len(w) > 1 and not w.isdigit()]
        return [w for w in words if fold(w) not in _GENERIC_CONDITION_WORDS]

    for alternative in re.split(r"[,;()]|\s(?:hoặc|và)\s", indication):
        words = specific(alternative)
        whole = [w.lower() for w in re.findall(r"\w+", alternative)]
        if len(whole) >= 2 and _phrase_said(whole, said):
            return 1.0  # "Nhiễm khuẩn nặng" typed as printed, general words and all
        if not words or (len(words) == 1 and len(words[0]) < 5):
            continue
        if all(present(w) for w in words):
            return 1.0
    words = specific(indication)
    found = sum(1 for w in words if present(w))
    return found / len(words) if found >= 2 and found * 5 >= len(words) * 3 else 0.0


# Words a heading frames its case with ("Tác dụng an thần ...", "Liều dùng trong ..."): no case of their own.
_FRAMING_WORDS = _GENERIC_CONDITION_WORDS | frozenset("tac dung lieu luong thuoc trong khi".split())


def _named_by_phrase(headings: list[str], said: list[str]) -> list[str]:
    """The one heading among `headings` one of whose alternatives prints two words or more, one of them specific,
    that the question says together and that no other heading prints together ("gây mê" of "Gây mê toàn thân",
    "hóa trị" of "Thiếu máu do hóa trị liệu ung thư"); [] when none or several."""
    folded = {h: " ".join(fold(w) for w in re.findall(r"\w+", h.lower())) for h in headings}
    named = []
    for h in headings:
        for alternative in re.split(r"[,;()]|\s(?:hoặc|và)\s", h):
            words = [w.lower() for w in re.findall(r"\w+", alternative)]
            if any(_names_uniquely(words[i : i + k], h, folded, said)
                   for k in range(len(words) - 1, 1, -1) for i in range(len(words) - k + 1)):
                named.append(h)
                break
    return named if len(named) == 1 else []


def _names_uniquely(phrase: list[str], heading: str, folded: dict[str, str], said: list[str]) -> bool:
    if all(fold(w) in _FRAMING_WORDS or len(w) < 2 for w in phrase) or not _phrase_said(phrase, said):
        return False
    printed = re.compile(rf"\b{re.escape(' '.join(fold(w) for w in phrase))}\b")
    return not any(printed.search(text) for other, text in folded.items() if other != heading)


def _specificity(heading: str, said: list[str]) -> tuple[int, int]:
    """Sorts the headings a question names in full, the most specific first: more of its words said, then fewer
    of its words left unsaid ("Nhiễm HSV lan tỏa" before "Nhiễm HSV"; "Điều trị viêm giác mạc" before "Dự phòng
    tái phát, viêm giác mạc")."""
    words = _said_words(heading)
    named = sum(1 for w in words if any(words_agree(q, w) for q in said))
    return -named, len(words) - named


def _named_by_own_word(headings: list[str], said: list[str]) -> list[str]:
    """The one heading among `headings` that has an alternative of a single word the question says and no other
    heading prints; [] when none or several have one."""
    words = {h: {fold(w) for w in re.findall(r"\w+", h.lower())} for h in headings}
    named = []
    for h in headings:
        for alternative in re.split(r"[,;()]|\s(?:hoặc|và)\s", h):
            own = [w.lower() for w in re.findall(r"\w+", alternative)]
            if (len(own) == 1 and len(own[0]) > 1 and not own[0].isdigit()
                    and fold(own[0]) not in _GENERIC_CONDITION_WORDS
                    and any(words_agree(q, own[0]) for q in said)
                    and not any(fold(own[0]) in words[other] for other in headings if other != h)):
                named.append(h)
                break
    return named if len(named) == 1 else []


def _initials_spelled(heading: str, said: list[str]) -> list[str]:
    """The heading's words the question abbreviates to their initial before the next word ("H. pylori" for
    "Helicobacter pylori")."""
    words = [w.lower() for w in re.findall(r"\w+", heading)]
    out = []
    for i, q in enumerate(said[:-1]):
        if len(q) == 1 and q.isalpha():
            out += [w for w, nxt in zip(words, words[1:], strict=False)
                    if len(w) > 1 and fold(w[0]) == fold(q) and words_agree(said[i + 1], nxt)]
    return out


def _phrase_said(phrase: list[str], said: list[str]) -> bool:
    """The words stand together in the question, as written or folded where the person typed none."""
    n = len(phrase)
    for i in range(len(said) - n + 1):
        if all(words_agree(q, w) for q, w in zip(said[i : i + n], phrase, strict=True)):
            return True
    return False


def _said_of_the_elderly(rows: list[DoseRow], p: Patient) -> list[DoseRow]:
    if p.population != "nguoi_cao_tuoi" and not (p.age_years is not None and p.age_years >= ELDERLY_YEARS):
        return []
    own = [r for r in rows if r.population == "nguoi_cao_tuoi" or (r.population is None and _label_names(r, "nguoi_cao_tuoi"))
           or (_elderly_band(r) and _fits_band(r.age, r.weight_kg, p))]
    if p.route:
        own = [r for r in own if not r.route or route_matches(p.route, r.route)]
    order = {id(r): i for i, r in enumerate(rows)}
    found = own + _ceilings_after(rows, own)
    found += [r for r in _same_as_band(rows, own, p) if all(r is not f for f in found)]
    return sorted(found, key=lambda r: order.get(id(r), len(rows)))


_SAME_AS_BAND = re.compile(r"(?<!\w)giống\s+như\s+(?:đối với\s+|ở\s+|liều\s+(?:của\s+|cho\s+)?)?(.+)$", re.I)


def _same_as_band(rows: list[DoseRow], own: list[DoseRow], p: Patient) -> list[DoseRow]:
    """'Liều thông thường ở người cao tuổi: Giống như đối với người < 50 kg hoặc có chức năng thận suy giảm.': the
    group's dose is the band it refers to, read by the weight and kidney bound it prints, by the route asked."""
    out: list[DoseRow] = []
    for row in own:
        m = _SAME_AS_BAND.search(row.text)
        if m is None or any(ch.isdigit() for ch in row.text[: m.start()].split(":")[-1]):
            continue
        weight, kidney = weight_in(m.group(1)), renal_in(m.group(1))
        if weight is None and kidney is None:
            continue
        for r in rows:
            if r is row or r.kind not in DOSE_KINDS or r.population not in (None, "nguoi_lon"):
                continue
            same_weight = weight is not None and r.weight_kg is not None and r.weight_kg.max == weight.max
            same_kidney = kidney is not None and r.renal is not None and r.renal.clcr_min is None \
                and r.renal.clcr_max is None and not r.renal.dialysis
            if (same_weight or same_kidney) and (not p.route or not r.route or route_matches(p.route, r.route)):
                out.append(r)
    return out


def _ceilings_after(rows: list[DoseRow], own: list[DoseRow]) -> list[DoseRow]:
    """The ceiling printed right after a group's own dose, for no group or adults, by the same route or none
    ("Liều thông thường ở người cao tuổi: Uống ...: 10 mg ... Liều tối đa: Uống: 40 mg/ngày."): that dose's limit."""
    out: list[DoseRow] = []
    for row in own:
        at = next((i for i, r in enumerate(rows) if r is row), None)
        if at is None or at + 1 >= len(rows):
            continue
        after = rows[at + 1]
        if (after.kind == "max_dose" and after.population in (None, "nguoi_lon") and after not in own
                and after not in out
                and (not after.route or not row.route or set(after.route) & set(row.route))):
            out.append(after)
    return out


def _elderly_band(row: DoseRow) -> bool:
    """'Liều dùng ở người trên 65 tuổi: ...': an age band that starts at the elderly's age is their own dose."""
    if row.age is None or row.age.gestational:
        return False
    lo, _ = row.age.years()
    return lo is not None and lo >= ELDERLY_YEARS


def _label_names(row: DoseRow, population: str) -> bool:
    """'Trên bệnh nhân cao tuổi, bệnh nhân suy giảm chức năng gan: ...', 'người lớn và trẻ em trên 10 kg: ...': a
    label naming this group among the groups it is for (the row's population is then left open: either)."""
    head = row.text[:150]
    labels = head[: head.rfind(":")] if ":" in head else ""  # every label that opens the statement
    return _text_names(labels, population)


def _text_names(text: str, population: str) -> bool:
    return any(pop == population and pattern.search(fold(text)) for pattern, pop in POPULATION_PATTERNS)


def _by_group_label(candidates: list[DoseRow], p: Patient) -> list[DoseRow]:
    """Groups the book names by words, not ages ("Trẻ nhỏ:", "Trẻ lớn:"): the one the question names, when it
    names one of them as printed."""
    said = " " + " ".join(_said_words(p.question)) + " "
    labels = {id(r): _opening_label(r) for r in candidates if r.age is None and r.weight_kg is None}
    distinct = _distinct(label for label in labels.values() if label)
    if len(distinct) < 2:
        return candidates
    named = [label for label in distinct if " " + " ".join(_said_words(label)) + " " in said]
    if len(named) != 1:
        return candidates
    return [r for r in candidates if labels.get(id(r)) in (None, "", named[0]) or id(r) not in labels]


def _by_gestation(candidates: list[DoseRow], p: Patient) -> list[DoseRow]:
    """A newborn whose weeks of gestation are given: where the book bounds a dose by gestation and that band fits,
    a plain "Sơ sinh:" dose by the same route (no bound of its own) is the other newborns' band, a neighbour
    ("Sơ sinh thiếu tháng trên 32 tuần ...", then "Sơ sinh: ..."), not this patient's."""
    if p.gestational_weeks is None:
        return candidates
    preterm = {k for r in candidates if r.age is not None and r.age.gestational for k in r.route}
    return [r for r in candidates
            if not (r.population == "so_sinh" and r.age is None and r.kind in DOSE_KINDS
                    and r.route and set(r.route) <= preterm)]


def _opening_label(row: DoseRow) -> str:
    head, colon, _ = row.text.partition(":")
    return head.strip() if colon and len(head) <= 30 and not any(ch.isdigit() for ch in head) else ""


def _instructions_asked(rows: list[DoseRow], p: Patient) -> list[DoseRow]:
    """The statements that print the words of the instruction topic the question asks about (lexicon
    INSTRUCTION_TOPICS: a missed dose, meals, preparing); [] when it asks about none. Tables are left to the PDF."""
    said = Text.of(p.question)
    printed = [words for asks, words in INSTRUCTION_TOPICS if any(find(said, a) for a in asks)]
    if not printed:
        return []
    wanted = [w for words in printed for w in words]
    found = [r for r in rows if not r.quarantined
             and any(re.search(r"(?<!\w)" + re.escape(w) + r"(?!\w)", r.text.lower()) for w in wanted)]
    # "pha lọ ... để tiêm bắp": the instructions for the route asked (and those printed for no route)
    return [r for r in found if not r.route or route_matches(p.route, r.route)] or found if p.route else found


# a measure a table is read by, printed in capitals in its header or caption ("APTT (giây)", "INR")
_ACRONYM = re.compile(r"(?<!\w)[A-Z][A-Z0-9]{2,}(?!\w)")


def _tables_asked(rows: list[DoseRow], p: Patient) -> list[DoseRow]:
    """The tables whose header line or caption prints a measure (an acronym: APTT, INR) the question names, for
    this patient's group; [] when the question names none."""
    said = {w.lower() for w in re.findall(r"\w+", p.question)}
    if not said:
        return []
    out = []
    for r in rows:
        if not r.quarantined or not fits_group(r, p):
            continue
        header = " ".join([r.text.split("\n", 1)[0], r.indication or "", *r.headings])
        if any(m.group(0).lower() in said for m in _ACRONYM.finditer(header)):
            out.append(r)
    return out


_HOW_LONG = re.compile(r"\b(?:bao lau|may ngay|may tuan|may thang|thoi gian dieu tri|dung trong bao)\b")
_DURATION = re.compile(r"thời gian (?:điều trị|dùng)|kéo dài|liệu trình|trong \d+(?:\s*-\s*\d+)? (?:ngày|tuần|tháng)")


def _with_durations(rows: list[DoseRow], chosen: list[DoseRow], p: Patient) -> list[DoseRow]:
    """'... liều thế nào, trong bao lâu?': the statements of how long, under the same indication and group as the
    doses chosen, go with them."""
    if not chosen:
        return chosen
    keys = {(r.indication, r.population) for r in chosen}
    extra = [r for r in rows if r not in chosen and r.kind == "instruction" and (r.indication, r.population) in keys
             and _DURATION.search(r.text.lower())]
    if _HOW_LONG.search(fold(p.question)):
        return [r for r in rows if r in chosen or r in extra]
    # unasked, the course's length printed right after a dose chosen ("30 mg/kg/ngày ... Uống ít nhất trong 10
    # ngày."): part of that regimen, shown after it (the rows chosen stay as chosen: some are a part of a statement)
    out: list[DoseRow] = []
    for r in chosen:
        out.append(r)
        i = next((k for k, row in enumerate(rows) if (row.chunk_id, row.start) == (r.chunk_id, r.start)), None)
        nxt = rows[i + 1] if i is not None and i + 1 < len(rows) else None
        if nxt is not None and nxt in extra and nxt not in chosen and nxt not in out and nxt.headings \
                and nxt.headings == rows[i].headings:
            out.append(nxt)
    return out


# "Cũng có thể dùng đường truyền tĩnh mạch với liều tương tự liều dùng trong đau thắt ngực.": the dose is another
# indication's, by the same route
_DOSE_OF_ANOTHER = re.compile(r"(?:tương tự|giống|như|bằng) (?:với )?liều (?:dùng )?(?:trong|cho|ở|điều trị|khi) "
                              r"([^.;()]{3,80})")


def _with_referenced(rows: list[DoseRow], chosen: list[DoseRow], p: Patient) -> list[DoseRow]:
    """A statement that gives its dose as another indication's ("liều tương tự liều dùng trong đau thắt ngực") is
    shown with that indication's doses by the same route, after it."""
    out: list[DoseRow] = []
    for r in chosen:
        out.append(r)
        m = _DOSE_OF_ANOTHER.search(r.text)
        if m is None or not r.route:
            continue
        named = m.group(1).strip()
        for q in rows:
            if q not in out and q not in chosen and (q.kind in DOSE_KINDS or _AMOUNT.search(q.text)) and q.indication \
                    and q.indication != r.indication and set(q.route) & set(r.route) \
                    and indication_score(named, q.model_copy(update={"headings": [], "text": ""})) >= 0.5:
                # it prints the amount referred to: a dose, titled with its indication
                out.append(q if q.kind in DOSE_KINDS else q.model_copy(update={"kind": "dose"}))
    return out


def _own_group(candidates: list[DoseRow], p: Patient, fit: Fit) -> list[DoseRow]:
    """A pregnant or breastfeeding patient: the book's own doses for that group ("Ở phụ nữ mang thai: 15 mg/kg/
    lần"), when it gives some among these, instead of the adults' in general."""
    own = [r for r in candidates if p.population in ("mang_thai", "cho_con_bu") and r.population == p.population]
    fit.specific = fit.specific or bool(own)
    return own or candidates


def _ask_patient(candidates: list[DoseRow], p: Patient, known: bool, fit: Fit) -> bool:
    """Set what to ask of the patient before these doses can be told apart; True when something is asked."""
    if not known and _groups_differ(candidates):
        fit.ask_population = True
    elif p.is_child and _child_facts_missing(candidates, p):
        fit.ask_age_or_weight = True
    return fit.ask_population or fit.ask_age_or_weight


def doses_group_in_general(rows: list[DoseRow], p: Patient) -> bool:
    """The section gives this patient's group a dose for no indication in particular, or for the one the person
    named: a question asked about that group's dose is one the book answers, whatever it warns about the group."""
    own = [r for r in rows if r.kind in ("dose", "loading_dose") and fits_group(r, p)
           and (_for_children(r) if p.is_child else not _for_children(r))]
    return any(r.indication is None or (p.condition and indication_matches(p.condition, r)) for r in own)


# "Trẻ em: Liều dùng như người lớn", "Giống như người lớn", "như liều người lớn": the children's dose is the adults'
_SAME_AS_ADULTS = re.compile(r"(?<!\w)(?:giống\s+)?như\s+(?:liều\s+(?:dùng\s+)?(?:của\s+|cho\s+|ở\s+)?)?người lớn(?!\w)",
                             re.I)


def _groups_differ(candidates: list[DoseRow]) -> bool:
    """The doses that remain are given for children and for others alike: the group must be known first. A
    children's row with no band of its own that gives the adults' dose ("Trẻ em: Liều dùng như người lớn") does not
    make them differ: the answer is the same for both, shown with that row's own words (its caveats included)."""
    dosed = [r for r in candidates if r.kind in ("dose", "loading_dose")]
    children = [r for r in dosed if _for_children(r)
                and not (r.age is None and r.weight_kg is None and _SAME_AS_ADULTS.search(r.text))]
    return bool(children) and any(not _for_children(r) for r in dosed)


_WEIGHT_LABEL = re.compile(r"\d\s*kg\s*:")


def _by_weight_band(candidates: list[DoseRow], p: Patient) -> list[DoseRow]:
    """A child whose weight, not age, is given, and a dose the book draws by a weight band that holds it ("Với trẻ
    cân nặng > 21 kg - dưới 30 kg: ..."): the weight decides; the doses drawn by an age band, which the age not
    given cannot check, are left out rather than asked for."""
    if p.weight_kg is None or p.age_years is not None or p.gestational_weeks is not None:
        return candidates
    weighed = [r for r in candidates if r.kind in DOSE_KINDS and r.weight_kg is not None and r.age is None
               and len(_WEIGHT_LABEL.findall(r.text)) <= 1]  # one band's statement, not two read as one
    if not weighed:
        return candidates
    aged = [r for r in candidates if r.kind in DOSE_KINDS and r.age is not None and not r.age.gestational]
    weighed_routes = {k for r in weighed for k in r.route}
    if any(set(r.route) - weighed_routes for r in aged):
        # the age bands dose by a route the weight bands do not ("Uống: Trẻ em 4 - 6 tuổi: 240 mg" beside
        # "Truyền tĩnh mạch: Dưới 50 kg: ..."): the age still decides those, so it is asked
        return candidates
    return [r for r in candidates if r not in aged]


def _child_facts_missing(candidates: list[DoseRow], p: Patient) -> bool:
    """The child's doses need an age or a weight the person has not given, because the book draws them by it:

    - bands that differ ("6 tháng - 2 tuổi: 120 mg", "4 - 6 tuổi: 240 mg"), or a band beside an unbounded dose;
    - a dose whose band does not start at birth ("Trên 1 tuổi", "Trẻ từ 1 tháng - 18 tuổi") or whose words set the
      newborn period aside ("ngoài thời kỳ sơ sinh"): a younger child is outside it, so the age
      decides whether any applies;
    - for a newborn, bands within the first weeks of life ("7 ngày tuổi hoặc nhỏ hơn", "7 - 28 ngày tuổi");
    - a weight band ("cân nặng dưới 20 kg") when the weight is not given.

    A dose per kg given for every child with no band ("Trẻ em: 0,75 mg/kg/ngày") needs neither: it reads the same
    for every child, the weight only multiplies it."""
    dosed = [r for r in candidates if r.kind in DOSE_KINDS]
    if p.age_years is None and p.gestational_weeks is None:
        aged = [r for r in dosed if r.age is not None and not r.age.gestational]
        if p.population == "so_sinh":  # "sơ sinh" says the month, not the days the neonate's bands are drawn in
            aged = [r for r in aged if (r.age.years()[1] or 1.0) <= NEONATE_YEARS]
            bands = {(r.age.min, r.age.max, r.age.unit) for r in aged}
            if len(bands) > 1:
                return True
        else:
            bands = {(r.age.min, r.age.max, r.age.unit) for r in aged}
            if len(bands) > 1 or (bands and any(r.age is None for r in dosed)):
                return True
            if any(_after_birth(r) for r in dosed):
                return True
    if p.weight_kg is None:
        return any(r.weight_kg is not None for r in dosed)
    return False


# "Liều chung (ngoài thời kỳ sơ sinh):", "trừ trẻ sơ sinh": a child's dose that sets the newborn period aside
_NOT_NEWBORNS = re.compile(r"(?<!\w)(?:ngoài|trừ)\s+(?:thời kỳ\s+|giai đoạn\s+)?(?:trẻ\s+)?sơ sinh(?!\w)", re.I)


def _after_birth(row: DoseRow) -> bool:
    """The row's band starts after birth, by its bounds or its words."""
    if row.age is not None and not row.age.gestational:
        low = row.age.years()[0]
        return low is not None and low > 0
    return any(_NOT_NEWBORNS.search(t) for t in (row.text, *row.headings))


def _adults_from_childhood(row: DoseRow) -> bool:
    """'Liều cho người lớn và trẻ em trên 12 tuổi': an adults' row whose age band starts in childhood holds the
    children of that band too (their age is then compared with it)."""
    if row.population != "nguoi_lon" or row.age is None or row.age.gestational:
        return False
    lo, _ = row.age.years()
    return lo is not None and 0 < lo < ADULT_YEARS


# Routes whose dose acts where it is applied: a section that names no group for them gives one way for everyone
LOCAL_ROUTES = frozenset({"boi", "nho_mat", "tra_mat", "dat_am_dao"})


def _applied_alike(rows: list[DoseRow], candidates: list[DoseRow]) -> bool:
    """No statement of the section names a group, an age or a weight, and every dose that fits is applied
    locally: the book's way of applying it is not an adult's dose withheld from a child."""
    doses = [r for r in candidates if r.kind in DOSE_KINDS]
    return bool(doses) and all(r.route and set(r.route) & LOCAL_ROUTES for r in doses) and not any(
        r.population is not None or r.age is not None or r.weight_kg is not None or _label_names(r, "tre_em")
        for r in rows)


def _for_children(row: DoseRow) -> bool:
    if row.population in ("tre_em", "so_sinh"):
        return True
    if row.population is None and _label_names(row, "tre_em"):
        return True  # "Dùng dung dịch trực tràng, người lớn và trẻ em trên 10 kg: ...": children among its groups
    if row.population is None and any(groups_together(h) and _text_names(h, "tre_em") for h in row.headings):
        return True  # under "Cho người lớn, người cao tuổi và trẻ em:" alone on its line
    weight = row.weight_kg
    if row.population is None and weight is not None and weight.max is not None and weight.max <= CHILD_MAX_KG:
        return True  # "Người dưới 40 kg: 45 mg/kg/ngày": a band no adult of usual weight is in holds children
    if row.age is None:
        return False
    lo, hi = row.age.years()
    return row.age.gestational or (hi is not None and hi <= ADULT_YEARS)


def _specific(row: DoseRow) -> bool:
    """An instruction that carries a number and bounds its own age or weight (kept with the doses)."""
    return any(ch.isdigit() for ch in row.text) and (row.age is not None or row.weight_kg is not None)


def route_names(rows: list[DoseRow]) -> list[str]:
    """The names of the routes the dose statements give, in book order ("Uống", "Tiêm bắp")."""
    return [ROUTE_NAMES[r] for r in _routes([row for row in rows if row.kind in DOSE_KINDS]) if r in ROUTE_NAMES]


def _routes(rows: list[DoseRow]) -> list[str]:
    return _distinct(route for r in rows for route in r.route)


def _distinct(values) -> list:
    out: list = []
    for v in values:
        if v is not None and v not in out:
            out.append(v)
    return out


# ---- the case a band label prints: a phase, an extent, a severity, a maturity ----------------------------------
# Families of words the book prints in band labels to tell one case of a regimen from another, each family a set of
# members that exclude each other (folded, whole words). General clinical vocabulary, no drug, no passage.
_CASE_FAMILIES: tuple[tuple[tuple[str, str], ...], ...] = (
    (("preterm", r"thieu thang|non thang|de non|sinh non"), ("term", r"du thang")),
    (("spread", r"lan toa|toan than|phat tan"), ("local", r"khu tru|tai cho")),
    (("acute", r"cap tinh|cap(?! cuu)"), ("chronic", r"man tinh|man(?! cam)")),
    (("severe", r"nang|tram trong|nghiem trong"), ("mild", r"nhe|vua|trung binh")),
    # "Phòng các đợt huyết khối" beside "Điều trị các đợt huyết khối": "phòng" before what it prevents
    (("prevent", r"du phong|phong ngua|phong(?= (?:cac|benh|huyet|nhiem|tranh|chong)\b)"), ("treat", r"dieu tri")),
    (("attack", r"tan cong|khoi dau|ban dau|lieu nap|lieu dau"), ("maintain", r"duy tri")),
    (("young", r"tre nho|nhu nhi|tre bu me"), ("older", r"tre lon|thieu nien")),
    # which dialysis: through the peritoneum, or of the blood
    (("peritoneal", r"mang bung|phuc mac"),
     ("haemodialysis", r"(?:tham tach|tham phan|loc) (?:qua )?mau|chay than nhan tao|than nhan tao")),
)
# "cân nặng", "nặng 8 kg", "nặng hơn": a weight, not a severity
_WEIGHT_WORDS = re.compile(r"\bcan nang\b|\bnang\s*(?:\d|hon\b|nhat\b)|\bnhe\s*(?:hon\b|can\b)")
_PHASE_STOP = frozenset("co khi cua o trong va la".split())


def _members(text: str) -> set[str]:
    """The case members a label's or a question's words name, diacritics folded."""
    folded = _WEIGHT_WORDS.sub(" ", fold(text))
    return {name for family in _CASE_FAMILIES for name, pattern in family
            if re.search(r"(?<!\w)(?:" + pattern + r")(?!\w)", folded)}


def cases_replaced(earlier: str, later: str) -> str:
    """The earlier turn's words with each case the later turn replaces blanked out: after "... đang chạy thận nhân
    tạo", "còn bn lọc màng bụng thì sao" is a patient on peritoneal dialysis; after "khởi đầu bao nhiêu", "giờ duy
    trì bao nhiêu" asks the maintenance dose. A weight ("nặng 18 kg") is no severity and stays."""
    named = _members(later)
    folded = fold(earlier)
    if not named or len(folded) != len(earlier):
        return earlier
    kept = {m.span() for m in _WEIGHT_WORDS.finditer(folded)}
    out = list(earlier)
    for family in _CASE_FAMILIES:
        if not named & {name for name, _ in family}:
            continue
        for name, pattern in family:
            if name in named:
                continue
            for m in re.finditer(r"(?<!\w)(?:" + pattern + r")(?!\w)", folded):
                if not any(a <= m.start() < b for a, b in kept):
                    out[m.start() : m.end()] = " " * (m.end() - m.start())
    return re.sub(r" {2,}", " ", "".join(out)).strip()


def _phase_words(label: str) -> tuple[str, ...]:
    """'Trong giai đoạn dưỡng bệnh' -> ('dưỡng', 'bệnh'): the words that name the phase, as printed."""
    words = re.findall(r"\w+", label.lower())
    folded = [fold(w) for w in words]
    for i in range(len(words) - 1):
        if folded[i : i + 2] == ["giai", "doan"]:
            return tuple(w for w, f in zip(words[i + 2 :], folded[i + 2 :], strict=True) if f not in _PHASE_STOP)
    return ()


def _phase_said(words: tuple[str, ...], said: list[str]) -> bool:
    """The question names the phase by its words together ("dưỡng bệnh"); a phase named by a number or a short
    word only ("giai đoạn 2") is named with "giai đoạn" before it."""
    if any(len(w) >= 3 and not w.isdigit() for w in words):
        return _phrase_said(list(words), said)
    return _phrase_said(["giai", "đoạn", *words], said)


def case_labels(row: DoseRow, rows: list[DoseRow]) -> list[str]:
    """The labels that name the row's case: its headings, its opening label, and for a band that goes on the label
    of the statement above it ("Sơ sinh thiếu tháng (0 - 7 ngày): ...", then "(7 - 30 ngày): ..."), that label."""
    labels = [*row.headings]
    head, colon, _ = row.text.partition(":")
    head = head.strip()
    if colon and len(head) <= 80:
        labels.append(head)
    inherited = continued_label(row, rows)
    if inherited:
        labels.append(inherited)
    return labels


# a label that is a band alone, in brackets: "(7 - 30 ngày)"
_BARE_BAND = re.compile(r"^\(\s*[^()]*\d[^()]*\)$")


def continued_label(row: DoseRow, rows: list[DoseRow]) -> str:
    """The label of the statement above whose group a bare band in brackets goes on ("(7 - 30 ngày): ..." after
    "Sơ sinh thiếu tháng (0 - 7 ngày): ..."), '' when the row's label is no such band."""
    above = _continued_row(row, rows)
    if above is None:
        return ""
    return re.sub(r"\s*\([^()]*\)\s*$", "", above.text.partition(":")[0].strip())  # its group, not its band


def _continued_row(row: DoseRow, rows: list[DoseRow]) -> DoseRow | None:
    head, colon, _ = row.text.partition(":")
    if not colon or not _BARE_BAND.match(head.strip()) or row not in rows:
        return None
    for before in reversed(rows[: rows.index(row)]):
        if before.headings != row.headings:
            return None
        above, colon_above, _ = before.text.partition(":")
        above = above.strip()
        if colon_above and len(above) <= 120 and not _BARE_BAND.match(above):
            return before
    return None


def _with_group_above(row: DoseRow, rows: list[DoseRow]) -> DoseRow:
    """A bare bracketed band shown under the group of the label it goes on (its title names that group)."""
    above = _continued_row(row, rows)
    if above is None or above.population is None or above.population == row.population:
        return row
    return row.model_copy(update={"population": above.population})


def _asked_members(p: Patient) -> set[str]:
    """The case members the question names, and those its facts imply (weeks of gestation, an infant's age)."""
    asked = _members(p.question)
    if p.gestational_weeks is not None and not asked & {"preterm", "term"}:
        asked.add("preterm" if p.gestational_weeks < 37 else "term")
    if p.age_years is not None and p.age_years < 1 and not asked & {"young", "older"}:
        asked.add("young")  # an infant is a "trẻ nhỏ", never a "trẻ lớn"
    return asked


def _by_printed_case(candidates: list[DoseRow], rows: list[DoseRow], p: Patient) -> list[DoseRow]:
    """Where the question names a case (a phase, an extent, a severity, a maturity) and rows of the same indication
    print that case in their labels, the rows of that indication that print only another case of the same family
    are another patient's ("Trong giai đoạn đầu có sốt" for a convalescent child): dropped. Rows that print no
    case of the family stay."""
    asked = _asked_members(p)
    said = _said_words(p.question)
    named = {id(r): _members(" ; ".join(case_labels(r, rows))) for r in candidates}
    phases = {id(r): [w for label in case_labels(r, rows) if (w := _phase_words(label))] for r in candidates}
    drop: set[int] = set()
    for family in _CASE_FAMILIES:
        names = {name for name, _ in family}
        wanted = asked & names
        if not wanted:
            continue
        # "Nhiễm khuẩn nhẹ, vừa:" beside "Nhiễm khuẩn nặng:": one indication, told apart by the case alone
        matching = {_case_free(r.indication) for r in candidates if named[id(r)] & wanted}
        drop |= {id(r) for r in candidates if _case_free(r.indication) in matching and named[id(r)] & names
                 and not named[id(r)] & wanted}
    # a phase the book names by its own words ("giai đoạn dưỡng bệnh"): the question names it by all of them
    said_phase = {id(r) for r in candidates if any(_phase_said(words, said) for words in phases[id(r)])}
    matching = {r.indication for r in candidates if id(r) in said_phase}
    drop |= {id(r) for r in candidates if r.indication in matching and phases[id(r)] and id(r) not in said_phase}
    kept = [r for r in candidates if id(r) not in drop] or candidates
    if "maintain" in asked and "attack" not in asked:
        # "duy trì bao nhiêu?": the statements that print the maintenance ("Thông thường, liều duy trì là ..."),
        # where the book prints one in its own words; the starting doses beside them are not asked
        upkeep = [r for r in kept if "maintain" in named[id(r)] | _members(r.text)]
        if any(r.kind in DOSE_KINDS for r in upkeep):
            return upkeep
    return kept


_CASE_WORDS = re.compile(r"\b(?:" + "|".join(pattern for family in _CASE_FAMILIES for _, pattern in family) + r")\b")


def _case_free(indication: str | None) -> str | None:
    """The indication without the words that name its case (a severity, a phase): "nhiem khuan" for both
    "Nhiễm khuẩn nhẹ, vừa" and "Nhiễm khuẩn nặng"."""
    if indication is None:
        return None
    return " ".join(re.sub(r"[^\w\s]", " ", _CASE_WORDS.sub(" ", fold(indication))).split())


def clcr_table_lines(row: DoseRow, chunk_text: str, clcr: float) -> list[tuple[int, int]]:
    """The line of a renal table (a quarantined row) whose first cell is a clearance band holding this Clcr
    (`table_row_for_patient`); [] when the row is no renal table or no single line holds it."""
    if row.renal is None:
        return []
    return table_row_for_patient(row, chunk_text, clcr, (), "")[0]


# a table's first cell as a band: "10 - 25", "0 - 10 ml/phút", "< 50", "> 120", "Dưới 5", "5 -10", "100"
_CELL_BAND = re.compile(r"^\s*(?:([<>≤≥])|(dưới|trên|từ)\s)?\s*(\d+(?:,\d+)?)(?:\s*[-–]\s*(\d+(?:,\d+)?))?"
                        r"(?:\s*[^\W\d_][^\d|]*)?\s*$", re.I)  # a unit after the band ("ml/phút"), no number
_CLEARANCE_HEADER = re.compile(r"clcr|thanh thai creatinin|thanh thai", re.I)
SMALL_TABLE_LINES = 10  # body lines of a table read row by row; a longer one is left to the PDF
_PER_SURFACE = re.compile(r"1[,.]73|m\s*2\b|m²")


def table_cell_band(cell: str) -> tuple[float, float] | None:
    """A first cell's band as (low, high), bounds included ("< 10" holds 10 too: a value on a printed bound is held
    by both rows beside it, so neither is chosen); None when the cell is no band."""
    m = _CELL_BAND.match(cell)
    if not m:
        return None
    op, word, a, b = m.group(1), (m.group(2) or "").lower(), float(m.group(3).replace(",", ".")), m.group(4)
    if b is not None:
        return tuple(sorted((a, float(b.replace(",", ".")))))
    if op in ("<", "≤") or word == "dưới":
        return float("-inf"), a
    if op in (">", "≥") or word in ("trên", "từ"):
        return a, float("inf")
    return a, a


def table_lines(row: DoseRow, chunk_text: str) -> list[tuple[int, int]]:
    """A quarantined row's lines, as (start, end) offsets in the chunk's text (the header first)."""
    out, pos = [], row.start
    for line in chunk_text[row.start : row.end].split("\n"):
        out.append((pos, pos + len(line.rstrip())))
        pos += len(line) + 1
    return [(a, b) for a, b in out if b > a]


def header_lab_value(text: str, header: tuple[int, int], labs) -> float | None:
    """The patient's value of the analyte a table header's first cell names, without its unit in brackets
    ("APTT (giây)"); None when it names none of the patient's lab values."""
    from duocthu_desktop.qa.understanding import lab_values

    first = re.sub(r"\([^)]*\)", " ", text[header[0] : header[1]].split("|")[0])
    named = {t.analyte for t in lab_values.thresholds(first + " 0 - 0")}
    asked = [lab for lab in labs if lab.analyte in named]
    return asked[0].value if asked else None


def lines_holding(text: str, lines: list[tuple[int, int]], value: float) -> list[tuple[int, int]]:
    """The table lines whose first cell's band (`table_cell_band`) holds the value."""
    bands = [table_cell_band(text[a:b].split("|")[0]) for a, b in lines]
    return [line for line, band in zip(lines, bands, strict=True) if band and band[0] <= value <= band[1]]


def table_row_for_patient(row: DoseRow, chunk_text: str, clcr: float | None, labs, question: str
                          ) -> tuple[list[tuple[int, int]], bool]:
    """The line of a table (a quarantined row) for this patient, read one way for every table: the header's first
    cell names what its first cells band (a clearance, or an analyte of the patient's lab values: "APTT (giây)"),
    and the one body line whose band holds the patient's value is the row; with no value asked, the one line whose
    first cell the question names word for word (`table_lines_named`). Returns (lines, clean): clean when the
    table is small, every body line's first cell reads as a range or an open band (not a single value, which the
    PDF's reader interpolates between) and the row has every column of the header, so the row can be told without
    the PDF."""
    lines = table_lines(row, chunk_text)
    if len(lines) < 2 or "|" not in chunk_text[lines[0][0] : lines[0][1]]:
        return [], False
    header = chunk_text[lines[0][0] : lines[0][1]]
    first = re.sub(r"\([^)]*\)", " ", header.split("|")[0])
    value = None
    if clcr is not None and (row.renal is not None or _CLEARANCE_HEADER.search(fold(first))):
        value = clcr
    else:
        value = header_lab_value(chunk_text, lines[0], labs)
    body = lines[1:]
    first_cells = [chunk_text[a:b].split("|")[0] for a, b in body]
    if value is None:
        named = _dialysis_line(body, first_cells, question)
        if named:
            return named, _reads_whole(chunk_text, header, body, named[0])
        return table_lines_named(row, chunk_text, question), False
    # a line named by its words alone ("Thẩm tách máu") is a case beside the bands, never one of them
    bands = [table_cell_band(cell) for cell in first_cells if re.search(r"\d", cell)]
    holding = _qualified_as_said(lines_holding(chunk_text, body, value), chunk_text, question)
    if len(holding) != 1:
        return [], False
    # a table of single values ("40 | 620", "30 | 465") is read between its lines, and a clearance per body
    # surface ("ml/phút/1,73m2") is not the one the person gave: both left to the PDF
    per_surface = bool(_PER_SURFACE.search(header.split("|")[0]))
    clean = not per_surface and all(b and b[0] < b[1] for b in bands)
    return holding, clean and _reads_whole(chunk_text, header, body, holding[0])


def _reads_whole(text: str, header: str, body: list[tuple[int, int]], line: tuple[int, int]) -> bool:
    """A small table's line with every column of its header, the first two printing something."""
    cells = text[line[0] : line[1]].split("|")
    return (len(body) <= SMALL_TABLE_LINES and len(cells) == header.count("|") + 1
            and all(c.strip() for c in cells[:2]))


# the words a band's first cell closes with that qualify it ("< 10 có kèm rối loạn chức năng gan"), not its unit
_CELL_UNIT = re.compile(r"\(?\s*ml\s*/\s*(?:phut|min)\s*\)?|\bml\b|\bphut\b")
_QUALIFIER_STOP = frozenset("o va do trong khi cua cho voi la nhung cac mot co kem roi loan chuc nang suy benh nguoi".split())


def _cell_qualifier(cell: str) -> list[str]:
    m = _CELL_BAND.match(cell)
    if not m:
        return []
    rest = _CELL_UNIT.sub(" ", fold(cell[m.end(3) if m.group(4) is None else m.end(4) :]))
    return [w for w in re.findall(r"[a-z]+", rest) if w not in _QUALIFIER_STOP]


# "gan bình thường", "chức năng gan tốt", "không suy gan": an organ said to be well is no qualifier said
_NORMAL_SAID = re.compile(r"(?:chuc nang\s+)?[a-z]+\s+(?:van\s+)?(?:binh thuong|tot)(?![a-z])"
                          r"|(?<![a-z])khong\s+(?:co\s+|bi\s+)*(?:roi loan\s+|suy\s+|benh\s+)?(?:chuc nang\s+)?[a-z]+")


def _qualified_as_said(holding: list[tuple[int, int]], text: str, question: str) -> list[tuple[int, int]]:
    """Among the lines whose band holds the patient's value, those a qualifier sets apart ("< 10 có kèm rối loạn
    chức năng gan" beside "< 10"): the qualified line when the question says its words, else the plain one."""
    if len(holding) < 2:
        return holding
    said = {fold(w) for w in _said_words(_NORMAL_SAID.sub(" ", fold(question).lower()))}
    qualifiers = {line: _cell_qualifier(text[line[0] : line[1]].split("|")[0]) for line in holding}
    if not any(qualifiers.values()):
        return holding
    own = [line for line, words in qualifiers.items() if words and all(w in said for w in words)]
    return own or [line for line, words in qualifiers.items() if not words]


def _dialysis_line(body: list[tuple[int, int]], first_cells: list[str], question: str) -> list[tuple[int, int]]:
    """The one line whose first cell names the dialysis the question names ("Thẩm tách màng bụng" for "bn lọc
    màng bụng", "thẩm phân phúc mạc"); [] when the question names no dialysis or no single line is its."""
    if not names_dialysis(question):
        return []
    asked = _members(question) & {"peritoneal", "haemodialysis"}
    found = [line for line, cell in zip(body, first_cells, strict=True)
             if names_dialysis(cell) and _members(cell) & asked]
    return found if len(found) == 1 else []


# "..., cứ 12 giờ một lần với trẻ dưới 1 tuần tuổi, hoặc tiếp theo là 10 mg/kg, cứ 8 giờ một lần cho trẻ từ 1 tuần
# tới 1 tháng tuổi": one statement, two alternatives each closing on the band it is for
_OR_CLAUSE = re.compile(r",\s+hoặc\s+", re.I)
_AND_CLAUSE = re.compile(r"\s+và\s+(?=[\d(])", re.I)  # "... cho trẻ em từ 12 đến 15 tuổi và 1 200 mg cho ..."
_BAND_TAIL = re.compile(r"(?<!\w)(?:với|cho|ở)\s+((?:các\s+)?(?:trẻ|người|bệnh nhân|bệnh nhi)\b[^,;]*)$", re.I)


def _own_alternative(row: DoseRow, p: Patient) -> DoseRow:
    """A statement whose first alternative closes on a band that holds the patient and whose other alternative
    closes on a band that does not: only its first alternative, quoted as printed up to there. Any other
    arrangement stays whole (each alternative shows its own band)."""
    if p.age_years is None or row.kind not in DOSE_KINDS:
        return row
    parts = _OR_CLAUSE.split(row.text.rstrip(" ."))
    if len(parts) == 1:
        parts = _AND_CLAUSE.split(row.text.rstrip(" ."))
    if len(parts) != 2:
        return row
    bands = []
    for part in parts:
        m = _BAND_TAIL.search(part)
        band = age_in(m.group(1), True) if m else None
        if band is None or band.gestational:
            return row
        bands.append(band)
    first, other = (_within(p.age_years, *b.years()) for b in bands)
    if not first or other:
        return row
    cut = _OR_CLAUSE.search(row.text) or _AND_CLAUSE.search(row.text)
    return row.model_copy(update={"text": row.text[: cut.start()], "end": row.start + cut.start(), "age": bands[0]})


# words that name nothing in a table's first cell ("Cơ học ở vị trí van 2 lá")
_CELL_STOP = frozenset("o va do trong khi cua cho voi la nhung cac mot co".split())


def table_lines_named(row: DoseRow, chunk_text: str, question: str) -> list[tuple[int, int]]:
    """The one line of a table (a quarantined row) whose first cell the question names word for word (three words
    at least, a number among them as printed: "van 2 lá" is not "van 3 lá"), with a second cell that prints
    something, as (start, end) in the chunk's text; [] when no line or several are named so."""
    said = _said_words(question)
    found = []
    pos = row.start
    for i, line in enumerate(chunk_text[row.start : row.end].split("\n")):
        start, pos = pos, pos + len(line) + 1
        first, bar, rest = line.partition("|")
        if not i or not bar or not rest.strip():
            continue
        words = [w for w in _said_words(first) if w.isdigit() or (len(w) > 1 and fold(w) not in _CELL_STOP)]
        if len(words) >= 3 and all(any(words_agree(q, w) for q in said) for w in words):
            found.append((start, start + len(line.rstrip())))
    return found if len(found) == 1 else []
