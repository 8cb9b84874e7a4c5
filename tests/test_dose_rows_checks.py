"""The gold-free dose-row report (`duocthu-ingest check DIR --dosing`): what each check finds, and that the
report never changes the exit code of `check`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from duocthu_desktop.dosage.checks import CHECKS, check_rows, format_report, indication_problem
from duocthu_desktop.dosage.rows import DoseRow
from duocthu_desktop.dosage.why import explain
from ingestion.cli import main
from tests.test_dosing_parser import read


def _row(text: str, **fields) -> DoseRow:
    return DoseRow(drug_id="thuoc_a", chunk_id="c", printed_page=1, text=text, start=0, end=len(text), **fields)


def test_each_check_finds_its_own_kind_of_row() -> None:
    rows = [
        _row("Người lớn: 500 mg/lần.", population="nguoi_lon"),
        _row("Liều 250 mg/lần, ngày 2 lần."),  # a dose with no group in a section that names groups
        _row("Liều 1 g/ngày.", population="nguoi_lon", indication="Trong đại đa số trường hợp, INR phải giữ giữa 2 và 3."),
        _row("Liều 2 g/ngày.", population="nguoi_lon", indication="Duy trì"),
        _row("Ngày uống 3 lần, mỗi lần 50 mg.", population="nguoi_lon"),  # route named, route []
        _row("Tiêm 75 đvqt/kg.", population="nguoi_lon", kind="instruction"),
        _row("Người lớn: 500 mg/lần.", population="nguoi_lon"),  # a duplicate
        _row("- 1.", kind="instruction"),
    ]
    counts = check_rows(rows).counts()
    assert set(counts) == set(CHECKS)
    assert counts["ungrouped_dose"] == 1
    assert counts["indication_not_heading"] == 2
    assert counts["own_words_contradicted"] >= 1
    assert counts["dose_as_instruction"] == 1
    assert counts["duplicate_or_empty"] == 2
    assert format_report(check_rows(rows))[-1].startswith("dosing totals: rows 8")


def test_making_the_solution_up_is_no_dose_read_as_an_instruction() -> None:
    # ticarcilin, and a dose the report does flag
    rows = [_row("Để pha dung dịch ban đầu dùng tiêm bắp, cho thêm 2 ml nước vô khuẩn để tiêm.", kind="instruction"),
            _row("Giai đoạn 2: Sau khi hòa tan bột, pha loãng với 50 ml dung dịch.", kind="instruction"),
            _row("Tiêm bắp: 1 g/ngày.", kind="instruction")]
    assert check_rows(rows).counts()["dose_as_instruction"] == 1


def test_a_concentration_or_a_clearance_in_an_instruction_is_no_dose() -> None:
    # aciclovir, vancomycin (sample book), escitalopram (sample-e, tuning); the rate limit is a dose the report flags
    rows = [_row("Dung dịch để truyền thường được pha để có nồng độ khoảng 5 mg/ml (0,5%).", kind="instruction"),
            _row("Nồng độ vancomycin trong máu cần đạt 30 - 40 microgam/ml.", kind="instruction"),
            _row("Nồng độ hemoglobin không được tăng quá 1 g/100 ml trong 2 tuần.", kind="instruction"),
            _row("Suy thận nặng (Clcr < 20 ml/phút): Thận trọng khi sử dụng.", kind="instruction"),
            _row("Khi tiêm tĩnh mạch trực tiếp, tốc độ không quá 4 mg/phút ở người lớn.", kind="instruction")]
    assert [f.text[:10] for f in check_rows(rows).findings if f.check == "dose_as_instruction"] == ["Khi tiêm t"]


def test_an_indication_heading_is_not_flagged() -> None:
    for words in ("Điều trị động kinh", "Nhiễm khuẩn huyết, viêm màng não", "phù phổi cấp",
                  "Viêm phổi mắc phải tại cộng đồng", "Chàm, nhất là chàm bị lichen hóa"):
        assert indication_problem(words) is None, words
    assert indication_problem("FFP: fresh frozen plasma") == "glossary line"


def test_why_names_the_rule_behind_each_field() -> None:
    rows = read("Uống:\nTrẻ em 4 - 6 tuổi: 240 mg/lần.")
    why = explain(rows[0])
    assert why["route"].startswith("heading 'Uống' (rule route")
    assert why["population"].startswith("own label 'Trẻ em 4 - 6 tuổi' (rule group")


@pytest.mark.integration
def test_check_dosing_prints_the_report_and_keeps_the_exit_code(sample_build: Path, capsys) -> None:
    plain = main(["check", str(sample_build)])
    capsys.readouterr()
    assert main(["check", str(sample_build), "--dosing"]) == plain
    out = capsys.readouterr().out.splitlines()
    assert any(line.startswith("dosing totals: rows ") for line in out)


@pytest.mark.integration
def test_inspect_dosing_adds_why_and_keeps_the_contract_fields(sample_build: Path, capsys) -> None:
    assert main(["inspect", str(sample_build), "--drug", "paracetamol", "--dosing"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines and all("why" in line and "route" in line and "kind" in line for line in lines)
