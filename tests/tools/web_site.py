"""A small website on 127.0.0.1 for the WebFetch tests: a page, redirects, a huge and a slow response."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAGE = b"""<!doctype html>
<html><head><title>Widget API</title>
<style>body { color: red; }</style>
<script>window.tracking = "SECRET_SCRIPT";</script>
</head><body>
<nav><a href="/">Home</a> <a href="/about">NAVLINK About</a></nav>
<header role="banner"><div>BANNER_TEXT</div></header>
<main>
<h1>Widget API</h1>
<p>The <strong>widget</strong> endpoint returns <a href="/w">widgets</a>.</p>
<h2>Authentication</h2>
<p>Send the token in the <code>X-Widget-Token</code> header.</p>
<ul><li>first item</li><li>second item</li></ul>
<h2>Rate limits</h2>
<p>At most 100 requests per minute per token.</p>
<pre><code>curl https://api.example/w</code></pre>
<div hidden>HIDDEN_TEXT</div>
</main>
<footer>FOOTER_TEXT</footer>
<script>console.log("SECRET_SCRIPT_2")</script>
</body></html>
"""

BIG = 50 * 1024 * 1024
CHUNK = 64 * 1024


@dataclass
class Site:
    port: int
    paths: list[str] = field(default_factory=list)
    big_sent: list[int] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def _send(self, status: int, body: bytes, ctype: str = "text/html; charset=utf-8", **headers: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in headers.items():
                self.send_header(k.replace("_", "-"), v)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            site.paths.append(self.path)
            routes: dict[str, Callable[[], None]] = {
                "/page": lambda: self._send(200, PAGE),
                "/plain": lambda: self._send(200, b"just text\n", "text/plain"),
                "/json": lambda: self._send(200, b'{"a": 1}', "application/json"),
                "/image": lambda: self._send(200, b"\x89PNG....", "image/png"),
                "/missing": lambda: self._send(404, b"no such page", "text/plain"),
                "/same": lambda: self._send(302, b"", Location="/page"),
                "/www": lambda: self._send(301, b"", Location=site.url("/page")),
                "/cross": lambda: self._send(302, b"", Location=site.url("/page", host="localhost")),
                "/loop": lambda: self._send(302, b"", Location="/loop"),
                "/ftp": lambda: self._send(302, b"", Location="ftp://files.example/x"),
                "/big": self._big,
                "/slow": self._slow,
                "/drip": self._drip,
            }
            routes.get(self.path, lambda: self._send(404, b"?", "text/plain"))()

        def _big(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(BIG))
            self.end_headers()
            sent = 0
            line = (b"x" * 63 + b"\n") * (CHUNK // 64)
            try:
                while sent < BIG:
                    self.wfile.write(line)
                    sent += len(line)
            except OSError:
                pass
            finally:
                site.big_sent.append(sent)
                self.close_connection = True

        def _slow(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "10")
            self.end_headers()
            self.wfile.flush()
            site.release.wait(30)  # never answers while the test runs

        def _drip(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            try:
                for _ in range(100000):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    if site.release.wait(0.05):  # a byte every 50 ms: each read is quick, the whole is not
                        return
            except OSError:
                pass

    return Handler


@contextlib.contextmanager
def serve_site() -> Iterator[Site]:
    """The site on an ephemeral 127.0.0.1 port, in a thread, for one test."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(Site(0)))
    s = Site(server.server_address[1])
    server.RequestHandlerClass = _handler(s)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield s
    finally:
        s.release.set()
        server.shutdown()
        server.server_close()
