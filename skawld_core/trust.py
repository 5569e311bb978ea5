"""What an untrusted project asks for: `TrustRequest`s, grouped by capability.

A cloned repository's files are untrusted until the user accepts them. Anything
in the project's ``config.json`` (or its instruction files) that can send data
somewhere, run code, read outside the project or widen permissions becomes a
`TrustRequest`; `describe_requests` renders them grouped for the trust prompt
(the app's modal, the plain mode and headless stderr show the same text).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .config_model import pointer

__all__ = [
    "CAPABILITY_TITLES",
    "CHANGED_MARK",
    "Capability",
    "TrustRequest",
    "config_requests",
    "describe_requests",
    "group_requests",
    "inside",
]

Capability = Literal["sends", "runs", "reads", "widens"]
CAPABILITY_TITLES: dict[Capability, str] = {
    "sends": "Sends data to",
    "runs": "Runs",
    "reads": "Reads",
    "widens": "Widens permissions",
}
CHANGED_MARK = "[new since you accepted] "
_STRICTNESS = {"off": 0, "auto": 1, "required": 2}
KEY_VARS = {"anthropic": "ANTHROPIC_API_KEY", "openai-chat": "OPENAI_API_KEY", "openai-responses": "OPENAI_API_KEY"}


@dataclass(frozen=True)
class TrustRequest:
    """One thing the project asks for: its capability, where (JSON pointer) and what."""

    capability: Capability
    pointer: str
    what: str
    changed: bool = False  # new or changed since the user accepted the project

    def __str__(self) -> str:
        text = f"{self.what} ({self.pointer})" if self.pointer else self.what
        return f"{CHANGED_MARK}{text}" if self.changed else text


def inside(path: Path, root: Path) -> bool:
    """True when `path` is `root` or below it (both resolved)."""
    return path == root or root in path.parents


def _resolve(value: str, base: Path) -> Path:
    return (base / Path(value).expanduser()).resolve()


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def config_requests(
    doc: Mapping[str, Any], *, file: Path, project_root: Path, lower: Mapping[str, Any]
) -> list[TrustRequest]:
    """The requests in one project `config.json` document (cleaned, paths not yet resolved).

    `project_root` is the working directory the project config belongs to;
    `lower` is the merge of the layers below (user file, defaults), used to tell a
    changed provider from the one the user already chose.
    """
    out: list[TrustRequest] = []
    add = out.append
    file_dir = file.parent
    provider = doc.get("provider", {})
    low_id = lower.get("provider", {}).get("id", "anthropic")
    pid = provider.get("id", low_id)
    if "id" in provider and provider["id"] != low_id:
        add(TrustRequest("sends", "/provider/id", f"the {pid} API instead of {low_id} (with your {KEY_VARS[pid]})"))
    if "apiKey" in provider:
        add(
            TrustRequest(
                "sends",
                "/provider/apiKey",
                f"the account of the API key written in {file}: your prompts and code would go there",
            )
        )
    if "baseURL" in provider:
        add(
            TrustRequest(
                "sends", "/provider/baseURL", f"{provider['baseURL']}, which receives your API key and prompts"
            )
        )
    if provider.get("headers"):
        add(
            TrustRequest(
                "sends",
                "/provider/headers",
                f"extra HTTP headers on every model request: {', '.join(provider['headers'])}",
            )
        )
    if provider.get("options"):
        add(TrustRequest("sends", "/provider/options", f"provider options {', '.join(provider['options'])}"))
    for name, server in doc.get("mcpServers", {}).items():
        if server.get("disabled") is True:
            continue
        ptr = pointer("mcpServers", name)
        if "url" in server and "command" not in server:
            add(TrustRequest("sends", ptr, f"the MCP server {name!r} at {server['url']}"))
            oauth = server.get("oauth") if isinstance(server.get("oauth"), Mapping) else {}
            if oauth.get("idTokenCommand"):
                what = f"the ID token command of the MCP server {name!r}: {_short(str(oauth['idTokenCommand']))}"
                add(TrustRequest("runs", pointer("mcpServers", name, "oauth", "idTokenCommand"), what))
            if oauth.get("privateKeyFile"):
                what = f"{oauth['privateKeyFile']} to sign client assertions for the MCP server {name!r}"
                add(TrustRequest("reads", pointer("mcpServers", name, "oauth", "privateKeyFile"), what))
        else:
            command = " ".join([server.get("command", ""), *map(str, server.get("args", []))])
            add(TrustRequest("runs", ptr, f"the MCP server {name!r}: {_short(command)}"))
    store = doc.get("sessionStore", {})
    if store.get("kind") == "postgres" or "dsn" in store:
        add(TrustRequest("sends", "/sessionStore", "your sessions to a PostgreSQL server"))
    for event, entries in doc.get("hooks", {}).items():
        for i, entry in enumerate(entries):
            add(TrustRequest("runs", pointer("hooks", event, i), f"the {event} hook: {_short(entry['command'])}"))
    if "systemPromptFile" in doc:
        target = _resolve(doc["systemPromptFile"], file_dir)
        if not inside(target, project_root):
            add(TrustRequest("reads", "/systemPromptFile", f"{target} into the prompt sent to the model"))
    for i, d in enumerate(doc.get("configDirs", [])):
        target = _resolve(d, file_dir)
        if not inside(target, project_root):
            add(TrustRequest("reads", pointer("configDirs", i), f"skills and agents from {target}"))
    if "databasePath" in store:
        target = _resolve(store["databasePath"], project_root)
        if not inside(target, project_root):
            add(TrustRequest("reads", "/sessionStore/databasePath", f"and writes the session database {target}"))
    if "cwd" in doc:
        target = _resolve(doc["cwd"], project_root)
        if not inside(target, project_root):
            add(TrustRequest("reads", "/cwd", f"and works in {target}, outside the project"))
    for i, d in enumerate(doc.get("additionalDirectories", [])):
        add(TrustRequest("widens", pointer("additionalDirectories", i), f"access to {_resolve(d, project_root)}"))
    mode = doc.get("permissions", {}).get("mode")
    if mode in ("acceptEdits", "yolo"):
        what = "every tool runs without asking" if mode == "yolo" else "file edits without asking"
        add(TrustRequest("widens", "/permissions/mode", f"permission mode {mode}: {what}"))
    for i, rule in enumerate(doc.get("permissions", {}).get("rules", [])):
        if rule.get("decision") == "allow":
            add(TrustRequest("widens", pointer("permissions", "rules", i), f"allow rule {_rule_text(rule)}"))
    passthrough = doc.get("env", {}).get("passthrough", [])
    if passthrough:
        add(TrustRequest("widens", "/env/passthrough", f"passes {', '.join(passthrough)} to commands"))
    out += _sandbox_requests(doc.get("sandbox"), lower.get("sandbox", "auto"))
    if doc.get("pricing"):
        # Prices of 0 would switch off the user's --max-budget-usd.
        add(TrustRequest("widens", "/pricing", f"custom model prices for {', '.join(sorted(doc['pricing']))}"))
    return out


def _sandbox_requests(sandbox: Any, low_box: Any) -> list[TrustRequest]:
    """What a project's ``sandbox`` section relaxes, against the layers below (`low_box`)."""
    out: list[TrustRequest] = []
    add = out.append
    mode_s = sandbox if isinstance(sandbox, str) else (sandbox or {}).get("mode")
    low_mode = low_box if isinstance(low_box, str) else low_box.get("mode", "auto")
    if mode_s is not None and _STRICTNESS[mode_s] < _STRICTNESS[low_mode]:
        what = (
            "turns the Bash sandbox off" if mode_s == "off" else f"relaxes the Bash sandbox from {low_mode} to {mode_s}"
        )
        add(TrustRequest("widens", "/sandbox" if isinstance(sandbox, str) else "/sandbox/mode", what))
    out += _network_requests(sandbox.get("network") if isinstance(sandbox, Mapping) else None)
    low_history = low_box.get("gitHistory") if isinstance(low_box, Mapping) else None
    if isinstance(sandbox, Mapping) and sandbox.get("gitHistory") == "visible" and low_history != "visible":
        what = "git history in the sandbox even when it holds files Read deny rules hide"
        add(TrustRequest("widens", "/sandbox/gitHistory", what))
    return out


def _network_requests(network: object) -> list[TrustRequest]:
    """What a config's `sandbox.network` opens: the whole network, host Unix sockets, domains."""
    out = []
    if network is True or (isinstance(network, Mapping) and network.get("enabled") is True):
        where = "/sandbox/network" if network is True else "/sandbox/network/enabled"
        out.append(TrustRequest("widens", where, "network access from sandboxed commands"))
    if not isinstance(network, Mapping):
        return out
    if network.get("allowAllUnixSockets") is True:
        what = "host Unix sockets (docker, ssh-agent, D-Bus) from sandboxed commands"
        out.append(TrustRequest("widens", "/sandbox/network/allowAllUnixSockets", what))
    domains = network.get("allowedDomains")
    if domains:
        what = f"network access from sandboxed commands to {', '.join(map(str, domains))}"
        out.append(TrustRequest("widens", "/sandbox/network/allowedDomains", what))
    return out


def _rule_text(rule: Mapping[str, Any]) -> str:
    kind = rule.get("kind")
    if kind == "bash":
        pattern = rule.get("pattern")
        return f"Bash({pattern['regex'] if isinstance(pattern, Mapping) else pattern})"
    if kind == "domain":
        return ", ".join(
            f"{tool}(domain:{d})" for tool in rule.get("tools") or ("WebFetch",) for d in rule.get("domains", [])
        )
    if kind == "path":
        return f"{'/'.join(rule.get('tools', ['Write', 'Edit']))}({', '.join(rule.get('paths', []))})"
    arg = rule.get("arg")
    return f"{rule.get('tool')}({arg})" if arg else str(rule.get("tool"))


def group_requests(requests: Sequence[TrustRequest]) -> list[tuple[str, list[TrustRequest]]]:
    """(title, requests) per capability, in a fixed order, empty groups left out."""
    return [
        (title, [r for r in requests if r.capability == cap])
        for cap, title in CAPABILITY_TITLES.items()
        if any(r.capability == cap for r in requests)
    ]


def describe_requests(requests: Sequence[TrustRequest]) -> str:
    """The grouped list shown by every trust prompt."""
    lines: list[str] = []
    for title, items in group_requests(requests):
        lines.append(f"  {title}:")
        lines.extend(f"    - {r}" for r in items)
    return "\n".join(lines)
