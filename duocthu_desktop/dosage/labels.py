"""The label rules as data: what a label the book prints before ":" is, and what it sets.

Each rule is a pattern on the folded label (diacritics dropped, lower case) and/or a condition on what the label's
words state (a group, a route, a renal band ...), the kind of label it makes and a line saying what it sets.
`classify` in parser.py takes the first rule that holds; `python -m duocthu_desktop.dosage.labels` prints the table.

Kinds: `generic` starts the section over; `route`, `group`, `indication` are headings of one dimension;
`qualifier` qualifies the indication above it (an alternative, a phase, a severity, an INR band) and sets nothing;
`kind` names a dose kind ("Liều tối đa:"); `note` is a remark or how-to heading that sets nothing; `glossary`
explains an abbreviation ("FFP: fresh frozen plasma") and is neither a heading nor a row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from duocthu_desktop.text import fold


@dataclass(frozen=True)
class LabelRule:
    name: str
    kind: str
    pattern: str | None  # a regex searched on the folded label; None: any label
    when: str = ""  # a condition on the fields the label's words state (see CONDITIONS)
    sets: str = ""  # what the label sets, for a person reading the table
    printed: bool = False  # the pattern is searched on the label as printed (capitals kept), not folded

    def holds(self, words: str, folded: str, stated: dict[str, bool]) -> bool:
        if self.when and not all(stated[c] for c in self.when.split("+")):
            return False
        return self.pattern is None or re.search(self.pattern, words if self.printed else folded) is not None


# Conditions a rule may name in `when`, over what the label's own words state (parser.read_fields).
CONDITIONS = {
    "renal": "names a renal band or impaired kidneys (Clcr, suy thận, thẩm phân)",
    "organ": "names a renal band or impaired liver",
    "group": "names a group, an age or a weight",
    "route": "names a route",
    "no_group": "names no group, age or weight",
    "no_route": "names no route",
}

SEVERITY = r"^(?:(?:benh|the|muc do) )?(?:(?:tu )?nhe|vua|nang|trung binh|tram trong)\b"
PHASE = r"^(?:(?:trong|o) )?giai doan\b"
# a phase named by the procedure it falls in ("Trong lúc đang gây mê:", "Sau cuộc phẫu thuật:")
PROCEDURE_PHASE = (r"^(?:trong (?:luc|khi|qua trinh)|truoc|sau)(?: (?:khi|luc|cuoc|ca|dang|hoi tinh|sau|va))*"
                   r" (?:gay me|gay te|phau thuat|mo|thu thuat)\b")

# A label that opens on what is treated (general clinical words: a disease, a purpose), not on a way of giving
DISEASE_FIRST = (r"^(?:benh|viem|nhiem|dieu tri|du phong|phong ngua|loet|ung thu|hen|co giat|ia chay|tieu chay"
                 r"|nhoi mau|roi loan|lau|giang mai|thieu mau|huyet khoi|tac)\b")

RULES: tuple[LabelRule, ...] = (
    LabelRule("generic", "generic", r"^(?:cach dung|lieu dung|lieu luong|lieu luong va cach dung"
              r"|cach dung va lieu luong|lieu dung va cach dung|cach dung - lieu luong|lieu thuong dung)$",
              sets="starts the section over"),
    LabelRule("glossary", "glossary", r"^(?!INR\b)[A-Z][A-Z0-9]{1,7}$", when="no_group", printed=True,
              sets="nothing: an abbreviation in capitals explained (not a heading, not a row)"),
    LabelRule("other_routes", "route", r"^(?:cac )?(?:duong dung|cach dung) khac$",
              sets="route heading naming none: its route labels are siblings"),
    LabelRule("renal_disease", "indication", r"\bsuy than (?:cap|man)\b", when="renal",
              sets="indication (the kidney disease treated, not an impaired organ's band)"),
    LabelRule("organ_band", "group", None, when="organ", sets="renal band / hepatic, replaces the group"),
    LabelRule("alternative", "qualifier", r"^(?:cach khac|(?:mot )?(?:phac do|cach dung|lieu) khac|hoac|hay"
              r"|thay the|lua chon khac|cach 2|phac do \d|phac do [a-z]$)", when="no_group+no_route",
              sets="nothing: an alternative regimen of the indication above"),
    LabelRule("alternative_group", "group", r"^(?:cach khac|(?:mot )?(?:phac do|cach dung|lieu) khac|mot cach khac)\b",
              when="group", sets="group only: an alternative regimen for a group (\"Một cách khác, liều ... cho trẻ em là\")"),
    LabelRule("phase", "qualifier", r"^(?:ban dau|khoi dau|luc dau|tan cong|duy tri|tiep theo|sau do|cung co"
              r"|dot (?:dau|tiep)|ngay (?:dau|thu)|tuan (?:dau|thu))\b|" + PHASE,
              when="no_group+no_route", sets="nothing: a phase of the regimen above"),
    LabelRule("procedure_phase", "qualifier", PROCEDURE_PHASE, when="no_group+no_route",
              sets="nothing: a phase of a procedure within the indication above"),
    LabelRule("inr_band", "qualifier", r"^inr\b", sets="nothing: an INR band of the regimen above"),
    LabelRule("severity", "qualifier", SEVERITY, when="no_group+no_route",
              sets="nothing: a severity within the indication above"),
    LabelRule("response", "qualifier", r"^(?:(?:khi|neu) )?(?:(?:khong|thieu|chua) )?dap ung\b", when="no_group+no_route",
              sets="nothing: the response to the regimen above (\"Đáp ứng không thỏa đáng hoặc thiếu đáp ứng\")"),
    LabelRule("number", "note", r"^[\d\s,.:/]*\d[\d\s,.:/]*(?:(?:hoac|va|den|-) [\d\s,.:/]+)?$|\s\d+$",
              when="no_group+no_route",
              sets="nothing: words up to a number that a ':' follows (a ratio \"15 : 1\"), not a label"),
    LabelRule("note", "note", r"^(?:ghi chu|chu y|luu y|khuyen cao|nha san xuat|trong do$|vi du|thi du|thong so|bang\b|pha\b|cach pha"
              r"|thoi gian|toc do|nong do|phac do|lieu phap|dung lieu|dung lieu phap|che do|theo doi|tan suat"
              r"|kiem tra|xet nghiem|dinh luong|cach (?:chuyen|thay|doi|ngung))"
              r"|(?:nhu sau|bang sau|lieu sau|sau day|duoi day|nghia la|\bnhu)$|^trong (?:\w+ ){0,3}truong hop\b",
              sets="nothing: a remark or a how-to heading"),
    # "liều" (a dose) and "liệu" ("liệu pháp", "hóa trị liệu") fold to one word: dose words are read as printed
    LabelRule("dose_kind", "kind", r"(?i)^liều |\btối đa\b", printed=True, sets="the dose kind of its statement"),
    LabelRule("howto_group", "group", r"^(?:huong dan|(?:dieu|hieu) chinh lieu|cach (?:dieu chinh|dung))\b",
              when="group", sets="group only: how to dose a group (\"Hướng dẫn điều chỉnh liều cho trẻ em ...\")"),
    LabelRule("purpose", "indication", r"^de (?!pha\b|hoa tan\b|pha loang\b|tranh\b|han che\b|thay the\b)\w+", when="no_group",
              sets="indication: what the doses below are for (\"Để giảm đau, dùng dạng tiêm hoặc uống\"), and routes"),
    LabelRule("condition_group", "group", r"^(?:neu|khi|trong truong hop)\b", when="group",
              sets="group only: a case of the indication above for a group (\"Nếu nhiễm lan tỏa ở người lớn, thiếu niên\")"),
    LabelRule("group_and_route", "group", None, when="group+route", sets="group, age/weight band and route"),
    LabelRule("group", "group", None, when="group",
              sets="group and its age/weight band (an indication when other words remain)"),
    LabelRule("disease_route", "indication", DISEASE_FIRST, when="route+no_group",
              sets="indication and route: a disease or a purpose that names its route (\"Bệnh X (tiêm tĩnh mạch)\")"),
    LabelRule("route", "route", None, when="route", sets="route"),
    LabelRule("condition", "note", r"^(?:neu|o|khi|hoac)\b|^(?:trong|tu|sau) (?:\w+ ){0,2}(?:ngay|tuan|gio|thang)\b"
              r"|^(?:vien|dang|che pham|hon dich)\b|^dung tai cho$",
              sets="nothing: a condition or a formulation within the indication above"),
    LabelRule("dose_remark", "note", r"(?i)\bliều\b", printed=True,
              sets="nothing: a remark on the dose within the indication above (\"liều\" as printed, not \"liệu\")"),
    LabelRule("sentence", "note", r"^(?:phai|can|nen|khong (?:nen|duoc|can)|co the|chi nen)\b",
              sets="nothing: a sentence (it opens on a verb of obligation), not an indication"),
    LabelRule("indication", "indication", None, sets="indication (the label's words as printed)"),
)


def stated(*, group: bool, route: bool, renal: bool, hepatic: bool) -> dict[str, bool]:
    return {"renal": renal, "organ": renal or hepatic, "group": group, "route": route, "no_group": not group,
            "no_route": not route}


def first_rule(words: str, folded: str, facts: dict[str, bool]) -> LabelRule:
    return next(r for r in RULES if r.holds(words, folded, facts))


GLOSSARY = next(r for r in RULES if r.name == "glossary")


def is_glossary(words: str) -> bool:
    """"FFP: fresh frozen plasma": an abbreviation in capitals, then what it stands for."""
    head = words.split(":", 1)[0].strip()
    return GLOSSARY.holds(head, head, {"no_group": True})


def match_label(words: str) -> LabelRule | None:
    """The first rule a label's words match by pattern alone (field conditions left out), or None."""
    words = words.strip().rstrip(":")
    folded = fold(words)
    return next((r for r in RULES if r.pattern is not None and r.kind != "glossary"
                 and re.search(r.pattern, words if r.printed else folded)), None)


def table() -> list[str]:
    """The rules, one line each, in the order they are tried."""
    return [f"{r.name:<16} {r.kind:<10} {(r.when or '-'):<12} {(r.pattern or '(any)')[:60]:<60}  {r.sets}"
            for r in RULES]


if __name__ == "__main__":
    print("\n".join(table()))
