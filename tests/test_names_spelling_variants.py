"""Names from the book: a spelling of a drug's name that its own monograph prints resolves to that drug.

The sample book's gentamicin monograph writes "nồng độ gentamycin trong huyết tương"; a clinician typing that
spelling must not read "not in the formulary". A word one edit from a name but printed only in another drug's
monograph is not a variant of it (the book printing it still keeps it from being read as a typo).
"""

from __future__ import annotations

import pytest

from duocthu_desktop.artifacts import Chunk, Monograph
from duocthu_desktop.qa.understanding.catalog import Catalog
from duocthu_desktop.qa.understanding.stored_catalog import Catalog as StoredCatalog


def _mono(drug_id: str, title: str) -> Monograph:
    return Monograph(drug_id=drug_id, title=title, start_physical=1, end_physical=1, start_printed=1,
                     end_printed=1)


def _chunk(drug_id: str, key: str, text: str, i: int) -> Chunk:
    return Chunk(chunk_id=f"{drug_id}__{key}__{i}", drug_id=drug_id, section_key=key, part_index=i, text=text,
                 printed_pages=[1], physical_pages=[1])


MONOGRAPHS = [_mono("gentamicin", "GENTAMICIN"), _mono("amikacin", "AMIKACIN")]
CHUNKS = [
    _chunk("gentamicin", "lieu_luong_cach_dung",
           "Theo dõi thường qui nồng độ gentamycin trong huyết tương để tìm liều và khoảng cách thích hợp.", 0),
    # one edit from "amikacin", printed in another monograph only
    _chunk("gentamicin", "tuong_tac_thuoc", "Không phối hợp với amikacim.", 1),
    _chunk("amikacin", "lieu_luong_cach_dung", "Tiêm bắp 15 mg/kg/ngày.", 0),
]


def test_a_spelling_the_monograph_prints_names_its_drug() -> None:
    catalog = Catalog(MONOGRAPHS, CHUNKS)
    got = catalog.resolve("gentamycin tiem bap cho tre 5 tuoi lieu bao nhieu")
    assert got.drug_ids == ["gentamicin"]
    assert not got.unknown
    assert "gentamycin" in catalog.names_for("gentamicin")


def test_a_near_spelling_printed_only_in_another_monograph_is_no_variant() -> None:
    catalog = Catalog(MONOGRAPHS, CHUNKS)
    assert "amikacim" not in catalog.names_for("amikacin")
    assert "amikacin" not in catalog.resolve("amikacim liều bao nhiêu").drug_ids


def test_the_stored_catalog_keeps_the_variants() -> None:
    catalog = Catalog(MONOGRAPHS, CHUNKS)
    again = StoredCatalog.from_data(MONOGRAPHS, catalog.to_data())
    assert again.resolve("gentamycin").drug_ids == ["gentamicin"]


# ---- the English spelling of an INN, and forms named by a Greek letter ------------------------------------------

E_MONOGRAPHS = [_mono("cefalexin", "CEFALEXIN"), _mono("erythropoietin", "ERYTHROPOIETIN"),
                _mono("gentamicin", "GENTAMICIN")]
E_CHUNKS = [
    _chunk("cefalexin", "duoc_dong_hoc", "Uống lúc đói một liều đơn 250 mg cephalexin, nồng độ đỉnh ...", 0),
    _chunk("erythropoietin", "lieu_luong_cach_dung",
           "Liều khởi đầu của epoetin alpha hoặc epoetin zeta là 150 đơn vị/kg. Liều khởi đầu của epoetin beta "
           "là 30 000 đơn vị.", 0),
    # another drug's form named in an interaction: not gentamicin's name
    _chunk("gentamicin", "tuong_tac_thuoc", "Không dùng đồng thời với agalsidase alpha và agalsidase beta, "
           "agalsidase alfa.", 0),
    _chunk("gentamicin", "lieu_luong_cach_dung", "Tiêm bắp 3 mg/kg/ngày.", 1),
]


def test_the_english_spelling_the_monograph_prints_names_its_drug() -> None:
    """Cefalexin's monograph prints "cephalexin" ("ph" for "f"): that spelling is the drug, not a drug not in the
    formulary."""
    catalog = Catalog(E_MONOGRAPHS, E_CHUNKS)
    got = catalog.resolve("Cephalexin cho bé 3 tuổi liều bao nhiêu?")
    assert got.drug_ids == ["cefalexin"] and not got.unknown


def test_forms_the_monograph_names_by_a_greek_letter_name_its_drug() -> None:
    catalog = Catalog(E_MONOGRAPHS, E_CHUNKS)
    assert catalog.resolve("Lọ epoetin để ngoài tủ lạnh được bao lâu?").drug_ids == ["erythropoietin"]
    got = catalog.resolve("epoetin beta liều khởi đầu")
    assert got.drug_ids == ["erythropoietin"] and got.matches[0].said == "epoetin beta"
    again = StoredCatalog.from_data(E_MONOGRAPHS, catalog.to_data())
    assert again.resolve("epoetin alpha").drug_ids == ["erythropoietin"]


def test_a_greek_letter_form_named_only_in_an_interaction_is_not_the_drug() -> None:
    catalog = Catalog(E_MONOGRAPHS, E_CHUNKS)
    assert "gentamicin" not in catalog.resolve("agalsidase beta liều bao nhiêu").drug_ids


# ---- the spelling table: everyday and international spellings of what the book prints ------------------------

S_MONOGRAPHS = [_mono("acid_acetylsalicylic", "ACID ACETYLSALICYLIC"), _mono("kem_oxyd", "KẼM OXYD"),
                _mono("furosemid", "FUROSEMID"), _mono("amoxicilin", "AMOXICILIN"),
                _mono("calci_clorid", "CALCI CLORID"), _mono("ketamin", "KETAMIN")]
S_CHUNKS = [_chunk(m.drug_id, "lieu_luong_cach_dung", "Uống 1 viên.", 0) for m in S_MONOGRAPHS]


@pytest.mark.parametrize(("typed", "drug_id"), [
    ("axit acetylsalicylic", "acid_acetylsalicylic"), ("kẽm oxit", "kem_oxyd"), ("kem oxid", "kem_oxyd"),
    ("furosemide", "furosemid"), ("amoxicillin", "amoxicilin"), ("amoxycillin", "amoxicilin"),
    ("canxi clorua", "calci_clorid"), ("ketamine", "ketamin"),
])
def test_a_name_written_the_everyday_or_english_way_is_the_books(typed: str, drug_id: str) -> None:
    catalog = Catalog(S_MONOGRAPHS, S_CHUNKS)
    got = catalog.resolve(f"Liều {typed} cho người lớn?")
    assert got.drug_ids == [drug_id] and not got.unknown
    again = StoredCatalog.from_data(S_MONOGRAPHS, catalog.to_data())
    assert again.resolve(f"Liều {typed} cho người lớn?").drug_ids == [drug_id]


def test_the_table_never_reads_a_vietnamese_word_or_a_unit_as_a_drug() -> None:
    """"kem" (cream) typed plain is no "kẽm oxyd" word read through the table; a unit after a number is no drug."""
    catalog = Catalog(S_MONOGRAPHS, S_CHUNKS)
    assert catalog.resolve("bôi kem ngày 2 lần").drug_ids == []
    got = catalog.resolve("Creatinin 180 micromol/l, liều?")
    assert got.drug_ids == [] and got.unknown == []


def test_a_spelling_key_two_drugs_share_names_neither() -> None:
    catalog = Catalog([_mono("cefalexin", "CEFALEXIN"), _mono("cephalexin_x", "CEPHALEXIN")], [])
    assert catalog.resolve("cefalexin").drug_ids == ["cefalexin"]  # as printed: its own
    assert catalog.resolve("kephalexine").drug_ids == []  # two edits from each: only the shared key fits


def test_a_partner_typed_the_common_way_is_the_one_the_book_spells_otherwise() -> None:
    """"canxi" typed, "calci" printed in the drug's Tương tác thuốc: a partner the book names, not a stray word."""
    monographs = [_mono("digoxin", "DIGOXIN")]
    chunks = [_chunk("digoxin", "tuong_tac_thuoc", "Muối calci tiêm tĩnh mạch: nguy cơ rối loạn nhịp tim.", 0),
              _chunk("digoxin", "lieu_luong_cach_dung", "Uống 0,25 mg/ngày.", 1)]
    got = Catalog(monographs, chunks).resolve("dang dung digoxin, tiem tinh mach canxi clorua duoc khong")
    assert got.drug_ids == ["digoxin"] and got.unknown == ["canxi"]
    # a word no partner section prints stays no drug
    assert Catalog(monographs, chunks).resolve("dang dung digoxin, an nhieu canhxa duoc khong").unknown == []
