"""`duocthu-ask` and `duocthu-eval`, called in-process through `main(argv)`."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from duocthu_desktop import cli_ask, cli_eval
from duocthu_desktop.messages import DISCLAIMER
from duocthu_desktop.payload import AnswerPayload, Block, Citation, Claim
from duocthu_desktop.qa.pipeline import Assistant
from duocthu_desktop.settings import ENV_DATA_DIR, ENV_INDEX, ENV_MODEL


@pytest.fixture()
def opened(monkeypatch, qa_service, catalog, tmp_path: Path) -> list:
    """Assistant.open over the sample book's stand-in service; records the settings each call received."""
    seen: list = []
    monkeypatch.setenv(ENV_DATA_DIR, str(tmp_path / "data"))
    monkeypatch.delenv(ENV_INDEX, raising=False)
    monkeypatch.delenv(ENV_MODEL, raising=False)

    def fake_open(cls, settings, engine_name=None, embedder=None):
        seen.append((settings, engine_name))
        return cls(qa_service, catalog=catalog, settings=settings, engine_name=engine_name)

    monkeypatch.setattr(Assistant, "open", classmethod(fake_open))
    return seen


def run_ask(capsys, *argv: str) -> tuple[int, dict]:
    code = cli_ask.main(list(argv))
    out = capsys.readouterr().out
    return code, json.loads(out)


@pytest.mark.integration
def test_ask_prints_the_payload(opened, capsys, tmp_path):
    code, payload = run_ask(capsys, "--index", str(tmp_path), "Chống chỉ định của metformin là gì?")
    assert code == 0
    AnswerPayload.model_validate(payload)
    assert payload["decision"] == "answerable" and payload["disclaimer"] == DISCLAIMER
    assert payload["engine"] == "extractive"
    assert opened[0][0].index_dir == tmp_path


@pytest.mark.integration
def test_ask_abstentions_exit_zero(opened, capsys, tmp_path):
    code, payload = run_ask(capsys, "--index", str(tmp_path), "Liều semaglutide cho người lớn?")
    assert code == 0 and payload["reason"] == "drug_not_in_formulary"


@pytest.mark.integration
def test_generative_without_model_abstains_provider_unavailable(opened, capsys, tmp_path):
    code, payload = run_ask(capsys, "--index", str(tmp_path), "--engine", "generative", "--model",
                            str(tmp_path / "no-model.gguf"), "Liều metformin người lớn")
    assert code == 0
    assert (payload["decision"], payload["reason"], payload["engine"]) == ("abstain", "provider_unavailable",
                                                                            "generative")


@pytest.mark.integration
def test_model_flag_and_environment(opened, capsys, tmp_path, monkeypatch):
    env_index, flag_index = tmp_path / "env-index", tmp_path / "flag-index"
    monkeypatch.setenv(ENV_INDEX, str(env_index))
    monkeypatch.setenv(ENV_MODEL, str(tmp_path / "env.gguf"))
    run_ask(capsys, "Xin chào")
    assert opened[-1][0].index_dir == env_index and opened[-1][0].gguf_model == tmp_path / "env.gguf"
    run_ask(capsys, "--index", str(flag_index), "--model", str(tmp_path / "flag.gguf"), "Xin chào")
    assert opened[-1][0].index_dir == flag_index and opened[-1][0].gguf_model == tmp_path / "flag.gguf"


@pytest.mark.integration
def test_conversation_flag_keeps_memory_between_runs(opened, capsys, tmp_path):
    index = str(tmp_path)
    _, first = run_ask(capsys, "--index", index, "--conversation", "c1", "Liều paracetamol cho người lớn?")
    _, second = run_ask(capsys, "--index", index, "--conversation", "c1", "Uống")
    assert first["reason"] == "missing_route"
    assert second["decision"] == "answerable"


def test_ask_without_a_usable_index_exits_2(capsys, tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_INDEX, raising=False)
    code = cli_ask.main(["--index", str(tmp_path / "missing"), "Xin chào"])
    assert code == 2
    assert "duocthu-ask:" in capsys.readouterr().err


# ---- eval ----------------------------------------------------------------------------------------


def write_cases(path: Path, cases: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(c, ensure_ascii=False) for c in cases) + "\n", encoding="utf-8")
    return path


@pytest.mark.integration
def test_eval_report_and_summary(opened, capsys, tmp_path, sample_build: Path):
    cases = [
        {"id": "ok", "turns": ["Mã ATC của amlodipin là gì?"],
         "expect": {"decision": "answerable", "drug_ids": ["amlodipin"], "section_keys": ["thong_tin_chung"],
                    "text": ["C08CA01"]}},
        {"id": "multi", "turns": ["Liều paracetamol cho trẻ em?", "Bé nặng 18 kg"],
         "expect_turns": [{"reason": "missing_pediatric_age_or_weight"}],
         "expect": {"decision": "clarify", "text": ["18 kg"]}},
        {"id": "wrong-on-purpose", "turns": ["Xin chào"],
         "expect": {"decision": "abstain", "reason": "out_of_scope", "quick_replies": ["uống"]}},
        {"id": "forbid", "turns": ["Mã ATC của amlodipin là gì?"], "expect": {"forbid": ["C08CA01"]}},
    ]
    path = write_cases(tmp_path / "cases.jsonl", cases)
    code = cli_eval.main(["--index", str(sample_build), path.as_posix()])  # its pages.json is the page map
    captured = capsys.readouterr()
    assert code == 0
    report = json.loads(captured.out)
    by_id = {c["id"]: c for c in report["cases"]}
    assert by_id["ok"]["passed"] and by_id["multi"]["passed"]
    assert len(by_id["multi"]["payloads"]) == 2
    failures = by_id["wrong-on-purpose"]["failures"]
    assert not by_id["wrong-on-purpose"]["passed"] and len(failures) == 3
    totals = report["totals"]
    assert (totals["cases"], totals["passed"], totals["forbidden_hits"]) == (4, 2, 1)
    assert totals["ungrounded_numbers"] == 0 and totals["uncited_claims"] == 0
    assert set(totals["seconds_per_turn"]) == {"median", "max"}
    assert captured.err.count("\n") == 1 and "2/4 passed" in captured.err
    # the multi-turn case kept its memory, yet none of the eval's questions joined the app's past conversations
    stored = tmp_path / "data" / "conversations.sqlite3"
    if stored.exists():
        with sqlite3.connect(stored) as conn:
            assert conn.execute("SELECT COUNT(*) FROM conversations").fetchone()[0] == 0


def _payload(claim: Claim, quote: str, printed: int = 100) -> AnswerPayload:
    return AnswerPayload(
        decision="answerable",
        blocks=[Block(title="t", claims=[claim])],
        citations=[Citation(index=1, chunk_id="d__s__0", drug_id="d", section_key="s", printed_page=printed,
                            physical_page=1, quote=quote)],
        disclaimer=DISCLAIMER,
    )


def test_turn_checks_catch_what_grounding_must_never_let_through():
    evidence = {"d__s__0": "Liều 7,5 mg/kg, tối đa 1.500 mg."}
    check = cli_eval.TurnCheck()
    cli_eval.check_turn(_payload(Claim(text="Liều 75 mg/kg", citations=[1]), "Liều 7,5 mg/kg"), evidence, {100},
                        check, "t")
    assert check.ungrounded_numbers == 1
    check = cli_eval.TurnCheck()
    cli_eval.check_turn(_payload(Claim(text="tối đa 1,5 mg", citations=[1]), "x"), evidence, {100}, check, "t")
    assert check.ungrounded_numbers == 1
    check = cli_eval.TurnCheck()
    cli_eval.check_turn(_payload(Claim(text="Liều 7,5 mg/kg", citations=[]), "x"), evidence, {100}, check, "t")
    assert check.uncited_claims == 1
    check = cli_eval.TurnCheck()
    cli_eval.check_turn(_payload(Claim(text="Liều 7,5 mg/kg", citations=[1]), "x", printed=999), evidence, {100},
                        check, "t")
    assert any("page map" in f for f in check.failures)
    check = cli_eval.TurnCheck()
    bad = _payload(Claim(text="Liều 7,5 mg/kg", citations=[1]), "x").model_copy(update={"disclaimer": "khác"})
    cli_eval.check_turn(bad, evidence, {100}, check, "t")
    assert any("disclaimer" in f for f in check.failures)
    check = cli_eval.TurnCheck()
    cli_eval.check_turn(_payload(Claim(text="Liều 7,5 mg/kg, tối đa 1.500 mg", citations=[1]), "x"), evidence,
                        {100}, check, "t")
    assert check.failures == []


@pytest.mark.integration
def test_dev_eval_on_the_real_index(request, shared: Path, capsys, tmp_path, monkeypatch):
    try:
        index_dir = request.getfixturevalue("sample_index")
    except pytest.FixtureLookupError:
        pytest.skip("no sample_index fixture in this checkout")
    monkeypatch.setenv(ENV_DATA_DIR, str(tmp_path))
    code = cli_eval.main(["--index", str(index_dir), "--engine", "extractive", str(shared / "eval" / "dev.jsonl")])
    totals = json.loads(capsys.readouterr().out)["totals"]
    assert code == 0
    assert totals["passed"] >= 29
    assert (totals["ungrounded_numbers"], totals["forbidden_hits"], totals["uncited_claims"]) == (0, 0, 0)
