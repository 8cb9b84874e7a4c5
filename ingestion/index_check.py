"""`duocthu-ingest check`'s cross-checks: the artifacts still hold what the build recorded, and the Chroma index
holds exactly the chunks of chunks.jsonl, readable and whole. One English line per mismatch (an admin tool).

This is the thorough check: it reads every Chroma record (in the folder, and on the server DUOCTHU_CHROMA_URL
names when set), hashes every artifact and chunk against the manifest's sha256, and runs SQLite's own integrity
checks on a copy of the database. Every open of an index runs only the cheap part (manifest.check_artifacts: line
counts and one digest per file); the chunks a turn reads are hashed as they are read (RetrievalService).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path

from duocthu_desktop.artifacts import CHUNKS_FILE, MONOGRAPHS_FILE, Chunk, Monograph, PageMap
from duocthu_desktop.errors import IndexError_
from duocthu_desktop.retrieval.manifest import (
    CHROMA_DIR,
    MANIFEST_FILE,
    IndexManifest,
    chunk_digests,
    chunks_sha256,
    count_mismatches,
    digest_mismatches,
    file_sha256,
    read_manifest,
)
from duocthu_desktop.settings import ENV_CHROMA_URL

DB_FILE = "chroma.sqlite3"
PROBES = 8  # chunks whose own stored vector must find them again (a damaged vector index does not)


def mismatches(folder: Path, monographs: list[Monograph], chunks: list[Chunk], pages: PageMap,
               server: str | None = None, local_chroma: bool = True) -> list[str]:
    """Every way the folder differs from what its build wrote, one line each; [] for a sound folder. The
    artifact files are checked against the sha256 the manifest records; the Chroma records, in the folder and on
    the server `server` (default DUOCTHU_CHROMA_URL, when set), against chunks.jsonl and each chunk's sha256.
    `local_chroma` False for the files a server published, fetched into the cache (no Chroma folder of their
    own)."""
    folder = Path(folder)
    lines: list[str] = []
    manifest: IndexManifest | None = None
    if (folder / MANIFEST_FILE).exists():
        try:
            manifest = read_manifest(folder)
        except IndexError_ as err:
            lines.append(f"{MANIFEST_FILE} unreadable: {err}")
    elif local_chroma and (folder / CHROMA_DIR).exists():
        lines.append(f"{CHROMA_DIR}/ without {MANIFEST_FILE}: the index was never completed")
    lines += count_mismatches(folder, manifest, {MONOGRAPHS_FILE: len(monographs), CHUNKS_FILE: len(chunks)})
    lines += _drug_mismatches(monographs, chunks)
    if manifest is not None:
        if manifest.chunks_sha256 != chunks_sha256(chunks):
            lines.append(f"{CHUNKS_FILE} differs from the chunks that were indexed (chunks_sha256)")
        if manifest.corpus_sha256 not in (pages.source_sha256, manifest.chunks_sha256):
            lines.append("pages.json names another source PDF than the one indexed (corpus_sha256)")
        lines += digest_mismatches(folder, manifest)
        if manifest.chunk_sha256 is not None:
            changed = sorted(i for i, d in chunk_digests(chunks).items() if manifest.chunk_sha256.get(i) != d)
            if changed:
                lines.append(f"{CHUNKS_FILE} holds {len(changed)} chunks that do not hash to the sha256 in "
                             f"{MANIFEST_FILE} ({_some(changed)})")
        if local_chroma:
            lines += chroma_mismatches(folder / CHROMA_DIR, manifest, chunks)
        url = os.environ.get(ENV_CHROMA_URL) if server is None else server
        if url:
            lines += server_mismatches(url, manifest, chunks, folder)
    return lines


def _drug_mismatches(monographs: list[Monograph], chunks: list[Chunk]) -> list[str]:
    listed = {m.drug_id for m in monographs}
    orphans = sorted({c.drug_id for c in chunks} - listed)
    if not orphans:
        return []
    return [f"{CHUNKS_FILE} holds chunks of {len(orphans)} drug ids missing from {MONOGRAPHS_FILE} "
            f"({_some(orphans)})"]


def _some(items: list[str], n: int = 3) -> str:
    return ", ".join(items[:n]) + (", …" if len(items) > n else "")


def chroma_mismatches(chroma_dir: Path, manifest: IndexManifest, chunks: list[Chunk]) -> list[str]:
    """The Chroma database against chunks.jsonl: SQLite integrity, every record read back, ids and content."""
    from duocthu_desktop.retrieval.chroma_store import ChromaStore

    db = chroma_dir / DB_FILE
    if not db.is_file():
        return [f"{CHROMA_DIR}/{DB_FILE} is missing"]
    lines = sqlite_problems(db)
    return lines + _store_mismatches(lambda: ChromaStore.open_persistent(chroma_dir, manifest.collection), "chroma",
                                     manifest, chunks)


def server_mismatches(url: str, manifest: IndexManifest, chunks: list[Chunk], folder: Path | None = None
                      ) -> list[str]:
    """The index published on the Chroma server at `url` (retrieval.published) against chunks.jsonl and the
    manifest's digests, and its files against the folder's (when `folder` is given)."""
    from duocthu_desktop.errors import IndexError_
    from duocthu_desktop.retrieval.published import read_pointer
    from duocthu_desktop.retrieval.server import address_from, http_client

    label = f"the server at {url}"
    try:
        client = http_client(address_from(url))
        pointer = read_pointer(client, url)
    except IndexError_ as err:
        return [f"{label} cannot be read ({err})"]
    if pointer is None:
        return [f"{label} holds no published index (duocthu-ingest publish DIR --url {url})"]
    lines: list[str] = []
    if folder is not None:
        for published in pointer.files:
            path = Path(folder) / published.name
            if path.is_file() and file_sha256(path) != published.sha256:
                lines.append(f"{label} publishes a {published.name} other than the folder's (sha256 "
                             f"{published.sha256[:12]}…)")

    def opener():
        from duocthu_desktop.retrieval.chroma_store import ChromaStore

        return ChromaStore(client, client.get_collection(pointer.chunks_collection, embedding_function=None), url)

    return lines + _store_mismatches(opener, label, manifest, chunks)


def _store_mismatches(opener, label: str, manifest: IndexManifest, chunks: list[Chunk]) -> list[str]:
    lines: list[str] = []
    try:
        with opener() as store:
            count = store.count()
            stored, vectors = store.vectors()
            documents = store.documents()
            lost = _probe(store, stored, vectors)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as err:  # noqa: BLE001 - chromadb's native panics are BaseExceptions
        first = str(err).strip().splitlines()[0] if str(err).strip() else ""
        return [f"{label} cannot be read ({type(err).__name__}: {first[:200]})"]
    if count != manifest.chunk_count:
        lines.append(f"{label} holds {count} records, {MANIFEST_FILE} records {manifest.chunk_count}")
    written = {c.chunk_id: c for c in chunks}
    found = {c.chunk_id: c for c in stored}
    if len(found) != len(stored):
        lines.append(f"{label} holds {len(stored) - len(found)} duplicate chunk ids")
    missing = sorted(set(written) - set(found))
    extra = sorted(set(found) - set(written))
    changed = sorted(i for i in set(found) & set(written) if found[i] != written[i])
    if missing:
        lines.append(f"{label} lacks {len(missing)} chunk ids of {CHUNKS_FILE} ({_some(missing)})")
    if extra:
        lines.append(f"{label} holds {len(extra)} chunk ids not in {CHUNKS_FILE} ({_some(extra)})")
    if changed:
        lines.append(f"{label}'s copy of {len(changed)} chunks differs from {CHUNKS_FILE} ({_some(changed)})")
    if manifest.chunk_sha256 is not None:
        unpinned = sorted(i for i, d in chunk_digests(stored).items() if manifest.chunk_sha256.get(i) != d)
        if unpinned:
            lines.append(f"{label}'s copy of {len(unpinned)} chunks does not hash to the sha256 in {MANIFEST_FILE} "
                         f"({_some(unpinned)})")
    texts = sorted(i for i in set(found) & set(written) if documents.get(i) != written[i].text)
    if texts:
        lines.append(f"{label}'s document text of {len(texts)} chunks differs from {CHUNKS_FILE} ({_some(texts)})")
    if lost:
        lines.append(f"{label}'s vector index does not find {len(lost)} chunks by their own vector ({_some(lost)})")
    return lines


def _probe(store, stored: list[Chunk], vectors: list[list[float]]) -> list[str]:
    """Chunk ids, of a few spread over the book, that a query by their own stored vector does not return."""
    if not stored:
        return []
    step = max(1, len(stored) // PROBES)
    lost: list[str] = []
    for i in range(0, len(stored), step):
        hits = {c.chunk_id for c, _ in store.query(vectors[i], k=3)}
        if stored[i].chunk_id not in hits:
            lost.append(stored[i].chunk_id)
    return lost


def sqlite_problems(db: Path) -> list[str]:
    """SQLite's own checks, on a copy (opening the index with Chroma writes to it): the b-tree structure
    (integrity_check), every row read back (text that is not UTF-8), and each FTS5 index's integrity-check."""
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="duocthu-check-") as tmp:
        copy = Path(tmp) / db.name
        for part in db.parent.glob(f"{db.name}*"):  # the database and any -wal / -shm beside it
            shutil.copyfile(part, Path(tmp) / part.name)
        try:
            with closing(sqlite3.connect(copy)) as con:
                lines += _integrity(con)
                lines += _unreadable_rows(con)
                lines += _fts_problems(con)
        except sqlite3.Error as err:
            lines.append(f"{DB_FILE} cannot be opened ({err})")
    return lines


def _integrity(con: sqlite3.Connection) -> list[str]:
    try:
        rows = [r[0] for r in con.execute("PRAGMA integrity_check")]
    except sqlite3.Error as err:
        return [f"{DB_FILE} integrity_check: {err}"]
    if rows == ["ok"]:
        return []
    first = str(rows[0]).replace("*** in database main ***", "").strip().splitlines()[0]
    return [f"{DB_FILE} integrity_check: {first}" + (f" (and {len(rows) - 1} more)" if len(rows) > 1 else "")]


def _unreadable_rows(con: sqlite3.Connection) -> list[str]:
    lines: list[str] = []
    tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
    for table in tables:
        try:
            for _ in con.execute(f'SELECT * FROM "{table}"'):
                pass
        except sqlite3.Error as err:
            lines.append(f"{DB_FILE} table {table} cannot be read back ({str(err)[:120]})")
    return lines


def _fts_problems(con: sqlite3.Connection) -> list[str]:
    lines: list[str] = []
    fts = [r[0] for r in con.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%'")]
    for table in fts:
        try:
            con.execute(f'INSERT INTO "{table}"("{table}", rank) VALUES (\'integrity-check\', 1)')
        except sqlite3.Error as err:
            lines.append(f"{DB_FILE} full-text index {table}: {err}")
    return lines
