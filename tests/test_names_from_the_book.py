"""Every name the book prints for a monograph resolves to it: the title, the name without its salt words, the
INN line's names; a word the person calls a drug that the book lacks is an unknown drug, not the last one."""

from __future__ import annotations

from duocthu_desktop.artifacts import Monograph
from duocthu_desktop.qa.understanding.catalog import Catalog
from duocthu_desktop.text import drug_id_from_title


def _mono(title: str, inn: str | None = None) -> Monograph:
    return Monograph(drug_id=drug_id_from_title(title), title=title, inn=inn, start_physical=1, end_physical=1,
                     start_printed=1, end_printed=1)


def test_the_stem_of_a_salt_name_is_the_monograph():
    cat = Catalog([_mono("ZOLMERAN HYDROCLORID"), _mono("PIRATEX PHOSPHAT", "Piratex phosphate")], [])
    assert cat.resolve("Liều zolmeran cho người lớn").drug_ids == ["zolmeran_hydroclorid"]
    assert cat.resolve("Liều Zolmeran hydroclorid").drug_ids == ["zolmeran_hydroclorid"]
    assert cat.resolve("piratex có dùng cho trẻ em không").drug_ids == ["piratex_phosphat"]
    assert "Zolmeran" in cat.names_for("zolmeran_hydroclorid")


def test_a_stem_two_salts_share_names_neither():
    cat = Catalog([_mono("LITAX CARBONAT"), _mono("LITAX CITRAT")], [])
    res = cat.resolve("liều litax")
    assert res.drug_ids == []
    assert cat.resolve("liều litax citrat").drug_ids == ["litax_citrat"]


def test_a_salt_only_name_gives_no_stem():
    cat = Catalog([_mono("KALI CLORID"), _mono("NATRI BICARBONAT")], [])
    assert cat.resolve("kali máu 6 mmol/l").drug_ids == []
    assert cat.resolve("liều kali clorid").drug_ids == ["kali_clorid"]


def test_the_inn_line_stem_resolves_too():
    cat = Catalog([_mono("MOXTERAL", "Moxteral sodium")], [])
    assert cat.resolve("Moxteral sodium liều").drug_ids == ["moxteral"]


def test_a_word_called_a_drug_is_an_unknown_drug():
    cat = Catalog([_mono("ZOLMERAN HYDROCLORID")], [])
    res = cat.resolve("liều thuốc X123 cho người lớn?")
    assert res.drug_ids == [] and res.unknown == ["X123"]
    assert cat.resolve("biet duoc Qorvix dung the nao").unknown == ["Qorvix"]
    # Vietnamese words after "thuốc" are not drug names
    assert cat.resolve("thuốc này uống lúc nào").unknown == []
    assert cat.resolve("thuoc tiem hay thuoc uong").unknown == []


def test_two_neighbouring_letters_swapped_is_one_typo():
    cat = Catalog([_mono("CODEIN PHOSPHAT"), _mono("ZOLMERAN HYDROCLORID")], [])
    assert cat.resolve("sirô codien liều bao nhiêu").drug_ids == ["codein_phosphat"]
    assert cat.resolve("zolmerna liều").drug_ids == ["zolmeran_hydroclorid"]


def test_a_word_the_book_prints_is_no_typo_of_a_brand():
    """"Candida" is an organism the book names, not a misspelling of a brand "Candid" one letter away."""
    from duocthu_desktop.artifacts import Chunk

    def chunk(drug: str, key: str, text: str) -> Chunk:
        return Chunk(chunk_id=f"{drug}__{key}__0", drug_id=drug, section_key=key, part_index=0, text=text,
                     printed_pages=[1], physical_pages=[1])

    cat = Catalog([_mono("ZOLMERAN"), _mono("PIRATEX")],
                  [chunk("zolmeran", "ten_thuong_mai", "Candid; Zolmex."),
                   chunk("piratex", "chi_dinh", "Nhiễm nấm Candida trên da.")])
    assert cat.resolve("Candid liều").drug_ids == ["zolmeran"]
    assert cat.resolve("thuốc nào trị nhiễm nấm candida").drug_ids == []


def test_which_antibiotic_with_an_indication_is_a_list_question():
    from duocthu_desktop.qa.understanding.question import understand

    cat = Catalog([_mono("ZOLMERAN"), _mono("HEPARIN")], [])
    frame = understand("Những kháng sinh nào có chỉ định nhiễm khuẩn nặng do Pseudomonas?", cat)
    assert frame.turn_type == "condition_to_drug"
    assert frame.condition == "nhiễm khuẩn nặng do pseudomonas"
    asked = understand("Chỉ định của heparin?", cat)
    assert (asked.turn_type, asked.section_key, asked.condition) == ("drug_attribute", "chi_dinh", None)


def test_a_typo_one_edit_from_two_drugs_names_neither():
    """"Korione" is one letter from the brand of one drug and one letter from another's: the turn reads neither
    (it asks which drug), and the word is not a drug the book lacks either."""
    from duocthu_desktop.artifacts import Chunk

    def chunk(drug: str, text: str) -> Chunk:
        return Chunk(chunk_id=f"{drug}__ten_thuong_mai__0", drug_id=drug, section_key="ten_thuong_mai",
                     part_index=0, text=text, printed_pages=[1], physical_pages=[1])

    cat = Catalog([_mono("ZOLMERAN"), _mono("PIRATEX")],
                  [chunk("zolmeran", "Koritone; Zolmex."), chunk("piratex", "Korizone; Pirax.")])
    assert cat.resolve("korixone liều").drug_ids == []
    res = cat.resolve("koritone liều")
    assert res.drug_ids == ["zolmeran"]
    near = cat.resolve("liều korione cho người lớn")
    assert near.drug_ids == [] and near.unknown == [] and near.near_two == ["korione"]


def test_a_letter_dropped_from_a_six_letter_name_is_one_typo():
    cat = Catalog([_mono("NEXIUM"), _mono("PIRATEX")], [])
    assert cat.resolve("liều nexum cho người lớn").drug_ids == ["nexium"]
    # five letters never stand for a five-letter name one letter changed
    assert Catalog([_mono("NEXUM")], []).resolve("liều nexam").drug_ids == []


def test_one_long_word_mistyped_in_a_name_of_several_words():
    cat = Catalog([_mono("TIM GENTIAN", "Gentian violet"), _mono("PIRATEX")], [])
    assert cat.resolve("tim gendian bôi thế nào").drug_ids == ["tim_gentian"]
    assert cat.resolve("genian violet bôi thế nào").drug_ids == ["tim_gentian"]
    two = Catalog([_mono("TIM GENTIAN"), _mono("TIM GENTIAM")], [])
    assert two.resolve("tim gentiax bôi thế nào").drug_ids == []


def test_the_name_after_hoi_chung_or_benh_is_a_disease_not_a_drug():
    cat = Catalog([_mono("ZOLMERAN")], [])
    assert cat.resolve("Hội chứng Zollinger-Ellison ở người lớn, liều zolmeran?").unknown == []
    assert cat.resolve("hoi chung Zollinger-Ellison liều bao nhiêu").unknown == []
    assert cat.resolve("bệnh nhân đang dùng rosuvastatin").unknown == ["rosuvastatin"]


def test_a_vietnamese_title_said_without_its_last_word():
    """"huyết thanh kháng nọc đa giá": the title "Huyết thanh kháng nọc X" said without its last word, a head no
    other name of the book starts with; a head two titles share names neither."""
    cat = Catalog([_mono("HUYẾT THANH KHÁNG NỌC RẮN"), _mono("KẼM OXYD")], [])
    assert cat.resolve("huyet thanh khang noc da gia bat dau may lo").drug_ids == ["huyet_thanh_khang_noc_ran"]
    assert cat.resolve("huyết thanh kháng nọc đa giá").drug_ids == ["huyet_thanh_khang_noc_ran"]
    two = Catalog([_mono("HUYẾT THANH KHÁNG NỌC RẮN"), _mono("HUYẾT THANH KHÁNG NỌC BỌ CẠP")], [])
    assert two.resolve("huyết thanh kháng nọc đa giá").drug_ids == []
    assert two.resolve("huyết thanh kháng nọc rắn").drug_ids == ["huyet_thanh_khang_noc_ran"]


def test_an_inn_said_without_its_last_word_and_an_enzyme_spelt_as_said():
    """"snake antivenom" for the INN line's "Snake antivenom serum"; "hyaluronidaza" for "Hyaluronidase"."""
    cat = Catalog([_mono("HUYẾT THANH KHÁNG NỌC RẮN", inn="Snake antivenom serum"), _mono("HYALURONIDASE"),
                   _mono("KẼM OXYD")], [])
    assert cat.resolve("snake antivenom da gia khoi dau may lo").drug_ids == ["huyet_thanh_khang_noc_ran"]
    assert cat.resolve("hyaluronidaza truyen duoi da cho tre so sinh").drug_ids == ["hyaluronidase"]
    # one word of a name of two is no name ("kẽm" alone names no zinc salt)
    assert cat.resolve("kẽm bôi được không").drug_ids == []
