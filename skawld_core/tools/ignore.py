"""A pure-Python file walker with ripgrep's default filtering.

Hidden entries (names starting with `.`) are skipped, symlinks are not followed,
and `.rgignore`, `.ignore`, `.gitignore` (in the tree and in parent directories up
to the repository root) and `.git/info/exclude` are applied with gitignore
semantics and ripgrep's precedence (rgignore > ignore > gitignore > exclude; the
deepest file wins within a kind; the last matching line wins within a file).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from ..globs import compile_glob

IGNORE_FILES = (".rgignore", ".ignore", ".gitignore")  # precedence order
EXCLUDE_RANK = 3


@dataclass(frozen=True)
class Rule:
    """One gitignore line."""

    regex: re.Pattern[str]
    negate: bool
    dir_only: bool
    basename: bool


@dataclass(frozen=True)
class RuleSet:
    """The rules of one ignore file, rooted at `base` (an absolute directory)."""

    base: str
    rank: int
    rules: tuple[Rule, ...]

    def match(self, abspath: str, name: str, is_dir: bool) -> bool | None:
        """True = ignored, False = whitelisted, None = no rule matched."""
        rel: str | None = None
        for rule in reversed(self.rules):
            if rule.dir_only and not is_dir:
                continue
            if rule.basename:
                hit = rule.regex.match(name) is not None
            else:
                if rel is None:
                    if not abspath.startswith(self.base):
                        return None
                    rel = abspath[len(self.base) :].lstrip("/")
                hit = rule.regex.match(rel) is not None
            if hit:
                return not rule.negate
        return None


def parse_rule(line: str) -> Rule | None:
    """Parse one gitignore line; `None` for blanks and comments."""
    line = line.rstrip("\n").rstrip("\r")
    if not line or line.startswith("#"):
        return None
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):
        stripped += " "
    line = stripped
    negate = line.startswith("!")
    if negate or line.startswith("\\!") or line.startswith("\\#"):
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    basename = "/" not in line
    if line.startswith("**/") and "/" not in line[3:]:
        basename, line = True, line[3:]
    pattern = line.lstrip("/")
    try:
        regex = compile_glob(pattern)
    except re.error:
        return None
    return Rule(regex, negate, dir_only, basename)


def load_rules(path: str, base: str, rank: int) -> RuleSet | None:
    """Rules from one ignore file (`None` when absent or empty), cached until the
    file's mtime or size changes."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return _load_rules(path, base, rank, st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=4096)
def _load_rules(path: str, base: str, rank: int, mtime_ns: int, size: int) -> RuleSet | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            rules = tuple(r for r in (parse_rule(line) for line in fh) if r is not None)
    except OSError:
        return None
    return RuleSet(base, rank, rules) if rules else None


def _dir_rules(directory: str) -> list[RuleSet]:
    found = []
    for rank, name in enumerate(IGNORE_FILES):
        rs = load_rules(os.path.join(directory, name), directory, rank)
        if rs:
            found.append(rs)
    git = os.path.join(directory, ".git")
    if os.path.isdir(git):
        rs = load_rules(os.path.join(git, "info", "exclude"), directory, EXCLUDE_RANK)
        if rs:
            found.append(rs)
    return found


def parent_rules(root: str) -> list[RuleSet]:
    """Ignore files of the ancestors of `root`, up to the first one holding `.git`."""
    chain: list[str] = []
    current = root
    if os.path.isdir(os.path.join(current, ".git")):
        return []
    while True:
        parent = os.path.dirname(current)
        if parent == current:
            break
        chain.append(parent)
        if os.path.exists(os.path.join(parent, ".git")):
            break
        current = parent
    rules: list[RuleSet] = []
    for directory in reversed(chain):
        rules.extend(_dir_rules(directory))
    return rules


def is_ignored(stack: list[RuleSet], abspath: str, name: str, is_dir: bool) -> bool:
    """Decide with ripgrep's precedence: kind first, then depth, then line order."""
    best_rank = 99
    verdict = False
    for rs in reversed(stack):  # deepest first
        if rs.rank >= best_rank:
            continue
        hit = rs.match(abspath, name, is_dir)
        if hit is not None:
            best_rank, verdict = rs.rank, hit
    return verdict


def walk_files(root: str) -> Iterator[str]:
    """Yield `/`-separated paths of regular files under `root`, relative to it."""
    root = os.path.abspath(root)
    yield from _walk(root, "", parent_rules(root))


def _walk(directory: str, rel: str, inherited: list[RuleSet]) -> Iterator[str]:
    stack = inherited + _dir_rules(directory)
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if name.startswith("."):
            continue
        try:
            if entry.is_symlink():
                continue
            is_dir = entry.is_dir(follow_symlinks=False)
            if not is_dir and not entry.is_file(follow_symlinks=False):
                continue
        except OSError:
            continue
        if stack and is_ignored(stack, entry.path, name, is_dir):
            continue
        child = f"{rel}/{name}" if rel else name
        if is_dir:
            yield from _walk(entry.path, child, stack)
        else:
            yield child
