"""The window's look in one place: colours by what they mean, and the style sheet that uses them."""

from __future__ import annotations

ACCENT = "#1d5f8a"  # chips, links, the user's questions
POPULATION = "#8a1d3b"  # the group a dose is for: it must stand out
ROUTE = "#1d6b3a"  # the route a dose is given by
ABSTAIN_BG, ABSTAIN_FG = "#f4f4f4", "#5a5a5a"
CLARIFY_BG = "#eef5fb"
VERIFY_BG, VERIFY_BORDER = "#fff6e0", "#d9a400"
HIGHLIGHT = (255, 214, 0, 110)  # the quote on the page (RGBA)
HIGHLIGHT_EDGE = (214, 140, 0, 220)

_RULES = f"""
QFrame#questionBubble {{ background: #e3eef7; border-radius: 8px; }}
QFrame#answerCard {{ background: white; border: 1px solid #d6dbe0; border-radius: 8px; }}
QFrame#answerCard[decision="abstain"] {{ background: {ABSTAIN_BG}; border: 1px dashed #a0a0a0; }}
QFrame#answerCard[decision="clarify"] {{ background: {CLARIFY_BG}; }}
QFrame#verifyNotice {{ background: {VERIFY_BG}; border: 1px solid {VERIFY_BORDER}; border-radius: 6px; }}
QLabel#abstainMessage {{ color: {ABSTAIN_FG}; }}
QLabel#abstainHeading {{ color: {ABSTAIN_FG}; font-weight: bold; }}
QLabel#blockTitle {{ font-weight: bold; }}
QLabel#disclaimer {{ color: #6b6b6b; }}
QPushButton#chip {{ color: {ACCENT}; background: #eaf2f8; border: 1px solid #b9d3e6; border-radius: 9px;
                    padding: 1px 7px; }}
QPushButton#chip:hover {{ background: #d4e6f3; }}
QPushButton#chip[open="true"] {{ background: #fff1b8; border: 1px solid #d68c00; color: #5a3d00; }}
QPushButton#quickReply {{ background: white; border: 1px solid {ACCENT}; border-radius: 10px; padding: 3px 10px;
                          color: {ACCENT}; }}
QPushButton#quickReply:hover {{ background: #eaf2f8; }}
QLabel#folio {{ font-weight: bold; color: {ACCENT}; }}
QLabel#pdfWarning {{ color: #8a5a00; }}
"""


def sheet(point_size: float) -> str:
    """The style sheet for a text size (Ctrl + and Ctrl - change it; widget fonts do not reach styled widgets)."""
    small = max(7.0, point_size - 1)
    return (f"QWidget {{ font-size: {point_size:g}pt; }}\n" + _RULES
            + f"QLabel#disclaimer {{ font-size: {small:g}pt; }}\n")
