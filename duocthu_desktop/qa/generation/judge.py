"""The entailment judge: one call a turn, each claim judged only against the blocks it cites, by wording.

Its message opens with the very evidence the writer read, so llama.cpp reuses what it already read and the judge
costs only its claims (a design choice for 2-core laptops: the blocks each claim cites are named beside it, and
the deterministic checks already bound every number to those blocks alone).

Its 'missing' objections count only when each quotes the evidence verbatim and the written claims do not
already carry that quote's numbers (or, for a quote without numbers, cite its block).
"""

from __future__ import annotations

from duocthu_desktop.qa.generation import prompts
from duocthu_desktop.qa.generation.checks import WrittenClaim, clean
from duocthu_desktop.qa.generation.evidence import EvidenceBlock, render
from duocthu_desktop.qa.verification.grounding import numbers_in
from duocthu_desktop.text import squash_spaces


def messages(question: str, claims: list[WrittenClaim], blocks: list[EvidenceBlock]) -> list[dict]:
    lines = [f"Claim {n} (cites {', '.join(map(str, claim.citations))}): {clean(claim.text)}"
             for n, claim in enumerate(claims, start=1)]
    user = prompts.JUDGE_USER.format(evidence=render(blocks), claims="\n".join(lines),
                                     question=prompts.without_values(question))
    return prompts.messages(user)


def objections(missing: list[str], claims: list[WrittenClaim], blocks: list[EvidenceBlock]) -> list[str]:
    """The 'missing' quotes that stand: verbatim in a block, and not already carried by the written claims."""
    written = " ".join(clean(c.text) for c in claims)
    cited = {n for c in claims for n in c.citations}
    out = []
    for quote in missing:
        q = squash_spaces(quote)
        home = [b for b in blocks if q and q in squash_spaces(b.citation.quote)]
        if not home:
            continue  # not a verbatim quote: the judge's own words do not count
        numbers = numbers_in(q)
        if numbers and all(n in written for n in numbers):
            continue
        if not numbers and any(b.number in cited for b in home):
            continue
        out.append(q)
    return out
