"""Every Vietnamese phrase list the question path reads, in one place, with the abbreviations clinicians type.

General clinical vocabulary only: section words, population words, route words, question words, scope words,
class words. No drug is named here (brands and INNs come from the book through `understanding.catalog`). Phrases are
written with diacritics; `qa.textmatch` decides how a question typed with or without them meets them.
"""

from __future__ import annotations

import re

from duocthu_desktop.qa.understanding.textmatch import has_diacritics
from duocthu_desktop.text import fold

DOSING = "lieu_luong_cach_dung"
INTERACTION = "tuong_tac_thuoc"
ADR = "tac_dung_khong_mong_muon"
CONTRAINDICATIONS = "chong_chi_dinh"

# ---- abbreviations -------------------------------------------------------------------------------------------

# Typed as is (case matters: "TE" is "trẻ em", "te" may be "tê"), whole words only.
ABBREVIATIONS_CASED: tuple[tuple[str, str], ...] = (
    ("TE", "trẻ em"),
    ("NL", "người lớn"),
    ("BN", "bệnh nhân"),
    ("PNCT", "phụ nữ có thai"),
    ("PNCCB", "phụ nữ cho con bú"),
    ("THA", "tăng huyết áp"),
    ("ĐTĐ", "đái tháo đường"),
    ("TM", "tĩnh mạch"),
    ("TB", "tiêm bắp"),
    ("TDD", "tiêm dưới da"),
    ("TTM", "truyền tĩnh mạch"),
    ("TDP", "tác dụng phụ"),
    ("TTT", "tương tác thuốc"),
    ("HP", "Helicobacter pylori"),
)
# Any case: no Vietnamese word is spelled like these.
ABBREVIATIONS_ANY_CASE: tuple[tuple[str, str], ...] = (
    ("ccđ", "chống chỉ định"),
    ("ccd", "chống chỉ định"),
    ("tdkmm", "tác dụng không mong muốn"),
    ("tdkmmm", "tác dụng không mong muốn"),
    ("pnct", "phụ nữ có thai"),
    ("pnccb", "phụ nữ cho con bú"),
    # "dùng đc ko": chat Vietnamese for "được", "không"; no word is spelled so
    ("đc", "được"),
    ("ko", "không"),
)
# "K phổi", "K tuyến giáp": a capital K before the organ is "ung thư" on the ward; not "K máu" nor "K 5,8" (kali),
# not "vitamin K"
_CANCER_K = re.compile(r"(?<![\w+])(?<!vitamin )(?<!Vitamin )K(?= (?!máu|mau|huyết|huyet)[^\W\d_])")


def expand_abbreviations(text: str) -> str:
    """The question with clinicians' abbreviations written out ("CCĐ metformin" -> "chống chỉ định metformin").

    In a question typed without diacritics the expansion is folded too, so the question stays all-plain and is
    matched as a plain question ("lieu para cho TE" -> "lieu para cho tre em").
    """
    plain = not has_diacritics(text)
    for abbr, full in ABBREVIATIONS_CASED:
        text = re.sub(r"(?<!\w)" + re.escape(abbr) + r"(?!\w)", fold(full) if plain else full, text)
    for abbr, full in ABBREVIATIONS_ANY_CASE:
        text = re.sub(r"(?<!\w)" + re.escape(abbr) + r"(?!\w)", fold(full) if plain else full, text, flags=re.I)
    return _CANCER_K.sub("ung thu" if plain else "ung thư", text)


# A form of a drug named by a Greek letter, in folded text ("epoetin alfa", "interferon-beta"): (word, letter)
GREEK_FORM = re.compile(r"(?<![a-z0-9])([a-z]+)[ -](alpha|alfa|beta|gamma|delta|zeta|omega|kappa)(?![a-z])")


# ---- sections ------------------------------------------------------------------------------------------------

# Most specific first: the list order is the priority ("quá liều" before "liều", "chống chỉ định" before
# "chỉ định", "tác dụng phụ" before "tác dụng").
SECTION_PHRASES: tuple[tuple[str, str], ...] = (
    ("quá liều", "qua_lieu_xu_tri"),
    ("dùng quá liều", "qua_lieu_xu_tri"),
    ("uống quá nhiều", "qua_lieu_xu_tri"),
    ("ngộ độc", "qua_lieu_xu_tri"),
    ("uống nhầm", "qua_lieu_xu_tri"),
    ("giải độc", "qua_lieu_xu_tri"),
    # more than meant, taken by mistake: an overdose however it is said ("lỡ uống nhiều quá", "dùng nhầm")
    ("lỡ uống nhiều", "qua_lieu_xu_tri"),
    ("lỡ dùng nhiều", "qua_lieu_xu_tri"),
    ("uống nhiều quá", "qua_lieu_xu_tri"),
    ("dùng nhiều quá", "qua_lieu_xu_tri"),
    ("quá tay", "qua_lieu_xu_tri"),
    ("dùng nhầm", "qua_lieu_xu_tri"),
    ("nhầm liều", "qua_lieu_xu_tri"),
    ("nuốt phải", "qua_lieu_xu_tri"),
    # a whole pack, or taken to die: an overdose ("uống cả vỉ ... tự tử, xử trí thế nào?")
    ("cả vỉ", "qua_lieu_xu_tri"),
    ("cả hộp", "qua_lieu_xu_tri"),
    ("tự tử", "qua_lieu_xu_tri"),
    ("xử trí adr", "xu_tri_adr"),
    ("xử trí tác dụng không mong muốn", "xu_tri_adr"),
    ("xử trí tác dụng phụ", "xu_tri_adr"),
    ("xử lý tác dụng phụ", "xu_tri_adr"),
    # "Xử trí hội chứng người đỏ ...": handling named without "quá liều"/"ngộ độc" (matched above) is ADR handling.
    ("xử trí", "xu_tri_adr"),
    ("xử lý", "xu_tri_adr"),
    ("chống chỉ định", CONTRAINDICATIONS),
    ("không được dùng", CONTRAINDICATIONS),
    ("cấm dùng", CONTRAINDICATIONS),
    ("tác dụng không mong muốn", ADR),
    ("tác dụng phụ", ADR),
    ("tác dụng có hại", ADR),
    ("phản ứng có hại", ADR),
    ("tác dụng ngoại ý", ADR),
    ("adr", ADR),
    ("tương kỵ", "tuong_ky"),
    ("tương kị", "tuong_ky"),
    ("pha chung", "tuong_ky"),
    ("pha cùng", "tuong_ky"),
    ("trộn chung", "tuong_ky"),
    # "trộn ... trong cùng một bơm tiêm": mixed before it is given, not taken together
    ("cùng bơm tiêm", "tuong_ky"),
    ("cùng một bơm tiêm", "tuong_ky"),
    ("chung bơm tiêm", "tuong_ky"),
    ("chung một bơm tiêm", "tuong_ky"),
    ("cùng dây truyền", "tuong_ky"),
    # "pha ... vào chai glucose", "cho vào dịch truyền": mixed into the infusion, what Tương kỵ says
    ("vào chai", "tuong_ky"),
    ("chai dịch truyền", "tuong_ky"),
    ("vào dịch truyền", "tuong_ky"),
    ("vào túi dịch", "tuong_ky"),
    ("chung dây truyền", "tuong_ky"),
    ("trộn lẫn", "tuong_ky"),
    ("trộn", "tuong_ky"),
    ("không được pha", "tuong_ky"),
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
    ("là thuốc gì", "thong_tin_chung"),
    ("là thuốc nào", "thong_tin_chung"),
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
    # where and how long it is kept: the words of the section's own sentences ("để tủ lạnh", "ở nhiệt độ phòng")
    ("tủ lạnh", "do_on_dinh_bao_quan"),
    ("nhiệt độ phòng", "do_on_dinh_bao_quan"),
    ("đông lạnh", "do_on_dinh_bao_quan"),
    ("đóng băng", "do_on_dinh_bao_quan"),
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
    ("dùng cho bệnh gì", "chi_dinh"),
    ("dùng cho những bệnh gì", "chi_dinh"),
    ("trị những bệnh gì", "chi_dinh"),
    ("chữa những bệnh gì", "chi_dinh"),
)
# What a ward asks without naming a section, and the section whose sentences answer it: tried only when no
# section phrase, population word or can-I phrase chose one (a question naming a dose or a contraindication
# goes there first), so a question with none of a heading's words is not read as the contraindications'.
# General Vietnamese; the list order is the priority.
QUESTION_CUES: tuple[tuple[str, str], ...] = (
    # kept, not given: where and how the product is stored
    ("để ở nhiệt độ", "do_on_dinh_bao_quan"),
    ("giữ ở nhiệt độ", "do_on_dinh_bao_quan"),
    ("cất giữ", "do_on_dinh_bao_quan"),
    ("cất ở", "do_on_dinh_bao_quan"),
    ("cất thuốc", "do_on_dinh_bao_quan"),
    ("khỏi hỏng", "do_on_dinh_bao_quan"),
    ("bị hỏng", "do_on_dinh_bao_quan"),
    ("tránh ánh sáng", "do_on_dinh_bao_quan"),
    ("để được bao lâu", "do_on_dinh_bao_quan"),
    # the unborn child: the pregnancy section
    ("thai nhi", "thoi_ky_mang_thai"),
    ("dị tật", "thoi_ky_mang_thai"),
    ("quái thai", "thoi_ky_mang_thai"),
    ("nhau thai", "thoi_ky_mang_thai"),
    # into the milk: the breast-feeding section
    ("qua sữa", "thoi_ky_cho_con_bu"),
    ("vào sữa", "thoi_ky_cho_con_bu"),
    # how the body handles it: the pharmacology section (its pharmacokinetics)
    ("đào thải", "duoc_ly_co_che"),
    ("thải qua", "duoc_ly_co_che"),
    ("bán thải", "duoc_ly_co_che"),
    ("nồng độ đỉnh", "duoc_ly_co_che"),
    ("bắt đầu có tác dụng", "duoc_ly_co_che"),
    ("qua hàng rào", "duoc_ly_co_che"),
    # what else is taken with it: the interactions
    ("thuốc khác", "tuong_tac_thuoc"),
    ("dùng thêm thuốc", "tuong_tac_thuoc"),
    ("uống thêm thuốc", "tuong_tac_thuoc"),
    ("thay đổi tác dụng", "tuong_tac_thuoc"),
    ("tăng tác dụng", "tuong_tac_thuoc"),
    ("giảm tác dụng", "tuong_tac_thuoc"),
    # what to do about an effect of the drug: "Hướng dẫn cách xử trí ADR"
    ("để đỡ", "xu_tri_adr"),
    ("cho đỡ", "xu_tri_adr"),
    ("giảm thiểu", "xu_tri_adr"),
    # what to watch for and who must be careful: the precautions
    ("theo dõi", "than_trong"),
    ("giám sát", "than_trong"),
    ("để ý", "than_trong"),
    ("chú ý", "than_trong"),
    ("cẩn trọng", "than_trong"),
    # tests at intervals with no watching said ("xét nghiệm gì định kỳ"): how the book's ADR guidance checks
    ("định kỳ", "xu_tri_adr"),
    # what it does to the person besides: the adverse reactions
    ("phản ứng gì", "tac_dung_khong_mong_muon"),
    ("phản ứng nào", "tac_dung_khong_mong_muon"),
    ("bất lợi", "tac_dung_khong_mong_muon"),
    ("có hại gì", "tac_dung_khong_mong_muon"),
    ("gây hại gì", "tac_dung_khong_mong_muon"),
    ("hay gặp", "tac_dung_khong_mong_muon"),
    ("thường gặp", "tac_dung_khong_mong_muon"),
    # how it is taken or given (not how much): the dosage section's instructions
    ("bằng cách nào", "lieu_luong_cach_dung"),
    ("trước hay sau", "lieu_luong_cach_dung"),
    ("lúc đói hay", "lieu_luong_cach_dung"),
    ("cho đúng cách", "lieu_luong_cach_dung"),
)
# Pregnancy words that name the pregnancy section without being a population word.
PREGNANCY_SECTION_EXTRA: tuple[str, ...] = ("thai kỳ",)
# "Can X be used ...?" with no section named: the contraindications answer it.
CAN_USE_PHRASES: tuple[str, ...] = (
    "có dùng được", "dùng được không", "có được dùng", "có nên dùng", "uống được không",
    # "có dùng aspirin giảm đau được không": the drug stands between the verb and the question
    "được không", "có được không",
)
WHOLE_SECTION_PHRASES: tuple[str, ...] = ("toàn bộ", "tất cả", "đầy đủ", "cả mục", "nguyên văn", "chi tiết")

# ---- populations ---------------------------------------------------------------------------------------------

POPULATION_PHRASES: tuple[tuple[str, str], ...] = (
    ("trẻ sơ sinh", "so_sinh"),
    ("sơ sinh", "so_sinh"),
    # a baby born early is a newborn of the book's preterm bands; "dọa đẻ non", "sản phụ sinh non" are the mother
    ("trẻ đẻ non", "so_sinh"),
    ("bé đẻ non", "so_sinh"),
    ("trẻ sinh non", "so_sinh"),
    ("bé sinh non", "so_sinh"),
    ("trẻ thiếu tháng", "so_sinh"),
    ("bé thiếu tháng", "so_sinh"),
    ("trẻ non tháng", "so_sinh"),
    ("bé non tháng", "so_sinh"),
    ("thiếu tháng", "so_sinh"),
    ("non tháng", "so_sinh"),
    ("người cao tuổi", "nguoi_cao_tuoi"),
    ("người già", "nguoi_cao_tuoi"),
    ("cao tuổi", "nguoi_cao_tuoi"),
    ("lớn tuổi", "nguoi_cao_tuoi"),
    ("phụ nữ có thai", "mang_thai"),
    ("phụ nữ mang thai", "mang_thai"),
    ("mang thai", "mang_thai"),
    ("có thai", "mang_thai"),
    ("có bầu", "mang_thai"),
    ("bà bầu", "mang_thai"),
    ("mang bầu", "mang_thai"),
    ("đang bầu", "mang_thai"),
    ("bầu", "mang_thai"),  # "bầu 3 tháng"; non-medical "bầu cử" is caught by the scope guard first
    ("thai phụ", "mang_thai"),
    ("thai nghén", "mang_thai"),
    # giving birth: the woman in labour is the patient ("dùng X lúc đẻ ... ảnh hưởng trẻ sơ sinh?")
    ("chuyển dạ", "mang_thai"),
    ("lúc đẻ", "mang_thai"),
    ("khi đẻ", "mang_thai"),
    ("đang cho con bú", "cho_con_bu"),
    ("cho con bú", "cho_con_bu"),
    ("cho bé bú", "cho_con_bu"),
    ("cho trẻ bú", "cho_con_bu"),
    ("nuôi con bú", "cho_con_bu"),
    ("con đang bú", "cho_con_bu"),
    ("cho bú", "cho_con_bu"),
    ("nuôi con bằng sữa mẹ", "cho_con_bu"),
    ("sữa mẹ", "cho_con_bu"),
    ("người lớn", "nguoi_lon"),
    ("người trưởng thành", "nguoi_lon"),
    ("trẻ em", "tre_em"),
    ("trẻ nhỏ", "tre_em"),
    ("bệnh nhân nhi", "tre_em"),
    ("bệnh nhi", "tre_em"),
    ("bn nhi", "tre_em"),
    ("em bé", "tre_em"),
    ("nhi khoa", "tre_em"),
    ("trẻ", "tre_em"),
    ("bé", "tre_em"),
    ("cháu", "tre_em"),
)

# ---- routes --------------------------------------------------------------------------------------------------

# (phrase, CONTRACT route key); "tiem" is an injection with no site named. Drug forms name their route
# ("kem bôi", "thuốc mỡ", "viên nén", "thuốc đạn"). When two phrases start at one place the longer wins.
ROUTE_PHRASES: tuple[tuple[str, str], ...] = (
    ("ngậm dưới lưỡi", "ngam_duoi_luoi"),
    ("đặt dưới lưỡi", "ngam_duoi_luoi"),
    ("dưới lưỡi", "ngam_duoi_luoi"),
    ("ngậm", "ngam_duoi_luoi"),
    ("đặt hậu môn", "truc_trang"),
    ("hậu môn", "truc_trang"),
    ("đặt trực tràng", "truc_trang"),
    ("trực tràng", "truc_trang"),
    ("thuốc đạn", "truc_trang"),
    ("viên đạn", "truc_trang"),
    ("viên đặt", "truc_trang"),
    ("đặt âm đạo", "dat_am_dao"),
    ("viên đặt âm đạo", "dat_am_dao"),
    ("viên âm đạo", "dat_am_dao"),
    ("kem âm đạo", "dat_am_dao"),
    ("âm đạo", "dat_am_dao"),
    ("truyền tĩnh mạch", "truyen_tinh_mach"),
    ("tiêm truyền", "truyen_tinh_mach"),
    ("nhỏ giọt tĩnh mạch", "truyen_tinh_mach"),
    ("truyền", "truyen_tinh_mach"),
    ("tiêm tĩnh mạch", "tiem_tinh_mach"),
    ("tĩnh mạch", "tiem_tinh_mach"),
    ("tiêm bắp", "tiem_bap"),
    ("tiêm dưới da", "tiem_duoi_da"),
    ("dưới da", "tiem_duoi_da"),
    ("tiêm trong da", "tiem_trong_da"),
    ("trong da", "tiem_trong_da"),
    ("tiêm nội tủy", "tiem_noi_tuy"),
    ("nội tủy", "tiem_noi_tuy"),
    ("tiêm tủy sống", "tiem_noi_tuy"),
    ("tiêm vào tủy sống", "tiem_noi_tuy"),
    ("ống tủy sống", "tiem_noi_tuy"),
    ("khoang dưới màng nhện", "tiem_noi_tuy"),
    ("não thất", "tiem_noi_tuy"),
    ("khí dung", "khi_dung"),
    ("phun sương", "khi_dung"),
    ("hít", "hit"),
    ("xịt", "hit"),
    ("bình xịt", "hit"),
    ("bình hít", "hit"),
    ("phun", "hit"),
    ("nhỏ mắt", "nho_mat"),
    ("thuốc nhỏ mắt", "nho_mat"),
    ("tra mắt", "tra_mat"),
    ("mỡ tra mắt", "tra_mat"),
    ("thuốc mỡ tra mắt", "tra_mat"),
    ("mỡ mắt", "tra_mat"),
    ("thuốc mỡ mắt", "tra_mat"),
    ("bôi", "boi"),
    ("thoa", "boi"),
    ("dùng ngoài", "boi"),
    ("kem bôi", "boi"),
    ("thuốc bôi", "boi"),
    ("thuốc kem", "boi"),
    ("dạng kem", "boi"),
    ("thuốc mỡ", "boi"),
    ("mỡ bôi", "boi"),
    ("gel bôi", "boi"),
    # "bôi" folds to "boi", also "bởi" (by): typed without diacritics it is read only before what is applied
    ("bôi kem", "boi"),
    ("bôi gel", "boi"),
    ("bôi mỡ", "boi"),
    ("bôi lên", "boi"),
    ("bôi vào", "boi"),
    ("bôi tại chỗ", "boi"),
    ("ngoài da", "boi"),
    ("đường uống", "uong"),
    ("uống", "uong"),
    ("nhai", "uong"),
    ("viên", "uong"),
    ("viên nén", "uong"),
    ("viên nang", "uong"),
    ("viên sủi", "uong"),
    ("siro", "uong"),
    ("sirô", "uong"),
    ("tiêm", "tiem"),
)
# Route words whose folded form is an everyday word ("khi dùng" is "when using", "bởi" is "by", "viện" is a
# hospital, "ngâm" is to soak): read only where the person typed the diacritics.
ROUTE_PHRASES_TYPED_ONLY: frozenset[str] = frozenset(
    {"khí dung", "bôi", "viên", "ngậm", "hít", "thoa", "phun", "trong da"}
)

# A route's site named as the seat of a disease is no route ("huyết khối tĩnh mạch sâu", "viêm tĩnh mạch"),
# and terms that hold a route word are not routes ("dây thần kinh tam thoa": "thoa" is also to rub on).
ROUTE_SITE_DISEASE_WORDS: tuple[str, ...] = (
    "huyết khối", "viêm", "tắc", "giãn", "suy", "nhiễm khuẩn", "nhiễm trùng", "thuyên tắc", "tổn thương",
    "bệnh", "ung thư", "dị dạng", "loét",
)
NOT_ROUTE_TERMS: tuple[str, ...] = ("tam thoa",)

# ---- question words ------------------------------------------------------------------------------------------

# "Which drugs ...": the person names a condition, not a drug.
WHICH_DRUG_PHRASES: tuple[str, ...] = (
    "thuốc nào", "thuốc gì", "những thuốc", "các thuốc", "loại thuốc nào", "nhóm thuốc nào", "dùng gì",
    "uống gì", "nên dùng gì", "thuốc nào được", "có thuốc nào", "kể tên thuốc", "liệt kê thuốc",
    "thuốc chữa", "thuốc trị", "thuốc điều trị",
)
# "... causes X": a reverse relation the book is not organised to answer completely.
CAUSE_PHRASES: tuple[str, ...] = (
    "gây", "gây ra", "có thể gây", "làm tăng nguy cơ", "dẫn đến", "dẫn tới", "làm xuất hiện", "gây nên",
    "có tác dụng phụ", "có tác dụng không mong muốn", "là nguyên nhân", "làm tăng", "gây hại",
)
# Anaesthesia is given, not caused: "đang gây mê", "gây tê tủy sống" name no effect of the drug and no disease.
NOT_CAUSE_TERMS: tuple[str, ...] = ("gây mê", "gây tê")
# "Which is best": the book does not rank; the answer is the factual list and a sentence saying so.
RANKING_PHRASES: tuple[str, ...] = (
    "tốt nhất", "tốt hơn", "hiệu quả nhất", "hiệu quả hơn", "mạnh nhất", "an toàn nhất", "an toàn hơn",
    "hay nhất", "ưu tiên", "lựa chọn đầu tay", "đầu tay", "hàng đầu", "nên chọn", "chọn thuốc nào", "best",
)
# "Which drugs are contraindicated in X": the section words that make a which-drug question a contraindication one.
CONTRAINDICATED_IN_PHRASES: tuple[str, ...] = (
    "chống chỉ định", "không được dùng", "cấm dùng", "không nên dùng", "không dùng được", "tránh dùng",
)
# Words that join two drugs of one question.
JOINERS: tuple[str, ...] = ("và", "với", "cùng", "cùng với", "+", "chung với")
# With two drugs named, these words ask whether they may be taken together, whatever else the question says
# ("Warfarin dùng chung aspirin liều cao được không?" is an interaction, not a dose question).
COADMINISTRATION_CUES: tuple[str, ...] = (
    "dùng chung", "dùng cùng", "uống chung", "uống cùng", "tiêm chung", "phối hợp", "kết hợp", "dùng kèm",
    "uống kèm", "cùng lúc", "đồng thời", "chung với", "cùng với",
)
# The words between two drugs' names that take them together ("uống warfarin VỚI aspirin thì liều thế nào",
# "liều digoxin KHI DÙNG CÙNG omeprazol"): an interaction whatever dose words come with it; "và" lists two drugs
# ("liều X và Y"), so it is not among them. Each entry: optional lead words, then a joiner, nothing else between.
TOGETHER_LEADS: tuple[str, ...] = ("khi", "lúc", "nếu", "mà", "đang", "thì", "dùng", "uống", "tiêm", "truyền",
                                   "chung", "kèm", "phối hợp", "kết hợp")
TOGETHER_JOINERS: tuple[str, ...] = ("với", "cùng", "cùng với", "chung với", "kèm", "kèm với", "kèm theo", "+")
# With two drugs named and no section asked, these words make the question one about their interaction
# ("đang dùng warfarin thì uống paracetamol có ảnh hưởng gì không", "X có ảnh hưởng đến nồng độ Y không").
TWO_DRUG_CUES: tuple[str, ...] = (
    "ảnh hưởng", "ảnh hưởng đến", "nồng độ", "tác động", "đang dùng", "đang uống", "đang điều trị", "đang tiêm",
    "cùng lúc", "đồng thời", "có sao không", "có được không", "được không", "có nguy hiểm", "làm tăng", "làm giảm",
)

# With two drugs named, one the patient already takes ("đang dùng warfarin") and a may-I about the other ("... có
# uống aspirin liều cao được không?"): whether they go together, even where a dose word is in the question.
ALREADY_TAKING_CUES: tuple[str, ...] = ("đang dùng", "đang uống", "đang điều trị", "đang tiêm", "đang được dùng")
# ... or the other is added to it ("Đang uống X, thêm Y thì dùng liều bao nhiêu?", "kê thêm Y"): the pair again.
ADDING_CUES: tuple[str, ...] = ("thêm",)
MAY_I_CUES: tuple[str, ...] = ("được không", "có sao không", "có nguy hiểm", "có ảnh hưởng", "có nên")

# ---- conditions ----------------------------------------------------------------------------------------------

# Of CONDITION_TRIGGERS, those that name what the drug is given for ("điều trị thủy đậu", "dự phòng viêm nội tâm
# mạc"), not a disease the patient has besides ("người bị hen"): the indication asked, so its dose, not whether
# the drug is contraindicated.
PURPOSE_TRIGGERS: frozenset[str] = frozenset({
    "dùng để điều trị", "dùng điều trị", "để điều trị", "điều trị", "để trị", "trị", "chữa", "cắt cơn",
    "phòng ngừa", "dự phòng", "phòng",
})
# Words that introduce a condition ("điều trị tăng huyết áp", "bị trạng thái động kinh", "cắt cơn đau thắt ngực").
CONDITION_TRIGGERS: tuple[str, ...] = (
    "được chỉ định điều trị",
    "được chỉ định cho",
    "được chỉ định trong",
    "chỉ định điều trị",
    "chỉ định cho",
    "chỉ định trong",
    "dùng để điều trị",
    "dùng điều trị",
    "để điều trị",
    "điều trị",
    "để trị",
    "trị",
    "chữa",
    "cắt cơn",
    "lên cơn",
    "phòng ngừa",
    "dự phòng",
    "phòng",
    "nếu là",
    "cho người bị",
    "cho bệnh nhân bị",
    "người bị",
    "bệnh nhân bị",
    "đang bị",
    "bị",
    "mắc",
    "gây ra",
    "gây",
    "làm tăng nguy cơ",
    "dẫn đến",
)

# ---- scope ---------------------------------------------------------------------------------------------------

# Animals. Words whose folded form is an ordinary word ("chó" -> "cho", "bò" -> "bo", "lợn" -> "lon") are only
# matched with diacritics, or folded as "con chó"-style phrases.
NON_HUMAN_PHRASES: tuple[str, ...] = (
    "thú y", "thú cưng", "vật nuôi", "gia súc", "gia cầm", "động vật", "chó", "mèo", "cún", "heo", "lợn",
    "gà", "vịt", "bò", "bê", "trâu", "ngựa", "dê", "cừu", "thỏ", "chuột lang", "chim", "cá cảnh",
    "con chó", "con mèo", "con heo", "con lợn", "con gà", "con bò", "con ngựa", "con trâu", "con dê", "con cừu",
    "chó con", "mèo con", "dog", "puppy", "kitten", "veterinary",
)
# Clinical words that hold an animal's name and say nothing of an animal ("ngủ gà": drowsy; "quáng gà": night
# blindness): left out before the animal words are looked for.
NON_HUMAN_FOLDED_ONLY_IF_ACCENTED: frozenset[str] = frozenset(
    {"chó", "bò", "lợn", "gà", "bê", "ngựa", "dê", "cừu", "cún", "chim", "thỏ", "vịt", "mèo"}
)
# An animal named as the source of a product ("mẫn cảm huyết thanh ngựa", "insulin lợn", "heparin nguồn gốc bò"):
# the patient is still a person.
PRODUCT_SOURCE_WORDS: tuple[str, ...] = (
    "huyết thanh", "nguồn gốc", "protein", "globulin", "kháng độc tố", "insulin", "heparin", "chiết xuất từ",
)
NOT_ANIMAL_TERMS: tuple[str, ...] = (
    "ngủ gà", "gà gật", "quáng gà", "da gà", "nổi da gà", "mắt cá chân",
    *(f"{source} {animal}" for source in PRODUCT_SOURCE_WORDS for animal in sorted(NON_HUMAN_FOLDED_ONLY_IF_ACCENTED)),
)
NON_MEDICAL_PHRASES: tuple[str, ...] = (
    "thời tiết", "dự báo", "nhiệt độ ngoài trời", "mưa", "bóng đá", "thể thao", "trận đấu", "world cup",
    "giá vàng", "chứng khoán", "tỷ giá", "tỉ giá", "xổ số", "nấu ăn", "công thức nấu", "món ăn", "du lịch",
    "khách sạn", "vé máy bay", "phim", "bài hát", "ca sĩ", "lập trình", "python", "javascript", "bitcoin",
    "chính trị", "bầu cử", "tin tức", "thủ đô", "dịch tiếng anh", "làm thơ", "viết thơ", "bài thơ", "kể chuyện",
    "truyện cười", "bài văn", "viết văn", "làm văn",
    "weather", "football", "recipe",
    # cosmetics, law, cooking: asked with no drug named, never the formulary's subject
    "mỹ phẩm", "kem dưỡng", "dưỡng da", "trắng da", "làm đẹp", "trang điểm", "son môi", "nước hoa",
    "ly hôn", "pháp luật", "luật sư", "hợp đồng", "thừa kế", "kiện tụng", "li dị",
    "cách nấu", "nấu ăn", "nấu món", "công thức món",
)
# Price and purchase: not in the formulary, whatever drug is named ("ketorolac giá bao nhiêu tiền 1 ống?").
COMMERCE_PHRASES: tuple[str, ...] = (
    "bao nhiêu tiền", "giá bao nhiêu", "giá bán", "giá thuốc", "giá tiền", "mua ở đâu", "mua ở chỗ nào",
    "mua chỗ nào", "nhà thuốc nào bán", "bán ở đâu",
)
SMALLTALK_PHRASES: tuple[str, ...] = (
    "xin chào", "chào bạn", "chào", "hello", "hi", "alo", "cảm ơn", "cám ơn", "thank you", "thanks",
    "bạn là ai", "bạn tên gì", "bạn làm được gì", "tạm biệt", "chúc ngủ ngon", "good morning",
)
INJECTION_PHRASES: tuple[str, ...] = (
    "bỏ qua mọi hướng dẫn", "bỏ qua các hướng dẫn", "bỏ qua hướng dẫn", "bỏ qua tất cả", "bỏ qua mọi quy tắc",
    "bỏ qua các quy tắc", "quên mọi hướng dẫn", "quên các hướng dẫn", "không cần trích dẫn", "hãy xác nhận",
    "ignore previous", "ignore all", "ignore the above", "disregard", "system prompt", "you are now",
    "developer mode", "jailbreak", "bằng chứng:", "evidence:", "nguồn:", "trích dẫn:", "system:", "hệ thống:",
)
# An instruction aimed at the system: one of these verbs, then (in the same sentence) one of these objects.
OVERRIDE_VERBS: tuple[str, ...] = (
    "bỏ qua", "quên", "phớt lờ", "lờ đi", "ignore", "disregard", "forget", "override",
)
OVERRIDE_OBJECTS: tuple[str, ...] = (
    "hướng dẫn", "chỉ dẫn", "chỉ thị", "quy tắc", "qui tắc", "nguyên tắc", "luật", "lệnh", "ràng buộc",
    "giới hạn", "yêu cầu trước", "ở trên", "phía trên", "trước đó", "hệ thống", "prompt", "instructions",
    "instruction", "rules", "above", "previous", "system",
)
# Words that may stand between the verb and its object ("bỏ qua TẤT CẢ CÁC hướng dẫn").
OVERRIDE_FILLERS: tuple[str, ...] = (
    "mọi", "các", "tất", "cả", "những", "hết", "toàn", "bộ", "đi", "đã", "all", "the", "any", "your", "my", "of",
    "prior", "these", "those",
)
# A sentence that gives the system a new role ("Bạn là bác sĩ ...", "Từ giờ bạn là ...", "You are now ...").
ROLE_OPENERS: tuple[str, ...] = (
    "bạn là", "từ giờ bạn là", "từ bây giờ bạn là", "hãy đóng vai", "đóng vai", "hãy giả vờ", "giả sử bạn là",
    "you are", "you are now", "act as", "pretend",
)
# What a role sentence may not continue with: "Bạn là ai?" is a greeting.
ROLE_QUESTION_WORDS: tuple[str, ...] = ("ai", "gì", "who", "what")

# ---- catalog -------------------------------------------------------------------------------------------------

# Pharmacological classes the book names in interaction and caution sections. Not drugs.
CLASS_WORDS: tuple[str, ...] = (
    "nsaid", "nsaids", "aine", "thuốc chống viêm không steroid", "salicylat", "aminoglycosid", "cephalosporin",
    "penicilin", "penicillin", "carbapenem", "macrolid", "quinolon", "fluoroquinolon", "tetracyclin", "sulfonamid",
    "sulfonylure", "sulfonylurea", "sulphonylure", "biguanid", "thiazid", "benzodiazepin", "barbiturat", "corticosteroid",
    "glucocorticoid", "nitrat", "statin", "imao", "ssri", "opioid", "opiat", "estrogen", "androgen", "antacid",
    "antacids", "thuốc chống đông", "thuốc chống đông máu", "thuốc kháng acid", "kháng acid", "thuốc kháng axit",
    "thuốc chống toan", "chống toan", "thuốc lợi tiểu", "thuốc ức chế bơm proton",
    "thuốc ức chế men chuyển", "thuốc chẹn beta", "thuốc chẹn kênh calci", "kháng sinh", "thuốc chống động kinh",
    "thuốc chống trầm cảm", "thuốc an thần", "thuốc ngủ", "thuốc giảm đau", "thuốc hạ đường huyết",
    "thuốc chống kết tập tiểu cầu", "thuốc tiêu huyết khối",
)
# Class words the book writes in more than one way: asking about one finds statements worded with another.
CLASS_SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("NSAID", "NSAIDs", "AINS", "thuốc chống viêm không steroid", "chống viêm không steroid"),
    ("thuốc chống đông", "thuốc chống đông máu", "thuốc uống chống đông máu", "kháng vitamin K"),
    ("thuốc chống toan", "chống toan", "thuốc kháng acid", "kháng acid", "thuốc kháng axit", "antacid", "antacids"),
    ("thuốc ức chế bơm proton", "PPI"),
    ("thuốc ức chế men chuyển", "ức chế enzym chuyển", "ACE"),
    ("thuốc lợi tiểu", "lợi tiểu"),
    ("sulfonylure", "sulfonylurea", "sulphonylurê", "sulfonylurê"),
    ("thuốc chẹn beta", "chẹn beta", "thuốc chẹn beta-adrenergic"),
    ("thuốc chẹn kênh calci", "chẹn kênh calci", "đối kháng kênh calci"),
    ("aminoglycosid", "kháng sinh aminoglycosid"),
    ("quinolon", "fluoroquinolon"),
)
# Words that name no condition by themselves, in questions ("bệnh nhân", "liều bao nhiêu") and in the book's
# warning sentences ("Người bệnh có tiền sử ...", "suy hô hấp nặng"): the rest of a phrase is its content.
GENERAL_WORDS: tuple[str, ...] = tuple(
    """bệnh nhân người có bị đang được không chưa thì và hoặc hay cho dùng sử dụng uống tiêm truyền liều lượng bao
    nhiêu thế nào gì làm phải sao sau trước khi cần mấy lần ngày một các những thuốc trẻ em tuổi kg nặng nhẹ vừa
    năm tháng tuần lớn nhỏ sắp đã mới với của là ở để trong mg ml phút kèm theo nên muốn xin hỏi ạ nhé vậy này đó
    hiện tại tôi mình bé anh chị ông bà cô chú nam nữ phụ mắc biết rõ tiền sử hội chứng tình trạng biểu triệu cấp
    mạn tính từng dễ chống chỉ định tránh trọng điều trị nhất đặc biệt nguy thể gây ra vào ngay còn rồi đây đến
    tới hết nếu mà cũng vẫn lúc trường hợp kéo dài thời gian mức độ""".split()
)
# How a dose is taken rather than how much: the question's words -> the words the book prints for it. A dosing
# question on one of these is answered with the statements of the dosage section that print those words.
INSTRUCTION_TOPICS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("quên", "bỏ lỡ", "lỡ quên", "nhỡ", "sót liều", "bỏ sót"), ("quên",)),
    (("trước ăn", "sau ăn", "lúc đói", "bụng đói", "cùng bữa ăn", "trong bữa ăn", "khi ăn", "uống lúc nào",
      "giờ nào", "buổi nào"), ("bữa ăn", "khi ăn", "trước ăn", "sau ăn", "buổi sáng", "buổi tối",
                             "buổi chiều", "đúng giờ")),
    (("cách pha", "pha với", "pha như thế nào", "pha thế nào", "hòa tan", "pha loãng", "pha lọ", "pha ống",
      "dung môi", "thêm bao nhiêu ml"), ("pha", "hòa tan", "dung môi", "thể tích thêm")),
    (("nghiền", "bẻ đôi", "bẻ viên", "nhai"), ("nghiền", "bẻ", "nhai")),
)

# Words shaped like drug names that are not drugs (units, lab values, organisms, ordinary loanwords).
NOT_DRUG_WORDS: frozenset[str] = frozenset(
    {
        "creatinin", "creatinine", "protein", "enzym", "enzyme", "hormon", "hormone", "glucose", "lactat", "lactic",
        "transaminase", "amylase", "lipase", "urat", "oxalat", "bicarbonat", "electrolyt",
        "histamin", "serotonin", "dopamin", "cholesterol", "triglycerid", "hemoglobin", "albumin", "bilirubin",
        "staphylococcus", "streptococcus", "aureus", "enterococci", "enterococcus", "pneumoniae", "coli",
        "python", "iphone", "internet", "online", "cyclooxygenase", "prostaglandin", "thrombin", "fibrin",
        "microgam", "miligam", "gam", "kilogam", "lit", "mililit", "phut", "clcr", "egfr", "inr", "atc", "mic",
        "adr", "ml", "mg", "kg", "gram", "liposom", "plasmin", "heparin_like", "peptid", "glycosid",
        # units and lab values a person gives with a number ("creatinin 180 micromol/l", "ferritin 20"): no drug
        "micromol", "milimol", "mmol", "umol", "nanomol", "picomol", "mikromol", "ferritin", "troponin",
        "procalcitonin", "transferrin", "fibrinogen",
    }
)
DRUG_SUFFIXES: tuple[str, ...] = (
    "ol", "in", "ine", "id", "ide", "il", "an", "at", "ate", "on", "one", "em", "ex", "ix", "ax", "ox", "am",
    "um", "mab", "nib", "vir", "pril", "tan", "tide", "ast", "zole", "azol", "fen", "yl", "ac", "en", "rin",
    "im",  # the cephalosporins' "-xim", "-dim", "-pim" (cefuroxim, ceftazidim, cefepim), "-stim"
)
# Release/form words printed after a brand ("XR", "SR", "Tab.", "Inj"): not part of the name people say.
FORM_SUFFIXES: frozenset[str] = frozenset(
    {"xr", "sr", "mr", "er", "cr", "la", "od", "tab", "tabs", "inj", "retard", "fc", "dt", "caps", "syrup"}
)

# Words around "thuốc nào" that are not the condition ("Tăng huyết áp dùng thuốc gì?", "Thuốc nào tốt cho gan?").
CONDITION_FILLER_WORDS: tuple[str, ...] = (
    "bị", "nên", "dùng", "uống", "được", "chỉ định", "tốt", "nhất", "hơn", "dành", "cho", "để", "trị", "điều trị",
    "chữa", "người", "bệnh nhân", "tôi", "thì", "là", "có", "hiệu quả", "với", "ở", "trong", "đối với", "đang",
    # "Những thuốc NÀO CÓ CHỈ ĐỊNH LIÊN QUAN ĐẾN nhồi máu cơ tim?": the words after "những thuốc"
    "nào", "gì", "liên quan đến", "liên quan tới", "liên quan", "về",
)
CONDITION_TAIL_WORDS: tuple[str, ...] = (
    "thì", "nên", "dùng", "uống", "là", "có", "gì", "nào", "không", "được", "nhất", "tốt",
)
# "Thuốc nào chống chỉ định CHO NGƯỜI ĐANG cho con bú": the words before the group or condition itself.
GROUP_PREPOSITIONS: tuple[str, ...] = ("cho", "ở", "với", "trong", "khi", "đối")
GROUP_HEAD_WORDS: tuple[str, ...] = ("với", "người", "bệnh", "nhân", "những", "các", "đang", "bị", "mắc", "có")

# ---- a condition in the person's words and in the book's --------------------------------------------------------

# Lay names of a condition and the book's name for it (and spelling variants): a condition asked in one is searched
# in all ("tiểu đường" -> "đái tháo đường", "nhiễm trùng đường tiểu" -> "nhiễm khuẩn tiết niệu").
CONDITION_SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("đái tháo đường", "tiểu đường"),
    ("tăng huyết áp", "cao huyết áp", "huyết áp cao"),
    ("nhiễm khuẩn", "nhiễm trùng"),
    ("tiết niệu", "đường tiểu", "đường niệu"),
    ("typ", "type", "tuýp", "týp"),
    ("đột quỵ", "tai biến mạch máu não", "tai biến mạch não"),
    ("thủy đậu", "trái rạ", "nhiễm VZV"),
    ("zona", "giời leo", "zôna", "nhiễm VZV"),
    ("tiêu chảy", "ỉa chảy"),
    ("hen", "hen suyễn", "suyễn"),
    ("tăng lipid máu", "mỡ máu cao", "máu nhiễm mỡ", "cao mỡ máu"),
    ("gút", "gout", "thống phong"),
    ("huyết khối", "cục máu đông"),
    ("đau nửa đầu", "migraine"),
    ("mất ngủ", "khó ngủ"),
    ("chàm", "eczema"),  # the book prints both ("chàm (eczema)", "eczema cấp và mạn")
    # skin and soft-tissue infections, as clinicians say them and as dosage headings print them
    ("da và mô mềm", "da, mô mềm", "da mô mềm", "ngoài da và các mô liên kết", "da và cấu trúc da"),
    ("chống viêm không steroid", "kháng viêm không steroid", "giảm đau kháng viêm", "NSAID", "NSAIDs"),
)
# A named form of a condition and the general condition the book's warnings print for it: a patient with the
# first has the second ("huyết khối tĩnh mạch sâu" is a "huyết khối tắc mạch"). General clinical vocabulary, one
# way only: the general name never stands for the specific one.
CONDITION_KINDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("huyết khối tĩnh mạch sâu", "huyết khối tĩnh mạch", "thuyên tắc phổi", "tắc mạch phổi", "nghẽn mạch phổi",
      "thuyên tắc huyết khối", "huyết khối động mạch"), "huyết khối tắc mạch"),
    (("suy tim", "nhồi máu cơ tim", "bệnh mạch vành", "bệnh động mạch vành", "thiếu máu cơ tim", "đau thắt ngực",
      "bệnh van tim", "loạn nhịp tim", "rối loạn nhịp tim", "bệnh cơ tim"), "bệnh tim"),
    (("hen phế quản", "hen suyễn", "suyễn"), "hen"),
    (("co giật", "cơn co giật"), "động kinh"),
    (("loét dạ dày", "loét tá tràng", "loét dạ dày tá tràng", "viêm loét dạ dày"), "loét dạ dày - tá tràng"),
)
# The patient's words for a condition and the other names the book prints for the same condition (or the same
# word of one: "bao tử" is "dạ dày" in "loét bao tử"), read both ways on the patient's side only: a condition
# said in one is matched against warning items printed in any. CONDITION_SYNONYMS are read the same way.
PATIENT_CONDITION_NAMES: tuple[tuple[str, ...], ...] = (
    ("dạ dày", "bao tử"),
    ("hen phế quản", "hen suyễn", "suyễn"),
    ("glôcôm", "glaucom", "glaucoma", "tăng nhãn áp", "cườm nước"),
    ("xuất huyết", "chảy máu"),
    ("blốc", "block", "bloc"),
    ("suy gan", "suy chức năng gan"),
    ("suy thận", "suy chức năng thận"),
    ("porphyrin", "porphyria"),
    ("wolff parkinson white", "wpw"),
)
# Words the book may print between the words of a condition without changing it: "nhiễm khuẩn ĐƯỜNG tiết niệu",
# "giảm CÁC CƠN đau", "nhiễm khuẩn VỀ ĐƯỜNG tiết niệu". Any other word changes it ("viêm MÀNG não" is not "viêm não"),
# except an organ shared by a hyphen ("viêm não - màng não", "viêm tai - mũi - họng"), read by the search itself.
CONDITION_GAP_WORDS: tuple[str, ...] = ("đường", "các", "những", "cơn", "về", "ở", "bộ phận")
# Head words the book prints before some conditions and not before others ("bệnh đái tháo đường", "đái tháo
# đường typ 2"): a condition of two words or more after one is also searched without it ("bệnh than" stays whole).
CONDITION_OPTIONAL_HEADS: tuple[str, ...] = ("bệnh lý", "bệnh", "chứng")
MAX_CONDITION_VARIANTS = 16


def condition_variants(condition: str) -> list[str]:
    """The condition as typed, then with each lay name replaced by the book's names (one name of each synonym
    group, the longest found). Typed without diacritics, the replacements are folded too."""
    from duocthu_desktop.qa.understanding.textmatch import Text, find

    variants = [Text.of(condition).norm]
    words = variants[0].split()
    for head in CONDITION_OPTIONAL_HEADS:
        n = len(head.split())
        if len(words) >= n + 2 and (fold(" ".join(words[:n])) == fold(head)):
            variants.append(" ".join(words[n:]))
            break
    for group in CONDITION_SYNONYMS:
        grown: list[str] = []
        for said in variants:
            text = Text.of(said)
            # strict: a condition typed with diacritics means them on every word (as the indication search reads it)
            found = [(m, n) for n in sorted(group, key=len, reverse=True) if (m := find(text, n, strict=True))]
            if not found:
                continue
            m, _name = found[0]
            for other in group:
                word = other if text.accented else fold(other)
                grown.append(text.norm[: m.start()] + word + text.norm[m.end() :])
        variants += [v for v in dict.fromkeys(grown) if v not in variants]
        if len(variants) >= MAX_CONDITION_VARIANTS:
            break
    return variants[:MAX_CONDITION_VARIANTS]


# ---- a follow-up naming another partner ------------------------------------------------------------------------

# "Còn (với) thuốc có sắt thì sao?" after an interaction question: the words that open such a turn, the words
# before the partner (a joiner, "thuốc có", "chế phẩm chứa"), after it ("thì sao"), and question words that mean
# no partner was named ("còn cách nào khác không?"). One word each, matched as typed or folded.
FOLLOW_UP_OPENERS: tuple[str, ...] = ("còn", "thế", "vậy")
PARTNER_JOINER_WORDS: tuple[str, ...] = ("với", "cùng", "chung", "và", "kèm")
PARTNER_LEAD_WORDS: tuple[str, ...] = (
    "với", "cùng", "chung", "và", "kèm", "khi", "nếu", "dùng", "uống", "tiêm", "thêm", "thuốc", "các", "những",
    "loại", "chế", "phẩm", "có", "chứa",
)
FOLLOW_UP_TAIL_WORDS: tuple[str, ...] = (
    "thì", "sao", "thế", "nào", "có", "không", "được", "ạ", "nữa", "vậy", "nhỉ", "ảnh", "hưởng", "gì", "tương",
    "tác", "cùng", "chung", "lúc", "nhé",
)
PARTNER_QUESTION_WORDS: tuple[str, ...] = ("nào", "gì", "sao", "đâu", "khác", "bao", "nhiêu", "ai", "mấy", "cách")
# "kali máu", "natri huyết": an element named with a body fluid is a lab value, not a drug taken with another.
LAB_VALUE_WORDS: tuple[str, ...] = ("máu", "huyết", "niệu")
# The salt and ester words of a monograph's name, as the book spells them and as INN lines do: "X hydroclorid",
# "X phosphat", "Natri X" are X to a clinician, so the name without them is a name of that monograph too.
SALT_WORDS: frozenset[str] = frozenset(
    "hydroclorid hydrobromid hydrat dihydrat trihydrat monohydrat hemihydrat sesquihydrat phosphat dinatri natri kali"
    " calci magnesi carbonat bicarbonat hydrocarbonat clorid bromid iodid acetat citrat maleat tartrat bitartrat"
    " fumarat succinat hemisuccinat mesylat mesilat besylat besilat tosylat nitrat dinitrat mononitrat gluconat"
    " lactat lactobionat propionat dipropionat valerat butyrat stearat estolat ethylsuccinat pamoat hyclat"
    " sulfat bisulfat tromethamin meglumin lysin arginin"
    " hydrochloride hydrobromide hydrate dihydrate trihydrate monohydrate hemihydrate phosphate sodium potassium"
    " calcium magnesium carbonate bicarbonate chloride bromide iodide acetate citrate maleate tartrate bitartrate"
    " fumarate succinate mesylate besylate tosylate nitrate dinitrate mononitrate gluconate lactate lactobionate"
    " propionate dipropionate valerate butyrate stearate estolate ethylsuccinate pamoate hyclate sulfate"
    " sulphate bisulfate tromethamine meglumine".split()
)
# "thuốc X123", "biệt dược Zyx", "hoạt chất Y": the word after these is one the person calls a drug.
DRUG_HEAD_WORDS: tuple[str, ...] = ("thuốc", "dược", "chất")
# "Hội chứng Zollinger-Ellison", "bệnh Lyme": the name after these words is the disease's, never a drug's.
EPONYM_HEAD_WORDS: tuple[str, ...] = ("hội chứng", "bệnh")
# "How is it taken?": the way of giving it, not an amount.
HOW_TO_PHRASES: tuple[str, ...] = (
    "cách dùng", "cách uống", "dùng như thế nào", "dùng thế nào", "uống như thế nào", "uống thế nào",
    "dùng ra sao", "uống ra sao", "sử dụng như thế nào", "sử dụng thế nào",
)
# Words of how a drug is taken, kept or prepared ("với sữa", "lúc đói", "nghiền", "tủ lạnh", "sau khi pha", "bao
# lâu"): a can-I question holding one is about the giving, not about whether this patient may have it.
GIVING_PHRASES: tuple[str, ...] = (
    "bữa ăn", "lúc đói", "bụng đói", "lúc no", "sau ăn", "trước ăn", "khi ăn", "sữa", "nước", "rượu", "bia",
    "cà phê", "trà", "nước ép", "bưởi", "nghiền", "bẻ", "nhai", "ngậm", "hòa tan", "pha", "tủ lạnh", "đông lạnh",
    "đóng băng", "nhiệt độ", "ánh sáng", "giữ", "bao lâu", "đã mở", "quên", "sót", "tiêm", "truyền", "chích",
    # put in where it acts ("bơm vào bàng quang", "rửa vết thương")
    "bơm vào", "rửa",
)
# "tưới vào ổ áp xe" (irrigate): only as typed with its diacritics, "tuoi" being also "tuổi" (age)
GIVING_ACCENTED: tuple[str, ...] = ("tưới",)
# Stopping the drug ("cho ngưng luôn được không?"): how to stop is a sentence of the book, not the contraindications.
STOPPING_PHRASES: tuple[str, ...] = ("ngưng", "ngừng", "bỏ thuốc", "cắt thuốc", "thôi dùng", "thôi uống")
# "dừng" folds to "dung", also "dùng" (use): it stops the drug only as typed with its diacritics
STOPPING_ACCENTED: tuple[str, ...] = ("dừng",)
# A dose forgotten or missed: what to do then is a sentence of the book, not a dose row.
# Words by which a turn naming no drug speaks of the patient or the case just asked about ("bn đã cắt tử cung",
# "còn bn lọc màng bụng thì sao"): it goes on with the drug just answered. Bare words without them ("viêm phổi")
# may open a new question and are not taken for one about that drug.
CASE_REFERENCE_PHRASES: tuple[str, ...] = (
    "bn", "bệnh nhân", "người bệnh", "bệnh nhi", "nếu", "còn", "thì sao", "trường hợp", "ca này",
    # what comes next in the same treatment ("đã kiểm soát được rồi, sau đó dùng tiếp thế nào?")
    "sau đó", "tiếp theo", "dùng tiếp", "tiếp tục",
)
# The patient spoken of as "bệnh nhân" ("bn ĐTĐ type 2 mới chẩn đoán, khởi đầu liều bao nhiêu?"): on a ward a child
# is "bệnh nhi", "bé", "trẻ" or an age, so with none of those the dose asked is an adult's, said so in the answer.
ADULT_PATIENT_NOUNS: tuple[str, ...] = ("bệnh nhân", "người bệnh", "bn")
# Another drug in place of the one asked about, for the same patient: "đổi sang X", "thay bằng X".
SWITCH_PHRASES: tuple[str, ...] = (
    "đổi sang", "đổi qua", "chuyển sang", "chuyển qua", "thay bằng", "thay sang", "thay thế bằng",
)
MISSED_DOSE_PHRASES: tuple[str, ...] = ("quên", "bỏ sót", "sót liều", "bỏ lỡ", "lỡ quên", "quên uống", "bỏ quên")
