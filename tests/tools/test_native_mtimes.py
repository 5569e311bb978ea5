"""The native listing with mtimes (rg piped into `find -files0-from`) agrees with Python's `os.stat`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skawld_core.tools import native_mtimes
from skawld_core.tools.file_search import FileQuery, list_files_with_mtime_py, list_files_with_mtime_rg
from skawld_core.tools.globmatch import PathGlob

pytestmark = pytest.mark.skipif(
    not native_mtimes.available() and not os.environ.get("CI"), reason="needs rg and GNU find 4.9+"
)


async def test_every_file_and_its_exact_mtime(tmp_path: Path) -> None:
    names = ["a.py", "with space.py", "new\nline.py", "é.py", "sub/deep/x.py", "ignored.log", ".hidden.py"]
    (tmp_path / ".gitignore").write_text("*.log\n")
    for i, name in enumerate(names):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
        os.utime(path, ns=(1, 1_700_000_000_123_456_789 + i))
    (tmp_path / "old.py").write_text("")
    os.utime(tmp_path / "old.py", ns=(1, -1_500_000_000))  # before 1970
    (tmp_path / "link.py").symlink_to(tmp_path / "a.py")  # listed by neither
    query = FileQuery(root=tmp_path, glob=PathGlob("**/*.py"))
    assert native_mtimes.available()
    native = sorted(await list_files_with_mtime_rg(query))
    assert native == sorted(list_files_with_mtime_py(query))
    assert ("with space.py", 1_700_000_000_123_456_790) in native
    assert ("old.py", -1_500_000_000) in native
    assert {rel for rel, _ in native} == {"a.py", "with space.py", "new\nline.py", "é.py", "sub/deep/x.py", "old.py"}


async def test_an_rg_failure_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(native_mtimes.RipgrepError):
        await native_mtimes.list_with_mtimes(["--type", "no-such-type", "--", str(tmp_path)], str(tmp_path))
