"""Dosage bands: every band rule checked on the sample book's real chunks (and the label readers on its words)."""

from __future__ import annotations

import pytest

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.qa.bands import Band, band_title, choose_bands, cut_bands, detect_attrs, detect_routes
from duocthu_desktop.qa.frame import QueryFrame

# ---- label readers ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "low", "high"),
    [
        ("Trẻ em 4 - 6 tuổi", 4, 6),
        ("Trẻ em 6 tháng - 2 tuổi", 0.5, 2),
        ("Trẻ em 3 - 6 tháng tuổi", 0.25, 0.5),
        ("1 - 5 tuổi", 1, 5),
        ("Trẻ 12 - 18 tuổi", 12, 18),
        ("10 - 16 tuổi", 10, 16),
        ("trên 12 tuổi", 12, float("inf")),
        ("dưới 2 tuổi", 0, 2),
    ],
)
def test_age_ranges(label: str, low: float, high: float) -> None:
    age = detect_attrs(label).age
    assert age is not None and age[0] == pytest.approx(low) and age[1] == pytest.approx(high)


@pytest.mark.parametrize(
    ("label", "low", "high"),
    [
        ("cân nặng 10 - 50 kg", 10, 50),
        ("Trẻ em cân nặng < 10 kg", 0, 10),
        ("> 50 kg", 50, float("inf")),
        ("Trên 50 kg", 50, float("inf")),
        ("Dưới 50 kg", 0, 50),
    ],
)
def test_weight_ranges(label: str, low: float, high: float) -> None:
    weight = detect_attrs(label).weight
    assert weight is not None and (weight[0], weight[1]) == (low, high)


def test_doses_per_kg_and_durations_are_not_bands() -> None:
    assert detect_attrs("15 mg/kg cách nhau 4 - 6 giờ/lần; tối đa 60 mg/ kg/24 giờ").weight is None
    assert detect_attrs("sốt kéo dài trên 3 ngày").age is None
    assert detect_attrs("tăng đường huyết trong 2 - 3 tháng gần đây").age is None


def test_a_dose_like_another_group_does_not_name_that_group() -> None:
    assert detect_attrs("Viêm kết mạc nhiễm khuẩn: Dùng liều như người lớn.").populations == set()
    assert detect_attrs("Trẻ em cân nặng > 50 kg: Dùng liều như người lớn.").populations == {"tre_em"}


def test_gestational_weeks_and_renal_bands() -> None:
    neonate = detect_attrs("Sơ sinh 28 - 32 tuần chỉnh theo tuổi thai")
    assert neonate.weeks == (28, 32, True, True) and neonate.populations == {"so_sinh"}
    assert detect_attrs("Clcr 10 - 50 ml/phút").clcr == (10, 50, True, True)
    assert detect_attrs("Clcr ≤ 30 ml/phút").clcr == (0, 30, True, True)


@pytest.mark.parametrize(
    ("label", "routes"),
    [
        ("Uống", {"uong"}),
        ("Đặt trực tràng", {"truc_trang"}),
        ("Truyền tĩnh mạch trong 15 phút", {"truyen_tinh_mach"}),
        ("Tiêm bắp", {"tiem_bap"}),
        ("Ngậm dưới lưỡi hoặc nhai", {"ngam_duoi_luoi"}),
        ("Uống, đặt trực tràng", {"uong", "truc_trang"}),
        ("Đối với người bệnh không uống được", set()),
        ("Điều trị đồng thời metformin và sulfonylurê uống", set()),
        ("Khi dùng liều 50 mg/kg", set()),  # "khi dùng" is not "khí dung"
        ("Với phẫu thuật kết trực tràng, tiêm 2 g", set()),
    ],
)
def test_routes_read_at_the_start_only(label: str, routes: set[str]) -> None:
    assert detect_routes(label) == routes


# ---- the sample book --------------------------------------------------------------------------------------


def _bands(chunks: list[Chunk], drug: str) -> list[Band]:
    part = sorted(
        (c for c in chunks if c.drug_id == drug and c.section_key == "lieu_luong_cach_dung"),
        key=lambda c: c.part_index,
    )
    return cut_bands(part)


def _chosen(chunks: list[Chunk], drug: str, **frame: object) -> list[Band]:
    choice = choose_bands(_bands(chunks, drug), QueryFrame(turn_type="dosing", **frame))
    assert not choice.missing_route and not choice.missing_population and not choice.no_fit
    return choice.bands


def _text(bands: list[Band]) -> str:
    return "\n".join(b.text for b in bands)


pytestmark = pytest.mark.integration


def test_paracetamol_is_cut_into_labelled_nested_bands(sample_chunks: list[Chunk]) -> None:
    bands = _bands(sample_chunks, "paracetamol")
    band = next(b for b in bands if b.text == "Trẻ em 4 - 6 tuổi: 240 mg")
    assert band.routes == {"uong"} and band.indication == "Đau, sốt" and band.range_of("age")[:2] == (4, 6)
    assert band.chunk.text[band.start : band.end] == band.text  # verbatim span
    rectal = next(b for b in bands if b.text.startswith("1 - 5 tuổi:"))
    assert rectal.routes == {"truc_trang"} and rectal.populations == {"tre_em"}  # inherited
    iv_adult = next(b for b in bands if b.text.startswith("Trên 50 kg:"))
    assert iv_adult.routes == {"truyen_tinh_mach"} and iv_adult.populations == {"nguoi_lon"}
    post_op = next(b for b in bands if b.text.startswith("Trẻ em 1 tháng - 6 tuổi:"))
    assert post_op.indication == "Đau sau phẫu thuật"  # a label printed at the end of the previous paragraph


def test_adult_oral_gets_oral_adult_band_only(sample_chunks: list[Chunk]) -> None:
    bands = _chosen(sample_chunks, "paracetamol", population="nguoi_lon", route="uong")
    text = _text(bands)
    assert "0,5 - 1 g/lần" in text and "4 g/ngày" in text
    assert "15 mg/kg" not in text  # the IV < 50 kg band
    assert all("tre_em" not in b.populations or "nguoi_lon" in b.populations for b in bands)
    assert all(b.routes <= {"uong"} for b in bands)


def test_several_routes_and_none_given_asks_for_route(sample_chunks: list[Chunk]) -> None:
    choice = choose_bands(
        _bands(sample_chunks, "paracetamol"), QueryFrame(turn_type="dosing", population="nguoi_lon")
    )
    assert choice.missing_route == ["uong", "truc_trang", "truyen_tinh_mach"]
    assert choice.bands == []


def test_single_route_book_needs_no_route(sample_chunks: list[Chunk]) -> None:
    bands = _chosen(sample_chunks, "metformin", population="nguoi_lon")
    text = _text(bands)
    assert "500 mg hoặc 850 mg" in text
    assert "10 - 16 tuổi" not in text and "cao tuổi" not in text  # no child band, no elderly band


def test_child_age_band_and_route(sample_chunks: list[Chunk]) -> None:
    bands = _chosen(
        sample_chunks, "paracetamol", population="tre_em", age_years=5, weight_kg=18, route="uong"
    )
    text = _text(bands)
    assert "Trẻ em 4 - 6 tuổi: 240 mg" in text
    assert "480 - 750 mg" not in text and "12 - 16 tuổi" not in text
    assert "Trẻ em cân nặng 10 - 50 kg" not in text  # an IV weight band, not oral
    for b in bands:
        age = b.range_of("age")
        assert age is None or age[0] <= 5 <= age[1]
        assert b.routes <= {"uong", "truc_trang"}  # route-less or oral ("Uống, đặt trực tràng:" prose)


def test_child_weight_band_for_the_route_given(sample_chunks: list[Chunk]) -> None:
    bands = _chosen(
        sample_chunks, "paracetamol", population="tre_em", age_years=5, weight_kg=18, route="truyen_tinh_mach"
    )
    text = _text(bands)
    assert "Trẻ em cân nặng 10 - 50 kg: 15 mg/kg" in text
    assert "< 10 kg" not in text and "> 50 kg" not in text and "240 mg" not in text


def test_adult_weight_band(sample_chunks: list[Chunk]) -> None:
    text = _text(
        _chosen(sample_chunks, "paracetamol", population="nguoi_lon", weight_kg=60, route="truyen_tinh_mach")
    )
    assert "Trên 50 kg" in text and "Dưới 50 kg" not in text


def test_neonate_gestational_band(sample_chunks: list[Chunk]) -> None:
    text = _text(
        _chosen(sample_chunks, "paracetamol", population="so_sinh", gestational_weeks=30, route="uong")
    )
    assert "Sơ sinh 28 - 32 tuần chỉnh theo tuổi thai: 20 mg/kg" in text
    assert "Sơ sinh trên 32 tuần" not in text and "Trẻ em 4 - 6 tuổi" not in text


def test_renal_band_only_when_clcr_given_and_matching(sample_chunks: list[Chunk]) -> None:
    with_clcr = _text(_chosen(sample_chunks, "paracetamol", population="nguoi_lon", route="uong", clcr=30))
    assert "Người lớn, Clcr 10 - 50 ml/phút, cho cách nhau 6 giờ/lần." in with_clcr
    assert "Clcr < 10" not in with_clcr and "trẻ em, Clcr" not in with_clcr
    without = _text(_chosen(sample_chunks, "paracetamol", population="nguoi_lon", route="uong"))
    assert "Clcr" not in without


def test_indication_band_and_sublingual_route(sample_chunks: list[Chunk]) -> None:
    bands = _chosen(
        sample_chunks, "isosorbid_dinitrat", route="ngam_duoi_luoi", condition="cắt cơn đau thắt ngực"
    )
    text = _text(bands)
    assert "2,5 - 5 mg/lần" in text
    assert "suy tim" not in " ".join(band_title(b) for b in bands).lower()
    assert "30 - 160 mg/ngày" not in text and "Liều khởi đầu 5 - 20 mg/lần" not in text


def test_indication_population_and_rectal_route(sample_chunks: list[Chunk]) -> None:
    bands = _chosen(
        sample_chunks,
        "diazepam",
        population="nguoi_lon",
        route="truc_trang",
        condition="trạng thái động kinh",
    )
    assert "500 microgam/kg" in _text(bands)
    assert {b.indication for b in bands} == {
        "Trạng thái động kinh, co giật do sốt cao, co giật do ngộ độc thuốc"
    }
    assert "10 - 20 mg" not in _text(bands)  # the IV dose of the same indication


def test_child_age_inside_a_sentence(sample_chunks: list[Chunk]) -> None:
    text = _text(_chosen(sample_chunks, "metformin", population="tre_em", age_years=12, weight_kg=45))
    assert "10 - 16 tuổi" in text and "500 mg" in text
    assert "2 500 mg/ngày" not in text  # the adult paragraph


def test_no_band_fits_shows_the_bands_each_with_its_label(sample_chunks: list[Chunk]) -> None:
    choice = choose_bands(
        _bands(sample_chunks, "paracetamol"),
        QueryFrame(turn_type="dosing", population="nguoi_lon", route="tiem_bap"),
    )
    assert choice.no_fit and len(choice.bands) > 10
    assert all(b.part == "lieu" for b in choice.bands)


def test_unknown_population_with_adult_and_child_bands_asks(sample_chunks: list[Chunk]) -> None:
    choice = choose_bands(_bands(sample_chunks, "paracetamol"), QueryFrame(turn_type="dosing", route="uong"))
    assert choice.missing_population


def test_titles_name_each_band_own_group(sample_chunks: list[Chunk]) -> None:
    bands = _chosen(
        sample_chunks, "paracetamol", population="tre_em", age_years=5, weight_kg=18, route="uong"
    )
    band = next(b for b in bands if b.text == "Trẻ em 4 - 6 tuổi: 240 mg")
    assert band_title(band) == "Liều dùng — Đau, sốt — Trẻ em 4 - 6 tuổi (uống)"
    for b in _bands(sample_chunks, "paracetamol"):
        title = band_title(b)
        if b.populations == {"nguoi_lon"}:
            assert "Trẻ em" not in title and "Sơ sinh" not in title
        if b.populations and b.populations <= {"tre_em", "so_sinh"}:
            assert "Người lớn" not in title


def test_gentamicin_neonate_bands_by_gestational_weeks(sample_chunks: list[Chunk]) -> None:
    text = _text(
        _chosen(
            sample_chunks, "gentamicin", population="so_sinh", gestational_weeks=30, route="tiem_tinh_mach"
        )
    )
    assert "29 - 35 tuần" in text and "< 29 tuần" not in text and "> 35 tuần" not in text
