"""Dose questions that pass in one turn, asked again in two and three turns: does the same answer come out?

    python -m bench.followup_probe INDEX FILE.jsonl [FILE.jsonl ...] [--show N]

For each one-turn case expecting a dose answer that passes as written, the question's own frame gives its parts:
the drug as the person named it, the patient (group, age, weight), and the route and the condition. The case is
asked as "Liều <drug>?" then the rest of the question (two turns), as "Liều <drug>?", the patient, then the rest
(three turns), and as "Liều <drug>?", the patient, then only the route and the condition the frame read (bare). A split is the same when its last turn shows the same claims as the one-turn answer,
passes when the case's own expectations hold on it, and fails otherwise. Only the cases' figures are printed,
with the first failures' ids.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import uuid
from collections import Counter
from pathlib import Path

from duocthu_desktop.cli_eval import TurnCheck, check_expect, claims_text
from duocthu_desktop.dosage.titles import POPULATION_NAMES
from duocthu_desktop.dosage.words import FRAME_ROUTE_NAMES
from duocthu_desktop.qa.pipeline import Assistant
from duocthu_desktop.qa.understanding.lexicon import SALT_WORDS
from duocthu_desktop.qa.understanding.question import understand
from duocthu_desktop.qa.understanding.section_asked import sentence_ask
from duocthu_desktop.settings import Settings
from duocthu_desktop.text import fold

DOSING = "lieu_luong_cach_dung"


def splits(question: str, frame) -> dict[str, list[str]]:
    """The two- and three-turn forms of a question, from its frame; {} when its parts cannot be told apart."""
    if len(frame.drug_ids) != 1:
        return {}
    said = frame.drug_mentions.get(frame.drug_ids[0])
    if not said or said not in question or frame.turn_type != "dosing" or sentence_ask(frame) is not None:
        return {}  # a question of how to give it ("uống lúc nào?") is no dose question to split
    after = question.split(said, 1)[1]
    if re.match(r"[-\w]", after) or re.match(r"\s+(?:" + "|".join(SALT_WORDS) + r")(?!\w)", fold(after).lower()):
        return {}  # "Timolol maleat", "ticarcilin-clavulanat": the name goes on past what the catalog read
    first = f"Liều {said}?"
    # "Liều <drug> cho ...": the rest after the drug; "Liều khởi đầu <drug> ...": the words about the dose stay
    lead = r"(?i)^\s*(?:cho (?:tôi|em) hỏi\s+)?liều(?: dùng| lượng)?\s*" + re.escape(said)
    rest = re.sub(lead, " ", question) if re.match(lead, question) else question.replace(said, " ")
    rest = " ".join(rest.split()).strip(" ,?") + "?"
    patient: list[str] = []
    if frame.age_text:
        patient.append(frame.age_text if re.match(r"(?i)(?:bé|trẻ|người|cháu)", frame.age_text)
                       else f"bệnh nhân {frame.age_text}")
    elif frame.population:
        patient.append(POPULATION_NAMES.get(frame.population, frame.population).lower())
    if frame.weight_text:
        patient.append(f"nặng {frame.weight_text}")
    # the third turn: the rest of the question without the patient's words (route, indication, organ, ...)
    case = rest
    for words in (frame.age_text, frame.weight_text, *patient):
        if words:
            case = re.sub(r"(?i)(?:nặng\s+|cân nặng\s+)?" + re.escape(words), " ", case)
    case = re.sub(r"(?i)^\s*(?:cho|ở)\s+", "", " ".join(case.split())).strip(" ,?")
    out = {"two": [first, rest]}
    if patient and re.search(r"\w{2}", case):
        out["three"] = [first, ", ".join(patient), case + "?"]
    # the third turn as a ward says it bare: only the route and the condition the question's frame read
    said = [FRAME_ROUTE_NAMES.get(frame.route, frame.route).lower()] if frame.route else []
    said += [frame.condition] if frame.condition else []
    if patient and said:
        out["bare"] = [first, ", ".join(patient), ", ".join(said)]
    return out


def ask_all(assistant: Assistant, turns: list[str]):
    cid = f"probe-{uuid.uuid4().hex[:8]}"
    payload = None
    for turn in turns:
        payload = assistant.ask(turn, conversation_id=cid)
    return payload


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("index", type=Path)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--show", type=int, default=30)
    args = parser.parse_args(argv)
    assistant = Assistant.open(Settings(index_dir=str(args.index), data_dir=tempfile.mkdtemp()),
                               engine_name="extractive")
    figures: Counter = Counter()
    shown = 0
    for path in args.files:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            case = json.loads(line)
            expect = case.get("expect", {})
            if len(case.get("turns", [])) != 1 or expect.get("decision") != "answerable" or \
                    DOSING not in expect.get("section_keys", []):
                continue
            question = case["turns"][0]
            one = ask_all(assistant, [question])
            check = TurnCheck()
            check_expect(one, expect, check, "one")
            if check.failures:
                figures["one_turn_fails"] += 1
                continue
            figures["one_turn_passes"] += 1
            forms = splits(question, understand(question, assistant.catalog))
            if not forms:
                figures["not_split"] += 1
            for name, turns in forms.items():
                last = ask_all(assistant, turns)
                check = TurnCheck()
                check_expect(last, expect, check, name)
                same = claims_text(last) == claims_text(one) and last.decision == one.decision
                verdict = "same" if same else "passes" if not check.failures else "fails"
                figures[(name, verdict)] += 1
                if verdict == "fails" and shown < args.show:
                    shown += 1
                    print(f"  {name:5} {case['id']}: {turns} -> {last.decision} {last.reason} "
                          f"{check.failures[:2]}")
    print(f"one turn: passes {figures['one_turn_passes']}, fails {figures['one_turn_fails']}, "
          f"not split {figures['not_split']}")
    for name in ("two", "three", "bare"):
        print(f"{name:5} turns: same {figures[(name, 'same')]}, passes {figures[(name, 'passes')]}, "
              f"fails {figures[(name, 'fails')]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
