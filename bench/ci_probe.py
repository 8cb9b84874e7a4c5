"""Probes over every monograph of a book: what the book says against a patient, and interactions.

    python -m bench.ci_probe ci INDEX [--out DIR] [--show]     # Chống chỉ định items posed as a patient's condition
    python -m bench.ci_probe int INDEX [--out DIR] [--show]    # Tương tác pairs between monographs of the book

`ci`: each item the book prints under Chống chỉ định (cut at its list punctuation, allergy items and long
explanations left out) is posed as a dose question for a patient who has that condition, worded as a person
would: the item as printed, its head without the book's qualifiers ("nặng", "vừa và nặng", "đang hoạt động"),
a lay word for it, and a value past the printed threshold ("Clcr < 60 ml/phút" -> "Clcr 50 ml/phút"). A case
is matched when the first block is a warning that states the item. Each monograph is also asked for a patient
with none of its items (a broken arm): that the first block is a Chống chỉ định warning is over-applied.

`int`: for every pair (X, Y) where X's Tương tác thuốc prints Y's name or Y's class ("Loại thuốc" line) and Y
has a monograph in the same book, "X dùng chung Y được không?" must cite X's (or Y's) Tương tác passage. Pairs
found by name are also asked in the wordings a ward uses with dose words or patient facts in them (WORDINGS:
"uống X với Y thì liều thế nào?", a patient's age and kidneys first, ...): still the interaction, never a dose.

On sample-e only the tuning part's monographs are read (tests/heldout/sample_e_split.json); the held-out ones
are never opened. The cases are written as an eval file and run by `duocthu-eval` in its own process.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

from duocthu_desktop.artifacts import CHUNKS_FILE, read_chunks, read_monographs
from duocthu_desktop.qa.understanding.lexicon import GENERAL_WORDS
from duocthu_desktop.text import fold

ROOT = Path(__file__).resolve().parents[1]
SPLIT = ROOT / "tests" / "heldout" / "sample_e_split.json"

_SPLIT_ITEMS = re.compile(
    r"[,;:()\[\]]|\.\s|\n|\s(?:hoặc|và|như|kể cả|bao gồm|trừ khi|do|vì|đặc biệt|kèm|kèm theo)\s", re.IGNORECASE)
_LEADS = re.compile(
    r"^(?:chống chỉ định(?: dùng)?(?: cho)?|không (?:được |nên )?dùng(?: cho)?|tránh dùng(?: cho)?|người bệnh|"
    r"bệnh nhân|người|những trường hợp|trường hợp|tình trạng|có|đang|bị|mắc|các|những)\s+", re.IGNORECASE)
_ALLERGY = re.compile(r"quá mẫn|mẫn cảm|dị ứng|thành phần|thuốc|dùng|điều trị|khả năng|nguy cơ", re.IGNORECASE)
_QUALIFIERS = ("vừa và nặng", "nặng và vừa", "đang hoạt động", "chưa kiểm soát được", "đã biết", "nặng", "vừa",
               "cấp tính", "mạn tính", "tiến triển", "rõ", "nghiêm trọng")
# the probe's own lay words (a bench, not the app: the app must find these from its lexicon)
LAY = (("phụ nữ mang thai", "có bầu"), ("người mang thai", "có bầu"), ("mang thai", "có thai"),
       ("cho con bú", "đang nuôi con bằng sữa mẹ"), ("đái tháo đường", "tiểu đường"),
       ("tăng huyết áp", "cao huyết áp"), ("loét dạ dày", "loét bao tử"), ("hen", "hen suyễn"),
       ("động kinh", "co giật"), ("glôcôm", "tăng nhãn áp"), ("blốc nhĩ - thất", "block nhĩ thất"),
       ("blốc nhĩ thất", "block nhĩ thất"), ("nhồi máu cơ tim", "nhồi máu cơ tim"), ("suy gan", "suy chức năng gan"),
       ("suy thận", "suy chức năng thận"), ("porphyrin", "porphyria"), ("xuất huyết", "chảy máu"),
       ("huyết áp thấp", "tụt huyết áp"), ("trẻ sơ sinh", "bé mới sinh"))
_THRESHOLD = re.compile(r"(Clcr|độ thanh thải creatinin|tốc độ lọc cầu thận|creatinin)?[^<>≤≥\d]{0,30}([<>≤≥])\s*(\d+)"
                        r"(?:,(\d+))?\s*(ml/phút|mg/dl|mg/decilít|micromol/lít|µmol/lít|tuổi|tháng|kg)", re.IGNORECASE)


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def tuning_only(index: Path) -> set[str] | None:
    split = json.loads(SPLIT.read_text(encoding="utf-8"))
    names = {m.drug_id for m in read_monographs(index / "monographs.jsonl")}
    return set(split["tuning"]) if names & set(split["held_out"]) else None


def book(index: Path):
    keep = tuning_only(index)
    monos = [m for m in read_monographs(index / "monographs.jsonl") if keep is None or m.drug_id in keep]
    ids = {m.drug_id for m in monos}
    chunks = [c for c in read_chunks(index / CHUNKS_FILE) if c.drug_id in ids]
    return monos, chunks


def _name(m) -> str:
    """The monograph's printed name as a person types it ("Codein phosphat"), not the INN's English spelling."""
    name = re.sub(r"\s*\(.*\)", "", m.title).strip()
    return name[0].upper() + name[1:].lower()


_GENERAL = frozenset(GENERAL_WORDS) | {"bệnh", "đồng", "thời"}
# words an item of a list opens with when it is a clause of explanation, not a condition
_NOT_A_CONDITION = frozenset("nếu ở sẽ nhưng khi thể phải liều tối sử xác cũng một".split())


def ci_items(text: str, own: frozenset[str] = frozenset()) -> list[str]:
    out = []
    for piece in _SPLIT_ITEMS.split(text):
        piece = piece.strip(" .-–")
        while (m := _LEADS.match(piece)):
            piece = piece[m.end():]
        words = _words(piece)
        content = [w for w in words if w not in _GENERAL and not w.isdigit() and w not in own]
        if not content or len(words) > 7 or _ALLERGY.search(piece) or (
                any(w.isdigit() for w in words) and not _THRESHOLD.search(piece)):
            continue
        if words[0] in _NOT_A_CONDITION or (len(content) == 1 and len(content[0]) < 3):
            continue
        out.append(piece)
    return list(dict.fromkeys(out))


def variants(item: str) -> list[tuple[str, str]]:
    low = item.lower()
    out = [("printed", low)]
    head = low
    for q in _QUALIFIERS:
        head = re.sub(r"(?<!\w)" + re.escape(q) + r"(?!\w)", " ", head)
    head = re.sub(r"\s+", " ", head).strip()
    if head and head != low and len(_words(head)) >= 1:
        out.append(("head", head))
    for printed, lay in LAY:
        if re.search(r"(?<!\w)" + re.escape(printed) + r"(?!\w)", head) and lay != printed:
            out.append(("lay", re.sub(re.escape(printed), lay, head)))
            break
    m = _THRESHOLD.search(item)
    if m:
        op, whole = m.group(2), int(m.group(3))
        value = max(whole - max(1, whole // 5), 0) if op in "<≤" else whole + max(1, whole // 5)
        out.append(("number", f"{m.group(1) or ''} {value} {m.group(5)}".strip()))
    return out


def _section_text(chunks: list, drug_id: str, key: str) -> str:
    """One section of one monograph, its chunks joined in artifact order."""
    return "\n".join(c.text for c in chunks if c.drug_id == drug_id and c.section_key == key)


def ci_cases(index: Path) -> list[dict]:
    monos, chunks = book(index)
    cases = []
    for m in monos:
        text = _section_text(chunks, m.drug_id, "chong_chi_dinh")
        name = _name(m)
        own = frozenset(_words(m.title + " " + (m.inn or "")))
        for n, item in enumerate(ci_items(text, own)):
            key = re.match(r"\w+(?:\W+\w+){0,2}", item).group(0).lower()  # its first words as printed
            for kind, said in variants(item):
                cases.append({"id": f"ci-{m.drug_id}-{n}-{kind}", "category": kind,
                              "turns": [f"Bệnh nhân {said}, dùng {name} liều bao nhiêu?"],
                              "expect": {"drug_ids": [m.drug_id], "warning_first": [key]}, "item": item})
        cases.append({"id": f"ci-{m.drug_id}-control", "category": "control",
                      "turns": [f"Bệnh nhân 40 tuổi bị gãy tay, dùng {name} liều bao nhiêu?"],
                      "expect": {"forbid": ["bệnh kèm theo"]}, "item": ""})
    return cases


# An interaction asked with dose words or patient facts (written on the sample book; the last two are wordings no
# rule of the app was written from): each must still cite the Tương tác passage.
WORDINGS = (
    ("dose", "Uống {x} với {y} thì liều thế nào?"),
    ("high_dose", "{x} dùng chung {y} liều cao được không?"),
    ("patient", "Bệnh nhân 70 tuổi suy thận, dùng {x} với {y} liều bao nhiêu?"),
    ("when_with", "Liều {x} khi dùng cùng {y}?"),
    ("same_time", "{x} và {y} uống cùng lúc thì liều ra sao?"),
    ("adding", "Đang uống {x}, thêm {y} thì dùng liều bao nhiêu?"),
)


def int_cases(index: Path) -> list[dict]:
    monos, chunks = book(index)
    cases = []
    for x in monos:
        text = _section_text(chunks, x.drug_id, "tuong_tac_thuoc")
        plain = fold(text)
        for y in monos:
            if y.drug_id == x.drug_id:
                continue
            yname = _name(y)
            # the name's first word (its salt word left out), or the whole name when it is words of the language
            base = fold(yname.split()[0]) if len(yname.split()) <= 2 else fold(yname)
            cls = fold(y.drug_class or "").strip()
            how = None
            if len(base) >= 5 and re.search(r"(?<!\w)" + re.escape(base[: max(5, len(base) - 1)]), plain):
                how = "name"
            elif cls and len(cls.split()) >= 2 and re.search(r"(?<!\w)" + re.escape(cls) + r"(?!\w)", plain):
                how = "class"
            if not how:
                continue
            said = [("", yname)]
            if how == "name":
                said.append(("-folded", fold(yname)))
                if len(base) >= 8:  # one letter left out of a long name
                    said.append(("-typo", yname[:4] + yname[5:]))
            for tag, name in said:
                cases.append({"id": f"int-{x.drug_id}-{y.drug_id}{tag}", "category": how + tag,
                              "turns": [f"{_name(x)} dùng chung {name} được không?"],
                              "expect": {"section_keys": ["tuong_tac_thuoc"]}, "item": y.drug_class or ""})
            if how != "name":
                continue
            for tag, wording in WORDINGS:
                cases.append({"id": f"int-{x.drug_id}-{y.drug_id}-w-{tag}", "category": f"w-{tag}",
                              "turns": [wording.format(x=_name(x), y=yname.lower())],
                              "expect": {"section_keys": ["tuong_tac_thuoc"]},
                              "item": y.drug_class or ""})
    return cases


def run(index: Path, cases: list[dict], out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    path = out / "cases.jsonl"
    path.write_text("".join(json.dumps({k: v for k, v in c.items() if k != "item"}, ensure_ascii=False) + "\n"
                            for c in cases), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "duocthu_desktop.cli_eval", "--index", str(index), str(path)],
                          capture_output=True, text=True, check=True)
    (out / "report.json").write_text(done.stdout, encoding="utf-8")
    return {c["id"]: c for c in json.loads(done.stdout)["cases"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("probe", choices=["ci", "int"])
    ap.add_argument("index", type=Path)
    ap.add_argument("--out", type=Path, default=Path("/tmp/ci_probe"))
    ap.add_argument("--show", action="store_true")
    args = ap.parse_args(argv)
    cases = ci_cases(args.index) if args.probe == "ci" else int_cases(args.index)
    results = run(args.index, cases, args.out / args.probe)
    counts: dict[str, list[int]] = {}
    for case in cases:
        r = results[case["id"]]
        ok = r["passed"]
        c = counts.setdefault(case["category"], [0, 0])
        c[0] += ok
        c[1] += 1
        if args.show and not ok:
            print(f"MISS {case['id']}: {case['turns'][0]} [{case['item']}] :: {' | '.join(r['failures'])[:200]}"
                  "")
    for cat, (ok, n) in sorted(counts.items()):
        print(f"{args.probe} {cat:8} {ok}/{n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
