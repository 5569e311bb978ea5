"""The bubblewrap command line for one Bash call."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

__all__ = ["bwrap_argv"]


def bwrap_argv(
    bwrap: str,
    command: Sequence[str],
    *,
    cwd: Path,
    writable: Sequence[Path] = (),
    tmp_dir: Path | None = None,
    hidden_files: Sequence[str] = (),
    hidden_dirs: Sequence[str] = (),
    read_only: Sequence[str] = (),
    network: bool = False,
) -> list[str]:
    """`bwrap` arguments: the whole file system read-only, `cwd` and `writable`
    writable except the `read_only` paths inside them, `tmp_dir` (or an empty
    tmpfs) at `/tmp`, hidden paths covered,
    own PID namespace (and network namespace unless `network`), killed with us.

    Order matters: later mounts cover earlier ones, so the hidden paths come
    after the writable binds they may sit in.
    """
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    argv += ["--bind", str(tmp_dir), "/tmp"] if tmp_dir is not None else ["--tmpfs", "/tmp"]
    for path in dict.fromkeys([cwd, *writable]):
        argv += ["--bind", str(path), str(path)]
    for p in read_only:
        argv += ["--ro-bind", p, p]
    for d in hidden_dirs:
        argv += ["--tmpfs", d]
    for f in hidden_files:
        argv += ["--ro-bind", "/dev/null", f]
    if not network:
        argv.append("--unshare-net")
    argv += ["--unshare-pid", "--die-with-parent", "--new-session", "--chdir", str(cwd), "--"]
    argv += list(command)
    return argv
