"""The one config schema: docs agree with it, nothing reads an undeclared key,
`skawld config schema|show`, and every malformed file is exit 3 naming the file."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from skawld_core.config_model import declared_keys
from tests.cli.harness import ROOT, CliEnv
from tests.support.wire_server import text, turn

pytestmark = pytest.mark.timeout(60)

# keys inside a permission rule (`skawld_core.permissions.rules`) and of the trust file
RULE_AND_TRUST_KEYS = {
    "kind",
    "tool",
    "arg",
    "decision",
    "pattern",
    "regex",
    "tools",
    "paths",
    "domains",
    "projects",
    "sha256",
    "file",
    "items",
}


def _docs_table_keys() -> list[str]:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split("### Config keys", 1)[1].split("\n#", 1)[0]
    return re.findall(r"^\| `([^`]+)` \|", section, flags=re.MULTILINE)


def test_docs_table_lists_exactly_the_schema_keys() -> None:
    documented = _docs_table_keys()
    assert len(documented) == len(set(documented)), "a key is listed twice"
    assert set(documented) == set(declared_keys())


@pytest.mark.parametrize(
    "module", ["skawld_core/config.py", "skawld_core/trust.py", "skawld_core/mcp/config.py", "skawld_tui/cli/config.py"]
)
def test_config_readers_only_read_declared_keys(module: str) -> None:
    """Every `doc.get("key")` / `doc["key"]` on a config document names a declared key."""
    source = (ROOT / module).read_text(encoding="utf-8")
    read = set(re.findall(r"""\.get\(\s*"([A-Za-z$][A-Za-z0-9]*)"|\[\s*"([A-Za-z$][A-Za-z0-9]*)"\s*\]""", source))
    names = {a or b for a, b in read} - {n for a, b in read if (n := a or b).isupper()}  # env variables
    declared = {k.rsplit(".", 1)[-1].removesuffix("[]") for k in declared_keys()}
    declared |= {k.split(".")[0] for k in declared_keys()}
    undeclared = names - declared - RULE_AND_TRUST_KEYS - {"defaultHeaders"}
    assert not undeclared, f"{module} reads config keys the schema does not declare: {sorted(undeclared)}"


def test_schema_command_prints_a_json_schema(cli: CliEnv) -> None:
    out = cli.run("config", "schema")
    assert out.returncode == 0, out.stderr
    schema = json.loads(out.stdout)
    assert schema["$schema"].startswith("https://json-schema.org/")
    props = schema["properties"]
    assert {"provider", "mcpServers", "sandbox", "sessionStore", "additionalDirectories", "env"} <= set(props)


def test_show_command_names_the_file_of_each_value(cli: CliEnv) -> None:
    user = cli.write_user_config(
        {
            "model": "user-model",
            "limits": {"maxTurns": 4},
            "provider": {"apiKey": "sk-x", "headers": {"authorization": "Bearer hdr-secret"}},
            "mcpServers": {"t": {"command": "x", "env": {"TOKEN": "env-secret"}}},
        }
    )
    project = cli.write_project_config({"model": "project-model"})
    out = cli.run("config", "show")
    assert out.returncode == 0, out.stderr
    lines = {line.split()[0]: line for line in out.stdout.splitlines()}
    assert '"project-model"' in lines["model"] and lines["model"].endswith(str(project))
    assert lines["limits.maxTurns"].endswith(str(user))
    assert "sk-x" not in out.stdout and '"***"' in lines["provider.apiKey"]
    assert "hdr-secret" not in out.stdout and "env-secret" not in out.stdout
    assert '"command": "x"' in lines["mcpServers.t"]
    as_json = json.loads(cli.run("config", "show", "--json").stdout)
    assert as_json["origins"]["model"] == str(project)


def test_show_lists_what_an_untrusted_project_asks_for(cli: CliEnv) -> None:
    cli.write_project_config({"hooks": {"Stop": [{"command": "touch pwned"}]}})
    out = cli.run("config", "show")
    assert out.returncode == 0, out.stderr
    assert "not trusted yet" in out.stderr and "touch pwned" in out.stderr


# -- malformed files ------------------------------------------------------------------------

MALFORMED: dict[str, bytes] = {
    "deep-nesting": b"[" * 100_000 + b"]" * 100_000,
    "deep-object": b'{"provider": {"options": ' + b'{"a": ' * 200 + b"1" + b"}" * 200 + b"}}",
    "invalid-utf8": b'{"model": "\xff\xfe"}',
    "nul-bytes": b'{"model": "m"}\x00\x00',
    "escaped-nul": b'{"model": "a\\u0000b"}',
    "non-object-root": b"[1, 2, 3]",
    "string-root": b'"hello"',
    "empty": b"",
    "bad-json": b'{"model": ',
}


@pytest.mark.parametrize("shape", sorted(MALFORMED))
@pytest.mark.parametrize("layer", ["user", "project"])
def test_malformed_config_is_exit_3_naming_the_file(cli: CliEnv, shape: str, layer: str) -> None:
    path = (cli.home if layer == "user" else cli.repo) / ".skawld" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(MALFORMED[shape])
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 3, out.stderr
    assert str(path) in out.stderr
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr


def test_a_directory_in_place_of_the_file_is_exit_3(cli: CliEnv) -> None:
    path = cli.repo / ".skawld" / "config.json"
    path.mkdir(parents=True)
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 3 and str(path) in out.stderr and "directory" in out.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file regardless of its mode")
def test_an_unreadable_file_is_exit_3(cli: CliEnv) -> None:
    path = cli.write_user_config({"model": "m"})
    path.chmod(0)
    try:
        out = cli.run(*cli.args("-p", "hi"))
    finally:
        path.chmod(0o644)
    assert out.returncode == 3 and str(path) in out.stderr and "Cannot read" in out.stderr


def test_an_unreadable_file_as_root_is_exit_3(cli: CliEnv, tmp_path: Path) -> None:
    """A path that cannot be read even by root: a config whose parent is a file."""
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    out = cli.run(*cli.args("-p", "hi", "--config", str(blocker / "config.json")))
    assert out.returncode == 3 and str(blocker / "config.json") in out.stderr


def test_invalid_value_names_file_pointer_and_expectation(cli: CliEnv) -> None:
    path = cli.write_project_config({"limits": {"maxTurns": "ten"}})
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 3
    assert f"Invalid config in {path} (/limits/maxTurns): expected an integer, got string" in out.stderr


def test_unknown_key_warns_with_did_you_mean(cli: CliEnv) -> None:
    cli.write_user_config({"modle": "x"})
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 0, out.stderr
    assert "Unknown config key 'modle' ignored; did you mean 'model'?" in out.stderr
