"""The session's network namespace when skawld is not root: the holder then makes a user
namespace too (`unshare --user --map-current-user --keep-caps --net`) and every call joins
it with `nsenter --user … --preserve-credentials`. Run for real as `nobody` (with
`setpriv`, from the root test process, with a HOME and project that user owns): a server
started in the background by one sandboxed call is reached by the next, and neither the
server nor the holder outlives the session.

The interpreter may sit under a folder `nobody` cannot enter (pyenv under `/root`): the
test then runs in a private mount namespace where that folder is an empty tmpfs holding
only a bind mount of what the interpreter and the worktree need (nothing on the host
changes)."""

from __future__ import annotations

import json
import os
import pwd
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from skawld_core.sandbox.procs import is_alive, process_table

from .conftest import needs_bwrap

pytestmark = [pytest.mark.timeout(120), needs_bwrap]

ROOT = Path(__file__).resolve().parents[2]
IN_CI = os.environ.get("CI") == "true"

SESSION = """
import asyncio, json, os, sys
from pathlib import Path
from skawld_core.sandbox import ShellPolicy
from skawld_core.tools import BashTool, ToolContext

async def main() -> None:
    project, port = Path(sys.argv[1]), int(sys.argv[2])
    policy = ShellPolicy(sandbox={"mode": "required", "network": False})
    ctx = ToolContext(cwd=project, session_id="s", run_id="r", tool_use_id="t", extras={"shell_policy": policy})
    tool = BashTool()

    async def bash(command: str, **raw: object) -> str:
        return str((await tool.execute(tool.validate({"command": command, **raw}), ctx)).content)

    (project / "index.html").write_text("served-by-nobody\\n")
    out = {"euid": os.geteuid()}
    out["started"] = await bash(f"python3 -m http.server {port} --bind 127.0.0.1", run_in_background=True)
    out["fetched"] = await bash(
        f"for i in $(seq 200); do curl -s http://127.0.0.1:{port}/index.html && break; sleep 0.05; done"
    )
    out["uid_map"] = await bash("cat /proc/self/uid_map")
    holder = policy.networks.holder("s")
    out["unavailable"] = policy.networks.unavailable
    out["holder_pid"] = holder.proc.pid if holder is not None else None
    out["holder_as_root"] = holder.as_root if holder is not None else None
    await policy.end_background()
    policy.close()
    print(json.dumps(out))

asyncio.run(main())
"""


def _nobody() -> pwd.struct_passwd:
    return pwd.getpwnam("nobody")


def _as_nobody() -> list[str]:
    user = _nobody()
    return ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"]


def _cannot_run() -> str | None:
    """Why this test cannot run here (None: it can)."""
    if os.geteuid() != 0:
        return "the test switches to nobody, which needs root"
    for tool in ("setpriv", "unshare", "nsenter"):
        if shutil.which(tool) is None:
            return f"{tool} (util-linux) is not installed"
    try:
        _nobody()
    except KeyError:
        return "there is no user nobody"
    probe = subprocess.run(
        [*_as_nobody(), "unshare", "--user", "--map-current-user", "--net", "true"], capture_output=True, text=True
    )
    if probe.returncode != 0:
        return f"unprivileged user namespaces are unavailable: {probe.stderr.strip()}"
    return None


REASON = _cannot_run()


def _first_closed_folder(path: Path) -> tuple[Path, str] | None:
    """The first folder on the way to `path` that others cannot enter, and the next name."""
    parts = path.parts
    for depth in range(1, len(parts)):
        folder = Path(*parts[:depth])
        if not os.stat(folder).st_mode & 0o001:
            return folder, parts[depth]
    return None


def _opening_script(stash: Path) -> str:
    """Shell lines that make the interpreter and the worktree reachable for nobody in a
    private mount namespace: each closed folder becomes a tmpfs with only the needed entry."""
    needed = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.executable, ROOT)}
    closed: dict[Path, set[str]] = {}
    for path in needed:
        found = _first_closed_folder(path)
        if found is not None:
            closed.setdefault(found[0], set()).add(found[1])
    lines = ["set -e", f"stash='{stash}'", "mkdir -p $stash"]
    entries = [(folder, name) for folder, names in closed.items() for name in sorted(names)]
    for index, (folder, name) in enumerate(entries):
        lines += [f"mkdir $stash/{index}", f"mount --bind '{folder / name}' $stash/{index}"]
    for folder in closed:
        lines.append(f"mount -t tmpfs -o mode=755 tmpfs '{folder}'")
    for index, (folder, name) in enumerate(entries):
        lines += [f"mkdir '{folder / name}'", f"mount --bind $stash/{index} '{folder / name}'"]
    return "\n".join(lines)


@pytest.fixture
def base() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="skawld-nobody-", dir="/tmp"))
    folder.chmod(0o755)
    user = _nobody()
    for name in ("home", "project"):
        (folder / name).mkdir()
        os.chown(folder / name, user.pw_uid, user.pw_gid)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _alive_with(needle: str) -> list[int]:
    found = []
    for pid in process_table():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmdline = fh.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if needle in cmdline and is_alive(pid):
            found.append(pid)
    return found


@pytest.mark.skipif(REASON is not None and not IN_CI, reason=f"cannot run as an unprivileged user: {REASON}")
def test_the_session_namespace_works_for_an_unprivileged_user(base: Path) -> None:
    port = random.randrange(20000, 60000)
    (base / "session.py").write_text(SESSION)
    (base / "session.py").chmod(0o644)
    path = os.pathsep.join([os.path.dirname(sys.executable), "/usr/local/bin", "/usr/bin", "/bin"])
    env = {"PATH": path, "HOME": str(base / "home"), "PYTHONPATH": str(ROOT), "CI": ""}
    run = [*_as_nobody(), sys.executable, str(base / "session.py"), str(base / "project"), str(port)]
    script = _opening_script(base / "stash") + "\nexec " + " ".join(f"'{a}'" for a in run)
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "bash", "-c", script],
        capture_output=True,
        text=True,
        env=env,
        timeout=100,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.splitlines()[-1])
    nobody = _nobody().pw_uid
    assert out["euid"] == nobody
    assert out["unavailable"] is None and out["holder_as_root"] is False  # the user-namespace holder ran
    assert out["fetched"].startswith("served-by-nobody\n"), out["fetched"]  # the next call reached the server
    assert out["uid_map"].split()[:3] == [str(nobody), "0", "1"], out["uid_map"]  # inside: nobody, unprivileged
    assert not is_alive(out["holder_pid"])
    assert _alive_with(f"http.server {port}") == []  # nothing the session started survives it
