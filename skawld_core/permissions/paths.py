"""Path-rule matching against resolved real paths.

Candidates: a target is resolved against the call cwd both lexically
(`os.path.normpath`) and physically (`os.path.realpath`, following symlinks);
a leading `~` is also tried expanded. A restrictive rule (deny/ask) matches
when **any** candidate matches; an allow rule only when **every** real
candidate matches. So neither `..`, a symlink nor `~` can reach a denied file
or widen an allow.

Patterns: relative ones resolve against the project root; the literal
directory prefix of each pattern is also tried through `realpath`, so a
symlinked project root (or `/tmp` on macOS) still matches.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..globs import PATH_RULE, compile_glob
from .rules import PathRule

__all__ = ["PathCandidates", "path_candidates", "path_rule_matches", "path_target", "rule_names_path"]

_GLOB_CHARS = frozenset("*?[{\\")
_FILE_PATH_TOOLS = frozenset({"Read", "Write", "Edit"})
_DIR_PATH_TOOLS = frozenset({"Glob", "Grep"})
_NOTEBOOK_TOOLS = frozenset({"NotebookEdit"})


def path_target(tool_name: str, tool_input: Mapping[str, Any], cwd: Path) -> str | None:
    """The path a call touches, or None when the tool has no path target."""
    if tool_name in _FILE_PATH_TOOLS:
        value = tool_input.get("file_path")
        return value if isinstance(value, str) and value else None
    if tool_name in _NOTEBOOK_TOOLS:
        value = tool_input.get("notebook_path")
        return value if isinstance(value, str) and value else None
    if tool_name in _DIR_PATH_TOOLS:
        value = tool_input.get("path")
        return value if isinstance(value, str) and value else str(cwd)
    return None


class PathCandidates:
    """The lexical and real interpretations of one target path."""

    __slots__ = ("lexical", "real")

    def __init__(self, lexical: tuple[str, ...], real: tuple[str, ...]) -> None:
        self.lexical = lexical
        self.real = real

    @property
    def all(self) -> tuple[str, ...]:
        """Every interpretation (for restrictive matching)."""
        return tuple(dict.fromkeys(self.lexical + self.real))


def path_candidates(target: str, cwd: Path) -> PathCandidates:
    """Resolve `target` against `cwd`: lexical and real paths, with and without `~` expansion."""
    raw = [target]
    if target.startswith("~"):
        expanded = os.path.expanduser(target)
        if expanded != target:
            raw.append(expanded)
    lexical: list[str] = []
    real: list[str] = []
    for t in raw:
        lex = os.path.normpath(os.path.join(str(cwd), t))
        lexical.append(lex)
        real.append(_realpath(lex))
    return PathCandidates(tuple(dict.fromkeys(lexical)), tuple(dict.fromkeys(real)))


def _realpath(path: str) -> str:
    """`os.path.realpath`, or the path itself when it cannot be resolved (e.g. a NUL byte)."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


def _pattern_variants(pattern: str, project_root: Path) -> list[str]:
    if pattern.startswith("~"):
        pattern = os.path.expanduser(pattern)
    if not pattern.startswith("/"):
        root = os.path.normpath(str(project_root))
        rel = pattern[2:] if pattern.startswith("./") else pattern
        pattern = root.rstrip("/") + "/" + rel
    variants = [pattern]
    parts = pattern.split("/")
    k = 0
    while k < len(parts) and not (_GLOB_CHARS & set(parts[k])):
        k += 1
    prefix = "/".join(parts[:k]) or "/"
    normalized_prefix = os.path.normpath(prefix)
    real_prefix = _realpath(prefix)
    rest = "/".join(parts[k:])
    for p in (normalized_prefix, real_prefix):
        v = p if not rest else p.rstrip("/") + "/" + rest
        if v not in variants:
            variants.append(v)
    return variants


def _pattern_matches(pattern: str, path: str, project_root: Path) -> bool:
    negated = False
    while pattern.startswith("!"):
        negated = not negated
        pattern = pattern[1:]
    hit = any(compile_glob(v, PATH_RULE).match(path) for v in _pattern_variants(pattern, project_root))
    return hit != negated


def _rule_matches_path(rule: PathRule, path: str, project_root: Path) -> bool:
    return any(_pattern_matches(p, path, project_root) for p in rule.paths)


def rule_applies_to(rule: PathRule, tool_name: str) -> bool:
    """Whether a path rule's `tools` filter includes `tool_name` (`"*"` = every tool)."""
    return tool_name in rule.tools or "*" in rule.tools


def path_rule_matches(rule: PathRule, candidates: PathCandidates, project_root: Path) -> bool:
    """Deny/ask: any candidate matches. Allow: every real candidate matches."""
    paths: Iterable[str]
    if rule.decision == "allow":
        return all(_rule_matches_path(rule, p, project_root) for p in candidates.real)
    paths = candidates.all
    return any(_rule_matches_path(rule, p, project_root) for p in paths)


def _literal_pattern_paths(pattern: str, project_root: Path) -> list[str]:
    if pattern.startswith("!") or _GLOB_CHARS & set(pattern):
        return []
    if pattern.startswith("~"):
        pattern = os.path.expanduser(pattern)
    lexical = os.path.normpath(os.path.join(str(project_root), pattern))
    return list(dict.fromkeys([lexical, _realpath(lexical)]))


def rule_names_path(rule: PathRule, candidates: PathCandidates, project_root: Path) -> bool:
    """True when one of the rule's patterns is a literal path (no glob) naming every real candidate.

    Protected paths ask even under a matching allow rule unless the rule names them exactly.
    """
    for pattern in rule.paths:
        named = _literal_pattern_paths(pattern, project_root)
        if named and all(real in named for real in candidates.real):
            return True
    return False
