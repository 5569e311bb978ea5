"""Path rules: globs, negation, real-path resolution (`..`, symlinks, `~`) and `can_read`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from skawld_core.globs import PATH_RULE, compile_glob
from skawld_core.permissions import PathRule, PendingToolCall, PermissionEngine
from skawld_core.tools import ToolScope


def call(tool: str, cwd: Path, **inp: Any) -> PendingToolCall:
    scope: ToolScope = "read" if tool in ("Read", "Glob", "Grep") else "write"
    return PendingToolCall(tool_name=tool, tool_use_id="t1", input=inp, summary=tool, scope=scope, cwd=cwd)


@pytest.mark.parametrize(
    ("pattern", "path", "hit"),
    [
        ("/repo/src/**", "/repo/src/index.ts", True),
        ("/repo/src/**", "/repo/src/a/b/c.ts", True),
        ("/repo/src/**", "/repo/src", True),
        ("/repo/src/**", "/repo/srcx/a.ts", False),
        ("/repo/**/.env", "/repo/.env", True),
        ("/repo/**/.env", "/repo/a/b/.env", True),
        ("/repo/**/.env", "/repo/a/.env.local", False),
        ("/repo/*.ts", "/repo/a.ts", True),
        ("/repo/*.ts", "/repo/a/b.ts", False),
        ("/repo/*", "/repo/.hidden", True),  # dot files match
        ("/repo/**", "/repo/.git/config", True),
        ("/repo/*.{ts,js}", "/repo/a.js", True),
        ("/repo/*.{ts,js}", "/repo/a.py", False),
        ("/repo/{a,b/**}", "/repo/b/c/d", True),
        ("/repo/[ab].ts", "/repo/a.ts", True),
        ("/repo/[!ab].ts", "/repo/c.ts", True),
        ("/repo/[!ab].ts", "/repo/a.ts", False),
        ("/repo/?.ts", "/repo/x.ts", True),
        ("/repo/?.ts", "/repo/xy.ts", False),
        ("/repo/a\\*b", "/repo/a*b", True),
        ("/repo/a\\*b", "/repo/axb", False),
        ("/repo/a.b", "/repo/aXb", False),  # `.` is literal
    ],
)
def test_glob_translation(pattern: str, path: str, hit: bool) -> None:
    assert bool(compile_glob(pattern, PATH_RULE).match(path)) is hit


# --- reference rules.test scenarios (virtual paths) --------------------------------------------


def test_relative_target_matches_absolute_pattern() -> None:
    engine = PermissionEngine(rules=[PathRule(paths=["/repo/src/**"], decision="deny")], project_root=Path("/repo"))
    d = engine.evaluate(call("Write", Path("/repo"), file_path="src/index.ts", content=""))
    assert d.behavior == "deny"
    assert d.reason == "path rule matched Write."


def test_negated_pattern() -> None:
    engine = PermissionEngine(rules=[PathRule(paths=["!/repo/**"], decision="deny")], project_root=Path("/repo"))
    assert engine.evaluate(call("Write", Path("/repo"), file_path="/tmp/outside.ts")).behavior == "deny"
    assert engine.evaluate(call("Write", Path("/repo"), file_path="/repo/src/index.ts")).behavior == "ask"


def test_tools_filter() -> None:
    engine = PermissionEngine(rules=[PathRule(paths=["/repo/**"], decision="deny")], project_root=Path("/repo"))
    # default tools are Write and Edit
    assert engine.evaluate(call("Edit", Path("/repo"), file_path="/repo/a")).behavior == "deny"
    assert engine.evaluate(call("Read", Path("/repo"), file_path="/repo/a")).behavior == "allow"
    engine = PermissionEngine(
        rules=[PathRule(tools=["Read"], paths=["/repo/**"], decision="deny")], project_root=Path("/repo")
    )
    assert engine.evaluate(call("Read", Path("/repo"), file_path="/repo/a")).behavior == "deny"
    assert engine.evaluate(call("Write", Path("/repo"), file_path="/repo/a")).behavior == "ask"


def test_call_cwd_is_used_for_relative_targets() -> None:
    engine = PermissionEngine(rules=[PathRule(paths=["/repo/pkg/**"], decision="deny")], project_root=Path("/repo"))
    assert engine.evaluate(call("Write", Path("/repo/pkg"), file_path="a.ts")).behavior == "deny"
    assert engine.evaluate(call("Write", Path("/repo"), file_path="a.ts")).behavior == "ask"


def test_glob_and_grep_without_path_use_the_cwd() -> None:
    rules = [PathRule(tools=["Glob", "Grep"], paths=["/repo"], decision="deny")]
    engine = PermissionEngine(rules=rules, project_root=Path("/repo"))
    assert engine.evaluate(call("Glob", Path("/repo"), pattern="*.ts")).behavior == "deny"
    assert engine.evaluate(call("Grep", Path("/repo"), pattern="x")).behavior == "deny"
    assert engine.evaluate(call("Grep", Path("/repo"), pattern="x", path="/elsewhere")).behavior == "allow"


def test_relative_pattern_resolves_against_project_root() -> None:
    engine = PermissionEngine(rules=[PathRule(paths=["src/**"], decision="deny")], project_root=Path("/repo"))
    assert engine.evaluate(call("Write", Path("/repo/other"), file_path="../src/a.ts")).behavior == "deny"
    assert engine.evaluate(call("Write", Path("/repo/other"), file_path="src/a.ts")).behavior == "ask"


def test_tools_without_a_path_never_match() -> None:
    engine = PermissionEngine(rules=[PathRule(tools=["*"], paths=["/**"], decision="deny")], project_root=Path("/r"))
    c = PendingToolCall(
        tool_name="Bash", tool_use_id="t", input={"command": "ls"}, summary="", scope="exec", cwd=Path("/r")
    )
    assert engine.evaluate(c).behavior == "ask"


def test_allow_path_rule_beats_ask() -> None:
    engine = PermissionEngine(rules=[PathRule(paths=["/repo/src/**"], decision="allow")], project_root=Path("/repo"))
    assert engine.evaluate(call("Write", Path("/repo"), file_path="src/a.ts")).behavior == "allow"
    assert engine.evaluate(call("Write", Path("/repo"), file_path="docs/a.md")).behavior == "ask"


# --- adversarial paths on a real tree -----------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "secrets").mkdir()
    (root / "secrets" / "key.pem").write_text("k")
    (root / ".env").write_text("X=1")
    (root / "src" / "app.py").write_text("")
    (root / "src" / "link_to_env").symlink_to(root / ".env")
    (root / "src" / "link_to_secrets").symlink_to(root / "secrets")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "target.txt").write_text("")
    (root / "src" / "escape").symlink_to(outside / "target.txt")
    (root / "src" / "escape_dir").symlink_to(outside)
    return root


DENY_SECRETS = [
    PathRule(tools=["Read", "Write", "Edit", "Glob", "Grep"], paths=["**/.env", "secrets/**"], decision="deny")
]

ADVERSARIAL_DENIED = [
    # (cwd relative to root, file_path)
    (".", ".env"),
    (".", "./.env"),
    ("src", "../.env"),
    ("src", "../src/../.env"),
    (".", "src/../.env"),
    (".", "secrets/key.pem"),
    ("src", "../secrets/key.pem"),
    (".", "src/link_to_env"),  # symlink to a denied file
    ("src", "link_to_env"),
    (".", "src/link_to_secrets/key.pem"),  # through a symlinked directory
    (".", "src//..//secrets/./key.pem"),
    (".", "{root}/.env"),  # absolute
    (".", "{root}/src/../.env"),
    (".", "secrets/new-file.txt"),  # not existing yet
    (".", "src/link_to_secrets/new.txt"),  # not existing yet, through a symlink
]


@pytest.mark.parametrize(("cwd", "file_path"), ADVERSARIAL_DENIED)
@pytest.mark.parametrize("tool", ["Read", "Write", "Edit"])
def test_adversarial_paths_are_denied(tree: Path, cwd: str, file_path: str, tool: str) -> None:
    engine = PermissionEngine(mode="yolo", rules=DENY_SECRETS, project_root=tree)
    fp = file_path.replace("{root}", str(tree))
    d = engine.evaluate(call(tool, tree / cwd, file_path=fp))
    assert d.behavior == "deny", (cwd, fp)


@pytest.mark.parametrize("file_path", ["src/app.py", "src/new.py", "README.md", ".envrc", "src/.env.example"])
def test_harmless_paths_are_not_denied(tree: Path, file_path: str) -> None:
    engine = PermissionEngine(mode="yolo", rules=DENY_SECRETS, project_root=tree)
    assert engine.evaluate(call("Write", tree, file_path=file_path)).behavior == "allow"


def test_allow_rule_does_not_cover_symlink_escape(tree: Path) -> None:
    engine = PermissionEngine(rules=[PathRule(paths=["src/**"], decision="allow")], project_root=tree)
    assert engine.evaluate(call("Write", tree, file_path="src/app.py")).behavior == "allow"
    # the literal path is under src/, but the real file is outside: no allow, so the mode asks
    assert engine.evaluate(call("Write", tree, file_path="src/escape")).behavior == "ask"
    assert engine.evaluate(call("Write", tree, file_path="src/escape_dir/new.txt")).behavior == "ask"
    assert engine.evaluate(call("Write", tree, file_path="src/../.env")).behavior == "ask"


def test_negated_deny_catches_symlink_escape(tree: Path) -> None:
    engine = PermissionEngine(mode="acceptEdits", rules=[PathRule(paths=["!**"], decision="deny")], project_root=tree)
    assert engine.evaluate(call("Write", tree, file_path="src/app.py")).behavior == "allow"
    assert engine.evaluate(call("Write", tree, file_path="src/escape")).behavior == "deny"
    assert engine.evaluate(call("Write", tree, file_path="../outside/x")).behavior == "deny"


def test_symlinked_project_root(tree: Path, tmp_path: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(tree)
    engine = PermissionEngine(mode="yolo", rules=DENY_SECRETS, project_root=alias)
    assert engine.evaluate(call("Read", alias, file_path=".env")).behavior == "deny"
    assert engine.evaluate(call("Read", tree, file_path=".env")).behavior == "deny"
    allow = PermissionEngine(rules=[PathRule(paths=["src/**"], decision="allow")], project_root=alias)
    assert allow.evaluate(call("Write", alias, file_path="src/app.py")).behavior == "allow"


def test_tilde_in_pattern_and_target(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tree.parent / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    engine = PermissionEngine(mode="yolo", rules=[PathRule(paths=["~/.ssh/**"], decision="deny")], project_root=tree)
    assert engine.evaluate(call("Write", tree, file_path=str(home / ".ssh" / "authorized_keys"))).behavior == "deny"
    # a `~` target is denied whether or not the tool expands it
    assert engine.evaluate(call("Write", tree, file_path="~/.ssh/authorized_keys")).behavior == "deny"
    # and an allow rule for the project does not cover a `~` path that may expand to $HOME
    allow = PermissionEngine(rules=[PathRule(paths=["**"], decision="allow")], project_root=tree)
    assert allow.evaluate(call("Write", tree, file_path="~/.bashrc")).behavior == "ask"


def test_first_matching_path_rule_wins(tree: Path) -> None:
    rules: list[Any] = [
        PathRule(paths=["src/**"], decision="allow"),
        PathRule(paths=["**"], decision="deny"),
    ]
    engine = PermissionEngine(rules=rules, project_root=tree)
    assert engine.evaluate(call("Write", tree, file_path="src/app.py")).behavior == "allow"
    assert engine.evaluate(call("Write", tree, file_path="README.md")).behavior == "deny"


# --- can_read (Glob/Grep filtering) -------------------------------------------------------------


def test_can_read_hides_denied_files(tree: Path) -> None:
    engine = PermissionEngine(rules=DENY_SECRETS, project_root=tree)
    assert engine.can_read(tree / "src" / "app.py")
    assert not engine.can_read(tree / ".env")
    assert not engine.can_read(tree / "secrets" / "key.pem")
    assert not engine.can_read(tree / "src" / "link_to_env")
    assert not engine.can_read(tree / "src" / "link_to_secrets" / "key.pem")
    assert not engine.can_read(Path(os.path.join(tree, "src", "..", ".env")))


def test_can_read_ignores_rules_not_for_read(tree: Path) -> None:
    engine = PermissionEngine(rules=[PathRule(paths=["**/.env"], decision="deny")], project_root=tree)
    assert engine.can_read(tree / ".env")  # default tools are Write and Edit


def test_can_read_with_no_rules(tree: Path) -> None:
    assert PermissionEngine(project_root=tree).can_read(tree / ".env")


def test_unresolvable_paths_do_not_raise(tree: Path) -> None:
    engine = PermissionEngine(rules=DENY_SECRETS, project_root=tree)
    assert engine.evaluate(call("Write", tree, file_path="src/a\x00b")).behavior == "ask"
    assert engine.can_read(tree / "a\x00b")


def test_symlink_loop_does_not_raise(tree: Path) -> None:
    (tree / "loop").symlink_to(tree / "loop")
    engine = PermissionEngine(rules=DENY_SECRETS, project_root=tree)
    assert engine.evaluate(call("Write", tree, file_path="loop/x")).behavior == "ask"
