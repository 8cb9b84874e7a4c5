"""`verify`: the deterministic check every answer passes before a person sees it, whatever engine made it.

Each claim is cut at its citation markers ("... 0,5 - 1 g/lần [1]. ... [2]"); each piece is bound only to the
evidence it cites. A piece fails when it cites nothing, cites a citation that does not exist or does not point
into the evidence, or carries a number that is not in its cited evidence character for character ("7,5" is not
"75", "7.5" or "1.500").
"""

from __future__ import annotations

import re

from duocthu_desktop.payload import Block, Citation, Reason
from duocthu_desktop.qa.engine_types import GroundingFailure
from duocthu_desktop.text import squash_spaces

# A citation marker inside a claim's text: "[1]", "[1, 3]", "[2; 4]".
CITATION_MARKER = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
# A number as printed: digits with "," or "." groups ("7,5", "1.500"), space-grouped thousands ("1 000"),
# and fractions ("1/1 000").
_NUMBER = re.compile(
    r"(?<![\d.,])\d+(?:[.,]\d+)*(?: \d{3}(?![\d.,]))*(?:/\d+(?:[.,]\d+)*(?: \d{3}(?![\d.,]))*)?"
)
_MEANINGFUL = re.compile(r"\w")


def numbers_in(text: str) -> list[str]:
    """Every number of `text` as printed ("0,5", "1.500", "1/1 000"), whitespace squashed."""
    return [squash_spaces(m.group(0)) for m in _NUMBER.finditer(text)]


def number_in_evidence(number: str, evidence: str) -> bool:
    """Whether `number` appears in `evidence` as a whole number, exactly as printed."""
    pattern = re.compile(r"(?<![\d.,])" + re.escape(number).replace(r"\ ", r"\s+") + r"(?![\d]|[.,]\d)")
    return bool(pattern.search(evidence))


def split_at_markers(text: str, default: list[int]) -> list[tuple[str, list[int]]]:
    """(piece, cited indices): text before a marker is bound to that marker; trailing text to `default`."""
    pieces: list[tuple[str, list[int]]] = []
    pos = 0
    for m in CITATION_MARKER.finditer(text):
        indices = [int(x) for x in re.split(r"\s*[,;]\s*", m.group(1))]
        pieces.append((text[pos : m.start()], indices))
        pos = m.end()
    tail = text[pos:]
    if _MEANINGFUL.search(tail) or not pieces:
        pieces.append((tail, list(default)))
    return pieces


def verify(
    blocks: list[Block], citations: list[Citation], evidence: dict[str, str]
) -> list[GroundingFailure]:
    """Every failure found; an empty list means the answer may be shown. `evidence`: chunk_id -> chunk text."""
    failures: list[GroundingFailure] = []
    by_index: dict[int, Citation] = {}
    squashed = {cid: squash_spaces(text) for cid, text in evidence.items()}
    for c in citations:
        by_index[c.index] = c
        if c.chunk_id not in evidence:
            failures.append(
                _fail(Reason.INVALID_CITATION, f"[{c.index}] cites {c.chunk_id}, not in the evidence")
            )
        elif squash_spaces(c.quote) not in squashed[c.chunk_id]:
            failures.append(_fail(Reason.INVALID_CITATION, f"[{c.index}] quote is not in {c.chunk_id}"))
    for block in blocks:
        for claim in block.claims:
            for piece, indices in split_at_markers(claim.text, claim.citations):
                if not _MEANINGFUL.search(piece):
                    continue
                if not indices:
                    failures.append(_fail(Reason.UNCITED_CLAIM, f"{block.title}: {piece.strip()[:80]}"))
                    continue
                texts: list[str] = []
                for i in indices:
                    cit = by_index.get(i)
                    if cit is None:
                        failures.append(
                            _fail(Reason.INVALID_CITATION, f"{block.title}: cites [{i}], no such citation")
                        )
                    elif cit.chunk_id in evidence:
                        texts.append(evidence[cit.chunk_id])
                if not texts:
                    continue
                joined = "\n".join(texts)
                for number in numbers_in(piece):
                    if not number_in_evidence(number, joined):
                        failures.append(
                            _fail(
                                Reason.UNGROUNDED_NUMBER,
                                f"{block.title}: {number!r} not in cited evidence {indices}",
                            )
                        )
    return failures


def _fail(code: Reason, detail: str) -> GroundingFailure:
    return GroundingFailure(code=code.value, detail=detail)
