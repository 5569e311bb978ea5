"""The installed `skawld` command: help, version, usage errors, config errors, missing key."""

from __future__ import annotations

import json

import pytest

from tests.cli.harness import CliEnv

pytestmark = pytest.mark.timeout(60)


def test_help_and_version(cli: CliEnv) -> None:
    out = cli.run("--help")
    assert out.returncode == 0
    assert "Usage: skawld" in out.stdout and "--output-format" in out.stdout
    assert "--dangerously-skip-permissions" in out.stdout
    version = cli.run("--version")
    assert (version.returncode, version.stdout.strip()) == (0, "skawld 0.1.0")
    sessions = cli.run("sessions", "--help")
    assert sessions.returncode == 0 and "export" in sessions.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--no-such-flag"],
        ["-p", "hi", "--max-turns", "0"],
        ["-p", "hi", "--max-turns", "many"],
        ["-p", "hi", "--provider", "gemini"],
        ["-p", "hi", "--permission-mode", "bypass"],
        ["-p", "hi", "--output-format", "xml"],
        ["sessions", "export", "x", "--format", "pdf"],
        ["-p", "hi", "--resume", "a", "--session", "b"],
        ["-p", "hi", "--json", "--output-format", "text"],
    ],
)
def test_usage_errors_exit_2_with_usage_line(cli: CliEnv, args: list[str]) -> None:
    out = cli.run(*args)
    assert out.returncode == 2, out.stderr
    assert out.stdout == ""
    assert "Usage:" in out.stderr or "skawld:" in out.stderr
    assert "Traceback" not in out.stderr


def test_bad_tool_spec_is_a_usage_error(cli: CliEnv) -> None:
    out = cli.run(*cli.args("-p", "hi", "--allowed-tools", "Bash(unclosed"))
    assert out.returncode == 2
    assert "bad tool spec" in out.stderr


def test_empty_stdin_prompt_is_a_usage_error(cli: CliEnv) -> None:
    out = cli.run(*cli.args("-p"), input="  \n")
    assert out.returncode == 2
    assert "empty" in out.stderr


def test_malformed_config_exits_3_naming_file_and_pointer(cli: CliEnv) -> None:
    path = cli.write_user_config({"limits": {"maxTurns": 0}})
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 3
    assert f"Invalid config in {path} (/limits/maxTurns)" in out.stderr
    assert out.stdout == ""
    cli.write_user_config("{broken")
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 3 and str(path) in out.stderr and "Traceback" not in out.stderr


def test_untrusted_project_config_exits_3_until_accepted(cli: CliEnv) -> None:
    from tests.support.wire_server import text, turn

    cli.write_project_config({"permissions": {"mode": "yolo"}, "mcpServers": {}})
    refused = cli.run(*cli.args("-p", "hi"))
    assert refused.returncode == 3
    assert "/permissions/mode" in refused.stderr and "--accept-project-config" in refused.stderr
    cli.srv.anthropic.enqueue(turn(text("ok")), turn(text("ok again")))
    accepted = cli.run(*cli.args("-p", "hi", "--accept-project-config"))
    assert accepted.returncode == 0, accepted.stderr
    again = cli.run(*cli.args("-p", "hi"))  # remembered in ~/.skawld/trusted-projects.json
    assert again.returncode == 0, again.stderr
    trust = json.loads((cli.home / ".skawld" / "trusted-projects.json").read_text())
    assert str((cli.repo / ".skawld" / "config.json").resolve()) in trust["projects"]


def test_missing_api_key_exits_4_with_friendly_message(cli: CliEnv) -> None:
    out = cli.run(*cli.args("-p", "hi"), env={"ANTHROPIC_API_KEY": ""})
    assert out.returncode == 4
    assert "ANTHROPIC_API_KEY" in out.stderr and "--base-url" in out.stderr
    assert out.stdout == "" and "Traceback" not in out.stderr
    openai = cli.run(*cli.args("-p", "hi", "--provider", "openai-chat", base_url=False), env={"ANTHROPIC_API_KEY": ""})
    assert openai.returncode == 4 and "OPENAI_API_KEY" in openai.stderr


def test_server_401_exits_4(cli: CliEnv) -> None:
    from tests.support.wire_server import http_error

    cli.srv.anthropic.enqueue(http_error(401, "invalid x-api-key"))
    out = cli.run(*cli.args("-p", "hi", "--json"))
    assert out.returncode == 4, out.stderr
    assert '"name":"AuthError"' in out.stdout


def test_no_model_for_a_compatible_server_exits_3(cli: CliEnv) -> None:
    # Anthropic and OpenAI have default models; an OpenAI-compatible server has none
    # (unless it serves exactly one: see tests/providers/test_discovery.py).
    from dataclasses import replace

    cli.srv.chat.profile = replace(cli.srv.chat.profile, models=[])
    out = cli.run(*cli.args("-p", "hi", "--provider", "openai-chat", model=False))
    assert out.returncode == 3
    assert "--model" in out.stderr


def test_api_key_in_config_is_warned_about_without_the_value(cli: CliEnv) -> None:
    from tests.support.wire_server import text, turn

    secret = "sk-ant-from-config-do-not-print"
    cli.write_user_config({"provider": {"id": "anthropic", "apiKey": secret}, "output": "x"})
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi"), env={"ANTHROPIC_API_KEY": ""})
    assert out.returncode == 0, out.stderr
    assert "apiKey" in out.stderr and "'output'" in out.stderr
    assert secret not in out.stderr and secret not in out.stdout
    assert secret in str(cli.srv.anthropic.requests[0].headers), cli.srv.anthropic.requests[0].headers


def test_unknown_provider_option_exits_3(cli: CliEnv) -> None:
    cli.write_user_config({"provider": {"id": "anthropic", "options": {"flux": 1}}})
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 3 and "provider.options.flux" in out.stderr
