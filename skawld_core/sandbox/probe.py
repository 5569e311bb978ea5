"""Find bubblewrap and check, once per process, that it can actually start a sandbox."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass

__all__ = ["INSTALL_HINT", "BwrapProbe", "probe_bwrap", "probe_in_background", "reset_probe"]

INSTALL_HINT = "install the package 'bubblewrap' (Debian/Ubuntu: apt-get install bubblewrap)"
_PROBE_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class BwrapProbe:
    """The probe's answer: `path` of a working `bwrap`, or `reason` why there is none."""

    path: str | None
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.path is not None


_lock = threading.Lock()
_cached: BwrapProbe | None = None


def _run_probe() -> BwrapProbe:
    if not sys.platform.startswith("linux"):
        return BwrapProbe(None, f"the Bash sandbox needs Linux and bubblewrap (this is {sys.platform})")
    path = shutil.which("bwrap")
    if path is None:
        return BwrapProbe(None, f"bwrap not found; {INSTALL_HINT}")
    # The same namespaces a real launch uses: a bwrap that exists but cannot
    # create them (no user namespaces, seccomp in a container) must not count.
    argv = [path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-net"]
    argv += ["--die-with-parent", "--new-session", "true"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=_PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return BwrapProbe(None, f"bwrap could not start ({exc}); {INSTALL_HINT}")
    if done.returncode != 0:
        err = done.stderr.decode(errors="replace").strip().splitlines()
        detail = err[-1] if err else f"exit {done.returncode}"
        return BwrapProbe(None, f"bwrap cannot create a sandbox here: {detail}")
    return BwrapProbe(path)


def probe_bwrap() -> BwrapProbe:
    """Run `bwrap ... true` once per process and cache the answer."""
    global _cached
    with _lock:
        if _cached is None:
            _cached = _run_probe()
        return _cached


def probe_in_background() -> threading.Thread:
    """Start `probe_bwrap` in a daemon thread (it waits on a subprocess, so it overlaps the
    caller's start-up); a later `probe_bwrap` call waits for it and reuses the answer."""
    thread = threading.Thread(target=probe_bwrap, name="skawld-bwrap-probe", daemon=True)
    thread.start()
    return thread


def reset_probe() -> None:
    """Forget the cached answer (tests, or after installing bubblewrap)."""
    global _cached
    with _lock:
        _cached = None
