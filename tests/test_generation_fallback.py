"""The model never costs the person the book's answer: the extractive answer first, the model's wording only
when it passed every check, the turn's state kept whatever the model did, and the model's reading filling only
what the deterministic reading left empty. Scripted models; the book and the checks are real (sample book)."""

from __future__ import annotations

import pytest

from duocthu_desktop.payload import Citation
from duocthu_desktop.qa.generation import checks, qualifiers, understanding
from duocthu_desktop.qa.generation.budget import Budget
from duocthu_desktop.qa.generation.evidence import EvidenceBlock
from duocthu_desktop.qa.generation.llm import ProviderError, ScriptedModel
from duocthu_desktop.qa.generation.writer import GenerativeWriter
from duocthu_desktop.qa.pipeline import Assistant
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.settings import Settings
from tests.fakes_llm import CopyingModel

PARACETAMOL = "Liều paracetamol cho bé 5 tuổi nặng 18 kg, đường uống?"
# two letters off the book's name and no everyday spelling of it (qa/understanding/spelling.py folds "metphormin"):
# the deterministic reading leaves the drug unknown, the model reads it
MISSPELT_CONTRAINDICATION = "Chống chỉ định của metfarmon?"
COMBINATION = ("Không nên dùng các dạng phối hợp 2 thuốc (abacavir và lamivudin) cho trẻ dưới 18 tuổi, hoặc phối "
               "hợp 3 thuốc (abacavir, lamivudin và zidovudin) cho trẻ cân nặng dưới 40 kg vì không thể điều chỉnh "
               "được liều cho từng trường hợp.")


@pytest.fixture
def make(qa_service, catalog, tmp_path):
    def build(model, budget=Budget) -> Assistant:
        writer = GenerativeWriter(model, catalog.title, budget=budget, max_evidence_tokens=3000)
        return Assistant(qa_service, catalog=catalog, settings=Settings(data_dir=tmp_path), engine_name="generative",
                         writer=writer)
    return build


def claims_of(payload) -> list[str]:
    return [c.text for b in payload.blocks for c in b.claims]


class _Watching(CopyingModel):
    """A copying model that notes whether the book's answer had been handed over before it was called."""

    def __init__(self, shown: list, **kwargs) -> None:
        super().__init__(**kwargs)
        self.shown, self.shown_before_call = shown, []

    def complete(self, messages, schema, **kwargs):
        self.shown_before_call.append(len(self.shown))
        return super().complete(messages, schema, **kwargs)


def test_the_books_answer_is_handed_over_before_the_model_runs_then_replaced(make, assistant) -> None:
    extractive = assistant.ask(PARACETAMOL)
    shown: list = []
    model = _Watching(shown, edit_claims=lambda cs, n: [{**c, "text": "Theo Dược thư, " + c["text"]} for c in cs])
    final = make(model).ask(PARACETAMOL, on_extractive=shown.append)
    assert model.shown_before_call == [1]  # the extractive card was out before the first model call
    (early,) = shown
    assert (early.engine, claims_of(early), early.disclaimer) == ("extractive", claims_of(extractive),
                                                                  extractive.disclaimer)
    assert final.engine == "generative" and all(t.startswith("Theo Dược thư") for t in claims_of(final))


def test_a_model_out_of_time_leaves_the_books_answer_with_one_line_and_the_turn_remembered(make, assistant) -> None:
    """After the model ran out of time the follow-up still completes the turn's drug and section (it was
    'Bạn hỏi về thuốc nào?' when the timed-out turn abstained)."""
    a = make(CopyingModel(edit_claims=lambda cs, n: cs[:-1]), budget=lambda: Budget(calls=1))
    first = a.ask("Liều metformin cho người lớn?", conversation_id="c-budget")
    book = assistant.ask("Liều metformin cho người lớn?")
    assert (first.decision, first.engine, claims_of(first)) == ("answerable", "extractive", claims_of(book))
    assert "thời gian" in first.message and a.last_generation.reason == "request_budget_exhausted"
    follow = a.ask("Còn người cao tuổi thì sao?", conversation_id="c-budget")
    assert follow.decision == "answerable", follow.message
    assert {c.drug_id for c in follow.citations} == {"metformin"}


def test_the_models_reading_of_a_misspelt_name_keeps_the_section_the_question_named(make, catalog) -> None:
    # the model reads the name right but the turn as a dose question; its writer call then fails
    model = ScriptedModel([{"drug_ids": ["metformin"], "section_key": None, "turn_type": "dosing"},
                           ProviderError("llama_decode returned -3")])
    p = make(model).ask(MISSPELT_CONTRAINDICATION)
    assert p.decision == "answerable" and p.engine == "extractive"
    assert {c.section_key for c in p.citations} == {"chong_chi_dinh"}
    assert "metfarmon" in p.message and catalog.title("metformin") in p.message


def test_a_model_that_cannot_read_the_question_leaves_the_apps_own_reading(make, assistant) -> None:
    book = assistant.ask(MISSPELT_CONTRAINDICATION)
    p = make(ScriptedModel([ProviderError("model gone")])).ask(MISSPELT_CONTRAINDICATION)
    assert (p.decision, p.reason, p.engine) == (book.decision, book.reason, "extractive")
    assert "không đọc lại được" in p.message


def test_the_models_reading_fills_only_what_the_deterministic_reading_left_empty(catalog) -> None:
    read = QueryFrame(question=MISSPELT_CONTRAINDICATION, turn_type="drug_attribute", unknown_drugs=["metfarmon"],
                      section_key="chong_chi_dinh")
    got = understanding.filled(read, ["metformin"], None, "dosing", catalog)
    assert (got.drug_ids, got.turn_type, got.section_key) == (["metformin"], "drug_attribute", "chong_chi_dinh")
    named = QueryFrame(question="x", turn_type="drug_attribute", drug_ids=["aspirin"], section_key=None)
    got = understanding.filled(named, ["warfarin"], "tuong_tac_thuoc", "drug_attribute", catalog)
    assert (got.drug_ids, got.section_key) == (["aspirin"], "tuong_tac_thuoc")  # the section filled, the drug kept
    got = understanding.filled(named, ["aspirin"], None, "dosing", catalog)
    assert (got.turn_type, got.section_key) == ("dosing", "lieu_luong_cach_dung")


# ---- the deterministic checks on the model's draft ------------------------------------------------------

def _block(quote: str, label: str = "Abacavir · Thận trọng") -> tuple[list[EvidenceBlock], dict[str, str]]:
    citation = Citation(index=1, chunk_id="abacavir__than_trong__0", drug_id="abacavir", section_key="than_trong",
                        printed_page=100, physical_page=4, quote=quote)
    return [EvidenceBlock(number=1, citation=citation, label=label, block_index=0, warning=False)], \
        {citation.chunk_id: quote}


def _check(text: str, quote: str) -> checks.CheckResult:
    blocks, evidence = _block(quote)
    return checks.check([checks.WrittenClaim(text=text, citations=[1])], blocks, evidence)


def test_a_restriction_widened_from_the_combination_product_to_the_drug_is_refused() -> None:
    widened = ("Không nên dùng cho trẻ dưới 18 tuổi, hoặc cho trẻ cân nặng dưới 40 kg vì không thể điều chỉnh được "
               "liều cho từng trường hợp.")
    result = _check(widened, COMBINATION)
    assert result.code == "unsupported_claim" and "dạng" in result.detail
    assert _check(COMBINATION, COMBINATION).ok


def test_a_dropped_hedge_is_refused() -> None:
    quote = "Nói chung, phụ nữ nhiễm HIV không nên cho con bú vì có thể truyền HIV sang con qua sữa."
    result = _check("Phụ nữ nhiễm HIV không nên cho con bú vì có thể truyền HIV sang con qua sữa.", quote)
    assert result.code == "unsupported_claim" and "nói chung" in result.detail
    assert _check("Nói chung phụ nữ nhiễm HIV không nên cho con bú vì có thể truyền HIV sang con qua sữa.",
                  quote).ok


@pytest.mark.parametrize(("claim", "quote"), [
    ("Không nên dùng các dạng phối hợp 2 thuốc (abacavir và lamivudin) cho trẻ trên 18 tuổi, hoặc phối hợp 3 thuốc "
     "(abacavir, lamivudin và zidovudin) cho trẻ cân nặng dưới 40 kg vì không thể điều chỉnh được liều cho từng "
     "trường hợp.", COMBINATION),
    ("Liều tối thiểu: 4 g/ngày.", "Liều tối đa: 4 g/ngày."),
    ("Liều: 4 g/ngày.", "Liều tối đa: 4 g/ngày."),
])
def test_a_swapped_or_dropped_bound_is_refused(claim, quote) -> None:
    result = _check(claim, quote)
    assert result.code == "unsupported_claim" and "bound" in result.detail


def test_a_bound_kept_in_other_words_passes() -> None:
    assert qualifiers.swapped_bound("Liều không quá 4 g/ngày.", ["Liều tối đa: 4 g/ngày."]) == ""
    assert qualifiers.swapped_bound("Người lớn: 500 mg.", ["Trẻ em trên 12 tuổi và người lớn: 500 mg."]) == ""
    assert qualifiers.bounds("Clcr < 30 ml/phút, trên 12 tuổi: 500 mg") == [("30", "max"), ("12", "min"),
                                                                           ("500", None)]


def test_the_eval_report_says_whose_text_was_shown_and_how_soon_the_books_answer_was_ready(make) -> None:
    from duocthu_desktop import cli_eval

    cases = [{"id": "written", "turns": [PARACETAMOL], "expect": {"decision": "answerable"}},
             {"id": "fallback", "turns": ["Liều metformin cho người lớn?"], "expect": {"decision": "answerable"}}]
    model = CopyingModel(edit_claims=lambda cs, n: cs if "240 mg" in str(cs) else [])  # the second draft: empty
    report = cli_eval.run_eval(make(model), cases, None)
    g = report["totals"]["generation"]
    assert (g["turns"], g["shown_written_by_model"], g["shown_written_share"]) == (2, 1, 0.5)
    assert [c["payloads"][0]["engine"] for c in report["cases"]] == ["generative", "extractive"]
    assert all(c["generation"][0]["book_answer_seconds"] is not None for c in report["cases"])
    assert g["book_answer_seconds"]["max"] <= max(c["generation"][0]["turn_seconds"] for c in report["cases"])
