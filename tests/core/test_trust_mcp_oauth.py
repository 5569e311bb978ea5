"""A project's remote MCP server whose OAuth runs a command or reads a key is listed as such in
the trust prompt (not only as "sends … to the server")."""

from __future__ import annotations

from pathlib import Path

from skawld_core.trust import config_requests


def test_id_token_command_and_private_key_are_listed(tmp_path: Path) -> None:
    doc = {
        "mcpServers": {
            "wiki": {
                "type": "http",
                "url": "https://wiki.example/mcp",
                "oauth": {"grant": "identity_assertion", "idTokenCommand": "corp-sso print-id-token"},
            },
            "api": {
                "type": "http",
                "url": "https://api.example/mcp",
                "oauth": {"grant": "client_credentials", "clientId": "m", "privateKeyFile": "~/.keys/api.pem"},
            },
        }
    }
    requests = config_requests(doc, file=tmp_path / "config.json", project_root=tmp_path, lower={})
    listed = {(r.capability, r.pointer, r.what) for r in requests}
    assert (
        "runs",
        "/mcpServers/wiki/oauth/idTokenCommand",
        "the ID token command of the MCP server 'wiki': corp-sso print-id-token",
    ) in listed
    assert (
        "reads",
        "/mcpServers/api/oauth/privateKeyFile",
        "~/.keys/api.pem to sign client assertions for the MCP server 'api'",
    ) in listed
