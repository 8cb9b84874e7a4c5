"""One turn, end to end: understand -> merge with memory -> route -> path -> grounding -> disclaimer -> memory, trace.

The pipeline decides which sections to fetch and which path to take; the answer engine decides which verbatim
text answers. Grounding runs on every answer whatever made it, and a failure turns the answer into an
abstention with the failure's own reason code.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.dosage import fit as dose_fit
from duocthu_desktop.dosage.parser import section_rows
from duocthu_desktop.dosage.words import (
    FAMILY_NAMES,
    FRAME_ROUTE_NAMES,
    ROUTE_FAMILY,
    ROUTE_NAMES,
    form_families,
)
from duocthu_desktop.errors import IndexError_, ServerUnavailable
from duocthu_desktop.messages import (
    DISCLAIMER,
    EMBEDDER_UNAVAILABLE,
    INDEX_UNAVAILABLE,
    MODEL_FOLDER_UNREADABLE,
    MODEL_READING_FAILED,
    MODEL_READING_WHY,
    NO_INTERACTION_SECTION,
    QUESTION_TOO_LONG,
    SERVER_UNAVAILABLE,
    message_for,
)
from duocthu_desktop.payload import AnswerPayload, Citation, Reason, decision_for
from duocthu_desktop.qa.answers import (
    condition_answer,
    drug_classes,
    interaction_answer,
    patient_warnings,
    sentence_answer,
    warning_rules,
)
from duocthu_desktop.qa.answers.cited_answer import abstain, join_messages, ordered_chunks, renumbered
from duocthu_desktop.qa.answers.comorbidities import Said, bears_on
from duocthu_desktop.qa.answers.engine_types import AnswerEngine, EngineAnswer
from duocthu_desktop.qa.answers.sentences import split_sentences
from duocthu_desktop.qa.conversation.memory import (
    ConversationStore,
    Remembered,
    adds_only_words,
    as_clarify_answer,
    is_follow_up,
    merge,
)
from duocthu_desktop.qa.conversation.traces import TraceStore
from duocthu_desktop.qa.decision_table import Route, route
from duocthu_desktop.qa.understanding.catalog import Catalog
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.qa.understanding.lexicon import ADULT_PATIENT_NOUNS, expand_abbreviations
from duocthu_desktop.qa.understanding.question import understand, valid_text
from duocthu_desktop.qa.understanding.section_asked import DOSING, INTERACTION, route_section, sentence_ask
from duocthu_desktop.qa.understanding.stored_catalog import open_catalog
from duocthu_desktop.qa.understanding.textmatch import Text, any_of
from duocthu_desktop.qa.verification import grounding
from duocthu_desktop.retrieval.types import SectionResult
from duocthu_desktop.settings import Settings
from duocthu_desktop.text import fold

FORMS_KEY = "dang_thuoc_ham_luong"  # "Dạng thuốc và hàm lượng": the forms the book lists

log = logging.getLogger(__name__)
MAX_QUESTION_CHARS = 4000  # a long clinical question is a few hundred characters
# the book warns against the drug for this patient and doses the group only for other indications: nothing to ask
WARNING_IS_THE_ANSWER = ("Dược thư lưu ý như trên cho người bệnh này và chỉ ghi liều cho nhóm này ở các chỉ định "
                         "khác; cần đối chiếu trang sách trước khi dùng.")
CONTRAINDICATION_IS_THE_ANSWER = "Dược thư ghi chống chỉ định hoặc điều cần tránh khớp với người bệnh này (ở trên)."

CONVERSATIONS_FILE = "conversations.sqlite3"
TRACES_FILE = "traces.sqlite3"
# Sections read for each candidate of a condition question when the person gave patient facts.
FACT_SECTIONS = ("chong_chi_dinh", "than_trong", "thoi_ky_mang_thai")


class EngineUnavailable(Exception):
    """The requested answer engine cannot run (no model, or not built yet). `message`, when given, is what a
    turn tells the person instead of provider_unavailable's general words (Vietnamese)."""

    def __init__(self, reason: str, message: str | None = None) -> None:
        super().__init__(reason)
        self.message = message


def load_engine(name: str, settings: Settings | None = None) -> AnswerEngine:
    """The engine that chooses the evidence, by name; the generative engine chooses it the same way and then has
    the model write it (`load_writer`). Raises EngineUnavailable for an unknown name."""
    if name in ("extractive", "generative"):
        from duocthu_desktop.qa.answers.engine_extractive import ExtractiveEngine

        return ExtractiveEngine()
    raise EngineUnavailable(f"unknown engine {name!r}")


def load_writer(settings: Settings | None = None):
    """The generative writer over the configured GGUF (default: the prepared Qwen2.5-Coder-1.5B); raises
    EngineUnavailable, saying why, when no model can be loaded."""
    from duocthu_desktop.qa.generation.llm import LlamaCppModel, ProviderError

    model = settings.gguf_model if settings else None
    if model is None:
        from models import gguf

        model = gguf.model_path()
    try:
        if not Path(model).is_file():
            raise EngineUnavailable(f"no GGUF model at {model}: run `duocthu-models prepare` or pass --model GGUF")
        return LlamaCppModel(Path(model), n_ctx=settings.context_size if settings else 4096,
                             threads=settings.threads if settings else None)
    except ProviderError as err:
        raise EngineUnavailable(str(err)) from err
    except OSError as err:  # the models folder cannot be read (its permissions), said as such, not as a bug
        from duocthu_desktop.settings import first_unreadable

        folder = first_unreadable(Path(model).parent)
        raise EngineUnavailable(f"cannot read the models folder {folder} ({err.strerror or err})",
                                MODEL_FOLDER_UNREADABLE.format(folder=folder, reason=err.strerror or err)) from err


class Assistant:
    """Answers questions over one index. Thread-compatible for one caller at a time."""

    def __init__(
        self,
        service,
        *,
        engine: AnswerEngine | None = None,
        engine_name: str | None = None,
        settings: Settings | None = None,
        catalog: Catalog | None = None,
        conversations: ConversationStore | None = None,
        traces: TraceStore | None = None,
        writer=None,
    ) -> None:
        self.service = service
        self.settings = settings or Settings.load()
        self.engine_name = engine_name or (engine.name if engine is not None else self.settings.engine)
        self.catalog = catalog or open_catalog(service)  # the build's catalog.json, or computed from every chunk
        self.engine: AnswerEngine | None = engine
        self.engine_error: str | None = None
        self.engine_message: str | None = None  # what an abstention says when the engine is unavailable, if not
        # provider_unavailable's own words (e.g. which models folder cannot be read)
        # each drug's printed title and the name the catalog shows: a block title may repeat a digit of a drug's
        # name ("Vitamin B12") that its quotes do not print
        self._titles = {m.drug_id: f"{m.title} {self.catalog.title(m.drug_id)}"
                        for m in getattr(service, "monographs", [])}
        self.writer = writer
        self.last_generation = None  # the model's work in the last turn (GenerationStats), for eval and traces
        try:
            if self.engine is None:
                self.engine = load_engine(self.engine_name, self.settings)
            if self.engine_name == "generative" and self.writer is None:
                from duocthu_desktop.qa.generation.writer import GenerativeWriter

                self.writer = GenerativeWriter(load_writer(self.settings), self.catalog.title)
        except EngineUnavailable as err:
            self.engine, self.engine_error = None, str(err)  # every answer then abstains: provider_unavailable
            self.engine_message = err.message
            log.warning("engine %s unavailable: %s", self.engine_name, err)
        data = Path(self.settings.data_dir)
        self.conversations = conversations or ConversationStore(data / CONVERSATIONS_FILE)
        self.traces = traces or TraceStore(data / TRACES_FILE)

    @classmethod
    def open(cls, settings: Settings, engine_name: str | None = None, embedder=None) -> Assistant:
        from duocthu_desktop.retrieval.service import RetrievalService

        if settings.index_dir is None and not settings.chroma_url:
            from duocthu_desktop.errors import IndexError_

            raise IndexError_("No index given: pass --index DIR or set DUOCTHU_INDEX (or DUOCTHU_CHROMA_URL).")
        service = RetrievalService.open(settings.index_dir and Path(settings.index_dir), settings, embedder)
        return cls(service, engine_name=engine_name or settings.engine, settings=settings)

    def warm_up(self) -> float:
        """Read every chunk, load the embedding model (and have the language model read its rules) now, seconds
        taken, so no later turn pays for it; 0 if nothing to load."""
        start = time.perf_counter()
        warm = getattr(self.service, "warm_up", None)
        if callable(warm):  # every chunk in memory (condition lists, stored dose rows), the vector index open
            try:
                warm()
            except Exception as err:  # noqa: BLE001 - a damaged index is said by the turn that reads it
                log.warning("index not warmed up: %s", err)
        load = getattr(getattr(self.service, "embedder", None), "load", None)
        if callable(load):
            try:
                load()
            except Exception as err:  # noqa: BLE001 - a missing model only disables the dense fallback
                log.warning("embedding model not loaded: %s", err)
        if self.writer is not None:
            self.writer.warm_up()
        return time.perf_counter() - start

    # ---- DosingFacts, for the decision table ---------------------------------------------------

    def missing_dose_fact(self, frame: QueryFrame) -> Literal["population", "age_or_weight"] | None:
        section = self.service.retrieve_framed(frame.drug_ids[0], DOSING)
        chunks = ordered_chunks(section)
        if not chunks:
            return None
        fit = dose_fit.choose(section_rows(frame.drug_ids[0], chunks), dose_fit.Patient.from_frame(frame))
        if fit.ask_population:
            return "population"
        return "age_or_weight" if fit.ask_age_or_weight else None

    # ---- one turn -------------------------------------------------------------------------------

    def ask(self, question: str, conversation_id: str | None = None, cancel=None,
            on_extractive: Callable[[AnswerPayload], None] | None = None) -> AnswerPayload:
        """One turn. `cancel` (a threading.Event) stops the model's generation when set.

        With the generative engine the book's answer is made first and handed to `on_extractive` (when it has
        blocks to show) before the model starts: the model may only replace it with a wording that passed every
        check, and a model that fails, runs out of time or is cancelled leaves it in place, said so in one line."""
        question, conversation_id = valid_text(question), conversation_id and valid_text(conversation_id)
        if len(question) > MAX_QUESTION_CHARS:
            # a pasted document is not a question: reading it would take seconds to minutes and could pick a fact
            # from anywhere in it; nothing of it is stored
            message = QUESTION_TOO_LONG.format(n=len(question), limit=MAX_QUESTION_CHARS)
            return self._finish(EngineAnswer(decision="clarify", reason=Reason.NEEDS_MORE_INFO.value, message=message),
                                grounding.Evidence())
        timings: dict[str, float] = {}
        start = time.perf_counter()
        frame = understand(question, self.catalog)
        prior: Remembered | None = self.conversations.load(conversation_id) if conversation_id else None
        if prior is not None:
            follow = is_follow_up(frame, prior)
            # a turn naming a case the drug's doses print, in words alone, chooses among them (its words the case)
            if (not follow or adds_only_words(frame)) and self._names_a_case_of(frame, prior):
                said = frame.question.strip(" ?.!")
                frame = merge(prior.frame, frame)
                frame.condition = frame.condition or said
            elif follow:
                frame = merge(prior.frame, as_clarify_answer(frame, prior))
        frame = self._condition_it_treats(frame)
        frame = self._adult_patient(frame)
        timings["understand"] = time.perf_counter() - start

        step = time.perf_counter()
        decision, answer, evidence = self._answer(frame)
        answer = self._say_trade_names(frame, answer)
        timings["answer"] = time.perf_counter() - step
        self.last_generation = None
        if self.writer is not None and self.engine is not None:
            if on_extractive is not None and answer.decision in ("answerable", "verify_pdf") and answer.blocks:
                on_extractive(self._finish(answer.model_copy(update={"written_by": "extractive"}), evidence))
            timings["extractive"] = time.perf_counter() - start
            step = time.perf_counter()
            frame, decision, answer, evidence = self._generate(question, frame, prior, decision, answer, evidence,
                                                               cancel)
            timings["generation"] = time.perf_counter() - step
            timings["model_calls"] = float(self.last_generation.calls)
        notice = _take_notice(self.service)  # the index fell back from the server to this laptop's: said once
        if notice:
            answer = answer.model_copy(update={"message": join_messages(notice, answer.message)})
        step = time.perf_counter()
        payload = self._finish(answer, evidence)
        timings["grounding"] = time.perf_counter() - step

        if conversation_id:
            # the frame of the answer shown, whatever the model did: a follow-up ("Còn người cao tuổi thì sao?")
            # completes it even when the model ran out of time
            counted = payload.decision == "clarify"
            if counted and self.conversations.count_clarify(conversation_id, frame):
                payload = self._finish(abstain(Reason.CLARIFY_LOOP_EXHAUSTED), grounding.Evidence())
                counted = False
            self.conversations.save(conversation_id, frame, payload.decision, payload.reason, counted=counted)
        timings["total"] = time.perf_counter() - start
        self.traces.record(question, frame, payload, timings, conversation_id, decision.rule)
        return payload

    def _answer(self, frame: QueryFrame) -> tuple[Route, EngineAnswer, grounding.Evidence]:
        """The deterministic answer for a frame: the route, the answer and the evidence it read."""
        evidence = grounding.Evidence()
        try:
            decision = route(frame, self)
            answer = self._run(frame, decision, evidence)
            if decision.action == "sentences" and answer.decision == "abstain" and _asks_its_section(frame):
                # no sentence answers it well enough: the question is read as it was before that path, and
                # that answer kept only where the book speaks of what the question names ("... sắp chụp
                # cản quang thì phải làm gì?" gets the warning on contrast media; a question the book is
                # silent on keeps its abstention, not a list of unrelated warnings)
                again = route(frame, self, skip=("sentence_answer",))
                tried = grounding.Evidence()
                other = self._run(frame, again, tried)
                ask = sentence_ask(frame)
                # a lab value no printed band holds is read as before (the warnings on that value among them)
                if _speaks_of(other, frame) or (ask is not None and ask.kind == "lab"):
                    decision, evidence, answer = again, tried, other
        except IndexError_ as err:  # the store failed mid-turn: an outage, said as one (not "the book has no data")
            log.warning("index unreadable during the turn: %s", err)
            decision = Route(rule="index_unavailable", action="abstain", reason=Reason.PROVIDER_UNAVAILABLE)
            answer = EngineAnswer(decision="abstain", reason=Reason.PROVIDER_UNAVAILABLE.value,
                                  message=SERVER_UNAVAILABLE if isinstance(err, ServerUnavailable)
                                  else INDEX_UNAVAILABLE)
        return decision, answer, evidence

    def _generate(self, question, frame, prior, decision, answer, evidence, cancel):
        """The model's part of a turn, over the deterministic answer already made: where the deterministic reading
        is unsure, the model's reading (it may fill what that reading left empty, and its answer is kept only if
        it is no worse than the book's answer already made); then the model's wording of the answer. Any failure
        leaves the deterministic answer in place with one line saying why."""
        from duocthu_desktop.qa.generation.writer import GenerationStats

        budget = self.writer.new_budget()
        read, note, failed = self._model_reading(question, frame, prior, budget, cancel)
        if failed is not None:  # the book's answer to the question as the app read it, said so
            self.last_generation = GenerationStats(outcome="fallback", reason=failed.value, calls=budget.used)
            why = MODEL_READING_WHY.get(failed, MODEL_READING_WHY[Reason.UNDERSTANDING_MALFORMED_OUTPUT])
            answer = answer.model_copy(update={"written_by": "extractive",
                                               "message": join_messages(answer.message,
                                                                        MODEL_READING_FAILED.format(why=why))})
            return frame, decision, answer, evidence
        if read is not frame:
            read = self._condition_it_treats(read)
            step = self._answer(read)
            if step[1].decision == "answerable" or answer.decision != "answerable":
                frame, (decision, answer, evidence) = read, step
                answer = self._say_trade_names(frame, answer)
                if note:
                    answer = answer.model_copy(update={"message": join_messages(note, answer.message)})
        if answer.decision == "clarify":
            self.last_generation = GenerationStats(calls=budget.used)
            return frame, decision, answer, evidence
        allowed = self._allowed_names(answer) if decision.action == "condition" else None
        answer, self.last_generation = self.writer.write(question, answer, evidence, allowed_names=allowed,
                                                         cancel=cancel, budget=budget)
        return frame, decision, answer, evidence

    def _model_reading(self, question: str, frame: QueryFrame, prior: Remembered | None, budget, cancel):
        """(frame, note, failure): the model's reading where the deterministic one is unsure (generative engine
        only); the note says how a drug name was read, the failure is the reason code of what went wrong."""
        from duocthu_desktop.qa.generation import understanding
        from duocthu_desktop.qa.generation.budget import BudgetExhausted

        if not understanding.unsure(frame):
            return frame, "", None
        history = [prior.frame.question] if prior is not None and prior.frame.question else []
        try:
            read = understanding.propose(self.writer.model, question, frame, self.catalog, history, budget, cancel)
        except understanding.UnderstandingFailed as err:
            log.warning("model understanding failed: %s (%s)", err.code.value, err)
            return frame, "", err.code
        except BudgetExhausted:
            return frame, "", Reason.REQUEST_BUDGET_EXHAUSTED
        added = [d for d in read.drug_ids if d not in frame.drug_ids]
        note = " ".join(f"Đã hiểu “{', '.join(frame.unknown_drugs)}” là {self.catalog.title(d)}." for d in added)
        return read, note, None

    def _allowed_names(self, answer: EngineAnswer) -> dict[str, list[str]]:
        """List mode: each drug the list cites, with every name a claim may call it by."""
        ids = dict.fromkeys(c.drug_id for c in answer.citations)
        return {d: [self.catalog.title(d), *self.catalog.names_for(d)] for d in ids}

    def _say_trade_names(self, frame: QueryFrame, answer: EngineAnswer) -> EngineAnswer:
        """A drug recognised only by a trade name is said to be so, so the person can see how the name was read
        ('Zovirax: sách ghi là tên thương mại của Aciclovir.')."""
        if not frame.via_trade_name or answer.decision == "abstain" and not answer.blocks:
            return answer
        notes = [f"{typed}: sách ghi là tên thương mại của {self.catalog.title(drug_id).capitalize()}."
                 for drug_id, typed in frame.via_trade_name.items() if drug_id in frame.drug_ids]
        return answer.model_copy(update={"message": join_messages(*notes, answer.message)}) if notes else answer

    # ---- paths ------------------------------------------------------------------------------------

    def _run(self, frame: QueryFrame, decision: Route, evidence: dict[str, str]) -> EngineAnswer:
        if decision.action in ("abstain", "clarify", "greet"):
            answer = EngineAnswer(
                decision=decision_for(decision.reason),
                reason=decision.reason.value,
                message=decision.message,
                quick_replies=decision.quick_replies,
            )
            warn = decision.action == "clarify" and decision.warn_first
            return self._warn_first(frame, answer, evidence) if warn else answer
        if self.engine is None:
            return abstain(Reason.PROVIDER_UNAVAILABLE, self.engine_message)
        if decision.action == "interaction":
            return self._interaction(frame, evidence)
        if decision.action == "condition":
            return self._condition(frame, evidence)
        if decision.action == "sentences":
            return self._sentences(frame, evidence)
        return self._single(frame, evidence)

    def _single(self, frame: QueryFrame, evidence: dict[str, str]) -> EngineAnswer:
        """One section of each drug named ('Chống chỉ định của metformin và captopril' reads two)."""
        answers = [self._one_drug(drug_id, frame, evidence) for drug_id in frame.drug_ids]
        return answers[0] if len(answers) == 1 else _combine(answers)

    def _one_drug(self, drug_id: str, frame: QueryFrame, evidence: dict[str, str]) -> EngineAnswer:
        key = frame.section_key or DOSING
        section = self.service.retrieve_framed(drug_id, key)
        verdict = self.service.decide(section)
        if verdict.decision == "abstain" and key == INTERACTION and not section.chunks:
            # the monograph prints no Tương tác thuốc: nothing found, which is never "safe"
            monograph = self.service.monograph(drug_id)
            name = monograph.title.capitalize() if monograph is not None else drug_id
            return abstain(Reason.NO_INTERACTION_EVIDENCE, NO_INTERACTION_SECTION.format(drug=name))
        if verdict.decision == "abstain":
            return abstain(Reason(verdict.reason or Reason.EVIDENCE_INSUFFICIENT))
        _remember(evidence, section.chunks)
        monograph = self.service.monograph(drug_id)
        if key == DOSING and frame.route and not frame.whole_section:
            no_form = self._no_form_for_route(frame, section, monograph)
            if no_form is not None:
                return self._warn_first(frame, no_form, evidence, [drug_id])
        answer = self.engine.answer_section(frame, section, monograph)
        # A dosage answer is a filter over the section's statements: it says itself whether an untrusted part
        # (a table) is among what fits this patient. Any other section is sent to the PDF as a whole.
        if verdict.decision == "verify_pdf" and answer.decision != "clarify" and not answer.dosage_filtered:
            answer = _send_to_pdf(answer, section)
        return self._warn_first(frame, answer, evidence, [drug_id])

    def _names_a_case_of(self, frame: QueryFrame, prior: Remembered) -> bool:
        """After a dose answer for one drug, a turn naming no drug, section or fact that names in full one of the
        indications the drug's dose rows print ("viêm tai giữa cấp"): it chooses among that answer's doses, it is
        not a new question."""
        earlier = prior.frame
        if (prior.decision not in ("answerable", "verify_pdf") or earlier.turn_type != "dosing"
                or len(earlier.drug_ids) != 1 or frame.drug_ids or frame.unknown_drugs
                or frame.section_key is not None or frame.turn_type != "unknown"):
            return False
        drug = earlier.drug_ids[0]
        chunks = ordered_chunks(self.service.retrieve_framed(drug, DOSING))
        if chunks and dose_fit.names_a_printed_case(section_rows(drug, chunks), frame.question):
            return True
        treats = [c.text for key in (patient_warnings.INDICATIONS, DOSING)
                  for c in self.service.retrieve_framed(drug, key).chunks]
        return _printed_as_a_run(frame.question, treats)

    def _adult_patient(self, frame: QueryFrame) -> QueryFrame:
        """A dose asked for a patient spoken of as "bệnh nhân" (ADULT_PATIENT_NOUNS) with no age, weight or word for a
        child, whose doses differ by group: the adults' doses, the answer saying so (a child is "bé", "trẻ", "bệnh
        nhi" or an age on a ward); never for a bare "liều X?", which still asks the group."""
        if (frame.population is None and frame.age_years is None and frame.weight_kg is None
                and frame.gestational_weeks is None and frame.turn_type == "dosing" and len(frame.drug_ids) == 1
                and any_of(Text.of(frame.question), ADULT_PATIENT_NOUNS)
                and self.missing_dose_fact(frame) == "population"):
            return frame.model_copy(update={"population": "nguoi_lon", "population_assumed": True})
        return frame

    def _condition_it_treats(self, frame: QueryFrame) -> QueryFrame:
        """A condition named with one drug sends the question to its contraindications ("Người hen dùng aspirin
        được không?"), unless the drug's Chỉ định prints it: then it is what the drug is given for, and the
        question asks how ("amoxicilin dự phòng viêm nội tâm mạc người lớn trước nhổ răng" asks the dose)."""
        against_key = patient_warnings.CONTRAINDICATIONS
        if frame.section_key != against_key or _asks_its_section(frame) or len(frame.drug_ids) != 1 or frame.follow_up:
            return frame
        drug = frame.drug_ids[0]
        treats = " ".join(c.text for key in (patient_warnings.INDICATIONS, DOSING)
                          for c in self.service.retrieve_framed(drug, key).chunks)
        rest = Said.of(frame.question, list(frame.drug_mentions.values())).without(treats)
        against = self.service.retrieve_framed(drug, against_key).chunks
        if rest.any() and any(bears_on(c.text[a:b], rest) for c in against for a, b in split_sentences(c.text)):
            return frame
        return frame.model_copy(update={"section_key": DOSING, "turn_type": "dosing"})

    def _no_form_for_route(self, frame: QueryFrame, section: SectionResult, monograph) -> EngineAnswer | None:
        """A route no dose statement names and no form the book lists can be given by (an injection asked of a
        drug sold only as tablets): said so, never the doses of the drug's own route as if they were that one's."""
        rows = section_rows(monograph.drug_id, ordered_chunks(section))
        if any(dose_fit.route_matches(frame.route, r.route) for r in rows):
            return None
        forms = self.service.retrieve_framed(monograph.drug_id, FORMS_KEY)
        families = form_families(" ".join(c.text for c in forms.chunks if not c.quarantined))
        asked = ROUTE_FAMILY.get(frame.route)
        if not families or asked is None or asked in families:
            return None
        given = dose_fit.route_names(rows) or [FAMILY_NAMES[f] for f in sorted(families)]
        drug = self.catalog.title(monograph.drug_id)
        message = (f"Dược thư không ghi dạng thuốc hay liều {drug} cho đường {FRAME_ROUTE_NAMES[frame.route].lower()}"
                   f" (mục Dạng thuốc và hàm lượng chỉ ghi dạng dùng đường khác). Dược thư ghi liều cho: "
                   f"{', '.join(given).lower()}.")
        return EngineAnswer(decision="clarify", reason=Reason.MISSING_ROUTE.value, message=message,
                            quick_replies=[g for g in given if g in ROUTE_NAMES.values()])

    def _sentences(self, frame: QueryFrame, evidence: dict[str, str]) -> EngineAnswer:
        """Each named drug's own sentences, from every section, ranked against the question."""
        ask = sentence_ask(frame)
        if ask is None:  # the table matched this row on the same frame
            return abstain(Reason.EVIDENCE_INSUFFICIENT)
        embedder = getattr(self.service, "embedder", None)
        answers = []
        for drug_id in frame.drug_ids:
            chunks = [c for c in self.service.all_chunks() if c.drug_id == drug_id]
            _remember(evidence, chunks)
            answers.append(sentence_answer.answer(ask, frame, chunks, self.service.monograph(drug_id), embedder))
        return answers[0] if len(answers) == 1 else _combine(answers)

    def _warn_first(
        self, frame: QueryFrame, answer: EngineAnswer, evidence: dict[str, str], drug_ids: list[str] | None = None
    ) -> EngineAnswer:
        """The book's statements about this patient (contraindications first) before the dose or clarify."""
        if frame.turn_type not in ("dosing", "drug_attribute") or not warning_rules.Patient.of(frame).any():
            return answer
        asked = answer if answer.decision == "clarify" else None
        for drug_id in reversed(drug_ids or frame.drug_ids):
            sections: dict[str, SectionResult] = {}
            for key in (*patient_warnings.SECTION_KEYS, patient_warnings.INDICATIONS, patient_warnings.DOSING):
                section = self.service.retrieve_framed(drug_id, key)
                if section.chunks and self.service.decide(section).decision != "abstain":
                    sections[key] = section
            monograph = self.service.monograph(drug_id) if len(frame.drug_ids) > 1 else None
            drug = monograph.title.capitalize() if monograph is not None else None
            warned = patient_warnings.warning_answer(frame, sections, drug)
            if warned is not None:
                for section in sections.values():
                    _remember(evidence, section.chunks)
                answer = patient_warnings.warn_first(warned, answer)
        if asked is not None and answer.decision == "answerable":
            return self._warned_clarify(frame, asked, answer)
        return answer

    def _warned_clarify(self, frame: QueryFrame, asked: EngineAnswer, warned: EngineAnswer) -> EngineAnswer:
        """A clarify with the book's warnings against this patient above it. A contraindication that matches is the
        answer, and so is a caution where the book doses this patient's group only for other indications: nothing
        is asked. A caution where the book doses the group in general leaves the clarify standing (the dose still
        needs the fact asked: a newborn's doses by days and weight under "tốt nhất là không dùng")."""
        warning_refs = {n for b in warned.blocks if b.kind == "warning" for c in b.claims for n in c.citations}
        against = patient_warnings.CONTRAINDICATIONS
        if any(c.index in warning_refs and c.section_key == against for c in warned.citations):
            return warned.model_copy(update={"message": CONTRAINDICATION_IS_THE_ANSWER, "quick_replies": []})
        patient = dose_fit.Patient.from_frame(frame)
        for drug_id in frame.drug_ids:
            section = self.service.retrieve_framed(drug_id, DOSING)
            if dose_fit.doses_group_in_general(section_rows(drug_id, ordered_chunks(section)), patient):
                return warned.model_copy(update={"decision": "clarify", "reason": asked.reason,
                                                 "message": asked.message, "quick_replies": asked.quick_replies})
        return warned.model_copy(update={"message": WARNING_IS_THE_ANSWER, "quick_replies": []})

    def _interaction(self, frame: QueryFrame, evidence: dict[str, str]) -> EngineAnswer:
        """Each named drug's Chống chỉ định, Tương tác thuốc and Thận trọng, searched for every wording of each
        partner: its book names and classes, an outside drug's classes, a class word's wordings and members."""
        sections: dict[str, SectionResult] = {}
        names: dict[str, list[str]] = {}
        for drug_id in frame.drug_ids:
            mono = self.service.monograph(drug_id)
            book_names = [self.catalog.title(drug_id)] + self.catalog.names_for(drug_id)
            names[drug_id] = drug_classes.drug_wordings(book_names, mono.drug_class if mono else None)
            chunks: list[Chunk] = []
            for key in interaction_answer.SECTION_ORDER:
                section = self.service.retrieve_framed(drug_id, key)
                if self.service.decide(section).decision != "abstain":
                    chunks += section.chunks
            if chunks:
                sections[drug_id] = SectionResult(drug_id=drug_id, section_key=INTERACTION, chunks=chunks)
                _remember(evidence, chunks)
        searched = tuple(c.text for section in sections.values() for c in section.chunks)
        for other in frame.unknown_drugs:
            names[other] = drug_classes.unknown_drug_wordings(other, searched)
        # A class the person typed, unless it only describes one of two drugs named ("warfarin (thuốc chống đông)
        # và aspirin"); with one drug named it is the partner, even a class of that drug ("aspirin và NSAID").
        covered = {c.key for vals in names.values() for c in drug_classes.classes_in(" ; ".join(vals))}
        if len(names) < 2:
            covered = set()
        # The question's own words first: "thuốc lợi tiểu quai" is the loop diuretics, not every diuretic.
        typed = drug_classes.class_mentions(frame.question)
        typed += [(c, w) for w in frame.drug_classes for c in drug_classes.classes_in(w)[:1]]
        for cls, said in typed:
            if cls.key in covered:
                continue
            covered.update(c.key for c in drug_classes.with_parents([cls]))
            family = set(drug_classes.with_children([cls]))
            in_book = [
                name
                for m in self.service.monographs
                if family & set(drug_classes.classes_in(m.drug_class or ""))
                for name in self.catalog.names_for(m.drug_id)
            ]
            names[said] = drug_classes.class_word_wordings(said, cls, in_book)
        for word in frame.drug_classes:  # a class word the lexicon does not hold: looked for as written
            if not drug_classes.classes_in(word):
                names.setdefault(word, [word])
        answer = self.engine.answer_interaction(frame, sections, names)
        cited = {c.chunk_id for c in answer.citations}
        quarantined = {c.chunk_id for s in sections.values() for c in s.chunks if c.quarantined}
        if answer.decision == "answerable" and cited & quarantined:
            answer = answer.model_copy(update={"decision": "verify_pdf", "reason": Reason.QUARANTINED_EVIDENCE.value})
        return answer

    def _condition(self, frame: QueryFrame, evidence: dict[str, str]) -> EngineAnswer:
        if getattr(frame, "turn_type", None) == "contraindicated_in":
            # Every monograph's Chống chỉ định, read in one pass over the index (never chosen from indications).
            by_drug: dict[str, list[Chunk]] = {}
            for chunk in self.service.all_chunks():
                if chunk.section_key == condition_answer.CONTRAINDICATION_KEY:
                    by_drug.setdefault(chunk.drug_id, []).append(chunk)
            sections = {
                d: SectionResult(drug_id=d, section_key=condition_answer.CONTRAINDICATION_KEY,
                                 chunks=sorted(cs, key=lambda c: c.part_index))
                for d, cs in by_drug.items()
            }
            for section in sections.values():
                _remember(evidence, section.chunks)
            titles = {m.drug_id: self.catalog.title(m.drug_id) for m in self.service.monographs}
            return condition_answer.answer_contraindicated(frame, sections, titles)
        hits = self.service.search_indication(frame.condition or "")
        if not hits and getattr(self.service, "dense_error", None):  # the model failed, not the book
            return EngineAnswer(decision="abstain", reason=Reason.PROVIDER_UNAVAILABLE.value,
                                message=EMBEDDER_UNAVAILABLE)
        if not hits:
            return EngineAnswer(decision="clarify", reason=Reason.NO_INDICATION.value,
                                message=message_for(Reason.NO_INDICATION))
        _remember(evidence, [h.chunk for h in hits])
        fact_sections: dict[str, dict[str, SectionResult]] = {}
        if _has_patient_facts(frame):
            keys = FACT_SECTIONS + (("thoi_ky_cho_con_bu",) if frame.breastfeeding else ())
            for hit in hits:
                per_drug: dict[str, SectionResult] = {}
                for key in keys:
                    section = self.service.retrieve_framed(hit.drug_id, key)
                    if section.chunks and self.service.decide(section).decision != "abstain":
                        per_drug[key] = section
                        _remember(evidence, section.chunks)
                fact_sections[hit.drug_id] = per_drug
        return self.engine.answer_condition(frame, hits, fact_sections)

    # ---- the last checks every payload passes ---------------------------------------------------

    def _finish(self, answer: EngineAnswer, evidence: dict[str, str]) -> AnswerPayload:
        failures = grounding.verify(answer.blocks, answer.citations, evidence, getattr(evidence, "chunks", None),
                                    self._titles)
        if failures:
            for failure in failures:
                log.warning("grounding failed: %s %s", failure.code, failure.detail)
            answer = abstain(Reason(failures[0].code))
        message = answer.message
        if not message and answer.reason:
            try:
                message = message_for(answer.reason)
            except ValueError:
                message = ""
        return AnswerPayload(
            decision=answer.decision,
            reason=answer.reason,
            message=message,
            blocks=answer.blocks,
            citations=answer.citations,
            quick_replies=answer.quick_replies,
            engine=self._shown_engine(answer),
            disclaimer=DISCLAIMER,
        )

    def _shown_engine(self, answer: EngineAnswer) -> str:
        """Whose text the payload shows: "generative" only for the model's checked wording (and for the refusal of
        a generative engine whose model cannot load); the book's answer shown under it is "extractive"."""
        if answer.written_by == "generative" or (self.engine is None and self.engine_name == "generative"):
            return "generative"
        return "extractive"


def _take_notice(service) -> str | None:
    take = getattr(service, "take_notice", None)
    return take() if callable(take) else None


def _combine(answers: list[EngineAnswer]) -> EngineAnswer:
    """Several drugs' answers as one: a clarify first (it must be settled), else every answer found, citations
    renumbered; when none was found, the first drug's reason."""
    for answer in answers:
        if answer.decision == "clarify":
            return answer
    found = [a for a in answers if a.decision in ("answerable", "verify_pdf")]
    if not found:
        return answers[0]
    blocks, citations, messages = [], [], []
    for answer in found:
        more_blocks, more_citations = renumbered(answer, len(citations))
        blocks += more_blocks
        citations += more_citations
        if answer.message and answer.message not in messages:
            messages.append(answer.message)
    for answer in answers:
        if answer not in found and answer.message and answer.message not in messages:
            messages.append(answer.message)
    quarantined = any(a.decision == "verify_pdf" for a in found)
    return EngineAnswer(
        decision="verify_pdf" if quarantined else "answerable",
        reason=Reason.QUARANTINED_EVIDENCE.value if quarantined else None,
        message=" ".join(messages),
        blocks=blocks,
        citations=citations,
    )


def _speaks_of(answer: EngineAnswer, frame: QueryFrame) -> bool:
    """Some claim of the answer names a condition or thing the question names (beyond the drug itself)."""
    said = Said.of(frame.question, list(frame.drug_mentions.values()))
    return said.any() and any(bears_on(c.text, said) for b in answer.blocks for c in b.claims)


_RUN_MAX_WORDS = 6
_RUN_MIN_LETTERS = 5  # a phrase of one word: a word this long ("basedow"), never "ho", "đau"


def _printed_as_a_run(phrase: str, texts: list[str]) -> bool:
    """The whole phrase (a few words, no digit) is printed as one run of words in one of the texts, as typed, or
    folded when typed without diacritics ("trầm cảm" in "Điều trị trầm cảm nặng ...")."""
    plain = fold(phrase) == phrase.lower()
    words = re.findall(r"\w+", fold(phrase) if plain else phrase.lower())
    if not words or len(words) > _RUN_MAX_WORDS or any(w.isdigit() for w in words):
        return False
    if len(words) == 1 and len(words[0]) < _RUN_MIN_LETTERS:
        return False
    run = " " + " ".join(words) + " "
    for text in texts:
        printed = " " + " ".join(re.findall(r"\w+", fold(text) if plain else text.lower())) + " "
        if run in printed:
            return True
    return False


def _asks_its_section(frame: QueryFrame) -> bool:
    """The frame's section is one the person asked for, not the contraindications a named condition led to
    (a "how long does it keep?" question is never answered with the contraindication list)."""
    if frame.section_key != patient_warnings.CONTRAINDICATIONS:
        return True
    return route_section(Text.of(expand_abbreviations(frame.question))).key == patient_warnings.CONTRAINDICATIONS


def _remember(evidence: dict[str, str], chunks: list[Chunk]) -> None:
    for chunk in chunks:
        evidence[chunk.chunk_id] = chunk.text
        if isinstance(evidence, grounding.Evidence):
            evidence.chunks[chunk.chunk_id] = chunk  # for the page check


def _has_patient_facts(frame: QueryFrame) -> bool:
    return (
        frame.pregnant
        or frame.breastfeeding
        or frame.age_years is not None
        or frame.clcr is not None
        or frame.population in ("tre_em", "so_sinh", "nguoi_cao_tuoi", "mang_thai", "cho_con_bu")
        or frame.renal_impairment
        or frame.hepatic_impairment
        or frame.trimester is not None
    )


def _send_to_pdf(answer: EngineAnswer, section: SectionResult) -> EngineAnswer:
    """Part of the section could not be read reliably: keep what was found, cite the untrusted parts too."""
    citations = list(answer.citations)
    cited = {c.chunk_id for c in citations}
    kept = answer.decision in ("answerable", "verify_pdf")
    blocks = answer.blocks if kept else []
    if not kept:
        citations, cited = [], set()
    next_index = max((c.index for c in citations), default=0) + 1
    for chunk in section.chunks:
        if chunk.quarantined and chunk.chunk_id not in cited:
            citations.append(_whole_chunk_citation(next_index, chunk))
            next_index += 1
    message = message_for(Reason.QUARANTINED_EVIDENCE)
    return EngineAnswer(
        decision="verify_pdf",
        reason=Reason.QUARANTINED_EVIDENCE.value,
        message=message,
        blocks=blocks,
        citations=citations,
        quick_replies=answer.quick_replies,
    )


def _whole_chunk_citation(index: int, chunk: Chunk) -> Citation:
    return Citation(
        index=index,
        chunk_id=chunk.chunk_id,
        drug_id=chunk.drug_id,
        section_key=chunk.section_key,
        printed_page=chunk.printed_pages[0] if chunk.printed_pages else None,
        physical_page=chunk.physical_pages[0] if chunk.physical_pages else 0,
        quote=chunk.text,
    )
