"""What `duocthu-ingest publish` leaves on a Chroma server, and how the app reads it back.

A published index is three things on the server, each a Chroma collection:

- the chunks, with the vectors the build made (`{manifest collection}-{vectors digest}`), the same records as
  the folder's own collection;
- the artifact files (`duocthu-files-{digest of the file set}`), each cut at line ends into pieces of at most
  PIECE_CHARS characters held in one record's metadata (Chroma stores documents in a full-text index too, which
  these need not be in), so the app reads monographs, dose rows, page map, chunks, manifest and report as the
  folder holds them, byte for byte;
- a pointer (collection `duocthu-published`, one record) naming the two, with every file's sha256.

Both names are derived from their content, so what a name holds never changes under a reader; the pointer is
switched last, in one write, so a reader sees the old index or the new one, never half of either. The app fetches
the files once, checks each against the pointer's sha256 (and the four the manifest pins against the manifest's),
and keeps them in the cache folder under the files collection's name, written aside and renamed into place.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import tempfile
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from duocthu_desktop.artifacts import CATALOG_FILE, CHUNKS_FILE, MONOGRAPHS_FILE, PAGES_FILE, REPORT_FILE
from duocthu_desktop.dosage.rows import DOSING_FILE
from duocthu_desktop.errors import IndexError_, ServerUnavailable
from duocthu_desktop.retrieval.manifest import MANIFEST_FILE, IndexManifest

log = logging.getLogger(__name__)

POINTER_COLLECTION = "duocthu-published"
POINTER_ID = "current"
FORMAT_VERSION = 1
PIECE_CHARS = 500_000  # per record: well under what one request to the server may carry
# What the app opens of an index folder besides Chroma (the manifest first: it pins the four it digests); the
# optional ones are published when the folder has them (the app does without, saying so, as from a folder).
PUBLISHED_FILES = (MANIFEST_FILE, MONOGRAPHS_FILE, CHUNKS_FILE, DOSING_FILE, PAGES_FILE, REPORT_FILE, CATALOG_FILE)
OPTIONAL_FILES = (DOSING_FILE, PAGES_FILE, REPORT_FILE, CATALOG_FILE)
CACHE_SUBDIR = "server-index"
PUBLISH_HINT = "publish it with `duocthu-ingest publish DIR --url URL`"


class PublishedFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    sha256: str
    size: int
    pieces: int


class Pointer(BaseModel):
    """The one record that says which index the server serves."""

    model_config = ConfigDict(extra="forbid")
    format_version: int = FORMAT_VERSION
    chunks_collection: str
    files_collection: str
    chunk_count: int
    vectors_sha256: str
    files: list[PublishedFile]
    published_at: str
    previous: list[str] = []  # the collections of the index this one replaced (kept for readers still on it)

    @property
    def collections(self) -> list[str]:
        return [self.chunks_collection, self.files_collection]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pieces_of(data: bytes, limit: int = PIECE_CHARS) -> list[str]:
    """The file's text cut at line ends into pieces of at most `limit` characters (a longer line is cut
    inside); joined again they are the file, byte for byte. ValueError for a file that is not UTF-8."""
    text = data.decode("utf-8")
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    for line in text.splitlines(keepends=True):
        while len(line) > limit:
            if current:
                pieces.append("".join(current))
                current, size = [], 0
            pieces.append(line[:limit])
            line = line[limit:]
        if size + len(line) > limit and current:
            pieces.append("".join(current))
            current, size = [], 0
        current.append(line)
        size += len(line)
    if current or not pieces:
        pieces.append("".join(current))
    return pieces


def piece_id(name: str, index: int) -> str:
    return f"{name}#{index}"


def files_collection_name(files: list[PublishedFile]) -> str:
    digest = sha256(json.dumps([f.model_dump() for f in files], sort_keys=True).encode())
    return f"duocthu-files-{digest[:24]}"


def vectors_digest(ids: list[str], vectors: list[list[float]]) -> str:
    """sha256 over the chunk ids and their vectors (as float32, in order): what names the chunk collection."""
    import numpy as np

    digest = hashlib.sha256()
    for chunk_id, vector in zip(ids, vectors, strict=True):
        digest.update(chunk_id.encode())
        digest.update(np.asarray(vector, dtype=np.float32).tobytes())
    return digest.hexdigest()


# ---- reading, for the app ---------------------------------------------------------------------------------


def read_pointer(client, where: str) -> Pointer | None:
    """The server's pointer, or None when nothing was ever published there."""
    try:
        names = {getattr(c, "name", c) for c in client.list_collections()}
        if POINTER_COLLECTION not in names:
            return None
        got = client.get_collection(POINTER_COLLECTION, embedding_function=None).get(
            ids=[POINTER_ID], include=["metadatas"])
    except ServerUnavailable:
        raise
    except Exception as err:  # noqa: BLE001 - httpx and chromadb raise many types for one lost server
        raise ServerUnavailable(f"The Chroma server at {where} does not answer ({type(err).__name__}: "
                                f"{str(err)[:200]}).") from err
    if not got["metadatas"]:
        return None
    try:
        return Pointer.model_validate_json(got["metadatas"][0]["pointer"])
    except (KeyError, TypeError, ValidationError) as err:
        raise IndexError_(f"The index published at {where} has an unreadable pointer ({type(err).__name__}): "
                          f"{PUBLISH_HINT} again.") from err


def read_file(collection, published: PublishedFile, where: str) -> bytes:
    """One published file, whole, checked against the sha256 the pointer records."""
    ids = [piece_id(published.name, i) for i in range(published.pieces)]
    got = collection.get(ids=ids, include=["metadatas"])
    by_id = dict(zip(got["ids"], got["metadatas"], strict=True))
    if set(by_id) != set(ids):
        raise IndexError_(f"The index published at {where} lacks {len(set(ids) - set(by_id))} pieces of "
                          f"{published.name}: {PUBLISH_HINT} again.")
    data = "".join(str(by_id[i].get("data", "")) for i in ids).encode("utf-8")
    if sha256(data) != published.sha256:
        raise IndexError_(f"{published.name} as published at {where} does not hash to the sha256 its pointer "
                          f"records (changed or damaged on the server): {PUBLISH_HINT} again.")
    return data


def _cached(folder: Path, pointer: Pointer) -> bool:
    """Whether `folder` holds every file of `pointer`, each as published."""
    try:
        return all(sha256((folder / f.name).read_bytes()) == f.sha256 for f in pointer.files)
    except OSError:
        return False


def check_against_manifest(files: dict[str, bytes], where: str) -> IndexManifest:
    """The manifest among `files`, after the files it pins (monographs, chunks, dose rows, page map) were found
    to hash to its sha256: a pointer rewritten to name other files is refused too."""
    from duocthu_desktop.retrieval.manifest import refuse_tampered

    try:
        manifest = IndexManifest.model_validate_json(files[MANIFEST_FILE])
    except (KeyError, ValueError, ValidationError) as err:
        raise IndexError_(f"The index published at {where} has no readable {MANIFEST_FILE}: {PUBLISH_HINT} "
                          "again.") from err
    changed = [name for name, digest in (manifest.file_sha256 or {}).items()
               if name in files and sha256(files[name]) != digest]
    missing = [name for name in (manifest.file_sha256 or {}) if name not in files]
    if changed or missing:
        raise refuse_tampered(where, changed + missing, [f"{n} does not match manifest.json" for n in changed]
                              + [f"{n} is not published" for n in missing])
    return manifest


def fetch(client, pointer: Pointer, cache_root: Path, where: str) -> Path:
    """The published files in a folder of their own under `cache_root` (reused when already there and whole),
    each checked against the pointer and the manifest; written aside, then renamed into place."""
    folder = Path(cache_root) / pointer.files_collection
    if _cached(folder, pointer):
        return folder
    try:
        collection = client.get_collection(pointer.files_collection, embedding_function=None)
        files = {f.name: read_file(collection, f, where) for f in pointer.files}
    except IndexError_:
        raise
    except Exception as err:  # noqa: BLE001 - a lost server, said as one
        raise ServerUnavailable(f"The Chroma server at {where} does not answer while sending the index files "
                                f"({type(err).__name__}: {str(err)[:200]}).") from err
    check_against_manifest(files, where)
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        for name, data in files.items():
            (staging / name).write_bytes(data)
        if folder.exists():  # an earlier copy that no longer checks out (a disk error, an edit)
            shutil.rmtree(folder)
        staging.rename(folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    log.info("index files from %s cached in %s", where, folder)
    return folder
