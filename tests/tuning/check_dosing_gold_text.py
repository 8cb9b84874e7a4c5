"""Report dosing-gold rows whose `text` is not in the book's .md (markdown */# stripped, whitespace collapsed).
A running head ("… DTQGVN 2 …") may sit between two words of a row: the gold leaves leaked heads out of `text`.
Usage: python tests/tuning/check_dosing_gold_text.py tests/tuning/dosing_gold_tuning_2.jsonl [SOURCE_DIR]"""
import json
import pathlib
import re
import sys


def norm(s):
    return re.sub(r"\s+", " ", s.replace("*", "").replace("#", "")).strip()


def found(text, src, gap=r"(?: | [^.]{0,80}?DTQGVN 2[^.]{0,80}? )"):
    return text in src or re.search(gap.join(map(re.escape, text.split(" "))), src) is not None


if __name__ == "__main__":
    root = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else "/work/shared/corpus/source-e")
    src = {p.stem.replace("-", "_"): norm(p.read_text(encoding="utf-8")) for p in root.glob("*.md")}
    rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
    bad = [(i, r["drug_id"], r["text"]) for i, r in enumerate(rows, 1) if not found(norm(r["text"]), src[r["drug_id"]])]
    print(f"{len(rows)} rows, {len(bad)} not found")
    for b in bad:
        print(*b, sep=" | ")
    sys.exit(1 if bad else 0)
