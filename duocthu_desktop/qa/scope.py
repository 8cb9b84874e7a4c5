"""The scope guard: animals, plainly non-medical questions, greetings, and attempts to override the rules.

An animal question is out of scope before anything else (it must never look recoverable by a clarifying
question). An injection attempt is only noted: the evidence used is always the book's, never the person's.
"""

from __future__ import annotations

import re

from duocthu_desktop.qa.textmatch import Text, any_of, find

# Animals. Words whose folded form is an ordinary word ("chó" -> "cho", "bò" -> "bo", "lợn" -> "lon") are only
# matched with diacritics, or folded as "con chó"-style phrases.
NON_HUMAN_PHRASES: tuple[str, ...] = (
    "thú y", "thú cưng", "vật nuôi", "gia súc", "gia cầm", "động vật", "chó", "mèo", "cún", "heo", "lợn",
    "gà", "vịt", "bò", "bê", "trâu", "ngựa", "dê", "cừu", "thỏ", "chuột lang", "chim", "cá cảnh",
    "con chó", "con mèo", "con heo", "con lợn", "con gà", "con bò", "con ngựa", "con trâu", "con dê", "con cừu",
    "chó con", "mèo con", "dog", "puppy", "kitten", "veterinary",
)
_NON_HUMAN_FOLDED_ONLY_IF_ACCENTED = frozenset({"chó", "bò", "lợn", "gà", "bê", "ngựa", "dê", "cừu", "cún", "chim", "thỏ", "vịt", "mèo"})

NON_MEDICAL_PHRASES: tuple[str, ...] = (
    "thời tiết", "dự báo", "nhiệt độ ngoài trời", "mưa", "bóng đá", "thể thao", "trận đấu", "world cup",
    "giá vàng", "chứng khoán", "tỷ giá", "tỉ giá", "xổ số", "nấu ăn", "công thức nấu", "món ăn", "du lịch",
    "khách sạn", "vé máy bay", "phim", "bài hát", "ca sĩ", "lập trình", "python", "javascript", "bitcoin",
    "chính trị", "bầu cử", "tin tức", "thủ đô", "dịch tiếng anh", "làm thơ", "viết thơ", "kể chuyện", "truyện cười",
    "weather", "football", "recipe",
    # cosmetics, law, cooking: asked with no drug named, never the formulary's subject
    "mỹ phẩm", "kem dưỡng", "dưỡng da", "trắng da", "làm đẹp", "trang điểm", "son môi", "nước hoa",
    "ly hôn", "pháp luật", "luật sư", "hợp đồng", "thừa kế", "kiện tụng", "li dị",
    "cách nấu", "nấu ăn", "nấu món", "công thức món",
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
# A user-supplied evidence block runs from its marker to the end of its first sentence.
_SUPPLIED_EVIDENCE = re.compile(
    r"(?:bằng chứng|bang chung|evidence|nguồn|nguon|trích dẫn|trich dan)\s*:\s*.*?(?:\.(?=\s|$)|$)",
    re.IGNORECASE | re.DOTALL,
)
_OVERRIDE_SENTENCE = re.compile(
    r"(?:bỏ qua|bo qua|quên|quen|ignore|disregard)\s+(?:mọi|moi|các|cac|tất cả|tat ca|all|previous|the)?[^.!?]*[.!?]?",
    re.IGNORECASE,
)


# Typed without diacritics, "cho mèo" / "cho chó" are still unmistakable after "cho" (for).
_NON_HUMAN_FOLDED = re.compile(r"\bcho (?:meo|cho|cun|heo)\b|\b(?:meo|cho) nha (?:toi|minh|em)\b")


def is_non_human(text: Text) -> bool:
    if not text.accented and _NON_HUMAN_FOLDED.search(text.folded):
        return True
    for phrase in NON_HUMAN_PHRASES:
        ambiguous = any(word in _NON_HUMAN_FOLDED_ONLY_IF_ACCENTED for word in phrase.split())
        if ambiguous and not text.accented and not phrase.startswith("con "):
            continue  # "chó con" folds to "cho con" ("cho con bú"); only "con chó" is safe unaccented
        if find(text, phrase, strict=True):
            return True
    return False


def is_non_medical(text: Text) -> bool:
    return any_of(text, NON_MEDICAL_PHRASES)


def is_smalltalk(text: Text) -> bool:
    """A greeting or thanks with little else in it (a long question that starts with 'chào' is not smalltalk)."""
    return any_of(text, SMALLTALK_PHRASES) and len(text.norm.split()) <= 8


def is_injection_attempt(text: Text) -> bool:
    return any_of(text, INJECTION_PHRASES) or bool(re.search(r"\[\d+\]", text.norm))


def strip_injection(raw: str) -> str:
    """The question without user-supplied 'evidence' and 'ignore the rules' sentences, for understanding only."""
    cleaned = _SUPPLIED_EVIDENCE.sub(" ", raw)
    cleaned = _OVERRIDE_SENTENCE.sub(" ", cleaned)
    return re.sub(r"\s+", " ", cleaned).strip()
