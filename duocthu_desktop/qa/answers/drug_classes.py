"""Drug classes: the words the book and people use for a class, and a few common members of each.

General pharmacology vocabulary, not any monograph's passage. It serves two needs of the interaction path: a
class word typed by the person ("thuốc kháng acid") is looked for in the book under all its wordings ("thuốc
chống toan"), and a drug outside the formulary ("ibuprofen") is known to belong to a class the book names
("thuốc chống viêm không steroid"). A formulary drug's classes come from its own "Loại thuốc" line, read through
`classes_in`. Wordings with diacritics match the book's text with diacritics; wordings typed without them match
folded text, so "thai" never matches "thải".
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from duocthu_desktop.qa.understanding.spelling import (
    MIN_KEYED_LETTERS,
    in_word_table,
    spelling_key,
    spelling_keys,
)
from duocthu_desktop.text import fold


@dataclass(frozen=True)
class DrugClass:
    key: str
    synonyms: tuple[str, ...]  # every wording of the class; the first is how answers name it
    members: tuple[str, ...] = ()  # common INNs (Vietnamese spelling), for drugs outside the formulary
    parents: tuple[str, ...] = ()  # broader classes a member also belongs to

    @property
    def name(self) -> str:
        return self.synonyms[0]


CLASSES: tuple[DrugClass, ...] = (
    DrugClass(
        "nsaid",
        ("thuốc chống viêm không steroid", "chống viêm không steroid", "thuốc kháng viêm không steroid",
         "kháng viêm không steroid", "NSAID", "NSAIDs", "AINS", "AINSs"),
        ("ibuprofen", "naproxen", "diclofenac", "indomethacin", "indometacin", "ketoprofen", "piroxicam",
         "meloxicam", "celecoxib", "etoricoxib", "ketorolac", "nabumeton", "fenoprofen", "phenylbutazon"),
    ),
    DrugClass(
        "salicylate",
        ("salicylat", "các salicylat", "dẫn chất salicylat"),
        ("aspirin", "diflunisal", "natri salicylat", "methyl salicylat"),
    ),
    DrugClass(
        "antacid",
        ("thuốc chống toan", "chống toan", "thuốc kháng acid", "kháng acid", "antacid", "antacids",
         "thuốc trung hòa acid"),
        ("nhôm hydroxyd", "magnesi hydroxyd", "magnesi trisilicat", "hydrotalcit", "almagat", "calci carbonat"),
    ),
    DrugClass(
        "anticoagulant",
        ("thuốc chống đông", "thuốc chống đông máu", "thuốc uống chống đông máu", "thuốc chống đông uống",
         "thuốc chống đông đường uống", "chống đông máu", "anticoagulant"),
        ("dabigatran", "rivaroxaban", "apixaban", "edoxaban", "fondaparinux"),
    ),
    DrugClass(
        "vitamin_k_antagonist",
        ("thuốc kháng vitamin K", "kháng vitamin K", "dẫn chất coumarin", "dẫn xuất coumarin", "coumarin"),
        ("warfarin", "acenocoumarol", "phenindion", "fluindion"),
        ("anticoagulant",),
    ),
    DrugClass(
        "heparin",
        ("heparin trọng lượng phân tử thấp", "heparin"),
        ("enoxaparin", "dalteparin", "nadroparin", "tinzaparin"),
        ("anticoagulant",),
    ),
    DrugClass(
        "antiplatelet",
        ("thuốc chống kết tập tiểu cầu", "thuốc ức chế kết tập tiểu cầu", "thuốc chống tiểu cầu",
         "thuốc kháng tiểu cầu", "ức chế kết tập tiểu cầu", "ức chế ngưng tập tiểu cầu"),
        ("clopidogrel", "ticlopidin", "prasugrel", "ticagrelor", "dipyridamol", "cilostazol"),
    ),
    DrugClass(
        "ace_inhibitor",
        ("thuốc ức chế enzym chuyển", "ức chế enzym chuyển angiotensin", "ức chế enzym chuyển",
         "thuốc ức chế men chuyển", "ức chế men chuyển", "ức chế ACE", "ACE"),
        ("captopril", "enalapril", "lisinopril", "perindopril", "ramipril", "benazepril", "quinapril",
         "imidapril"),
        ("antihypertensive",),
    ),
    DrugClass(
        "arb",
        ("thuốc đối kháng thụ thể angiotensin II", "thuốc chẹn thụ thể angiotensin", "đối kháng thụ thể angiotensin",
         "chẹn thụ thể angiotensin", "ARB"),
        ("losartan", "valsartan", "irbesartan", "telmisartan", "candesartan", "olmesartan"),
        ("antihypertensive",),
    ),
    DrugClass(
        "beta_blocker",
        ("thuốc chẹn beta", "chẹn beta", "thuốc chẹn thụ thể beta", "thuốc chẹn beta-adrenergic",
         "chẹn beta-adrenergic"),
        ("propranolol", "atenolol", "metoprolol", "bisoprolol", "carvedilol", "nebivolol", "sotalol"),
        ("antihypertensive",),
    ),
    DrugClass(
        "calcium_channel_blocker",
        ("thuốc chẹn kênh calci", "chẹn kênh calci", "thuốc chẹn calci", "chẹn calci", "đối kháng kênh calci",
         "thuốc đối kháng calci"),
        ("amlodipin", "nifedipin", "felodipin", "nicardipin", "diltiazem", "verapamil"),
        ("antihypertensive",),
    ),
    DrugClass(
        "antihypertensive",
        ("thuốc hạ huyết áp", "thuốc chống tăng huyết áp", "thuốc điều trị tăng huyết áp"),
    ),
    DrugClass(
        "diuretic",
        ("thuốc lợi tiểu", "lợi tiểu", "thuốc lợi niệu", "lợi niệu"),
    ),
    DrugClass(
        "loop_diuretic",
        ("thuốc lợi tiểu quai", "lợi tiểu quai", "thuốc lợi niệu quai", "lợi niệu quai"),
        ("furosemid", "bumetanid", "torasemid", "torsemid", "acid ethacrynic"),
        ("diuretic",),
    ),
    DrugClass(
        "thiazide",
        ("thuốc lợi tiểu thiazid", "lợi tiểu thiazid", "lợi niệu thiazid", "thiazid", "các thiazid"),
        ("hydroclorothiazid", "hydrochlorothiazid", "indapamid", "clorthalidon"),
        ("diuretic", "antihypertensive"),
    ),
    DrugClass(
        "potassium_sparing_diuretic",
        ("thuốc lợi tiểu giữ kali", "lợi tiểu giữ kali", "lợi niệu giữ kali"),
        ("spironolacton", "amilorid", "triamteren", "eplerenon"),
        ("diuretic",),
    ),
    DrugClass(
        "corticosteroid",
        ("corticosteroid", "corticoid", "glucocorticoid", "glucocorticosteroid", "các corticosteroid"),
        ("prednisolon", "prednison", "methylprednisolon", "dexamethason", "hydrocortison", "betamethason",
         "triamcinolon", "budesonid"),
    ),
    DrugClass(
        "aminoglycoside",
        ("aminoglycosid", "kháng sinh nhóm aminoglycosid", "aminosid", "aminoglycoside"),
        ("gentamicin", "amikacin", "tobramycin", "neomycin", "streptomycin", "kanamycin", "netilmicin"),
    ),
    DrugClass(
        "quinolone",
        ("kháng sinh nhóm quinolon", "fluoroquinolon", "quinolon"),
        ("ciprofloxacin", "ofloxacin", "levofloxacin", "moxifloxacin", "norfloxacin", "pefloxacin"),
    ),
    DrugClass(
        "penicillin",
        ("kháng sinh nhóm penicilin", "các penicilin", "penicilin", "penicillin"),
        ("amoxicilin", "ampicilin", "cloxacilin", "oxacilin", "piperacilin", "benzylpenicilin"),
        ("beta_lactam",),
    ),
    DrugClass(
        "cephalosporin",
        ("kháng sinh nhóm cephalosporin", "các cephalosporin", "cephalosporin"),
        ("cefalexin", "cefuroxim", "ceftriaxon", "cefotaxim", "ceftazidim", "cefazolin", "cefixim"),
        ("beta_lactam",),
    ),
    DrugClass(
        "beta_lactam",
        ("kháng sinh nhóm beta-lactam", "kháng sinh beta-lactam", "beta-lactam"),
    ),
    DrugClass(
        "macrolide",
        ("kháng sinh nhóm macrolid", "macrolid"),
        ("erythromycin", "clarithromycin", "azithromycin", "roxithromycin", "spiramycin"),
    ),
    DrugClass(
        "sulfonylurea",
        ("sulfonylure", "sulfonylurê", "sulphonylurê", "sulfonylurea", "sulphonylurea"),
        ("glibenclamid", "gliclazid", "glimepirid", "glipizid", "tolbutamid", "clorpropamid"),
        ("antidiabetic",),
    ),
    DrugClass(
        "biguanide",
        ("dẫn chất biguanid", "biguanid"),
        ("metformin", "phenformin", "buformin"),
        ("antidiabetic",),
    ),
    DrugClass(
        "antidiabetic",
        ("thuốc chống đái tháo đường", "thuốc hạ glucose máu", "thuốc hạ glucose huyết", "thuốc hạ đường huyết",
         "thuốc điều trị đái tháo đường"),
        ("insulin", "metformin", "acarbose", "sitagliptin", "pioglitazon"),
    ),
    DrugClass(
        "ppi",
        ("thuốc ức chế bơm proton", "ức chế bơm proton", "PPI"),
        ("omeprazol", "esomeprazol", "lansoprazol", "pantoprazol", "rabeprazol"),
    ),
    DrugClass(
        "benzodiazepine",
        ("benzodiazepin", "các benzodiazepin"),
        ("diazepam", "lorazepam", "alprazolam", "clonazepam", "midazolam", "bromazepam"),
    ),
    DrugClass(
        "opioid",
        ("thuốc giảm đau opioid", "opioid", "opiat", "thuốc giảm đau gây ngủ"),
        ("morphin", "codein", "tramadol", "fentanyl", "pethidin", "oxycodon"),
    ),
    DrugClass(
        "statin",
        ("thuốc ức chế HMG-CoA reductase", "statin", "các statin"),
        ("atorvastatin", "simvastatin", "rosuvastatin", "pravastatin", "lovastatin", "fluvastatin"),
    ),
    DrugClass(
        "maoi",
        ("thuốc ức chế monoamin oxidase", "ức chế monoamin oxidase", "IMAO", "MAOI", "ức chế MAO"),
        ("phenelzin", "tranylcypromin", "selegilin", "moclobemid"),
    ),
    DrugClass(
        "tricyclic_antidepressant",
        ("thuốc chống trầm cảm ba vòng", "thuốc chống trầm cảm 3 vòng", "chống trầm cảm ba vòng"),
        ("amitriptylin", "nortriptylin", "imipramin", "clomipramin"),
    ),
    DrugClass(
        "cardiac_glycoside",
        ("glycosid tim", "digitalis"),
        ("digoxin", "digitoxin"),
    ),
    DrugClass(
        "antiepileptic",
        ("thuốc chống động kinh", "thuốc chống co giật"),
        ("phenytoin", "carbamazepin", "acid valproic", "natri valproat", "phenobarbital", "lamotrigin"),
    ),
    DrugClass(
        "oral_contraceptive",
        ("thuốc tránh thai dạng uống", "thuốc uống tránh thai", "thuốc tránh thai", "thuốc ngừa thai"),
    ),
    DrugClass(
        "barbiturate",
        ("barbiturat", "các barbiturat", "dẫn chất barbiturat", "thuốc nhóm barbiturat"),
        ("thiopental", "phenobarbital", "pentobarbital", "amobarbital", "secobarbital", "methohexital",
         "butabarbital"),
    ),
)

BY_KEY: dict[str, DrugClass] = {c.key: c for c in CLASSES}


def _norm(text: str) -> str:
    return unicodedata.normalize("NFC", text).lower()


def has_diacritics(text: str) -> bool:
    return fold(text) != text.lower()


# A wording of three words or more is also printed with a word or two inside it ("thuốc chống viêm giảm đau không
# steroid"); never a word that turns it around ("thuốc không chống đông").
_MIN_GAPPED_WORDS = 3
_GAP = r"(?:\s+(?!(?:không|khong|chưa|chua|trừ|tru|ngoài|ngoai)(?!\w))\w+){0,2}\s+"


@lru_cache(maxsize=4096)
def _pattern(wording: str) -> re.Pattern[str]:
    """Whole words of a wording, any whitespace (a printed line break) between them."""
    base = _norm(wording) if has_diacritics(wording) else fold(wording)
    words = base.split()
    body = (_GAP if len(words) >= _MIN_GAPPED_WORDS else r"\s+").join(re.escape(w) for w in words)
    return re.compile(r"(?<!\w)" + body + r"(?!\w)")


def mentions(text: str, wording: str) -> bool:
    """`text` names `wording`: with diacritics when the wording has them, folded when it has none."""
    if not wording.strip():
        return False
    target = _norm(text) if has_diacritics(wording) else fold(text)
    return _pattern(wording).search(target) is not None


def class_mentions(text: str) -> list[tuple[DrugClass, str]]:
    """Classes whose wordings `text` names (a question, or a monograph's "Loại thuốc" line), in text order, each
    with the words as written.

    Matched folded, so "thuoc chong toan" is the antacid class. A wording found only inside a longer wording of
    another class ("lợi tiểu" inside "lợi tiểu quai") does not count: the text named the narrower class.
    """
    text = unicodedata.normalize("NFC", text)
    folded = fold(text)
    same_length = len(folded) == len(text)
    spans: dict[str, list[tuple[int, int]]] = {}
    for cls in CLASSES:
        for w in cls.synonyms:
            for m in _pattern_folded(w).finditer(folded):
                spans.setdefault(cls.key, []).append((m.start(), m.end()))
    found = []
    for key, own in spans.items():
        others = [sp for k, sps in spans.items() if k != key for sp in sps]
        free = [sp for sp in own if not _inside(sp, others)]
        if free:
            start, end = min(free)
            found.append((start, BY_KEY[key], (text if same_length else folded)[start:end]))
    return [(cls, said) for _, cls, said in sorted(found, key=lambda x: x[0])]


def classes_in(text: str) -> list[DrugClass]:
    return [cls for cls, _ in class_mentions(text)]


def _inside(span: tuple[int, int], others: list[tuple[int, int]]) -> bool:
    return any(s <= span[0] and span[1] <= e and (e - s) > (span[1] - span[0]) for s, e in others)


@lru_cache(maxsize=4096)
def _pattern_folded(wording: str) -> re.Pattern[str]:
    body = r"\s+".join(re.escape(w) for w in fold(wording).split())
    return re.compile(r"(?<![0-9a-z])" + body + r"(?![0-9a-z])")


def classes_of_member(name: str) -> list[DrugClass]:
    """Classes listing `name` (an INN typed by the person) among their common members."""
    folded = fold(name).strip()
    return [c for c in CLASSES if folded in (fold(m) for m in c.members)]


def with_parents(classes: list[DrugClass]) -> list[DrugClass]:
    """The classes and every broader class they belong to (a loop diuretic is a diuretic)."""
    out: list[DrugClass] = []
    todo = list(classes)
    while todo:
        cls = todo.pop(0)
        if cls in out:
            continue
        out.append(cls)
        todo.extend(BY_KEY[p] for p in cls.parents if p in BY_KEY)
    return out


def with_children(classes: list[DrugClass]) -> list[DrugClass]:
    """The classes and every narrower class within them (an anticoagulant may be a vitamin K antagonist)."""
    out = list(dict.fromkeys(classes))
    changed = True
    while changed:
        changed = False
        for cls in CLASSES:
            if cls not in out and any(BY_KEY.get(p) in out for p in cls.parents):
                out.append(cls)
                changed = True
    return out


def wordings(classes: list[DrugClass]) -> list[str]:
    """Every wording of the classes, longest first, no repeats."""
    seen: dict[str, None] = {}
    for cls in classes:
        for w in cls.synonyms:
            seen.setdefault(w, None)
    return sorted(seen, key=len, reverse=True)


# ---- every wording of an interaction partner ----------------------------------------------------------------


def drug_wordings(book_names: list[str], class_line: str | None) -> list[str]:
    """A formulary drug: the book's names for it, then the wordings of its classes, read from its own "Loại thuốc"
    line and, where that names no known class, from its names' place among the lexicon's members; then the class
    line's own words as another monograph would print them ("Thuốc mê" -> "thuốc mê")."""
    classes = classes_in(class_line or "")
    for name in book_names:
        classes += [c for c in classes_of_member(name) if c not in classes]
    return _unique(book_names + wordings(with_parents(classes)) + printed_class_wordings(class_line))


_CLASS_LINE_PIECES = re.compile(r"[;,()]|\s[-–]\s")
_GROUP_WORDS = ("nhóm", "dẫn chất", "loại")
_MIN_NAMED_LETTERS = 6


def printed_class_wordings(class_line: str | None) -> list[str]:
    """The classes a monograph's "Loại thuốc" line prints, as another monograph's Tương tác names a class: "thuốc"
    and the class ("Chống co giật" -> "thuốc chống co giật", "An thần" -> "thuốc an thần"), and a piece naming its
    group by a chemical name, as printed and by that name ("kháng sinh nhóm aminoglycosid", "aminoglycosid"). The
    class's words without "thuốc" are also an effect ("tác dụng chống đông máu") and are not looked for alone. A piece of one word ("Enzym") is too general to be a class, and so is "thuốc"
    alone."""
    out: list[str] = []
    for piece in _CLASS_LINE_PIECES.split(_norm(class_line or "")):
        words = re.findall(r"[\w-]+", piece)
        if not words:
            continue
        phrase = " ".join(words)
        if words[0] == "thuốc":
            if len(words) >= 2:
                out.append(phrase)
        elif len(words) >= 2:
            out.append("thuốc " + phrase)
        for group in _GROUP_WORDS:
            m = re.search(r"(?<!\w)" + group + r"\s+([\w-]+)", phrase)
            if m and len(m.group(1)) >= _MIN_NAMED_LETTERS and not m.group(1).isdigit():
                out += [phrase, m.group(1)]
    return _unique(out)


# The two names one drug has in the world (the INN and the British or older name): the book prints one of them.
SAME_DRUG: tuple[tuple[str, ...], ...] = (
    ("epinephrin", "adrenalin"),
    ("norepinephrin", "noradrenalin"),
    ("paracetamol", "acetaminophen"),
    ("salbutamol", "albuterol"),
    ("lidocain", "lignocain"),
    ("furosemid", "frusemid"),
    ("glyceryl trinitrat", "nitroglycerin"),
    ("isoprenalin", "isoproterenol"),
    ("petidin", "meperidin"),
    ("ciclosporin", "cyclosporin"),
    ("rifampicin", "rifampin"),
    ("phenobarbital", "phenobarbiton"),
)


def _name_key(name: str) -> tuple[str, ...]:
    return spelling_keys(tuple(fold(name).split()))


_SAME_DRUG_KEYED = tuple({_name_key(n): n for n in names} for names in SAME_DRUG)


def same_drug_names(name: str) -> list[str]:
    """The drug's other name in the world ("noradrenalin" -> "norepinephrin"), read through the spelling keys."""
    key = _name_key(name)
    return [n for keyed in _SAME_DRUG_KEYED if key in keyed for k, n in keyed.items() if k != key]


def unknown_drug_wordings(name: str, texts: tuple[str, ...] = ()) -> list[str]:
    """A drug outside the formulary: its name and its other name in the world, the book's spellings of them in
    `texts` (the sections searched: "clarithromycine" typed, "clarithromycin" printed; "lithium" typed, "lithi"
    printed), then the wordings of the classes it is a common member of."""
    names = [name] + same_drug_names(name)
    spelled = [w for n in names for w in book_spellings(n, texts)]
    return _unique(names + spelled + wordings(with_parents([c for n in names for c in classes_of_member(n)])))


MIN_SPELLED_LETTERS = 7  # a shorter name one letter from a word of the book is as likely another word


def book_spellings(name: str, texts: tuple[str, ...]) -> list[str]:
    """The words of `texts` that spell the one-word drug `name` one letter differently (an English "-e", a letter
    left out or doubled, "ph" for "f"), compared folded, as the book prints them."""
    typed = fold(name).strip()
    if " " in typed or not (len(typed) >= MIN_KEYED_LETTERS or in_word_table(typed)):
        return []
    from duocthu_desktop.qa.understanding.catalog import one_spelling_apart

    key = spelling_key(typed)
    found: dict[str, None] = {}
    for text in texts:
        for word in re.findall(r"\w+", text):
            plain = fold(word)
            if plain == typed:
                continue
            # the book's spelling by the spelling table ("lithium" / "lithi", "canxi" / "calci"), or, for a
            # long name, one letter apart
            if (len(plain) >= MIN_KEYED_LETTERS and spelling_key(plain) == key) or (
                    len(typed) >= MIN_SPELLED_LETTERS and len(plain) >= MIN_SPELLED_LETTERS - 1
                    and one_spelling_apart(typed, plain)):
                found.setdefault(word, None)
    return list(found)


def class_word_wordings(said: str, cls: DrugClass, book_members: list[str]) -> list[str]:
    """A class the person named: the words they used, every wording of it and of its narrower classes, their
    common members, and the names of the formulary drugs the book classes under it (`book_members`)."""
    classes = with_children([cls])
    members = [m for c in classes for m in c.members]
    return _unique([said] + wordings(classes) + members + book_members)


def _unique(items: list[str]) -> list[str]:
    return [w for w in dict.fromkeys(i for i in items if i and i.strip())]
