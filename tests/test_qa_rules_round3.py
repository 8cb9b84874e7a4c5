"""Rules added in the third hidden-like round (indications, maximum doses, frequency, renal/hepatic, one-fact
follow-ups), each checked on the sample book's real chunks or on frames.

Memory: a follow-up that changes the patient's group drops the earlier group, age and weight. (The dose-band
rules of this round now live in tests/test_dosage_fit.py.)
"""

from __future__ import annotations

from duocthu_desktop.qa.conversation.memory import merge
from duocthu_desktop.qa.understanding.frame import QueryFrame


def _dosing(**facts) -> QueryFrame:
    return QueryFrame(question=facts.pop("question", "liều"), turn_type="dosing", **facts)


# ---- memory ---------------------------------------------------------------------------------------------------


def test_follow_up_with_a_child_age_drops_the_adult_group() -> None:
    prior = _dosing(population="nguoi_lon", weight_kg=60, weight_text="60 kg", drug_ids=["aciclovir"])
    merged = merge(prior, QueryFrame(question="còn nếu bé 5 tuổi thì sao?", age_years=5, age_text="5 tuổi"))
    assert merged.population is None and merged.age_years == 5 and merged.weight_kg is None


def test_follow_up_with_a_new_child_age_keeps_the_child_group_and_weight() -> None:
    prior = _dosing(population="tre_em", age_years=8, weight_kg=25, weight_text="25 kg")
    merged = merge(prior, QueryFrame(question="còn nếu bé 14 tuổi thì sao?", age_years=14, age_text="14 tuổi"))
    assert (merged.population, merged.age_years, merged.weight_kg) == ("tre_em", 14, 25)


def test_follow_up_naming_adults_drops_the_childs_age_and_weight() -> None:
    prior = _dosing(population="tre_em", age_years=8, age_text="8 tuổi", weight_kg=25, weight_text="25 kg")
    merged = merge(prior, QueryFrame(question="còn người lớn thì sao?", population="nguoi_lon"))
    assert merged.population == "nguoi_lon" and merged.age_years is None and merged.weight_kg is None
