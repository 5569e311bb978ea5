"""MCP prompts and resources for the user: `/mcp__server__prompt args` and `@server:uri`.

A server's prompts become slash commands named like its tools (`mcp__<server>__<prompt>`);
the words typed after the command fill the prompt's declared arguments in order (the last one
takes the rest of the line), and the prompt's messages become the text sent to the model. A
`@server:uri` mention reads that resource and attaches its text. Both read the server fresh
each time, so a `list_changed` needs no restart.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .naming import qualified_name

if TYPE_CHECKING:
    from .manager import McpManager

__all__ = ["McpPrompt", "fill_arguments", "list_prompts", "prompt_text", "read_resource_text"]


@dataclass(frozen=True)
class McpPrompt:
    """One server prompt as a slash command."""

    command: str  # mcp__server__prompt
    server: str
    name: str
    description: str
    arguments: tuple[tuple[str, bool], ...]  # (name, required)

    @property
    def argument_hint(self) -> str:
        return " ".join(f"<{n}>" if required else f"[{n}]" for n, required in self.arguments)


async def list_prompts(manager: McpManager) -> list[McpPrompt]:
    """Every connected server's prompts (a server that fails to list them is skipped)."""
    out: list[McpPrompt] = []
    for server, conn in manager.connections.items():
        if conn.status != "ready":
            continue
        try:
            prompts = await conn.list_prompts()
        except Exception:
            continue
        for p in prompts:
            args = tuple((a.name, bool(a.required)) for a in (p.arguments or []))
            out.append(McpPrompt(qualified_name(server, p.name), server, p.name, p.description or "", args))
    return out


def fill_arguments(prompt: McpPrompt, line: str) -> dict[str, str]:
    """The typed words as the prompt's arguments, in order; raises `ValueError` naming a missing one."""
    try:
        words = shlex.split(line)
    except ValueError:
        words = line.split()
    names = [n for n, _ in prompt.arguments]
    values: dict[str, str] = {}
    for i, name in enumerate(names):
        if i < len(words):
            values[name] = " ".join(words[i:]) if i == len(names) - 1 else words[i]
    missing = [n for n, required in prompt.arguments if required and n not in values]
    if missing:
        raise ValueError(
            f"/{prompt.command} needs {', '.join(missing)} (usage: /{prompt.command} {prompt.argument_hint})"
        )
    return values


def _content_text(content: Any) -> str:
    kind = getattr(content, "type", None)
    if kind == "text":
        return str(content.text)
    if kind == "resource":
        resource = content.resource
        return str(getattr(resource, "text", None) or f"[resource {resource.uri}]")
    return f"[{kind} content]"


async def prompt_text(manager: McpManager, prompt: McpPrompt, arguments: dict[str, str]) -> str:
    """The prompt's messages, as the text of one user turn (assistant parts marked as such)."""
    result = await manager.connections[prompt.server].get_prompt(prompt.name, arguments)
    parts = []
    for message in result.messages:
        text = _content_text(message.content)
        parts.append(text if message.role == "user" else f"(assistant) {text}")
    return "\n\n".join(parts)


async def read_resource_text(manager: McpManager, server: str, uri: str) -> str:
    """The text of a resource (binary parts named, not inlined); raises on a failure."""
    result = await manager.connections[server].read_resource(uri)
    parts = []
    for item in result.contents:
        text = getattr(item, "text", None)
        parts.append(text if isinstance(text, str) else f"[binary {getattr(item, 'mime_type', None) or 'data'}]")
    return "\n".join(parts)
