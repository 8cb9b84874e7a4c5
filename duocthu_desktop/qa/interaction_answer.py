"""Two drugs together: the statements of each drug's interaction section that name the other drug.

Not finding such a statement is never "safe": it is `NO_INTERACTION_EVIDENCE`, and an unreadable table makes the
answer `QUARANTINED_EVIDENCE` so the person checks the page.
"""

from __future__ import annotations

import re

from duocthu_desktop import messages
from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.payload import Reason
from duocthu_desktop.qa.cited_answer import (
    CitedAnswer,
    abstain,
    join_messages,
    ordered_chunks,
    quarantine_message,
    statements,
)
from duocthu_desktop.qa.engine_types import EngineAnswer
from duocthu_desktop.qa.frame import QueryFrame
from duocthu_desktop.retrieval.types import SectionResult
from duocthu_desktop.text import fold


def answer_interaction(
    frame: QueryFrame, sections: dict[str, SectionResult], names: dict[str, list[str]]
) -> EngineAnswer:
    """Every statement of either drug's interaction section that names the other, titled by the pair."""
    answer = CitedAnswer()
    unreadable: list[Chunk] = []
    display = {key: (vals[0] if vals else key.replace("_", " ")) for key, vals in names.items()}
    for drug_id, section in sections.items():
        own = {fold(n) for n in names.get(drug_id, [])} | {fold(drug_id.replace("_", " "))}
        others = {
            key: sorted({fold(n) for n in vals if n.strip()} - own, key=len, reverse=True)
            for key, vals in names.items()
            if key != drug_id
        }
        for chunk in ordered_chunks(section):
            found_any = False
            for start, end in statements(chunk.text):
                folded = fold(chunk.text[start:end])
                hit = [key for key, vals in others.items() if any(_mentions(folded, v) for v in vals)]
                if not hit:
                    continue
                found_any = True
                title = f"Tương tác — {_title_name(display, drug_id)} với " + ", ".join(
                    _title_name(display, k) for k in hit
                )
                if chunk.quarantined:
                    title += " (bảng: cần đối chiếu trang PDF)"
                answer.add(title, "warning", chunk, start, end)
            if chunk.quarantined and not found_any:
                unreadable.append(chunk)
    all_names = " và ".join(display[k] for k in names) if names else " và ".join(sections)
    quarantined_hit = any(c.quarantined for c in _cited_chunks(answer, sections))
    if not answer.blocks:
        message = messages.message_for(Reason.NO_INTERACTION_EVIDENCE, names=all_names)
        if unreadable:
            for chunk in unreadable:
                answer.add_quarantined(
                    f"Tương tác — {_title_name(display, chunk.drug_id)}: bảng cần đối chiếu trang PDF",
                    chunk,
                )
            return answer.result(
                Reason.QUARANTINED_EVIDENCE, join_messages(message, quarantine_message())
            )
        return abstain(Reason.NO_INTERACTION_EVIDENCE, message)
    if quarantined_hit or unreadable:
        for chunk in unreadable:
            answer.add_quarantined(
                f"Tương tác — {_title_name(display, chunk.drug_id)}: bảng cần đối chiếu trang PDF", chunk
            )
        return answer.result(Reason.QUARANTINED_EVIDENCE, quarantine_message())
    return answer.result(None, "")


def _mentions(folded_text: str, folded_name: str) -> bool:
    return bool(re.search(r"(?<![0-9a-z])" + re.escape(folded_name) + r"(?![0-9a-z])", folded_text))


def _cited_chunks(answer: CitedAnswer, sections: dict[str, SectionResult]) -> list[Chunk]:
    ids = {c.chunk_id for c in answer.citations}
    return [c for s in sections.values() for c in s.chunks if c.chunk_id in ids]


def _title_name(display: dict[str, str], key: str) -> str:
    name = display.get(key, key.replace("_", " "))
    return name[:1].upper() + name[1:]
