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
