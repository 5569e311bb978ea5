"""Claude Code's model aliases through the real `skawld -p` against the wire server:
resolved for the Anthropic provider in `--model`, agent and command files; sent
as written, with a warning, to other providers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.harness import CliEnv
from tests.support.wire_server import text, tool_call, turn


def _write(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body, encoding="utf-8")


def _sent_model(cli: CliEnv, *args: str, env: dict[str, str] | None = None) -> str:
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run("--base-url", cli.srv.url, "-p", "hi", *args, env=env)
    assert out.returncode == 0, out.stderr
    assert "is a Claude Code alias" not in out.stderr
    return str(cli.srv.anthropic.requests[-1].body["model"])


@pytest.mark.parametrize(
    ("alias", "model"),
    [
        ("sonnet", "claude-sonnet-5-5"),
        ("opus", "claude-opus-5-5"),
        ("haiku", "claude-haiku-5-5"),
        ("fable", "claude-fable-5-2"),
        ("best", "claude-fable-5-2"),
        ("opusplan", "claude-sonnet-5-5"),  # sonnet outside plan mode
        ("sonnet[1m]", "claude-sonnet-5-5"),
        ("Opus[1m]", "claude-opus-5-5"),
        ("claude-opus-4-8[1m]", "claude-opus-4-8"),
        ("claude-3-7-sonnet-latest", "claude-3-7-sonnet-latest"),  # a model id is left alone
    ],
)
def test_model_flag_aliases_are_resolved_for_anthropic(cli: CliEnv, alias: str, model: str) -> None:
    assert _sent_model(cli, "--model", alias) == model


def test_opusplan_is_opus_in_plan_mode(cli: CliEnv) -> None:
    assert _sent_model(cli, "--model", "opusplan", "--permission-mode", "plan") == "claude-opus-5-5"


def test_claude_codes_pinning_variables_are_honoured(cli: CliEnv) -> None:
    pinned = {"ANTHROPIC_DEFAULT_FABLE_MODEL": "claude-fable-5-1"}
    assert _sent_model(cli, "--model", "best", env=pinned) == "claude-fable-5-1"


def test_an_agent_files_alias_is_resolved_for_its_requests(cli: CliEnv) -> None:
    _write(
        cli.repo / ".skawld" / "agents" / "scout.md",
        "---\ndescription: Looks around\nmodel: fable\n---\nYou look around.",
    )
    cli.srv.anthropic.enqueue(
        turn(tool_call("Subagent", {"subagent_type": "scout", "prompt": "look", "description": "look"}, id="t1")),
        turn(text("seen")),
        turn(text("done")),
    )
    out = cli.run(*cli.args("-p", "send the scout", "--accept-project-config"))
    assert out.returncode == 0, out.stderr
    models = [r.body["model"] for r in cli.srv.anthropic.requests]
    assert models == ["test-model", "claude-fable-5-2", "test-model"]


def test_other_providers_get_the_alias_as_written_with_a_warning(cli: CliEnv) -> None:
    cli.srv.chat.enqueue(turn(text("ok")))
    out = cli.run("-p", "hi", "--provider", "openai-chat", "--base-url", cli.srv.openai_url, "--model", "sonnet")
    assert out.returncode == 0, out.stderr
    assert cli.srv.chat.requests[0].body["model"] == "sonnet"
    assert "'sonnet' is a Claude Code alias, resolved only for the anthropic provider" in out.stderr
