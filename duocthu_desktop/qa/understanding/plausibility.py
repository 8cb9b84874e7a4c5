"""Patient values no patient has: a weight of 5000 kg, an age of 200, a Clcr of 500 ml/phút.

A dose must never be chosen for such a value, and it must never be ignored in silence either: the decision table
asks back, repeating what was read ("Cân nặng đọc được là 5000 kg, có đúng không? ..."). The bounds are wide on
purpose (an extremely premature newborn weighs about 0,3 kg): they catch a typo or a slip of reading, never a
rare patient.
"""

from __future__ import annotations

import math
import re

from duocthu_desktop.messages import IMPLAUSIBLE_ASK, IMPLAUSIBLE_NAMES, IMPLAUSIBLE_READ, TOO_MANY_DIGITS
from duocthu_desktop.qa.understanding.frame import QueryFrame

WEIGHT_KG_MIN = 0.3
WEIGHT_KG_MAX = 300.0
AGE_YEARS_MAX = 130.0
CLCR_MIN = 0.0  # ml/phút
CLCR_MAX = 200.0  # ml/phút

# Turns where a number in the text is not a patient's ("xe tải nặng 5000 kg" is out of scope anyway).
_NO_PATIENT_TURNS = ("out_of_scope", "smalltalk")
_SHOWN_DIGITS = 12  # a longer run of digits is repeated cut, with an ellipsis
_LONG_DIGITS = re.compile(rf"\d{{{_SHOWN_DIGITS + 1},}}")


def _outside(value: float | None, low: float | None, high: float) -> bool:
    if value is None:
        return False
    if math.isnan(value):
        return True
    return value > high or (low is not None and value < low)


def implausible(frame: QueryFrame) -> list[str]:
    """Which of weight, age and Clcr the frame holds outside what a patient can have ('weight', 'age', 'clcr')."""
    if frame.turn_type in _NO_PATIENT_TURNS:
        return []
    found: list[str] = []
    if _outside(frame.weight_kg, WEIGHT_KG_MIN, WEIGHT_KG_MAX):
        found.append("weight")
    if _outside(frame.age_years, None, AGE_YEARS_MAX):
        found.append("age")
    if _outside(frame.clcr, CLCR_MIN, CLCR_MAX):
        found.append("clcr")
    return found


def clarify_message(frame: QueryFrame) -> str | None:
    """The question that repeats each implausible value as read, or None when every value is plausible."""
    found = implausible(frame)
    if not found:
        return None
    reads = [IMPLAUSIBLE_READ[what].format(read=_as_read(frame, what)) for what in found]
    names = [IMPLAUSIBLE_NAMES[what] for what in found]
    reads[1:] = [r[0].lower() + r[1:] for r in reads[1:]]
    return IMPLAUSIBLE_ASK.format(reads=", ".join(reads), names=" và ".join(names))


def _as_read(frame: QueryFrame, what: str) -> str:
    if what == "weight":
        text = frame.weight_text or _number(frame.weight_kg, " kg")
    elif what == "age":  # "bé 2000 tháng" is repeated from its number on
        text = frame.age_text[_first_digit(frame.age_text):] if frame.age_text else _number(frame.age_years, " tuổi")
    else:
        text = _number(frame.clcr, " ml/phút")
    return _LONG_DIGITS.sub(lambda m: m.group(0)[:_SHOWN_DIGITS] + "…", text)


def _first_digit(text: str) -> int:
    m = re.search(r"\d", text)
    return m.start() if m else 0


def _number(value: float | None, unit: str = "") -> str:
    """A value with no typed text kept (Clcr), as Vietnamese writes it; one too large to show, said so."""
    if value is None or not math.isfinite(value) or abs(value) >= 10**_SHOWN_DIGITS:
        return TOO_MANY_DIGITS.format(n=_SHOWN_DIGITS)
    if value.is_integer():
        return f"{int(value)}{unit}"
    return f"{value:.6f}".rstrip("0").rstrip(".").replace(".", ",") + unit
