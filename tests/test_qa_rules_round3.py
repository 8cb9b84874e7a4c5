"""Rules added in the third hidden-like round (indications, maximum doses, frequency, renal/hepatic, one-fact
follow-ups), each checked on the sample book's real chunks or on frames.

Bands: "Không tiêm vượt quá 25 mg/kg" still names an injection; an indication is matched on its specific words
("viêm tai giữa" -> "... ở tai, mũi, họng"), across every heading above the band; an age range opening a band beats
a group word in an indication heading above it; for a child, a label printed for children beats one read with no
group. Memory: a follow-up that changes the patient's group drops the earlier group, age and weight.
"""

from __future__ import annotations

import pytest

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.qa.bands import Band, choose_bands, condition_score, cut_bands, mentioned_routes
from duocthu_desktop.qa.frame import QueryFrame
from duocthu_desktop.qa.memory import merge


def _bands(chunks: list[Chunk], drug: str) -> list[Band]:
    part = sorted(
        (c for c in chunks if c.drug_id == drug and c.section_key == "lieu_luong_cach_dung"),
        key=lambda c: c.part_index,
    )
    return cut_bands(part)


def _dosing(**facts) -> QueryFrame:
    return QueryFrame(question=facts.pop("question", "liều"), turn_type="dosing", **facts)


# ---- routes named in a sentence -------------------------------------------------------------------------------


def test_a_ceiling_per_injection_still_names_the_injection() -> None:
    assert mentioned_routes("Trẻ em: Không tiêm vượt quá 25 mg/kg một lần.") & {"tiem_bap", "tiem_tinh_mach"}
    assert mentioned_routes("Trẻ em: Không truyền quá 50 mg/kg một lần.") == {"truyen_tinh_mach"}
    assert not mentioned_routes("Không tiêm tĩnh mạch dung dịch này.")  # a route ruled out is not named


# ---- indications ----------------------------------------------------------------------------------------------


def test_generic_words_alone_do_not_match_an_indication() -> None:
    ent = "Nhiễm vi khuẩn nhạy cảm ở tai, mũi, họng, da, đường tiết niệu Nhiễm khuẩn nhẹ, vừa"
    lyme = "Bệnh Lyme Viêm khớp, không kèm theo rối loạn thần kinh do bệnh Lyme"
    assert condition_score("viêm tai giữa", ent) >= 0.5
    assert condition_score("viêm tai giữa", lyme) < 0.5
    assert condition_score("viêm tai giữa", ent) > condition_score("viêm tai giữa", lyme)


@pytest.mark.integration
def test_oral_otitis_child_gets_only_the_ent_bands(sample_chunks: list[Chunk]) -> None:
    frame = _dosing(route="uong", condition="viêm tai giữa", population="tre_em", age_years=4, weight_kg=16)
    chosen = choose_bands(_bands(sample_chunks, "amoxicilin"), frame).bands
    texts = " ".join(b.text for b in chosen)
    assert "20 mg/kg/ngày" in texts
    assert "50 mg/kg/ngày chia làm 3 lần" not in texts  # Lyme
    assert "Không tiêm vượt quá" not in texts and "Không truyền quá" not in texts  # injection ceilings


# ---- groups ---------------------------------------------------------------------------------------------------


@pytest.mark.integration
def test_an_age_range_opening_the_band_beats_a_group_word_in_the_indication(sample_chunks: list[Chunk]) -> None:
    teen = [b for b in _bands(sample_chunks, "gentamicin") if b.text.startswith("Từ trên 12 tuổi")]
    assert teen and all(b.populations == {"tre_em"} for b in teen)
    frame = _dosing(route="tiem_bap", condition="nhiễm khuẩn huyết", population="tre_em", age_years=14)
    texts = " ".join(b.text for b in choose_bands(_bands(sample_chunks, "gentamicin"), frame).bands)
    assert "liều 2 mg/kg" in texts and "liều 2,5 mg/kg" not in texts


@pytest.mark.integration
def test_a_child_gets_the_childrens_label_over_an_unlabelled_one(sample_chunks: list[Chunk]) -> None:
    frame = _dosing(route="tiem_tinh_mach", condition="viêm não do HSV", population="tre_em", age_years=5)
    texts = " ".join(b.text for b in choose_bands(_bands(sample_chunks, "aciclovir"), frame).bands)
    assert "20 mg/kg/lần" in texts and "Viêm não do HSV: 10 mg/kg/lần" not in texts
    adult = _dosing(route="tiem_tinh_mach", condition="viêm não do HSV", population="nguoi_lon")
    texts = " ".join(b.text for b in choose_bands(_bands(sample_chunks, "aciclovir"), adult).bands)
    assert "10 mg/kg/lần" in texts and "500 mg/m" not in texts


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


@pytest.mark.integration
def test_a_heading_naming_another_group_never_titles_a_band(sample_chunks: list[Chunk]) -> None:
    from duocthu_desktop.qa.bands import band_title

    teen = [b for b in _bands(sample_chunks, "gentamicin") if b.text.startswith(("Từ trên 12 tuổi", "Trẻ 1 tháng"))]
    assert teen and all("sơ sinh" not in band_title(b).lower() for b in teen)
    neonate = [b for b in _bands(sample_chunks, "gentamicin") if b.text.startswith("Trẻ sơ sinh (< 32 tuần")]
    assert neonate and all("sơ sinh" in band_title(b).lower() for b in neonate)
