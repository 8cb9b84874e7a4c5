"""The closed word lists the personal-data masker reads names and addresses by (see personal_data).

Vietnamese given names and middle names as written; common foreign given names; the words that label a birth
date, a record or card number, an address part or a room. Lists of forms, not of people: a name is found by
where its syllables stand (after a family name, a title word or a kin word), these lists only say which
syllables can be one.
"""

from __future__ import annotations

from duocthu_desktop.text import fold

# Middle names: after a family name, the mark of a full name even in lower case ("nguyen thi hoa").
MIDDLE_NAMES = frozenset((
    "thị", "văn", "đức", "hữu", "ngọc", "minh", "thanh", "quang", "xuân", "kim", "hoài", "bảo", "thu", "hồng",
    "gia", "công", "đình", "mạnh", "diệu", "phương", "thế", "bá", "duy", "trọng", "quốc", "tuấn", "khánh",
    "hoàng", "nhật", "thái", "anh", "mai", "tường", "cẩm", "mỹ", "bích", "thuỳ", "thùy", "hải", "tiến", "như",
))
# Given names (the last syllables of a name).
GIVEN_NAMES = frozenset((
    "an", "anh", "ánh", "bảo", "bình", "bích", "cường", "châu", "chi", "chính", "công", "cúc", "dung", "dũng",
    "duy", "dương", "đạt", "điệp", "định", "đông", "đức", "giang", "hà", "hải", "hạnh", "hân", "hằng", "hậu",
    "hiền", "hiếu", "hiệp", "hoa", "hoà", "hòa", "hoài", "hoan", "hoàng", "hồng", "huệ", "hùng", "hưng", "hương",
    "hường", "huy", "huyền", "khang", "khanh", "khánh", "khoa", "khôi", "kiên", "kiều", "kim", "lam", "lan",
    "lâm", "liên", "liễu", "linh", "loan", "lộc", "long", "luân", "lực", "ly", "lý", "mai", "mạnh", "minh", "my",
    "mỹ", "nam", "nga", "ngân", "nghĩa", "ngọc", "nguyên", "nguyệt", "nhàn", "nhân", "nhật", "nhi", "nhung",
    "như", "oanh", "phát", "phong", "phú", "phúc", "phương", "phượng", "quân", "quang", "quế", "quốc", "quý",
    "quyên", "quỳnh", "sang", "sơn", "tài", "tâm", "tân", "thái", "thanh", "thành", "thảo", "thắm", "thắng",
    "thịnh", "thoa", "thơ", "thu", "thư", "thuận", "thương", "thủy", "thuỷ", "thúy", "thuý", "tiến", "tín",
    "toàn", "trâm", "trang", "trí", "trinh", "trung", "trúc", "tú", "tuấn", "tùng", "tuyết", "uyên", "vân",
    "văn", "việt", "vinh", "vũ", "vy", "xuân", "yến", "hạ", "thiện", "thông", "đào", "diệp", "diễm", "duyên",
    "hảo", "hợp", "khải", "ngà", "ngộ", "phụng", "sương", "tiên", "trường", "vượng", "vương", "tuyền",
))
# Given names that are also a word a clinician types after "bé", "chị" ("bé nam" is a boy, "bé an thần", "chị
# hạ sốt"): never read as a name in lower case after a kin word.
COMMON_WORDS = frozenset((
    "an", "nam", "hạ", "tâm", "thành", "công", "trung", "tiến", "bảo", "khoa", "bình", "hoà", "hòa", "đông",
    "tân", "thông", "hợp", "lực", "chính", "định", "phát", "quý", "thuận", "hảo", "tín", "như", "văn", "sang",
    "đào", "ngộ", "tài", "toàn", "trường", "phú", "hưng", "nhân", "thịnh", "thương", "lâm", "hậu", "tiên",
    "thảo",  # "anh thảo" (evening primrose), "thảo dược"
    "trọng", "mạnh", "thanh", "quang", "kim", "minh", "duy", "gia", "thế", "nhật", "thái", "quốc", "tiến",
))


def _folded(words: frozenset[str]) -> frozenset[str]:
    return frozenset(fold(w) for w in words)


MIDDLE_FOLDED = _folded(MIDDLE_NAMES)
GIVEN_FOLDED = _folded(GIVEN_NAMES)
# Typed without diacritics in lower case, a given name that folds onto a common word ("dung" is "dùng", "hai" is
# "hai" tuổi, "nga" is "ngã"): never read as a name after a kin word.
COMMON_FOLDED = _folded(COMMON_WORDS) | frozenset((
    "dung", "tu", "chi", "hai", "thu", "tam", "mai", "nhi", "long", "nga", "lam", "tho", "duong", "nguyen", "ly",
    "ha", "dinh", "cuc", "lan", "hoa", "hoan", "vu", "tien", "quan", "ngan", "loc", "tung", "thang", "son", "my",
    "trong", "thai", "nhat", "duy", "gia", "minh", "nhu", "the", "hong", "cam", "thao", "hao", "ba",
))

# Common foreign given names: one of these, capitalised, before a capitalised word is a person ("John Smith").
FOREIGN_GIVEN = frozenset(n.lower() for n in (
    "John", "Mary", "James", "Patricia", "Robert", "Jennifer", "Michael", "Linda", "William", "Elizabeth",
    "David", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah", "Charles", "Karen",
    "Christopher", "Nancy", "Daniel", "Lisa", "Matthew", "Betty", "Anthony", "Margaret", "Mark", "Sandra",
    "Donald", "Ashley", "Steven", "Kimberly", "Paul", "Emily", "Andrew", "Donna", "Joshua", "Michelle",
    "Kenneth", "Dorothy", "Kevin", "Carol", "Brian", "Amanda", "George", "Melissa", "Edward", "Deborah",
    "Ronald", "Stephanie", "Timothy", "Rebecca", "Jason", "Sharon", "Jeffrey", "Laura", "Ryan", "Cynthia",
    "Jacob", "Kathleen", "Gary", "Amy", "Nicholas", "Shirley", "Eric", "Angela", "Jonathan", "Helen", "Stephen",
    "Anna", "Larry", "Brenda", "Justin", "Pamela", "Scott", "Nicole", "Brandon", "Emma", "Benjamin", "Samantha",
    "Samuel", "Katherine", "Gregory", "Christine", "Frank", "Debra", "Alexander", "Rachel", "Raymond",
    "Catherine", "Patrick", "Carolyn", "Jack", "Janet", "Dennis", "Ruth", "Jerry", "Maria", "Tyler", "Heather",
    "Aaron", "Diane", "Jose", "Virginia", "Adam", "Julie", "Henry", "Joyce", "Nathan", "Victoria", "Douglas",
    "Olivia", "Zachary", "Kelly", "Peter", "Christina", "Kyle", "Lauren", "Walter", "Joan", "Ethan", "Evelyn",
    "Jeremy", "Judith", "Harold", "Megan", "Keith", "Cheryl", "Christian", "Andrea", "Roger", "Hannah", "Noah",
    "Martha", "Gerald", "Jacqueline", "Carl", "Frances", "Terry", "Gloria", "Sean", "Ann", "Austin", "Teresa",
    "Arthur", "Kathryn", "Lawrence", "Sara", "Jesse", "Janice", "Dylan", "Jean", "Bryan", "Alice", "Joe",
    "Madison", "Jordan", "Doris", "Billy", "Abigail", "Bruce", "Julia", "Albert", "Judy", "Willie", "Grace",
    "Gabriel", "Denise", "Logan", "Amber", "Alan", "Marilyn", "Juan", "Beverly", "Wayne", "Danielle", "Roy",
    "Theresa", "Ralph", "Sophia", "Randy", "Marie", "Eugene", "Diana", "Vincent", "Brittany", "Russell",
    "Natalie", "Elijah", "Isabella", "Louis", "Charlotte", "Bobby", "Rose", "Philip", "Alexis", "Johnny",
    "Kayla", "Oliver", "Harry", "Lucy", "Sophie", "Chloe", "Mia", "Ava", "Liam", "Lucas", "Leo", "Tom",
    "Tim", "Jim", "Bob", "Bill", "Ben", "Sam", "Kate", "Jane", "Hans", "Pierre", "Marc", "Anne", "Ivan",
    "Sergei", "Olga", "Natasha", "Yuki", "Hiroshi", "Kenji", "Akiko",
))
# Titles before a foreign name ("Mr Smith", "patient John Doe"): any capitalised words after them are the name.
FOREIGN_TITLES = frozenset(("mr", "mrs", "ms", "miss", "mister", "madam", "dr", "patient", "sir"))

# ---- labels ----------------------------------------------------------------------------------------------

# Words before a birth date ("sinh ngày 12/03/1985", "DOB 1985-03-12"): compared folded.
BIRTH_LABELS = (
    "sinh ngay", "ngay sinh", "sinh nam", "nam sinh", "sinh thang", "sinh vao", "sinh vao ngay", "sinh", "dob",
    "d.o.b", "d.o.b.", "ns", "date of birth", "birth date", "born", "born on", "sn",
)
# Words before a record, card or patient number ("mã hồ sơ 2024/001234"): compared folded.
RECORD_LABELS = (
    "ma ho so", "so ho so", "ho so", "ho so so", "ma benh an", "so benh an", "benh an", "benh an so", "ma bn",
    "ma benh nhan", "so luu tru", "ma luu tru", "ma y te", "ma so", "so the", "ma the", "bhyt", "bhxh",
    "the bhyt", "ma bhyt", "so bhyt", "bhyt so", "ma bhxh", "so bhxh", "so vao vien", "ma vao vien", "pid", "mrn",
    "ma nhap vien", "so nhap vien", "ma kham", "so phieu", "ma phieu", "ma dieu tri",
)
# Address parts that hold a number ("ngõ 34", "ngách 3/45", "hẻm 12", "số nhà 12"): compared folded.
NUMBERED_PLACES = ("so nha", "ngo", "ngach", "hem", "kiet", "kp", "to dan pho", "can ho")
# Address parts that hold a name or a number ("phố Huế", "phường Bến Nghé", "quận 3"): compared folded.
NAMED_PLACES = (
    "duong", "pho", "phuong", "quan", "huyen", "xa", "thon", "xom", "tinh", "thanh pho", "tp", "thi xa",
    "thi tran", "khu pho", "khu do thi", "kdt", "chung cu", "toa nha",
)
# Words after "đường" (and the like) that make it a route or a body part, never a street ("đường uống").
NOT_PLACE_NAMES = frozenset((
    "uống", "tiêm", "tĩnh", "truyền", "huyết", "máu", "hô", "tiêu", "mật", "niệu", "dùng", "ruột", "thở", "sinh",
    "tiết", "trực", "bôi", "đặt", "nhỏ", "hít", "xông", "dưới", "trong", "ngoài", "hội", "táo", "dạ", "da", "mũi",
    "miệng", "tai", "mắt", "âm", "thuốc", "bệnh", "viêm", "cho", "và", "là", "có", "không", "bị", "nào", "gì",
    "tiểu", "ăn", "tim", "phổi", "gan", "thận", "đạo", "kính", "cơ", "não", "mạch", "động", "ngực", "bụng",
))
# Rooms and beds ("phòng 305", "giường 12", "P.305"): compared folded.
ROOM_LABELS = ("phong so", "phong", "buong so", "buong", "giuong so", "giuong", "p.", "room", "bed", "ward")
# The same words as typed with their diacritics.
PLACE_WORDS = frozenset((
    "số nhà", "ngõ", "ngách", "hẻm", "kiệt", "kp", "tổ dân phố", "căn hộ", "đường", "phố", "phường", "quận",
    "huyện", "xã", "thôn", "xóm", "tỉnh", "thành phố", "tp", "thị xã", "thị trấn", "khu phố", "khu đô thị", "kđt",
    "chung cư", "tòa nhà", "toà nhà",
))
ROOM_WORDS = frozenset(("phòng số", "phòng", "buồng số", "buồng", "giường số", "giường", "room", "bed", "ward"))
