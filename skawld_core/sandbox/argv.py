"""The bubblewrap arguments that enforce a `SandboxSpec`."""

from __future__ import annotations

import os

from .gitdirs import GitMounts
from .spec import SandboxSpec

__all__ = ["bwrap_args"]


def bwrap_args(
    spec: SandboxSpec,
    *,
    git: GitMounts | None = None,
    seccomp_fd: int | None = None,
    joined_net: bool = False,
    sealed: tuple[str, ...] | list[str] = (),
    mount_caps: bool = False,
) -> list[str]:
    """`bwrap` options (no program name, no command): the whole file system
    read-only, the spec's writable roots writable except their read-only paths
    and git's code (`git`), the tmp dir (or an empty tmpfs) at `/tmp`, emptied
    and hidden paths covered, own PID namespace (and network namespace unless
    `spec.network`, or `joined_net`: the call already runs in its session's
    namespace, `session_net`), the seccomp program read from `seccomp_fd`, killed with us.

    Order matters: later mounts cover earlier ones, so the read-only and hidden
    paths come after the writable binds they may sit in. Every folder between a
    writable root and a read-only path is bound onto itself first (shallowest
    first): a mount point cannot be renamed, so a command cannot move a protected
    file's folder aside and put its own in its place. Capabilities are dropped, so
    a sandbox started by root cannot unmount or remount any of this.
    """
    git = git if git is not None else GitMounts()
    args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for path in spec.emptied:
        args += ["--tmpfs", path]
    for path in spec.kept_read_only:
        args += ["--ro-bind", path, path]
    args += ["--bind", str(spec.tmp_dir), "/tmp"] if spec.tmp_dir is not None else ["--tmpfs", "/tmp"]
    for root in spec.writable:
        args += ["--bind", str(root), str(root)]
    read_only = (*git.read_only, *(str(p) for p in spec.read_only))
    for folder in _pinned(read_only, git.mount_points, [str(r) for r in spec.writable]):
        args += ["--bind", folder, folder]
    for path in read_only:
        args += ["--ro-bind", path, path]
    for path in sealed:
        args += ["--tmpfs", path, "--remount-ro", path]
    for d in spec.hidden_dirs:
        args += ["--tmpfs", d]
    for f in spec.hidden_files:
        args += ["--ro-bind", "/dev/null", f]
    if not spec.network and not joined_net:
        args.append("--unshare-net")
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    args += ["--cap-drop", "ALL"]
    if mount_caps:
        args += ["--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP"]
    return [*args, "--unshare-pid", "--die-with-parent", "--new-session", "--chdir", str(spec.cwd)]


def _pinned(read_only: tuple[str, ...], mount_points: tuple[str, ...] | list[str], roots: list[str]) -> list[str]:
    """The git dirs and every existing folder between a writable root and a read-only
    path, shallowest first: each becomes a mount point of its own."""
    folders = set(mount_points)
    for path in read_only:
        root = next((r for r in roots if path.startswith(r.rstrip("/") + "/")), None)
        if root is None:
            continue
        parent = os.path.dirname(path)
        while len(parent) > len(root.rstrip("/")) and parent.startswith(root):
            if os.path.isdir(parent) and not os.path.islink(parent):
                folders.add(parent)
            parent = os.path.dirname(parent)
    return sorted(folders, key=lambda f: (f.count("/"), f))
