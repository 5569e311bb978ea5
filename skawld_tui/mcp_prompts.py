"""MCP server prompts typed as `/mcp__server__prompt args` (`skawld_core.mcp.prompts`)."""

from __future__ import annotations

from typing import Any

from skawld_core.mcp.prompts import fill_arguments, list_prompts, prompt_text

from .file_commands import CommandExpansionError


async def expand_mcp_prompt(manager: Any, name: str, args: str) -> str | None:
    """The text `/name args` sends, or None when no connected server has that prompt;
    raises `CommandExpansionError` for missing arguments or a server error."""
    prompts = {p.command: p for p in await list_prompts(manager)}
    prompt = prompts.get(name)
    if prompt is None:
        return None
    try:
        return await prompt_text(manager, prompt, fill_arguments(prompt, args))
    except ValueError as exc:
        raise CommandExpansionError(str(exc)) from None
    except Exception as exc:
        raise CommandExpansionError(f"/{name}: the MCP server {prompt.server!r} failed: {exc}") from None
