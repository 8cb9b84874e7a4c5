"""A reverse proxy on loopback that lets through only requests with one bearer token, as a hospital's proxy in
front of its Chroma server would (Chroma 1.x has no authentication of its own)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx


@contextlib.contextmanager
def token_proxy(upstream: str, token: str) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # quiet
            pass

        def _forward(self) -> None:
            if self.headers.get("Authorization") != f"Bearer {token}":
                self.send_response(401)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "authorization",
                                                                                 "content-length")}
            resp = httpx.request(self.command, upstream + self.path, content=body, headers=headers, timeout=30)
            self.send_response(resp.status_code)
            for key in ("Content-Type",):
                if key in resp.headers:
                    self.send_header(key, resp.headers[key])
            self.send_header("Content-Length", str(len(resp.content)))
            self.end_headers()
            self.wfile.write(resp.content)

        do_GET = do_POST = do_PUT = do_DELETE = _forward

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
