"""The bubblewrap arguments that enforce a `SandboxSpec`."""

from __future__ import annotations

from .gitdirs import GitMounts
from .spec import SandboxSpec

__all__ = ["bwrap_args"]


def bwrap_args(
    spec: SandboxSpec,
    *,
    git: GitMounts | None = None,
    seccomp_fd: int | None = None,
    joined_net: bool = False,
) -> list[str]:
    """`bwrap` options (no program name, no command): the whole file system
    read-only, the spec's writable roots writable except their read-only paths
    and git's code (`git`), the tmp dir (or an empty tmpfs) at `/tmp`, emptied
    and hidden paths covered, own PID namespace (and network namespace unless
    `spec.network`, or `joined_net`: the call already runs in its session's
    namespace, `session_net`), the seccomp program read from `seccomp_fd`, killed with us.

    Order matters: later mounts cover earlier ones, so the read-only and hidden
    paths come after the writable binds they may sit in.
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
    for git_dir in git.mount_points:
        args += ["--bind", git_dir, git_dir]
    for path in (*git.read_only, *(str(p) for p in spec.read_only)):
        args += ["--ro-bind", path, path]
    for d in spec.hidden_dirs:
        args += ["--tmpfs", d]
    for f in spec.hidden_files:
        args += ["--ro-bind", "/dev/null", f]
    if not spec.network and not joined_net:
        args.append("--unshare-net")
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    return [*args, "--unshare-pid", "--die-with-parent", "--new-session", "--chdir", str(spec.cwd)]
