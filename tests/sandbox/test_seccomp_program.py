"""The Unix socket filter's BPF program, run by a small classic-BPF interpreter for every
architecture it covers (the machine here runs only one of them; see test_unix_sockets.py
for the real kernel)."""

from __future__ import annotations

import struct

import pytest

from skawld_core.sandbox.seccomp import UnsupportedArchitecture, unix_socket_filter

ALLOW, EPERM = 0x7FFF0000, 0x00050001
X86_64, I386, AARCH64, ARM = 0xC000003E, 0x40000003, 0xC00000B7, 0x40000028
AF_UNIX, AF_INET = 1, 2


def run(program: bytes, nr: int, arch: int, arg0: int = 0) -> int:
    """Execute the filter on one `struct seccomp_data` (only the fields it reads)."""
    data = struct.pack("=iIQ", nr, arch, 0) + struct.pack("=6Q", arg0, 0, 0, 0, 0, 0)
    insns = [struct.unpack_from("=HBBI", program, i) for i in range(0, len(program), 8)]
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = insns[pc]
        assert code == 0x15 or jt == jf == 0, f"offsets on a non-jump at {pc}"  # as the assembler writes them
        if code == 0x20:  # ld [k]
            acc = struct.unpack_from("=I", data, k)[0]
        elif code == 0x54:  # and #k
            acc &= k
        elif code == 0x15:  # jeq #k
            pc += jt if acc == k else jf
        elif code == 0x06:  # ret #k
            return k
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")
        pc += 1


@pytest.mark.parametrize(
    ("machine", "arch", "socket_nr", "socketpair_nr"),
    [
        ("x86_64", X86_64, 41, 53),
        ("x86_64", I386, 359, 360),
        ("aarch64", AARCH64, 198, 199),
        ("aarch64", ARM, 281, 288),
    ],
)
def test_unix_sockets_refused_others_allowed(machine: str, arch: int, socket_nr: int, socketpair_nr: int) -> None:
    program = unix_socket_filter(machine)
    assert run(program, socket_nr, arch, AF_UNIX) == EPERM
    assert run(program, socket_nr, arch, AF_INET) == ALLOW
    assert run(program, socketpair_nr, arch, AF_UNIX) == ALLOW
    assert run(program, 425, arch) == EPERM  # io_uring_setup: sockets without socket()
    assert run(program, 0, arch) == ALLOW


def test_x32_calls_are_checked_too() -> None:
    program = unix_socket_filter("x86_64")
    assert run(program, 0x40000000 | 41, X86_64, AF_UNIX) == EPERM
    assert run(program, 0x40000000 | 41, X86_64, AF_INET) == ALLOW


def test_i386_socketcall_socket_is_refused_whole() -> None:
    program = unix_socket_filter("x86_64")
    assert run(program, 102, I386, 1) == EPERM  # SYS_SOCKET: its family is behind a pointer
    assert run(program, 102, I386, 8) == ALLOW  # SYS_SOCKETPAIR


def test_another_architecture_is_not_matched_by_number() -> None:
    # aarch64's socket number on x86_64 is another call, and the reverse
    assert run(unix_socket_filter("x86_64"), 198, AARCH64, AF_UNIX) == ALLOW
    assert run(unix_socket_filter("aarch64"), 41, X86_64, AF_UNIX) == ALLOW
    # an architecture the filter does not list is let through whole, never checked by another's numbers
    assert run(unix_socket_filter("x86_64"), 41, AARCH64, AF_UNIX) == ALLOW
    assert run(unix_socket_filter("aarch64"), 198, 0x1234, AF_UNIX) == ALLOW


def test_unknown_machine_is_an_error() -> None:
    with pytest.raises(UnsupportedArchitecture, match="riscv64"):
        unix_socket_filter("riscv64")
