"""No host Unix sockets from inside the sandbox (real bwrap, a real socket server on the host)."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from skawld_core.sandbox import ShellPolicy, sandbox_denial_note

from .conftest import bash, context, needs_bwrap, text

pytestmark = [needs_bwrap, pytest.mark.timeout(60)]

CLIENT = (
    'python3 -c "import socket,sys\n'
    "s = socket.socket(socket.AF_UNIX)\n"
    's.connect(sys.argv[1]); print(s.recv(64).decode())" {path}'
)
PAIR = "python3 -c \"import socket; a, b = socket.socketpair(); a.send(b'pair-ok'); print(b.recv(7).decode())\""


async def _serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(b"host-socket-answered")
    await writer.drain()
    writer.close()


@pytest.fixture
async def server_in_project(project: Path) -> AsyncIterator[Path]:
    """A socket in the project itself: visible inside the sandbox, so only the filter stands."""
    path = project / "agent.sock"
    server = await asyncio.start_unix_server(_serve, path=str(path))
    yield path
    server.close()
    await server.wait_closed()


@pytest.fixture
def runtime_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A tmp `XDG_RUNTIME_DIR` outside /tmp (the sandbox's /tmp is private anyway)."""
    path = Path(tempfile.mkdtemp(prefix="skawld-xdg-", dir="/var/tmp"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(path))
    yield path
    shutil.rmtree(path, ignore_errors=True)


async def test_a_host_socket_server_is_unreachable(project: Path, server_in_project: Path) -> None:
    # The same client outside the sandbox gets the answer: the server is real.
    plain = ShellPolicy(sandbox="off")
    try:
        outside = text(await bash(context(project, plain), CLIENT.format(path=server_in_project)))
    finally:
        plain.close()
    assert outside.startswith("host-socket-answered")
    policy = ShellPolicy(sandbox="required")
    try:
        inside = text(await bash(context(project, policy), CLIENT.format(path=server_in_project)))
    finally:
        policy.close()
    assert "host-socket-answered" not in inside
    assert "Operation not permitted" in inside


async def test_socketpair_still_works(project: Path) -> None:
    policy = ShellPolicy(sandbox="required")
    try:
        assert text(await bash(context(project, policy), PAIR)).startswith("pair-ok\n")
    finally:
        policy.close()


async def test_the_runtime_dir_and_run_are_empty(project: Path, runtime_dir: Path) -> None:
    server = await asyncio.start_unix_server(_serve, path=str(runtime_dir / "bus"))
    policy = ShellPolicy(sandbox="required")
    try:
        command = f'ls -A "$XDG_RUNTIME_DIR" | wc -l; ls -A /run | wc -l; {CLIENT.format(path=runtime_dir / "bus")}'
        result = text(await bash(context(project, policy), command))
    finally:
        policy.close()
        server.close()
        await server.wait_closed()
    assert result.startswith("0\n0\n"), result
    assert "host-socket-answered" not in result


async def test_allow_all_unix_sockets_turns_the_filter_off(project: Path, server_in_project: Path) -> None:
    policy = ShellPolicy(sandbox={"mode": "required", "allow_all_unix_sockets": True})
    try:
        assert policy.status().unix_sockets
        assert "warning: host Unix sockets are reachable" in policy.status().describe()
        result = text(await bash(context(project, policy), CLIENT.format(path=server_in_project)))
    finally:
        policy.close()
    assert result.startswith("host-socket-answered"), result


async def test_a_docker_client_gets_a_note_naming_the_sandbox(project: Path) -> None:
    if shutil.which("docker") is None:
        pytest.skip("no docker client here")  # the note's wording is tested below without one
    policy = ShellPolicy(sandbox="required")
    try:
        result = text(await bash(context(project, policy), "docker ps"))
    finally:
        policy.close()
    assert "Bash: the sandbox keeps the host's Unix sockets" in result


def test_the_socket_note_only_when_the_filter_is_on() -> None:
    stderr = "Cannot connect to the Docker daemon at unix:///var/run/docker.sock."
    assert "Unix sockets" in (sandbox_denial_note(stderr, network=False, unix_sockets=False) or "")
    assert sandbox_denial_note(stderr, network=False, unix_sockets=True) is None


def test_the_filter_is_on_by_default_and_says_nothing() -> None:
    status = ShellPolicy(sandbox="required").status()
    assert not status.unix_sockets
    assert "warning" not in status.describe()
    assert "unix_sockets" not in status.model_dump()


async def test_programs_on_path_under_run_stay_reachable(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # NixOS puts the system's programs under /run/current-system; /run is emptied otherwise.
    if not os.access("/run", os.W_OK) and os.environ.get("CI") != "true":
        pytest.skip("/run is not writable here (the test makes a folder in it)")
    top = Path(tempfile.mkdtemp(prefix="skawld-test-", dir="/run"))
    try:
        (top / "bin").mkdir()
        tool = top / "bin" / "skawld-probe-tool"
        tool.write_text("#!/bin/sh\necho tool-ran\n")
        tool.chmod(0o755)
        monkeypatch.setenv("PATH", f"{top / 'bin'}:{os.environ['PATH']}")
        policy = ShellPolicy(sandbox="required")
        try:
            result = text(await bash(context(project, policy), "skawld-probe-tool; ls -A /run | wc -l"))
        finally:
            policy.close()
    finally:
        shutil.rmtree(top)
    assert result.startswith("tool-ran\n1\n"), result
