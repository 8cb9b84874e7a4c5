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


def verdicts(text: str, n_claims: int) -> tuple[list[bool], list[str]]:
    """One supported flag per claim, in order, and the 'missing' quotes; every claim must have its flag."""
    value = _object(text)
    flags, missing = value.get("supported"), value.get("missing", [])
    if not isinstance(flags, list) or not isinstance(missing, list):
        raise Malformed("no 'supported' or 'missing' array")
    if not all(isinstance(f, bool) for f in flags):
        raise Malformed("a verdict that is not true or false")
    if len(flags) != n_claims:
        raise Malformed(f"{len(flags)} verdicts for {n_claims} claims")
    return flags, [m for m in missing if isinstance(m, str) and m.strip()]


def proposal(text: str) -> dict:
    value = _object(text)
    ids, key, kind = value.get("drug_ids"), value.get("section_key"), value.get("turn_type")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise Malformed("drug_ids is not a list of strings")
    if key is not None and not isinstance(key, str) or not isinstance(kind, str):
        raise Malformed("section_key or turn_type of the wrong type")
    return {"drug_ids": ids, "section_key": key, "turn_type": kind}
