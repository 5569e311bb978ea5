"""`ShellPolicy`: how one agent's Bash commands are started (sandbox, environment, tmp)."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..child_env import child_environment
from ..session_env import session_env
from .argv import bwrap_argv
from .hidden import HiddenPaths, hidden_paths
from .probe import probe_bwrap
from .procs import CALL_TOKEN_VAR, enable_subreaper
from .settings import SandboxSettings, SandboxStatus, coerce_sandbox
from .shells import BackgroundShell, BackgroundShells
from .spawn import Launch

if TYPE_CHECKING:
    from ..permissions.engine import PermissionEngine

__all__ = ["ShellPolicy", "sandbox_denial_note"]

_SAFE_ID = re.compile(r"[^A-Za-z0-9_.-]")


class ShellPolicy:
    """Builds the argv and environment of Bash calls for one agent.

    `writable_dirs` (a sequence or a callable returning one) are writable
    besides the call's cwd. `permissions` supplies the Read deny rules whose
    paths the sandbox hides. The per-session `/tmp` directories live under one
    private temporary directory, removed by `close()`.
    """

    def __init__(
        self,
        *,
        sandbox: SandboxSettings | str | Mapping[str, Any] | None = None,
        env_passthrough: Iterable[str] = (),
        permissions: PermissionEngine | None = None,
        writable_dirs: Sequence[str | os.PathLike[str]] | Callable[[], Iterable[str | os.PathLike[str]]] = (),
    ) -> None:
        self.settings = coerce_sandbox(sandbox)
        self.env_passthrough = tuple(env_passthrough)
        self.permissions = permissions
        self._writable = writable_dirs
        self._status: SandboxStatus | None = None
        self._tmp_root: Path | None = None
        self._background: dict[str, BackgroundShells] = {}

    def status(self) -> SandboxStatus:
        """Whether Bash runs sandboxed (probes bubblewrap once per process)."""
        if self._status is None:
            mode, network = self.settings.mode, self.settings.network
            if mode == "off":
                self._status = SandboxStatus(active=False, mode=mode, network=True)
            else:
                probe = probe_bwrap()
                self._status = SandboxStatus(active=probe.ok, mode=mode, network=network, reason=probe.reason)
        return self._status

    @property
    def sandboxed(self) -> bool:
        """True when Bash commands run inside the sandbox."""
        return self.status().active

    def writable_dirs(self) -> list[Path]:
        """The extra writable directories that exist now."""
        raw = self._writable() if callable(self._writable) else self._writable
        return [p for p in (Path(d).expanduser().resolve() for d in raw) if p.is_dir()]

    def tmp_dir(self, session_id: str) -> Path:
        """The session's private `/tmp` (created on first use)."""
        if self._tmp_root is None or not self._tmp_root.is_dir():
            self._tmp_root = Path(tempfile.mkdtemp(prefix="skawld-sandbox-"))
        path = self._tmp_root / (_SAFE_ID.sub("_", session_id) or "session")
        path.mkdir(mode=0o700, exist_ok=True)
        return path

    def hidden(self, root: Path) -> HiddenPaths:
        """The paths the Read deny rules cover, expanded now."""
        engine = self.permissions
        if engine is None or not engine.restricts_reads:
            return HiddenPaths()
        # lazy: importing permissions runs its package, which imports tools, which import this module
        from ..permissions.paths import rule_applies_to
        from ..permissions.rules import PathRule

        patterns = [
            p
            for rule in engine.rules
            if isinstance(rule, PathRule) and rule.decision == "deny" and rule_applies_to(rule, "Read")
            for p in rule.paths
        ]
        return hidden_paths(patterns, engine.project_root, lambda path: not engine.can_read(path))

    def launch(self, command: str, cwd: Path, session_id: str) -> Launch | str:
        """The argv and environment for `command`, or an error text when
        `sandbox: required` and the sandbox cannot run."""
        shell = os.environ.get("SHELL") or "/bin/sh"
        token = secrets.token_hex(8)
        env = child_environment(self.env_passthrough, extra={**session_env(session_id), CALL_TOKEN_VAR: token})
        status = self.status()
        if not status.active:
            if status.mode == "required":
                return f"Bash: not run: the sandbox is required (sandbox: required) but {status.reason}."
            enable_subreaper()
            return Launch([shell, "-c", command], env, sandboxed=False, token=token, network=True)
        from ..permissions.write_scope import sandbox_read_only_paths  # lazy: as in hidden()

        probe = probe_bwrap()
        assert probe.path is not None
        hidden = self.hidden(cwd)
        if "TMPDIR" in env:
            env["TMPDIR"] = "/tmp"
        argv = bwrap_argv(
            probe.path,
            [shell, "-c", command],
            cwd=cwd,
            writable=self.writable_dirs(),
            tmp_dir=self.tmp_dir(session_id),
            hidden_files=hidden.files,
            hidden_dirs=hidden.dirs,
            read_only=[str(p) for p in sandbox_read_only_paths([cwd, *self.writable_dirs()])],
            network=status.network,
        )
        return Launch(argv, env, sandboxed=True, token=token, network=status.network)

    def background(self, session_id: str) -> BackgroundShells:
        """The background shells of a session (created on first use)."""
        shells = self._background.get(session_id)
        if shells is None:
            shells = self._background[session_id] = BackgroundShells()
        return shells

    async def end_background(self, session_id: str | None = None) -> list[BackgroundShell]:
        """Kill the background shells of one session, or of every session; returns
        the shells that were still running (now ended)."""
        if session_id is None:
            groups, self._background = list(self._background.values()), {}
        else:
            group = self._background.pop(session_id, None)
            groups = [group] if group is not None else []
        ended: list[BackgroundShell] = []
        for shells in groups:
            ended += await shells.close()
        return ended

    def close(self) -> None:
        """Remove the private `/tmp` directories."""
        if self._tmp_root is not None:
            shutil.rmtree(self._tmp_root, ignore_errors=True)
            self._tmp_root = None


_READ_ONLY = "Read-only file system"
_NO_NETWORK = (
    "Network is unreachable",
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "No address associated with hostname",
    "Connection refused",  # 127.0.0.1 inside is the sandbox's own loopback
)


def sandbox_denial_note(stderr: str, *, network: bool) -> str | None:
    """A line naming the sandbox when `stderr` shows it blocked the command."""
    if _READ_ONLY in stderr:
        return (
            "Bash: the sandbox blocked a write: only the project, added directories and /tmp are "
            "writable inside it (sandbox config)."
        )
    if not network and any(marker in stderr for marker in _NO_NETWORK):
        return (
            "Bash: the sandbox blocked network access: it has no network, and 127.0.0.1 inside is its own "
            "(set sandbox.network to true to allow it)."
        )
    return None
