"""The route a question names: the site of a disease ("huyết khối tĩnh mạch sâu") and terms holding a route word
("dây thần kinh tam thoa") are not routes, and they stay conditions the warnings can read."""

from __future__ import annotations

import pytest

from duocthu_desktop.qa.answers.comorbidities import Said, bears_on
from duocthu_desktop.qa.understanding.extractors import extract_route
from duocthu_desktop.qa.understanding.textmatch import Text


@pytest.mark.parametrize(
    ("question", "route"),
    [
        ("Phụ nữ có tiền sử huyết khối tĩnh mạch sâu, uống thuốc này liều bao nhiêu?", "uong"),
        ("Người lớn đau dây thần kinh tam thoa uống thuốc liều thế nào?", "uong"),
        ("Bị viêm tĩnh mạch sau khi tiêm tĩnh mạch", "tiem_tinh_mach"),
        ("bệnh ngoài da bôi kem", "boi"),
        ("tiền sử huyết khối tĩnh mạch, liều bao nhiêu?", None),
        ("Bệnh nhân đã tiêm bắp", "tiem_bap"),
    ],
)
def test_a_disease_of_a_route_site_is_no_route(question, route):
    assert extract_route(Text.of(question)) == route


def test_a_disease_of_a_route_site_is_still_a_condition():
    said = Said.of("Phụ nữ có tiền sử huyết khối tĩnh mạch sâu, uống thuốc liều bao nhiêu?", [])
    assert bears_on("Có tiền sử huyết khối tĩnh mạch sâu.", said)
    plain = Said.of("tiêm tĩnh mạch cho người lớn", [])
    assert not bears_on("Viêm tĩnh mạch.", plain)
