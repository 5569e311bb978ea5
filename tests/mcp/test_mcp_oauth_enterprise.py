"""SEP-990 cross-app access (`grant: "identity_assertion"`): the configuration's errors and the
ID token command. The whole flow (token exchange at the IdP, jwt-bearer grant at the MCP
authorization server) runs against the official conformance suite's
`auth/cross-app-access-complete-flow` (tests/conformance)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from skawld_core.mcp.oauth import OAuthSettings, build_auth
from skawld_core.mcp.oauth_enterprise import _id_token

URL = "http://127.0.0.1:1/mcp"


def settings(**raw: object) -> OAuthSettings:
    return OAuthSettings.parse({"grant": "identity_assertion", **raw})


def test_missing_fields_are_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as raised:
        build_auth("corp", URL, settings(clientId="c", issuer="https://as.example"), env={"HOME": str(tmp_path)})
    assert str(raised.value) == (
        "MCP server 'corp': oauth.grant identity_assertion needs clientSecret, idpTokenEndpoint, idpClientId,"
        " idTokenCommand"
    )


def test_a_complete_entry_builds_the_identity_assertion_provider(tmp_path: Path) -> None:
    from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider

    entry = settings(
        clientId="c",
        clientSecret="s",
        issuer="https://as.example",
        idpTokenEndpoint="https://idp.example/token",
        idpClientId="idp-c",
        idTokenCommand="echo token",
    )
    assert isinstance(build_auth("corp", URL, entry, env={"HOME": str(tmp_path)}), IdentityAssertionOAuthProvider)


async def test_the_id_token_command_prints_the_token() -> None:
    assert await _id_token("corp", "printf ' eyJ.token.sig \\n'") == "eyJ.token.sig"


async def test_a_failing_id_token_command_says_why() -> None:
    command = f"{sys.executable} -c \"import sys; sys.stderr.write('not signed in'); sys.exit(3)\""
    with pytest.raises(
        RuntimeError, match=r"MCP server 'corp': oauth.idTokenCommand printed no ID token \(not signed in\)"
    ):
        await _id_token("corp", command)
    with pytest.raises(RuntimeError, match=r"printed no ID token \(exit 0, no output\)"):
        await _id_token("corp", "true")
