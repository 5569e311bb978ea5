"""`ShellPolicy`: how one agent's Bash commands are started (sandbox, environment, tmp)."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..child_env import child_environment
from ..session_env import session_env
from .argv import bwrap_args
from .domains import DomainPolicy
from .git_history import object_dirs, tracked_hidden
from .gitdirs import GitMounts, git_mounts, work_tree_of
from .gitguard import GitGuard, GitSnapshot
from .gitwatch import LiveGitCheck
from .mounter import mounter_argv
from .payload import data_fd
from .probe import probe_bwrap
from .procs import CALL_TOKEN_VAR, enable_subreaper
from .proxy import DomainProxy, NetworkAsk, refusal_text
from .seccomp import UnsupportedArchitecture, unix_socket_filter
from .session_net import SessionNetworks
from .settings import SandboxSettings, SandboxStatus, coerce_sandbox
from .shells import BackgroundShell, BackgroundShells
from .spawn import AfterCall, Launch
from .spec import SandboxSpec, SpecSource, base_spec

__all__ = ["ShellPolicy", "history_note", "proxy_note", "proxy_env", "sandbox_denial_note"]

_SAFE_ID = re.compile(r"[^A-Za-z0-9_.-]")


class ShellPolicy:
    """Builds the argv and environment of Bash calls for one agent.

    `writable_dirs` (a sequence or a callable returning one) are writable
    besides the call's cwd. `permissions` (the permission engine, or any
    `SpecSource`) turns the sandbox's floor into each call's `SandboxSpec`:
    it adds the paths Read deny rules hide. The per-session `/tmp` directories
    live under one private temporary directory, removed by `close()`.
    `network_ask` (set by an interactive host: the app, the plain mode) is asked
    about names the domain lists leave out; without it they are refused.
    """

    def __init__(
        self,
        *,
        sandbox: SandboxSettings | str | Mapping[str, Any] | None = None,
        env_passthrough: Iterable[str] = (),
        permissions: SpecSource | None = None,
        writable_dirs: Sequence[str | os.PathLike[str]] | Callable[[], Iterable[str | os.PathLike[str]]] = (),
    ) -> None:
        self.settings = coerce_sandbox(sandbox)
        self.env_passthrough = tuple(env_passthrough)
        self.permissions = permissions
        self._writable = writable_dirs
        self._status: SandboxStatus | None = None
        self._tmp_root: Path | None = None
        self._background: dict[str, BackgroundShells] = {}
        self.networks = SessionNetworks()
        self.proxy_resolve: dict[str, str] = {}  # name -> address the proxy connects to (tests)
        self._proxies: dict[str, DomainProxy] = {}
        self._git_guards: dict[tuple[Path, ...], GitGuard] = {}
        self._git_baselines: dict[str, GitSnapshot] = {}
        self._session_guards: dict[str, GitGuard] = {}  # the guard of each session's last call
        self._live_checks: dict[str, LiveGitCheck] = {}
        self._live_notes: dict[str, list[str]] = {}  # what live checks did, for the next request
        self.network_ask: NetworkAsk | None = None
        self.network_ask_timeout = 120.0  # seconds a request waits for the answer, then is refused
        self._history_sealed: dict[str, str] = {}  # session -> why (sticky: see `_sealed_history`)

    def status(self) -> SandboxStatus:
        """Whether Bash runs sandboxed (probes bubblewrap once per process)."""
        if self._status is None:
            mode, network = self.settings.mode, self.settings.network
            if mode == "off":
                self._status = SandboxStatus(active=False, mode=mode, network=True)
            else:
                probe = probe_bwrap()
                self._status = SandboxStatus(
                    active=probe.ok,
                    mode=mode,
                    network=network,
                    reason=probe.reason,
                    unix_sockets=probe.ok and self._socket_filter() is None,
                    allowed_domains=() if network else self.domains.allowed,
                    denied_domains=() if network else self.domains.denied,
                    git_history=self.settings.git_history,
                )
        return self._status

    @property
    def domains(self) -> DomainPolicy:
        """The names the proxy lets through now: the settings' lists and the
        permission rules' `WebFetch(domain:…)` allows and denies."""
        allowed, denied = list(self.settings.allowed_domains), list(self.settings.denied_domains)
        source = getattr(self.permissions, "sandbox_domains", None)  # a `DomainSource`
        if callable(source):
            more_allowed, more_denied = source()
            allowed += more_allowed
            denied += more_denied
        return DomainPolicy.of(allowed, denied)

    def _socket_filter(self) -> bytes | None:
        """The seccomp program that refuses Unix sockets; None when they are allowed
        (`allow_all_unix_sockets`) or this machine has no system call table for it."""
        if self.settings.allow_all_unix_sockets:
            return None
        try:
            return unix_socket_filter()
        except UnsupportedArchitecture:
            return None

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

    def spec(self, cwd: Path, session_id: str) -> SandboxSpec:
        """The sandbox of a call in `cwd` now: the floor, refined by the spec source."""
        base = base_spec(
            cwd,
            self.writable_dirs(),
            network=self.status().network,
            unix_sockets=self._socket_filter() is None,
            tmp_dir=self.tmp_dir(session_id),
        )
        return base if self.permissions is None else self.permissions.sandbox_spec(base)

    def launch(self, command: str, cwd: Path, session_id: str) -> Launch | str:
        """The argv and environment for `command`, or an error text when
        `sandbox: required` and the sandbox cannot run.

        The command reaches the shell through a descriptor (`. /dev/fd/N`), and
        bwrap its arguments through another (`--args N`): neither is bounded by
        the kernel's argv limits."""
        shell = os.environ.get("SHELL") or "/bin/sh"
        token = secrets.token_hex(8)
        env = child_environment(self.env_passthrough, extra={**session_env(session_id), CALL_TOKEN_VAR: token})
        status = self.status()
        if not status.active and status.mode == "required":
            return f"Bash: not run: the sandbox is required (sandbox: required) but {status.reason}."
        script = data_fd(command.encode("utf-8", "surrogateescape"))
        shell_argv = [shell, "-c", f". /dev/fd/{script}"]
        if not status.active:
            enable_subreaper()
            return Launch(shell_argv, env, sandboxed=False, token=token, network=True, fds=[script])
        fds = [script]
        launch: Launch | str = ""
        try:
            launch = self._bwrap_launch(shell_argv, fds, cwd, session_id, env, token)
        finally:  # on an error or a refusal, nothing will spawn: close what was opened
            if not isinstance(launch, Launch):
                for fd in fds:
                    os.close(fd)
        return launch

    def _bwrap_launch(
        self, shell_argv: list[str], fds: list[int], cwd: Path, session_id: str, env: dict[str, str], token: str
    ) -> Launch | str:
        """The sandboxed launch; the descriptors it opens are added to `fds`."""
        probe = probe_bwrap()
        assert probe.path is not None
        spec = self.spec(cwd, session_id)
        if spec.refusal is not None:
            return f"Bash: not run: {spec.refusal}."
        git = git_mounts(spec.writable)
        program = None if spec.unix_sockets else self._socket_filter()
        seccomp = None if program is None else data_fd(program)
        if seccomp is not None:
            fds.append(seccomp)
        if "TMPDIR" in env:
            env["TMPDIR"] = "/tmp"
        # The holder always forwards to the proxy's path; the proxy listens there once a
        # domain is allowed (a WebFetch rule added mid-session opens it without a new namespace).
        holder = None if spec.network else self.networks.join(session_id, self._proxy_path(session_id))
        join = None if holder is None else holder.join_argv()
        proxy = self._proxy(session_id) if holder is not None and holder.proxy_port and self.domains.enabled else None
        if proxy is not None and holder is not None:
            env.update(proxy_env(holder.proxy_port))
        try:
            after = self._git_check(spec, session_id, git)
        except (OSError, RuntimeError) as exc:
            return f"Bash: not run: the git folders in the project could not be listed ({exc})."
        sealed, history_hidden = self._sealed_history(spec, session_id, git)
        args = bwrap_args(spec, git=git, seccomp_fd=seccomp, joined_net=join is not None, sealed=sealed)
        command = shell_argv
        hidden = len(spec.hidden_files) + len(spec.hidden_dirs)
        if hidden > BWRAP_HIDDEN_MAX or len(args) + len(shell_argv) + 4 > BWRAP_MAX_ARGS:
            # bwrap mounts the first few, the mounter the rest (bwrap reads the whole mount
            # table again for each read-only bind: 2,500 hidden files took it 18 s)
            bare = replace(spec, hidden_files=(), hidden_dirs=())
            room = BWRAP_MAX_ARGS - len(shell_argv) - 16
            room -= len(
                bwrap_args(
                    bare, git=git, seccomp_fd=seccomp, joined_net=join is not None, sealed=sealed, mount_caps=True
                )
            )
            if room < 3:
                return _too_many_hidden(spec)
            kept, rest = split_hidden(spec, min(room, 3 * BWRAP_HIDDEN_MAX))
            args = bwrap_args(
                kept, git=git, seccomp_fd=seccomp, joined_net=join is not None, sealed=sealed, mount_caps=True
            )
            template = kept.hidden_files[0] if kept.hidden_files else "/dev/null"
            command, rest_fd = mounter_argv(template, rest, shell_argv)
            fds.append(rest_fd)
        args_fd = data_fd(b"".join(a.encode("utf-8", "surrogateescape") + b"\0" for a in args))
        fds.append(args_fd)
        return Launch(
            [*(join or ()), probe.path, "--args", str(args_fd), "--", *command],
            env,
            sandboxed=True,
            token=token,
            network=spec.network,
            unix_sockets=seccomp is None,
            fds=fds,
            watched=git.watched,
            after=after,
            proxy=proxy,
            history_hidden=history_hidden,
        )

    def _sealed_history(self, spec: SandboxSpec, session_id: str, git: GitMounts) -> tuple[list[str], str | None]:
        """The object stores to hide in this call (`sandbox.gitHistory`), and why: every
        git dir reachable from the roots (nested repositories and submodules too). In
        `"auto"`, once a hidden path was seen tracked the stores stay hidden for the rest
        of the session: the index and refs it was seen in are writable inside."""
        mode = self.settings.git_history
        if mode == "visible":
            return [], None
        dirs, entries = self._guard(spec, git).reachable()
        if not dirs:
            return [], None
        if mode == "hidden":
            return object_dirs(dirs), 'sandbox.gitHistory is "hidden"'
        why = self._history_sealed.get(session_id)
        if why is None:
            roots = [w for w in (work_tree_of(r) for r in spec.writable) if w is not None]
            work_trees = dict.fromkeys([*roots, *(Path(e).parent for e in entries)])
            tracked = tracked_hidden(dirs, list(work_trees), spec.hidden_files, spec.hidden_dirs)
            if tracked is None:
                return [], None
            why = f"{tracked.describe()} and a Read deny rule hides it"
            self._history_sealed[session_id] = why
        return object_dirs(dirs), why

    def _guard(self, spec: SandboxSpec, git: GitMounts) -> GitGuard:
        """The session's `GitGuard` for these writable places. Writable places: the roots,
        the session's `/tmp` and the git dirs mounted writable (a linked worktree's common
        dir may lie outside the roots)."""
        tmp = () if spec.tmp_dir is None else (spec.tmp_dir,)
        places = (*spec.writable, *tmp, *(Path(p) for p in git.mount_points))
        guard = self._git_guards.get(places)
        if guard is None:
            guard = self._git_guards[places] = GitGuard(spec.writable, places)
        return guard

    def _git_check(self, spec: SandboxSpec, session_id: str, git: GitMounts) -> AfterCall:
        """The check of the git dirs the call creates or changes (`gitguard`), against a
        snapshot taken now, or, while background shells of the session run (they may have
        changed something since), against the last one their live check (`watch_git`) or an
        earlier call's check took. Writable
        places: the roots, the session's `/tmp` and the git dirs mounted writable (a linked
        worktree's common dir may lie outside the roots)."""
        guard = self._session_guards[session_id] = self._guard(spec, git)
        shells = self._background.get(session_id)
        if session_id not in self._git_baselines or shells is None or not shells.running:
            self._git_baselines[session_id] = guard.snapshot()
        at_launch = self._git_baselines[session_id]

        def check() -> list[str]:
            notes = guard.check(self._git_baselines.get(session_id, at_launch))
            try:
                self._git_baselines[session_id] = guard.snapshot()
            except (OSError, RuntimeError):  # the next launch takes one
                self._git_baselines.pop(session_id, None)
            return notes

        return AfterCall(check)

    def _proxy_path(self, session_id: str) -> str:
        """Where the session's proxy listens (in the private temporary folder, out of the sandbox's sight)."""
        return str(self.tmp_dir(session_id).parent / f"proxy-{_SAFE_ID.sub('_', session_id)}.sock")

    def _proxy(self, session_id: str) -> DomainProxy | None:
        """The session's domain proxy (listening from first use), or None when its
        socket cannot be bound (the call then has no network)."""
        proxy = self._proxies.get(session_id)
        if proxy is None:
            path = self._proxy_path(session_id)
            proxy = DomainProxy(
                lambda: self.domains,
                self.proxy_resolve,
                asker=lambda: self.network_ask,
                ask_timeout=self.network_ask_timeout,
            )
            try:
                Path(path).unlink(missing_ok=True)
                proxy.listen(path)
            except OSError:
                return None
            self._proxies[session_id] = proxy
        return proxy

    def background(self, session_id: str) -> BackgroundShells:
        """The background shells of a session (created on first use)."""
        shells = self._background.get(session_id)
        if shells is None:
            shells = self._background[session_id] = BackgroundShells()
        return shells

    def watch_git(self, session_id: str) -> None:
        """A background shell of the session started: while any of its shells runs, check
        the git dirs whenever they change (`gitwatch`), not only when the shell ends."""
        guard = self._session_guards.get(session_id)
        if guard is None:  # not sandboxed: nothing is checked after its calls either
            return
        live = self._live_checks.get(session_id)
        if live is None or live.guard is not guard:
            if live is not None:
                live.stop()
            live = self._live_checks[session_id] = LiveGitCheck(
                guard,
                running=lambda: bool(self._background.get(session_id) and self._background[session_id].running),
                get_baseline=lambda: self._git_baselines.get(session_id),
                set_baseline=lambda snap: self._git_baselines.__setitem__(session_id, snap),
                report=lambda notes: self._live_notes.setdefault(session_id, []).extend(notes),
            )
        live.start()

    def watching_git(self, session_id: str) -> bool:
        """True while the session's live git check (`watch_git`) runs."""
        live = self._live_checks.get(session_id)
        return live is not None and live.task is not None and not live.task.done()

    def take_exits(self, session_id: str) -> tuple[str, ...]:
        """Reminders for the session's background shells that exited since the last call,
        and what the git checks that ran while they did moved aside."""
        shells = self._background.get(session_id)
        exits = shells.take_exits() if shells is not None else ()
        notes = self._live_notes.pop(session_id, [])
        return (*exits, "\n".join(notes)) if notes else exits

    async def end_background(self, session_id: str | None = None) -> list[BackgroundShell]:
        """End one session, or every session: kill its background shells and end its
        network namespace; returns the shells that were still running (now ended)."""
        if session_id is None:
            groups, self._background = list(self._background.values()), {}
        else:
            group = self._background.pop(session_id, None)
            groups = [group] if group is not None else []
        for sid in list(self._live_checks) if session_id is None else [session_id]:
            live = self._live_checks.pop(sid, None)
            if live is not None:
                live.stop()
        ended: list[BackgroundShell] = []
        for shells in groups:
            ended += await shells.close()
        self.networks.end(session_id)
        for sid in list(self._proxies) if session_id is None else [session_id]:
            proxy = self._proxies.pop(sid, None)
            if proxy is not None:
                proxy.close()
        return ended

    def close(self) -> None:
        """End every session's network namespace and proxy, and remove the private `/tmp` directories."""
        self.networks.end()
        for proxy in self._proxies.values():
            proxy.close()
        self._proxies.clear()
        for live in self._live_checks.values():
            live.stop()
        self._live_checks.clear()
        self._live_notes.clear()
        self._session_guards.clear()
        for guard in self._git_guards.values():
            guard.close()
        self._git_guards.clear()
        self._git_baselines.clear()
        self._history_sealed.clear()
        if self._tmp_root is not None:
            shutil.rmtree(self._tmp_root, ignore_errors=True)
            self._tmp_root = None


def proxy_env(port: int) -> dict[str, str]:
    """The variables that send `curl`, `pip`, `npm`, `git` and `cargo` through the proxy."""
    http, socks = f"http://127.0.0.1:{port}", f"socks5h://127.0.0.1:{port}"
    env = {}
    for name, value in (("http_proxy", http), ("https_proxy", http), ("all_proxy", socks), ("no_proxy", _LOCAL)):
        env[name] = env[name.upper()] = value
    return env


_LOCAL = "localhost,127.0.0.1,::1"


def history_note(launch: Launch) -> str | None:
    """Why git failed, when the call ran with git's object store hidden."""
    if launch.history_hidden is None:
        return None
    return (
        f"Bash: git's history (its object store) is hidden in the sandbox: {launch.history_hidden}, "
        'and history would show its content (sandbox.gitHistory: "visible" shows it).'
    )


def proxy_note(launch: Launch) -> str | None:
    """One line per host the session's proxy refused during the call."""
    if launch.proxy is None:
        return None
    refused = launch.proxy.take_refused()
    lines = [f"Bash: the sandbox refused {refusal_text(host, verdict)}." for host, verdict in refused.items()]
    return "\n".join(lines) or None


# bubblewrap refuses more arguments than this (MAX_ARGS in bubblewrap.c), --args included.
BWRAP_MAX_ARGS = 9000
# Above this many hidden paths the mounter takes the rest: bwrap's cost grows with the square
# of the count (250: 0.2 s, 1,000: 2.4 s, 2,500: 18 s on a loaded 2-core machine).
BWRAP_HIDDEN_MAX = 64


def split_hidden(spec: SandboxSpec, room: int) -> tuple[SandboxSpec, list[tuple[str, str]]]:
    """`spec` with the hidden paths that fit in `room` bwrap arguments (`--tmpfs d`: 2,
    `--ro-bind /dev/null f`: 3; the first file always, the mounter's template), and the
    rest for the mounter (`("d", folder)` / `("f", file)`)."""
    dirs, files = spec.hidden_dirs, spec.hidden_files
    n_dirs = min(len(dirs), max(0, (room - 3) // 2))
    n_files = min(len(files), max(1, (room - 2 * n_dirs) // 3)) if files else 0
    rest = [("d", d) for d in dirs[n_dirs:]] + [("f", f) for f in files[n_files:]]
    return replace(spec, hidden_dirs=dirs[:n_dirs], hidden_files=files[:n_files]), rest


def _too_many_hidden(spec: SandboxSpec) -> str:
    hidden = len(spec.hidden_files) + len(spec.hidden_dirs)
    return (
        f"Bash: not run: Read deny rules hide {hidden:,} paths, more than bubblewrap can mount in one "
        f"sandbox (about {BWRAP_MAX_ARGS // 3:,} in all); deny their folders instead of the files one by one."
    )


_READ_ONLY = "Read-only file system"
_NO_NETWORK = (
    "Network is unreachable",
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "No address associated with hostname",
    "Connection refused",  # 127.0.0.1 inside is the session's own loopback
)


_NO_HOST_SOCKET = (
    "Cannot connect to the Docker daemon",
    "connect to the Docker daemon socket",
    "socket: operation not permitted",  # Go programs
    "Error connecting to agent",  # ssh-add
    "Could not open a connection to your authentication agent",
    "message bus",  # D-Bus clients
)


def sandbox_denial_note(stderr: str, *, network: bool, unix_sockets: bool = True) -> str | None:
    """A line naming the sandbox when `stderr` shows it blocked the command."""
    if _READ_ONLY in stderr:
        return (
            "Bash: the sandbox blocked a write: only the project, added directories and /tmp are "
            "writable inside it, and not their git config and hooks or agent config (sandbox config)."
        )
    if not unix_sockets and any(marker in stderr for marker in _NO_HOST_SOCKET):
        return (
            "Bash: the sandbox keeps the host's Unix sockets (docker, ssh-agent, D-Bus) out of reach "
            "(sandbox.network.allowAllUnixSockets turns that off)."
        )
    if not network and any(marker in stderr for marker in _NO_NETWORK):
        return (
            "Bash: the sandbox blocked network access: it has no network, and 127.0.0.1 inside is the session's own "
            "(set sandbox.network to true to allow it)."
        )
    return None
