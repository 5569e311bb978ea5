"""Running git against a shadow repository (asyncio subprocesses).

Every call gets an environment with the caller's ``GIT_*`` variables removed
and ``GIT_DIR`` / ``GIT_WORK_TREE`` / ``GIT_INDEX_FILE`` pointing at the shadow
repository, so the user's ``.git`` (index, HEAD, refs, stash, reflog) is never
opened for writing.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..errors import SkawldError


class CheckpointError(SkawldError):
    """A snapshot or restore failed (git missing, a git error, a bad commit id)."""

    kind = "checkpoint"


def git_env(git_dir: Path, work_tree: Path, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """A clean environment for git on the shadow repository."""
    env = {k: v for k, v in (os.environ if base is None else base).items() if not k.startswith("GIT_")}
    env.update(
        GIT_DIR=str(git_dir),
        GIT_WORK_TREE=str(work_tree),
        GIT_INDEX_FILE=str(git_dir / "index"),
        GIT_AUTHOR_NAME="skawld",
        GIT_AUTHOR_EMAIL="skawld@localhost",
        GIT_COMMITTER_NAME="skawld",
        GIT_COMMITTER_EMAIL="skawld@localhost",
        GIT_TERMINAL_PROMPT="0",
        LC_ALL="C",
    )
    return env


async def run_git(
    args: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    stdin: bytes | None = None,
    check: bool = True,
) -> tuple[int, bytes, bytes]:
    """Run ``git <args>``; returns (returncode, stdout, stderr). With `check`, a
    non-zero exit raises `CheckpointError` carrying git's message."""
    try:
        proc = await asyncio.create_subprocess_exec(
            "git",
            *args,
            cwd=str(cwd),
            env=dict(env),
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except FileNotFoundError as exc:
        raise CheckpointError("checkpoints need git, and `git` is not on PATH") from exc
    out, err = await proc.communicate(stdin)
    code = proc.returncode if proc.returncode is not None else -1
    if check and code != 0:
        message = err.decode("utf-8", "replace").strip() or f"exit {code}"
        raise CheckpointError(f"git {args[0]} failed: {message}")
    return code, out, err
