"""CLAUDE.md and AGENTS.md read like Claude Code's memory files, through the real `skawld -p`."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.cli.harness import CliEnv
from tests.support.wire_server import text, turn


def _system(cli: CliEnv) -> str:
    return json.dumps(cli.srv.anthropic.requests[-1].body["system"])


def test_every_memory_file_with_imports(cli: CliEnv) -> None:
    (cli.home / ".claude").mkdir()
    (cli.home / ".claude" / "CLAUDE.md").write_text("USER-CLAUDE\n")
    (cli.repo / "CLAUDE.md").write_text("PROJECT-CLAUDE. See @docs/style.md for the style guide.\n")
    (cli.repo / "docs").mkdir()
    (cli.repo / "docs" / "style.md").write_text("STYLE-GUIDE, which imports @../CLAUDE.md again\n")
    (cli.repo / ".claude").mkdir()
    (cli.repo / ".claude" / "CLAUDE.md").write_text("DOT-CLAUDE\n")
    (cli.repo / "CLAUDE.local.md").write_text("LOCAL-NOTES\n`@docs/style.md` in a code span is not an import\n")
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", "--json"))
    assert out.returncode == 0, out.stderr
    system = _system(cli)
    order = ["USER-CLAUDE", "PROJECT-CLAUDE", "STYLE-GUIDE", "DOT-CLAUDE", "LOCAL-NOTES"]
    assert [system.index(marker) for marker in order] == sorted(system.index(marker) for marker in order)
    assert system.count("STYLE-GUIDE") == 1 and system.count("PROJECT-CLAUDE") == 1  # the cycle is refused
    assert f"imported by {cli.repo / 'CLAUDE.md'}" in system
    instructions = json.loads(out.stdout.splitlines()[0])["instructions"]
    assert str(cli.repo / "docs" / "style.md") in instructions


def test_an_import_outside_the_project_needs_trust(cli: CliEnv, tmp_path: Path) -> None:
    secret = tmp_path / "outside-secret.txt"
    secret.write_text("TOP-SECRET-KEY\n")
    (cli.repo / "CLAUDE.md").write_text(f"Read @{os.path.relpath(secret, cli.repo)} please\n")
    cli.srv.anthropic.enqueue(turn(text("ok")), turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 0, out.stderr
    assert "TOP-SECRET-KEY" not in _system(cli)
    assert "outside the project" in out.stderr and str(cli.repo / "CLAUDE.md") in out.stderr
    out = cli.run(*cli.args("-p", "hi", "--accept-project-config"))
    assert out.returncode == 0, out.stderr
    assert "TOP-SECRET-KEY" in _system(cli)


def test_agents_md_and_a_claude_md_symlink_are_read_once(cli: CliEnv) -> None:
    (cli.repo / "AGENTS.md").write_text("SHARED-RULES\n")
    (cli.repo / "CLAUDE.md").symlink_to("AGENTS.md")
    cli.srv.anthropic.enqueue(turn(text("ok")))
    assert cli.run(*cli.args("-p", "hi")).returncode == 0
    assert _system(cli).count("SHARED-RULES") == 1
