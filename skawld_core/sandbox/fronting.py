"""Domain fronting checks for the sandbox's proxy: the name a request carries inside the
connection (an HTTP Host header or absolute URL, a TLS ClientHello's SNI) must be the
name the proxy checked, or a shared front (a CDN) would route to another site.

What it cannot see: a ClientHello with Encrypted Client Hello (the outer SNI is
checked, the inner one is encrypted), HTTP/2 `:authority` and HTTP/1.1 Host headers
inside TLS, and requests after the first on a kept-alive connection.
"""

from __future__ import annotations

import re

from .domains import HostError, canonical_host

__all__ = ["client_hello_sni", "first_bytes_name_problem", "host_header_problem", "looks_like_http"]

_REQUEST_LINE = re.compile(rb"[A-Z]{3,10} (\S+) HTTP/1\.[01]\r\n")


def looks_like_http(data: bytes) -> bool:
    """Whether `data` starts as an HTTP/1 request (`METHOD target`)."""
    return re.match(rb"[A-Z]{3,10} ", data) is not None


def _same_name(named: str, host: str) -> bool:
    try:
        return canonical_host(named) == host
    except HostError:
        return False


def _authority_host(authority: str) -> str:
    if authority.startswith("["):
        return authority[1:].partition("]")[0]
    return authority.rpartition(":")[0] if ":" in authority else authority


def host_header_problem(headers: bytes, host: str) -> str | None:
    """Why an HTTP request's header block (after its request line) may not go to `host`, or None.
    Host headers naming another name are refused; no Host header is HTTP/1.0 and fine."""
    named = [
        line.partition(b":")[2].strip().decode("latin-1")
        for line in headers.split(b"\r\n")
        if line.partition(b":")[0].strip().lower() == b"host"
    ]
    if len(named) > 1:
        return "the request holds more than one Host header"
    if named and not _same_name(_authority_host(named[0]), host):
        return f"the Host header names {named[0]!r}, not {host} (domain fronting is refused)"
    return None


def first_bytes_name_problem(first: bytes, host: str) -> str | None:
    """Why a tunnel to `host` whose client sent `first` is closed, or None: a ClientHello's SNI or
    an HTTP request's Host header (or absolute URL) naming another name. A ClientHello without SNI
    (TLS to an IP literal) passes: the tunnel's own name was checked."""
    if first[:1] == b"\x16":
        try:
            sni = client_hello_sni(first)
        except ValueError as exc:
            return f"an unreadable TLS ClientHello ({exc})"
        if sni is not None and not _same_name(sni, host):
            return f"the TLS server name {sni!r} is not {host} (domain fronting is refused)"
        return None
    if looks_like_http(first):
        request = _REQUEST_LINE.match(first)
        if request is None:
            return "an unreadable HTTP request line"
        target = request.group(1).decode("latin-1")
        if "://" in target:  # absolute form: the server takes its name over Host's
            authority = target.partition("://")[2].partition("/")[0].rpartition("@")[2]
            if not _same_name(_authority_host(authority), host):
                return f"the request's URL names {authority!r}, not {host} (domain fronting is refused)"
        head = first[request.end() :].partition(b"\r\n\r\n")[0]
        return host_header_problem(head, host)
    return None


def client_hello_sni(record: bytes) -> str | None:
    """The server name of the TLS ClientHello in `record` (one whole TLS record), None when it names
    none; ValueError when it is not a ClientHello or does not fit the record."""
    if len(record) < 5 or record[0] != 0x16:
        raise ValueError("not a TLS handshake record")
    body = record[5 : 5 + int.from_bytes(record[3:5], "big")]
    if len(body) < 4 or body[0] != 0x01:
        raise ValueError("not a ClientHello")
    if 4 + int.from_bytes(body[1:4], "big") > len(body):
        raise ValueError("the ClientHello spans more than one record")
    at = 4 + 2 + 32  # type and length, client version, random
    at = _skip(body, at, 1)  # session id
    at = _skip(body, at, 2)  # cipher suites
    at = _skip(body, at, 1)  # compression methods
    if at == len(body):
        return None  # no extensions
    end = at + 2 + int.from_bytes(_take(body, at, 2), "big")
    at += 2
    while at < end:
        kind = int.from_bytes(_take(body, at, 2), "big")
        size = int.from_bytes(_take(body, at + 2, 2), "big")
        data = _take(body, at + 4, size)
        at += 4 + size
        if kind == 0:  # server_name: a list of (type, name); type 0 is a host name
            if len(data) < 5 or data[2] != 0:
                raise ValueError("an unreadable server_name extension")
            return _take(data, 5, int.from_bytes(data[3:5], "big")).decode("latin-1")
    return None


def _take(data: bytes, at: int, size: int) -> bytes:
    if at + size > len(data):
        raise ValueError("truncated")
    return data[at : at + size]


def _skip(data: bytes, at: int, length_size: int) -> int:
    return at + length_size + int.from_bytes(_take(data, at, length_size), "big")
