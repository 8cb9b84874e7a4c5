"""The section router: the Vietnamese words people use for each section of a monograph.

Phrases are tried most specific first (a list of (phrase, key) per tier), so "quá liều" wins over "liều",
"chống chỉ định" over "chỉ định", "tác dụng phụ" over "tác dụng". Within a tier the phrase earliest in the
question wins. Population words ("mang thai", "cho con bú") only choose their section when nothing else does,
so "liều metformin cho phụ nữ mang thai" is a dosing question for a pregnant woman.
"""

from __future__ import annotations

from dataclasses import dataclass

from duocthu_desktop.qa.extractors import POPULATION_PHRASES
from duocthu_desktop.qa.textmatch import Text, any_of, first_of

DOSING = "lieu_luong_cach_dung"
INTERACTION = "tuong_tac_thuoc"

_SPECIFIC: tuple[tuple[str, str], ...] = (
    ("quá liều", "qua_lieu_xu_tri"),
    ("dùng quá liều", "qua_lieu_xu_tri"),
    ("uống quá nhiều", "qua_lieu_xu_tri"),
    ("ngộ độc", "qua_lieu_xu_tri"),
    ("uống nhầm", "qua_lieu_xu_tri"),
    ("giải độc", "qua_lieu_xu_tri"),
    ("xử trí adr", "xu_tri_adr"),
    ("xử trí tác dụng không mong muốn", "xu_tri_adr"),
    ("xử trí tác dụng phụ", "xu_tri_adr"),
    ("xử lý tác dụng phụ", "xu_tri_adr"),
    # "Xử trí hội chứng người đỏ ...": handling named without "quá liều"/"ngộ độc" (matched above) is ADR handling.
    ("xử trí", "xu_tri_adr"),
    ("xử lý", "xu_tri_adr"),
    ("chống chỉ định", "chong_chi_dinh"),
    ("không được dùng", "chong_chi_dinh"),
    ("cấm dùng", "chong_chi_dinh"),
    ("tác dụng không mong muốn", "tac_dung_khong_mong_muon"),
    ("tác dụng phụ", "tac_dung_khong_mong_muon"),
    ("tác dụng có hại", "tac_dung_khong_mong_muon"),
    ("phản ứng có hại", "tac_dung_khong_mong_muon"),
    ("tác dụng ngoại ý", "tac_dung_khong_mong_muon"),
    ("adr", "tac_dung_khong_mong_muon"),
    ("tương kỵ", "tuong_ky"),
    ("tương kị", "tuong_ky"),
    ("pha chung", "tuong_ky"),
    ("pha cùng", "tuong_ky"),
    ("trộn chung", "tuong_ky"),
    ("tương tác", INTERACTION),
    ("dùng chung", INTERACTION),
    ("dùng cùng", INTERACTION),
    ("dùng đồng thời", INTERACTION),
    ("uống chung", INTERACTION),
    ("uống cùng", INTERACTION),
    ("phối hợp", INTERACTION),
    ("kết hợp", INTERACTION),
    ("dùng kèm", INTERACTION),
    ("mã atc", "thong_tin_chung"),
    ("atc", "thong_tin_chung"),
    ("tên chung quốc tế", "thong_tin_chung"),
    ("tên quốc tế", "thong_tin_chung"),
    ("loại thuốc", "thong_tin_chung"),
    ("nhóm thuốc", "thong_tin_chung"),
    ("thuộc nhóm", "thong_tin_chung"),
    ("tên thương mại", "ten_thuong_mai"),
    ("biệt dược", "ten_thuong_mai"),
    ("tên biệt dược", "ten_thuong_mai"),
    ("thông tin qui chế", "thong_tin_qui_che"),
    ("thông tin quy chế", "thong_tin_qui_che"),
    ("qui chế", "thong_tin_qui_che"),
    ("quy chế", "thong_tin_qui_che"),
    ("kê đơn", "thong_tin_qui_che"),
    ("bảo hiểm y tế", "thong_tin_qui_che"),
    ("bảo hiểm", "thong_tin_qui_che"),
    ("bhyt", "thong_tin_qui_che"),
    ("danh mục thuốc", "thong_tin_qui_che"),
    ("thuốc thiết yếu", "thong_tin_qui_che"),
    ("hướng thần", "thong_tin_qui_che"),
    ("hướng tâm thần", "thong_tin_qui_che"),
    ("gây nghiện", "thong_tin_qui_che"),
    ("bảo quản", "do_on_dinh_bao_quan"),
    ("độ ổn định", "do_on_dinh_bao_quan"),
    ("hạn dùng", "do_on_dinh_bao_quan"),
    ("dạng thuốc", "dang_thuoc_ham_luong"),
    ("hàm lượng", "dang_thuoc_ham_luong"),
    ("dạng bào chế", "dang_thuoc_ham_luong"),
    ("biệt dạng", "dang_thuoc_ham_luong"),
    ("có những dạng", "dang_thuoc_ham_luong"),
    # The strengths on sale ("metformin có viên mấy mg", "viên bao nhiêu mg"), before "bao nhiêu mg" (a dose).
    ("viên mấy mg", "dang_thuoc_ham_luong"),
    ("viên bao nhiêu mg", "dang_thuoc_ham_luong"),
    ("có viên", "dang_thuoc_ham_luong"),
    ("loại viên", "dang_thuoc_ham_luong"),
    ("dạng viên", "dang_thuoc_ham_luong"),
    ("dạng nào", "dang_thuoc_ham_luong"),
    ("có dạng", "dang_thuoc_ham_luong"),
    ("cơ chế", "duoc_ly_co_che"),
    ("dược lý", "duoc_ly_co_che"),
    ("dược động học", "duoc_ly_co_che"),
    ("dược lực học", "duoc_ly_co_che"),
    ("mic", "duoc_ly_co_che"),
    ("nồng độ ức chế", "duoc_ly_co_che"),
    ("nồng độ tối thiểu ức chế", "duoc_ly_co_che"),
    ("phổ kháng khuẩn", "duoc_ly_co_che"),
    ("phổ tác dụng", "duoc_ly_co_che"),
    ("kháng thuốc", "duoc_ly_co_che"),
    ("sinh khả dụng", "duoc_ly_co_che"),
    ("nửa đời", "duoc_ly_co_che"),
    ("thời gian bán thải", "duoc_ly_co_che"),
    ("hấp thu", "duoc_ly_co_che"),
    ("thải trừ", "duoc_ly_co_che"),
    ("chuyển hóa", "duoc_ly_co_che"),
    ("thận trọng", "than_trong"),
    ("lưu ý", "than_trong"),
    ("cảnh báo", "than_trong"),
    ("cẩn thận", "than_trong"),
    ("inr", DOSING),  # the anticoagulant's dose is set by its INR target, printed in the dosage section
    ("liều lượng", DOSING),
    ("liều dùng", DOSING),
    ("liều khởi đầu", DOSING),
    ("liều duy trì", DOSING),
    ("liều tối đa", DOSING),
    ("liều", DOSING),
    ("dùng bao nhiêu", DOSING),
    ("uống bao nhiêu", DOSING),
    ("tiêm bao nhiêu", DOSING),
    ("bao nhiêu mg", DOSING),
    ("mấy viên", DOSING),
    ("mấy lần", DOSING),
    ("cách dùng", DOSING),
    ("dùng như thế nào", DOSING),
    ("dùng thế nào", DOSING),
    ("uống như thế nào", DOSING),
    ("chỉ định", "chi_dinh"),
    ("công dụng", "chi_dinh"),
    ("dùng để làm gì", "chi_dinh"),
    ("dùng để", "chi_dinh"),
    ("trị bệnh gì", "chi_dinh"),
    ("chữa bệnh gì", "chi_dinh"),
    ("tác dụng gì", "chi_dinh"),
    ("dùng trong trường hợp nào", "chi_dinh"),
)

# Chosen only when nothing above matched: the person named a group, not a section.
# The wordings are the population extractor's own, so a pregnancy word the extractor knows also picks the section.
_POPULATION_SECTIONS: tuple[tuple[str, str], ...] = (
    *((p, "thoi_ky_mang_thai") for p, k in POPULATION_PHRASES if k == "mang_thai"),
    ("thai kỳ", "thoi_ky_mang_thai"),
    *((p, "thoi_ky_cho_con_bu") for p, k in POPULATION_PHRASES if k == "cho_con_bu"),
)

# "Can X be used ...?" with no section named: the contraindications answer it.
_CAN_USE: tuple[str, ...] = ("có dùng được", "dùng được không", "có được dùng", "có nên dùng", "uống được không")

WHOLE_SECTION_PHRASES: tuple[str, ...] = ("toàn bộ", "tất cả", "đầy đủ", "cả mục", "nguyên văn", "chi tiết")

# Section phrases that also appear as a pregnancy/lactation heading word are resolved by _SPECIFIC first.
_TIER_PHRASES = [p for p, _ in _SPECIFIC]
_TIER_KEYS = dict(_SPECIFIC)


@dataclass(frozen=True)
class SectionAsk:
    key: str | None
    phrase: str | None
    whole_section: bool


def route_section(text: Text) -> SectionAsk:
    """The section a question asks for, the phrase that chose it, and whether the whole section was asked."""
    whole = any_of(text, WHOLE_SECTION_PHRASES)
    hit = _first_specific(text)
    if hit is not None:
        return SectionAsk(_TIER_KEYS[hit], hit, whole)
    pop = first_of(text, [p for p, _ in _POPULATION_SECTIONS])
    if pop is not None:
        return SectionAsk(dict(_POPULATION_SECTIONS)[pop[0]], pop[0], whole)
    can = first_of(text, _CAN_USE)
    if can is not None:
        return SectionAsk("chong_chi_dinh", can[0], whole)
    return SectionAsk(None, None, whole)


def _first_specific(text: Text) -> str | None:
    """The most specific phrase: the list order is the priority; the first phrase found wins."""
    for phrase in _TIER_PHRASES:
        if first_of(text, (phrase,)) is not None:
            return phrase
    return None


def mentions_interaction(text: Text) -> bool:
    return any_of(text, [p for p, k in _SPECIFIC if k == INTERACTION])
