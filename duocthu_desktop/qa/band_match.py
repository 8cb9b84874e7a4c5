"""Matching a patient (a QueryFrame) to the bands of a section: which bands fit, and when none can be chosen yet,
why (a route or a group to ask for, or no dose printed for this patient); and the title naming each band's group.

Unknown facts never exclude a band; a stated fact excludes every band printed for another value of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from duocthu_desktop.qa.band_context import Band
from duocthu_desktop.qa.band_labels import (
    ADULT_AGE,
    INJECTION,
    IV_FAMILY,
    NEONATE_AGE,
    POPULATION_PATTERNS,
    ROUTE_NAMES,
    Range,
    mentioned_routes,
)
from duocthu_desktop.qa.frame import QueryFrame
from duocthu_desktop.text import fold


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
        return bool(band_routes & INJECTION)
    return route in IV_FAMILY and bool(band_routes & IV_FAMILY)


# Words that head many indications ("viêm", "nhiễm khuẩn", "nặng"): they alone never tell one indication from
# another, so a condition is matched on its other words when it has any ("viêm tai giữa" -> "tai", "giữa").
_GENERIC_CONDITION_WORDS = frozenset(
    {"viem", "nhiem", "khuan", "trung", "nang", "nhe", "vua", "cap", "man", "tinh", "khong", "bien", "chung"}
)


def condition_score(condition: str, label: str) -> float:
    """Share of the condition's words found in an indication label (diacritics folded)."""
    stop = {"dieu", "tri", "cat", "bi", "benh", "nguoi", "cho", "va", "cua", "do", "trong"}
    want = {w for w in re.findall(r"[0-9a-z]+", fold(condition)) if w not in stop}
    have = set(re.findall(r"[0-9a-z]+", fold(label)))
    if not want:
        return 0.0
    plain = len(want & have) / len(want)
    specific = want - _GENERIC_CONDITION_WORDS
    if not specific or specific == want:
        return plain
    return max(plain, len(specific & have) / len(specific)) if specific & have else min(plain, 0.49)


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
        # For a child, among equally matching labels one printed for children beats one read with no group: the
        # book labels every child's dose, and an unlabelled dose is an adult's ("Viêm não do HSV:" under a lost
        # "Người lớn:") — a child gets "Viêm não - màng não HSV ... ở trẻ ...". Adults keep the closest label.
        accepted_now = frame_populations(frame) or set()
        if "nguoi_lon" in accepted_now:
            accepted_now = set()
        scored = [
            (
                (
                    condition_score(frame.condition, _indications(b)),
                    1.0 if b.populations & accepted_now else 0.0,
                    condition_score(b.indication, frame.condition),
                ),
                b,
            )
            for b in fitting_any_route
            if b.indication
        ]
        best = max((s for s, _ in scored), default=(0.0, 0.0, 0.0))
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


def _indications(band: Band) -> str:
    """Every indication heading above a band, outer first: "viêm tai" is found in "Nhiễm vi khuẩn nhạy cảm ở tai,
    mũi, họng ..." even when the band's own heading is "Nhiễm khuẩn nhẹ, vừa:"."""
    return " ".join(lv.label for lv in band.levels("indication"))


def _route_families(routes: list[str]) -> set[str]:
    return {"iv" if r in IV_FAMILY else r for r in routes}


def band_title(band: Band) -> str:
    """A Vietnamese title naming exactly the group this band's dose is for."""
    parts: list[str] = []
    own = band.label
    own_names_group = bool(own) and any(p.search(fold(own)) for p, _ in POPULATION_PATTERNS)
    for lv in band.context:
        if lv.kind == "population" and not own_names_group:
            parts.append(lv.label)
        elif lv.kind in ("indication", "organ"):
            if lv.attrs.populations and band.populations and not (lv.attrs.populations & band.populations):
                continue  # "Nhiễm khuẩn huyết sơ sinh" above a lost heading never titles "Trẻ 1 tháng – 18 tuổi"
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
