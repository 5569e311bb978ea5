"""Evaluate the bash rule set against a command (reference §2.8, on a real syntax tree).

The command is analyzed by `analyze_shell` (tree-sitter-bash). Then:

1. **deny**: a simple command written in the command (anywhere: top level,
   substitutions, subshells, function bodies…) whose first matching rule
   denies, or a command found through a wrapper or inline script (`sudo rm`,
   `bash -c 'rm'`, `find -exec rm`) that any deny rule matches;
2. **ask**: likewise for ask rules;
3. **ask, unknown**: deny rules exist and some command cannot be known before
   it runs (`$c`, `$(echo rm)`, `/bin/r?`, `bash script.sh`) or may match a
   deny rule through an argument only known at run time; the engine refuses
   such a command where nobody can be asked (yolo);
4. **allow**: the whole tree is lists/pipelines of simple commands of literal
   words with harmless redirections (`analysis.blocker` is None), and every
   one of them is allowed by its first matching rule;
5. otherwise no decision (the mode decides).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .rules import BashRule
from .shell_analysis import ShellAnalysis, SimpleCommand, analyze_shell
from .types import Decision

__all__ = ["BashVerdict", "analyze_bash", "evaluate_bash", "rule_label"]


@dataclass(frozen=True)
class BashVerdict:
    """The bash rule set's verdict on one command.

    `rules` are the rules that decided (one per command for an allow); `reason`
    says why in words; `unknown` marks an "ask" that must be refused where
    nobody can be asked, because the analyzer cannot see what would run.
    """

    decision: Decision | None
    rules: tuple[BashRule, ...] = ()
    reason: str | None = None
    unknown: bool = False
    analysis: ShellAnalysis | None = None

    @property
    def rule(self) -> BashRule | None:
        """The first deciding rule."""
        return self.rules[0] if self.rules else None


@lru_cache(maxsize=512)
def _compile(regex: str) -> re.Pattern[str] | None:
    try:
        return re.compile(regex)
    except (re.error, RecursionError, OverflowError):
        return None


@lru_cache(maxsize=512)
def _pattern_tokens(pattern: str) -> tuple[str, ...]:
    """A string pattern's words, quotes removed; every word counts (`FOO=1 make` stays narrow)."""
    import shlex

    try:
        return tuple(shlex.split(pattern, comments=True))
    except ValueError:  # unbalanced quotes
        return tuple(pattern.split())


def rule_label(rule: BashRule) -> str:
    """A rule's pattern as shown to people: `git status` or `/^npm test$/`."""
    return rule.pattern if isinstance(rule.pattern, str) else f"/{rule.pattern.regex}/"


def _matches(rule: BashRule, cmd: SimpleCommand) -> bool:
    if isinstance(rule.pattern, str):
        pattern = _pattern_tokens(rule.pattern)
        return 0 < len(pattern) <= len(cmd.words) and cmd.values[: len(pattern)] == pattern
    rx = _compile(rule.pattern.regex)
    return rx is not None and rx.search(cmd.source.strip()) is not None


def _may_match(rule: BashRule, cmd: SimpleCommand) -> bool:
    """Whether a string pattern could match once the command's dynamic words are known."""
    if not isinstance(rule.pattern, str):
        return False
    for index, token in enumerate(_pattern_tokens(rule.pattern)):
        if index >= len(cmd.words):
            return cmd.open_ended
        word = cmd.words[index]
        if not word.literal:
            return True
        if word.value != token:
            return False
    return False  # a full match is a match, handled elsewhere


def _first(rules: Sequence[BashRule], cmd: SimpleCommand) -> BashRule | None:
    return next((r for r in rules if _matches(r, cmd)), None)


def _hit(rules: Sequence[BashRule], cmd: SimpleCommand, decision: Decision) -> BashRule | None:
    """The rule that gives `cmd` this decision: the first match as written, any match when derived."""
    if cmd.derived:
        return next((r for r in rules if r.decision == decision and _matches(r, cmd)), None)
    first = _first(rules, cmd)
    return first if first is not None and first.decision == decision else None


def _describe(cmd: SimpleCommand) -> str:
    text = " ".join(cmd.values)
    return f"`{text}` (via {cmd.via})" if cmd.via else f"`{text}`"


def analyze_bash(command: str, rules: Sequence[BashRule]) -> BashVerdict:
    """The bash rule set's verdict on `command` (see the module docstring)."""
    if not rules:
        return BashVerdict(None)
    analysis = analyze_shell(command)
    cmds = analysis.commands
    if not cmds and analysis.unknown is None:
        return BashVerdict(None, analysis=analysis)
    for decision in ("deny", "ask"):
        for cmd in cmds:
            rule = _hit(rules, cmd, decision)
            if rule is not None:
                reason = f"{_describe(cmd)} matches {decision} rule `{rule_label(rule)}`"
                return BashVerdict(decision, (rule,), reason, analysis=analysis)
    deny_rules = [r for r in rules if r.decision == "deny"]
    if deny_rules:
        if analysis.unknown is not None:
            return BashVerdict("ask", (), f"deny rules are set and {analysis.unknown}", True, analysis)
        for cmd in cmds:
            for rule in deny_rules:
                if _may_match(rule, cmd):
                    reason = f"{_describe(cmd)} may match deny rule `{rule_label(rule)}` once its arguments are known"
                    return BashVerdict("ask", (rule,), reason, True, analysis)
    if analysis.blocker is None:
        allowed: list[BashRule] = []
        for cmd in cmds:
            if cmd.derived:
                continue
            rule = _first(rules, cmd)
            if rule is None or rule.decision != "allow":
                break
            if rule not in allowed:
                allowed.append(rule)
        else:
            reason = "every command is allowed: " + ", ".join(f"`{rule_label(r)}`" for r in allowed)
            return BashVerdict("allow", tuple(allowed), reason, analysis=analysis)
    return BashVerdict(None, analysis=analysis)


def evaluate_bash(command: str, rules: Sequence[BashRule]) -> Decision | None:
    """The bash rule set's decision for `command`, or None (fall through)."""
    return analyze_bash(command, rules).decision
