"""A probe of the questions that are not about a dose: for every monograph of an index and every non-dose section
it prints, three questions asked the way a ward asks them, and whether the answer cites that section.

    python -m bench.nondose_probe --index DIR [--part tuning] [--json OUT] [--show N]

The templates name no drug and use as few of the heading's own words as a ward would ("để ở nhiệt độ nào?", not
"bảo quản thế nào?"); the drug's name is the monograph's title. A question is right when the turn answers,
cites a sentence of the section that answers it, and cites neither the contraindication list nor the dosage
section unless that is the section asked (the pregnancy and breast-feeding questions may also show the
contraindications first: what the book says against this patient). Recall is printed by section kind.

`--part tuning` on sample-e keeps to its tuning monographs (tests/heldout/sample_e_split.json): the held-out
ones are never asked.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from duocthu_desktop.artifacts import CHUNKS_FILE, MONOGRAPHS_FILE, read_chunks, read_monographs

ROOT = Path(__file__).resolve().parents[1]
SPLIT = ROOT / "tests" / "heldout" / "sample_e_split.json"
DOSAGE = "lieu_luong_cach_dung"
CONTRA = "chong_chi_dinh"

# section kind -> (the section key that answers it, three ward questions)
TEMPLATES: dict[str, tuple[str, tuple[str, ...]]] = {
    "bao_quan": ("do_on_dinh_bao_quan", (
        "{a} để ở nhiệt độ nào?",
        "{a} cất giữ thế nào cho khỏi hỏng?",
        "{a} có cần tránh ánh sáng hay để tủ lạnh không?",
    )),
    "qua_lieu": ("qua_lieu_xu_tri", (
        "Lỡ uống nhiều {a} quá thì xử trí sao?",
        "Ngộ độc {a} có biểu hiện gì?",
        "Bệnh nhân dùng nhầm liều rất cao {a} thì cấp cứu thế nào?",
    )),
    "tuong_ky": ("tuong_ky", (
        "{a} trộn chung bơm tiêm với thuốc khác được không?",
        "{a} có pha vào dịch truyền cùng thuốc khác được không?",
        "Có thuốc nào không được pha lẫn với {a}?",
    )),
    "cach_dung": (DOSAGE, (
        "Hướng dẫn bệnh nhân dùng {a} thế nào cho đúng?",
        "{a} dùng lúc nào, trước hay sau bữa ăn?",
        "Đưa {a} vào cơ thể bằng cách nào?",
    )),
    "mang_thai": ("thoi_ky_mang_thai", (
        "{a} có dùng được cho bà bầu không?",
        "Đang có bầu dùng {a} có hại cho thai không?",
        "{a} có gây dị tật thai nhi không?",
    )),
    "cho_con_bu": ("thoi_ky_cho_con_bu", (
        "{a} có qua sữa mẹ không?",
        "Mẹ đang cho bé bú dùng {a} được không?",
        "Đang nuôi con bằng sữa mẹ có dùng {a} được không?",
    )),
    "adr": ("tac_dung_khong_mong_muon", (
        "Dùng {a} hay gặp phản ứng gì?",
        "{a} có gây hại gì cho người dùng không?",
        "Những biểu hiện bất lợi thường gặp khi dùng {a}?",
    )),
    "than_trong": ("than_trong", (
        "Dùng {a} cần theo dõi gì?",
        "Khi dùng {a} phải để ý những gì?",
        "Những ai cần cẩn trọng khi dùng {a}?",
    )),
    "tuong_tac": ("tuong_tac_thuoc", (
        "{a} uống chung với thuốc khác có sao không?",
        "Những thuốc nào làm thay đổi tác dụng của {a}?",
        "Đang dùng {a} thì tránh dùng thêm thuốc gì?",
    )),
    "duoc_dong_hoc": ("duoc_ly_co_che", (
        "{a} đào thải qua đâu?",
        "{a} được chuyển hóa ở đâu?",
        "Thời gian bán thải của {a} là bao lâu?",
    )),
}
# Kinds where what the book says against the patient (the contraindications) may come first.
PATIENT_KINDS = frozenset({"mang_thai", "cho_con_bu"})
_HOW_TO_LABEL = ("cách dùng",)
_PK_WORDS = ("dược động học", "thải trừ", "nửa đời", "chuyển hóa", "chuyển hoá")


def _name(title: str) -> str:
    return title.split(" (")[0].strip().lower()


def _kinds_printed(chunks) -> set[str]:
    """The kinds of section this monograph prints (prose with a page to cite)."""
    by_key = defaultdict(str)
    for c in chunks:
        if c.kind == "prose" and not c.quarantined and c.printed_pages:
            by_key[c.section_key] += "\n" + c.text
    kinds = set()
    for kind, (key, _) in TEMPLATES.items():
        text = by_key.get(key, "").lower()
        if len(text.strip()) < 20:
            continue
        if kind == "cach_dung" and not any(w in text for w in _HOW_TO_LABEL):
            continue  # the how-to-take part is asked only where the dosage section prints one
        if kind == "duoc_dong_hoc" and not any(w in text for w in _PK_WORDS):
            continue
        kinds.add(kind)
    return kinds


def cases(index: Path, part: str | None, templates: set[int] | None = None) -> list[dict]:
    monographs = read_monographs(index / MONOGRAPHS_FILE)
    allowed = None
    if part is not None:
        split = json.loads(SPLIT.read_text(encoding="utf-8"))
        allowed = set(split[part])
    chunks = defaultdict(list)
    for c in read_chunks(index / CHUNKS_FILE):
        chunks[c.drug_id].append(c)
    out = []
    for m in monographs:
        if allowed is not None and m.drug_id not in allowed:
            continue
        for kind in sorted(_kinds_printed(chunks[m.drug_id])):
            key, phrasings = TEMPLATES[kind]
            for n, template in enumerate(phrasings):
                if templates is not None and n not in templates:
                    continue
                out.append({"id": f"{m.drug_id}:{kind}:{n}", "drug_id": m.drug_id, "kind": kind, "key": key,
                            "question": template.format(a=_name(m.title))})
    return out


def judge(case: dict, payload) -> str:
    """'ok', or what was wrong: abstain/clarify, wrong section, contraindications or dose shown unasked."""
    if payload.decision != "answerable":
        return f"decision:{payload.decision}:{payload.reason}"
    keys = [c.section_key for c in payload.citations]
    if case["key"] not in keys:
        return "section:" + ",".join(dict.fromkeys(keys))
    if case["kind"] not in PATIENT_KINDS and CONTRA in keys and case["key"] != CONTRA:
        return "contraindications"
    if case["key"] != DOSAGE and DOSAGE in keys and case["kind"] != "qua_lieu":
        return "dose"
    return "ok"


def run(index: Path, part: str | None, templates: set[int] | None = None) -> dict:
    from duocthu_desktop.cli_eval import keep_out_of_history
    from duocthu_desktop.qa.pipeline import Assistant
    from duocthu_desktop.settings import Settings

    assistant = Assistant.open(Settings.load(index=str(index), model=None, engine="extractive"),
                               engine_name="extractive")
    assistant.warm_up()
    results = []
    with tempfile.TemporaryDirectory(prefix="duocthu-probe-") as scratch:
        keep_out_of_history(assistant, Path(scratch))
        for n, case in enumerate(cases(index, part, templates)):
            payload = assistant.ask(case["question"], conversation_id=f"probe-{n}")
            results.append(case | {"outcome": judge(case, payload),
                                   "cited": [c.section_key for c in payload.citations][:4]})
    by_kind: dict[str, dict[str, int]] = {}
    for r in results:
        counts = by_kind.setdefault(r["kind"], {"asked": 0, "right": 0})
        counts["asked"] += 1
        counts["right"] += int(r["outcome"] == "ok")
    right = sum(c["right"] for c in by_kind.values())
    return {"index": str(index), "part": part, "asked": len(results), "right": right,
            "by_kind": dict(sorted(by_kind.items())), "results": results}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.nondose_probe")
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--part", choices=("tuning",), default=None, help="sample-e: its tuning monographs only")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--templates", default=None,
                        help="comma-separated template numbers (0-2) to ask, all by default (a quicker pass)")
    parser.add_argument("--show", type=int, default=0, help="print this many wrong answers")
    args = parser.parse_args(argv)
    chosen = {int(n) for n in args.templates.split(",")} if args.templates else None
    report = run(args.index, args.part, chosen)
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{args.index}: {report['right']}/{report['asked']} right")
    for kind, c in report["by_kind"].items():
        print(f"  {kind:14} {c['right']:3}/{c['asked']:3}  {c['right'] / c['asked']:.2f}")
    wrong = [r for r in report["results"] if r["outcome"] != "ok"]
    for r in wrong[: args.show]:
        print(f"  x {r['id']}: {r['question']} -> {r['outcome']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
