"""The extractive answer engine: answers made only of the book's own words, chosen to fit the question.

Every claim's text is a verbatim span of one chunk and cites that chunk, its printed page and the same span as the
quote, so `grounding.verify` passes by construction. Choosing is deterministic: dosage bands by `qa.bands`,
other sections by `qa.sentences`, interactions by the names of the other drug, conditions by the indication hits.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from duocthu_desktop import messages
from duocthu_desktop.artifacts import Chunk, Monograph
from duocthu_desktop.payload import Block, BlockKind, Citation, Claim, Reason, decision_for
from duocthu_desktop.qa import bands as band_mod
from duocthu_desktop.qa.engine_types import EngineAnswer
from duocthu_desktop.qa.frame import QueryFrame
from duocthu_desktop.qa.sentences import paragraphs, select_answer_spans, split_sentences
from duocthu_desktop.retrieval.types import IndicationHit, SectionResult
from duocthu_desktop.sections import SECTION_BY_KEY
from duocthu_desktop.text import fold

DOSAGE_KEY = "lieu_luong_cach_dung"
WARNING_KEYS = frozenset({"chong_chi_dinh", "than_trong", "tuong_tac_thuoc"})
FACT_KEYS = frozenset({"thong_tin_chung"})
PATIENT_FACT_KEYS = ("chong_chi_dinh", "than_trong", "thoi_ky_mang_thai")
QUARANTINE_QUOTE_CHARS = 160
LONG_STATEMENT_CHARS = 450

# Words that bear on a patient fact, matched on lower-cased text WITH diacritics ("thai" is not "thải",
# "thận" is not "thận trọng").
_PREGNANCY_WORDS = (
    r"(?<!\w)(?:mang thai|có thai|thai nhi|thai kỳ|thai phụ|sảy thai|quái thai|sinh sản)(?!\w)",
)
_CHILD_WORDS = (r"(?<!\w)(?:trẻ|sơ sinh|nhũ nhi|thiếu niên)(?!\w)", r"dưới \d+ tuổi")
_ELDERLY_WORDS = (r"(?<!\w)(?:cao tuổi|người già)(?!\w)", r"trên \d+ tuổi")
_RENAL_WORDS = (r"(?<!\w)thận(?! trọng)(?!\w)", r"(?<!\w)clcr(?!\w)", r"creatinin", r"thanh thải", r"lọc máu")
# Never shown in a condition list: the book's words are kept, but no ranking is added or selected.
_RANKING_WORDS = ("lua chon dau tay", "tot nhat", "uu tien", "hang dau", "thuoc dau tay")


class _Answer:
    """Blocks and numbered citations under construction; one citation for each distinct quoted span."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.citations: list[Citation] = []
        self._by_span: dict[tuple[str, int, int], int] = {}

    def add(self, title: str, kind: BlockKind, chunk: Chunk, start: int, end: int) -> None:
        start, end = _trim(chunk.text, start, end)
        if start >= end:
            return
        key = (chunk.chunk_id, start, end)
        index = self._by_span.get(key)
        if index is None:
            index = len(self.citations) + 1
            self._by_span[key] = index
            physical, printed = page_of(chunk, start)
            self.citations.append(
                Citation(
                    index=index,
                    chunk_id=chunk.chunk_id,
                    drug_id=chunk.drug_id,
                    section_key=chunk.section_key,
                    printed_page=printed,
                    physical_page=physical,
                    quote=chunk.text[start:end],
                )
            )
        claim = Claim(text=chunk.text[start:end], citations=[index])
        if self.blocks and self.blocks[-1].title == title and self.blocks[-1].kind == kind:
            if claim not in self.blocks[-1].claims:
                self.blocks[-1].claims.append(claim)
        else:
            self.blocks.append(Block(title=title, kind=kind, claims=[claim]))

    def add_quarantined(self, title: str, chunk: Chunk) -> None:
        """A table or untrusted text: quote only its first line, so the viewer opens the right place."""
        first = paragraphs(chunk.text)
        if not first:
            return
        start, end = first[0]
        if end - start > QUARANTINE_QUOTE_CHARS:
            cut = chunk.text.rfind(" ", start, start + QUARANTINE_QUOTE_CHARS)
            end = cut if cut > start else start + QUARANTINE_QUOTE_CHARS
        self.add(title, "prose", chunk, start, end)

    def result(
        self, reason: Reason | None, message: str = "", quick_replies: list[str] | None = None
    ) -> EngineAnswer:
        decision = "answerable" if reason is None else decision_for(reason)
        return EngineAnswer(
            decision=decision,
            reason=reason.value if reason is not None else None,
            message=message,
            blocks=self.blocks,
            citations=self.citations,
            quick_replies=quick_replies or [],
        )


def page_of(chunk: Chunk, offset: int) -> tuple[int, int | None]:
    """(physical, printed) page of the character at `offset` in a chunk (its first page when unknown)."""
    physical = chunk.physical_pages[0] if chunk.physical_pages else 0
    for span in chunk.page_spans:
        if len(span) == 3 and span[1] <= offset < span[2]:
            physical = span[0]
            break
    printed = None
    if physical in chunk.physical_pages:
        i = chunk.physical_pages.index(physical)
        if i < len(chunk.printed_pages):
            printed = chunk.printed_pages[i]
    elif chunk.printed_pages:
        printed = chunk.printed_pages[0]
    return physical, printed


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _drug_name(monograph: Monograph | None, drug_id: str) -> str:
    if monograph is not None:
        return monograph.title[:1].upper() + monograph.title[1:].lower()
    return drug_id.replace("_", " ").capitalize()


def _heading(key: str) -> str:
    sdef = SECTION_BY_KEY.get(key)
    return sdef.heading if sdef else key


def _kind(key: str) -> BlockKind:
    if key == DOSAGE_KEY:
        return "dosage"
    if key in WARNING_KEYS:
        return "warning"
    if key in FACT_KEYS:
        return "fact_list"
    return "prose"


def _ordered(section: SectionResult) -> list[Chunk]:
    return list(section.chunks)  # retrieval hands them over in the book's order, tables in place


def _quarantine_message() -> str:
    return messages.message_for(Reason.QUARANTINED_EVIDENCE)


def _mentions(folded_text: str, folded_name: str) -> bool:
    return bool(re.search(r"(?<![0-9a-z])" + re.escape(folded_name) + r"(?![0-9a-z])", folded_text))


class ExtractiveEngine:
    """AnswerEngine made of verbatim spans (CONTRACT engine name "extractive")."""

    name = "extractive"

    # ---- one drug, one section ----------------------------------------------------------------------------

    def answer_section(self, frame: QueryFrame, section: SectionResult, monograph: Monograph) -> EngineAnswer:
        chunks = _ordered(section)
        if not chunks:
            return _abstain(Reason.EVIDENCE_INSUFFICIENT)
        if section.section_key == DOSAGE_KEY and not frame.whole_section:
            cut = band_mod.cut_bands(chunks)
            if cut:
                return self._answer_dosage(frame, chunks, cut, monograph)
        return self._answer_prose(frame, section.section_key, chunks, monograph)

    def _answer_dosage(
        self, frame: QueryFrame, chunks: list[Chunk], cut: list[band_mod.Band], monograph: Monograph
    ) -> EngineAnswer:
        choice = band_mod.choose_bands(cut, frame)
        if choice.missing_route:
            replies = [band_mod.ROUTE_NAMES[r] for r in choice.missing_route]
            names = ", ".join(r.lower() for r in replies)
            message = messages.message_for(Reason.MISSING_ROUTE) + f" (Dược thư ghi: {names}.)"
            return EngineAnswer(
                decision="clarify", reason=Reason.MISSING_ROUTE.value, message=message, quick_replies=replies
            )
        if choice.missing_population:
            return EngineAnswer(
                decision="clarify",
                reason=Reason.MISSING_POPULATION.value,
                message=messages.message_for(Reason.MISSING_POPULATION),
                quick_replies=["Người lớn", "Trẻ em"],
            )
        answer = _Answer()
        for band in choice.bands:
            answer.add(band_mod.band_title(band), "dosage", band.chunk, band.start, band.end)
        message = ""
        if choice.no_fit:
            message = (
                f"Không có mức liều nào trong Dược thư khớp đúng với {_patient_words(frame)}. "
                "Dưới đây là các mức liều sách ghi, mỗi mức kèm đúng đối tượng của nó."
            )
        return self._finish(answer, chunks, _drug_name(monograph, monograph.drug_id), DOSAGE_KEY, message)

    def _answer_prose(
        self, frame: QueryFrame, key: str, chunks: list[Chunk], monograph: Monograph
    ) -> EngineAnswer:
        answer = _Answer()
        title = f"{_drug_name(monograph, monograph.drug_id)} — {_heading(key)}"
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
        self, answer: _Answer, chunks: list[Chunk], drug: str, key: str, message: str
    ) -> EngineAnswer:
        quarantined = [c for c in chunks if c.quarantined]
        for chunk in quarantined:
            answer.add_quarantined(f"{drug} — {_heading(key)}: bảng/đoạn cần đối chiếu trang PDF", chunk)
        if quarantined:
            return answer.result(Reason.QUARANTINED_EVIDENCE, _join_messages(message, _quarantine_message()))
        if not answer.blocks:
            return _abstain(Reason.EVIDENCE_INSUFFICIENT)
        return answer.result(None, message)

    # ---- two drugs together -------------------------------------------------------------------------------

    def answer_interaction(
        self, frame: QueryFrame, sections: dict[str, SectionResult], names: dict[str, list[str]]
    ) -> EngineAnswer:
        answer = _Answer()
        unreadable: list[Chunk] = []
        display = {key: (vals[0] if vals else key.replace("_", " ")) for key, vals in names.items()}
        for drug_id, section in sections.items():
            own = {fold(n) for n in names.get(drug_id, [])} | {fold(drug_id.replace("_", " "))}
            others = {
                key: sorted({fold(n) for n in vals if n.strip()} - own, key=len, reverse=True)
                for key, vals in names.items()
                if key != drug_id
            }
            for chunk in _ordered(section):
                found_any = False
                for start, end in _statements(chunk.text):
                    folded = fold(chunk.text[start:end])
                    hit = [key for key, vals in others.items() if any(_mentions(folded, v) for v in vals)]
                    if not hit:
                        continue
                    found_any = True
                    title = f"Tương tác — {_title_name(display, drug_id)} với " + ", ".join(
                        _title_name(display, k) for k in hit
                    )
                    if chunk.quarantined:
                        title += " (bảng: cần đối chiếu trang PDF)"
                    answer.add(title, "warning", chunk, start, end)
                if chunk.quarantined and not found_any:
                    unreadable.append(chunk)
        all_names = " và ".join(display[k] for k in names) if names else " và ".join(sections)
        quarantined_hit = any(c.quarantined for c in _cited_chunks(answer, sections))
        if not answer.blocks:
            message = messages.message_for(Reason.NO_INTERACTION_EVIDENCE, names=all_names)
            if unreadable:
                for chunk in unreadable:
                    answer.add_quarantined(
                        f"Tương tác — {_title_name(display, chunk.drug_id)}: bảng cần đối chiếu trang PDF",
                        chunk,
                    )
                return answer.result(
                    Reason.QUARANTINED_EVIDENCE, _join_messages(message, _quarantine_message())
                )
            return _abstain(Reason.NO_INTERACTION_EVIDENCE, message)
        if quarantined_hit or unreadable:
            for chunk in unreadable:
                answer.add_quarantined(
                    f"Tương tác — {_title_name(display, chunk.drug_id)}: bảng cần đối chiếu trang PDF", chunk
                )
            return answer.result(Reason.QUARANTINED_EVIDENCE, _quarantine_message())
        return answer.result(None, "")

    # ---- condition -> drugs --------------------------------------------------------------------------------

    def answer_condition(
        self, frame: QueryFrame, hits: list[IndicationHit], fact_sections: dict[str, dict[str, SectionResult]]
    ) -> EngineAnswer:
        answer = _Answer()
        by_drug: dict[str, list[IndicationHit]] = {}
        for hit in hits:
            by_drug.setdefault(hit.drug_id, []).append(hit)
        if not by_drug:
            return EngineAnswer(
                decision="clarify",
                reason=Reason.NO_INDICATION.value,
                message=messages.message_for(Reason.NO_INDICATION),
            )
        condition = frame.condition or ""
        # Alphabetical: the order must never read as a ranking.
        for drug_id in sorted(by_drug):
            title = f"{drug_id.replace('_', ' ').capitalize()} — Chỉ định"
            for hit in by_drug[drug_id]:
                for start, end in _indication_spans(hit.chunk.text, hit.matched, condition):
                    answer.add(title, "fact_list", hit.chunk, start, end)
        topics = _patient_topics(frame)
        message = ""
        if topics:
            facts_before = len(answer.blocks)
            for drug_id in sorted(by_drug):
                for key in PATIENT_FACT_KEYS:
                    section = fact_sections.get(drug_id, {}).get(key)
                    if section is None:
                        continue
                    patterns = [
                        p
                        for name, pats in topics
                        for p in pats
                        if key != "thoi_ky_mang_thai" or name == "mang_thai"
                    ]
                    if key == "thoi_ky_mang_thai" and not any(name == "mang_thai" for name, _ in topics):
                        continue
                    title = f"{drug_id.replace('_', ' ').capitalize()} — {_heading(key)} (liên quan: {_topic_words(topics)})"
                    for chunk in _ordered(section):
                        if chunk.quarantined:
                            answer.add_quarantined(title + " — cần đối chiếu trang PDF", chunk)
                            continue
                        for start, end in _statements(chunk.text):
                            lowered = chunk.text[start:end].lower()
                            if key == "thoi_ky_mang_thai" or any(re.search(p, lowered) for p in patterns):
                                answer.add(title, "warning", chunk, start, end)
            if len(answer.blocks) == facts_before:
                return _abstain(
                    Reason.EVIDENCE_INSUFFICIENT,
                    _join_messages(messages.message_for(Reason.EVIDENCE_INSUFFICIENT), messages.NO_INFERENCE),
                )
            message = messages.NO_INFERENCE
        else:
            message = "Danh sách các thuốc có chỉ định khớp trong Dược thư, xếp theo vần chữ cái."
        if any(
            c.quarantined for sections in fact_sections.values() for s in sections.values() for c in s.chunks
        ) and any("cần đối chiếu" in b.title for b in answer.blocks):
            return answer.result(Reason.QUARANTINED_EVIDENCE, _join_messages(message, _quarantine_message()))
        return answer.result(None, message)


# ---- helpers ------------------------------------------------------------------------------------------------


def _abstain(reason: Reason, message: str | None = None) -> EngineAnswer:
    return EngineAnswer(
        decision=decision_for(reason), reason=reason.value, message=message or messages.message_for(reason)
    )


def _join_messages(*parts: str) -> str:
    return " ".join(p.strip() for p in parts if p and p.strip())


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


def _statements(text: str) -> list[tuple[int, int]]:
    """Paragraphs, or their sentences when a paragraph is long (interaction and patient-fact statements)."""
    out: list[tuple[int, int]] = []
    for span in paragraphs(text):
        if span[1] - span[0] > LONG_STATEMENT_CHARS:
            out.extend(split_sentences(text, span))
        else:
            out.append(span)
    return out


def _cited_chunks(answer: _Answer, sections: dict[str, SectionResult]) -> list[Chunk]:
    ids = {c.chunk_id for c in answer.citations}
    return [c for s in sections.values() for c in s.chunks if c.chunk_id in ids]


def _title_name(display: dict[str, str], key: str) -> str:
    name = display.get(key, key.replace("_", " "))
    return name[:1].upper() + name[1:]


_NEGATED_USE = re.compile(r"\b(?:khong (?:nen |duoc )?dung|chong chi dinh|tranh dung|khong chi dinh)\b")


def _indication_spans(text: str, matched: str, condition: str) -> list[tuple[int, int]]:
    """The sentence(s) of an indication chunk holding the matched words, trimmed of any ranking words."""
    sentences = split_sentences(text)
    want = fold(matched).strip()
    chosen = [sp for sp in sentences if want and want in fold(text[sp[0] : sp[1]])]
    if not chosen and condition:
        words = {w for w in re.findall(r"[0-9a-z]+", fold(condition)) if len(w) > 1}
        scored = [(len(words & set(re.findall(r"[0-9a-z]+", fold(text[s:e])))), (s, e)) for s, e in sentences]
        best = max((n for n, _ in scored), default=0)
        chosen = [sp for n, sp in scored if best and n == best]
    affirmed = [sp for sp in chosen if not _NEGATED_USE.search(fold(text[sp[0] : sp[1]]))]
    # "Vì vậy không dùng để điều trị tăng huyết áp cho người cao tuổi" names the condition but is a warning, not an
    # indication: the sentences that state the indication answer the question.
    chosen = affirmed or chosen
    chosen = chosen or sentences[:1]
    # A sentence that opens with a connective ("Vì vậy ...") is read with the one before it.
    for i, sp in enumerate(list(chosen)):
        k = sentences.index(sp)
        if k > 0 and re.match(r"(vi vay|do do|tuy nhien|vi the|nhung|ngoai ra)\b", fold(text[sp[0] : sp[1]])):
            if sentences[k - 1] not in chosen:
                chosen.insert(i, sentences[k - 1])
    chosen = sorted(set(chosen))
    out = []
    for s, e in chosen:
        folded = fold(text[s:e])
        if any(w in folded for w in _RANKING_WORDS):
            # keep only the clause that names the condition, never the ranking words
            for cs, ce in _clauses(text, s, e):
                cf = fold(text[cs:ce])
                if want in cf and not any(w in cf for w in _RANKING_WORDS):
                    out.append((cs, ce))
            continue
        out.append((s, e))
    return out


def _clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    out, pos = [], start
    for m in re.finditer(r"[;,]\s*|\s+-\s+|\(|\)", text[start:end]):
        out.append((pos, start + m.start()))
        pos = start + m.end()
    out.append((pos, end))
    return [(s, e) for s, e in out if text[s:e].strip()]


def _patient_topics(frame: QueryFrame) -> list[tuple[str, tuple[str, ...]]]:
    topics: list[tuple[str, tuple[str, ...]]] = []
    if frame.pregnant or frame.population == "mang_thai":
        topics.append(("mang_thai", _PREGNANCY_WORDS))
    age = frame.age_years
    if frame.population in ("tre_em", "so_sinh") or (age is not None and age < band_mod.ADULT_AGE):
        topics.append(("tre_em", _CHILD_WORDS))
    if frame.population == "nguoi_cao_tuoi" or (age is not None and age >= 60):
        topics.append(("nguoi_cao_tuoi", _ELDERLY_WORDS))
    if frame.clcr is not None:
        topics.append(("than", _RENAL_WORDS))
    return topics


_TOPIC_WORDS = {
    "mang_thai": "mang thai",
    "tre_em": "trẻ em",
    "nguoi_cao_tuoi": "người cao tuổi",
    "than": "chức năng thận",
}


def _topic_words(topics: list[tuple[str, tuple[str, ...]]]) -> str:
    return ", ".join(_TOPIC_WORDS[name] for name, _ in topics)


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
        parts.append("đường " + band_mod.ROUTE_NAMES[frame.route].lower())
    if frame.clcr is not None:
        parts.append(f"Clcr {frame.clcr:g} ml/phút")
    if frame.condition:
        parts.append(frame.condition)
    return ", ".join(parts) or "người bệnh này"
