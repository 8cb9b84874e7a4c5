"""The generative writer: the model rewrites the extractive answer, and only a rewrite that passes every check
is shown.

A turn: the extractive answer (already chosen for this patient, warnings first, already shown to the person) →
numbered evidence → one writer call → the deterministic checks → when a block or a dose was left out, one repair
call that passes every check again. Anything else (a failed check, a model that runs out of time, fails or is
cancelled) leaves the extractive answer in place, said so in one line of its message: the model never costs the
person the answer the book already gives (with `fallback=False`, for tests of the checks, it abstains with the
check's own reason code instead). Clarifications, abstentions and answers that send the reader to the PDF are
passed through untouched.

The entailment judge (judge.py) is off the default path (`judge=False`): over the dev questions it passed every
draft it saw, one without its dose among them, and the deterministic checks catch what it was meant to.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from duocthu_desktop.messages import (
    GENERATIVE_AS_PRINTED,
    GENERATIVE_FALLBACK,
    GENERATIVE_TOO_LONG,
    GENERATIVE_WHY,
)
from duocthu_desktop.payload import Reason
from duocthu_desktop.qa.answers.cited_answer import abstain, join_messages
from duocthu_desktop.qa.answers.engine_types import EngineAnswer
from duocthu_desktop.qa.generation import checks, judge, prompts, replies
from duocthu_desktop.qa.generation.budget import Budget, BudgetExhausted
from duocthu_desktop.qa.generation.evidence import (
    MAX_EVIDENCE_TOKENS,
    EvidenceBlock,
    estimate_tokens,
    evidence_blocks,
    render,
)
from duocthu_desktop.qa.generation.llm import CallTimeout, LanguageModel, ProviderError

log = logging.getLogger(__name__)
WRITER_TOKENS = 400
EVIDENCE_TOO_LONG = "evidence_too_long"
JUDGE_TOKENS = 250


@dataclass
class GenerationStats:
    """What the model did in one turn (for the trace, the eval report and the benchmark)."""

    outcome: str = "passthrough"  # written | fallback | abstained | passthrough
    reason: str | None = None
    detail: str = ""
    calls: int = 0
    seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    repaired: bool = False


class _Failed(Exception):
    def __init__(self, code: Reason, detail: str) -> None:
        super().__init__(detail)
        self.code, self.detail = code, detail


class _Cancelled(Exception):
    pass


class GenerativeWriter:
    def __init__(self, model: LanguageModel, title_of: Callable[[str], str], *, fallback: bool = True,
                 max_evidence_tokens: int = MAX_EVIDENCE_TOKENS, budget: Callable[[], Budget] = Budget,
                 judge: bool = False) -> None:
        self.model = model
        self.judge = judge
        self.title_of = title_of
        self.fallback = fallback
        self.max_evidence_tokens = max_evidence_tokens
        self.new_budget = budget

    def warm_up(self) -> float:
        """Have the model read the shared rules once (seconds taken), so no turn pays for them: llama.cpp keeps
        what it read and reuses the longest common prefix of the next prompt."""
        started = time.monotonic()
        try:
            self.model.complete(prompts.messages("TASK WRITE."), {"type": "object"}, max_tokens=1, deadline=started + 300)
        except ProviderError as err:
            log.warning("language model warm-up failed: %s", err)
        return time.monotonic() - started

    def write(self, question: str, answer: EngineAnswer, evidence: dict[str, str], *,
              allowed_names: dict[str, list[str]] | None = None, cancel: threading.Event | None = None,
              budget: Budget | None = None) -> tuple[EngineAnswer, GenerationStats]:
        stats = GenerationStats()
        if answer.decision != "answerable" or not answer.blocks or answer.reason:
            if answer.blocks:  # a verify-PDF answer: the book's words as they are, never written over
                return _as_extractive(answer, None), stats
            return answer, stats
        started = time.monotonic()
        budget = budget or self.new_budget()
        blocks = evidence_blocks(answer, self.title_of)
        if estimate_tokens(render(blocks)) > self.max_evidence_tokens:  # shown as the book prints it, said so
            stats.outcome, stats.reason = "fallback", EVIDENCE_TOO_LONG
            return _as_extractive(answer, _Failed(Reason.INCOMPLETE_ANSWER, EVIDENCE_TOO_LONG)), stats
        try:
            written = self._written(question, blocks, evidence, allowed_names, budget, cancel, stats)
            stats.outcome = "written"
            result = checks.layout(written, blocks, answer).model_copy(update={"written_by": "generative"})
        except _Failed as failed:
            log.info("written answer refused (%s: %s)", failed.code.value, failed.detail)
            result = self._fell_back(answer, failed.code, failed.detail, stats)
        except BudgetExhausted as err:
            result = self._fell_back(answer, Reason.REQUEST_BUDGET_EXHAUSTED, str(err), stats)
        except ProviderError as err:
            log.warning("language model failed mid-turn: %s", err)
            result = self._fell_back(answer, Reason.PROVIDER_UNAVAILABLE, str(err), stats)
        except _Cancelled:
            stats.outcome, stats.detail = "fallback", "cancelled"
            result = _as_extractive(answer, None)  # the app drops a cancelled turn; a caller still gets the book
        stats.calls, stats.seconds = budget.used, time.monotonic() - started
        return result, stats

    def _fell_back(self, answer: EngineAnswer, code: Reason, detail: str, stats: GenerationStats) -> EngineAnswer:
        """The extractive answer with one line saying why the model's wording is not shown (or, in strict mode,
        the abstention with the failure's own code)."""
        stats.reason, stats.detail = code.value, detail
        if not self.fallback:
            stats.outcome = "abstained"
            return abstain(code)
        stats.outcome = "fallback"
        return _as_extractive(answer, _Failed(code, detail))

    # ---- the calls --------------------------------------------------------------------------------

    def _written(self, question, blocks, evidence, allowed_names, budget, cancel, stats) -> list[checks.WrittenClaim]:
        text = render(blocks)
        user = prompts.WRITER_USER.format(evidence=text, question=prompts.without_values(question))
        schema = prompts.writer_schema([b.number for b in blocks])
        claims = self._claims(user, schema, budget, cancel, stats)
        missing = self._check_and_judge(question, claims, blocks, evidence, allowed_names, budget, cancel, stats)
        if not missing:
            return claims
        stats.repaired = True
        user = prompts.REPAIR_USER.format(missing="\n".join(f"- {m}" for m in missing), evidence=text,
                                          question=prompts.without_values(question))
        claims = self._claims(user, schema, budget, cancel, stats)
        still = self._check_and_judge(question, claims, blocks, evidence, allowed_names, budget, cancel, stats)
        if still:
            raise _Failed(Reason.INCOMPLETE_ANSWER, f"still missing after the repair: {still[0][:80]!r}")
        return claims

    def _claims(self, user: str, schema: dict, budget, cancel, stats) -> list[checks.WrittenClaim]:
        messages = prompts.messages(user)
        reply = self._call(messages, schema, WRITER_TOKENS, budget, cancel, stats)
        try:
            return replies.claims(reply)
        except replies.Malformed as err:
            raise _Failed(Reason.MALFORMED_OUTPUT, f"writer: {err}") from err

    def _check_and_judge(self, question, claims, blocks: list[EvidenceBlock], evidence, allowed_names, budget,
                         cancel, stats) -> list[str]:
        """The objections left after every check passes (empty: the answer stands); raises _Failed otherwise."""
        result = checks.check(claims, blocks, evidence, allowed_names)
        if not result.ok:
            raise _Failed(result.code, result.detail)
        if not self.judge:
            return result.uncovered
        reply = self._call(judge.messages(question, claims, blocks), prompts.judge_schema(len(claims)),
                           JUDGE_TOKENS, budget, cancel, stats)
        try:
            supported, missing = replies.verdicts(reply, len(claims))
        except replies.Malformed as err:  # a judge that cannot judge fails closed
            raise _Failed(Reason.MALFORMED_OUTPUT, f"judge: {err}") from err
        rejected = [n for n, ok in enumerate(supported, start=1) if not ok]
        if rejected:
            raise _Failed(Reason.UNSUPPORTED_CLAIM,
                          f"judge rejected claim {rejected[0]}: {checks.clean(claims[rejected[0] - 1].text)[:80]!r}")
        return judge.objections(missing, claims, blocks) + result.uncovered

    def _call(self, messages, schema, max_tokens, budget: Budget, cancel, stats) -> str:
        deadline = budget.next_call()
        try:
            completion = self.model.complete(messages, schema, max_tokens=max_tokens, deadline=deadline,
                                             cancel=cancel)
        except CallTimeout as err:
            if cancel is not None and cancel.is_set():
                raise _Cancelled() from err
            raise BudgetExhausted(str(err)) from err  # a time limit (the call's or the turn's), not an outage
        log.debug("model reply (%.1f s): %s", completion.seconds, completion.text[:800])
        stats.prompt_tokens += completion.prompt_tokens
        stats.completion_tokens += completion.completion_tokens
        return completion.text


def _as_extractive(answer: EngineAnswer, failed: _Failed | None) -> EngineAnswer:
    """The extractive answer, said to be one: the person sees why the model's wording is not shown."""
    if failed is not None and failed.detail == EVIDENCE_TOO_LONG:
        why = GENERATIVE_TOO_LONG
    else:
        why = GENERATIVE_WHY.get(failed.code, GENERATIVE_WHY[Reason.INCOMPLETE_ANSWER]) if failed else None
    note = GENERATIVE_FALLBACK.format(why=why) if why else GENERATIVE_AS_PRINTED
    return answer.model_copy(update={"written_by": "extractive", "message": join_messages(answer.message, note)})
