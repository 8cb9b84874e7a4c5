"""The deterministic checks a written answer passes before the judge sees it, and how it is laid out.

In order: every claim cites blocks that exist; the grounding check (numbers verbatim, with their units, in
the cited quotes); in list mode each claim names one allowed drug and cites only that drug's evidence; every
word of a claim is printed by its cited blocks (quote or label) or is one of a few joining words; no claim says
"safe", "first-line", "preferred" or "no interaction" unless its cited quotes say it; no bound before a number
is turned around and no qualifier of a restated sentence is dropped (qualifiers.py); the warnings the
extractive engine put first are all cited. The claims are laid out under the extractive answer's own block
titles, in its order, so a dose stays under the label that names its group and route and warnings stay first.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from duocthu_desktop.payload import Block, Claim, Reason
from duocthu_desktop.qa.answers.cited_answer import renumbered
from duocthu_desktop.qa.answers.engine_types import EngineAnswer
from duocthu_desktop.qa.generation import qualifiers
from duocthu_desktop.qa.generation.evidence import EvidenceBlock
from duocthu_desktop.qa.verification import grounding
from duocthu_desktop.text import fold

# A dose as printed: a number or range, its unit, and what follows its slashes ("0,5 - 1 g/lần", "90 mg/kg/24").
DOSE = re.compile(
    r"(?<![\d.,])\d+(?:[.,]\d+)*(?:\s*(?:-|–|đến)\s*\d+(?:[.,]\d+)*)?\s*"
    r"(?:mg|g|microgam|mcg|ml|mmol|đvqt|IU|UI|%)(?![^\W\d_])(?:\s*/\s*[^\s,;.()]+)*",
    re.IGNORECASE,
)

# Share of a block's words the claims citing it must keep (a light rewording keeps far more; a dropped item does not).
MIN_COVERAGE = 0.7
_WORDS = re.compile(r"\w+")

# The only words a claim may add to what its cited blocks print (their quotes and labels): words that join the
# book's words into a sentence. Any other word (a group, an indication, a condition, "khởi đầu" for the book's "ban
# đầu") is something the model brought, often from the question ("Người cao tuổi bị tăng huyết áp ..." over a dose
# the book prints under "Suy tim"), or a word that turns the book around ("... không dùng được ..." where the book
# says no such thing), and the claim is refused: the turn falls back to the book's words. A harmless word outside
# the list ("điều trị") costs a fallback, never a wrong answer.
JOINING_WORDS = frozenset({"là", "cho", "thì", "khi", "bằng", "với", "và", "của", "ở", "theo", "được", "dùng", "liều",
                           "thuốc", "bị", "đường", "để", "như", "sách", "dược", "thư"})  # "theo sách", "Dược thư ghi"
_LETTERS = re.compile(r"[^\W\d_]+")

# Words that turn "the book lists it" into advice the book does not give; allowed only when the cited quote has them.
OVERCLAIMS = ("an toàn", "đầu tay", "ưu tiên", "tốt nhất", "hàng đầu", "nên chọn", "không có tương tác",
              "không tương tác", "không sao", "vô hại")


@dataclass
class WrittenClaim:
    text: str
    citations: list[int]


@dataclass
class CheckResult:
    code: Reason | None = None
    detail: str = ""
    uncovered: list[str] = field(default_factory=list)  # blocks no claim cites, doses not copied (for the repair)

    @property
    def ok(self) -> bool:
        return self.code is None


def clean(text: str) -> str:
    return " ".join(grounding.CITATION_MARKER.sub(" ", text).split())


def layout(claims: list[WrittenClaim], blocks: list[EvidenceBlock], extractive: EngineAnswer) -> EngineAnswer:
    """The written claims under the extractive answer's block titles, in its block order, citations compacted."""
    by_number = {b.number: b for b in blocks}
    grouped: dict[int, list[Claim]] = {}
    for claim in claims:
        home = min(by_number[n].block_index for n in claim.citations)
        grouped.setdefault(home, []).append(Claim(text=clean(claim.text), citations=sorted(set(claim.citations))))
    out_blocks = []
    for index in sorted(grouped):
        source = extractive.blocks[index]
        out_blocks.append(Block(title=source.title, kind=source.kind, claims=grouped[index]))
    cited = {n for claim in claims for n in claim.citations}
    citations = [b.citation for b in sorted(blocks, key=lambda b: b.number) if b.number in cited]
    draft = EngineAnswer(decision="answerable", blocks=out_blocks, citations=citations, message=extractive.message,
                         quick_replies=extractive.quick_replies)
    new_blocks, new_citations = renumbered(draft, 0)
    return draft.model_copy(update={"blocks": new_blocks, "citations": new_citations})


def check(
    claims: list[WrittenClaim],
    blocks: list[EvidenceBlock],
    evidence: dict[str, str],
    allowed_names: dict[str, list[str]] | None = None,
) -> CheckResult:
    """The first failure, or ok with the blocks left uncovered. `allowed_names`: list mode, drug_id -> names."""
    by_number = {b.number: b for b in blocks}
    if not claims:
        return CheckResult(Reason.MALFORMED_OUTPUT, "no claims")
    for claim in claims:
        if not claim.citations:
            return CheckResult(Reason.UNCITED_CLAIM, clean(claim.text)[:80])
        unknown = [n for n in claim.citations if n not in by_number]
        if unknown:
            return CheckResult(Reason.INVALID_CITATION, f"cites {unknown}, evidence has {sorted(by_number)}")
    for claim in claims:
        quotes = [by_number[n].citation.quote for n in claim.citations]
        block = Block(title="", claims=[Claim(text=clean(claim.text), citations=claim.citations)])
        failures = grounding.verify([block], [by_number[n].citation.model_copy(update={"index": n})
                                              for n in claim.citations], evidence)
        if failures:
            return CheckResult(Reason(failures[0].code), failures[0].detail)
        said, printed = fold(claim.text), fold(" ".join(quotes))
        for word in OVERCLAIMS:
            if fold(word) in said and fold(word) not in printed:
                return CheckResult(Reason.UNSUPPORTED_CLAIM, f"says {word!r}, the cited evidence does not")
        if allowed_names is not None:
            failure = _list_mode(claim, by_number, allowed_names)
            if failure:
                return CheckResult(Reason.UNSUPPORTED_DRUG, failure)
        swapped = qualifiers.swapped_bound(clean(claim.text), quotes + [by_number[n].label for n in claim.citations])
        if swapped:
            return CheckResult(Reason.UNSUPPORTED_CLAIM, f"{swapped}: {clean(claim.text)[:60]!r}")
        added = _added_words(claim, [by_number[n] for n in claim.citations])
        if added:
            return CheckResult(Reason.UNSUPPORTED_CLAIM, f"adds {', '.join(added)!r}, which the cited evidence does "
                                                         f"not print: {clean(claim.text)[:60]!r}")
    for block in blocks:
        citing = [clean(c.text) for c in claims if block.number in c.citations]
        dropped = qualifiers.dropped_qualifier(citing, block.citation.quote) if citing else ""
        if dropped:
            return CheckResult(Reason.UNSUPPORTED_CLAIM, f"drops {dropped!r} from block {block.number}")
    cited = {n for claim in claims for n in claim.citations}
    dropped = [b for b in blocks if b.warning and b.number not in cited]
    if dropped:
        return CheckResult(Reason.INCOMPLETE_ANSWER, f"warning blocks {[b.number for b in dropped]} left out")
    uncovered = [b.citation.quote.strip() for b in blocks
                 if b.number not in cited or _coverage(b, claims) < MIN_COVERAGE]
    return CheckResult(uncovered=uncovered + _doses_not_copied(claims, by_number))


def _letters(text: str) -> set[str]:
    return set(_LETTERS.findall(unicodedata.normalize("NFC", text).lower()))


def _added_words(claim: WrittenClaim, cited: list[EvidenceBlock]) -> list[str]:
    """The claim's words that neither its cited blocks (quote and label) print nor JOINING_WORDS holds."""
    printed = set().union(*(_letters(b.citation.quote) | _letters(b.label) for b in cited))
    return sorted(_letters(clean(claim.text)) - printed - JOINING_WORDS)


def _coverage(block: EvidenceBlock, claims: list[WrittenClaim]) -> float:
    """How much of a block's wording the claims citing it keep: a rewording keeps most of the book's words, a
    claim that kept one item of a contraindication list and dropped the rest does not."""
    words = set(_WORDS.findall(fold(block.citation.quote)))
    said = set(_WORDS.findall(fold(" ".join(c.text for c in claims if block.number in c.citations))))
    return len(words & said) / len(words) if words else 1.0


def _doses_not_copied(claims: list[WrittenClaim], by_number: dict[int, EvidenceBlock]) -> list[str]:
    """Each dose a cited block prints must stand in the claims citing it character for character ("0,5 - 1 g/lần"
    is not "0,5 - 1 g mỗi lần"): a dose is copied, never paraphrased."""
    missing: list[str] = []
    for number, block in by_number.items():
        said = " ".join(clean(c.text) for c in claims if number in c.citations)
        if not said:
            continue
        for dose in DOSE.findall(block.citation.quote):
            dose = " ".join(dose.split())
            if dose not in " ".join(said.split()) and dose not in missing:
                missing.append(dose)
    return missing


def _list_mode(claim: WrittenClaim, by_number: dict[int, EvidenceBlock], names: dict[str, list[str]]) -> str:
    said = fold(claim.text)
    named = [d for d, words in names.items() if any(fold(w) in said for w in words if w)]
    if len(named) != 1:
        return f"claim names {len(named)} of the allowed drugs: {clean(claim.text)[:60]!r}"
    foreign = [n for n in claim.citations if by_number[n].citation.drug_id != named[0]]
    if foreign:
        return f"claim about {named[0]} cites {foreign}, evidence of another drug"
    return ""
