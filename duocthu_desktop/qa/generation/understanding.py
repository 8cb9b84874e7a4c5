"""Understanding by the model, only where the deterministic reading is unsure.

The deterministic QueryFrame stays first. When it found no drug but something drug-like, a drug but no section,
or no turn type at all, the model is shown the turn, the recent history, a shortlist of the catalog's drugs
whose names are close to what was typed, and the section keys; it proposes drug ids, a section and a turn type.
The code keeps only what the shortlist and the section list hold (anything else is refused, never mapped), and
the decision table still decides what is required. A reply that is not the asked shape is
`understanding_malformed_output`; an outage is `understanding_provider_unavailable`.
"""

from __future__ import annotations

import difflib
import re
import threading

from duocthu_desktop.payload import Reason
from duocthu_desktop.qa.generation import prompts, replies
from duocthu_desktop.qa.generation.budget import Budget, BudgetExhausted
from duocthu_desktop.qa.generation.llm import CallTimeout, LanguageModel, ProviderError
from duocthu_desktop.qa.understanding.catalog import Catalog
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.qa.understanding.section_asked import DOSING
from duocthu_desktop.sections import SECTIONS
from duocthu_desktop.text import fold

SHORTLIST = 6
CLOSE_NAME = 0.75  # a typing slip, not another drug: "paracetamon" is close to "paracetamol", "ibuprofen" is not
TURN_TYPES = ("dosing", "drug_attribute", "interaction", "condition_to_drug")
UNDERSTAND_TOKENS = 80


class UnderstandingFailed(Exception):
    def __init__(self, code: Reason, detail: str) -> None:
        super().__init__(detail)
        self.code = code


def unsure(frame: QueryFrame) -> bool:
    if frame.injection_attempt or frame.non_human or frame.non_medical or frame.turn_type in (
            "smalltalk", "out_of_scope"):
        return False
    if frame.drug_ids and _words_besides_drugs(frame) < 2:
        return False  # a bare "Metformin" asks nothing yet: the person is asked, never guessed for
    no_drug_but_drug_like = not frame.drug_ids and bool(frame.unknown_drugs)
    no_section = bool(frame.drug_ids) and frame.turn_type == "drug_attribute" and frame.section_key is None
    return no_drug_but_drug_like or no_section or frame.turn_type == "unknown"


def _words_besides_drugs(frame: QueryFrame) -> int:
    text = frame.question
    for said in frame.drug_mentions.values():
        text = text.replace(said, " ")
    return len(re.findall(r"\w+", text))


def shortlist(frame: QueryFrame, catalog: Catalog) -> dict[str, list[str]]:
    """Drugs already read, and the catalog's drugs whose names are a typing slip away from a drug-like word."""
    out: dict[str, list[str]] = {d: [catalog.title(d)] for d in frame.drug_ids}
    typed = [fold(w) for w in frame.unknown_drugs]
    scored: list[tuple[float, str]] = []
    for drug_id in catalog.monographs:
        names = [catalog.title(drug_id), *catalog.names_for(drug_id)]
        best = max((difflib.SequenceMatcher(None, t, fold(n)).ratio() for t in typed for n in names), default=0.0)
        if best >= CLOSE_NAME:
            scored.append((best, drug_id))
    for _, drug_id in sorted(scored, reverse=True)[:SHORTLIST]:
        out.setdefault(drug_id, [catalog.title(drug_id), *catalog.names_for(drug_id)[:3]])
    return out


def propose(model: LanguageModel, question: str, frame: QueryFrame, catalog: Catalog, history: list[str],
            budget: Budget, cancel: threading.Event | None = None) -> QueryFrame:
    """The frame with what the model proposed and the code accepted; UnderstandingFailed otherwise."""
    candidates = shortlist(frame, catalog)
    if not candidates and frame.turn_type != "unknown":
        return frame  # nothing the model could choose from
    drugs = "\n".join(f"{d}: {', '.join(names)}" for d, names in candidates.items()) or "(none)"
    sections = "\n".join(f"{s.key}: {s.heading}" for s in SECTIONS)
    user = prompts.UNDERSTAND_USER.format(drugs=drugs, sections=sections,
                                          history="\n".join(history[-3:]) or "(none)",
                                          question=prompts.fenced(question))
    messages = prompts.messages(user)
    try:
        reply = model.complete(messages, prompts.UNDERSTAND_SCHEMA, max_tokens=UNDERSTAND_TOKENS,
                               deadline=budget.next_call(), cancel=cancel)
        proposal = replies.proposal(reply.text)
    except CallTimeout as err:  # a time limit, not an outage
        raise BudgetExhausted(str(err)) from err
    except ProviderError as err:
        raise UnderstandingFailed(Reason.UNDERSTANDING_PROVIDER_UNAVAILABLE, str(err)) from err
    except replies.Malformed as err:
        raise UnderstandingFailed(Reason.UNDERSTANDING_MALFORMED_OUTPUT, str(err)) from err
    ids = [d for d in proposal["drug_ids"] if d in candidates]
    if len(ids) != len(proposal["drug_ids"]):
        raise UnderstandingFailed(Reason.UNDERSTANDING_MALFORMED_OUTPUT,
                                  f"proposed drugs outside the shortlist: {proposal['drug_ids']}")
    key = proposal["section_key"]
    if key is not None and key not in {s.key for s in SECTIONS}:
        raise UnderstandingFailed(Reason.UNDERSTANDING_MALFORMED_OUTPUT, f"unknown section {key!r}")
    kind = proposal["turn_type"]
    if kind not in (*TURN_TYPES, "unknown"):
        raise UnderstandingFailed(Reason.UNDERSTANDING_MALFORMED_OUTPUT, f"unknown turn type {kind!r}")
    if not ids or kind == "unknown":
        return frame
    return filled(frame, ids, key, kind, catalog)


def filled(frame: QueryFrame, ids: list[str], key: str | None, kind: str, catalog: Catalog) -> QueryFrame:
    """The frame with what the model proposed where the deterministic reading left it empty, and nothing else:
    the drugs when none was read, the turn type when it is unknown, the section when none was found. A section
    the deterministic reading found ("Chống chỉ định của <misspelt name>?") is never replaced by the model's
    reading of the turn as a dose question."""
    update: dict = {}
    if not frame.drug_ids:
        update["drug_ids"] = ids
        # the reading is said in the answer: "paracetamon" read as Paracetamol
        update["unknown_drugs"] = []
        update["drug_mentions"] = {**frame.drug_mentions, **{d: catalog.title(d) for d in ids}}
    if frame.turn_type == "unknown":
        update["turn_type"] = kind
    if frame.section_key is None:
        if kind == "dosing" and frame.turn_type in ("unknown", "drug_attribute", "dosing"):
            # a drug's attribute not yet named, named as its dose: the section filled, the reading the same
            update["turn_type"], update["section_key"] = "dosing", DOSING
        elif key is not None and kind == update.get("turn_type", frame.turn_type):
            update["section_key"] = key
    return frame.model_copy(update=update) if update else frame
