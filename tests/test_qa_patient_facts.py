"""Patient facts for the safety warnings: trimester, kidney and liver disease, an age given as a bound."""

from __future__ import annotations

import pytest

from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.qa.understanding.patient_facts import add_patient_facts, extract_trimester
from duocthu_desktop.qa.understanding.textmatch import Text


def _facts(text: str, **fields) -> QueryFrame:
    return add_patient_facts(QueryFrame(question=text, **fields), text)


@pytest.mark.parametrize(
    ("text", "pregnant", "expected"),
    [
        ("phụ nữ mang thai 3 tháng đầu", True, 1),
        ("bà bầu 3 tháng giữa", True, 2),
        ("có thai 3 tháng cuối", True, 3),
        ("thai phụ ở tam cá nguyệt thứ hai", True, 2),
        ("tam cá nguyệt thứ nhất", False, 1),  # the phrase says pregnancy on its own
        ("mang thai 30 tuần", True, 3),
        ("mang thai 8 tuần", True, 1),
        ("bầu 5 tháng", True, 2),
        ("mang thai tuần thứ 20", True, 2),
        ("mang thai 3 thang dau", True, 1),  # typed without diacritics
        ("có thai", True, None),
        ("theo dõi trong 3 tháng đầu điều trị", False, None),  # treatment, not pregnancy
    ],
)
def test_trimester(text: str, pregnant: bool, expected: int | None) -> None:
    assert extract_trimester(Text.of(text), pregnant) == expected


def test_trimester_sets_pregnant() -> None:
    frame = _facts("Liều warfarin ở tam cá nguyệt thứ ba")
    assert frame.trimester == 3 and frame.pregnant


@pytest.mark.parametrize(
    "text",
    ["người suy thận", "bệnh nhân bệnh thận mạn", "đang chạy thận", "nguoi suy than", "suy giảm chức năng thận"],
)
def test_renal_impairment(text: str) -> None:
    assert _facts(text).renal_impairment


def test_renal_from_clcr_below_normal_only() -> None:
    assert _facts("Clcr 35 ml/phút", clcr=35.0).renal_impairment
    assert not _facts("Clcr 110 ml/phút", clcr=110.0).renal_impairment


@pytest.mark.parametrize("text", ["bệnh nhân không suy thận", "chưa bị suy thận", "khong suy than"])
def test_renal_negated(text: str) -> None:
    assert not _facts(text).renal_impairment


@pytest.mark.parametrize("text", ["người suy gan", "bị xơ gan", "bệnh gan", "benh nhan xo gan", "nguoi bi benh gan"])
def test_hepatic_impairment(text: str) -> None:
    assert _facts(text).hepatic_impairment


@pytest.mark.parametrize(
    "text",
    [
        "Bệnh nhân gần đây bị sốt",  # "gần" folds to "gan": never the liver
        "bệnh gần đây",
        "benh gan day bi sot",  # no diacritics: "bệnh gần đây"
        "bệnh nhân không suy gan",
    ],
)
def test_not_hepatic(text: str) -> None:
    assert not _facts(text).hepatic_impairment


def test_age_bound() -> None:
    assert _facts("trẻ em dưới 16 tuổi", age_years=16.0).age_bound == "below"
    assert _facts("người trên 65 tuổi", age_years=65.0).age_bound == "above"
    assert _facts("người từ 65 tuổi trở lên", age_years=65.0).age_bound == "above"
    assert _facts("bé 5 tuổi", age_years=5.0).age_bound is None


def test_can_i_use_with_organ_disease_reads_contraindications() -> None:
    frame = _facts("Người suy gan dùng paracetamol được không?", drug_ids=["paracetamol"])
    assert frame.section_key == "chong_chi_dinh" and frame.turn_type == "drug_attribute"
    asked = _facts("Liều paracetamol cho người suy gan", drug_ids=["paracetamol"],
                   section_key="lieu_luong_cach_dung", turn_type="dosing")
    assert asked.section_key == "lieu_luong_cach_dung" and asked.turn_type == "dosing"


def test_understand_reads_the_facts(catalog) -> None:
    from duocthu_desktop.qa.understanding.question import understand

    frame = understand("Liều warfarin cho bà bầu 3 tháng đầu", catalog)
    assert frame.pregnant and frame.trimester == 1
    frame = understand("Liều metformin cho người suy thận Clcr 35 ml/phút", catalog)
    assert frame.renal_impairment and frame.clcr == 35.0
    frame = understand("Bệnh nhân gần đây bị sốt dùng paracetamol được không?", catalog)
    assert not frame.hepatic_impairment
