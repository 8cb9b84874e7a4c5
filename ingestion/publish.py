"""`duocthu-ingest publish DIR --url URL`: copy a built index to a Chroma server for a whole hospital.

The vectors are read back from the folder's own collection (no re-embedding) and added to the server under a
name derived from them; the artifact files go to a second collection named for their digests (layout:
retrieval.published). Both are read back and checked (counts, every chunk's sha256, the vectors' digest, every
file's sha256) before the pointer is switched to them, in one write, last: a publish stopped anywhere leaves the
server serving what it served before. The index the new one replaces is kept (a desk still on it keeps working
until it reopens); the one before that is deleted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from duocthu_desktop.artifacts import MONOGRAPHS_FILE, read_monographs
from duocthu_desktop.errors import IndexError_, InputRefused, ServerUnavailable
from duocthu_desktop.retrieval.chroma_store import ChromaStore, point_id
from duocthu_desktop.retrieval.manifest import (
    CHROMA_DIR,
    IndexManifest,
    check_artifacts,
    chunk_digests,
    read_manifest,
)
from duocthu_desktop.retrieval.published import (
    OPTIONAL_FILES,
    POINTER_COLLECTION,
    POINTER_ID,
    PUBLISHED_FILES,
    Pointer,
    PublishedFile,
    files_collection_name,
    piece_id,
    pieces_of,
    read_file,
    read_pointer,
    sha256,
    vectors_digest,
)
from duocthu_desktop.retrieval.server import ServerAddress, http_client

log = logging.getLogger(__name__)
ProgressFn = Callable[[str, int, int], None]
FILE_BATCH = 4  # pieces per request (each up to PIECE_CHARS characters)


@dataclass
class Published:
    pointer: Pointer
    uploaded: list[str]  # collections written (the others were already there, checked and reused)
    deleted: list[str]


def _refuse(err: Exception) -> InputRefused:
    return InputRefused(str(err))


def read_local(folder: Path) -> tuple[IndexManifest, dict[str, bytes], list, object]:
    """The folder's manifest, its files and its chunks with their vectors, after the same checks an open runs
    and each chunk against its sha256: a damaged folder is refused, never published."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputRefused(f"No index at {folder}: build one with `duocthu-ingest build --pdf PDF --out DIR`.")
    try:
        manifest = read_manifest(folder)
        check_artifacts(folder, manifest, len(read_monographs(folder / MONOGRAPHS_FILE)))
        with ChromaStore.open_persistent(folder / CHROMA_DIR, manifest.collection) as local:
            chunks, vectors = local.vectors()
    except IndexError_ as err:
        raise _refuse(err) from err
    except (OSError, ValueError) as err:
        raise InputRefused(f"The index at {folder} cannot be read ({type(err).__name__}: {err}).") from err
    import numpy as np

    vectors = np.asarray(vectors, dtype=np.float32)  # a tenth of the memory of lists of floats (full book: 37 MB)
    if len(chunks) != manifest.chunk_count:
        raise InputRefused(f"The index at {folder} holds {len(chunks)} chunks, its manifest says "
                           f"{manifest.chunk_count}: rebuild it.")
    if manifest.chunk_sha256 is not None:
        changed = [i for i, d in chunk_digests(chunks).items() if manifest.chunk_sha256.get(i) != d]
        if changed:
            raise InputRefused(f"The index at {folder} holds {len(changed)} chunks that do not hash to its "
                               f"manifest ({', '.join(changed[:3])}): rebuild it.")
    files: dict[str, bytes] = {}
    for name in PUBLISHED_FILES:
        path = folder / name
        if not path.is_file():
            if name in OPTIONAL_FILES:
                continue
            raise InputRefused(f"The index at {folder} has no {name}: rebuild it.")
        files[name] = path.read_bytes()
    return manifest, files, chunks, vectors


def _collections(client) -> set[str]:
    return {getattr(c, "name", c) for c in client.list_collections()}


VECTOR_TOLERANCE = 1e-5  # the server may store a vector renormalised: its last bit may differ


def _chunks_sound(store: ChromaStore, manifest: IndexManifest, vectors) -> list[str]:
    """What the server's copy of the chunks lacks, one line each ([] when it is the folder's: every chunk hashing
    to the manifest, in the same order, each vector the folder's within VECTOR_TOLERANCE)."""
    import numpy as np

    if store.count() != manifest.chunk_count:
        return [f"{store.count()} records, the manifest records {manifest.chunk_count}"]
    chunks, stored = store.vectors()
    stored = np.asarray(stored, dtype=np.float32)
    problems = []
    if manifest.chunk_sha256 is not None and chunk_digests(chunks) != manifest.chunk_sha256:
        problems.append("chunks that do not hash to the manifest")
    ours = np.asarray(vectors, dtype=np.float32)
    if ours.shape != stored.shape or not np.allclose(ours, stored, rtol=0, atol=VECTOR_TOLERANCE):
        problems.append("vectors that differ from the folder's")
    return problems


def _files_sound(collection, files: list[PublishedFile], where: str) -> list[str]:
    problems = []
    for published in files:
        try:
            read_file(collection, published, where)
        except IndexError_ as err:
            problems.append(str(err))
    if collection.count() != sum(f.pieces for f in files):
        problems.append(f"{collection.count()} records, {sum(f.pieces for f in files)} expected")
    return problems


def _verify(report: ProgressFn, what: str, checked: bool, problems_of: Callable[[], list[str]],
            most: int | None = None) -> None:
    """The `verify-<what>` stage: the server's copy read back (unless it was `checked` already) and found whole,
    else IndexError_ naming the first `most` problems (all of them by default); nothing is switched then."""
    report(f"verify-{what}", 0, 1)
    problems = [] if checked else problems_of()
    if problems:
        raise IndexError_(f"the server's copy of the {what} does not check out after publishing "
                          f"({'; '.join(problems[:most])}); nothing was switched")
    report(f"verify-{what}", 1, 1)


def publish(folder: Path, address: ServerAddress, on_progress: ProgressFn | None = None) -> Published:
    """Publish the index in `folder` to the server at `address`; InputRefused (exit 2) for a folder that is
    not a sound index, a server that is down or refuses the token; the server's earlier index stays served."""
    report = on_progress or (lambda stage, done, total: None)
    manifest, files, chunks, vectors = read_local(folder)
    vectors_sha = vectors_digest([c.chunk_id for c in chunks], vectors)
    pieces = {name: pieces_of(data) for name, data in files.items()}
    listed = [PublishedFile(name=name, sha256=sha256(data), size=len(data), pieces=len(pieces[name]))
              for name, data in files.items()]
    chunks_name = f"{manifest.collection}-{vectors_sha[:12]}"
    files_name = files_collection_name(listed)
    where = address.url
    uploaded: list[str] = []
    client = None
    try:
        client = http_client(address)
        old = read_pointer(client, where)
        current = set(old.collections) if old else set()
        existing = _collections(client)

        # the chunks, with the folder's vectors
        store = ChromaStore(client, None, where)
        checked = False  # the server's copy already read back and found whole
        if chunks_name in existing:
            store._collection = client.get_collection(chunks_name, embedding_function=None)
            checked = not _chunks_sound(store, manifest, vectors)
            if not checked:
                if chunks_name not in current:  # a leftover of a stopped publish: start it afresh
                    client.delete_collection(chunks_name)
                    existing.discard(chunks_name)
                _upload_chunks(client, store, chunks_name, chunks, vectors, report)
                uploaded.append(chunks_name)
        else:
            _upload_chunks(client, store, chunks_name, chunks, vectors, report)
            uploaded.append(chunks_name)
        _verify(report, "chunks", checked, lambda: _chunks_sound(store, manifest, vectors))

        # the files
        collection = client.get_or_create_collection(files_name, embedding_function=None,
                                                     configuration={"hnsw": {"space": "l2"}})
        checked = not _files_sound(collection, listed, where)
        if not checked:
            if files_name not in current:
                client.delete_collection(files_name)
                collection = client.get_or_create_collection(files_name, embedding_function=None,
                                                             configuration={"hnsw": {"space": "l2"}})
            _upload_files(collection, pieces, report)
            uploaded.append(files_name)
        _verify(report, "files", checked, lambda: _files_sound(collection, listed, where), most=3)

        # the switch, last
        new = Pointer(chunks_collection=chunks_name, files_collection=files_name, chunk_count=len(chunks),
                      vectors_sha256=vectors_sha, files=listed,
                      published_at=datetime.now(UTC).isoformat(timespec="seconds"),
                      previous=(old.collections if old and old.collections != [chunks_name, files_name]
                                else (old.previous if old else [])))
        pointers = client.get_or_create_collection(POINTER_COLLECTION, embedding_function=None,
                                                   configuration={"hnsw": {"space": "l2"}})
        pointers.upsert(ids=[POINTER_ID], embeddings=[[0.0]], metadatas=[{"pointer": new.model_dump_json()}])
        if read_pointer(client, where) != new:
            raise IndexError_("the pointer read back differs from the one written")

        # what neither the new index nor the one it replaced uses any more
        keep = set(new.collections) | set(new.previous)
        deleted = [name for name in (old.previous if old else []) if name not in keep]
        for name in deleted:
            try:
                client.delete_collection(name)
            except Exception as err:  # noqa: BLE001 - already gone, or deleted by hand
                log.info("collection %s not deleted: %s", name, err)
    except ServerUnavailable as err:
        raise InputRefused(f"{err} Nothing was switched: the server serves what it served before.") from err
    except IndexError_ as err:
        raise InputRefused(f"Publishing to {where} failed: {err}.") from err
    except InputRefused:
        raise
    except Exception as err:  # noqa: BLE001 - a server lost mid-publish fails in httpx or chromadb in many ways
        raise InputRefused(f"Publishing to {where} failed ({type(err).__name__}: {str(err)[:200]}); nothing was "
                           "switched: the server serves what it served before.") from err
    finally:
        if client is not None:
            ChromaStore(client, None, where).close()
    return Published(pointer=new, uploaded=uploaded, deleted=deleted)


def _upload_chunks(client, store: ChromaStore, name: str, chunks, vectors, report: ProgressFn) -> None:
    store._collection = client.get_or_create_collection(name, configuration={"hnsw": {"space": "cosine"}},
                                                        embedding_function=None)
    store.add(chunks, vectors, on_batch=lambda done, total: report("publish-chunks", done, total))
    wanted = {point_id(c.chunk_id) for c in chunks}
    extra = [i for i in store._collection.get(include=[])["ids"] if i not in wanted]
    if extra:  # records the folder does not hold (an edit on the server): gone
        store._collection.delete(ids=extra)


def _upload_files(collection, pieces: dict[str, list[str]], report: ProgressFn) -> None:
    records = [(piece_id(name, i), text) for name, texts in pieces.items() for i, text in enumerate(texts)]
    for start in range(0, len(records), FILE_BATCH):
        report("publish-files", start, len(records))
        part = records[start : start + FILE_BATCH]
        collection.upsert(ids=[i for i, _ in part], embeddings=[[0.0]] * len(part),
                          metadatas=[{"data": text} for _, text in part])
    report("publish-files", len(records), len(records))
