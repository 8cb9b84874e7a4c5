"""Scripted language models for the generative path's unit tests (no llama.cpp).

`CopyingModel` plays a well-behaved model: as writer it turns each numbered evidence block into one claim that
copies the block's text and cites it; as judge it supports every claim. A test changes one of its moves
(`edit_claims`, `judge_reply`) to drive one branch.
"""

from __future__ import annotations

import json
import re

from duocthu_desktop.qa.generation import prompts
from duocthu_desktop.qa.generation.llm import Completion

BLOCK = re.compile(r"^\[(\d+)\] \((.*?)\)\n(.*?)(?=\n\n\[\d+\] \(|\n\nTASK |\Z)", re.S | re.M)


def blocks_in(prompt: str) -> list[tuple[int, str, str]]:
    """(number, label, text) of each evidence block in a writer prompt."""
    evidence = prompt.split("Evidence blocks:\n", 1)[-1]
    return [(int(m.group(1)), m.group(2), m.group(3).strip()) for m in BLOCK.finditer(evidence)]


class CopyingModel:
    name = "copying"

    def __init__(self, edit_claims=None, judge_reply=None, writer_replies=None) -> None:
        self.edit_claims = edit_claims  # fn(claims, call_number) -> claims
        self.judge_reply = judge_reply  # fn(claims_prompt, call_number) -> dict | str
        self.writer_replies = list(writer_replies or [])  # raw replies used before copying
        self.calls: list[tuple[str, list[dict]]] = []

    def complete(self, messages, schema, *, max_tokens, deadline, cancel=None) -> Completion:
        system, user = messages[0]["content"], messages[-1]["content"]
        role = "judge" if "TASK JUDGE" in user else "understand" if "TASK READ" in user else "writer"
        assert system == prompts.SYSTEM
        self.calls.append((role, messages))
        n = sum(1 for r, _ in self.calls if r == role)
        if role == "writer":
            if self.writer_replies:
                reply = self.writer_replies.pop(0)
                return Completion(text=reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False))
            claims = [{"text": _named(label, text), "citations": [number]} for number, label, text in blocks_in(user)]
            if self.edit_claims:
                claims = self.edit_claims(claims, n)
            return Completion(text=json.dumps({"claims": claims}, ensure_ascii=False), prompt_tokens=len(user) // 3)
        if role == "judge":
            count = len(re.findall(r"^Claim \d+ ", user, re.M))
            reply = self.judge_reply(user, n) if self.judge_reply else None
            if reply is None:
                reply = {"supported": [True] * count, "missing": []}
            return Completion(text=reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False))
        return Completion(text=json.dumps({"drug_ids": [], "section_key": None, "turn_type": "unknown"}))


def _named(label: str, text: str) -> str:
    """The block's text, led by its drug's name when the text does not say it (as a model writes a list)."""
    drug = label.split(" · ")[0]
    return text if drug.lower() in text.lower() else f"{drug}: {text}"
