"""Server mode: the index a hospital published to its Chroma server, with the folder on this laptop (if any) as
the fallback.

At open the server's heartbeat, version and pointer are read, the artifact files fetched (once; retrieval.
published) and the chunks read from the published collection. When the server cannot be used at open, the local
folder opens instead, said in one line. When it stops answering mid-session, the store switches to the local
folder if that folder holds the same chunks (same chunks_sha256 and model, so every answer and digest is the
same), said once in the next answer; otherwise each turn says the server is down (provider_unavailable), and
the next start opens the folder.
"""

from __future__ import annotations

import logging
from pathlib import Path

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.errors import IndexError_
from duocthu_desktop.messages import FELL_BACK_AT_OPEN, FELL_BACK_MID_SESSION
from duocthu_desktop.retrieval.chroma_store import ChromaStore
from duocthu_desktop.retrieval.manifest import CHROMA_DIR, read_manifest
from duocthu_desktop.retrieval.published import CACHE_SUBDIR, PUBLISH_HINT, fetch, read_pointer
from duocthu_desktop.retrieval.server import DEFAULT_TIMEOUT, ServerAddress, http_client
from duocthu_desktop.settings import Settings, cache_dir

log = logging.getLogger(__name__)


def address_of(url: str, settings: Settings | None) -> ServerAddress:
    if settings is None:
        from duocthu_desktop.retrieval.server import address_from

        return address_from(url)
    return ServerAddress(url=url, token=settings.chroma_token, timeout=settings.chroma_timeout or DEFAULT_TIMEOUT)


def open_published(address: ServerAddress, cache_root: Path | None = None):
    """(folder of the fetched artifact files, the ChromaStore of the published chunks, the pointer)."""
    client = http_client(address)
    pointer = read_pointer(client, address.url)
    if pointer is None:
        raise IndexError_(f"The Chroma server at {address.url} holds no published index: {PUBLISH_HINT}.")
    folder = fetch(client, pointer, Path(cache_root or cache_dir() / CACHE_SUBDIR), address.url)
    try:
        collection = client.get_collection(pointer.chunks_collection, embedding_function=None)
    except Exception as err:  # noqa: BLE001 - a lost server or a collection deleted by hand
        from duocthu_desktop.errors import ServerUnavailable

        raise ServerUnavailable(f"The Chroma server at {address.url} does not serve {pointer.chunks_collection} "
                                f"({type(err).__name__}): {PUBLISH_HINT} again.") from err
    return folder, ChromaStore(client, collection, address.url), pointer


def open_shared(cls, url: str, fallback: Path | None, settings: Settings | None, embedder):
    """RetrievalService (`cls`) over the published index at `url`, or over `fallback` when the server cannot
    be used (IndexError_ without one)."""
    address = address_of(url, settings)
    try:
        folder, store, _ = open_published(address)
    except IndexError_ as err:
        if fallback is None:
            raise
        log.warning("server index at %s not used (%s); opening %s", url, err, fallback)
        service = cls.open_folder(fallback, settings, embedder)
        service.notice = FELL_BACK_AT_OPEN.format(url=url, folder=fallback)
        return service
    if fallback is not None:
        store = FailoverStore(store, fallback, url)
    try:
        service = cls.open_folder(folder, settings, embedder, store_for=lambda _m: store, location=url)
    except BaseException:
        store.close()
        raise
    if isinstance(store, FailoverStore):
        store.expect(service.manifest)
    return service


class FailoverStore:
    """The server's ChunkStore, switching for good to the folder's embedded store at the first failed call
    when that folder holds the same index."""

    def __init__(self, primary: ChromaStore, folder: Path, url: str) -> None:
        self.primary, self.folder, self.url = primary, Path(folder), url
        self.active: ChromaStore = primary
        self._manifest = None
        self._notice: str | None = None
        self._no_fallback = False  # found unusable once: not looked at again (nor logged) this session

    @property
    def location(self) -> str:
        return self.active.location

    def expect(self, manifest) -> None:
        self._manifest = manifest

    def take_notice(self) -> str | None:
        notice, self._notice = self._notice, None
        return notice

    def _local(self) -> ChromaStore | None:
        """The folder's store if it holds what the server published, else None (said in the log, once)."""
        if self._no_fallback:
            return None
        self._no_fallback = True
        try:
            local = read_manifest(self.folder)
        except IndexError_ as err:
            log.warning("no fallback: %s", err)
            return None
        published = self._manifest
        if published is None or (local.chunks_sha256, local.model_id) != (published.chunks_sha256,
                                                                           published.model_id):
            log.warning("no fallback mid-session: the index at %s is another build than the one published at %s "
                        "(it opens at the next start)", self.folder, self.url)
            return None
        try:
            store = ChromaStore.open_persistent(self.folder / CHROMA_DIR, local.collection)
        except IndexError_ as err:
            log.warning("no fallback: %s", err)
            return None
        self._no_fallback = False
        return store

    def _call(self, name: str, *args):
        if self.active is not self.primary:
            return getattr(self.active, name)(*args)
        try:
            return getattr(self.primary, name)(*args)
        except Exception as err:  # noqa: BLE001 - a lost server fails in httpx or chromadb in many ways
            local = self._local()
            if local is None:
                raise
            log.warning("Chroma server at %s failed (%s: %s); answering from %s from now on", self.url,
                        type(err).__name__, str(err)[:200], self.folder)
            self.active = local
            self._notice = FELL_BACK_MID_SESSION.format(url=self.url, folder=self.folder)
            self.primary.close()
            return getattr(local, name)(*args)

    def count(self) -> int:
        return self._call("count")

    def get(self, where: dict) -> list[Chunk]:
        return self._call("get", where)

    def get_by_id(self, chunk_id: str) -> Chunk | None:
        return self._call("get_by_id", chunk_id)

    def all(self) -> list[Chunk]:
        return self._call("all")

    def query(self, vector: list[float], k: int, where: dict | None = None) -> list[tuple[Chunk, float]]:
        return self._call("query", vector, k, where)

    def close(self) -> None:
        for store in {id(s): s for s in (self.primary, self.active)}.values():
            store.close()
