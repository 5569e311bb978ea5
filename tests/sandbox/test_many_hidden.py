"""More hidden paths than bubblewrap's 9,000 arguments hold (real bwrap): bwrap mounts what
fits, a small program inside the sandbox mounts the rest, drops every capability and runs the
command; none of the denied files is readable."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from skawld_core.permissions import PermissionEngine
from skawld_core.sandbox import ShellPolicy

from .conftest import bash, context, needs_bwrap, text

pytestmark = [needs_bwrap, pytest.mark.timeout(300)]

COUNT = 10_000


@pytest.fixture(scope="module")
def crowded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """10,000 `.env` files (one per folder) and 20 denied folders, under a `**/.env` and a `**/private` rule."""
    root = tmp_path_factory.mktemp("crowded") / "p"
    for i in range(COUNT):
        folder = root / f"d{i // 100}" / f"e{i % 100}"
        folder.mkdir(parents=True)
        (folder / ".env").write_text(f"SECRET_{i}\n")
        (folder / "ok.txt").write_text("visible\n")
    for i in range(20):
        (root / f"d{i}" / "private").mkdir()
        (root / f"d{i}" / "private" / "key").write_text(f"PRIVATE_{i}\n")
    return root


@pytest.fixture
def policy(crowded: Path) -> Iterator[ShellPolicy]:
    rules = [{"kind": "path", "tools": ["Read"], "paths": ["**/.env", "**/private"], "decision": "deny"}]
    p = ShellPolicy(sandbox="required", permissions=PermissionEngine(rules=rules, project_root=crowded))
    yield p
    p.close()


async def test_ten_thousand_denied_files_are_hidden_and_the_call_runs(crowded: Path, policy: ShellPolicy) -> None:
    command = (
        "find . -name .env | wc -l; cat $(find . -name .env) | grep -c SECRET_; "
        "cat d*/private/key 2>&1 | grep -c PRIVATE_; cat d0/e0/ok.txt"
    )
    lines = text(await bash(context(crowded, policy), command)).splitlines()
    assert lines[:4] == [str(COUNT), "0", "0", "visible"], lines[:6]
    assert (crowded / "d99" / "e99" / ".env").read_text() == "SECRET_9999\n"


async def test_the_command_has_no_capability_and_cannot_unmount(crowded: Path, policy: ShellPolicy) -> None:
    out = text(
        await bash(
            context(crowded, policy),
            "grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status; grep NoNewPrivs /proc/self/status; "
            "umount d99/e99/.env; cat d99/e99/.env; echo done",
        )
    )
    for name in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert f"{name}:\t0000000000000000" in out, out
    assert "NoNewPrivs:\t1" in out
    assert "SECRET_9999" not in out and "done" in out


async def test_the_mounter_takes_over_wherever_bwraps_arguments_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small budget forces the split at a few paths: files and folders on both sides stay hidden."""
    from skawld_core.sandbox import policy as policy_module

    root = tmp_path / "p"
    for i in range(6):
        (root / f"f{i}").mkdir(parents=True)
        (root / f"f{i}" / ".env").write_text(f"SECRET_{i}\n")
        (root / f"f{i}" / "private").mkdir()
        (root / f"f{i}" / "private" / "key").write_text(f"PRIVATE_{i}\n")
    rules = [{"kind": "path", "tools": ["Read"], "paths": ["**/.env", "**/private"], "decision": "deny"}]
    shell = ShellPolicy(sandbox="required", permissions=PermissionEngine(rules=rules, project_root=root))
    try:
        assert text(await bash(context(root, shell), "true")).endswith("exit: 0")
        # 12 hidden paths take 30 arguments: bwrap keeps 4 folders and 1 file, the mounter the rest
        monkeypatch.setattr(policy_module, "BWRAP_MAX_ARGS", _argument_count(shell, root) - 4)
        launch = shell.launch("true", root, "s1")
        assert not isinstance(launch, str)
        launch.release()
        assert sys.executable in launch.argv  # the mounter runs first
        out = text(
            await bash(context(root, shell), "cat f*/.env f*/private/key 2>&1; ls f5/private | wc -l; echo done")
        )
    finally:
        shell.close()
    assert "SECRET_" not in out and "PRIVATE_" not in out and "done" in out, out


def _argument_count(shell: ShellPolicy, root: Path) -> int:
    """How many arguments bwrap gets for a call in `root` now (read back from the launch's --args descriptor)."""
    import os

    launch = shell.launch("true", root, "s1")
    assert not isinstance(launch, str)
    try:
        args_fd = int(launch.argv[launch.argv.index("--args") + 1])
        data = b""
        while chunk := os.read(args_fd, 1 << 16):
            data += chunk
        return data.count(b"\0") + len(launch.argv)
    finally:
        launch.release()


async def test_past_a_few_dozen_hidden_paths_the_mounter_does_the_mounting(tmp_path: Path) -> None:
    """bwrap re-reads the mount table for each read-only bind (quadratic): it keeps only the first few."""
    from skawld_core.sandbox.policy import BWRAP_HIDDEN_MAX

    root = tmp_path / "p"
    for i in range(BWRAP_HIDDEN_MAX * 2):
        (root / f"f{i}").mkdir(parents=True)
        (root / f"f{i}" / ".env").write_text(f"SECRET_{i}\n")
    rules = [{"kind": "path", "tools": ["Read"], "paths": ["**/.env"], "decision": "deny"}]
    shell = ShellPolicy(sandbox="required", permissions=PermissionEngine(rules=rules, project_root=root))
    try:
        out = text(await bash(context(root, shell), "cat f*/.env 2>&1 | grep -c SECRET_"))
        launch = shell.launch("true", root, "s1")
        assert not isinstance(launch, str)
        launch.release()
    finally:
        shell.close()
    assert out.startswith("0\n"), out
    assert sys.executable in launch.argv
