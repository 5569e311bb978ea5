"""``skawld permissions explain "<command or tool call>"``: why a call would be allowed, asked or denied.

``skawld permissions list`` shows the rules a run would use with their files; ``skawld permissions
remove <n>`` removes a remembered one (see `skawld_tui.permissions_view`).

The input is a shell command (explained as a Bash call) or a tool call:
``Read(./.env)``, ``Write(src/x.py)``, ``Skill(deploy)``, or JSON
``{"tool": "Read", "input": {"file_path": ".env"}}``. Text starting with ``{`` is
JSON only when it looks like a JSON object (``{`` then ``"`` or ``}``) or
``--input-json`` says so; otherwise it is a shell command (``{ ls; }`` is a group). The config is loaded as a
run in that directory would load it (user, project, environment layers), and
the call is decided by the same `PermissionEngine`. The output names the
decision, the rule that made it and the file the rule came from, and for Bash
the simple commands the parser found, wrappers and inline scripts unwrapped.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from ..exit_codes import EXIT_CONFIG, EXIT_USAGE
from .subcommand import new_app

app = new_app("Explain permission decisions.")


_CALL = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\((.*)\)\s*$", re.DOTALL)
# The input field a `Tool(arg)` shorthand fills, and placeholders that make the input valid.
_SHORTHAND: dict[str, tuple[str, dict[str, Any]]] = {
    "Bash": ("command", {}),
    "Read": ("file_path", {}),
    "Write": ("file_path", {"content": ""}),
    "Edit": ("file_path", {"old_string": "a", "new_string": "b"}),
    "Glob": ("path", {"pattern": "*"}),
    "Grep": ("path", {"pattern": "x"}),
    "Skill": ("skill", {}),
}


def _fail(message: str, code: int) -> typer.Exit:
    sys.stderr.write(f"skawld: {message}\n")
    return typer.Exit(code)


@dataclass(frozen=True)
class _Call:
    tool: str
    input: dict[str, Any]


_JSON_START = re.compile(r'\{\s*["}]')


def parse_call(text: str, *, as_json: bool = False) -> _Call:
    """A tool call from the command line's text; a shell command when it is not one.
    `as_json` reads it as a JSON tool call whatever it looks like."""
    stripped = text.strip()
    if as_json or _JSON_START.match(stripped):
        try:
            doc = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise ValueError(f"the tool call is not valid JSON: {exc.msg} at position {exc.pos}") from None
        if not isinstance(doc, dict):
            raise ValueError('a JSON tool call must be an object like {"tool": "Read", "input": {...}}')
        tool = doc.get("tool", doc.get("tool_name", doc.get("name")))
        inp = doc.get("input", {})
        if not isinstance(tool, str) or not tool:
            raise ValueError('a JSON tool call needs "tool": the tool name')
        if not isinstance(inp, dict):
            raise ValueError('"input" of a JSON tool call must be an object')
        return _Call(tool, inp)
    m = _CALL.match(text)
    if m is not None and m.group(1) in _SHORTHAND:
        field, extra = _SHORTHAND[m.group(1)]
        return _Call(m.group(1), {field: m.group(2), **extra})
    if not stripped:
        raise ValueError("nothing to explain: pass a shell command or a tool call like 'Read(./.env)'")
    return _Call("Bash", {"command": text})


def _rule_origins(settings: Any, disallowed: int) -> list[str | None]:
    """Where each of `settings.permission_rules` came from (None where it cannot be told).

    The loader concatenates ``permissions.rules`` layer by layer, lowest first, after
    the ``--disallowed-tools`` rules; counting each layer file's rules gives the origin.
    """
    origins: list[str | None] = ["command line (--disallowed-tools)"] * disallowed
    for source in settings.sources:
        if source.path is None:
            continue
        try:
            doc = json.loads(Path(source.path).read_text(encoding="utf-8"))
            rules = doc.get("permissions", {}).get("rules", [])
        except (OSError, ValueError, AttributeError):
            rules = []
        origins += [f"{source.path} ({source.source} config)"] * (len(rules) if isinstance(rules, list) else 0)
    if len(origins) != len(settings.permission_rules):
        return [None] * len(settings.permission_rules)
    return origins


def _load(cwd: str | None, mode: str | None, config: str | None, no_user_config: bool) -> tuple[Any, list[str]]:
    from skawld_core.config import UntrustedProjectConfigError
    from skawld_core.errors import ConfigError
    from skawld_core.settings import CliOptions, resolve_settings

    notes: list[str] = []
    opts = CliOptions(cwd=cwd, permission_mode=mode, config=config, no_user_config=no_user_config)
    try:
        try:
            return resolve_settings(opts), notes
        except UntrustedProjectConfigError as exc:
            notes.append(f"{exc.path} is not trusted yet; a run would stop and ask first. Explained as if accepted.")
            trusted = CliOptions(
                cwd=cwd, permission_mode=mode, config=config, no_user_config=no_user_config, accept_project_config=True
            )
            return resolve_settings(trusted), notes
    except ConfigError as exc:
        raise _fail(str(exc), EXIT_CONFIG) from None
    except ValueError as exc:
        raise _fail(str(exc), EXIT_USAGE) from None


def explain_call(settings: Any, call: _Call) -> dict[str, Any]:
    """The explanation of `call` under `settings`, as a JSON-ready dict."""
    from skawld_core.errors import ConfigError, ToolInputError
    from skawld_core.permissions import BashRule, PendingToolCall, PermissionEngine
    from skawld_core.permissions.bash_rules import analyze_bash, rule_label
    from skawld_core.permissions.shell_analysis import analyze_shell
    from skawld_core.tools import default_tools

    tools = {t.name: t for t in default_tools(background_shells=True, web_fetch=True, notebook_edit=True)}
    tool = tools.get(call.tool)
    inp = dict(call.input)
    scope = tool.scope if tool is not None else "exec"
    summary = f"{call.tool} {json.dumps(inp, ensure_ascii=False)}"
    if tool is not None:
        try:
            value = tool.validate(inp)
        except ToolInputError as exc:
            raise _fail(f"invalid {call.tool} input: {exc}", EXIT_USAGE) from None
        inp, summary = tool.dump_input(value), tool.summarize(value)
    try:
        engine = PermissionEngine(
            mode=settings.permission_mode, rules=settings.permission_rules, project_root=settings.cwd
        )
    except ConfigError as exc:
        raise _fail(str(exc), EXIT_CONFIG) from None
    pending = PendingToolCall(
        tool_name=call.tool,
        tool_use_id="explain",
        input=inp,
        summary=summary,
        scope=scope,
        cwd=settings.cwd,
        path_policy=tool.path_policy if tool is not None else None,
    )
    decision = engine.evaluate(pending)
    rule = engine.deciding_rule(pending)
    rules = list(engine.rules)
    origins = _rule_origins(settings, 0)  # explain takes no --disallowed-tools
    if rules and all(o is None for o in origins):  # Claude Code settings files count rules differently
        from ..permissions_view import rule_sources  # lazy: only what this action uses

        origins = list(rule_sources(engine, settings))
    out: dict[str, Any] = {
        "tool": call.tool,
        "input": inp,
        "mode": engine.mode,
        "decision": decision.behavior,
        "reason": decision.reason,
        "rule": None,
        "rule_label": None,
        "source": None,
    }
    deciding = [rule] if rule is not None else []
    if call.tool == "Bash" and isinstance(inp.get("command"), str):
        start = _index(rules, rule) if isinstance(rule, BashRule) else len(rules)
        bash_rules = [r for r in rules[start:] if isinstance(r, BashRule)]
        verdict = analyze_bash(inp["command"], bash_rules)
        analysis = verdict.analysis or analyze_shell(inp["command"])
        if isinstance(rule, BashRule):
            deciding = list(verdict.rules)
            out["reason"] = decision.reason if decision.behavior == "deny" and verdict.unknown else verdict.reason
        out["commands"] = [
            {"words": list(c.values), "via": c.via or None, "nested": not c.top and not c.derived}
            for c in analysis.commands
        ]
        out["not_allowable"] = analysis.blocker
        out["unknown"] = analysis.unknown
        out["network"] = _network(settings, engine, [w for c in analysis.commands for w in c.values])
    if deciding:
        out["rule"] = [r.model_dump(mode="json", exclude_none=True) for r in deciding]
        out["source"] = [origins[_index(rules, r)] for r in deciding]
        out["rule_label"] = [rule_label(r) if isinstance(r, BashRule) else _label(r) for r in deciding]
    else:
        out["reason"] = out["reason"] or f"no rule decides: the {engine.mode} mode's default for {scope} tools"
    return out


def _network(settings: Any, engine: Any, words: list[str]) -> dict[str, Any]:
    """What the sandbox's network allows for the hosts the command's URLs name."""
    from skawld_core.permissions.domains import url_host
    from skawld_core.sandbox import ShellPolicy
    from skawld_core.sandbox.proxy import refusal_text

    policy = ShellPolicy(sandbox=settings.sandbox, permissions=engine)
    box = policy.settings
    domains = policy.domains
    if box.mode == "off" or box.network:
        return {"mode": "off" if box.mode == "off" else "on", "allowed": [], "denied": [], "hosts": []}
    hosts = []
    urls = (url_host(w) for w in words if "://" in w)  # `curl https://x.y/z` names x.y
    for host in dict.fromkeys(h for h in urls if h):
        verdict = domains.verdict(host)
        hosts.append(
            {"host": host, "verdict": verdict, "why": None if verdict == "allow" else refusal_text(host, verdict)}
        )
    mode = "domains" if domains.enabled else "none"
    return {"mode": mode, "allowed": list(domains.allowed), "denied": list(domains.denied), "hosts": hosts}


def _network_lines(net: dict[str, Any]) -> list[str]:
    if net["mode"] == "off":
        return ["network:  the sandbox is off (the host's network)"]
    if net["mode"] == "on":
        return ["network:  on (sandbox.network: true)"]
    if net["mode"] == "none":
        lines = ["network:  none in the sandbox (no sandbox.network.allowedDomains)"]
    else:
        denied = f"; denied: {', '.join(net['denied'])}" if net["denied"] else ""
        lines = [f"network:  only {', '.join(net['allowed'])} through skawld's proxy{denied}"]
    for h in net["hosts"]:
        lines.append(f"  {h['host']}: " + ("allowed" if h["verdict"] == "allow" else f"refused: {h['why']}"))
    return lines


def _index(rules: list[Any], rule: Any) -> int:
    """The position of this very rule object (equal rules from two files stay apart)."""
    return next(i for i, r in enumerate(rules) if r is rule)


def _label(rule: Any) -> str:
    d = rule.model_dump(mode="json", exclude_none=True)
    d.pop("decision", None)
    kind = d.pop("kind", "")
    return f"{kind} " + json.dumps(d, ensure_ascii=False)


def _print_text(result: dict[str, Any], notes: list[str]) -> None:
    lines = [f"decision: {result['decision']}"]
    if result.get("rule"):
        for label, rule, source in zip(result["rule_label"], result["rule"], result["source"], strict=True):
            lines.append(f"rule:     {label} ({rule['decision']})")
            lines.append(f"from:     {source or '(origin unknown)'}")
    else:
        lines.append("rule:     none")
    if result.get("reason"):
        lines.append(f"reason:   {result['reason']}")
    if "commands" in result:
        lines.append("commands:")
        for c in result["commands"]:
            tags = [f"via {c['via']}"] if c["via"] else []
            if c["nested"]:
                tags.append("nested")
            words = " ".join(_show(w) for w in c["words"])
            lines.append(f"  {words}" + (f"   [{', '.join(tags)}]" if tags else ""))
        if result.get("not_allowable"):
            lines.append(f"never allowed by a rule alone: {result['not_allowable']}")
        if result.get("unknown"):
            lines.append(f"not known before it runs: {result['unknown']}")
    if "network" in result:
        lines += _network_lines(result["network"])
    for note in notes:
        sys.stderr.write(f"skawld: note: {note}\n")
    sys.stdout.write("\n".join(lines) + "\n")


def _show(word: str) -> str:
    import shlex

    return shlex.quote(word) if word else "''"


@app.command("explain")
def explain(
    call: Annotated[str, typer.Argument(help="A shell command, or a tool call like 'Read(./.env)' or JSON.")],
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")] = False,
    input_json: Annotated[
        bool, typer.Option("--input-json", help='Read CALL as a JSON tool call ({"tool": ..., "input": {...}}).')
    ] = False,
    cwd: Annotated[str | None, typer.Option("--cwd", help="Project directory (default: current).")] = None,
    permission_mode: Annotated[
        str | None, typer.Option("--permission-mode", help="default | acceptEdits | yolo.")
    ] = None,
    config: Annotated[str | None, typer.Option("--config", help="Project config file.")] = None,
    no_user_config: Annotated[bool, typer.Option("--no-user-config", help="Ignore ~/.skawld/config.json.")] = False,
) -> None:
    """Show the decision for a call, the rule that made it, the file of that rule, and the parsed commands."""
    try:
        parsed = parse_call(call, as_json=input_json)
    except ValueError as exc:
        raise _fail(str(exc), EXIT_USAGE) from None
    settings, notes = _load(cwd, permission_mode, config, no_user_config)
    result = explain_call(settings, parsed)
    if json_out:
        for note in notes:
            sys.stderr.write(f"skawld: note: {note}\n")
        sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    else:
        _print_text(result, notes)


def _engine(settings: Any) -> Any:
    from skawld_core.errors import ConfigError
    from skawld_core.permissions import PermissionEngine

    try:
        return PermissionEngine(
            mode=settings.permission_mode, rules=settings.permission_rules, project_root=settings.cwd
        )
    except ConfigError as exc:
        raise _fail(str(exc), EXIT_CONFIG) from None


@app.command("list")
def list_rules(
    json_out: Annotated[bool, typer.Option("--json", help="One JSON array on stdout.")] = False,
    cwd: Annotated[str | None, typer.Option("--cwd", help="Project directory (default: current).")] = None,
    config: Annotated[str | None, typer.Option("--config", help="Project config file.")] = None,
    no_user_config: Annotated[bool, typer.Option("--no-user-config", help="Ignore ~/.skawld/config.json.")] = False,
) -> None:
    """The rules a run here would use (allow, ask, deny), each with the file it comes from."""
    from ..permissions_view import format_entries, rules_in_effect  # lazy: only what this action uses

    settings, notes = _load(cwd, None, config, no_user_config)
    entries = rules_in_effect(_engine(settings), None, settings)
    for note in notes:
        sys.stderr.write(f"skawld: note: {note}\n")
    if json_out:
        rows = [{"decision": e.decision, "rule": e.text, "source": e.source, "removable": e.removable} for e in entries]
        sys.stdout.write(json.dumps(rows, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write("\n".join(format_entries(entries)) + "\n")


@app.command("remove")
def remove_rule(
    number: Annotated[int, typer.Argument(help="The rule's number in `skawld permissions list`.")],
    cwd: Annotated[str | None, typer.Option("--cwd", help="Project directory (default: current).")] = None,
    config: Annotated[str | None, typer.Option("--config", help="Project config file.")] = None,
    no_user_config: Annotated[bool, typer.Option("--no-user-config", help="Ignore ~/.skawld/config.json.")] = False,
) -> None:
    """Remove a remembered rule (an allow rule of .claude/settings.local.json)."""
    from skawld_core.errors import ConfigError

    from ..permissions_view import remove_entry, rules_in_effect  # lazy: only what this action uses

    settings, _notes = _load(cwd, None, config, no_user_config)
    entries = rules_in_effect(_engine(settings), None, settings)
    if not 1 <= number <= len(entries):
        raise _fail(f"no rule {number}: `skawld permissions list` shows {len(entries)}", EXIT_USAGE)
    try:
        done = remove_entry(entries[number - 1], _engine(settings))
    except ValueError as exc:
        raise _fail(str(exc), EXIT_USAGE) from None
    except (ConfigError, OSError) as exc:
        raise _fail(str(exc), EXIT_CONFIG) from None
    sys.stdout.write(done + "\n")


@app.callback()
def _root() -> None:
    """Explain permission decisions."""
