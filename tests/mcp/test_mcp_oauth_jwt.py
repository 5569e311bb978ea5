"""`private_key_jwt` client credentials (RFC 7523): the configuration's errors. The flow itself
runs against the official conformance suite's `auth/client-credentials-jwt` (tests/conformance)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skawld_core.mcp.oauth import OAuthSettings, build_auth


def settings(**raw: object) -> OAuthSettings:
    return OAuthSettings.parse({"grant": "client_credentials", "clientId": "machine", **raw})


def test_a_missing_key_file_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.pem"
    with pytest.raises(ValueError, match=r"MCP server 'api': cannot read oauth.privateKeyFile .*nope.pem"):
        build_auth("api", "http://127.0.0.1:1/mcp", settings(privateKeyFile=str(missing)), env={"HOME": str(tmp_path)})


def test_a_file_that_is_not_a_pem_key_is_refused(tmp_path: Path) -> None:
    key = tmp_path / "key.pem"
    key.write_text("hello", encoding="utf-8")
    with pytest.raises(ValueError, match="is not a PEM private key"):
        build_auth("api", "http://127.0.0.1:1/mcp", settings(privateKeyFile=str(key)), env={"HOME": str(tmp_path)})


def test_secret_and_key_together_or_neither_are_refused(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    for raw in ({}, {"clientSecret": "s", "privateKeyFile": str(tmp_path / "k.pem")}):
        with pytest.raises(ValueError, match="needs clientId and one of clientSecret or privateKeyFile"):
            build_auth("api", "http://127.0.0.1:1/mcp", settings(**raw), env=env)


def test_a_pem_key_builds_the_jwt_provider(tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from mcp.client.auth.extensions.client_credentials import PrivateKeyJWTOAuthProvider

    key = tmp_path / "key.pem"
    pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    key.write_bytes(pem)
    auth = build_auth(
        "api",
        "http://127.0.0.1:1/mcp",
        settings(privateKeyFile=str(key), signingAlgorithm="ES256"),
        env={"HOME": str(tmp_path)},
    )
    assert isinstance(auth, PrivateKeyJWTOAuthProvider)
