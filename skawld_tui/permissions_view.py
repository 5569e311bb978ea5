"""``/permissions``: the rules in effect, where each comes from, and removing remembered ones.

`rules_in_effect` lists the running engine's rules (allow, ask, deny) with the file
each one was read from (the user's and the project's config and settings files, the
project's ``.claude/settings.local.json`` even when it was created during this
session), then this session's "allow for this session" answers. Rules saved by
"always allow in this project" (and any other allow rule of the local settings
file) and session answers can be removed: `remove_entry` edits the file, the
record in ``~/.skawld/remembered-rules.json`` and the running engine together.

`run_permissions_command` is the plain mode's ``/permissions [remove <n>]``; the
app shows the same entries in `skawld_tui.app.screens.permissions.PermissionsScreen`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.permissions import PermissionEngine

    from .permission_broker import PermissionBroker

__all__ = [
    "PermissionsHost",
    "RuleEntry",
    "format_entries",
    "remove_entry",
    "rules_in_effect",
    "run_permissions_command",
]

Kind = Literal["allow", "ask", "deny"]
_ORDER = {"allow": 0, "ask": 1, "deny": 2}


@dataclass(frozen=True)
class RuleEntry:
    """One rule as `/permissions` shows it.

    `text` is the rule as written in its file (Claude Code syntax where it came from
    a settings file); `removable` marks entries `remove_entry` can take away; `rule`
    is the engine's rule object (None for a session answer).
    """

    decision: Kind
    text: str
    source: str
    removable: bool = False
    rule: Any = None
    session_key: tuple[str, ...] | None = None
    settings_file: Path | None = None


def _label(rule: Any) -> str:
    from skawld_core.permissions import BashRule, PathRule, ToolRule
    from skawld_core.permissions.bash_rules import rule_label

    if isinstance(rule, BashRule):  # a string pattern is a word prefix: Claude Code's `:*`
        return f"Bash({rule.pattern}:*)" if isinstance(rule.pattern, str) else f"Bash({rule_label(rule)})"
    if isinstance(rule, PathRule):
        return f"{'/'.join(rule.tools)}({', '.join(rule.paths)})"
    if isinstance(rule, ToolRule):
        return f"{rule.tool}({rule.arg})" if rule.arg else rule.tool
    return str(rule)


def _file_entries(path: Path) -> list[RuleEntry]:
    """The rules one config or settings file holds, as the loader translates them."""
    from skawld_core.permissions import parse_rule
    from skawld_core.permissions.claude_rules import parse_claude_rule

    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return []
    perms = doc.get("permissions") if isinstance(doc, dict) else None
    if not isinstance(perms, dict):
        return []
    out: list[RuleEntry] = []
    if path.parent.name == ".claude":
        for key in ("deny", "ask", "allow"):
            specs = perms.get(key)
            for spec in specs if isinstance(specs, list) else []:
                try:
                    rules = parse_claude_rule(spec, key).rules if isinstance(spec, str) else []
                except ValueError:
                    continue
                out += [RuleEntry(key, spec, str(path), rule=r, settings_file=path) for r in rules]
        return out
    raw_rules = perms.get("rules")
    for raw in raw_rules if isinstance(raw_rules, list) else []:
        try:
            rule = parse_rule(raw)
        except Exception:
            continue
        out.append(RuleEntry(rule.decision, _label(rule), str(path), rule=rule))
    return out


def _show(path: Path, root: Path) -> str:
    """A source file as shown: project-relative inside the project, ``~/…`` under home."""
    resolved = path.resolve()
    for base, prefix in ((root, ""), (Path.home().resolve(), "~/")):
        try:
            return prefix + resolved.relative_to(base).as_posix()
        except ValueError:
            continue
    return str(path)


def rules_in_effect(
    agent: Agent | PermissionEngine,
    broker: PermissionBroker | None = None,
    settings: Any = None,
    *,
    in_engine_order: bool = False,
) -> list[RuleEntry]:
    """The rules of a running agent (or an engine) with their sources: allow, then ask, then
    deny (or in the engine's evaluation order), then this session's answers."""
    from skawld_core.permissions import PermissionEngine
    from skawld_core.permissions.remembered import local_settings_path

    engine = agent if isinstance(agent, PermissionEngine) else agent.permissions
    local = local_settings_path(engine.project_root)
    paths = [Path(s.path) for s in getattr(settings, "sources", ()) if getattr(s, "path", None)]
    if local not in [p.resolve() for p in paths]:
        paths.append(local)
    candidates = [e for p in paths for e in _file_entries(p)]
    root = engine.project_root.resolve()
    candidates = [replace(e, source=_show(Path(e.source), root)) for e in candidates]
    out: list[RuleEntry] = []
    used: set[int] = set()
    for rule in engine.rules:
        hit = next((i for i, e in enumerate(candidates) if i not in used and e.rule == rule), None)
        if hit is None:
            out.append(RuleEntry(rule.decision, _label(rule), "command line", rule=rule))
            continue
        used.add(hit)
        entry = candidates[hit]
        removable = (
            entry.settings_file is not None and entry.settings_file.resolve() == local and entry.decision == "allow"
        )
        out.append(RuleEntry(entry.decision, entry.text, entry.source, removable, rule, None, entry.settings_file))
    if broker is not None:
        for key in sorted(broker.session_allowed):
            text = f"Bash({key[1]})" if key[0] == "Bash" and len(key) > 1 else key[0]
            out.append(RuleEntry("allow", text, "this session", True, session_key=key))
    return out if in_engine_order else sorted(out, key=lambda e: _ORDER[e.decision])


def rule_sources(engine: PermissionEngine, settings: Any) -> list[str]:
    """The source of each of `engine.rules`, in the engine's order (for `skawld permissions explain`)."""
    return [e.source for e in rules_in_effect(engine, None, settings, in_engine_order=True)]


def remove_entry(entry: RuleEntry, engine: PermissionEngine, broker: PermissionBroker | None = None) -> str:
    """Remove a removable entry everywhere it lives; returns what was done (raises `ValueError`)."""
    from skawld_core.permissions.remembered import forget_allow_rule

    if not entry.removable:
        raise ValueError(f"{entry.text} comes from {entry.source}; edit that file to change it")
    if entry.session_key is not None:
        if broker is not None:
            broker.session_allowed.discard(entry.session_key)
        return f"removed {entry.text} (this session)"
    forget_allow_rule(engine.project_root, entry.text, env=broker.env if broker is not None else None)
    if entry.rule is not None:
        engine.remove_rule(entry.rule)
    return f"removed {entry.text} from {entry.source}"


def format_entries(entries: Sequence[RuleEntry]) -> list[str]:
    """Numbered lines: ``  1. allow  Bash(npm run test:*)   .claude/settings.local.json  [removable]``."""
    if not entries:
        return ["no permission rules are in effect; the mode decides"]
    width = max(len(e.text) for e in entries)
    return [
        f"{n:>3}. {e.decision:<5}  {e.text:<{width}}  {e.source}{'  [removable]' if e.removable else ''}"
        for n, e in enumerate(entries, start=1)
    ]


class PermissionsHost(Protocol):
    """What `run_permissions_command` needs from the plain mode."""

    agent: Agent | None
    broker: PermissionBroker

    def out(self, text: str, *, style: str = "", depth: int = 0) -> Any: ...


async def run_permissions_command(host: PermissionsHost, args: str, settings: Any = None) -> None:
    """``/permissions`` (list) and ``/permissions remove <n>``, printing through `host.out`."""
    agent = host.agent
    if agent is None:
        host.out("the agent is not ready", style="yellow")
        return
    entries = rules_in_effect(agent, host.broker, settings)
    words = args.split()
    if not words:
        for line in format_entries(entries):
            host.out(line)
        if any(e.removable for e in entries):
            host.out("remove one with /permissions remove <n>", style="dim")
        return
    if words[0] != "remove" or len(words) != 2 or not words[1].isdigit():
        host.out("usage: /permissions [remove <n>]", style="yellow")
        return
    n = int(words[1])
    if not 1 <= n <= len(entries):
        host.out(f"no rule {n}: /permissions lists {len(entries)}", style="yellow")
        return
    try:
        host.out(remove_entry(entries[n - 1], agent.permissions, host.broker), style="dim")
    except (ValueError, OSError) as exc:
        host.out(str(exc), style="yellow")
    except Exception as exc:  # a malformed settings file: say which, keep the chat
        host.out(f"{type(exc).__name__}: {exc}", style="yellow")
