"""The numbered evidence the model is shown: the extractive answer's own citations, labelled.

The extractive engine already chose what fits this patient (the dose statements for the group, route and
indication, the warnings that come first); each of its citations becomes one block, numbered as the citation,
labelled with the drug, the section and the title of the answer block it sat under (which names the group and
route), so the model never has to decide which dose belongs to whom.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from duocthu_desktop.payload import Block, Citation
from duocthu_desktop.qa.answers.cited_answer import section_heading
from duocthu_desktop.qa.answers.engine_types import EngineAnswer

# Evidence the model may rewrite in one turn. The writer copies about as many tokens as it is shown, and a 2-core
# laptop writes 13 to 18 tokens a second (one or two threads, by what else runs): an answer longer than this
# cannot be written and judged inside the turn's 40 s, so it is shown in the book's words, said so (measured on
# dev.jsonl: at 600 tokens a third of the model's turns ran out of time).
MAX_EVIDENCE_TOKENS = 350


@dataclass(frozen=True)
class EvidenceBlock:
    number: int
    citation: Citation
    label: str
    block_index: int  # the extractive answer block it came from (its order and title are kept)
    warning: bool

    def render(self) -> str:
        return f"[{self.number}] ({self.label})\n{self.citation.quote.strip()}"


def evidence_blocks(answer: EngineAnswer, title_of: Callable[[str], str]) -> list[EvidenceBlock]:
    """One block per citation a claim of the extractive answer cites, in the order it first cites them. A
    citation no claim cites is not part of the answer (a repeat of a quote the warnings already cite): written
    as a claim of its own, it showed the same sentence twice, the second time under no label."""
    first_block: dict[int, int] = {}
    for b, block in enumerate(answer.blocks):
        for claim in block.claims:
            for index in claim.citations:
                first_block.setdefault(index, b)
    out = []
    for citation in sorted((c for c in answer.citations if c.index in first_block),
                           key=lambda c: (first_block[c.index], c.index)):
        b = first_block[citation.index]
        block: Block = answer.blocks[b]
        parts = [title_of(citation.drug_id), section_heading(citation.section_key)]
        if block.title and block.title not in parts:
            parts.append(block.title)
        out.append(EvidenceBlock(number=citation.index, citation=citation, label=" · ".join(p for p in parts if p),
                                 block_index=b, warning=block.kind == "warning"))
    return out


def render(blocks: list[EvidenceBlock]) -> str:
    return "\n\n".join(b.render() for b in blocks)


def estimate_tokens(text: str) -> int:
    """A cautious estimate for Vietnamese in a BPE vocabulary (about 2,5 characters a token)."""
    return int(len(text) / 2.5) + 1
