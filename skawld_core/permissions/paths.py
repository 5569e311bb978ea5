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
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..globs import PATH_RULE, compile_glob
from ..tools.path_policy import PathPolicy, tool_path_policy
from .rules import PathRule

__all__ = [
    "PathCandidates",
    "call_path_policy",
    "path_candidates",
    "path_rule_matches",
    "path_targets",
    "rule_applies_to",
    "rule_names_path",
]

_GLOB_CHARS = frozenset("*?[{\\")


def call_path_policy(tool_name: str, declared: PathPolicy | None = None) -> PathPolicy | None:
    """The path policy of a call: the one its tool declared, else the one registered under its name."""
    return declared if declared is not None else tool_path_policy(tool_name)


def path_targets(policy: PathPolicy | None, tool_input: Mapping[str, Any], cwd: Path) -> tuple[str, ...]:
    """The paths a call touches; () when its tool has no path policy or the call names no path."""
    return () if policy is None else policy.targets(tool_input, cwd)


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


def path_candidates(target: str | Sequence[str], cwd: Path) -> PathCandidates:
    """Resolve `target` (or every one of several) against `cwd`: lexical and real paths, with
    and without `~` expansion. Several targets give one set: a restrictive rule matches when it
    matches any of them, an allow rule only when it matches all."""
    raw = [target] if isinstance(target, str) else list(target)
    for t in list(raw):
        if t.startswith("~"):
            expanded = os.path.expanduser(t)
            if expanded != t:
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


def rule_applies_to(rule: PathRule, tool_name: str, policy: PathPolicy | None = None) -> bool:
    """Whether a path rule covers `tool_name`: it lists it (`"*"` = every tool), or its `family`
    is the one of the tool's path policy (`policy`, else the one registered under the name)."""
    if tool_name in rule.tools or "*" in rule.tools:
        return True
    if rule.family is None:
        return False
    policy = call_path_policy(tool_name, policy)
    return policy is not None and policy.family == rule.family


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
