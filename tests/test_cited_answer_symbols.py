"""What a person reads shows the book's comparison symbols, not the extractor's LaTeX: the sample book prints
"Trẻ em ≥ 6 tuổi" in amlodipin's dosage section, which the extracted text holds as "$\\geq$". The citation's quote
stays the chunk's own span (the viewer finds it there) and the claim stays grounded in it."""

from __future__ import annotations

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.qa.answers.cited_answer import CitedAnswer
from duocthu_desktop.qa.verification.grounding import verify

TEXT = "Trẻ em $\\geq$ 6 tuổi: Liều thông thường 2,5 - 5 mg/lần/ ngày."
CHUNK = Chunk(chunk_id="amlodipin__lieu_luong_cach_dung__0", drug_id="amlodipin", section_key="lieu_luong_cach_dung",
              part_index=0, text=TEXT, printed_pages=[186], physical_pages=[13], page_spans=[[13, 0, len(TEXT)]])


def test_a_claim_reads_the_books_symbol_and_its_quote_the_chunk() -> None:
    answer = CitedAnswer()
    answer.add("Amlodipin — Trẻ em $\\geq$ 6 tuổi", "dosage", CHUNK, 0, len(TEXT))
    claim = answer.blocks[0].claims[0]
    assert claim.text.startswith("Trẻ em ≥ 6 tuổi:")
    assert "$" not in claim.text and "$" not in answer.blocks[0].title
    assert answer.citations[0].quote == TEXT
    assert verify(answer.blocks, answer.citations, {CHUNK.chunk_id: TEXT}) == []
