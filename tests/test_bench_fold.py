"""`text.fold` was made faster for the full-size book (bench/, issue 11): it must fold exactly as before."""

from __future__ import annotations

import random
import sys
import unicodedata

from duocthu_desktop.text import fold


def _reference(text: str) -> str:
    """fold as it was written first: one category lookup per character."""
    text = text.replace("đ", "d").replace("Đ", "D")
    decomposed = unicodedata.normalize("NFD", text)
    stripped = "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")
    return unicodedata.normalize("NFC", stripped).lower()


def test_every_character_folds_as_before():
    chars = [chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF]
    assert [fold(c) for c in chars] == [_reference(c) for c in chars]


def test_vietnamese_text_and_mixed_strings_fold_as_before():
    book = ("Liều lượng và cách dùng: Trẻ em 4 - 6 tuổi: 240 mg. ĐƯỜNG UỐNG; thuốc chống toan, suy thận, "
            "phụ nữ có thai; Clcr 10 - 50 ml/phút; hoá/hóa, thuỷ/thủy; ﬁ ﬂ ǅ İ ß ẞ Ω K Å x\u0301\u0323 \u1e9b\u0323")
    assert fold(book) == _reference(book)
    assert fold("lieu metformin nguoi lon") == "lieu metformin nguoi lon"
    assert fold("ĐẶC ĐIỂM") == "dac diem"
    rng = random.Random(11)
    alphabet = book + "".join(chr(c) for c in range(0x300, 0x370)) + "\u0110\u0111\u00c5\u212b"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        assert fold(text) == _reference(text), repr(text)
