"""The adapter that makes skawld's MCP client the client under test of the official MCP
conformance suite (npm `@modelcontextprotocol/conformance`, `conformance client --command ...`).

The suite appends the server URL and sets `MCP_CONFORMANCE_SCENARIO` (and, for some auth
scenarios, `MCP_CONFORMANCE_CONTEXT`: a pre-registered client's id and secret). This connects
with skawld's own connection code (`skawld_core.mcp.connection.ServerConnection`, OAuth from
`skawld_core.mcp.oauth`), answers elicitations with an empty form (skawld fills in the defaults,
SEP-1034), lets the OAuth browser step run (this script plays the browser: it follows the
authorization server's redirect to skawld's loopback listener), lists the tools and calls the
scenario's tool. Tokens go to a temporary HOME, never the user's.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

CIMD_URL = "https://conformance-test.local/client-metadata.json"  # the suite's client ID metadata document


async def browser(url: str) -> None:
    """The user's browser: open the authorization URL and follow the consent redirect."""
    import httpx2

    async with httpx2.AsyncClient(follow_redirects=True, timeout=30) as client:
        await client.get(url)


def authorization_server(url: str) -> str:
    """The authorization server a user of this MCP server is told to configure (identity_assertion
    takes it as configuration); here read from the server's protected-resource metadata."""
    import httpx2

    parsed = urlparse(url)
    prm = f"{parsed.scheme}://{parsed.netloc}/.well-known/oauth-protected-resource{parsed.path}"
    return str(httpx2.get(prm, timeout=20).json()["authorization_servers"][0])


def server_entry(url: str, scenario: str, context: dict[str, Any]) -> dict[str, Any]:
    oauth: dict[str, Any] = {"clientMetadataUrl": CIMD_URL}
    if context.get("client_id"):
        oauth["clientId"] = context["client_id"]
    if context.get("client_secret"):
        oauth["clientSecret"] = context["client_secret"]
    if scenario.startswith("auth/client-credentials"):
        oauth["grant"] = "client_credentials"
    if context.get("idp_id_token"):  # SEP-990: the user's IdP session is a command printing the ID token
        token = Path(tempfile.mkdtemp(prefix="skawld-conformance-idp-")) / "id_token"
        token.write_text(context["idp_id_token"], encoding="utf-8")
        oauth.update(
            grant="identity_assertion",
            issuer=authorization_server(url),
            idpTokenEndpoint=context["idp_token_endpoint"],
            idpClientId=context["idp_client_id"],
            idTokenCommand=f"cat {shlex.quote(str(token))}",
        )
    if context.get("private_key_pem"):  # private_key_jwt: the key goes in a file, as a user keeps it
        key = Path(tempfile.mkdtemp(prefix="skawld-conformance-key-")) / "client.pem"
        key.write_text(context["private_key_pem"], encoding="utf-8")
        oauth["privateKeyFile"] = str(key)
        oauth["signingAlgorithm"] = context.get("signing_algorithm", "RS256")
    return {"type": "http", "url": url, "oauth": oauth, "timeoutMs": 20000, "connectTimeoutMs": 20000}


def arguments(tool: Any) -> dict[str, Any]:
    """Small valid arguments for a tool's input schema (numbers for `add_numbers`)."""
    props = (tool.input_schema or {}).get("properties") or {}
    sample = {"number": 1, "integer": 1, "boolean": True, "string": "conformance"}
    return {name: sample.get(str(p.get("type")), "x") for name, p in props.items() if isinstance(p, dict)}


async def main(url: str) -> int:
    from skawld_core.mcp.config import parse_server_config
    from skawld_core.mcp.connection import ClientSide, ServerConnection
    from skawld_core.mcp.elicitation import ElicitationAnswer, ElicitationRequest

    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    work = Path.cwd()

    async def accept_defaults(request: ElicitationRequest) -> ElicitationAnswer:
        return ElicitationAnswer("accept", {})

    config = parse_server_config("conformance", server_entry(url, scenario, context), work)
    conn = ServerConnection(
        "conformance", config, work, client_side=ClientSide(roots=lambda: [work], elicit=accept_defaults)
    )
    try:
        tools = await conn.login(browser)
        wanted = {
            "tools_call": "add_numbers",
            "elicitation-sep1034-client-defaults": "test_client_elicitation_defaults",
        }
        names = [wanted[scenario]] if scenario in wanted else [t.name for t in tools]
        for tool in tools:
            if tool.name in names:
                result = await conn.call(tool.name, arguments(tool), 20000)
                print(f"{tool.name}: {result.model_dump_json(exclude_none=True)[:300]}")
    finally:
        await conn.close()
    return 0


if __name__ == "__main__":
    os.environ["HOME"] = tempfile.mkdtemp(prefix="skawld-conformance-")  # a fresh token store per scenario
    try:
        sys.exit(asyncio.run(main(sys.argv[-1])))
    except Exception as exc:
        print(f"skawld conformance client: {type(exc).__name__}: {exc}", file=sys.stderr)
        sys.exit(1)
