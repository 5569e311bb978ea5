"""Evaluate the bash rule set against a command (reference §2.8, hardened).

For each segment, the first matching rule decides. Any deny segment denies the
whole command; an explicit ask segment makes the command ask; the command is
allowed only when every segment is allowed. Otherwise there is no decision.

Hardening beyond the reference:

- a segment with a risky construct (`risky_construct`) is never allowed, nor
  is a command with an unquoted CR (the reference splits on it, bash does not);
- deny rules also see the commands inside `$(…)`, backticks and `<(…)`, and a
  segment's command with redirections and wrappers stripped (`>log rm`,
  `FOO=1 rm`, `(rm`, `/bin/rm`, `command rm`, `env rm`, …).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from functools import lru_cache

from .bash import (
    command_words,
    has_bare_carriage_return,
    nested_commands,
    risky_construct,
    shell_tokens,
    split_bash_segments,
)
from .rules import BashRule
from .types import Decision

__all__ = ["evaluate_bash"]

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_WRAPPERS = frozenset({"command", "builtin", "exec", "nohup", "env", "time", "sudo", "doas", "nice", "!", "{", "("})


@lru_cache(maxsize=512)
def _compile(regex: str) -> re.Pattern[str] | None:
    try:
        return re.compile(regex)
    except (re.error, RecursionError, OverflowError):
        return None


@lru_cache(maxsize=512)
def _pattern_tokens(pattern: str) -> tuple[str, ...]:
    return tuple(shell_tokens(pattern))


def _prefix(tokens: Sequence[str], pattern: Sequence[str]) -> bool:
    return 0 < len(pattern) <= len(tokens) and tuple(tokens[: len(pattern)]) == tuple(pattern)


def _matches(rule: BashRule, segment: str, tokens: Sequence[str]) -> bool:
    if isinstance(rule.pattern, str):
        return _prefix(tokens, _pattern_tokens(rule.pattern))
    rx = _compile(rule.pattern.regex)
    return rx is not None and rx.search(segment.strip()) is not None


def _unwrapped(tokens: list[str]) -> list[str]:
    """Tokens with leading assignments, wrappers and `(`/`{` stripped; command basename."""
    out = list(tokens)
    changed = True
    while out and changed:
        changed = False
        head = out[0]
        if _ASSIGNMENT.match(head) or head in _WRAPPERS or (head.startswith("-") and len(out) < len(tokens)):
            out.pop(0)
            changed = True
        elif head[:1] in "({" and len(head) > 1:
            out[0] = head[1:]
            changed = True
    if out and "/" in out[0]:
        out[0] = os.path.basename(out[0]) or out[0]
    return out


def _first(rules: Sequence[BashRule], segment: str) -> Decision | None:
    tokens = shell_tokens(segment)
    for rule in rules:
        if _matches(rule, segment, tokens):
            return rule.decision
    return None


def _denied_through_wrappers(rules: Sequence[BashRule], segment: str) -> bool:
    bare = _unwrapped(command_words(segment))
    if bare == shell_tokens(segment):
        return False
    text = " ".join(bare)
    return any(r.decision == "deny" and _matches(r, text, bare) for r in rules)


def evaluate_bash(command: str, rules: Sequence[BashRule]) -> Decision | None:
    """The bash rule set's decision for `command`, or None (fall through)."""
    segments = split_bash_segments(command)
    if not segments or not rules:
        return None
    any_ask = False
    all_allowed = True
    for seg in segments:
        decision = _first(rules, seg)
        for inner in nested_commands(seg):
            if _first(rules, inner) == "deny" or _denied_through_wrappers(rules, inner):
                return "deny"
        if decision == "deny" or _denied_through_wrappers(rules, seg):
            return "deny"
        if decision == "ask":
            any_ask = True
        if decision != "allow" or risky_construct(seg) is not None:
            all_allowed = False
    if any_ask:
        return "ask"
    if has_bare_carriage_return(command):
        return None  # bash does not split on CR: never allow on a per-segment analysis
    return "allow" if all_allowed else None
