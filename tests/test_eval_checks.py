"""The eval checks beyond the CONTRACT's fields: `forbid` over block titles, `warning_first`, `by_category` totals.

Payloads are built by hand (no index): each check is shown failing and passing.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from duocthu_desktop import cli_eval
from duocthu_desktop.artifacts import PAGES_FILE, PageEntry, PageMap
from duocthu_desktop.messages import DISCLAIMER
from duocthu_desktop.payload import AnswerPayload, Block, Citation, Claim


def citation(quote: str) -> Citation:
    return Citation(index=1, chunk_id="furosemid__lieu_luong_cach_dung__0", drug_id="furosemid",
                    section_key="lieu_luong_cach_dung", printed_page=673, physical_page=40, quote=quote)


def payload(*blocks: Block, message: str = "") -> AnswerPayload:
    """An answer whose one citation quotes every claim, so only the check under test can fail."""
    quote = " ".join(claim.text.replace("[1]", "") for block in blocks for claim in block.claims)
    return AnswerPayload(decision="answerable", message=message, blocks=list(blocks), citations=[citation(quote)],
                         disclaimer=DISCLAIMER)


def dosage(title: str, text: str = "Trẻ em: 1 mg/kg [1]") -> Block:
    return Block(title=title, kind="dosage", claims=[Claim(text=text, citations=[1])])


def warning(title: str, text: str) -> Block:
    return Block(title=title, kind="warning", claims=[Claim(text=text, citations=[1])])


def run_expect(answer: AnswerPayload, expect: dict) -> cli_eval.TurnCheck:
    check = cli_eval.TurnCheck()
    cli_eval.check_expect(answer, expect, check, "turn 1")
    return check


# --- forbid reads block titles ---------------------------------------------------------------------------------


def test_forbid_hits_a_block_title_even_when_no_claim_holds_it():
    check = run_expect(payload(dosage("Furosemid — Người lớn — tiêm tĩnh mạch")), {"forbid": ["người lớn"]})
    assert check.forbidden_hits == 1
    assert check.failures == ["turn 1: forbidden text 'người lớn' shown"]


def test_forbid_passes_when_neither_title_nor_claims_hold_it():
    check = run_expect(payload(dosage("Furosemid — Trẻ em — tiêm tĩnh mạch")), {"forbid": ["người lớn"]})
    assert (check.forbidden_hits, check.failures) == (0, [])


def test_forbid_still_reads_claims_message_and_quick_replies():
    answer = payload(dosage("Furosemid — Trẻ em", "Người lớn: 20 - 40 mg [1]"), message="Chọn đường dùng")
    answer.quick_replies = ["tiêm bắp"]
    check = run_expect(answer, {"forbid": ["20 - 40 mg", "chọn đường", "TIÊM BẮP"]})
    assert check.forbidden_hits == 3


# --- warning_first ---------------------------------------------------------------------------------------------


def test_warning_first_passes_when_the_first_block_is_a_warning_stating_each_phrase():
    answer = payload(warning("Chống chỉ định", "Clcr < 60 ml/phút [1]"), dosage("Metformin — Người lớn"))
    check = run_expect(answer, {"warning_first": ["clcr < 60 ML/PHÚT"]})
    assert check.failures == []


def test_warning_first_reads_the_first_blocks_title_too():
    answer = payload(warning("Thời kỳ mang thai", "Không dùng cho phụ nữ mang thai [1]"))
    assert run_expect(answer, {"warning_first": ["thời kỳ mang thai", "không dùng"]}).failures == []


def test_warning_first_fails_when_the_warning_comes_after_the_dose():
    answer = payload(dosage("Metformin — Người lớn"), warning("Chống chỉ định", "Clcr < 60 ml/phút [1]"))
    failures = run_expect(answer, {"warning_first": ["Clcr < 60 ml/phút"]}).failures
    assert len(failures) == 2
    assert "first block is 'dosage'" in failures[0]
    assert "does not state 'Clcr < 60 ml/phút'" in failures[1]


def test_warning_first_fails_when_the_warning_does_not_state_the_phrase():
    answer = payload(warning("Thận trọng", "Theo dõi chức năng thận [1]"), dosage("Metformin — Người lớn"))
    failures = run_expect(answer, {"warning_first": ["Clcr < 60 ml/phút"]}).failures
    assert failures == ["turn 1: first block does not state 'Clcr < 60 ml/phút'"]


def test_warning_first_fails_on_an_answer_without_blocks():
    answer = AnswerPayload(decision="clarify", reason="missing_route", message="Bạn dùng đường nào?",
                           disclaimer=DISCLAIMER)
    failures = run_expect(answer, {"warning_first": ["Reye"]}).failures
    assert len(failures) == 1 and "no blocks" in failures[0]


def test_warning_first_is_not_counted_as_a_forbidden_hit():
    answer = payload(dosage("Aspirin — Trẻ em"))
    check = run_expect(answer, {"warning_first": ["Reye"]})
    assert check.failures and check.forbidden_hits == 0


# --- by_category -----------------------------------------------------------------------------------------------


class ScriptedAssistant:
    """Answers each question with the payload scripted for it; no index, no chunks."""

    def __init__(self, answers: dict[str, AnswerPayload]) -> None:
        self.answers = answers
        self.service = SimpleNamespace(all_chunks=lambda: [])

    def ask(self, question: str, conversation_id: str | None = None) -> AnswerPayload:
        return self.answers[question]


@pytest.fixture
def index_dir(tmp_path: Path) -> Path:
    """A folder whose page map knows the printed page the scripted citations use."""
    pages = PageMap(source_pdf="book.pdf", source_sha256="0" * 64, pages=[PageEntry(physical=40, printed=673)])
    (tmp_path / PAGES_FILE).write_text(pages.model_dump_json(), encoding="utf-8")
    return tmp_path


def test_totals_count_cases_and_passes_by_category(index_dir: Path):
    good = payload(warning("Thận trọng", "Hội chứng Reye [1]"))
    bad = payload(dosage("Aspirin — Người lớn", "Người lớn: 300 - 900 mg [1]"))
    assistant = ScriptedAssistant({"q-good": good, "q-bad": bad})
    cases = [
        {"id": "cf-1", "category": "contraindication_first", "turns": ["q-good"], "expect": {"warning_first": ["Reye"]}},
        {"id": "cf-2", "category": "contraindication_first", "turns": ["q-bad"], "expect": {"warning_first": ["Reye"]}},
        {"id": "group-1", "category": "group", "turns": ["q-bad"], "expect": {"forbid": ["người lớn"]}},
        {"id": "plain", "turns": ["q-good"], "expect": {}},
    ]
    totals = cli_eval.run_eval(assistant, cases, index_dir)["totals"]
    assert totals["cases"] == 4 and totals["passed"] == 2
    assert totals["by_category"] == {
        "contraindication_first": {"cases": 2, "passed": 1},
        "group": {"cases": 1, "passed": 0},
    }
    assert totals["forbidden_hits"] == 1


def test_totals_have_no_by_category_when_no_case_carries_one(index_dir: Path):
    assistant = ScriptedAssistant({"q": payload(dosage("Furosemid — Trẻ em"))})
    totals = cli_eval.run_eval(assistant, [{"id": "a", "turns": ["q"], "expect": {}}], index_dir)["totals"]
    assert "by_category" not in totals and totals["passed"] == 1
