"""The file index: complete at any size, current after every change, ignore rules
applied for the tools' view and not for the deny view."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from skawld_core.file_index.listed import ListedView, shared_listing
from skawld_core.file_index.registry import ready_tree, shared_tree, warm_tree
from skawld_core.file_index.tree import DirTree
from skawld_core.permissions import PermissionEngine
from skawld_core.sandbox.hidden import hidden_paths
from skawld_core.tools import GlobTool, ToolContext
from skawld_core.tools.ignore import walk_files
from skawld_core.tools.ripgrep import BASE_FLAGS, find_rg
from skawld_tui.path_complete import FileIndex, project_files
from tests.support.big_tree import generate_tree

BIG = 100_000


def rg_files(root: Path) -> set[str]:
    rg = find_rg()
    assert rg is not None
    out = subprocess.run([rg, *BASE_FLAGS, "--files", "--glob", "!.*", "--null", str(root)], capture_output=True)
    return {p[len(str(root)) + 1 :] for p in out.stdout.decode().split("\0") if p}


@pytest.mark.timeout(300)
def test_every_file_of_a_100k_repository_is_listed_and_findable(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    dirs = generate_tree(root, BIG)
    (root / "build").mkdir()
    (root / "build" / "out.py").write_text("")
    (root / ".cache").mkdir()
    (root / ".cache" / "c.py").write_text("")
    (dirs[-1] / "the_very_last_module.py").write_text("")
    listed = shared_listing(root).files()
    assert len(listed) == len(set(listed)) == BIG + 1
    assert set(listed) == set(walk_files(str(root)))
    if find_rg() is not None:
        assert set(listed) == rg_files(root)
    files = project_files(root)  # what `@` completion lists: all of them
    assert len(files) == BIG + 1
    last = str((dirs[-1] / "the_very_last_module.py").relative_to(root))
    assert FileIndex(files).rank("very_last")[0] == last


def _check(tree: DirTree, view: ListedView, root: Path) -> None:
    tree.wait_watching(10)
    assert sorted(view.files()) == sorted(walk_files(str(root)))


@pytest.mark.parametrize("watch", [True, False], ids=["inotify", "polled"])
def test_the_listing_follows_every_kind_of_change(tmp_path: Path, watch: bool) -> None:
    root = tmp_path / "repo"
    generate_tree(root, 300)
    tree = DirTree(root, watch=watch)
    view = ListedView(tree)
    try:
        _check(tree, view, root)
        (root / "pkg0" / "mod0" / "new.py").write_text("")  # a file appears
        (root / "fresh" / "deep").mkdir(parents=True)  # a folder tree appears
        (root / "fresh" / "deep" / "x.py").write_text("")
        _check(tree, view, root)
        (root / "pkg0" / "mod0" / "sub0" / "file0.py").unlink()  # a file goes
        os.rename(root / "pkg0" / "mod1", root / "pkg0" / "moved")  # a folder moves
        _check(tree, view, root)
        (root / ".gitignore").write_text("fresh/\nfile1.py\n")  # the ignore rules change
        _check(tree, view, root)
        (root / "pkg0" / "mod0" / ".gitignore").write_text("!file1.py\n")  # a nested ignore file appears
        _check(tree, view, root)
        shutil.rmtree(root / "pkg0")  # a whole subtree goes
        _check(tree, view, root)
        assert "pkg0/mod0/new.py" not in view.files() and "fresh/deep/x.py" not in view.files()
    finally:
        view.close()
        tree.close()


@pytest.mark.timeout(120)
def test_more_changes_than_the_event_queue_holds_lose_nothing(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    generate_tree(root, 100)
    view = shared_listing(root)
    view.tree.wait_watching(10)
    assert len(view.files()) == 100
    generate_tree(root / "burst", 20_000)  # past fs.inotify.max_queued_events (16384 by default)
    assert sorted(view.files()) == sorted(walk_files(str(root)))


def _ctx(root: Path) -> ToolContext:
    return ToolContext(cwd=root, session_id="s", run_id="r", tool_use_id="t")


async def test_glob_sees_files_appear_change_and_go(tmp_path: Path) -> None:
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("")
        os.utime(tmp_path / name, (1000, 1000))
    glob = GlobTool()
    ask = glob.validate({"pattern": "**/*.py"})

    async def run() -> str:
        content = (await glob.execute(ask, _ctx(tmp_path))).content
        assert isinstance(content, str)
        return content

    assert await run() == "a.py\nb.py"
    shared_listing(tmp_path).tree.wait_watching(10)
    os.utime(tmp_path / "b.py", (2000, 2000))  # newer: first (the cached mtime is dropped)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.py").write_text("")
    os.utime(tmp_path / "sub" / "c.py", (1500, 1500))
    assert await run() == "b.py\nsub/c.py\na.py"
    (tmp_path / "a.py").unlink()
    assert await run() == "b.py\nsub/c.py"


async def test_a_cold_glob_is_answered_by_rg_and_walks_the_index_for_the_next(tmp_path: Path) -> None:
    if find_rg() is None and not os.environ.get("CI"):
        pytest.skip("rg is not on PATH")
    generate_tree(tmp_path, 50)
    glob = GlobTool()
    ask = glob.validate({"pattern": "**/file1.py"})
    assert ready_tree(tmp_path) is None
    first = (await glob.execute(ask, _ctx(tmp_path))).content
    assert isinstance(first, str) and len(first.splitlines()) == 3
    assert ready_tree(tmp_path) is None  # walked only once the call is done, not during it
    await asyncio.sleep(0)  # one turn of the loop: the walk starts (call_soon), in a thread
    tree = ready_tree(tmp_path, wait=True)
    assert tree is not None and tree.walks == 1
    view = shared_listing(tmp_path)
    assert view.tree is tree
    (tmp_path / "pkg0" / "mod0" / "file1.py").write_text("")
    second = (await glob.execute(ask, _ctx(tmp_path))).content
    assert isinstance(second, str) and "pkg0/mod0/file1.py" in second.splitlines()
    assert view.tree.walks == 1  # the index answered, kept current


def test_a_cold_at_listing_is_rg_s_and_equals_the_index(tmp_path: Path) -> None:
    if find_rg() is None and not os.environ.get("CI"):
        pytest.skip("rg is not on PATH")
    generate_tree(tmp_path, 200, gitignore="build/\n*.log\npkg0/mod0/sub3/\n")
    for extra in ("build/x.py", "a.log", ".hidden/y.py", "pkg0/.z.py", "sp ace/é.py"):
        (tmp_path / extra).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / extra).write_text("")
    (tmp_path / "link.py").symlink_to(tmp_path / "sp ace" / "é.py")
    cold = project_files(tmp_path, warm=False)
    assert ready_tree(tmp_path) is None  # rg listed them: nothing walked
    assert sorted(cold) == sorted(shared_listing(tmp_path).files()) and "sp ace/é.py" in cold
    assert len(cold) == 200 - 20 + 1  # pkg0/mod0/sub3/ ignored, the symlink and hidden files left out


def test_two_threads_asking_for_one_tree_share_one_walk(tmp_path: Path) -> None:
    generate_tree(tmp_path, 2000)
    warming = warm_tree(tmp_path)
    assert warming is not None and warm_tree(tmp_path) is None  # already under way
    tree = shared_tree(tmp_path)  # waits for that walk rather than walking again
    warming.join()
    assert tree is ready_tree(tmp_path) and tree.walks == 1 and len(tree.nodes) > 100


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "home" / ".ssh"
    path.mkdir(parents=True)
    (path / "id_rsa").write_text("KEY")
    yield path


def test_the_deny_view_lists_what_the_tools_view_hides_and_the_engine_judges(tmp_path: Path, outside: Path) -> None:
    root = tmp_path / "repo"
    for where in ("", "keep", "node_modules/x", ".hidden", "build"):
        (root / where).mkdir(parents=True, exist_ok=True)
        (root / where / ".env").write_text("S")
    (root / ".gitignore").write_text("build/\n")
    rules = [
        {"kind": "path", "tools": ["Read"], "paths": ["keep/.env"], "decision": "allow"},  # first match wins
        {"kind": "path", "tools": ["Read"], "paths": ["**/.env", f"{outside}/**"], "decision": "deny"},
    ]
    engine = PermissionEngine(rules=rules, project_root=root)
    patterns = ["**/.env", f"{outside}/**"]
    found = hidden_paths(patterns, root, lambda p: not engine.can_read(p), rules_key=engine.rules)
    expected = {str(root / w / ".env").replace("//", "/") for w in ("", "node_modules/x", ".hidden", "build")}
    assert set(found.files) == expected
    assert found.dirs == [str(outside)]
    # New rules over the same tree: every candidate is asked again.
    engine2 = PermissionEngine(rules=rules[1:], project_root=root)
    again = hidden_paths(patterns, root, lambda p: not engine2.can_read(p), rules_key=engine2.rules)
    assert set(again.files) == expected | {str(root / "keep" / ".env")}
    # A pattern base that does not exist yet is checked again on every call.
    later = tmp_path / "later"
    assert hidden_paths([f"{later}/**"], root, lambda p: True).dirs == []
    later.mkdir()
    assert hidden_paths([f"{later}/**"], root, lambda p: True).dirs == [str(later)]
