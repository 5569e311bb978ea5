"""Hidden paths beyond bubblewrap's argument limit, mounted from inside the sandbox.

bubblewrap takes at most 9,000 arguments (`MAX_ARGS`), about 2,900 hidden
paths. The rest are mounted by a small Python program that bubblewrap starts in
the sandbox's place with two capabilities kept (`CAP_SYS_ADMIN` to mount,
`CAP_SETPCAP` to drop them after): it reads the paths from a descriptor, binds
the first hidden file bubblewrap made (an empty read-only file; a bind of a
read-only mount is read-only) over each file, in a mount namespace of its own
(bubblewrap's belongs to a user namespace the program has no capability in when
skawld is not root) and an empty tmpfs over each
folder, then drops every capability (bounding, ambient, permitted, effective,
inheritable), checks that none is left, sets no_new_privs and executes the
shell. Any failure ends the call before the command runs (exit 126, a line on
stderr). The seccomp filter bubblewrap installed stays in force throughout.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .payload import data_fd

__all__ = ["MOUNTER_EXIT", "mounter_argv"]

MOUNTER_EXIT = 126

_PROGRAM = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def fail(what):
    sys.stderr.write("skawld sandbox: could not hide the denied paths: %s\n" % what)
    sys.exit(126)
fd, template = int(sys.argv[1]), sys.argv[2].encode()
chunks = []
while True:
    chunk = os.read(fd, 1 << 20)
    if not chunk:
        break
    chunks.append(chunk)
os.close(fd)
items = b"".join(chunks).split(b"\0")
# a mount namespace of our own, owned by the sandbox's user namespace where the two capabilities
# hold (without a user namespace, when bwrap runs as root, it changes nothing)
if libc.unshare(0x20000) != 0:
    fail("unshare(CLONE_NEWNS): " + os.strerror(ctypes.get_errno()))
mount = libc.mount
mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
MS_NOSUID, MS_NODEV, MS_BIND = 2, 4, 4096
for i in range(0, len(items) - 1, 2):
    kind, path = items[i], items[i + 1]
    if kind == b"f":
        rc = mount(template, path, None, MS_BIND, None)
    else:
        rc = mount(b"tmpfs", path, b"tmpfs", MS_NOSUID | MS_NODEV, b"mode=0755")
    if rc != 0 and ctypes.get_errno() != 2:  # a path gone since the listing hides nothing
        fail("%s: %s" % (path.decode(errors="replace"), os.strerror(ctypes.get_errno())))
PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, PR_SET_NO_NEW_PRIVS = 24, 47, 4, 38
with open("/proc/sys/kernel/cap_last_cap") as fh:
    last = int(fh.read())
libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
for cap in [c for c in range(last + 1) if c != 8] + [8]:  # CAP_SETPCAP (8) last: it drops the rest
    libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
class Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]
data = (ctypes.c_uint32 * 6)()
if libc.capset(ctypes.byref(Header(0x20080522, 0)), data) != 0:
    fail("capset: " + os.strerror(ctypes.get_errno()))
if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
    fail("no_new_privs")
with open("/proc/self/status") as fh:
    left = [l for l in fh if l.startswith(("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")) and int(l.split()[1], 16)]
if left:
    fail("capabilities left: " + " ".join(l.split(":")[0] for l in left))
os.execv(sys.argv[3], sys.argv[3:])
"""


def mounter_argv(template: str, rest: Sequence[tuple[str, str]], shell_argv: Sequence[str]) -> tuple[list[str], int]:
    """The argv that mounts `rest` (`("f", path)` / `("d", path)`) over `template`'s bind
    and then runs `shell_argv`, and the descriptor holding the paths (the caller passes
    it to the child and closes it)."""
    data = b"".join(kind.encode() + b"\0" + path.encode("utf-8", "surrogateescape") + b"\0" for kind, path in rest)
    fd = data_fd(data)
    return [sys.executable, "-I", "-S", "-c", _PROGRAM, str(fd), template, *shell_argv], fd
