"""Real bash with a PATH of shim programs that log every program it starts (for the differential tests).

Plain shims log their name and exit 0; wrapper shims (`env`, `nice`, `find`,
`xargs`, …) log and exec the real program, which looks its own command up in
the same PATH.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

from .bash_corpus import DIFF_PROGRAMS, REAL_WRAPPERS

__all__ = ["BASH", "make_shims", "run_with_shims"]

BASH = "/bin/bash"


def make_shims(root: Path) -> Path:
    shims = root / "shims"
    shims.mkdir()

    def write(name: str, tail: str) -> None:
        # the shim's own name, not $0: what matters is which program ran, whatever argv[0] says
        (shims / name).write_text(f'#!/bin/sh\nprintf "%s\\n" {name} >> "$SHIM_LOG"\n{tail}\n')

    for name in DIFF_PROGRAMS:
        write(name, "exit 0")
    for name in REAL_WRAPPERS:
        real = shutil.which(name, path="/usr/bin:/bin")
        write(name, f'exec {real} "$@"' if real else "exit 0")
    write("bash", f'exec {BASH} "$@"')
    write("sh", 'exec /bin/sh "$@"')
    write("busybox", 'exec "$@"')  # runs its applet
    for shim in shims.iterdir():
        shim.chmod(0o755)
    return shims


def run_with_shims(command: str, work: Path, shims: Path) -> set[str]:
    work.mkdir()
    (work / "bin").symlink_to(shims)
    log = work.parent / f"{work.name}.log"
    log.touch()
    env = {"PATH": str(shims), "SHIM_LOG": str(log), "HOME": str(work), "LC_ALL": "C"}
    proc = subprocess.Popen(
        [BASH, "-c", command],
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # also background jobs the command left
        except ProcessLookupError:
            pass
        proc.wait()
    return {line for line in log.read_text().splitlines() if line}
