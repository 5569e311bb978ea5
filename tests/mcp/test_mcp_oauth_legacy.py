"""The 2025-03-26 authorization layout (no protected-resource metadata; the metadata at the MCP
server's origin) against a real local HTTP server: an issuer on the server's own origin is
accepted, one on another origin is still refused before anything is registered or sent."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx2
import pytest

from skawld_core.mcp.oauth import McpAuthorizationRequired, OAuthSettings, build_auth
from skawld_core.mcp.oauth_legacy import same_origin_issuer

pytestmark = pytest.mark.timeout(60)


@contextmanager
def legacy_server(issuer_path: str | None = None, issuer: str | None = None) -> Iterator[tuple[str, list[str]]]:
    """An MCP server of 2025-03-26: 401 on /mcp, no PRM, metadata at the origin naming `issuer`
    (or origin + `issuer_path`), registration at /oauth/register. Yields (url, requests seen)."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args: object) -> None:
            pass

        def reply(self, status: int, body: object | None = None) -> None:
            data = json.dumps(body).encode() if body is not None else b""
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            seen.append(f"GET {self.path}")
            if self.path == "/.well-known/oauth-authorization-server":
                origin = f"http://127.0.0.1:{self.server.server_address[1]}"
                named = issuer or origin + (issuer_path or "")
                self.reply(
                    200,
                    {
                        "issuer": named,
                        "authorization_endpoint": f"{origin}/oauth/authorize",
                        "token_endpoint": f"{origin}/oauth/token",
                        "registration_endpoint": f"{origin}/oauth/register",
                        "response_types_supported": ["code"],
                        "code_challenge_methods_supported": ["S256"],
                    },
                )
            else:
                self.reply(404, {"error": "not_found"})

        def do_POST(self) -> None:
            seen.append(f"POST {self.path}")
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if self.path == "/oauth/register":
                self.reply(201, {"client_id": "legacy-client", **body})
            else:
                self.reply(401, {"error": "unauthorized"})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp", seen
    finally:
        server.shutdown()
        server.server_close()


async def post_initialize(url: str, env: dict[str, str]) -> None:
    auth = build_auth("legacy", url, OAuthSettings(), env=env)  # no browser: stops at the redirect
    async with httpx2.AsyncClient(auth=auth, timeout=20) as client:
        await client.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})


async def test_same_origin_issuer_with_a_path_is_accepted(tmp_path: Path) -> None:
    with legacy_server(issuer_path="/oauth") as (url, seen), pytest.raises(McpAuthorizationRequired) as raised:
        await post_initialize(url, {"HOME": str(tmp_path)})
    assert raised.value.url is not None and "/oauth/authorize" in raised.value.url
    assert "POST /oauth/register" in seen
    assert seen.count("GET /.well-known/oauth-authorization-server") == 1  # read once, not twice


async def test_issuer_on_another_origin_is_refused(tmp_path: Path) -> None:
    elsewhere = "https://elsewhere.example/oauth"
    with legacy_server(issuer=elsewhere) as (url, seen), pytest.raises(Exception, match="issuer mismatch"):
        await post_initialize(url, {"HOME": str(tmp_path)})
    assert not any("register" in line or "token" in line for line in seen), seen


@pytest.mark.parametrize(
    ("issuer", "expected"),
    [
        ("http://127.0.0.1:8000/oauth", "http://127.0.0.1:8000/oauth"),
        ("http://127.0.0.1:8001/oauth", None),  # another port
        ("https://127.0.0.1:8000/oauth", None),  # another scheme
        ("http://127.0.0.1:8000", None),  # a bare origin: the package's own check handles it
        ("not a url", None),
    ],
)
def test_same_origin_issuer(issuer: str, expected: str | None) -> None:
    body = json.dumps(
        {"issuer": issuer, "authorization_endpoint": "http://x/a", "token_endpoint": "http://x/t"}
    ).encode()
    assert same_origin_issuer(body, "http://127.0.0.1:8000/mcp") == expected
