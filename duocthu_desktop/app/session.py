"""What the window holds of the core while it runs: the Assistant, the index's page map and the formulary PDF.

Qt-free, so a test can drive it without a window. Every method that reads the index or the PDF is called from an
operation (app.operations), never on the UI thread; the window only reads the plain attributes.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path

from duocthu_desktop.app.history import PastTurn, citation_of, past_turns
from duocthu_desktop.artifacts import PAGES_FILE, Chunk, Monograph, PageMap
from duocthu_desktop.errors import IndexError_
from duocthu_desktop.in_use import SAMPLE_INDEX, index_in_use  # noqa: F401 - SAMPLE_INDEX, for the window
from duocthu_desktop.payload import AnswerPayload, Citation
from duocthu_desktop.pdf_locate import LocatorProcess
from duocthu_desktop.settings import Settings

log = logging.getLogger(__name__)

RELEASED = "Chỉ mục đang được thay bằng bản vừa dựng lại; hãy hỏi lại sau giây lát."


def default_index(settings: Settings) -> Path | None:
    """The index to open: the settings' (flag > environment > saved), else the one rebuilt into the data folder,
    the bundle's, or the sample index setup built (duocthu_desktop.in_use)."""
    found = index_in_use(settings)
    return Path(found.value) if found.value else None


def recorded_pdf_path(index_dir: Path | None) -> Path | None:
    """The PDF the index was built from, when it is on this machine: the path pages.json recorded, else a file
    of the recorded name in the index folder or beside it."""
    if index_dir is None:
        return None
    index_dir = Path(index_dir)
    try:
        pages = json.loads((index_dir / PAGES_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pages = {}
    recorded = pages.get("source_pdf") if isinstance(pages, dict) else None
    if isinstance(recorded, str) and recorded and Path(recorded).is_absolute() and Path(recorded).is_file():
        return Path(recorded)
    from duocthu_desktop.pdf_check import recorded_pdf

    name = recorded_pdf(index_dir)[1] or (Path(recorded).name if isinstance(recorded, str) and recorded else None)
    for folder in (index_dir, index_dir.parent) if name else ():
        if (folder / name).is_file():
            return folder / name
    return None


def find_pdf(settings: Settings, index_dir: Path | None, explicit: Path | None = None) -> Path | None:
    """The formulary PDF: given explicitly, else from settings, else the one the index was built from."""
    for candidate in (explicit, getattr(settings, "pdf_path", None)):
        if candidate:
            return Path(candidate)
    return recorded_pdf_path(index_dir)


@dataclass
class IndexFacts:
    """What the status bar says about the index."""

    monographs: int = 0
    chunks: int = 0
    built_at: str = ""
    model: str = ""


class Session:
    """One open index: ask, look up chunks, map pages, find quotes on the PDF."""

    def __init__(self, assistant, settings: Settings | None = None, index_dir: Path | None = None,
                 pdf_path: Path | None = None, owns_index: bool = False) -> None:
        self.assistant = assistant
        self.owns_index = owns_index  # opened here, so closed here; an assistant handed in is its owner's to close
        self.settings = settings or getattr(assistant, "settings", None) or Settings()
        self.index_dir = Path(index_dir) if index_dir else None
        self.pdf_path = Path(pdf_path) if pdf_path else None
        self.pdf_message: str | None = None  # why quotes cannot be highlighted (or a warning), in Vietnamese
        self.page_map: PageMap | None = None
        self._chunks: dict[str, Chunk] | None = None
        self._locator = None  # a pdf_locate.LocatorProcess (the PDF open in a worker), used on the PDF lane only
        self._turn_lock = threading.Lock()  # a turn and `release` (from the build's thread) one at a time
        self.released = False  # the index was closed for a swap: a turn says so instead of reading it
        self.index_id = self._index_identity()
        traces = getattr(assistant, "traces", None)
        if traces is not None and hasattr(traces, "index_id"):
            traces.index_id = self.index_id  # each traced answer says which index it was read from
        self.check_pdf()
        self._read_page_map()

    # ---- opening ------------------------------------------------------------------------------------------

    @classmethod
    def open(cls, settings: Settings, pdf_path: Path | None = None, warm_up: bool = True,
             embed_in_worker: bool = False) -> Session:
        """Open the index the settings name (IndexError_ when there is none), then load the embedding model (in
        a worker process with `embed_in_worker`, as the window does: app.embed_process)."""
        from duocthu_desktop.qa.pipeline import Assistant

        index_dir = settings.index_dir if settings.chroma_url else default_index(settings)  # no sample fallback
        if index_dir is not None and settings.index_dir is None:
            settings = settings.model_copy(update={"index_dir": index_dir})
        embedder = None
        if embed_in_worker:
            from duocthu_desktop.app import rebuild
            from duocthu_desktop.app.embed_process import EmbedderProcess

            # a rebuild's worker, its model already loaded, else a new one
            embedder = rebuild.take_spare(settings.embedding_model_dir) or EmbedderProcess(settings.embedding_model_dir)
        try:
            assistant = Assistant.open(settings, embedder=embedder)
        except BaseException:
            if embedder is not None:
                embedder.close()
            raise
        # the folder answers are read from: the one given, its fallback, or the server's files fetched into the cache
        served = getattr(assistant.service, "index_dir", None) or index_dir
        pdf = find_pdf(settings, served, pdf_path) or (recorded_pdf_path(index_dir) if served != index_dir else None)
        session = cls(assistant, settings, served, pdf, owns_index=True)
        if warm_up:
            assistant.warm_up()
        return session

    def close(self) -> None:
        """Release the index (the Chroma client), the PDF and the embedding worker, so a rebuilt index can
        replace the folder."""
        self._close_locator()
        if not self.owns_index:
            return
        from duocthu_desktop.app import rebuild

        service = getattr(self.assistant, "service", None)
        embedder = getattr(service, "embedder", None)
        for closable in (service, None if rebuild.is_spare(embedder) else embedder):  # kept for the next index
            close = getattr(closable, "close", None)
            if callable(close):
                close()

    def _index_identity(self) -> str | None:
        """What a citation's pages belong to: the manifest's collection, named for the digests of the PDF and of
        the chunks (a rebuild of the same book keeps it, another book changes it); None without a manifest."""
        manifest = getattr(self.service, "manifest", None)
        return getattr(manifest, "collection", None) or None

    def same_index(self, index_id: str | None) -> bool:
        """Whether a citation made under `index_id` still points into this index (unknown on either side: yes,
        as before identities were kept)."""
        return index_id is None or self.index_id is None or index_id == self.index_id

    # ---- the question path --------------------------------------------------------------------------------

    def release(self) -> None:
        """Close the index (not the embedding worker) for a rebuilt one to replace its folder: waits for a turn in
        flight; later turns raise IndexError_ until the window opens the new index. Called from the build's
        thread just before the swap."""
        with self._turn_lock:
            self.released = True
            if self.owns_index:
                close = getattr(self.service, "close", None)
                if callable(close):
                    close()

    def ask(self, question: str, conversation_id: str | None, cancel=None, on_extractive=None) -> AnswerPayload:
        """One turn; `cancel` (a threading.Event) stops the language model's generation when set. With the
        generative engine `on_extractive(payload)` gets the book's answer (on the worker) before the model runs."""
        with self._turn_lock:
            if self.released:
                raise IndexError_(RELEASED)
            if on_extractive is not None and getattr(self.assistant, "writer", None) is not None:
                return self.assistant.ask(question, conversation_id=conversation_id, cancel=cancel,
                                          on_extractive=on_extractive)
            return self.assistant.ask(question, conversation_id=conversation_id, cancel=cancel)

    def quarantined(self, payload: AnswerPayload) -> set[int]:
        """The citations whose text the index does not trust as read (tables, flagged text): the pages to check."""
        found = set()
        for citation in payload.citations:
            chunk = self.chunk(citation.chunk_id)
            if chunk is not None and chunk.quarantined:
                found.add(citation.index)
        return found

    def history(self, key: str) -> list[tuple[PastTurn, list[Citation]]]:
        """A past conversation's traced turns, each with its citations: the stored answer's own (numbered and
        quoting as shown), else one per passage it cited (app.history)."""
        turns = past_turns(getattr(self.assistant, "traces", None), key)
        shown = []
        for turn in turns:
            if turn.answer is not None:
                shown.append((turn, list(turn.answer.citations)))
                continue
            passages: dict[tuple, dict] = {}  # each passage once, though several claims cited it
            for cited in turn.cited:
                passages.setdefault((str(cited["chunk_id"]), cited.get("printed_page")), cited)
            found = []
            for cited in passages.values():
                made = citation_of(len(found) + 1, cited, self.chunk(str(cited["chunk_id"])), self.physical_for)
                if made is not None:
                    found.append(made)
            shown.append((turn, found))
        return shown

    @staticmethod
    def new_conversation() -> str:
        return f"app-{uuid.uuid4().hex}"

    # ---- the book -----------------------------------------------------------------------------------------

    @property
    def service(self):
        return getattr(self.assistant, "service", None)

    @property
    def monographs(self) -> list[Monograph]:
        return list(getattr(self.service, "monographs", []) or [])

    def monograph(self, drug_id: str) -> Monograph | None:
        return next((m for m in self.monographs if m.drug_id == drug_id), None)

    def chunk(self, chunk_id: str) -> Chunk | None:
        """A chunk by id: the service's lookup when it has one, else from every chunk (read once)."""
        lookup = getattr(self.service, "chunk", None)
        if callable(lookup):
            return lookup(chunk_id)
        if self._chunks is None:
            all_chunks = getattr(self.service, "all_chunks", None)
            self._chunks = {c.chunk_id: c for c in all_chunks()} if callable(all_chunks) else {}
        return self._chunks.get(chunk_id)

    def facts(self) -> IndexFacts:
        manifest = getattr(self.service, "manifest", None)
        return IndexFacts(
            monographs=len(self.monographs),
            chunks=getattr(manifest, "chunk_count", 0) or 0,
            built_at=(getattr(manifest, "built_at", "") or "")[:10],
            model=(getattr(manifest, "model_id", "") or "").split("@")[0],
        )

    def engine(self) -> str:
        return getattr(self.assistant, "engine_name", None) or self.settings.engine

    def engine_error(self) -> str | None:
        """Why the configured engine cannot answer (no loadable GGUF), or None."""
        return getattr(self.assistant, "engine_error", None)

    # ---- pages and the PDF --------------------------------------------------------------------------------

    def _read_page_map(self) -> None:
        if self.index_dir is None:
            return
        try:
            self.page_map = PageMap.model_validate_json((self.index_dir / PAGES_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            log.warning("no page map in %s: %s", self.index_dir, err)

    def printed_for(self, physical: int) -> int | None:
        return self.page_map.printed_for(physical) if self.page_map is not None else None

    def physical_for(self, printed: int) -> int | None:
        return self.page_map.physical_for(printed) if self.page_map is not None else None

    def _close_locator(self) -> None:
        if self._locator is not None:
            self._locator.close()
            self._locator = None

    def set_pdf(self, path: Path) -> None:
        self._close_locator()
        self.pdf_path = Path(path)
        self.check_pdf()

    def check_pdf(self) -> None:
        """Whether quotes may be highlighted on `pdf_path` (a different PDF than the index's must not be)."""
        from duocthu_desktop import pdf_check

        if self.pdf_path is None:
            self.pdf_message = pdf_check.MSG_PDF_MISSING
        elif self.index_dir is None:
            self.pdf_message = None if self.pdf_path.is_file() else pdf_check.MSG_PDF_MISSING
        else:
            self.pdf_message = pdf_check.check_pdf(self.index_dir, self.pdf_path)

    @property
    def may_highlight(self) -> bool:
        from duocthu_desktop import pdf_check

        return self.pdf_path is not None and pdf_check.may_highlight(self.pdf_message)

    def locate(self, citation: Citation, within_chunk: bool = True
               ) -> list[tuple[int, list[tuple[float, float, float, float]]]]:
        """[(physical page, [rects in PDF points])] of the citation's quote (found within its chunk, or on the
        cited page alone without `within_chunk`); [] when it cannot be highlighted."""
        if not self.may_highlight:
            return []
        if self._locator is None:
            self._locator = LocatorProcess(self.pdf_path)
        return self._locator.locate(citation, self.chunk(citation.chunk_id) if within_chunk else None)

    def page_caption(self, physical: int) -> str | None:
        """What a file page holds, for the caption above the PDF while a person browses: the monograph(s) on it
        and the sections printed on it ("Paracetamol · Chỉ định, Liều lượng và cách dùng"); None off the book."""
        printed = self.printed_for(physical)
        parts = []
        for mono in self.monographs:
            if not mono.start_physical <= physical <= mono.end_physical:
                continue
            headings = [s.heading for s in mono.sections if printed is not None and s.start_printed is not None
                        and s.start_printed <= printed <= (s.end_printed or s.start_printed)]
            parts.append(" · ".join([mono.title.capitalize(), ", ".join(headings)] if headings
                                    else [mono.title.capitalize()]))
        return " | ".join(parts) or None

    def section_start(self, drug_id: str, section_key: str) -> tuple[int, float] | None:
        """(file page, y in points) of a section's heading as printed, else of the monograph's title, for a jump
        that lands on the heading; None when neither is found (the page's top is all there is)."""
        mono = self.monograph(drug_id)
        if mono is None or not self.may_highlight:
            return None
        section = next((s for s in mono.sections if s.key == section_key), None)
        printed = section.start_printed if section is not None else None
        physical = (self.physical_for(printed) if printed is not None else None) or mono.start_physical
        tries = [(section.heading, physical)] if section is not None else []
        tries.append((mono.title, mono.start_physical))
        for text, page in tries:
            probe = Citation(index=1, chunk_id=f"{drug_id}__{section_key}", drug_id=drug_id, section_key=section_key,
                             printed_page=self.printed_for(page), physical_page=page, quote=text)
            found = [(p, rects) for p, rects in self.locate(probe, within_chunk=False) if rects]
            if found:
                return found[0][0], min(r[1] for r in found[0][1])
        return None

    def warm_locator(self) -> None:
        """Start the quote finder and open the PDF in it (on the PDF lane, at start), so the first chip is quick."""
        if self.may_highlight and self._locator is None:
            self._locator = LocatorProcess(self.pdf_path)
            self._locator.warm()
