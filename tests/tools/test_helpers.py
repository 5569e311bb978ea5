"""Shared helpers: path resolution, numbering, truncation, atomic writes, tracker, rg lookup."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from skawld_core.tools import FileReadTracker
from skawld_core.tools import atomic_write as aw
from skawld_core.tools.paths import display_path, is_device_path, resolve_path
from skawld_core.tools.ripgrep import find_executable, find_rg
from skawld_core.tools.text_format import number_lines, truncate_text


def test_resolve_path_variants(tmp_path: Path) -> None:
    assert resolve_path("/etc/hosts", tmp_path) == Path("/etc/hosts")
    assert resolve_path("a/b.txt", tmp_path) == tmp_path / "a" / "b.txt"
    assert resolve_path("~/x", tmp_path) == Path(os.path.expanduser("~")) / "x"
    assert resolve_path("a/../b", tmp_path) == tmp_path / "b"
    assert display_path(tmp_path / "a" / "b", tmp_path) == "a/b"
    assert display_path(Path("/etc/hosts"), tmp_path) == "/etc/hosts"


def test_device_paths_through_symlinks(tmp_path: Path) -> None:
    link = tmp_path / "zero"
    link.symlink_to("/dev/zero")
    assert is_device_path(Path("/dev/zero"))
    assert is_device_path(Path("/proc/self/status"))
    assert is_device_path(link)
    assert not is_device_path(tmp_path / "plain.txt")


def test_find_executable_and_cache() -> None:
    assert find_executable("sh") is not None
    assert find_executable("definitely-not-a-binary-xyz") is None
    assert find_rg() is find_rg()


def test_numbering() -> None:
    assert number_lines("a\nb") == "     1\ta\n     2\tb"
    assert number_lines("a\n", start=7) == "     7\ta"
    assert number_lines("") == ""
    assert number_lines("x", start=1234567) == "1234567\tx"


def test_truncation() -> None:
    assert truncate_text("abc", 3) == "abc"
    assert truncate_text("abcdef", 4) == "abcd\n… (2 chars truncated)"


def _temp_files(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.startswith(".tmp-skawld-")]


def test_atomic_write_create_overwrite_keeps_mode(tmp_path: Path) -> None:
    target = tmp_path / "f.sh"
    aw.atomic_write_bytes(target, b"one")
    assert target.read_bytes() == b"one"
    target.chmod(0o751)
    aw.atomic_write_bytes(target, b"two")
    assert target.read_bytes() == b"two"
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert _temp_files(tmp_path) == []


def test_atomic_write_new_file_uses_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        aw.atomic_write_bytes(tmp_path / "n.txt", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "n.txt").stat().st_mode) == 0o644


def test_atomic_write_through_symlink_keeps_link(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    aw.atomic_write_bytes(link, b"new")
    assert link.is_symlink()
    assert real.read_text() == "new"


def test_atomic_write_failure_leaves_old_content_and_no_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "keep.txt"
    target.write_text("original")

    def broken_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(aw.os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        aw.atomic_write_bytes(target, b"x" * 100_000)
    assert target.read_text() == "original"
    assert _temp_files(tmp_path) == []


def test_tracker_canonical_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    t = FileReadTracker()
    f = tmp_path / "a.txt"
    f.write_text("x")
    link = tmp_path / "l.txt"
    link.symlink_to(f)
    monkeypatch.chdir(tmp_path)
    t.mark_read("a.txt")
    assert t.has_read(f) and t.has_read(link)
    assert not t.has_read(tmp_path / "other")
    t.mark_read(link)
    assert not t.changed_since_read(f)
    f.write_text("changed!")
    assert t.changed_since_read(link)
    t.clear()
    assert not t.has_read(f)
