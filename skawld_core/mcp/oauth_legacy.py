"""The 2025-03-26 authorization layout (no protected-resource metadata), as that spec says.

Under the 2025-03-26 MCP spec the authorization server *is* the MCP server's origin: the client
discards the URL's path, reads ``<origin>/.well-known/oauth-authorization-server`` and, when that
is absent, uses ``/authorize``, ``/token`` and ``/register`` at the origin. Servers of that time
often name an issuer with a path there (``https://host/oauth``). `mcp.client.auth` (2.3) checks
the issuer strictly (RFC 8414 §3.3: the origin itself) and refuses them.

This accepts, on that no-PRM path only, an issuer on the MCP server's own origin (same scheme,
host and port; any path): the metadata came from that origin, so a same-origin issuer names no
other server. An issuer on another origin is still refused, which is what the strict check is
for (a mix-up attack sends credentials to another server). With protected-resource metadata the
package's strict check applies unchanged.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

if TYPE_CHECKING:
    import httpx2

__all__ = ["legacy_metadata_url", "same_origin_issuer", "with_legacy_issuer"]

PRM_ROOT = "/.well-known/oauth-protected-resource"
ASM_ROOT = "/.well-known/oauth-authorization-server"


def _origin(url: str) -> tuple[str, str, int | None]:
    parsed = urlparse(url)
    port = parsed.port or {"http": 80, "https": 443}.get(parsed.scheme)
    return parsed.scheme.lower(), (parsed.hostname or "").lower(), port


def legacy_metadata_url(server_url: str) -> str:
    """``<origin>/.well-known/oauth-authorization-server`` of an MCP server URL."""
    parsed = urlparse(server_url)
    return f"{parsed.scheme}://{parsed.netloc}{ASM_ROOT}"


def same_origin_issuer(body: bytes, server_url: str) -> str | None:
    """The metadata document's issuer, rendered as `OAuthMetadata.issuer` renders it, when it is
    on the server's origin with a path; else None."""
    from mcp.shared.auth import OAuthMetadata

    try:
        issuer = str(OAuthMetadata.model_validate_json(body).issuer)
    except ValueError:
        return None
    if urlparse(issuer).path in ("", "/"):
        return None  # a bare origin passes the package's own check
    return issuer if _origin(issuer) == _origin(server_url) else None


async def with_legacy_issuer(
    provider: Any, flow: AsyncGenerator[httpx2.Request, httpx2.Response]
) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
    """Drive `OAuthClientProvider._auth_flow`, setting ``provider.legacy_issuer`` before the
    package picks the expected issuer on the no-PRM path.

    The root protected-resource URL is always the last the package tries; when it is not found
    (and no earlier one was), this reads the origin's metadata first, keeps a same-origin issuer,
    and hands the package that same response when it asks for the document, so nothing is
    fetched twice.
    """
    from mcp.client.auth.utils import create_oauth_metadata_request

    context = provider.context
    root_prm = urlparse(context.server_url)._replace(path=PRM_ROOT, params="", query="", fragment="").geturl()
    asm_url = legacy_metadata_url(context.server_url)
    probed: httpx2.Response | None = None
    try:
        outgoing = await flow.__anext__()
        while True:
            if probed is not None and str(outgoing.url) == asm_url and context.auth_server_url is None:
                response, probed = probed, None
            else:
                response = yield outgoing
            if str(outgoing.url) == root_prm and context.auth_server_url is None:
                provider.legacy_issuer = None
                if 400 <= response.status_code < 500 and response.status_code != 429:
                    probed = yield create_oauth_metadata_request(asm_url)
                    if probed.status_code == 200:
                        provider.legacy_issuer = same_origin_issuer(await probed.aread(), context.server_url)
            outgoing = await flow.asend(response)
    except StopAsyncIteration:
        return
    finally:
        await flow.aclose()
