"""The fast path (`skawld_tui.cli.fast`) parses exactly as typer does, or not at all."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from typing import Any

import pytest
import typer.main

from skawld_tui.cli import command as cli
from skawld_tui.cli.fast import OPTIONS, fast_kwargs
from skawld_tui.cli.flags import CommandLine

ACCEPTED = [
    ["-p", "hi"],
    ["hi", "--print"],
    ["--json", "do it", "--model", "m", "--base-url", "http://127.0.0.1:9"],
    ["-p", "x", "-m", "claude", "--provider", "openai-chat", "--max-turns", "3", "--max-retries", "0"],
    ["-p", "x", "--output-format", "stream-json", "--max-output-tokens", "100", "--permission-mode", "acceptEdits"],
    ["--output-format=json", "x", "--model=m", "--cwd", "/tmp", "--session", "abc", "-c", "--fork-session"],
    ["-p", "x", "--allowed-tools", "Read", "--allowedTools", "Bash(git status)", "--disallowed-tools", "Write"],
    ["-p", "x", "--add-dir", "a", "--add-dir", "b", "--disallowedTools", "Edit", "--canusetool"],
    ["-p", "x", "--system-prompt", "be brief", "--append-system-prompt", "more", "--partial", "--no-cache"],
    ["-p", "x", "--pretty", "-v", "--config", "c.json", "--no-user-config", "--accept-project-config"],
    ["-p", "x", "--sandbox", "--session-id", "s1", "--include-partial-messages", "--tools", "Read,Bash"],
    ["-p", "x", "--no-sandbox", "--system-prompt-file", "p.md", "--verbose", "--max-turns", "10"],
    ["--json", "--model", ""],
    [],  # the app
    ["hi"],
    ["--base-url", "http://127.0.0.1:9", "--model", "m", "say hi"],
    ["--plain", "-c", "--permission-mode", "plan", "--add-dir", "a", "--no-sandbox"],
]

REFUSED = [
    ["-p", "x", "--help"],
    ["-h"],
    ["--version", "-p"],
    ["-p", "x", "--unknown"],
    ["-p", "x", "--max-turns", "0"],
    ["-p", "x", "--max-turns", "three"],
    ["-p", "x", "--max-turns", "+3"],
    ["-p", "x", "--max-retries", "-1"],
    ["-p", "x", "--provider", "bogus"],
    ["-p", "x", "--permission-mode", "Default"],
    ["-p", "x", "--model", "a", "--model", "b"],
    ["-p", "x", "--sandbox", "--no-sandbox"],
    ["-p", "x", "y"],
    ["-p", "x", "--model"],
    ["-pv", "x"],
    ["-m=x", "-p"],
    ["--json=1", "x"],
    ["-p", "x", "--", "-y"],
    ["-p", "-x"],
    ["-p", "x", "--resume", "abc"],
    ["--resume"],
    ["-r", "abc"],
    ["--plain", "--plain"],
    ["x", "y"],
    ["-p", "x", "--input-format", "stream-json"],
]


def typer_params(args: list[str]) -> dict[str, Any]:
    command = typer.main.get_command(cli.typer_app())
    return dict(command.make_context("skawld", list(args)).params)


def normalized(params: dict[str, Any]) -> dict[str, Any]:
    """Fill `run`'s defaults; typer's () for an absent repeatable flag is run's None."""
    out = {item.name: item.default for item in dataclasses.fields(CommandLine)}
    out.update(params)
    return {k: (list(v) or None) if isinstance(v, tuple | list) else v for k, v in out.items()}


@pytest.mark.parametrize("args", ACCEPTED, ids=lambda a: " ".join(a))
def test_fast_path_gives_what_typer_gives(args: list[str]) -> None:
    fast = fast_kwargs(args)
    assert fast is not None
    assert normalized(fast) == normalized(typer_params(args))


@pytest.mark.parametrize("args", REFUSED, ids=lambda a: " ".join(a) or "(none)")
def test_anything_else_is_left_to_typer(args: list[str]) -> None:
    assert fast_kwargs(args) is None


def test_every_fast_flag_is_the_typer_flag_of_the_same_parameter() -> None:
    command = typer.main.get_command(cli.typer_app())
    by_flag: dict[str, Any] = {}
    for param in command.params:
        for flag in [*param.opts, *getattr(param, "secondary_opts", [])]:
            by_flag[flag] = param
    for flag, (name, kind) in OPTIONS.items():
        param = by_flag[flag]
        assert param.name == name, flag
        takes_value = not getattr(param, "is_flag", False)
        assert takes_value == (kind not in ("flag", "off")), flag
        assert bool(getattr(param, "multiple", False)) == (kind == "multi"), flag
        if kind == "off":
            assert flag in param.secondary_opts


def test_headless_run_on_the_fast_path_never_imports_typer(tmp_path: Any) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("SKAWLD_")}
    env["HOME"] = str(tmp_path)
    code = (
        "import sys\n"
        "from skawld_tui.cli import command as cli\n"
        "rc = cli._main(['-p', 'hi', '--model', 'm'])\n"
        "print(rc, 'typer.main' in sys.modules)\n"  # `typer` itself is a lazy stub until used
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.split() == ["4", "False"], done.stderr  # no API key: exit 4, as through typer
    assert "ANTHROPIC_API_KEY" in done.stderr


def test_interactive_start_on_the_fast_path_never_imports_typer(tmp_path: Any) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("SKAWLD_")}
    env["HOME"] = str(tmp_path)
    code = (
        "import sys\n"
        "from skawld_tui.cli import command as cli\n"
        "rc = cli._main(['--plain', '--model', 'm'])\n"
        "print(rc, 'typer.main' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.split() == ["4", "False"], done.stderr
    assert "ANTHROPIC_API_KEY" in done.stderr
