"""The Bash sandbox on a real bubblewrap: what is hidden, writable, reachable."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from skawld_core.permissions import PermissionEngine
from skawld_core.sandbox import ShellPolicy, reset_probe

from .conftest import bash, context, needs_bwrap, text

pytestmark = [needs_bwrap, pytest.mark.timeout(60)]


def deny_reads(root: Path, *patterns: str) -> PermissionEngine:
    rule = {"kind": "path", "tools": ["Read"], "paths": list(patterns), "decision": "deny"}
    return PermissionEngine(rules=[rule], project_root=root)


@pytest.fixture
def secrets_project(project: Path) -> Path:
    (project / ".env").write_text("API_KEY=hunter2\n")
    (project / "app.py").write_text("print('hi')\n")
    (project / "secrets").mkdir()
    (project / "secrets" / "id_rsa").write_text("PRIVATE\n")
    (project / "sub").mkdir()
    (project / "sub" / ".env").write_text("NESTED=1\n")
    return project


async def test_read_denied_files_and_folders_are_hidden(secrets_project: Path) -> None:
    policy = ShellPolicy(sandbox="required", permissions=deny_reads(secrets_project, "**/.env", "secrets/**"))
    try:
        ctx = context(secrets_project, policy)
        r = await bash(ctx, "cat .env; cat sub/.env; cat secrets/id_rsa; ls -A secrets; cat app.py")
        assert "hunter2" not in text(r) and "NESTED" not in text(r) and "PRIVATE" not in text(r)
        assert text(r).startswith("print('hi')\n")
        # The files still exist outside, untouched.
        assert (secrets_project / ".env").read_text() == "API_KEY=hunter2\n"
    finally:
        policy.close()


async def test_hidden_folder_when_the_rule_names_the_folder(secrets_project: Path) -> None:
    policy = ShellPolicy(sandbox="required", permissions=deny_reads(secrets_project, "secrets"))
    try:
        r = await bash(context(secrets_project, policy), "ls -A secrets | wc -l; cat secrets/id_rsa")
        assert text(r).startswith("0\n") and "PRIVATE" not in text(r)
    finally:
        policy.close()


async def test_without_rules_everything_in_the_project_is_readable(secrets_project: Path) -> None:
    policy = ShellPolicy(sandbox="required", permissions=PermissionEngine(project_root=secrets_project))
    try:
        assert text(await bash(context(secrets_project, policy), "cat .env")) == "API_KEY=hunter2\n\nexit: 0"
    finally:
        policy.close()


@pytest.fixture
def outside() -> Iterator[Path]:
    """A directory outside the project and outside /tmp (the sandbox's /tmp is private)."""
    path = Path(tempfile.mkdtemp(prefix="skawld-outside-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


async def test_writes_inside_work_outside_fail_with_a_sandbox_note(project: Path, outside: Path) -> None:
    policy = ShellPolicy(sandbox="required")
    try:
        r = await bash(context(project, policy), f"echo in > inside.txt && echo out > {outside}/x.txt")
        assert (project / "inside.txt").read_text() == "in\n"
        assert not (outside / "x.txt").exists()
        assert not r.is_error
        lines = text(r).splitlines()
        assert "Read-only file system" in text(r)
        assert lines[-2].startswith("Bash: the sandbox blocked a write") and lines[-1] == "exit: 1"
    finally:
        policy.close()


async def test_git_config_hooks_and_agent_config_stay_read_only(project: Path) -> None:
    # acceptEdits lets sandboxed Bash run unasked: it must not plant core.fsmonitor or a hook
    # that the next allowed `git status` (or the next skawld start) would run.
    import subprocess

    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".skawld").mkdir()
    (project / ".mcp.json").write_text("{}")
    policy = ShellPolicy(sandbox="required")
    try:
        attack = (
            "git config core.fsmonitor 'touch pwned'; echo x > .git/hooks/pre-commit; "
            "echo '{}' > .skawld/config.json; echo '{\"x\":1}' > .mcp.json; "
            "echo data > tracked.txt && git add tracked.txt && git -c user.email=a@b -c user.name=a commit -qm m"
        )
        r = await bash(context(project, policy), attack)
        assert "fsmonitor" not in (project / ".git" / "config").read_text()
        assert not (project / ".git" / "hooks" / "pre-commit").exists()
        assert not (project / ".skawld" / "config.json").exists()
        assert (project / ".mcp.json").read_text() == "{}"
        assert "exit: 0" in text(r)  # the rest of .git stays writable: the commit went through
        log = subprocess.run(["git", "-C", str(project), "log", "--oneline"], capture_output=True, text=True)
        assert log.stdout.count("\n") == 1
    finally:
        policy.close()


async def test_added_directories_are_writable(project: Path, outside: Path) -> None:
    extra = outside
    policy = ShellPolicy(sandbox="required", writable_dirs=[extra])
    try:
        r = await bash(context(project, policy), f"echo ok > {extra}/made.txt")
        assert text(r) == "\nexit: 0" and (extra / "made.txt").read_text() == "ok\n"
    finally:
        policy.close()


async def test_private_tmp_kept_per_session(project: Path) -> None:
    name = f"skawld-test-{os.getpid()}-{id(project)}"
    policy = ShellPolicy(sandbox="required")
    try:
        assert text(await bash(context(project, policy), f"echo kept > /tmp/{name}")) == "\nexit: 0"
        assert not Path("/tmp", name).exists()  # not the host's /tmp
        again = await bash(context(project, policy), f"cat /tmp/{name}")
        assert text(again) == "kept\n\nexit: 0"
        other = await bash(context(project, policy, session_id="s2"), f"cat /tmp/{name}")
        assert "No such file" in text(other)
        tmp_root = policy.tmp_dir("s1").parent
    finally:
        policy.close()
    assert not tmp_root.exists()


@pytest.fixture
async def local_server() -> AsyncIterator[int]:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"hello\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        yield port


async def test_no_network_by_default(project: Path, local_server: int) -> None:
    policy = ShellPolicy(sandbox="required")
    try:
        r = await bash(context(project, policy), f"exec 3<>/dev/tcp/127.0.0.1/{local_server} && head -1 <&3")
        assert "hello" not in text(r)
        assert "Bash: the sandbox blocked network access" in text(r)
        assert text(r).splitlines()[-1] == "exit: 1" and not r.is_error
    finally:
        policy.close()


async def test_network_true_allows_it(project: Path, local_server: int) -> None:
    policy = ShellPolicy(sandbox={"mode": "required", "network": True})
    try:
        r = await bash(context(project, policy), f"exec 3<>/dev/tcp/127.0.0.1/{local_server} && head -1 <&3")
        assert text(r) == "hello\n\nexit: 0"
    finally:
        policy.close()


async def test_own_pid_namespace(project: Path) -> None:
    policy = ShellPolicy(sandbox="required")
    try:
        r = await bash(context(project, policy), "ls /proc | grep -c '^[0-9]'")
        assert int(text(r).split()[0]) < 10  # only the sandbox's own processes
    finally:
        policy.close()


async def test_secrets_not_in_the_sandboxed_environment(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    monkeypatch.setenv("SKAWLD_PLAIN_VAR", "plain")
    policy = ShellPolicy(sandbox="required")
    try:
        r = await bash(context(project, policy), "env")
        assert "sk-ant-secret" not in text(r) and "SKAWLD_PLAIN_VAR=plain" in text(r)
    finally:
        policy.close()


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A PATH without bwrap: the probe's real answer becomes "not found"."""
    monkeypatch.setenv("PATH", "/nonexistent-dir")
    reset_probe()
    yield
    monkeypatch.undo()
    reset_probe()


@pytest.mark.usefixtures("no_bwrap")
async def test_required_refuses_without_bwrap(project: Path) -> None:
    policy = ShellPolicy(sandbox="required")
    r = await bash(context(project, policy), "touch ran")
    assert r.is_error and "sandbox: required" in text(r) and "bubblewrap" in text(r)
    assert not (project / "ran").exists()


@pytest.mark.usefixtures("no_bwrap")
async def test_auto_runs_unsandboxed_and_says_what_to_install(project: Path, outside: Path) -> None:
    policy = ShellPolicy(sandbox="auto")
    status = policy.status()
    assert not status.active and status.reason is not None and "bubblewrap" in status.reason
    assert "install" in status.describe()
    r = await bash(context(project, policy), f"echo hi > {outside}/f; echo done")
    assert text(r) == "done\n\nexit: 0" and (outside / "f").read_text() == "hi\n"  # no sandbox


def test_auto_uses_bwrap_when_it_works() -> None:
    status = ShellPolicy(sandbox="auto").status()
    assert status.active and status.reason is None and status.describe() == "sandbox: bubblewrap (no network)"
