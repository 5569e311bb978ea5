"""SEP-990 cross-app access (Enterprise-Managed Authorization) for remote MCP servers.

The user is signed in to the enterprise identity provider (IdP); ``idTokenCommand`` prints their
ID token. skawld exchanges it at the IdP's token endpoint for an Identity Assertion Authorization
Grant (ID-JAG, RFC 8693 token exchange: ``subject_token_type`` id_token, ``requested_token_type``
id-jag, ``audience`` the MCP authorization server's issuer, ``resource`` the MCP server), then
presents the ID-JAG to the MCP authorization server with the RFC 7523 jwt-bearer grant
(`mcp.client.auth.extensions.identity_assertion.IdentityAssertionOAuthProvider`, client secret
sent with HTTP Basic). No browser. The authorization server is configuration (``issuer``), never
discovered from the MCP server, as the `mcp` package requires: a resource server cannot send the
ID-JAG or the client secret elsewhere.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx2
    from mcp.client.auth import TokenStorage

__all__ = ["identity_assertion_auth"]

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
COMMAND_TIMEOUT_SECONDS = 60.0


async def _id_token(server: str, command: str) -> str:
    """The user's ID token, printed by `idTokenCommand`; a clear error when it fails."""
    proc = await asyncio.create_subprocess_shell(
        command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, stdin=asyncio.subprocess.DEVNULL
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), COMMAND_TIMEOUT_SECONDS)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise RuntimeError(f"MCP server '{server}': oauth.idTokenCommand did not finish in 60 s") from None
    token = out.decode(errors="replace").strip()
    if proc.returncode != 0 or not token:
        why = err.decode(errors="replace").strip()[:300] or f"exit {proc.returncode}, no output"
        raise RuntimeError(f"MCP server '{server}': oauth.idTokenCommand printed no ID token ({why})")
    return token


def identity_assertion_auth(
    server: str, url: str, storage: TokenStorage, fields: dict[str, str | None], scope: str | None = None
) -> httpx2.Auth:
    """The `httpx2.Auth` of `grant: "identity_assertion"`; `fields` are the entry's ``oauth`` values
    by their config names (``clientId``, ``clientSecret``, ``issuer``, ``idpTokenEndpoint``,
    ``idpClientId``, ``idpClientSecret``, ``idTokenCommand``). Raises `ValueError` naming what is missing."""
    import httpx2
    from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider

    required = ("clientId", "clientSecret", "issuer", "idpTokenEndpoint", "idpClientId", "idTokenCommand")
    missing = [name for name in required if not fields.get(name)]
    if missing:
        raise ValueError(f"MCP server '{server}': oauth.grant identity_assertion needs {', '.join(missing)}")
    endpoint, command = str(fields["idpTokenEndpoint"]), str(fields["idTokenCommand"])

    async def fetch_id_jag(audience: str, resource: str) -> str:
        form: dict[str, Any] = {
            "grant_type": TOKEN_EXCHANGE,
            "subject_token": await _id_token(server, command),
            "subject_token_type": ID_TOKEN,
            "requested_token_type": ID_JAG,
            "audience": audience,
            "resource": resource,
            "client_id": fields["idpClientId"],
        }
        if fields.get("idpClientSecret"):
            form["client_secret"] = fields["idpClientSecret"]
        async with httpx2.AsyncClient(timeout=30) as client:
            response = await client.post(endpoint, data=form)
        body: Any = response.json() if response.headers.get("content-type", "").startswith("application/json") else {}
        token = body.get("access_token") if isinstance(body, dict) else None
        if response.status_code != 200 or not isinstance(token, str):
            detail = body.get("error_description") or body.get("error") if isinstance(body, dict) else None
            raise RuntimeError(
                f"MCP server '{server}': the identity provider refused the token exchange"
                f" (HTTP {response.status_code}{': ' + str(detail) if detail else ''})"
            )
        return token

    return IdentityAssertionOAuthProvider(
        server_url=url,
        storage=storage,
        client_id=str(fields["clientId"]),
        client_secret=str(fields["clientSecret"]),
        issuer=str(fields["issuer"]),
        assertion_provider=fetch_id_jag,
        scope=scope,
        token_endpoint_auth_method="client_secret_basic",
    )
