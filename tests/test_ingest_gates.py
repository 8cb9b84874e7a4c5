"""The named gates, computed from artifacts: each one fires on the fault it names."""

from __future__ import annotations

from duocthu_desktop.artifacts import Chunk, Monograph, PageEntry, PageMap, SectionSpan
from ingestion.gates import GATE_NAMES, compute


def mono(sections=("thong_tin_chung", "chi_dinh"), start=3, end=4):
    return Monograph(
        drug_id="abacavir",
        title="ABACAVIR",
        start_physical=start,
        end_physical=end,
        start_printed=99,
        end_printed=100,
        sections=[SectionSpan(key=k, heading=k, start_printed=99, end_printed=99) for k in sections],
    )


def chunk(key="chi_dinh", text="Điều trị HIV.", idx=0, printed=(99,), physical=(3,)):
    return Chunk(
        chunk_id=f"abacavir__{key}__{idx}",
        drug_id="abacavir",
        section_key=key,
        part_index=idx,
        text=text,
        printed_pages=list(printed),
        physical_pages=list(physical),
    )


PAGES = PageMap(
    source_pdf="x.pdf",
    source_sha256="0",
    pages=[PageEntry(physical=i, printed=None if i < 3 else 96 + i) for i in range(1, 6)],
)
FACTS = [
    {"physical": i, "printed": None if i < 3 else 96 + i, "header_drug": "Abacavir", "gutter_lines": 0}
    for i in range(1, 6)
]


def test_a_clean_build_has_every_gate_at_zero():
    values, details = compute(
        [mono()], [chunk("thong_tin_chung", "Tên chung quốc tế: Abacavir."), chunk()], PAGES, FACTS
    )
    assert set(values) == set(GATE_NAMES) and not any(values.values()), details


def test_each_fault_fires_its_gate():
    chunks = [
        chunk("thong_tin_chung", "Tên chung quốc tế: Abacavir."),
        chunk("chi_dinh", " ".join(["liều"] * 801)),
        chunk("chi_dinh", "x \ufffd", idx=0, printed=(), physical=()),
    ]
    facts = [dict(f) for f in FACTS]
    facts[3]["gutter_lines"] = 2
    facts[2]["header_drug"] = "Warfarin"
    values, _ = compute([mono(("thong_tin_chung", "chi_dinh", "tuong_ky"), start=2)], chunks, PAGES, facts)
    assert values["chunks_over_token_ceiling"] == 1
    assert values["chunks_without_pages"] == 1
    assert values["replacement_characters"] == 1
    assert values["duplicate_chunk_ids"] == 1
    assert values["sections_without_text"] == 1  # tuong_ky
    assert values["monograph_pages_without_folio"] == 1  # physical 2
    assert values["reading_order_jumps"] == 1
    assert values["header_drug_mismatches"] >= 1


def test_a_monograph_with_only_its_identity_block_has_no_sections():
    values, _ = compute(
        [mono(("thong_tin_chung",))], [chunk("thong_tin_chung", "Tên chung quốc tế: Abacavir.")], PAGES, FACTS
    )
    assert values["monographs_without_sections"] == 1
