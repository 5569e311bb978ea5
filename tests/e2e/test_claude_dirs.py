"""Skills and agents kept in Claude Code's folders load beside skawld's own (skawld's win a clash)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.harness import CliEnv, parse_events
from tests.support.wire_server import text, turn


def write(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)


def test_claude_folders_are_read_and_skawld_wins_a_clash(cli: CliEnv) -> None:
    write(cli.repo / ".claude" / "skills" / "review" / "SKILL.md", "---\ndescription: from claude\n---\nbody")
    write(cli.repo / ".claude" / "skills" / "lint" / "SKILL.md", "---\ndescription: lint from claude\n---\nbody")
    write(cli.repo / ".skawld" / "skills" / "review" / "SKILL.md", "---\ndescription: from skawld\n---\nbody")
    write(cli.home / ".claude" / "skills" / "deploy" / "SKILL.md", "---\ndescription: user claude skill\n---\nb")
    write(cli.home / ".claude" / "agents" / "helper.md", "---\nname: helper\ndescription: user claude agent\n---\nb")
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", "--json"))
    assert out.returncode == 0, out.stderr
    loaded = next(e for e in parse_events(out.stdout) if e.type == "skills_loaded")
    described = {s.name: s.description for s in loaded.skills}  # type: ignore[attr-defined]
    assert described == {"deploy": "user claude skill", "lint": "lint from claude", "review": "from skawld"}
    tools = json.dumps(cli.srv.anthropic.requests[0].body["tools"])
    assert "user claude agent" in tools
