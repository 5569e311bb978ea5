"""`SandboxSpec`: what one sandboxed Bash call may see and change, as a value.

The permission side computes it (`skawld_core.permissions.sandbox_spec`), the
sandbox enforces it (`argv.bwrap_args`); this module imports neither. A spec
source that is not given still yields `base_spec`: the floor every sandboxed
call gets (agent config read-only, host runtime directories and skawld's own
state emptied), whatever the rules say.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

__all__ = ["AGENT_CONFIG_NAMES", "SandboxSpec", "SpecSource", "base_spec"]

# Inside a writable root these stay read-only: each widens what skawld, Claude Code or an
# MCP client allows, or runs code the next time one starts. (Git's own are in `gitdirs`.)
AGENT_CONFIG_NAMES = (".skawld", ".claude", ".mcp.json")
# What a Bash call may still read of skawld's home: skills and plugins ship scripts it runs.
_SKAWLD_HOME_KEPT = ("skills", "plugins", "agents")


@dataclass(frozen=True)
class SandboxSpec:
    """One call's sandbox.

    `writable`: the roots a command may change (the cwd first); `read_only`:
    paths inside them that stay read-only; `hidden_files` / `hidden_dirs`:
    covered by an empty file / an empty folder (Read deny rules); `emptied`:
    folders replaced by an empty tmpfs (host sockets, skawld's state), with
    `kept_read_only` bound back into them; `network`: the host's network;
    `unix_sockets`: allow creating `AF_UNIX` sockets (off: a seccomp filter
    refuses them); `tmp_dir`: the host folder mounted at `/tmp` (None: an
    empty tmpfs). `refusal`: why the call must not run at all (the set of paths
    to hide cannot be known completely, say); the sandbox then refuses it.
    """

    cwd: Path
    writable: tuple[Path, ...]
    read_only: tuple[Path, ...] = ()
    hidden_files: tuple[str, ...] = ()
    hidden_dirs: tuple[str, ...] = ()
    emptied: tuple[str, ...] = ()
    kept_read_only: tuple[str, ...] = ()
    network: bool = False
    unix_sockets: bool = False
    tmp_dir: Path | None = None
    refusal: str | None = None


class SpecSource(Protocol):
    """Refines the floor into the spec of one call (the permission engine is one)."""

    def sandbox_spec(self, base: SandboxSpec) -> SandboxSpec:
        """`base` with what the rules add (hidden paths, more read-only paths)."""
        ...


def _home() -> Path | None:
    home = os.path.expanduser("~")
    return None if home == "~" else Path(home)


def _emptied(home: Path | None) -> tuple[list[str], list[str]]:
    """Host runtime folders (sockets: D-Bus, docker, ssh-agent, systemd) and skawld's home;
    the few things a command needs back in them."""
    emptied = ["/run"]
    kept: list[str] = []
    if os.path.isdir("/var/run") and not os.path.islink("/var/run"):
        emptied.append("/var/run")
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime) and os.path.isdir(runtime):
        emptied.append(os.path.realpath(runtime))
    resolv = os.path.realpath("/etc/resolv.conf")
    if resolv.startswith("/run/") and os.path.isfile(resolv):
        kept.append(resolv)  # systemd-resolved: /etc/resolv.conf points into /run
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        # NixOS keeps the system's programs under /run/current-system and /run/wrappers;
        # normalized, so `/run/`, `/run//x` or `/run/../etc` never keep /run (or /) itself
        entry = os.path.normpath(entry)
        if entry.startswith("/run/"):
            top = "/run/" + entry.split("/")[2]
            if os.path.isdir(top) and top not in kept:
                kept.append(top)
    if home is not None:
        skawld_home = home / ".skawld"
        if skawld_home.is_dir() and not skawld_home.is_symlink():
            emptied.append(str(skawld_home))
            kept += [str(skawld_home / name) for name in _SKAWLD_HOME_KEPT if (skawld_home / name).is_dir()]
    return emptied, kept


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def global_git_config(home: Path | None, roots: Sequence[Path]) -> list[Path]:
    """The user's git config files (`~/.gitconfig`, `$XDG_CONFIG_HOME/git`) that lie inside a
    writable root; a missing one is created empty (git reads an empty file as no settings),
    so that it can be mounted read-only rather than planted."""
    if home is None:
        return []
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(home / ".config")
    found: list[Path] = []
    for path, is_dir in ((home / ".gitconfig", False), (Path(xdg) / "git", True)):
        real = Path(os.path.realpath(path))
        if not _inside(real, roots):
            continue
        try:
            if is_dir:
                real.mkdir(parents=True, exist_ok=True)
            elif not real.exists():
                real.touch()
        except OSError:
            continue
        found.append(real)
    return found


def base_spec(
    cwd: Path,
    writable: Sequence[Path],
    *,
    network: bool,
    unix_sockets: bool,
    tmp_dir: Path | None,
) -> SandboxSpec:
    """The floor: `cwd` and `writable` writable except their agent config, runtime
    folders and skawld's home emptied, the rest of the file system read-only."""
    roots = tuple(dict.fromkeys([cwd, *writable]))
    home = _home()
    read_only = [root / name for root in roots for name in AGENT_CONFIG_NAMES]
    read_only += global_git_config(home, roots)
    emptied, kept = _emptied(home)
    return SandboxSpec(
        cwd=cwd,
        writable=roots,
        read_only=tuple(p for p in dict.fromkeys(read_only) if p.exists() and not p.is_symlink()),
        emptied=tuple(emptied),
        kept_read_only=tuple(kept),
        network=network,
        unix_sockets=unix_sockets,
        tmp_dir=tmp_dir,
    )
