"""A seccomp filter (classic BPF, for `bwrap --seccomp FD`) that refuses `AF_UNIX` sockets.

A mount namespace hides socket files only where something is mounted over
them; the filter closes the rest (abstract sockets, a socket path under a
writable root): `socket(AF_UNIX, ...)` fails with EPERM, while
`socketpair(AF_UNIX, ...)` (pipes between a process and its children, used by
Python's asyncio and many tools) still works, as in Claude Code's sandbox.
`io_uring_setup` is refused too, since io_uring can create sockets without the
`socket` system call. The program checks the architecture it runs under:
x86_64 (x32 calls included), i386 on x86_64 (`socketcall(SYS_SOCKET)` is
refused as a whole: its family is behind a pointer), aarch64 and 32-bit ARM.
"""

from __future__ import annotations

import platform
import struct
from dataclasses import dataclass

__all__ = ["UnsupportedArchitecture", "unix_socket_filter"]

# linux/filter.h
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_AND_K = 0x54  # BPF_ALU | BPF_AND | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K
# linux/seccomp.h, linux/audit.h
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_EPERM = 1
_AF_UNIX = 1
_X32_BIT = 0x40000000
_SYS_SOCKET = 1  # socketcall's first argument
# struct seccomp_data: nr at 0, arch at 4, args[0] at 16 (its low 32 bits, little-endian)
_NR, _ARCH, _ARG0 = 0, 4, 16

_ARCH_X86_64 = 0xC000003E
_ARCH_I386 = 0x40000003
_ARCH_AARCH64 = 0xC00000B7
_ARCH_ARM = 0x40000028
_IO_URING_SETUP = 425  # the same number on every architecture here

# arch: (socket, socketcall or None); the first of each machine's pair is its native one
_SOCKET_CALLS = {
    _ARCH_X86_64: (41, None),
    _ARCH_I386: (359, 102),
    _ARCH_AARCH64: (198, None),
    _ARCH_ARM: (281, None),
}
_MACHINES = {
    "x86_64": (_ARCH_X86_64, _ARCH_I386),
    "amd64": (_ARCH_X86_64, _ARCH_I386),
    "aarch64": (_ARCH_AARCH64, _ARCH_ARM),
    "arm64": (_ARCH_AARCH64, _ARCH_ARM),
}


class UnsupportedArchitecture(Exception):
    """The filter has no system call table for this machine."""


@dataclass(frozen=True)
class _Op:
    """One instruction; `true`/`false` name the labels a conditional jump goes to
    (None: the next instruction)."""

    code: int
    k: int
    true: str | None = None
    false: str | None = None


def _load(offset: int) -> _Op:
    return _Op(_LD_W_ABS, offset)


def _arch_checks(arch: int) -> list[_Op | str]:
    socket_nr, socketcall_nr = _SOCKET_CALLS[arch]
    ops: list[_Op | str] = [f"arch_{arch:x}", _load(_NR)]
    if arch == _ARCH_X86_64:
        ops.append(_Op(_AND_K, 0xFFFFFFFF ^ _X32_BIT))  # x32 calls carry this bit
    ops.append(_Op(_JEQ_K, _IO_URING_SETUP, true="deny"))
    if socketcall_nr is not None:
        ops.append(_Op(_JEQ_K, socketcall_nr, true="socketcall"))
    ops.append(_Op(_JEQ_K, socket_nr, true="socket", false="allow"))
    return ops


def _program(arches: tuple[int, ...]) -> list[_Op | str]:
    ops: list[_Op | str] = [_load(_ARCH)]
    ops += [_Op(_JEQ_K, arch, true=f"arch_{arch:x}") for arch in arches]
    ops.append(_Op(_RET_K, _RET_ALLOW))  # an architecture not listed: nothing to refuse by number
    for arch in arches:
        ops += _arch_checks(arch)
    ops += ["socket", _load(_ARG0), _Op(_JEQ_K, _AF_UNIX, true="deny", false="allow")]
    ops += ["socketcall", _load(_ARG0), _Op(_JEQ_K, _SYS_SOCKET, true="deny", false="allow")]
    ops += ["deny", _Op(_RET_K, _RET_ERRNO | _EPERM), "allow", _Op(_RET_K, _RET_ALLOW)]
    return ops


def _assemble(ops: list[_Op | str]) -> bytes:
    labels: dict[str, int] = {}
    code: list[_Op] = []
    for op in ops:
        if isinstance(op, str):
            labels[op] = len(code)
        else:
            code.append(op)
    out = bytearray()
    for index, op in enumerate(code):
        jt = labels[op.true] - index - 1 if op.true else 0
        jf = labels[op.false] - index - 1 if op.false else 0
        assert 0 <= jt < 256 and 0 <= jf < 256, "classic BPF jumps forward, at most 255"
        out += struct.pack("=HBBI", op.code, jt, jf, op.k)
    return bytes(out)


def unix_socket_filter(machine: str | None = None) -> bytes:
    """The BPF program (an array of `struct sock_filter`) for `machine` (default: this one).

    Raises `UnsupportedArchitecture` for a machine it has no table for.
    """
    name = (machine or platform.machine()).lower()
    if name not in _MACHINES:
        raise UnsupportedArchitecture(f"the Unix socket filter has no system call table for {name or 'this machine'}")
    return _assemble(_program(_MACHINES[name]))
