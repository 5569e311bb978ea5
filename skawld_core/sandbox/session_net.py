"""One network namespace per session: what lets a server started by one sandboxed
Bash call be reached by the next, and by no other session.

A *holder* process (`unshare --net`, plus `--user --map-current-user --keep-caps`
when we are not root) creates the namespace, brings its loopback up and waits on its
stdin; each sandboxed call of the session joins it (`nsenter`) before bwrap
starts, and bwrap then keeps the network it was given instead of making its
own. The holder ends when the session ends (`SessionNetworks.end`), or when
skawld dies (its stdin closes). When the holder cannot start (no `unshare`,
user namespaces refused), calls fall back to a namespace each, as before.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

__all__ = ["NetHolder", "SessionNetworks"]

# Brings `lo` up (SIOCGIFFLAGS / SIOCSIFFLAGS | IFF_UP); given a Unix socket path, forwards
# 127.0.0.1:PORT to it (the domain proxy). Says `ready PORT`, then runs until stdin closes.
_HOLDER = """
import asyncio, fcntl, socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
flags = struct.unpack("16sH22x", fcntl.ioctl(s, 0x8913, struct.pack("16sH22x", b"lo", 0)))[1]
fcntl.ioctl(s, 0x8914, struct.pack("16sH22x", b"lo", flags | 1))
s.close()

async def pipe(r, w):
    try:
        while data := await r.read(65536):
            w.write(data)
            await w.drain()
        w.write_eof()
    except OSError:
        pass

async def client(r, w):
    try:
        ur, uw = await asyncio.open_unix_connection(sys.argv[1])
    except OSError:
        w.close()
        return
    await asyncio.gather(pipe(r, uw), pipe(ur, w))
    w.close()
    uw.close()

async def main():
    port = 0
    if len(sys.argv) > 1:
        server = await asyncio.start_server(client, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
    sys.stdout.write(f"ready {port}\\n")
    sys.stdout.flush()
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)

asyncio.run(main())
"""


@dataclass
class NetHolder:
    """The process that holds one session's network namespace."""

    proc: subprocess.Popen[bytes]
    as_root: bool
    proxy_port: int = 0

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def join_argv(self) -> list[str]:
        """The `nsenter` prefix that runs a command inside the namespace."""
        pid = self.proc.pid
        nsenter = shutil.which("nsenter") or "nsenter"
        argv = [nsenter, f"--net=/proc/{pid}/ns/net"]
        if not self.as_root:
            argv += [f"--user=/proc/{pid}/ns/user", "--preserve-credentials"]
        return [*argv, "--"]

    def stop(self) -> None:
        """End the holder (the namespace goes with its last process)."""
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def start_holder(proxy_socket: str | None = None) -> NetHolder | str:
    """A new holder (forwarding its loopback's `proxy_port` to `proxy_socket` when
    given), or why none can start."""
    unshare = shutil.which("unshare")
    if unshare is None or shutil.which("nsenter") is None:
        return "unshare or nsenter (util-linux) is not installed"
    as_root = os.geteuid() == 0
    # As root, no user namespace: root inside one could not read files of unmapped owners.
    # Not root: --keep-caps, or the holder (not uid 0 in its namespace) loses CAP_NET_ADMIN at
    # exec and cannot bring `lo` up (EPERM).
    argv = [unshare, "--net"] if as_root else [unshare, "--user", "--map-current-user", "--keep-caps", "--net"]
    try:
        proc = subprocess.Popen(
            [*argv, "--", sys.executable, "-I", "-c", _HOLDER, *([proxy_socket] if proxy_socket else [])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            close_fds=True,
        )
    except OSError as exc:
        return f"unshare could not start: {exc}"
    assert proc.stdout is not None
    word, _, port = proc.stdout.readline().partition(b" ")
    if word != b"ready":
        NetHolder(proc, as_root).stop()
        return f"unshare --net failed (exit {proc.returncode})"
    return NetHolder(proc, as_root, int(port))


class SessionNetworks:
    """The holders of an agent's sessions, started on a session's first sandboxed call."""

    def __init__(self) -> None:
        self._holders: dict[str, NetHolder] = {}
        self.unavailable: str | None = None

    def join(self, session_id: str, proxy_socket: str | None = None) -> NetHolder | None:
        """The session's holder (started on first use, forwarding to `proxy_socket`
        when given), or None: a namespace per call."""
        if self.unavailable is not None:
            return None
        holder = self._holders.get(session_id)
        if holder is None or not holder.alive:
            started = start_holder(proxy_socket)
            if isinstance(started, str):
                self.unavailable = started
                return None
            holder = self._holders[session_id] = started
        return holder

    def holder(self, session_id: str) -> NetHolder | None:
        """The session's holder, if one runs."""
        return self._holders.get(session_id)

    def end(self, session_id: str | None = None) -> None:
        """End one session's namespace, or every one."""
        ids = list(self._holders) if session_id is None else [session_id]
        for sid in ids:
            holder = self._holders.pop(sid, None)
            if holder is not None:
                holder.stop()
