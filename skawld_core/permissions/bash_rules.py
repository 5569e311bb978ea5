"""Evaluate the bash rule set against a command (reference §2.8, hardened).

For each segment, the first matching rule decides. Any deny segment denies the
whole command; an explicit ask segment makes the command ask; the command is
allowed only when every segment is allowed. Otherwise there is no decision.

Hardening beyond the reference:

- a segment with a risky construct (`risky_construct`) is never allowed, nor
  is a command with an unquoted CR (the reference splits on it, bash does not);
- deny rules also see the commands inside `$(…)`, backticks and `<(…)`, a
  segment's command with redirections, wrappers and reserved words stripped
  (`>log rm`, `FOO=1 rm`, `(rm`, `/bin/rm`, `command rm`, `xargs -0 rm`,
  `then rm`, `f() { rm`, …) and the scripts of `eval …` and `sh -c '…'`.
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
_DURATION = re.compile(r"[0-9.]+[smhd]?")
# Words after which a new command starts (reserved words, grouping).
_COMMAND_STARTERS = frozenset({"!", "{", "(", "if", "then", "else", "elif", "do", "while", "until", "time", "coproc"})
# Commands that run their arguments as a command (leading options are skipped too).
_WRAPPERS = frozenset(
    {"command", "builtin", "exec", "nohup", "env", "sudo", "doas", "nice", "xargs", "timeout", "stdbuf", "setsid"}
)
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
_MAX_DEPTH = 4


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


def _unwrapped(words: list[str]) -> list[str]:
    """Words with leading assignments, reserved words, wrappers (and their options) stripped;
    the command name reduced to its basename."""
    out = list(words)
    while out:
        head = out[0]
        if _ASSIGNMENT.match(head) or head in _COMMAND_STARTERS:
            out.pop(0)
        elif os.path.basename(head) in _WRAPPERS:
            out.pop(0)
            while out and out[0].startswith("-") and len(out[0]) > 1:
                out.pop(0)
            if os.path.basename(head) == "timeout" and out and _DURATION.fullmatch(out[0]):
                out.pop(0)
        elif head[:1] in "({" and len(head) > 1:
            out[0] = head[1:]
        else:
            break
    if out and "/" in out[0]:
        out[0] = os.path.basename(out[0]) or out[0]
    return out


def _inline_script(words: list[str]) -> str | None:
    """The script of `eval …`, `sh -c '…'`, `bash -lc '…'`, or None."""
    if words[0] == "eval":
        return " ".join(words[1:])
    if words[0] in _SHELLS:
        for i in range(1, len(words)):
            w = words[i]
            if w.startswith("-") and not w.startswith("--") and "c" in w[1:]:
                return words[i + 1] if i + 1 < len(words) else None
    return None


def _first(rules: Sequence[BashRule], segment: str) -> Decision | None:
    tokens = shell_tokens(segment)
    for rule in rules:
        if _matches(rule, segment, tokens):
            return rule.decision
    return None


def _denied_deep(rules: Sequence[BashRule], segment: str, depth: int) -> bool:
    """Whether a deny rule matches the real command(s) of a segment.

    Looks past redirections, assignments, wrappers and reserved words (every
    command start in the segment), and into `eval`/`sh -c` scripts. The plain
    token list itself is left to first-match-wins.
    """
    deny_rules = [r for r in rules if r.decision == "deny"]
    if not deny_rules:
        return False
    raw = shell_tokens(segment)
    words = command_words(segment)
    starts = [0, *(i for i in range(1, len(words)) if words[i - 1] in _COMMAND_STARTERS)]
    for start in starts:
        bare = _unwrapped(words[start:])
        if not bare:
            continue
        if bare != raw and any(_matches(r, " ".join(bare), bare) for r in deny_rules):
            return True
        script = _inline_script(bare)
        if script is not None and depth < _MAX_DEPTH and evaluate_bash(script, deny_rules, _depth=depth + 1) == "deny":
            return True
    return False


def evaluate_bash(command: str, rules: Sequence[BashRule], *, _depth: int = 0) -> Decision | None:
    """The bash rule set's decision for `command`, or None (fall through)."""
    segments = split_bash_segments(command)
    if not segments or not rules:
        return None
    any_ask = False
    all_allowed = True
    for seg in segments:
        decision = _first(rules, seg)
        for inner in nested_commands(seg):
            if _first(rules, inner) == "deny" or _denied_deep(rules, inner, _depth):
                return "deny"
        if decision == "deny" or _denied_deep(rules, seg, _depth):
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
