"""Understanding by the model where the deterministic reading is unsure: proposals are validated, never trusted."""

from __future__ import annotations

import pytest

from duocthu_desktop.payload import Reason
from duocthu_desktop.qa.generation import understanding
from duocthu_desktop.qa.generation.budget import Budget
from duocthu_desktop.qa.generation.llm import ProviderError, ScriptedModel
from duocthu_desktop.qa.understanding.frame import QueryFrame

SLIP = QueryFrame(question="Liều paraxetamon cho trẻ?", turn_type="dosing", unknown_drugs=["paraxetamon"])


def test_only_an_unsure_reading_goes_to_the_model() -> None:
    assert understanding.unsure(SLIP)
    assert understanding.unsure(QueryFrame(question="aspirin thì sao với dạ dày", turn_type="drug_attribute",
                                           drug_ids=["aspirin"], drug_mentions={"aspirin": "aspirin"}))
    assert not understanding.unsure(QueryFrame(question="Aspirin?", turn_type="drug_attribute", drug_ids=["aspirin"],
                                               drug_mentions={"aspirin": "Aspirin"}))
    assert not understanding.unsure(QueryFrame(question="x", turn_type="dosing", drug_ids=["aspirin"],
                                               section_key="lieu_luong_cach_dung"))
    assert not understanding.unsure(QueryFrame(question="x", turn_type="out_of_scope"))


def test_the_shortlist_holds_typing_slips_not_other_drugs(catalog) -> None:
    assert "paracetamol" in understanding.shortlist(SLIP, catalog)
    other = QueryFrame(question="Liều ibuprofen?", turn_type="dosing", unknown_drugs=["ibuprofen"])
    assert understanding.shortlist(other, catalog) == {}


def test_a_proposal_from_the_shortlist_is_taken(catalog) -> None:
    model = ScriptedModel([{"drug_ids": ["paracetamol"], "section_key": None, "turn_type": "dosing"}])
    frame = understanding.propose(model, SLIP.question, SLIP, catalog, [], Budget())
    assert (frame.drug_ids, frame.section_key, frame.unknown_drugs) == (["paracetamol"], "lieu_luong_cach_dung", [])
    assert understanding.prompts.FENCE_OPEN in model.calls[0][-1]["content"]


@pytest.mark.parametrize(("reply", "code"), [
    ({"drug_ids": ["warfarin"], "section_key": None, "turn_type": "dosing"}, Reason.UNDERSTANDING_MALFORMED_OUTPUT),
    ({"drug_ids": ["paracetamol"], "section_key": "gia_ban", "turn_type": "drug_attribute"},
     Reason.UNDERSTANDING_MALFORMED_OUTPUT),
    ("{không phải JSON", Reason.UNDERSTANDING_MALFORMED_OUTPUT),
    (ProviderError("model gone"), Reason.UNDERSTANDING_PROVIDER_UNAVAILABLE),
])
def test_an_unusable_reply_is_refused_with_its_code(catalog, reply, code) -> None:
    with pytest.raises(understanding.UnderstandingFailed) as err:
        understanding.propose(ScriptedModel([reply]), SLIP.question, SLIP, catalog, [], Budget())
    assert err.value.code == code
