"""The HTTP side of WebFetch: URL upgrade, bounded streaming GET, redirects by host.

- `http://` becomes `https://` except for loopback hosts (`localhost`,
  `127.0.0.0/8`, `::1`), which are fetched as given (and without proxies).
- Redirects are followed by hand: to the same host (ignoring a leading
  `www.`) they are followed, up to `max_redirects`; to another host the fetch
  stops and returns a `CrossHostRedirect`, so the model makes a new call that
  meets the permission check for that host.
- The body is streamed and reading stops once `max_bytes` have arrived; memory
  stays bounded whatever the server sends.
- Timeouts: connecting, each read, and the whole fetch (a server that drips
  bytes never trips a read timeout but does trip the total one).

`httpx2` is imported on first use.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit, urlunsplit

if TYPE_CHECKING:
    import httpx2

__all__ = [
    "CrossHostRedirect",
    "FetchError",
    "FetchLimits",
    "Fetched",
    "fetch_url",
    "is_loopback",
    "same_host",
    "upgrade_url",
]

USER_AGENT = "skawld-WebFetch/0.1 (+a terminal coding agent)"
ACCEPT = "text/html, application/xhtml+xml, text/markdown, text/plain, application/json;q=0.9, */*;q=0.5"
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True)
class FetchLimits:
    """Timeouts in seconds and the size cap in bytes."""

    connect_timeout: float = 10.0
    read_timeout: float = 30.0
    total_timeout: float = 60.0
    max_bytes: int = 10 * 1024 * 1024
    max_redirects: int = 10


@dataclass(frozen=True)
class Fetched:
    """A response: final URL, status, content type, charset and the (possibly cut) body."""

    url: str
    status: int
    reason: str
    content_type: str
    charset: str | None
    body: bytes
    truncated: bool
    content_length: int | None = None


@dataclass(frozen=True)
class CrossHostRedirect:
    """The server redirected to another host; nothing was fetched from it."""

    url: str
    location: str
    status: int


class FetchError(Exception):
    """A fetch that failed (bad URL, connection, timeout, redirect loop); the message says which."""


def is_loopback(host: str) -> bool:
    """`localhost` (and `*.localhost`), `127.0.0.0/8` and `::1`."""
    import ipaddress

    host = host.lower().strip("[]").rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def upgrade_url(url: str) -> str:
    """The URL to fetch: `http` upgraded to `https` unless the host is loopback.

    Raises `FetchError` for anything but an absolute http(s) URL with a host.
    """
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
        _ = parts.port  # raises ValueError for a bad port
    except ValueError as exc:
        raise FetchError(f"invalid URL {url!r}: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not host:
        raise FetchError(f"invalid URL {url!r}: expected an http:// or https:// URL with a host")
    if scheme == "http" and not is_loopback(host):
        scheme = "https"
    return urlunsplit((scheme, parts.netloc, parts.path or "/", parts.query, ""))


def _bare(host: str | None) -> str:
    host = (host or "").lower().rstrip(".")
    return host[4:] if host.startswith("www.") else host


def same_host(a: str, b: str) -> bool:
    """Whether two URLs name the same host, a leading `www.` aside."""
    return _bare(urlsplit(a).hostname) == _bare(urlsplit(b).hostname)


async def fetch_url(url: str, limits: FetchLimits = FetchLimits()) -> Fetched | CrossHostRedirect:
    """GET `url` (already upgraded) within `limits`; raises `FetchError` on failure."""
    import httpx2

    host = urlsplit(url).hostname or ""
    timeout = httpx2.Timeout(limits.read_timeout, connect=limits.connect_timeout)
    headers = {"User-Agent": USER_AGENT, "Accept": ACCEPT}
    try:
        async with (
            asyncio.timeout(limits.total_timeout),
            httpx2.AsyncClient(
                timeout=timeout, follow_redirects=False, headers=headers, trust_env=not is_loopback(host)
            ) as client,
        ):
            return await _follow(client, url, limits)
    except TimeoutError:
        raise FetchError(f"fetching {url} took longer than {limits.total_timeout:g}s") from None
    except httpx2.ConnectTimeout:
        raise FetchError(f"connecting to {host} timed out after {limits.connect_timeout:g}s") from None
    except httpx2.ReadTimeout:
        raise FetchError(f"{host} sent nothing for {limits.read_timeout:g}s") from None
    except httpx2.ConnectError as exc:
        raise FetchError(f"could not connect to {host}: {exc or type(exc).__name__}") from None
    except httpx2.HTTPError as exc:
        raise FetchError(f"fetching {url} failed: {exc or type(exc).__name__}") from None


async def _follow(client: httpx2.AsyncClient, url: str, limits: FetchLimits) -> Fetched | CrossHostRedirect:
    current = url
    for _ in range(limits.max_redirects + 1):
        async with client.stream("GET", current) as resp:
            location = resp.headers.get("location")
            if resp.status_code in _REDIRECTS and location:
                target = urljoin(current, location.strip())
                try:
                    target = upgrade_url(target)
                except FetchError:
                    raise FetchError(f"{current} redirects to {location!r}, which is not an http(s) URL") from None
                if not same_host(current, target):
                    return CrossHostRedirect(url=current, location=target, status=resp.status_code)
                current = target
                continue
            body, truncated = await _read_capped(resp, limits.max_bytes)
            length = resp.headers.get("content-length")
            return Fetched(
                url=current,
                status=resp.status_code,
                reason=resp.reason_phrase,
                content_type=resp.headers.get("content-type", "").split(";", 1)[0].strip().lower(),
                charset=resp.charset_encoding,
                body=body,
                truncated=truncated,
                content_length=int(length) if length and length.isdigit() else None,
            )
    raise FetchError(f"{url} redirected more than {limits.max_redirects} times")


async def _read_capped(resp: httpx2.Response, max_bytes: int) -> tuple[bytes, bool]:
    buf = bytearray()
    async for chunk in resp.aiter_bytes():
        room = max_bytes - len(buf)
        if len(chunk) > room:
            buf += chunk[:room]
            return bytes(buf), True
        buf += chunk
    return bytes(buf), False
