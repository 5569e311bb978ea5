"""Read-denied files stay hidden in the sandbox at any repository size, as the
repository changes, inside vendored folders, and when a folder cannot be listed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from skawld_core.permissions import PermissionEngine
from skawld_core.sandbox import ShellPolicy
from tests.support.big_tree import generate_tree

from .conftest import bash, context, needs_bwrap, text

pytestmark = [needs_bwrap, pytest.mark.timeout(300)]

BIG = 100_000


def deny_env(root: Path) -> PermissionEngine:
    rule = {"kind": "path", "tools": ["Read"], "paths": ["**/.env"], "decision": "deny"}
    return PermissionEngine(rules=[rule], project_root=root)


@pytest.fixture(scope="module")
def big_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    """100,000 files; a `.env` in every 25th package directory, so most sit late in any walk."""
    root = tmp_path_factory.mktemp("scale") / "repo"
    dirs = generate_tree(root, BIG)
    secrets = [d / ".env" for d in dirs[::25]] + [dirs[-1] / ".env"]
    for i, path in enumerate(secrets):
        path.write_text(f"SECRET_{i}\n")
    return root, secrets


@pytest.fixture
def policy_for() -> Iterator[list[ShellPolicy]]:
    made: list[ShellPolicy] = []
    yield made
    for policy in made:
        policy.close()


def _policy(made: list[ShellPolicy], root: Path) -> ShellPolicy:
    made.append(ShellPolicy(sandbox="required", permissions=deny_env(root)))
    return made[-1]


async def test_every_denied_file_in_a_100k_repository_is_hidden(
    big_repo: tuple[Path, list[Path]], policy_for: list[ShellPolicy]
) -> None:
    root, secrets = big_repo
    policy = _policy(policy_for, root)
    r = await bash(context(root, policy), "find . -name .env | wc -l; cat $(find . -name .env) | grep -c SECRET_")
    lines = text(r).splitlines()
    assert lines[0] == str(len(secrets))  # every one is there, and empty
    assert lines[1] == "0", text(r)
    assert all(p.read_text().startswith("SECRET_") for p in secrets)  # untouched outside


async def test_a_denied_file_created_by_one_call_is_hidden_from_the_next(
    big_repo: tuple[Path, list[Path]], policy_for: list[ShellPolicy]
) -> None:
    root, _ = big_repo
    policy = _policy(policy_for, root)
    ctx = context(root, policy)
    assert text(await bash(ctx, "true")).endswith("exit: 0")  # the set is known before the files exist
    places = ["pkg999/mod9/sub9", "pkg3/mod1/sub7/newdir/deeper", "pkg500/mod0/sub0"]
    create = "; ".join(f"mkdir -p {p} && echo NEW_SECRET_{i} > {p}/.env" for i, p in enumerate(places))
    assert text(await bash(ctx, create)).endswith("exit: 0")
    r = await bash(ctx, "cat " + " ".join(f"{p}/.env" for p in places) + "; echo done")
    assert "NEW_SECRET" not in text(r) and "done" in text(r)
    # ... and one the user writes outside, between two calls
    (root / "pkg42" / "mod0" / ".env").write_text("USER_SECRET\n")
    assert "USER_SECRET" not in text(await bash(ctx, "cat pkg42/mod0/.env; echo done"))


async def test_denied_files_inside_vendored_folders_are_hidden(project: Path, policy_for: list[ShellPolicy]) -> None:
    for where in ("node_modules/dep", "web/node_modules/dep/sub", ".venv/lib", "__pycache__"):
        (project / where).mkdir(parents=True)
        (project / where / ".env").write_text(f"VENDORED_SECRET {where}\n")
    policy = _policy(policy_for, project)
    r = await bash(context(project, policy), "cat $(find . -name .env); echo done")
    assert "VENDORED_SECRET" not in text(r) and "done" in text(r)


LOCKED_SCENARIO = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from skawld_core.permissions import PermissionEngine
    from skawld_core.sandbox import ShellPolicy
    from skawld_core.tools import BashTool, ToolContext

    async def main() -> None:
        root = Path(sys.argv[1])
        rule = {"kind": "path", "tools": ["Read"], "paths": ["**/.env"], "decision": "deny"}
        policy = ShellPolicy(sandbox="required", permissions=PermissionEngine(rules=[rule], project_root=root))
        ctx = ToolContext(cwd=root, session_id="s", run_id="r", tool_use_id="t", extras={"shell_policy": policy})
        tool = BashTool()
        # The folder cannot be listed, but the command owns it: it opens it and reads.
        result = await tool.execute(tool.validate({"command": "chmod 700 locked; cat locked/.env; echo done"}), ctx)
        policy.close()
        print(result.content)

    asyncio.run(main())
    """
)


async def test_a_folder_that_cannot_be_listed_is_hidden_whole(project: Path) -> None:
    """Fail closed: what the index cannot see may hold a denied file."""
    locked = project / "locked"
    locked.mkdir()
    (locked / ".env").write_text("LOCKED_SECRET\n")
    (project / "visible.txt").write_text("VISIBLE\n")
    locked.chmod(0)
    argv = [sys.executable, "-c", LOCKED_SCENARIO, str(project)]
    if os.geteuid() == 0:  # root reads any folder: take away that power
        setpriv = shutil.which("setpriv")
        assert setpriv is not None, "setpriv (util-linux) is needed to drop root's file access override"
        argv = [setpriv, "--bounding-set", "-dac_override,-dac_read_search", *argv]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env, check=False)
    finally:
        locked.chmod(0o700)
    assert out.returncode == 0, out.stderr
    assert "done" in out.stdout and "LOCKED_SECRET" not in out.stdout, out.stdout
    assert (locked / ".env").read_text() == "LOCKED_SECRET\n"
