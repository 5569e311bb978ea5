"""OAuth for remote MCP servers (the MCP authorization spec), on `mcp.client.auth`.

Every HTTP server may answer 401: the `mcp` package then discovers the protected-resource and
authorization-server metadata, registers skawld (dynamic client registration, or a client ID
metadata document when the server supports one and the entry names `clientMetadataUrl`, or the
entry's pre-registered `clientId`/`clientSecret`), runs PKCE authorization code with a loopback
redirect, and refreshes tokens when they expire. Machine clients use `grant:
"client_credentials"`. The entry's ``oauth`` object configures it; ``"oauth": false`` or an
``Authorization`` header switches it off.

Tokens and the registered client are kept per server (its name and URL) in
``~/.skawld/mcp-auth/<key>.json``, mode 0600 in a 0700 folder: never in the project, never in a
session. A normal connection never opens a browser: without a usable token it fails with
`McpAuthorizationRequired` ("needs authorization"); `skawld mcp login NAME` (or ``/mcp login
NAME`` in the app) runs the browser step.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import time
import warnings
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qs, urlparse

from ..config_files import user_config_dir
from .oauth_enterprise import identity_assertion_auth
from .oauth_legacy import with_legacy_issuer

if TYPE_CHECKING:
    import httpx2
    from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthToken

__all__ = [
    "FileTokenStorage",
    "LoopbackReceiver",
    "McpAuthorizationRequired",
    "OAuthSettings",
    "auth_file",
    "build_auth",
    "forget_server",
]

CALLBACK_PATH = "/callback"
LOGIN_TIMEOUT_SECONDS = 300.0


class McpAuthorizationRequired(Exception):
    """The server needs the user to authorize skawld in a browser (no usable token is stored)."""

    def __init__(self, server: str, url: str | None = None) -> None:
        self.server = server
        self.url = url
        super().__init__(f"needs authorization: run `skawld mcp login {server}` (or /mcp login {server} in the app)")


@dataclass(frozen=True)
class OAuthSettings:
    """An HTTP server entry's ``oauth`` object."""

    grant: Literal["authorization_code", "client_credentials", "identity_assertion"] = "authorization_code"
    client_id: str | None = None
    client_secret: str | None = None
    scope: str | None = None
    client_metadata_url: str | None = None
    callback_port: int | None = None
    private_key_file: str | None = None
    signing_algorithm: str = "RS256"
    issuer: str | None = None
    idp_token_endpoint: str | None = None
    idp_client_id: str | None = None
    idp_client_secret: str | None = None
    id_token_command: str | None = None

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> OAuthSettings:
        """From the config entry (already validated by the schema)."""
        return cls(
            grant=raw.get("grant", "authorization_code"),
            client_id=raw.get("clientId"),
            client_secret=raw.get("clientSecret"),
            scope=raw.get("scope"),
            client_metadata_url=raw.get("clientMetadataUrl"),
            callback_port=raw.get("callbackPort"),
            private_key_file=raw.get("privateKeyFile"),
            signing_algorithm=raw.get("signingAlgorithm") or "RS256",
            issuer=raw.get("issuer"),
            idp_token_endpoint=raw.get("idpTokenEndpoint"),
            idp_client_id=raw.get("idpClientId"),
            idp_client_secret=raw.get("idpClientSecret"),
            id_token_command=raw.get("idTokenCommand"),
        )


def auth_file(server: str, url: str, env: Mapping[str, str] | None = None) -> Path:
    """``~/.skawld/mcp-auth/<key>.json`` for one server (its name and URL)."""
    key = hashlib.sha256(f"{server}\n{url}".encode()).hexdigest()[:32]
    return user_config_dir(env) / "mcp-auth" / f"{key}.json"


def forget_server(server: str, url: str, env: Mapping[str, str] | None = None) -> bool:
    """Delete a server's stored tokens and client; True when there were some."""
    try:
        auth_file(server, url, env).unlink()
    except FileNotFoundError:
        return False
    return True


class FileTokenStorage:
    """`mcp.client.auth.TokenStorage` in one private JSON file per server."""

    def __init__(self, path: Path, *, server: str, url: str, preregistered: OAuthClientInformationFull | None = None):
        self.path = path
        self.server = server
        self.url = url
        self.preregistered = preregistered

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, key: str, value: Any) -> None:
        data = {**self._read(), "server": self.server, "url": self.url, key: value}
        folder = self.path.parent
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(folder, 0o700)
        tmp = folder / f".{self.path.name}.{os.getpid()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out)
        os.replace(tmp, self.path)

    async def get_tokens(self) -> OAuthToken | None:
        from mcp.shared.auth import OAuthToken

        raw = self._read().get("tokens")
        return OAuthToken.model_validate(raw) if isinstance(raw, dict) else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self._write("tokens", tokens.model_dump(mode="json", exclude_none=True))
        if tokens.expires_in is not None:
            self._write("expiresAt", time.time() + tokens.expires_in)

    def expires_at(self) -> float | None:
        """When the stored access token expires (epoch seconds), when the server said."""
        value = self._read().get("expiresAt")
        return float(value) if isinstance(value, int | float) else None

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        from mcp.shared.auth import OAuthClientInformationFull

        if self.preregistered is not None:
            return self.preregistered
        raw = self._read().get("client")
        return OAuthClientInformationFull.model_validate(raw) if isinstance(raw, dict) else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._write("client", client_info.model_dump(mode="json", exclude_none=True))

    def stored_redirect_port(self) -> int | None:
        """The loopback port the registered client was given (so the redirect URI stays the same)."""
        uris = (self._read().get("client") or {}).get("redirect_uris") or []
        port = urlparse(str(uris[0])).port if uris else None
        return port


class LoopbackReceiver:
    """A one-shot HTTP listener on 127.0.0.1 for the authorization redirect (RFC 8252)."""

    def __init__(self, port: int = 0) -> None:
        self.port = port
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[AuthorizationCodeResult] | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def start(self) -> None:
        """Listen (on `port`, or a free one that `port` then says)."""
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        from mcp.shared.auth import AuthorizationCodeResult

        try:
            line = (await reader.readline()).decode("latin-1")
            while (await reader.readline()).strip():
                pass
            target = line.split(" ")[1] if line.count(" ") >= 2 else ""
            parsed = urlparse(target)
            query = {k: v[0] for k, v in parse_qs(parsed.query).items()}
            ok = parsed.path == CALLBACK_PATH and ("code" in query or "error" in query)
            body = (
                "skawld: authorized, you can close this window."
                if ok and "code" in query
                else "skawld: authorization failed: "
                + query.get("error_description", query.get("error", "bad request"))
            )
            status = "200 OK" if ok else "400 Bad Request"
            writer.write(
                f"HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\n"
                f"Content-Length: {len(body.encode())}\r\nConnection: close\r\n\r\n{body}".encode()
            )
            await writer.drain()
            if ok and self._result is not None and not self._result.done():
                if "code" in query:
                    result = AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))
                    self._result.set_result(result)
                else:
                    self._result.set_exception(RuntimeError(f"the authorization server said: {body.split(': ', 1)[1]}"))
        finally:
            writer.close()

    async def wait(self, timeout: float = LOGIN_TIMEOUT_SECONDS) -> AuthorizationCodeResult:
        """The code the browser brought back; raises `TimeoutError` after `timeout` seconds."""
        assert self._result is not None, "start() first"
        try:
            return await asyncio.wait_for(asyncio.shield(self._result), timeout)
        finally:
            await self.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None


OpenUrl = Callable[[str], Awaitable[None]]
"""Shows the authorization URL to the user (opens the browser, prints it)."""


def build_auth(
    server: str,
    url: str,
    settings: OAuthSettings,
    *,
    open_url: OpenUrl | None = None,
    env: Mapping[str, str] | None = None,
) -> httpx2.Auth:
    """The `httpx2.Auth` for one server. Without `open_url` a missing or unusable token raises
    `McpAuthorizationRequired` instead of starting the browser step."""
    from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata

    preregistered = None
    if settings.client_id and settings.grant == "authorization_code":
        preregistered = OAuthClientInformationFull(
            client_id=settings.client_id,
            client_secret=settings.client_secret,
            redirect_uris=None,
            token_endpoint_auth_method="client_secret_basic" if settings.client_secret else "none",
            grant_types=["authorization_code", "refresh_token"],
        )
    storage = FileTokenStorage(auth_file(server, url, env), server=server, url=url, preregistered=preregistered)
    if settings.grant == "client_credentials":
        return _machine_client(server, url, settings, storage)
    if settings.grant == "identity_assertion":
        fields = {
            "clientId": settings.client_id,
            "clientSecret": settings.client_secret,
            "issuer": settings.issuer,
            "idpTokenEndpoint": settings.idp_token_endpoint,
            "idpClientId": settings.idp_client_id,
            "idpClientSecret": settings.idp_client_secret,
            "idTokenCommand": settings.id_token_command,
        }
        return identity_assertion_auth(server, url, storage, fields, settings.scope)
    receiver = LoopbackReceiver(settings.callback_port or storage.stored_redirect_port() or 0)

    async def redirect(authorization_url: str) -> None:
        if open_url is None:
            raise McpAuthorizationRequired(server, authorization_url)
        await receiver.start()  # listening before the browser can come back
        await open_url(authorization_url)

    async def callback() -> AuthorizationCodeResult:
        return await receiver.wait()

    port = receiver.port or _free_port()
    receiver.port = port
    metadata = OAuthClientMetadata(
        client_name="skawld",
        redirect_uris=[receiver.redirect_uri],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="client_secret_basic" if settings.client_secret else "none",
        scope=settings.scope,
    )
    provider: httpx2.Auth = _stored_expiry_provider_class()(
        server_url=url,
        client_metadata=metadata,
        storage=storage,
        redirect_handler=redirect,
        callback_handler=callback,
        client_metadata_url=settings.client_metadata_url,
    )
    return provider


def _machine_client(server: str, url: str, settings: OAuthSettings, storage: FileTokenStorage) -> httpx2.Auth:
    """client_credentials: with `clientSecret` (client_secret_basic) or `privateKeyFile` (a JWT
    assertion signed with that key, RFC 7523 `private_key_jwt`)."""
    from mcp.client.auth.extensions.client_credentials import (
        ClientCredentialsOAuthProvider,
        PrivateKeyJWTOAuthProvider,
        SignedJWTParameters,
    )

    if not settings.client_id or bool(settings.client_secret) == bool(settings.private_key_file):
        raise ValueError(
            f"MCP server '{server}': oauth.grant client_credentials needs clientId and one of"
            " clientSecret or privateKeyFile"
        )
    with warnings.catch_warnings():  # the issuer is discovered from the server's metadata
        warnings.simplefilter("ignore")
        if settings.client_secret:
            return ClientCredentialsOAuthProvider(
                server_url=url,
                storage=storage,
                client_id=settings.client_id,
                client_secret=settings.client_secret,
                scope=settings.scope,
            )
        signing = SignedJWTParameters(
            issuer=settings.client_id,
            subject=settings.client_id,
            signing_key=_read_private_key(server, str(settings.private_key_file)),
            signing_algorithm=settings.signing_algorithm,
        )
        return PrivateKeyJWTOAuthProvider(
            server_url=url,
            storage=storage,
            client_id=settings.client_id,
            assertion_provider=signing.create_assertion_provider(),
            scope=settings.scope,
        )


def _read_private_key(server: str, path: str) -> str:
    """The PEM text of `oauth.privateKeyFile`, or a clear error naming the server and file."""
    file = Path(path).expanduser()
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"MCP server '{server}': cannot read oauth.privateKeyFile {file}: {exc}") from None
    if "-----BEGIN" not in text or "PRIVATE KEY-----" not in text:
        raise ValueError(f"MCP server '{server}': oauth.privateKeyFile {file} is not a PEM private key")
    return text


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _stored_expiry_provider_class() -> type[Any]:
    from mcp.client.auth import OAuthClientProvider

    class StoredExpiryProvider(OAuthClientProvider):
        """`OAuthClientProvider` that also loads when the stored token expires, so a later
        process refreshes an expired token instead of asking for a new login (mcp 2.3 keeps
        the expiry only in memory; `_initialize` is its loading step), and that accepts a
        2025-03-26 server's same-origin issuer (`oauth_legacy`)."""

        legacy_issuer: str | None = None  # set by `with_legacy_issuer` on the 2025-03-26 path

        def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
            return with_legacy_issuer(self, super()._auth_flow(request))

        def _expected_issuer(self) -> str:
            if self.context.auth_server_url is None and self.legacy_issuer is not None:
                return self.legacy_issuer
            expected: str = super()._expected_issuer()
            return expected

        async def _initialize(self) -> None:
            await super()._initialize()
            storage = self.context.storage
            if isinstance(storage, FileTokenStorage) and self.context.current_tokens is not None:
                self.context.token_expiry_time = storage.expires_at()

    return StoredExpiryProvider
