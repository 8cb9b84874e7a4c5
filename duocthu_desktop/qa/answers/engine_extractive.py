"""The extractive answer engine: answers made only of the book's own words, chosen to fit the question.

Every claim's text is a verbatim span of one chunk and cites that chunk, its printed page and the same span as the
quote, so `grounding.verify` passes by construction. Choosing is deterministic: dose statements by `dosage.fit`,
other sections by `answers.sentences`, interactions by the names of the other drug (`answers.interaction_answer`),
conditions by the indication hits (`qa.condition_answer`). Citations are built by `qa.cited_answer`.
"""

from __future__ import annotations

from collections.abc import Iterable

from duocthu_desktop import messages
from duocthu_desktop.artifacts import Chunk, Monograph
from duocthu_desktop.dosage import fit as dose_fit
from duocthu_desktop.dosage.parser import section_rows
from duocthu_desktop.dosage.rows import DoseRow
from duocthu_desktop.dosage.titles import indication_name
from duocthu_desktop.dosage.titles import title as dose_title
from duocthu_desktop.dosage.words import FRAME_ROUTE_NAMES, ROUTE_NAMES
from duocthu_desktop.payload import BlockKind, Reason
from duocthu_desktop.qa.answers import condition_answer, interaction_answer
from duocthu_desktop.qa.answers.cited_answer import (
    CitedAnswer,
    abstain,
    join_messages,
    ordered_chunks,
    page_of,
    quarantine_message,
    section_heading,
)
from duocthu_desktop.qa.answers.engine_types import EngineAnswer
from duocthu_desktop.qa.answers.sentences import paragraphs, select_answer_spans, split_sentences
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.retrieval.types import IndicationHit, SectionResult
from duocthu_desktop.text import fold

__all__ = ["DOSAGE_KEY", "FACT_KEYS", "WARNING_KEYS", "ExtractiveEngine", "page_of"]

DOSAGE_KEY = "lieu_luong_cach_dung"
WARNING_KEYS = frozenset({"chong_chi_dinh", "than_trong", "tuong_tac_thuoc"})
FACT_KEYS = frozenset({"thong_tin_chung"})
# said beside a table's row read for the patient (the app shows the page; the row is quoted as printed)
ADULT_ASSUMED_NOTE = ("Câu hỏi không nêu tuổi hay cân nặng của bệnh nhân: dưới đây là liều Dược thư ghi cho người lớn. "
                      "Dược thư ghi liều riêng cho trẻ em; nếu là trẻ em, hãy cho biết tuổi và cân nặng.")
TABLE_ROW_NOTE = "Dòng của bảng trong sách ứng với người bệnh này được trích nguyên văn, kèm tiêu đề cột của bảng."


def _drug_name(monograph: Monograph | None, drug_id: str) -> str:
    if monograph is not None:
        return monograph.title[:1].upper() + monograph.title[1:].lower()
    return drug_id.replace("_", " ").capitalize()



def _kind(key: str) -> BlockKind:
    if key == DOSAGE_KEY:
        return "dosage"
    if key in WARNING_KEYS:
        return "warning"
    if key in FACT_KEYS:
        return "fact_list"
    return "prose"



class ExtractiveEngine:
    """AnswerEngine made of verbatim spans (CONTRACT engine name "extractive")."""

    name = "extractive"

    # ---- one drug, one section ----------------------------------------------------------------------------

    def answer_section(self, frame: QueryFrame, section: SectionResult, monograph: Monograph) -> EngineAnswer:
        chunks = ordered_chunks(section)
        if not chunks:
            return abstain(Reason.EVIDENCE_INSUFFICIENT)
        if section.section_key == DOSAGE_KEY and not frame.whole_section:
            rows = section_rows(monograph.drug_id, chunks)
            if any(r.kind in dose_fit.DOSE_KINDS for r in rows):
                return self._answer_dosage(frame, chunks, rows, monograph)
        return self._answer_prose(frame, section.section_key, chunks, monograph)

    def _answer_dosage(
        self, frame: QueryFrame, chunks: list[Chunk], rows: list[DoseRow], monograph: Monograph
    ) -> EngineAnswer:
        """The dose statements that fit this patient, each under a title made from its own typed fields."""
        drug = _drug_name(monograph, monograph.drug_id)
        fit = dose_fit.choose(rows, dose_fit.Patient.from_frame(frame))
        unread_route = ""
        if fit.ask_route and fit.no_dose_for_route and set(fit.ask_route) <= {"other"} and frame.route:
            # the only doses left name no route the parser could read: the book may give them by the route
            # asked, so they are shown, saying so, never "the book gives no dose for this route"
            fit = dose_fit.choose(rows, dose_fit.Patient.from_frame(frame.model_copy(update={"route": None})))
            unread_route = (f"Dược thư không ghi rõ đường dùng ngay trong các câu liều dưới đây; đối chiếu với "
                            f"đường {_route_name(frame.route).lower()} trong câu của sách.")
        if fit.ask_route:
            replies = [ROUTE_NAMES[r] for r in fit.ask_route]
            names = ", ".join(r.lower() for r in replies)
            if fit.no_dose_for_route:
                asked = _route_name(frame.route).lower()
                message = (f"Dược thư không ghi liều {drug} cho đường {asked}. "
                           f"Dược thư ghi liều cho các đường: {names}. Bạn muốn xem đường nào?")
            else:
                message = messages.message_for(Reason.MISSING_ROUTE) + f" (Dược thư ghi: {names}.)"
            return _clarify(Reason.MISSING_ROUTE, message, replies)
        if fit.ask_population:
            reason = Reason.MISSING_POPULATION
            return _clarify(reason, messages.message_for(reason), ["Người lớn", "Trẻ em"])
        if fit.ask_indication:
            message = (f"Dược thư ghi liều {drug} riêng cho từng chỉ định ({len(fit.ask_indication)} chỉ định). "
                       "Bạn hỏi liều cho chỉ định nào?")
            return _clarify(Reason.NEEDS_MORE_INFO, message, [indication_name(i) for i in fit.ask_indication])
        if fit.ask_age_or_weight:
            reason = Reason.MISSING_PEDIATRIC_AGE_OR_WEIGHT
            return _clarify(reason, messages.message_for(reason), [])
        if not fit.rows:
            message = join_messages(
                f"Dược thư không có mức liều {drug} nào khớp đúng với {_patient_words(frame)}.", *fit.notes,
                "Vui lòng kiểm tra lại thông tin người bệnh hoặc đối chiếu trang PDF.")
            answer = abstain(Reason.EVIDENCE_INSUFFICIENT)
            return answer.model_copy(update={"message": message, "dosage_filtered": True})
        by_id = {c.chunk_id: c for c in chunks}
        answer = CitedAnswer()
        tables_read = []  # for each quarantined row: its line for this patient read cleanly
        for row in fit.rows:
            chunk = by_id[row.chunk_id]
            # how to take it ("Quên uống 1 liều ..."): a statement that gives no dose is the book's instruction
            title = f"{drug} — Cách dùng" if fit.how_to and row.kind not in dose_fit.DOSE_KINDS else dose_title(drug, row)
            if row.quarantined:
                # the table's header, and its line for this patient (the band holding the clearance or the lab
                # value its header names, or the one line whose first cell the question names), with its numbers
                lines, clean = dose_fit.table_row_for_patient(row, chunk.text, frame.clcr,
                                                              getattr(frame, "lab_values", ()), frame.question)
                tables_read.append(clean)
                table_title = title + (": dòng của bảng" if clean else ": bảng cần đối chiếu trang PDF")
                answer.add_quarantined(table_title, chunk)
                for start, end in lines:
                    answer.add(table_title, "dosage", chunk, start, end)
            else:
                answer.add(title, "dosage", chunk, row.start, row.end)
        assumed = ADULT_ASSUMED_NOTE if frame.population_assumed else ""
        message = join_messages(assumed, unread_route, *fit.notes)
        if fit.quarantined and tables_read == [True]:
            # the one small table whose row for this patient reads cleanly (its band, every column): the row is the
            # answer (two tables for one patient are told apart by what the PDF's pages say around them)
            result = answer.result(None, join_messages(message, TABLE_ROW_NOTE))
        elif fit.quarantined:
            result = answer.result(Reason.QUARANTINED_EVIDENCE, join_messages(message, quarantine_message()))
        else:
            result = answer.result(None, message)
        replies = [indication_name(i) for i in fit.other_indications] + (["Trẻ em"] if assumed else [])
        return result.model_copy(update={"dosage_filtered": True, "quick_replies": replies,
                                         "for_this_patient": fit.specific})

    def _answer_prose(
        self, frame: QueryFrame, key: str, chunks: list[Chunk], monograph: Monograph
    ) -> EngineAnswer:
        answer = CitedAnswer()
        title = f"{_drug_name(monograph, monograph.drug_id)} — {section_heading(key)}"
        drop = [monograph.title, monograph.drug_id.replace("_", " "), *(frame.drug_mentions.values())]
        if monograph.inn:
            drop.append(monograph.inn)
        prose = [c for c in chunks if not c.quarantined]
        joined, starts = _join(prose)
        question = frame.question
        if key in FACT_KEYS and "atc" in fold(question):
            spans = [sp for sp in split_sentences(joined) if "atc" in fold(joined[sp[0] : sp[1]])]
            spans = spans or select_answer_spans(joined, question, drop, whole=True)
        else:
            spans = select_answer_spans(joined, question, drop, whole=frame.whole_section)
        for span in spans:
            for chunk, start, end in _locate(prose, starts, span):
                for p_start, p_end in paragraphs(chunk.text[start:end]):
                    answer.add(title, _kind(key), chunk, start + p_start, start + p_end)
        return self._finish(answer, chunks, _drug_name(monograph, monograph.drug_id), key, "")

    def _finish(
        self, answer: CitedAnswer, chunks: list[Chunk], drug: str, key: str, message: str
    ) -> EngineAnswer:
        quarantined = [c for c in chunks if c.quarantined]
        for chunk in quarantined:
            answer.add_quarantined(f"{drug} — {section_heading(key)}: bảng/đoạn cần đối chiếu trang PDF", chunk)
        if quarantined:
            return answer.result(Reason.QUARANTINED_EVIDENCE, join_messages(message, quarantine_message()))
        if not answer.blocks:
            return abstain(Reason.EVIDENCE_INSUFFICIENT)
        return answer.result(None, message)

    # ---- two drugs together -------------------------------------------------------------------------------

    def answer_interaction(
        self, frame: QueryFrame, sections: dict[str, SectionResult], names: dict[str, list[str]]
    ) -> EngineAnswer:
        return interaction_answer.answer_interaction(frame, sections, names)

    # ---- condition -> drugs --------------------------------------------------------------------------------

    def answer_condition(
        self, frame: QueryFrame, hits: list[IndicationHit], fact_sections: dict[str, dict[str, SectionResult]]
    ) -> EngineAnswer:
        return condition_answer.answer_condition(frame, hits, fact_sections)


def _join(chunks: list[Chunk]) -> tuple[str, list[int]]:
    starts, pos = [], 0
    for c in chunks:
        starts.append(pos)
        pos += len(c.text) + 1
    return "\n".join(c.text for c in chunks), starts


def _locate(
    chunks: list[Chunk], starts: list[int], span: tuple[int, int]
) -> Iterable[tuple[Chunk, int, int]]:
    """The pieces of a span of the joined section text, as (chunk, start, end) in each chunk's own text."""
    s, e = span
    for chunk, base in zip(chunks, starts, strict=True):
        lo, hi = max(s, base), min(e, base + len(chunk.text))
        if lo < hi:
            yield chunk, lo - base, hi - base



def _route_name(route: str | None) -> str:
    return FRAME_ROUTE_NAMES.get(route or "", route or "")


def _clarify(reason: Reason, message: str, replies: list[str]) -> EngineAnswer:
    return EngineAnswer(decision="clarify", reason=reason.value, message=message, quick_replies=replies)


def _patient_words(frame: QueryFrame) -> str:
    parts = []
    if frame.population:
        parts.append(
            {
                "nguoi_lon": "người lớn",
                "tre_em": "trẻ em",
                "so_sinh": "trẻ sơ sinh",
                "nguoi_cao_tuoi": "người cao tuổi",
                "mang_thai": "phụ nữ mang thai",
                "cho_con_bu": "phụ nữ cho con bú",
            }[frame.population]
        )
    if frame.age_text:
        parts.append(frame.age_text)
    if frame.weight_text:
        parts.append(frame.weight_text)
    if frame.route:
        parts.append("đường " + _route_name(frame.route).lower())
    if frame.clcr is not None:
        parts.append(f"Clcr {frame.clcr:g} ml/phút")
    if frame.condition:
        parts.append(frame.condition)
    return ", ".join(parts) or "người bệnh này"
