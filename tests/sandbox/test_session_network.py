"""One network namespace per session, on real bubblewrap: a server started in the
background by one call is reached by a later call of the same session, not by
another session nor the host, and the namespace ends with the session."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from skawld_core.sandbox import ShellPolicy
from skawld_core.sandbox.procs import is_alive

from .conftest import bash, context, needs_bwrap, text

pytestmark = [pytest.mark.timeout(60), needs_bwrap]

FETCH = (
    'python3 -c "import sys, time, urllib.request as u\n'
    "for _ in range({tries}):\n"
    "    try: print(u.urlopen('http://127.0.0.1:{port}/', timeout=2).read().decode()); break\n"
    "    except OSError as e: err = e; time.sleep(0.05)\n"
    "else: print('unreachable', err)\""
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def policy() -> Any:
    p = ShellPolicy(sandbox={"mode": "required", "network": False})
    yield p
    p.close()


async def test_a_session_reaches_its_own_server_and_no_one_else_does(project: Path, policy: ShellPolicy) -> None:
    port = free_port()
    (project / "index.html").write_text("session-one-server\n")
    one, two = context(project, policy, "one"), context(project, policy, "two")
    started = await bash(one, f"python3 -m http.server {port} --bind 127.0.0.1", run_in_background=True)
    assert not started.is_error, text(started)
    seen = await bash(one, FETCH.format(tries=200, port=port))
    assert "session-one-server" in text(seen)
    again = await bash(one, f"curl -s http://127.0.0.1:{port}/index.html")  # a later call, another program
    assert text(again).startswith("session-one-server")
    other = await bash(two, FETCH.format(tries=3, port=port))
    assert "unreachable" in text(other) and "session-one-server" not in text(other)
    with socket.socket() as host, pytest.raises(OSError):
        host.settimeout(2)
        host.connect(("127.0.0.1", port))  # the host's loopback is not the session's
    holder = policy.networks.holder("one")
    assert holder is not None and holder.alive
    pid = holder.proc.pid
    await policy.end_background("one")
    assert policy.networks.holder("one") is None and not is_alive(pid)
    after = await bash(one, FETCH.format(tries=3, port=port))  # a new namespace: the server is gone
    assert "unreachable" in text(after)
    await policy.end_background()


async def test_without_the_holder_each_call_has_its_own_namespace(project: Path, policy: ShellPolicy) -> None:
    policy.networks.unavailable = "test: no holder"
    port = free_port()
    ctx = context(project, policy, "one")
    started = await bash(ctx, f"python3 -m http.server {port} --bind 127.0.0.1", run_in_background=True)
    assert not started.is_error
    later = await bash(ctx, FETCH.format(tries=20, port=port))
    assert "unreachable" in text(later)
    await policy.end_background()
