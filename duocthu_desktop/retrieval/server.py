"""A Chroma server, reached with a time limit on every call and an optional bearer token.

Chroma 1.x has no authentication of its own: a hospital puts a reverse proxy in front of it, and the token goes
in an `Authorization: Bearer` header on every request. Chroma's HTTP client waits forever by default (its httpx
session is made with `timeout=None`, and no setting changes it), so the session's timeout is set once the client
exists; before that, the heartbeat and the version are asked with the same limit, so a server that accepts and
never answers is found out within it and not inside chromadb's own start-up calls.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from urllib.parse import urlparse

import httpx

from duocthu_desktop.errors import ServerUnavailable

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 10.0  # seconds, for every HTTP call to the server
SERVER_MAJOR = 1  # the v2 API this client speaks (chromadb 1.x servers)
SERVER_HINT = "start the server again (or check DUOCTHU_CHROMA_URL); the index need not be rebuilt"


class ServerRefused(ServerUnavailable):
    """The server (or the proxy in front of it) answered and refused: a bad or missing token, another API."""


@dataclass(frozen=True)
class ServerAddress:
    """Where the server is and how to talk to it."""

    url: str
    token: str | None = None
    timeout: float = DEFAULT_TIMEOUT

    @property
    def parsed(self):
        return urlparse(self.url if "://" in self.url else f"http://{self.url}")

    @property
    def base(self) -> str:
        p = self.parsed
        port = p.port or (443 if p.scheme == "https" else 8000)
        return f"{p.scheme}://{p.hostname or '127.0.0.1'}:{port}"

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def __repr__(self) -> str:  # never the token
        return f"ServerAddress({self.url!r}, token={'set' if self.token else 'none'}, timeout={self.timeout})"


def address_from(url: str, token: str | None = None, timeout: float | None = None) -> ServerAddress:
    """The address with the token and timeout given, else DUOCTHU_CHROMA_TOKEN / DUOCTHU_CHROMA_TIMEOUT."""
    from duocthu_desktop.settings import ENV_CHROMA_TIMEOUT, ENV_CHROMA_TOKEN

    token = token or os.environ.get(ENV_CHROMA_TOKEN) or None
    if timeout is None:
        try:
            timeout = float(os.environ.get(ENV_CHROMA_TIMEOUT) or DEFAULT_TIMEOUT)
        except ValueError:
            timeout = DEFAULT_TIMEOUT
    return ServerAddress(url=url, token=token, timeout=max(0.5, timeout))


def preflight(address: ServerAddress) -> str:
    """The server's version, after its heartbeat answered, each within the time limit; ServerUnavailable (down,
    or not answering in time) or ServerRefused (401/403 from a proxy, another major version) in one line."""
    version = ""
    try:
        with httpx.Client(timeout=address.timeout, headers=address.headers) as http:
            for path in ("/api/v2/heartbeat", "/api/v2/version"):
                resp = http.get(address.base + path)
                if resp.status_code in (401, 403):
                    raise ServerRefused(f"The Chroma server at {address.url} refused the request (HTTP "
                                        f"{resp.status_code}): "
                                        + ("the token was not accepted" if address.token else "it needs a token "
                                           "(DUOCTHU_CHROMA_TOKEN or --token)") + ".")
                if resp.status_code != 200:
                    raise ServerRefused(f"The server at {address.url} is not a Chroma 1.x server ({path} answered "
                                        f"HTTP {resp.status_code}).")
                if path.endswith("version"):
                    version = str(resp.json()).strip()
    except ServerUnavailable:
        raise
    except (httpx.HTTPError, ValueError) as err:
        raise ServerUnavailable(f"The Chroma server at {address.url} does not answer within {address.timeout:g} s "
                                f"({type(err).__name__}): {SERVER_HINT}.") from err
    major = version.split(".")[0]
    if major != str(SERVER_MAJOR):
        raise ServerRefused(f"The Chroma server at {address.url} runs version {version or '?'}; this app speaks "
                            f"Chroma {SERVER_MAJOR}.x.")
    log.info("Chroma server at %s: version %s, heartbeat ok", address.url, version)
    return version


def http_client(address: ServerAddress):
    """A chromadb HttpClient for `address` (after `preflight`), its every call limited to `address.timeout`."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    preflight(address)
    p = address.parsed
    try:
        client = chromadb.HttpClient(
            host=p.hostname or "127.0.0.1", port=p.port or (443 if p.scheme == "https" else 8000),
            ssl=p.scheme == "https", headers=address.headers or None,
            settings=ChromaSettings(anonymized_telemetry=False, allow_reset=False),
        )
    except Exception as err:
        raise ServerUnavailable(f"The Chroma server at {address.url} cannot be used ({type(err).__name__}: "
                                f"{str(err)[:200]}): {SERVER_HINT}.") from err
    session = getattr(getattr(client, "_server", None), "_session", None)
    if isinstance(session, httpx.Client):
        session.timeout = httpx.Timeout(address.timeout)
    else:  # a chromadb that changed its insides: say so rather than wait forever unknowingly
        log.warning("cannot set a timeout on chromadb's HTTP session (%s)", type(session).__name__)
    return client
