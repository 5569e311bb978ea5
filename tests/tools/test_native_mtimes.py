"""The native listing with mtimes (rg piped into `find -files0-from`) agrees with Python's `os.stat`."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from skawld_core.tools import native_mtimes
from skawld_core.tools.file_search import FileQuery, list_files_with_mtime_py, list_files_with_mtime_rg
from skawld_core.tools.glob import _newest
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


def _record(path: str, ns: int) -> bytes:
    """A record as `find -printf '%24T@ %p\\0'` prints it: floored whole seconds
    and ten decimals, right-aligned (a wider time overflows its field)."""
    sec, frac = divmod(ns, 1_000_000_000)
    return f"{f'{sec}.{frac:09}0':>24} {path}\0".encode("utf-8", errors="surrogateescape")


TIMES = {
    "ties": lambda rng: rng.choice([1_700_000_000_000_000_000, 1_700_000_000_000_000_001, rng.randrange(10**19)]),
    # out of bytes order: before 1970 (among times just after it), or too wide for the field
    "near 1970": lambda rng: rng.choice([-1_500_000_000, -3, 0, 5_000_000_000 + rng.randrange(2000)]),
    "too wide": lambda rng: rng.choice([*[9 * 10**22 + rng.randrange(10**9)] * 3, 10**23, rng.randrange(10**19)]),
}


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("times", list(TIMES))
def test_the_newest_records_are_the_newest_of_all(times: str, seed: int) -> None:
    rng = random.Random(seed)
    found = [
        (f"d{rng.randrange(9)}/f{i}\udcff.py" if i % 7 == 0 else f"f {i}.py", TIMES[times](rng))
        for i in range([5, 1000, 1001, 2500][seed])
    ]
    out = b"".join(_record(path, ns) for path, ns in found)
    head, total = native_mtimes._newest_records(out, 1000)
    assert total == len(found)
    assert sorted(native_mtimes._parse(out)) == sorted(found)
    assert _newest(head, 1000) == _newest(list(found), 1000)
