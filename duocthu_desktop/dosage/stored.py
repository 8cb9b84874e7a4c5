"""The dose rows the build already read (dosing.jsonl), used in place of reading a dosage section again.

Reading a section costs 25-50 ms, a fifth of a warm turn at full size; the build has read every section once
(`read_book`) and written the rows. They stand for what this code would read only while the code is the code
that wrote them: the build records `code_sha256(DOSAGE_PACKAGE)` in manifest.json, and an index whose digest
differs from the running code's (the parser changed since, or the sources cannot be read) reads its sections
again, as before. A section's stored rows are used only for the very chunks the build read them from (the same
ids, in the same order, with the same text): anything else is read.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from pathlib import Path

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.code_digest import code_sha256
from duocthu_desktop.dosage.rows import DOSING_FILE, DoseRow

log = logging.getLogger(__name__)
DOSAGE_PACKAGE = "duocthu_desktop.dosage"  # the code the rows depend on (with what it imports)


def dosing_code_sha256() -> str | None:
    """The digest of the code that reads dose rows, as the build records it and the app compares it."""
    return code_sha256(DOSAGE_PACKAGE)


class StoredRows:
    """dosing.jsonl of one index, grouped by drug on first use; each drug's lines parsed when first asked.

    `all_chunks` returns the index's chunks (verified) once they are in memory, else None: before that nothing
    is used from the file (a one-question process reads its one section faster than it would read every chunk).
    """

    def __init__(self, path: Path, all_chunks: Callable[[], list[Chunk] | None]) -> None:
        self.path = Path(path)
        self._all_chunks = all_chunks
        self._lock = threading.Lock()
        self._sections: dict[str, tuple[Chunk, ...]] | None = None  # drug_id -> the chunks the build read
        self._lines: dict[str, list[str]] = {}
        self._rows: dict[str, list[DoseRow]] = {}
        self._routes: dict[str, tuple[str, ...]] = {}  # drug_id -> the route its INN line names (monograph_route)

    def rows_for(self, drug_id: str, chunks: list[Chunk]) -> list[DoseRow] | None:
        """The stored rows of `drug_id`'s dosage section if `chunks` are exactly the chunks they were read from."""
        with self._lock:
            if self._sections is None and not self._load():
                return None
            built = self._sections.get(drug_id) if self._sections is not None else None
            if built is None or tuple(chunks) != built:
                return None
            if drug_id not in self._rows:
                self._rows[drug_id] = [DoseRow.model_validate_json(line) for line in self._lines.get(drug_id, ())]
            return list(self._rows[drug_id])

    def all_rows(self) -> list[DoseRow] | None:
        """Every stored row, in the file's order (the browser's outline); None until the chunks are in memory."""
        with self._lock:
            if self._sections is None and not self._load():
                return None
            for drug_id in self._lines:
                if drug_id not in self._rows:
                    self._rows[drug_id] = [DoseRow.model_validate_json(line) for line in self._lines[drug_id]]
            return [row for drug_id in self._lines for row in self._rows[drug_id]]

    def monograph_routes(self, drug_id: str) -> tuple[str, ...]:
        """The route a monograph's INN line names, for a section read again (as `read_book` gives it)."""
        with self._lock:
            if self._sections is None and not self._load():
                return ()
            return self._routes.get(drug_id, ())

    def _load(self) -> bool:
        chunks = self._all_chunks()
        if chunks is None:
            return False
        from duocthu_desktop.dosage.parser import (  # the grouping `read_book` reads by
            DOSAGE_KEY,
            IDENTITY_KEY,
            _order,
        )
        from duocthu_desktop.dosage.words import monograph_route

        by_drug: dict[str, list[Chunk]] = {}
        for chunk in chunks:
            if chunk.section_key == DOSAGE_KEY:
                by_drug.setdefault(chunk.drug_id, []).append(chunk)
            elif chunk.section_key == IDENTITY_KEY and chunk.drug_id not in self._routes:
                self._routes[chunk.drug_id] = tuple(monograph_route(chunk.text))
        lines: dict[str, list[str]] = {}
        try:
            with open(self.path, encoding="utf-8") as fh:
                for line in fh:
                    if line.strip():
                        lines.setdefault(_drug_of(line), []).append(line)
        except (OSError, ValueError) as err:
            log.warning("stored dose rows not used (%s): sections are read again", err)
            self._sections = {}
            return True
        self._lines = lines
        self._sections = {d: tuple(sorted(section, key=_order)) for d, section in by_drug.items()}
        return True


def _drug_of(line: str) -> str:
    """The drug_id of one dosing.jsonl line: its first field as `write_dosing` writes it, else parsed."""
    head = '{"drug_id": "'
    if line.startswith(head):
        end = line.find('"', len(head))
        value = line[len(head) : end]
        if end > 0 and "\\" not in value:
            return value
    return json.loads(line)["drug_id"]


_CURRENT: StoredRows | None = None
# the open index's INN-line route of a drug, read from its identity section: a section read again (no stored rows
# for this code, or the chunks not yet all in memory) is read with it, as `read_book` read it at the build
_ROUTES_OF: Callable[[str], tuple[str, ...]] | None = None


def use(stored: StoredRows | None, routes_of: Callable[[str], tuple[str, ...]] | None = None) -> None:
    """Make `stored` the rows `section_rows` consults (the index just opened), or none; `routes_of` gives a
    monograph's INN-line route when `stored` cannot."""
    global _CURRENT, _ROUTES_OF
    _CURRENT, _ROUTES_OF = stored, routes_of


def current() -> StoredRows | None:
    return _CURRENT


def monograph_routes(drug_id: str) -> tuple[str, ...]:
    """The open index's route for a monograph of one form, () when none is open or it names none."""
    stored = _CURRENT
    routes = stored.monograph_routes(drug_id) if stored is not None else ()
    if not routes and _ROUTES_OF is not None:
        routes = _ROUTES_OF(drug_id)
    return routes


def stored_rows(drug_id: str, chunks: list[Chunk]) -> list[DoseRow] | None:
    """The open index's stored rows for this section, or None to read it."""
    stored = _CURRENT
    return stored.rows_for(drug_id, chunks) if stored is not None else None


def open_stored(index_dir: Path, recorded: str | None, all_chunks: Callable[[], list[Chunk] | None]
                ) -> StoredRows | None:
    """The stored rows of an index folder when the build's recorded code digest is the running code's."""
    path = Path(index_dir) / DOSING_FILE
    if recorded is None or not path.is_file():
        return None
    running = dosing_code_sha256()
    if running != recorded:
        log.info("dose rows of %s were read by other code (%s, running %s): sections are read again",
                 index_dir, recorded[:12], (running or "unknown")[:12])
        return None
    return StoredRows(path, all_chunks)


def book_rows(index_dir: Path) -> list[DoseRow]:
    """Every dose row of an index folder, as the running code reads them: dosing.jsonl when the build's parser is
    this one (manifest.json `code_sha256`), else every dosage section read again from chunks.jsonl."""
    from duocthu_desktop.artifacts import CHUNKS_FILE, read_chunks
    from duocthu_desktop.dosage.parser import read_book
    from duocthu_desktop.dosage.rows import read_dosing

    index_dir = Path(index_dir)
    try:
        manifest = json.loads((index_dir / "manifest.json").read_text(encoding="utf-8"))
        recorded = (manifest.get("code_sha256") or {}).get(DOSING_FILE)
    except (OSError, ValueError, AttributeError):
        recorded = None
    if recorded is not None and recorded == dosing_code_sha256() and (index_dir / DOSING_FILE).is_file():
        return read_dosing(index_dir / DOSING_FILE)
    return read_book(read_chunks(index_dir / CHUNKS_FILE))
