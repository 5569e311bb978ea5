"""The thin streaming transport: the three wire formats over HTTP, without the SDKs.

Why it exists: ``import anthropic`` costs 1–2 s on the target machines (mostly
``anthropic.types``, pydantic models skawld never uses: the providers post raw wire
JSON and read raw SSE) and ``import openai`` about 1 s. So the default transport
(``transport="http"``) speaks HTTP itself; the official SDK clients stay available as
``transport="sdk"`` and are what Bedrock/Vertex/Azure-style authentication would use.

Who carries the bytes (the start-up decision, DESIGN 14): `aio_http`, a small HTTP/1.1
client on asyncio streams (standard library only), because ``httpx2`` — the HTTP client
both SDKs are built on — pulls in ``httpcore2``, ``h11``, ``h2``, ``anyio`` and ``idna``,
about 0.1 s of CPU that the first request of ``skawld -p`` would wait for. ``httpx2``
still carries when the environment configures a proxy, after an API root answers with a
redirect, and always with ``transport="httpx"``; both carriers send the same bytes and
are tested against the same wire server.

What it reproduces from the installed SDKs (anthropic 2.14 / openai 3.57, read from
their ``_client.py`` / ``_base_client.py`` / ``_streaming.py``):

- **Base URL**: the ``base_url`` argument, else ``$ANTHROPIC_BASE_URL`` /
  ``$OPENAI_BASE_URL``, else ``https://api.anthropic.com`` / ``https://api.openai.com/v1``;
  the API path is appended after the base URL's own path (``/prefix`` →
  ``/prefix/v1/messages``), as the SDKs' ``_prepare_url`` does.
- **Headers**: ``Authorization: Bearer <key>`` (both SDKs), ``anthropic-version``,
  ``Accept`` / ``Content-Type: application/json``, ``OpenAI-Organization`` /
  ``OpenAI-Project`` from ``$OPENAI_ORG_ID`` / ``$OPENAI_PROJECT_ID``, the
  ``$ANTHROPIC_CUSTOM_HEADERS`` / ``$OPENAI_CUSTOM_HEADERS`` lists (``Name: value`` per
  line), then ``default_headers=`` on top. The ``User-Agent`` is skawld's own and the
  SDKs' ``X-Stainless-*`` telemetry headers are not sent.
- **Network**: the SDKs' timeouts (``timeout`` per read and write, ``connect_timeout`` to
  connect), kept-alive pooled connections, redirects followed (by ``httpx2``), TCP
  keep-alive socket options; on ``httpx2``: 1000/100 connection limits and proxies from
  the environment (``HTTP(S)_PROXY``, ``ALL_PROXY``, ``NO_PROXY``) mounted the same way;
  certificates verified against the same store (``SSL_CERT_FILE`` / ``SSL_CERT_DIR``
  honoured). Unlike the SDKs, one TLS context is shared by all transports and it is
  built off the critical path (`prewarm`, started when a provider is constructed).
- **SSE**: Anthropic frames need an ``event:`` line, ``ping`` and empty ``data`` are
  skipped, ``event: error`` raises (status 200); OpenAI streams stop at ``[DONE]`` (the
  rest of the body is drained so the connection can be reused) and a ``data`` object
  with an ``error`` key raises.
- **Errors** are plain exceptions carrying ``status_code``, ``headers`` and the parsed
  ``body``; `errors_map.map_error` classifies them from status and body alone, exactly
  as it classifies the SDK's exception classes. No retries here: skawld's retry driver
  (`retry.retrying_stream`) owns them.

``httpx2`` is imported only when it carries, never at module import.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import AsyncIterator, Mapping
from typing import Any, Literal

from .aio_http import AioHttp, socket_options

SseDialect = Literal["anthropic", "openai"]
Carrier = Literal["auto", "httpx"]
"""Who moves the bytes: ``auto`` = `aio_http` (asyncio streams), or ``httpx2`` when proxies
are configured; ``httpx`` = always ``httpx2`` (``transport="httpx"``)."""
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
ANTHROPIC_API_VERSION = "2026-10-21"
"""The ``anthropic-version`` header the installed anthropic SDK (2.14) sends."""
ANTHROPIC_DEFAULT_BASE = "https://api.anthropic.com"
OPENAI_DEFAULT_BASE = "https://api.openai.com/v1"
USER_AGENT = "skawld/0.1 (python)"


class HttpStatusFailure(Exception):
    """A non-2xx answer: ``status_code``, ``headers`` (lower-cased) and the parsed ``body``."""

    def __init__(self, status_code: int, headers: Mapping[str, str], body: Any, message: str) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.headers = dict(headers)
        self.body = body
        self.message = message


class StreamErrorEvent(Exception):
    """An error reported inside a 200 stream (Anthropic ``event: error``, OpenAI ``{"error":…}``)."""

    def __init__(self, body: Any, message: str) -> None:
        super().__init__(message)
        self.status_code = 200
        self.body = body
        self.message = message


def custom_headers_from_env(var: str, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``Name: value`` lines of ``$var`` as a dict (the SDKs' ``*_CUSTOM_HEADERS``)."""
    raw = (os.environ if env is None else env).get(var)
    out: dict[str, str] = {}
    if raw is None:
        return out
    for line in raw.split("\n"):
        colon = line.find(":")
        if colon >= 0:
            out[line[:colon].strip()] = line[colon + 1 :].strip()
    return out


def anthropic_headers(key: str, extra: Mapping[str, str]) -> dict[str, str]:
    """The headers the anthropic SDK sends (auth, version, JSON), then custom ones."""
    headers = {
        "Accept": "application/json",
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "Authorization": f"Bearer {key}",
        "anthropic-version": ANTHROPIC_API_VERSION,
    }
    headers.update(custom_headers_from_env("ANTHROPIC_CUSTOM_HEADERS"))
    headers.update(extra)
    return headers


def openai_headers(key: str, extra: Mapping[str, str]) -> dict[str, str]:
    """The headers the openai SDK sends (auth, organization, project, JSON), then custom ones."""
    headers = {
        "Accept": "application/json",
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "Authorization": f"Bearer {key}",
    }
    org, project = os.environ.get("OPENAI_ORG_ID"), os.environ.get("OPENAI_PROJECT_ID")
    if org:
        headers["OpenAI-Organization"] = org
    if project:
        headers["OpenAI-Project"] = project
    env_headers = custom_headers_from_env("OPENAI_CUSTOM_HEADERS")
    if any(name.lower() == "authorization" for name in extra):
        env_headers = {k: v for k, v in env_headers.items() if k.lower() != "authorization"}
    headers.update(env_headers)
    headers.update(extra)
    return headers


def resolve_base_url(explicit: str | None, env_var: str, default: str) -> str:
    """``explicit``, else ``$env_var``, else ``default``; always with one trailing slash."""
    base = explicit or os.environ.get(env_var) or default
    return base if base.endswith("/") else base + "/"


def join_url(base: str, path: str) -> str:
    """The SDKs' URL merge: the base URL's path, then ``path`` without its leading slash."""
    return base + path.lstrip("/")


_PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy")
_ssl_lock = threading.Lock()
_ssl_contexts: dict[bool, Any] = {}


def _needs_verified_tls(base_url: str) -> bool:
    if base_url.startswith("https:"):
        return True
    return any(os.environ.get(v) or os.environ.get(v.upper()) for v in _PROXY_VARS)


def ssl_context(verified: bool) -> Any:
    """One TLS context per process, shared by every transport (httpx2 would build one per
    transport and proxy mount, each loading the CA bundle: ~0.1 s apiece).

    ``verified=False`` is for plain-``http`` API roots without proxies: a client context
    that still verifies but has no CA loaded, so a TLS hop (a redirect to ``https``) fails
    closed instead of paying for the bundle up front.
    """
    with _ssl_lock:
        ctx = _ssl_contexts.get(verified)
        if ctx is None:
            import ssl

            ctx = _verified_context() if verified else ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            _ssl_contexts[verified] = ctx
        return ctx


def proxies_configured() -> bool:
    """True when an ``HTTP(S)_PROXY`` / ``ALL_PROXY`` variable is set (then ``httpx2`` carries)."""
    return any(os.environ.get(v) or os.environ.get(v.upper()) for v in _PROXY_VARS)


def uses_httpx(carrier: Carrier) -> bool:
    """Whether requests of a client with this ``carrier`` go through ``httpx2``."""
    return carrier == "httpx" or proxies_configured()


_CA_FILE_CANDIDATES = (
    "/etc/ssl/cert.pem",
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
    "/etc/pki/tls/cert.pem",
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/ssl/ca-bundle.pem",
)


def _verified_context() -> Any:
    """The context ``httpx2.create_ssl_context()`` builds, without importing ``httpx2``
    (its stack is what the default carrier avoids): ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``,
    else OpenSSL's compiled-in store, else the first CA bundle found where Linux
    distributions keep one (httpcore2's ``default_ssl_context``, read from its
    ``_ssl.py``). On Windows and macOS ``httpx2`` is asked: it uses the system store."""
    import ssl

    if cafile := os.environ.get("SSL_CERT_FILE"):
        return ssl.create_default_context(cafile=cafile)
    if capath := os.environ.get("SSL_CERT_DIR"):
        return ssl.create_default_context(capath=capath)
    if sys.platform in ("win32", "darwin"):  # pragma: no cover - truststore, via httpx2
        import httpx2

        return httpx2.create_ssl_context()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    paths = ssl.get_default_verify_paths()
    cafile = paths.openssl_cafile if os.path.isfile(paths.openssl_cafile) else None
    capath = paths.openssl_capath if os.path.isdir(paths.openssl_capath) else None
    if capath and not cafile and not any(_is_hashed_cert(f) for f in os.listdir(capath)):
        capath = None
    if not cafile and not capath:
        cafile = next(filter(os.path.isfile, _CA_FILE_CANDIDATES), None)
    if cafile or capath:
        ctx.load_verify_locations(cafile, capath)
    return ctx


def _is_hashed_cert(name: str) -> bool:
    stem, dot, digit = name.partition(".")
    return len(stem) == 8 and all(c in "0123456789abcdefABCDEF" for c in stem) and dot == "." and digit.isdigit()


def prewarm(base_url: str, carrier: Carrier = "auto") -> threading.Thread | None:
    """Start, in a daemon thread, what the first request would otherwise wait for: the TLS
    context (loading the CA bundle runs in OpenSSL without the GIL) and, when ``httpx2``
    will carry the requests, its import. Nothing to do (None) for a plain-``http`` root
    carried by `aio_http`."""
    httpx = uses_httpx(carrier)
    verified = _needs_verified_tls(base_url)
    if not (httpx or verified):
        return None

    def run() -> None:
        try:
            if httpx:
                import httpx2  # noqa: F401
            ssl_context(verified)
        except Exception:  # the real client build reports any problem
            pass

    thread = threading.Thread(target=run, name="skawld-http-prewarm", daemon=True)
    thread.start()
    return thread


def make_async_client(timeout: float, connect_timeout: float, base_url: str = "https:") -> Any:
    """An ``httpx2.AsyncClient`` configured like the SDKs' default client."""
    import httpx2
    from httpx2._utils import get_environment_proxies

    limits = httpx2.Limits(max_connections=1000, max_keepalive_connections=100)
    transport_kwargs: dict[str, Any] = {
        "limits": limits,
        "socket_options": socket_options(),
        "verify": ssl_context(_needs_verified_tls(base_url)),
    }
    mounts: dict[str, Any] = {
        key: None if proxy is None else httpx2.AsyncHTTPTransport(proxy=proxy, **transport_kwargs)
        for key, proxy in get_environment_proxies().items()
    }
    return httpx2.AsyncClient(
        timeout=httpx2.Timeout(timeout, connect=connect_timeout),
        limits=limits,
        follow_redirects=True,
        transport=httpx2.AsyncHTTPTransport(**transport_kwargs),
        mounts=mounts,
    )


class HttpClient:
    """One API root, its headers and a connection pool (one client per event loop).

    The pool is `aio_http.AioHttp` unless `uses_httpx` says ``httpx2`` (proxies, or
    ``carrier="httpx"``); a redirect answer on the asyncio carrier is replayed through
    ``httpx2``, which follows it as the SDKs do, and ``httpx2`` carries from then on.
    """

    def __init__(
        self,
        base_url: str,
        headers: Mapping[str, str],
        timeout: float,
        connect_timeout: float,
        dialect: SseDialect,
        carrier: Carrier = "auto",
    ) -> None:
        self.base_url = base_url
        self.headers = dict(headers)
        self.dialect: SseDialect = dialect
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self._httpx: Any = None
        self._aio: Any = None
        if uses_httpx(carrier):
            self._httpx = make_async_client(timeout, connect_timeout, base_url)
        else:
            self._aio = AioHttp(timeout, connect_timeout, lambda: ssl_context(True))

    @property
    def carrier(self) -> str:
        """``"asyncio"`` or ``"httpx2"``: what carries the next request."""
        return "asyncio" if self._aio is not None else "httpx2"

    async def warm(self) -> None:
        """Open a connection to the API root ahead of the first request (asyncio carrier only)."""
        if self._aio is not None:
            await self._aio.preconnect(self.base_url)

    async def _send(self, method: str, url: str, data: bytes | None) -> Any:
        """Send one request; the answer's body is still to be read (``aiter_bytes``/``aread``)."""
        if self._aio is not None:
            response = await self._aio.request(method, url, self.headers, data)
            if response.status_code not in REDIRECT_STATUSES:
                return response
            await response.aclose()
            await self._aio.aclose()
            self._aio = None
        if self._httpx is None:
            self._httpx = make_async_client(self.timeout, self.connect_timeout, self.base_url)
        client = self._httpx
        request = client.build_request(method, url, content=data, headers=self.headers)
        return await client.send(request, stream=True)

    async def stream(self, path: str, body: Mapping[str, Any]) -> SseStream:
        """POST ``body`` to ``path`` and return the open event stream; non-2xx raises
        `HttpStatusFailure` after reading the error body."""
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
        response = await self._send("POST", join_url(self.base_url, path), data)
        if response.status_code >= 300:
            try:
                raw = await response.aread()
            finally:
                await response.aclose()
            raise status_failure(response.status_code, response.headers, raw)
        return SseStream(response, self.dialect)

    async def get_json(self, path: str) -> Any:
        """GET ``path`` and return the parsed JSON (for ``/models`` discovery)."""
        response = await self._send("GET", join_url(self.base_url, path), None)
        try:
            raw = await response.aread()
        finally:
            await response.aclose()
        if response.status_code >= 300:
            raise status_failure(response.status_code, response.headers, raw)
        return json.loads(raw)

    async def close(self) -> None:
        """Close the connection pool."""
        if self._aio is not None:
            await self._aio.aclose()
        if self._httpx is not None:
            await self._httpx.aclose()


def status_failure(status: int, headers: Mapping[str, str], raw: bytes) -> HttpStatusFailure:
    """The exception for an error answer, with its body parsed when it is JSON."""
    text = raw.decode("utf-8", "replace")
    body: Any
    try:
        body = json.loads(text) if text else None
    except ValueError:
        body = text
    lowered = {k.lower(): v for k, v in headers.items()}
    return HttpStatusFailure(status, lowered, body, f"Error code: {status} - {text[:2000] or '(empty body)'}")


class SseStream:
    """The events of one streaming response as wire JSON objects; ``close()`` releases it."""

    def __init__(self, response: Any, dialect: SseDialect) -> None:
        self.response = response
        self.dialect: SseDialect = dialect

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._events()

    async def _events(self) -> AsyncIterator[Any]:
        anthropic = self.dialect == "anthropic"
        loads = json.loads
        done = False
        async for event, data in iter_sse(self.response.aiter_bytes()):
            if done:
                continue  # drain after [DONE]: keeps the connection reusable
            if anthropic:
                if event is None or event == "ping":
                    continue
                if event == "error":
                    raise _anthropic_stream_error(data)
                if not data:
                    continue
                yield loads(data)
                continue
            if data.startswith("[DONE]"):
                done = True
                continue
            obj = loads(data)
            if type(obj) is dict and obj.get("error"):
                error = obj["error"]
                message = error.get("message") if isinstance(error, dict) else None
                raise StreamErrorEvent(error, message if isinstance(message, str) and message else "stream error")
            yield obj

    async def close(self) -> None:
        """Close the response (safe to call twice)."""
        await self.response.aclose()


def _anthropic_stream_error(data: str) -> StreamErrorEvent:
    try:
        body: Any = json.loads(data)
    except ValueError:
        body = data
    return StreamErrorEvent(body, f"{body}")


async def iter_sse(chunks: AsyncIterator[bytes]) -> AsyncIterator[tuple[str | None, str]]:
    """``(event, data)`` per server-sent event, from raw body chunks.

    Lines end with LF or CRLF; ``data`` lines of one event are joined by LF; comments,
    ``id`` and ``retry`` are ignored; an event without data is dropped; a last event
    not followed by a blank line is still delivered.
    """
    buf = b""
    event: str | None = None
    data: list[bytes] = []
    async for chunk in chunks:
        buf = buf + chunk if buf else chunk
        if b"\n" not in buf:
            continue
        lines = buf.split(b"\n")
        buf = lines.pop()
        for line in lines:
            if line.endswith(b"\r"):
                line = line[:-1]
            if not line:
                if data:
                    yield event, b"\n".join(data).decode()
                event, data = None, []
                continue
            if line.startswith(b"data:"):
                value = line[5:]
                data.append(value[1:] if value.startswith(b" ") else value)
            elif line.startswith(b"event:"):
                value = line[6:]
                event = (value[1:] if value.startswith(b" ") else value).decode()
    if buf.strip():
        line = buf.rstrip(b"\r")
        if line.startswith(b"data:"):
            value = line[5:]
            data.append(value[1:] if value.startswith(b" ") else value)
    if data:
        yield event, b"\n".join(data).decode()
