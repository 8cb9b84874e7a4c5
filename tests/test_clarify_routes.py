"""A route is asked only between routes a person can choose: a statement whose route the parser could not name
("other") is neither offered nor the reason to ask. Texts after sample-e's carboplatin and cloxacilin."""

from __future__ import annotations

from duocthu_desktop.dosage.fit import Patient, choose
from tests.test_dosing_parser import read


def test_an_unnamed_route_beside_one_named_route_asks_nothing() -> None:
    rows = read("Truyền tĩnh mạch trong 15 - 60 phút. Liều thường dùng từ 300 - 450 mg/m2.",
                "Thuốc có thể dùng theo đường tiêm trong khớp 500 mg mỗi lần.")
    assert rows[-1].route == ["other"]
    fit = choose(rows, Patient(population="nguoi_lon"))
    assert fit.ask_route == []
    assert [r.text for r in fit.rows] == ["Liều thường dùng từ 300 - 450 mg/m2."]


def test_two_named_routes_that_dose_differently_are_still_asked() -> None:
    rows = read("Uống 250 - 500 mg/lần, ngày 4 lần.", "Truyền tĩnh mạch liên tục 6 g trong 24 giờ.",
                "Thuốc có thể dùng theo đường tiêm trong khớp 500 mg mỗi lần.")
    fit = choose(rows, Patient(population="nguoi_lon"))
    assert set(fit.ask_route) == {"uong", "truyen_tinh_mach"}


VANCOMYCIN = (
    "Người lớn:\nLiều thông thường cho người lớn có chức năng thận bình thường: 500 mg, cứ 6 giờ một lần hoặc 1 g, "
    "cứ 12 giờ một lần, truyền tĩnh mạch.\nTrẻ em từ 1 tháng tuổi trở lên: truyền tĩnh mạch 10 mg/kg, cứ 6 giờ một lần.",
    "Điều trị viêm đại tràng do Clostridium difficile:\nUống 0,5 - 2 g mỗi ngày chia làm 3 - 4 lần, dùng 7 - 10 ngày.",
)


def test_another_route_given_only_under_an_indication_is_offered_not_asked() -> None:
    """The sample book's vancomycin: its general doses are infused, by mouth only for C. difficile colitis."""
    rows = read(*VANCOMYCIN)
    fit = choose(rows, Patient(population="nguoi_lon"))
    assert fit.ask_route == []
    assert [r.text[:30] for r in fit.rows] == ["Liều thông thường cho người lớ"]
    assert fit.other_indications == ["Điều trị viêm đại tràng do Clostridium difficile"]
    named = choose(rows, Patient(population="nguoi_lon", condition="viêm đại tràng do Clostridium difficile"))
    assert [r.route for r in named.rows] == [["uong"]]
