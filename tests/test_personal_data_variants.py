"""Personal data in generated variants of each form never reaches the data folder, and the clinical facts do.

Each form the probes found (insurance cards, record numbers, dates of birth, street addresses, rooms, Vietnamese
names in any case with or without diacritics, four-syllable names, kin words before a given name, foreign names)
is generated many times from syllable and digit lists with a fixed seed, asked through a real Assistant in a
fresh data folder, and every file there is searched, as bytes and as a SQLite dump, for what was typed: as
typed, folded (no diacritics, lower case), JSON-escaped, and its digits whatever the separators. A single syllable
is searched for on its own only where the clinical text around it never uses that word.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
import unicodedata
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from duocthu_desktop.qa.conversation.personal_words import COMMON_FOLDED, COMMON_WORDS
from duocthu_desktop.qa.pipeline import Assistant
from duocthu_desktop.settings import Settings
from duocthu_desktop.text import fold

SEED = 20
PER_FORM = 24

FAMILY = ["Nguyễn", "Trần", "Lê", "Phạm", "Hoàng", "Huỳnh", "Phan", "Vũ", "Võ", "Đặng", "Bùi", "Đỗ", "Hồ", "Ngô",
          "Dương", "Lý", "Đinh", "Đoàn", "Trương", "Trịnh", "Lương", "Quách", "Vương", "Triệu", "Phùng"]
MIDDLE = ["Thị", "Văn", "Đức", "Hữu", "Ngọc", "Minh", "Thanh", "Quang", "Xuân", "Kim", "Hoài", "Bảo", "Thu",
          "Hồng", "Gia", "Công", "Đình", "Mạnh", "Diệu", "Phương"]
# given names that are no common clinical word ("nam" is a boy, "an" in "an thần"): those are left as typed
# after a kin word in lower case, so they are not generated in that form
GIVEN = ["Hoa", "Lan", "Hùng", "Dũng", "Tuấn", "Hương", "Trang", "Linh", "Nhung", "Yến", "Thảo", "Quyên", "Hải",
         "Sơn", "Phong", "Vinh", "Thắng", "Hiếu", "Ngân", "Hạnh", "Loan", "Oanh", "Châu", "Anh", "Vy", "My",
         "Khánh", "Duy", "Trí", "Phúc", "Lộc", "Hân", "Ánh", "Thư", "Vân", "Ngọc", "Huyền", "Nga", "Tùng", "Quân"]
ENGLISH_FIRST = ["John", "Mary", "James", "Patricia", "Robert", "Jennifer", "Michael", "Linda", "William",
                 "Elizabeth", "David", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Sarah", "Karen",
                 "Christopher", "Nancy", "Daniel", "Lisa", "Matthew", "Emily", "Andrew", "Michelle", "Kevin",
                 "George", "Peter", "Emma", "Olivia", "Sophia", "Charlotte", "Oliver", "Jack", "Harry"]
ENGLISH_LAST = ["Smith", "Johnson", "Williams", "Brown", "Jones", "Miller", "Davis", "Wilson", "Anderson",
                "Taylor", "Thomas", "Moore", "Martin", "Jackson", "Thompson", "White", "Harris", "Clark", "Lewis",
                "Robinson", "Walker", "Wright", "Scott", "Green", "Baker", "Adams", "Carter", "Mitchell"]
STREETS = ["Huế", "Láng", "Lê Lợi", "Trần Hưng Đạo", "Bà Triệu", "Kim Mã", "Nguyễn Trãi", "Cầu Giấy", "Hàng Bông",
           "Điện Biên Phủ", "Lý Thường Kiệt", "Hai Bà Trưng", "Giải Phóng", "Xã Đàn", "Tây Sơn", "Phố Vọng"]
WARDS = ["Bến Nghé", "Yên Hòa", "Dịch Vọng", "Phúc Xá", "Tân Định", "Đa Kao", "Kim Liên", "Thanh Xuân Bắc"]
CARD_CODES = ["DN", "HC", "CH", "HT", "TE", "GD", "HN", "CN", "XK", "NO", "BT", "TQ", "SV", "HS", "GB", "XN"]
RECORD_PREFIXES = ["HS", "BA", "BN", "MBA", "NV", "HSBA", "PK"]

CLINICAL = [  # (text, the facts it must keep as typed in what is stored)
    ("{age} tuổi, nặng {kg} kg, liều paracetamol đường uống?", ("{age} tuổi", "{kg} kg", "paracetamol")),
    ("kali 6,2 mmol/l, dùng metformin được không?", ("kali 6,2 mmol/l", "metformin")),
    ("Clcr 35 ml/phút, liều metformin 500 mg?", ("Clcr 35 ml/phút", "metformin 500 mg")),
    ("{age} tuổi, chống chỉ định của aspirin là gì?", ("{age} tuổi", "aspirin")),
]


@dataclass
class Variant:
    form: str
    question: str
    secrets: list[str]  # each must be absent from the data folder
    words: list[str] = field(default_factory=list)  # single syllables, searched for where the text never uses them
    kept: list[str] = field(default_factory=list)  # clinical facts the stored question must hold as typed


def _cased(rng: random.Random, syllables: list[str], cases=("title", "lower", "upper")) -> str:
    case = rng.choice(cases)
    text = " ".join(syllables)
    if rng.random() < 0.5:
        text = fold(text)  # typed without diacritics
        text = " ".join(w[:1].upper() + w[1:] for w in text.split())
    return {"title": text, "lower": text.lower(), "upper": text.upper()}[case]


def _vietnamese_name(rng: random.Random, syllables: int) -> list[str]:
    middle = [rng.choice(MIDDLE)] if syllables >= 3 else []
    given = [rng.choice(GIVEN) for _ in range(syllables - 1 - len(middle))]
    return [rng.choice(FAMILY), *middle, *given]


def _clinical(rng: random.Random) -> tuple[str, list[str]]:
    text, kept = rng.choice(CLINICAL)
    values = {"age": rng.randint(2, 85), "kg": rng.randint(8, 90)}
    return text.format(**values), [k.format(**values) for k in kept]


def _name_secrets(name: str) -> tuple[list[str], list[str]]:
    words = name.split()
    secrets = [name] + ([" ".join(words[1:])] if len(words) > 2 else []) + ([" ".join(words[-2:])] if len(words) > 1 else [])
    return secrets, words


def _generate() -> list[Variant]:
    rng = random.Random(SEED)
    out: list[Variant] = []

    def add(form: str, template: str, secrets: list[str], words: list[str] = ()) -> None:
        clinical, kept = _clinical(rng)
        out.append(Variant(form, template.format(clinical=clinical), secrets, list(words), kept))

    for _ in range(PER_FORM):  # Vietnamese names after a naming word, 2-4 syllables, any case, any diacritics
        name = _cased(rng, _vietnamese_name(rng, rng.randint(2, 4)))
        lead = rng.choice(["Bệnh nhân", "bệnh nhân", "benh nhan", "BN", "Tôi là", "toi la", "Họ tên:", "tên tôi là"])
        add("name_titled", f"{lead} {name}, {{clinical}}", *_name_secrets(name))
    for _ in range(PER_FORM):  # a full name alone (family, middle, given), any case, any diacritics
        name = _cased(rng, _vietnamese_name(rng, rng.randint(3, 4)))
        add("name_alone", rng.choice([f"{name} {{clinical}}", f"hỏi giùm {name}: {{clinical}}",
                                      f"{{clinical}} ({name})"]), *_name_secrets(name))
    for _ in range(PER_FORM):  # four syllables, the last one too
        name = _cased(rng, _vietnamese_name(rng, 4), ("title", "upper"))
        secrets, words = _name_secrets(name)
        add("name_four", rng.choice([f"{name} {{clinical}}", f"Bệnh nhân {name} {{clinical}}",
                                     f"chị {name} {{clinical}}"]), secrets, words)  # the last syllable: a word
    for _ in range(PER_FORM):  # a kin word before a given name: "bé ngọc anh"
        given = _cased(rng, [rng.choice(GIVEN) for _ in range(rng.randint(1, 2))], ("title", "lower"))
        while given.islower() and (fold(given.split()[0]) if given.isascii() else given.split()[0]) in (
                COMMON_FOLDED if given.isascii() else COMMON_WORDS):  # "bé hai tuổi", "bé ngã": not a name
            given = _cased(rng, [rng.choice(GIVEN) for _ in range(rng.randint(1, 2))], ("title", "lower"))
        kin = rng.choice(["bé", "Bé", "chị", "anh", "cháu", "em", "cô", "ông", "bà", "be", "chi"])
        secrets = [f"{kin} {given}"] + ([given] if " " in given else [])  # one syllable: searched as a word
        add("kin_name", f"{kin} {given} {{clinical}}", secrets, given.split())
    for _ in range(PER_FORM):  # foreign names
        name = f"{rng.choice(ENGLISH_FIRST)} {rng.choice(ENGLISH_LAST)}"
        name = name.upper() if rng.random() < 0.2 else name
        lead = rng.choice(["", "patient ", "Mr. ", "Mrs ", "bệnh nhân ", "bà ", "ông "])
        add("foreign_name", f"{lead}{name}, {{clinical}}", [name, name.split()[-1]], name.split())
    for _ in range(PER_FORM):  # health-insurance cards
        code = rng.choice(CARD_CODES) + str(rng.randint(1, 5)) + f"{rng.randint(1, 99):02d}" + "".join(
            str(rng.randint(0, 9)) for _ in range(10))
        shown = rng.choice([code, code.lower(), f"{code[:2]} {code[2]} {code[3:5]} {code[5:]}",
                            f"{code[:2]}-{code[2:5]}-{code[5:]}"])
        lead = rng.choice(["thẻ BHYT", "mã BHYT:", "số thẻ", "BHYT số", "the bhyt", ""])
        add("insurance_card", f"{lead} {shown}, {{clinical}}".strip(), [shown, code, code[2:], code[-10:]])
    for _ in range(PER_FORM):  # record numbers
        prefix = rng.choice(RECORD_PREFIXES)
        number = rng.choice([f"{prefix}{rng.randint(18, 25)}-{rng.randint(100, 99999)}",
                             f"{prefix}-{rng.randint(2018, 2025)}/{rng.randint(1000, 999999)}",
                             f"{prefix}{rng.randint(100000, 99999999)}"])
        lead = rng.choice(["mã hồ sơ", "số hồ sơ", "hồ sơ", "mã bệnh án", "số bệnh án", "mã BN", ""])
        add("record_number", f"{lead} {number}, {{clinical}}".strip(), [number, re.sub(r"^[A-Z]+-?", "", number)])
    for _ in range(PER_FORM):  # dates of birth
        d, m, y = rng.randint(1, 28), rng.randint(1, 12), rng.randint(1930, 2024)
        date = rng.choice([f"{d:02d}/{m:02d}/{y}", f"{d}/{m}/{y}", f"{d:02d}-{m:02d}-{y}", f"{d}.{m}.{y}",
                           f"{y}-{m:02d}-{d:02d}", f"{d} tháng {m} năm {y}", f"{d:02d}/{m:02d}/{y % 100:02d}",
                           f"năm {y}", f"{m}/{y}"])
        lead = rng.choice(["sinh ngày", "ngày sinh", "ngày sinh:", "DOB", "NS:", "sinh ngay", "ngay sinh", "sinh"])
        if date.startswith("năm") or date.count("/") == 1:
            lead = rng.choice(["sinh", "sinh vào", "sinh tháng"] if "/" in date else ["sinh", "sinh vào"])
        add("date_of_birth", f"{lead} {date}, {{clinical}}", [date, str(y)])
    for _ in range(PER_FORM):  # street addresses
        street = rng.choice(STREETS)
        house, lane, alley = rng.randint(1, 300), rng.randint(1, 200), rng.randint(1, 50)
        shape = rng.randrange(5)
        if shape == 0:
            address, secrets = f"số {house} ngõ {lane} phố {street}", [f"số {house}", f"ngõ {lane}", f"phố {street}"]
        elif shape == 1:
            address = f"{house}/{lane} đường {street}, phường {rng.choice(WARDS)}, quận {rng.randint(1, 12)}"
            secrets = [f"{house}/{lane}", f"đường {street}", address.split(", ")[1], address.split(", ")[2]]
        elif shape == 2:
            address, secrets = f"số nhà {house}, ngách {alley}/{lane}", [f"số nhà {house}", f"ngách {alley}/{lane}"]
        elif shape == 3:
            address = f"hẻm {lane} {street}"
            secrets = [f"hẻm {lane}", address]
        else:
            address = f"so {house} ngo {lane} pho {fold(street).lower()}"
            secrets = [f"so {house}", f"ngo {lane}", f"pho {fold(street).lower()}"]
        lead = rng.choice(["nhà ở", "địa chỉ", "ở", "địa chỉ:", "dia chi"])
        add("address", f"{lead} {address}, {{clinical}}", secrets, street.split() if shape != 1 else [])
    for _ in range(PER_FORM):  # rooms and beds
        number = rng.choice([str(rng.randint(101, 999)), f"{rng.randint(1, 30)}{rng.choice('ABC')}",
                             f"{rng.choice('ABC')}{rng.randint(1, 9)}-{rng.randint(1, 30):02d}"])
        word = rng.choice(["phòng", "Phòng", "buồng", "giường", "phong", "P.", "phòng số"])
        add("room", f"nằm {word} {number}, {{clinical}}", [f"{word} {number}", number])
    return out


# ---- searching the data folder ----------------------------------------------------------------------------


def _texts(folder: Path) -> list[tuple[str, str]]:
    """(name, text) for every file as bytes, and for every SQLite file its dump too (named "... (dump)")."""
    found = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        found.append((path.name, path.read_bytes().decode("utf-8", "ignore")))
        if path.read_bytes()[:16] == b"SQLite format 3\x00":
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            try:
                found.append((f"{path.name} (dump)", "\n".join(conn.iterdump())))
            finally:
                conn.close()
    return found


def _searchable(text: str) -> str:
    text = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
    return fold(unicodedata.normalize("NFC", text)).lower()


def _pattern(secret: str) -> re.Pattern[str]:
    """The folded secret as whole words, any spacing; its digits with any separators between them."""
    folded = fold(unicodedata.normalize("NFC", secret)).lower()
    parts = re.findall(r"[a-z]+|\d", folded)
    pieces = []
    for a, b in zip(parts, parts[1:] + [""], strict=True):
        pieces.append(re.escape(a))
        if b:
            pieces.append(r"[\s./\-_]*" if a.isdigit() and b.isdigit() else r"[\W_]*")
    return re.compile(r"(?<![\w.,])" + "".join(pieces) + r"(?!\w)")


def _book_words(body: dict) -> set[str]:
    """An answer's citation quotes, and its claims that repeat part of one: the book's words as printed."""
    quotes = {c["quote"] for c in body.get("citations", [])}
    claims = {c["text"] for b in body.get("blocks", []) for c in b.get("claims", [])}
    return quotes | {c for c in claims if any(c in q for q in quotes)}


def _answers_apart(texts: list[tuple[str, str]], folder: Path) -> list[tuple[str, str]]:
    """`texts` with the answers the traces keep (the payload as shown, app.history) taken out of the files and
    the dump, then searched, without the book's own words, as stored values of their own, for every whole
    secret (a name, a phone, a room) but not for each syllable. The book's words are the citations' quotes and
    the claims that repeat part of one ("ảnh hưởng", "năm 2013" are the book's, not a name or a birth year
    typed); the app's own sentences are kept in, and a syllable of theirs ("Dược thư", "phân") is one of names
    too. Everything else is searched as before."""
    with closing(sqlite3.connect(f"file:{folder / 'traces.sqlite3'}?mode=ro", uri=True)) as conn:
        answers = [a for (a,) in conn.execute("SELECT answer FROM traces WHERE answer IS NOT NULL")]
    book = {t for a in answers for t in _book_words(json.loads(a))}
    # whole answers (the dump), and the book's words alone (a page of the file may split an answer)
    forms = sorted({f for t in [*answers, *(json.dumps(b, ensure_ascii=False)[1:-1] for b in book)]
                    for f in (t, t.replace("'", "''"))}, key=len, reverse=True)
    out = []
    for name, text in texts:
        if name.startswith("traces.sqlite3"):
            for form in forms:
                text = text.replace(form, " ")
        out.append((name, text))
    shown = []
    for answer in answers:
        body = json.loads(answer)
        book = _book_words(body)
        claims = [c["text"] for b in body.get("blocks", []) for c in b.get("claims", []) if c["text"] not in book]
        titles = [b.get("title", "") for b in body.get("blocks", [])]
        shown.append("\n".join([body.get("message", ""), *titles, *claims, *body.get("quick_replies", [])]))
    return [*out, ("traces.sqlite3 answers", "\n".join(shown))]


def _leaks(variants: list[Variant], texts: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    searchable = [(name, _searchable(text)) for name, text in texts]
    background = {"ten", "sdt", "dinh", "danh", "so", "ngay", "sinh", "dia", "chi", "phong"}  # the masks' words
    for v in variants:  # every word the questions use besides the syllables of their names
        rest = _searchable(v.question)
        for word in v.words:
            rest = re.sub(rf"(?<![a-z]){re.escape(fold(word).lower())}(?![a-z])", " ", rest)
        background |= set(re.findall(r"[a-z]+", rest))
    found = []
    for v in variants:
        words = {w for w in v.words if fold(w).lower() not in background and len(w) > 1}
        for secret in [*v.secrets, *words]:
            if not re.search(r"\w", secret):
                continue
            digits = re.sub(r"\D", "", secret)
            if secret.isdigit() and len(digits) < 4:
                continue  # a bare short number is found anywhere (ages, doses); its worded form is checked
            pattern = _pattern(secret)
            for name, text in searchable:
                if secret in words and not name.endswith("(dump)"):
                    continue  # one syllable is looked for in the stored values, not in the file's page bytes
                if pattern.search(text):
                    found.append((v.form, secret, name))
                    break
    return found


@pytest.mark.integration
def test_generated_personal_data_never_reaches_the_data_folder(qa_service, catalog, tmp_path: Path) -> None:
    variants = _generate()
    data = tmp_path / "data"
    assistant = Assistant(qa_service, catalog=catalog, settings=Settings(data_dir=data), engine_name="extractive")
    for i, v in enumerate(variants):
        assistant.ask(v.question, f"variant-{i}")
    leaks = _leaks(variants, _answers_apart(_texts(data), data))
    by_form: dict[str, int] = {}
    for form, _, _ in leaks:
        by_form[form] = by_form.get(form, 0) + 1
    print(f"personal-data variants: {len(variants)} questions, {len(leaks)} leaks {by_form}")
    assert leaks == [], f"{len(leaks)} leaks {by_form}: {leaks[:20]}"

    # the clinical facts stay as typed in what is stored
    conn = sqlite3.connect(data / "traces.sqlite3")
    questions = [row[0] for row in conn.execute("SELECT question FROM traces ORDER BY id")]
    conn.close()
    assert len(questions) == len(variants)
    lost = [(v.form, fact, q) for v, q in zip(variants, questions, strict=True) for fact in v.kept if fact not in q]
    assert lost == [], lost[:10]


def test_the_generator_is_fixed_and_varied() -> None:
    """The same seed gives the same questions, and every form is there in numbers."""
    first, second = _generate(), _generate()
    assert [v.question for v in first] == [v.question for v in second]
    forms = {v.form for v in first}
    assert len(forms) == 10 and len(first) == 10 * PER_FORM
    assert not any("[" in v.question for v in first)  # no mask typed in
