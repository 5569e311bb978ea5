"""The plain mode offers the same sticky answers, on a real pseudo-terminal: the installed
`skawld --plain` against the local wire server; `/permissions` lists and removes the rule."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import time

from tests.cli.harness import CliEnv, skawld_command
from tests.support.wire_server import text, tool_call, turn

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")


class Terminal:
    """A child on a pseudo-terminal; `expect` reads until a text shows up (bounded)."""

    def __init__(self, cli: CliEnv, *args: str) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            [*skawld_command(), *cli.args("--plain", *args)],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cli.repo,
            env={**cli.env, "TERM": "xterm"},
        )
        os.close(slave)
        self.seen = ""

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\r")

    def expect(self, needle: str, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        while needle not in ANSI.sub("", self.seen):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{needle!r} did not appear; the terminal showed:\n{ANSI.sub('', self.seen)}")
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    self.seen += os.read(self.master, 4096).decode("utf-8", "replace")
                except OSError:
                    break
        return ANSI.sub("", self.seen)

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        os.close(self.master)


def test_plain_always_saves_the_rule_and_permissions_removes_it(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(tool_call("Bash", {"command": "echo plain-run"}, id="b1")), turn(text("ok")))
    term = Terminal(cli)
    try:
        term.expect("›")
        term.type("say it")
        shown = term.expect("[a]lways in this project")
        assert "[a] saves Bash(echo:*) to .claude/settings.local.json" in shown
        assert "echo plain-run" in shown  # the command itself is shown before the question
        term.type("a")
        cli.srv.anthropic.wait_for_requests(2, timeout=30)
        term.expect("always allowed in this project: Bash(echo:*)")
        settings = cli.repo / ".claude" / "settings.local.json"
        assert json.loads(settings.read_text()) == {"permissions": {"allow": ["Bash(echo:*)"]}}

        term.type("/permissions")
        listing = term.expect("remove one with /permissions remove <n>")
        line = next(x for x in listing.splitlines() if "Bash(echo:*)" in x and "[removable]" in x)
        assert ".claude/settings.local.json" in line and "allow" in line
        number = line.split(".")[0].strip()
        term.type(f"/permissions remove {number}")
        term.expect("removed Bash(echo:*)")
        assert json.loads(settings.read_text()) == {"permissions": {"allow": []}}
        term.type("/exit")
        assert term.proc.wait(timeout=30) == 0
    finally:
        term.close()
    record = json.loads((cli.home / ".skawld" / "remembered-rules.json").read_text())
    assert record["files"][str(settings.resolve())] == []
