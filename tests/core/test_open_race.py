"""File tools decide on the file they actually open (issue 10, point 4): a symlink flipped
between an allowed file and a denied one while the tools run never reaches the denied one."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from skawld_core import Agent, ToolResultBlock, UserEvent
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider, reply, tool_call
from skawld_core.tools import default_tools
from skawld_core.tools.safe_open import OpenRefused, fd_real_path, open_verified

SECRET = "TOP-SECRET-CONTENT"
READS = 250
PER_TURN = 50


class Flipper:
    """A thread that atomically retargets `link` between two targets until stopped."""

    def __init__(self, link: Path, targets: tuple[Path, Path]) -> None:
        self.link = link
        self.targets = targets
        self.flips = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        tmp = self.link.with_name(self.link.name + ".tmp")
        while not self._stop.is_set():
            for target in self.targets:
                os.symlink(target, tmp)
                os.replace(tmp, self.link)
                self.flips += 1

    def __enter__(self) -> Flipper:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@pytest.fixture
def files(tmp_path: Path) -> Iterator[tuple[Path, Path, Path]]:
    allowed = tmp_path / "allowed.txt"
    allowed.write_text("harmless\n")
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET + "\n")
    link = tmp_path / "link.txt"
    link.symlink_to(allowed)
    yield allowed, secret, link


def results_of(events: list[object]) -> list[str]:
    return [
        str(b.content)
        for e in events
        if isinstance(e, UserEvent) and e.subtype == "tool_result"
        for b in e.message.content
        if isinstance(b, ToolResultBlock)
    ]


async def test_read_never_returns_the_denied_file_while_a_symlink_flips(
    tmp_path: Path, files: tuple[Path, Path, Path]
) -> None:
    allowed, secret, link = files
    turns = [
        reply(*(tool_call("Read", {"file_path": "link.txt"}) for _ in range(PER_TURN)))
        for _ in range(READS // PER_TURN)
    ]
    agent = Agent(
        provider=ScriptedProvider([*turns, reply("done")]),
        model="m",
        tools=default_tools(),
        cwd=tmp_path,
        session_store=InMemorySessionStore(),
        permission_rules=[{"kind": "path", "tools": ["Read"], "paths": ["secret.txt"], "decision": "deny"}],
    )
    session = await agent.session()
    with Flipper(link, (allowed, secret)) as flipper:
        async with session.run("read it many times") as run:
            events = [e async for e in run]
    results = results_of(events)
    assert len(results) == READS
    assert not [r for r in results if SECRET in r]
    assert flipper.flips > 2  # the link really moved while the reads ran
    # Both outcomes occurred: some reads got the allowed file, some were refused.
    assert any("harmless" in r for r in results)
    assert any("denied" in r or "not the file the permission check approved" in r for r in results)


def test_open_verified_reports_the_real_file(tmp_path: Path, files: tuple[Path, Path, Path]) -> None:
    allowed, secret, link = files
    fd, real = open_verified(link, os.O_RDONLY, lambda p: None)
    try:
        assert real == allowed and fd_real_path(fd) == str(allowed)
    finally:
        os.close(fd)
    link.unlink()
    link.symlink_to(secret)
    with pytest.raises(OpenRefused, match="no secrets"):
        open_verified(link, os.O_RDONLY, lambda p: "no secrets" if p == secret else None)


async def test_write_through_a_flipped_directory_never_lands_outside(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "real").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / "dir").symlink_to(project / "real")
    turns = [
        reply(*(tool_call("Write", {"file_path": f"dir/f{t}_{i}.txt", "content": "x"}) for i in range(PER_TURN)))
        for t in range(4)
    ]
    agent = Agent(
        provider=ScriptedProvider([*turns, reply("done")]),
        model="m",
        tools=default_tools(),
        cwd=project,
        session_store=InMemorySessionStore(),
        permission_mode="acceptEdits",
    )
    session = await agent.session()
    with Flipper(project / "dir", (project / "real", outside)):
        async with session.run("write many") as run:
            events = [e async for e in run]
    results = results_of(events)
    assert len(results) == 4 * PER_TURN
    assert list(outside.iterdir()) == []
    assert any(r.startswith("wrote 1 bytes") for r in results)


@pytest.mark.parametrize("use_rg", [True, False])
async def test_grep_on_a_flipping_symlink_never_shows_the_denied_file(
    tmp_path: Path, files: tuple[Path, Path, Path], use_rg: bool
) -> None:
    from skawld_core.tools.grep import GrepTool
    from skawld_core.tools.ripgrep import find_rg

    if use_rg and find_rg() is None and os.environ.get("CI") != "true":
        pytest.skip("ripgrep (rg) is not installed")
    allowed, secret, link = files
    grep = {"pattern": ".", "path": "link.txt", "output_mode": "content"}
    turns = [reply(*(tool_call("Grep", grep) for _ in range(PER_TURN))) for _ in range(4)]
    tools = [t for t in default_tools() if t.name != "Grep"] + [GrepTool(use_rg=use_rg)]
    agent = Agent(
        provider=ScriptedProvider([*turns, reply("done")]),
        model="m",
        tools=tools,
        cwd=tmp_path,
        session_store=InMemorySessionStore(),
        permission_rules=[{"kind": "path", "tools": ["Read"], "paths": ["secret.txt"], "decision": "deny"}],
    )
    session = await agent.session()
    with Flipper(link, (allowed, secret)):
        async with session.run("grep it many times") as run:
            events = [e async for e in run]
    results = results_of(events)
    assert len(results) == 4 * PER_TURN
    assert not [r for r in results if SECRET in r]
    assert any("harmless" in r for r in results)
