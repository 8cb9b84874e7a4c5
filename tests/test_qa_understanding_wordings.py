"""Questions in other words, each checked on the sample book's real chunks or words (dose bands live in
tests/test_dosage_fit.py). Understanding: pregnancy and lactation in other words, strengths, ADR handling, regulatory words, "thuốc chữa X", cosmetics/legal out of scope. Catalog: a
drug's class words include the book's other wordings of its class.
"""

from __future__ import annotations

import pytest

from duocthu_desktop.qa.understanding import extractors, scope
from duocthu_desktop.qa.understanding.catalog import Catalog
from duocthu_desktop.qa.understanding.question import understand
from duocthu_desktop.qa.understanding.section_asked import route_section
from duocthu_desktop.qa.understanding.textmatch import Text

# ---- understanding ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["bầu 3 tháng uống captopril được không", "người đang mang bầu", "đang bầu", "thai nghén"]
)
def test_pregnancy_in_other_words(text: str) -> None:
    assert extractors.is_pregnant(Text.of(text))
    assert route_section(Text.of(text)).key == "thoi_ky_mang_thai"


@pytest.mark.parametrize("text", ["bn uống cả vỉ thuốc tự tử, xử trí thế nào", "uong ca hop thuoc", "định tự tử bằng thuốc"])
def test_a_whole_pack_taken_or_a_suicide_is_an_overdose(text: str) -> None:
    assert route_section(Text.of(text)).key == "qua_lieu_xu_tri"


@pytest.mark.parametrize("text", ["dùng ketamin lúc đẻ, liều trên bao nhiêu thì ảnh hưởng trẻ sơ sinh",
                                  "sản phụ đang chuyển dạ", "giảm đau khi đẻ"])
def test_a_woman_giving_birth_is_the_pregnant_patient_not_the_newborn(text: str) -> None:
    t = Text.of(text)
    assert extractors.is_pregnant(t)
    assert extractors.extract_population(t) == "mang_thai"


@pytest.mark.parametrize("text", ["mẹ đang cho bé bú dùng furosemid", "cho trẻ bú", "con đang bú mẹ có uống được không"])
def test_lactation_in_other_words_is_the_mother_not_a_child(text: str) -> None:
    t = Text.of(text)
    assert extractors.is_breastfeeding(t)
    assert extractors.extract_population(t) == "cho_con_bu"
    assert route_section(t).key == "thoi_ky_cho_con_bu"


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("metformin co vien may mg", "dang_thuoc_ham_luong"),
        ("warfarin có dạng nào", "dang_thuoc_ham_luong"),
        ("Liều metformin bao nhiêu mg cho người lớn", "lieu_luong_cach_dung"),
        ("Xử trí hội chứng người đỏ khi truyền vancomycin", "xu_tri_adr"),
        ("Xử trí quá liều paracetamol", "qua_lieu_xu_tri"),
        ("Captopril có trong danh mục bảo hiểm y tế không", "thong_tin_qui_che"),
        ("diazepam có phải thuốc hướng thần không", "thong_tin_qui_che"),
    ],
)
def test_router_new_phrasings(text: str, key: str) -> None:
    assert route_section(Text.of(text)).key == key


@pytest.mark.parametrize(
    "text", ["Kem dưỡng trắng da nào tốt nhất?", "Thủ tục ly hôn cần những giấy tờ gì?", "Cách nấu phở bò ngon"]
)
def test_cosmetics_law_cooking_are_out_of_scope(text: str) -> None:
    assert scope.is_non_medical(Text.of(text)) or scope.is_non_human(Text.of(text))


@pytest.mark.parametrize("text", ["nước tiểu màu nâu là bị gì", "Liều metformin bao nhiêu"])
def test_medical_words_are_not_out_of_scope(text: str) -> None:
    assert not scope.is_non_medical(Text.of(text))


@pytest.mark.integration
def test_thuoc_chua_is_a_condition_question(catalog: Catalog) -> None:
    frame = understand("thuốc chữa tiểu đường typ 2", catalog)
    assert frame.turn_type == "condition_to_drug" and "tiểu đường" in (frame.condition or "")


# ---- catalog ------------------------------------------------------------------------------------------------


@pytest.mark.integration
def test_class_words_include_the_books_other_wordings(catalog: Catalog) -> None:
    # "Kháng sinh nhóm aminoglycosid": furosemid's interaction section says "aminoglycosid làm tăng độc tính".
    assert "aminoglycosid" in catalog.classes_for("gentamicin")
    assert "Kháng sinh nhóm aminoglycosid" in catalog.classes_for("gentamicin")


@pytest.mark.parametrize("text", ["ketorolac 30mg tiem gia bao nhieu tien 1 ong, mua o dau re?",
                                  "Nexium giá bán bao nhiêu", "amoxicilin mua ở đâu"])
def test_a_price_or_where_to_buy_is_out_of_scope_whatever_drug_is_named(text: str) -> None:
    assert scope.asks_price_or_purchase(Text.of(text))


@pytest.mark.parametrize("text", ["giá nexium 40mg bao nhiêu 1 hộp", "thuốc này bao nhiêu một hộp"])
def test_a_price_asked_with_words_between_is_out_of_scope(text: str) -> None:
    assert scope.asks_price_or_purchase(Text.of(text))


@pytest.mark.parametrize("text", ["nguoi gia bao nhieu mg", "liều cho người già bao nhiêu",
                                  "giá trị INR bao nhiêu thì ngừng thuốc", "uống bao nhiêu 1 lần"])
def test_an_old_patient_or_a_lab_value_is_no_price(text: str) -> None:
    assert not scope.asks_price_or_purchase(Text.of(text))


@pytest.mark.parametrize(("text", "years"), [("bn nữ 30t bệnh Grave", 30.0), ("bé 5 t nặng 18kg", 5.0)])
def test_an_age_in_the_clinicians_shorthand(text: str, years: float) -> None:
    age = extractors.extract_age(Text.of(text))
    assert age is not None and age.years == years


def test_an_amount_asked_for_a_pregnant_woman_is_the_dose_not_the_pregnancy_section() -> None:
    assert route_section(Text.of("thai phụ 34 tuần, thuốc A tiêm TM bao nhiêu")).key == "lieu_luong_cach_dung"
    assert route_section(Text.of("thai phụ dùng thuốc A được không")).key == "thoi_ky_mang_thai"


@pytest.mark.parametrize(("text", "condition"), [("codein liều giảm đau", "giảm đau"), ("thuốc hạ sốt cho bé", "hạ sốt"),
                                                 ("giảm liều cho người suy thận", None),
                                                 ("loét do uống thuốc giảm đau kéo dài, thuốc X bao nhiêu", None),
                                                 ("ho do dùng thuốc chống ho, rồi sau đó giảm đau", "giảm đau")])
def test_a_symptom_said_by_what_the_dose_does_to_it(text: str, condition: str | None) -> None:
    assert extractors.extract_condition(Text.of(text)) == condition


def test_a_polyvalent_serum_dosed_by_the_vial_is_no_price() -> None:
    assert not scope.asks_price_or_purchase(Text.of("huyết thanh kháng nọc đa giá liều đầu bao nhiêu lọ?"))


def test_a_lay_name_of_a_drug_class_a_condition_is_caused_by_reads_as_the_books_name() -> None:
    """'thuốc giảm đau kháng viêm' is what the book prints as 'thuốc chống viêm không steroid'."""
    from duocthu_desktop.qa.understanding.lexicon import condition_variants

    variants = condition_variants("loét dạ dày do thuốc giảm đau kháng viêm")
    assert any("chống viêm không steroid" in v for v in variants)


@pytest.mark.parametrize("text", ["Paracetamol cho bn đang gây mê, liều bao nhiêu", "paracetamol sau gây tê tủy sống"])
def test_anaesthesia_given_is_no_effect_caused_and_no_condition(catalog: Catalog, text: str) -> None:
    """"gây mê" is something done to the patient: not the drug's ADR section, not a condition "mê"."""
    frame = understand(text, catalog)
    assert frame.section_key != "tac_dung_khong_mong_muon"
    assert frame.condition is None or "mê" not in frame.condition and "tê" not in frame.condition


def test_a_drug_causing_a_symptom_is_still_its_adverse_effects(catalog: Catalog) -> None:
    assert understand("Paracetamol có gây buồn nôn không?", catalog).section_key == "tac_dung_khong_mong_muon"


@pytest.mark.parametrize(("text", "route"), [("boi kem len da ngay may lan", "boi"), ("bôi gel vào vùng da", "boi"),
                                              ("bôi tại chỗ thế nào", "boi"), ("bi boi thuoc khac roi", None),
                                              ("gay boi ngã, uống thuốc gì", "uong")])
def test_applying_to_the_skin_typed_without_diacritics_is_the_topical_route(text: str, route: str | None) -> None:
    """'boi' is also 'bởi' (by): it names the topical route only before what is applied or where."""
    assert extractors.extract_route(Text.of(text)) == route


def test_skin_and_soft_tissue_as_clinicians_say_it_reads_as_the_books_headings() -> None:
    from duocthu_desktop.qa.understanding.lexicon import condition_variants

    variants = condition_variants("nhiễm khuẩn da và mô mềm")
    assert any("ngoài da và các mô liên kết" in v for v in variants)
    assert any("da và cấu trúc da" in v for v in variants)


@pytest.mark.parametrize(("text", "population"), [("tre de non nhe can thieu mau lieu", "so_sinh"),
                                                   ("bé sinh non 2 tuần tuổi", "so_sinh"),
                                                   ("trẻ thiếu tháng 1,5 kg", "so_sinh"),
                                                   ("sản phụ dọa đẻ non dùng thuốc gì", None)])
def test_a_baby_born_early_is_a_newborn_and_a_mother_in_preterm_labour_is_not(text: str, population: str | None) -> None:
    assert extractors.extract_population(Text.of(text)) == population


def test_dung_typed_without_diacritics_is_using_not_stopping(catalog: Catalog) -> None:
    """'dung' is 'dùng' (use) as often as 'dừng' (stop): typed bare, a may-I stays the contraindications."""
    from duocthu_desktop.qa.understanding.section_asked import sentence_ask

    assert sentence_ask(understand("bn hen suyen, dung paracetamol dc ko", catalog)) is None
    stopping = sentence_ask(understand("Bệnh nhân hen, dừng paracetamol được không?", catalog))
    assert stopping is not None and stopping.section == "chong_chi_dinh"


@pytest.mark.parametrize("text", ["nhỏ thuốc B xong ấn góc mắt bao lâu để đỡ ngấm toàn thân",
                                  "bn uong thuoc B hay buon non, nen uong luc nao cho do",
                                  "dùng thuốc B lâu dài cần xét nghiệm gì định kỳ"])
def test_relief_of_an_effect_and_the_tests_that_watch_for_it_are_the_adr_handling_section(text: str) -> None:
    assert route_section(Text.of(text)).key == "xu_tri_adr"


def test_a_dose_asked_for_relief_stays_the_dose_and_watching_stays_the_precautions():
    assert route_section(Text.of("liều thuốc B cho đỡ đau bao nhiêu")).key == "lieu_luong_cach_dung"
    assert route_section(Text.of("trong lúc điều trị phải theo dõi xét nghiệm gì, định kỳ")).key == "than_trong"
