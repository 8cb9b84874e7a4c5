"""The CONTRACT's section keys and the headings the book prints for them.

Headings are matched on folded text so spelling variants, other wordings and OCR slips ("Chỉ đinh",
"qui chế"/"quy chế", "Liều lượng, cách dùng", "Quá liều và xử lý") land on the same key. The order of
SECTIONS is the book's usual order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from duocthu_desktop.text import fold, squash_spaces


@dataclass(frozen=True)
class SectionDef:
    key: str
    heading: str  # the heading as the book normally prints it
    patterns: tuple[str, ...]  # folded regexes matched at the start of a line


SECTIONS: tuple[SectionDef, ...] = (
    SectionDef("thong_tin_chung", "Thông tin chung", ()),
    SectionDef("dang_thuoc_ham_luong", "Dạng thuốc và hàm lượng", (r"dang thuoc (va|v a) ham luong",)),
    SectionDef("duoc_ly_co_che", "Dược lý và cơ chế tác dụng", (r"duoc ly (va|v a) co che tac dung",)),
    SectionDef("chi_dinh", "Chỉ định", (r"chi (dinh|đinh)(?! \w)",)),
    SectionDef("chong_chi_dinh", "Chống chỉ định", (r"chong chi dinh",)),
    SectionDef("than_trong", "Thận trọng", (r"than trong",)),
    SectionDef("thoi_ky_mang_thai", "Thời kỳ mang thai", (r"thoi k[yi] mang thai",)),
    SectionDef("thoi_ky_cho_con_bu", "Thời kỳ cho con bú", (r"thoi k[yi] cho con bu",)),
    SectionDef(
        "tac_dung_khong_mong_muon",
        "Tác dụng không mong muốn (ADR)",
        (r"tac dung khong mong muon( \(adr\))?",),
    ),
    SectionDef("xu_tri_adr", "Hướng dẫn cách xử trí ADR", (r"huong dan cach xu tri (adr|tac dung khong mong muon)",)),
    SectionDef("lieu_luong_cach_dung", "Liều lượng và cách dùng", (r"lieu luong(,? (va|v a)|,) cach dung",)),
    SectionDef("tuong_tac_thuoc", "Tương tác thuốc", (r"tuong tac thuoc",)),
    SectionDef("tuong_ky", "Tương kỵ", (r"tuong k[yi](?! \w)",)),
    SectionDef("do_on_dinh_bao_quan", "Độ ổn định và bảo quản", (r"do on dinh (va|v a) bao quan", r"bao quan(?! \w)")),
    SectionDef("qua_lieu_xu_tri", "Quá liều và xử trí", (r"qua lieu(,? (va|v a)|,) xu (tri|ly)",)),
    SectionDef("thong_tin_qui_che", "Thông tin qui chế", (r"thong tin (qui|quy) che",)),
    SectionDef("ten_thuong_mai", "Tên thương mại", (r"ten thuong mai",)),
)

SECTION_KEYS: tuple[str, ...] = tuple(s.key for s in SECTIONS)
SECTION_BY_KEY: dict[str, SectionDef] = {s.key: s for s in SECTIONS}

_COMPILED = [(s, [re.compile(r"^" + p) for p in s.patterns]) for s in SECTIONS]


def match_heading(line: str) -> tuple[str, str, str] | None:
    """If `line` starts with a section heading, return (key, heading as printed, rest of the line).

    The rest is non-empty where a heading and its first sub-heading or sentence share one printed line.
    """
    raw = squash_spaces(line)
    folded = fold(raw)
    for sdef, regexes in _COMPILED:
        for rx in regexes:
            m = rx.match(folded)
            if m:
                end = m.end()
                # folding keeps length for Vietnamese text (one base letter per composed character)
                heading, rest = raw[:end].strip(), raw[end:].strip(" :.")
                return sdef.key, heading, rest
    return None


def heading_label(key: str) -> str:
    """The Vietnamese heading for a key, for titles a person reads."""
    return SECTION_BY_KEY[key].heading
