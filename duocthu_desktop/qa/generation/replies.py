"""Reading the model's JSON replies: anything that is not the asked shape is malformed, never guessed at."""

from __future__ import annotations

import json

from duocthu_desktop.qa.generation.checks import WrittenClaim


class Malformed(ValueError):
    """The reply is not the JSON shape the schema asked for."""


def _object(text: str) -> dict:
    try:
        value = json.loads(text)
    except ValueError as err:
        raise Malformed(f"not JSON ({err.msg} at {err.pos})") from err
    if not isinstance(value, dict):
        raise Malformed("not a JSON object")
    return value


def claims(text: str) -> list[WrittenClaim]:
    value = _object(text).get("claims")
    if not isinstance(value, list) or not value:
        raise Malformed("no 'claims' array")
    out = []
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str) or not item["text"].strip():
            raise Malformed("a claim without text")
        cites = item.get("citations")
        if not isinstance(cites, list) or not all(isinstance(n, int) and not isinstance(n, bool) for n in cites):
            raise Malformed("a claim whose citations are not a list of block numbers")
        out.append(WrittenClaim(text=item["text"].strip(), citations=list(dict.fromkeys(cites))))
    return out


def verdicts(text: str, n_claims: int) -> tuple[dict[int, tuple[bool, str]], list[str]]:
    """claim number (1-based) -> (supported, why), and the 'missing' quotes; every claim must have a verdict."""
    value = _object(text)
    raw, missing = value.get("verdicts"), value.get("missing", [])
    if not isinstance(raw, list) or not isinstance(missing, list):
        raise Malformed("no 'verdicts' or 'missing' array")
    found: dict[int, tuple[bool, str]] = {}
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("claim"), int) or not isinstance(
                item.get("supported"), bool):
            raise Malformed("a verdict without claim number or supported flag")
        found[item["claim"]] = (item["supported"], str(item.get("why", ""))[:200])
    if set(found) != set(range(1, n_claims + 1)):
        raise Malformed(f"verdicts for claims {sorted(found)}, expected 1..{n_claims}")
    return found, [m for m in missing if isinstance(m, str) and m.strip()]


def proposal(text: str) -> dict:
    value = _object(text)
    ids, key, kind = value.get("drug_ids"), value.get("section_key"), value.get("turn_type")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise Malformed("drug_ids is not a list of strings")
    if key is not None and not isinstance(key, str) or not isinstance(kind, str):
        raise Malformed("section_key or turn_type of the wrong type")
    return {"drug_ids": ids, "section_key": key, "turn_type": kind}
