"""Claude Code's permission-rule strings, translated to skawld's rule models.

The syntax is the one of Claude Code's ``--allowedTools`` / ``--disallowedTools``
flags and of ``permissions.allow|deny|ask`` in ``.claude/settings.json``:

=============================  ==================================================
``Read`` / ``Bash`` / ``*``    every call of that tool (`ToolRule`)
``Bash(git status)``           exactly that command (a `BashRule` with an anchored regex)
``Bash(npm run test:*)``       commands starting with ``npm run test`` (token prefix)
``Bash(git * main)``           ``*`` anywhere is a wildcard
``Read(./src/**)``             a `PathRule` for every tool of the read family (Read, Glob, Grep…)
``Edit(src/**)``               a `PathRule` for every tool of the edit family (Edit, Write,
                               NotebookEdit…); ``Write(...)``: Write
``Read(//abs/path)``           an absolute path; ``~/...`` is the home directory;
                               ``/x`` and ``./x`` are relative to the project root
``mcp__server``                every tool of that MCP server (``mcp__server__*``)
``mcp__server__tool``          one MCP tool
``Skill(name)``                one skill; ``Task`` / ``Agent`` mean skawld's ``Subagent``
``WebFetch(domain:x.org)``     a `DomainRule`: WebFetch calls to that host (``*.x.org``: its
                               subdomains; ``*``: every host); ``WebFetch``: every call
``NotebookEdit(path)``         a `PathRule` for NotebookEdit (``Edit(...)`` covers it too)
=============================  ==================================================

`parse_claude_rules` splits a list of flag values on commas and whitespace outside
parentheses, then `parse_claude_rule` translates each rule; a malformed rule
raises `ValueError` naming it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import ValidationError

from .rules import BashRule, DomainRule, PathRule, RegexPattern, ToolRule
from .types import Decision

__all__ = ["ClaudeRules", "parse_claude_rule", "parse_claude_rules", "split_rule_list"]

Rule = ToolRule | PathRule | BashRule | DomainRule

_RULE = re.compile(r"^\s*([A-Za-z0-9_*.-]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)
# `Read(…)` and `Edit(…)` cover a family: every tool whose `PathPolicy` says so (the tool is asked)
_FAMILIES: dict[str, Literal["read", "edit"]] = {"Read": "read", "Edit": "edit", "MultiEdit": "edit"}
# the other rule names cover one tool
_ONE_TOOL = frozenset({"NotebookEdit", "Write", "Glob", "Grep"})
_ALIASES = {"Task": "Subagent", "Agent": "Subagent", "MultiEdit": "Edit", "KillBash": "KillShell"}
_NOT_APPLICABLE = frozenset({"WebSearch", "NotebookRead", "TodoWrite"})


@dataclass
class ClaudeRules:
    """The translated rules, in order, and notes about rules skawld cannot apply."""

    rules: list[Rule] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def dicts(self) -> list[dict[str, object]]:
        """The rules as the reference's JSON rule objects (the ``config.json`` shape)."""
        return [r.model_dump(exclude_none=True) for r in self.rules]


def split_rule_list(values: Iterable[str]) -> list[str]:
    """Split comma/space-separated rules, keeping ``Tool(a b, c)`` parentheses intact."""
    out: list[str] = []
    for value in values:
        depth, cur = 0, ""
        for ch in value:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth = max(0, depth - 1)
            if depth == 0 and (ch == "," or ch.isspace()):
                if cur.strip():
                    out.append(cur.strip())
                cur = ""
                continue
            cur += ch
        if cur.strip():
            out.append(cur.strip())
    return out


def _bash_rule(arg: str, decision: Decision) -> Rule:
    text = arg.strip()
    prefix = re.sub(r"(:\*|\s+\*)$", "", text).strip()
    if prefix != text and "*" not in prefix:
        return BashRule(pattern=prefix, decision=decision)
    parts = [re.escape(tok) for tok in re.split(r"\s+", text)]
    regex = r"\s+".join(parts).replace(r"\*", ".*")
    return BashRule(pattern=RegexPattern(regex=rf"^\s*{regex}\s*$"), decision=decision)


def _domain_rule(spec: str, arg: str, decision: Decision) -> DomainRule:
    domain = arg[len("domain:") :].strip() if arg.startswith("domain:") else ""
    if not domain:
        raise ValueError(f"bad tool spec {spec!r} (WebFetch takes domain:<host>)")
    try:
        return DomainRule(domains=[domain], decision=decision)
    except ValidationError:
        raise ValueError(f"bad tool spec {spec!r} ({domain!r} is not a host name, *.host or *)") from None


def _path_pattern(arg: str) -> str:
    text = arg.strip()
    if text.startswith("//"):
        return text[1:]
    if text.startswith("~"):
        return os.path.expanduser(text)
    if text.startswith("./"):
        return text[2:] or "**"
    if text.startswith("/"):
        return text[1:] or "**"
    return text


def parse_claude_rule(spec: str, decision: Decision) -> ClaudeRules:
    """Translate one rule string; raises `ValueError` for a malformed one."""
    out = ClaudeRules()
    m = _RULE.match(spec)
    if m is None or (m.group(2) is None and ("(" in spec or ")" in spec)):
        raise ValueError(f"bad tool spec {spec!r} (expected Tool or Tool(specifier))")
    name, arg = m.group(1), m.group(2)
    arg = None if arg is None or arg.strip() in ("", "*") else arg.strip()
    if name in _NOT_APPLICABLE:
        what = f"{name}({arg})" if arg else name
        out.notes.append(f"{what}: skawld has no {name} tool; the rule is not applicable")
        return out
    if name.startswith("mcp__"):
        if arg is not None:
            raise ValueError(f"bad tool spec {spec!r} (MCP rules take no specifier)")
        pattern = name if name.count("__") >= 2 else f"{name}__*"
        out.rules.append(ToolRule(tool=pattern, decision=decision))
        return out
    tool = _ALIASES.get(name, name)
    if arg is None:
        out.rules.append(ToolRule(tool=tool, decision=decision))
    elif name == "Bash":
        out.rules.append(_bash_rule(arg, decision))
    elif name == "WebFetch":
        out.rules.append(_domain_rule(spec, arg, decision))
    elif name in _FAMILIES:
        family = _FAMILIES[name]
        out.rules.append(PathRule(tools=[], family=family, paths=[_path_pattern(arg)], decision=decision))
    elif name in _ONE_TOOL:
        out.rules.append(PathRule(tools=[name], paths=[_path_pattern(arg)], decision=decision))
    elif tool == "Skill":
        out.rules.append(ToolRule(tool="Skill", arg=re.sub(r":\*$", "", arg), decision=decision))
    elif decision == "allow":  # cannot narrow it: widening an allow would be unsafe
        out.notes.append(f"{spec}: skawld cannot narrow {tool} by {arg!r}; the allow rule is not applied")
    else:
        out.rules.append(ToolRule(tool=tool, decision=decision))
        out.notes.append(f"{spec}: skawld cannot narrow {tool} by {arg!r}; the rule applies to every {tool} call")
    return out


def parse_claude_rules(values: Sequence[str], decision: Decision) -> ClaudeRules:
    """Translate comma/space-separated rule lists (flag values) into one `ClaudeRules`."""
    out = ClaudeRules()
    for spec in split_rule_list(values):
        one = parse_claude_rule(spec, decision)
        out.rules.extend(one.rules)
        out.notes.extend(one.notes)
    return out
