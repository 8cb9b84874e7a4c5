"""A route the statement prints in its own words is read wherever it stands, and doses printed as instructions
(drops of a solution, a frequency in words) are doses."""

from __future__ import annotations

from tests.test_dosing_parser import read, row


def test_a_route_named_late_in_a_sentence_is_read_when_no_heading_names_one() -> None:
    rows = read("Liều duy trì thường dao động từ 50 - 100 mg/lần, ngày uống 3 lần.")
    assert rows[0].route == ["uong"]


def test_a_heading_route_is_kept_for_a_sentence_that_names_none() -> None:
    rows = read("Tiêm bắp:\nNgười lớn: 1 g/lần, ngày 2 lần.")
    assert row(rows, "Người lớn").route == ["tiem_bap"]


def test_drops_of_a_solution_and_a_frequency_in_words_are_doses() -> None:
    rows = read("Nhỏ 1 giọt dung dịch 0,25% vào mắt bị bệnh, 2 lần/ngày.\nBôi một dải 1,3 cm vào túi kết mạc, ngày một lần.")
    assert row(rows, "Nhỏ 1 giọt").kind == "dose"
    assert row(rows, "Bôi một dải").kind == "dose"
