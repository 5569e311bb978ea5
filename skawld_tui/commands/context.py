"""`/context`: what fills the model's context window, in (estimated) tokens."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..transcript_model import format_tokens
from .base import CommandHost, command

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.session import Session

INSTRUCTIONS_PREFIX = "User-provided instructions:"  # the block `build_system_blocks` adds
BAR_WIDTH = 40


@dataclass(frozen=True)
class ContextUse:
    """Estimated tokens per part of the next request, against the model's window."""

    system: int
    tools: int
    instructions: int
    messages: int
    window: int
    reported: int | None  # the input tokens the provider reported for the last request

    @property
    def used(self) -> int:
        return self.system + self.tools + self.instructions + self.messages

    @property
    def free(self) -> int:
        return max(self.window - self.used, 0)


def measure(agent: Agent, session: Session) -> ContextUse:
    """Estimate the parts of the request the session would send now (about 4 characters a token)."""
    from skawld_core.providers.openai_compat import estimate_tokens

    system = instructions = 0
    for block in session.system_blocks():
        if block.text.startswith(INSTRUCTIONS_PREFIX):
            instructions += estimate_tokens(len(block.text))
        else:
            system += estimate_tokens(len(block.text))
    schemas = [s.model_dump() for s in session.tools.schemas()]
    tools = estimate_tokens(len(json.dumps(schemas))) if schemas else 0
    messages = sum(estimate_tokens(len(m.model_dump_json(exclude_none=True))) for m in session.provider_view)
    reported = session.last_usage.input_tokens if session.last_usage is not None else None
    return ContextUse(system, tools, instructions, messages, agent.provider.context_window(session.model), reported)


def context_markdown(use: ContextUse, model: str) -> str:
    """A bar and a table of the parts (percentages of the window)."""

    window = use.window or 1
    parts = [
        ("system prompt", use.system, "▓"),
        ("tool definitions", use.tools, "▒"),
        ("instructions (AGENTS.md, CLAUDE.md)", use.instructions, "░"),
        ("messages", use.messages, "█"),
    ]
    bar = ""
    for _, tokens, mark in parts:
        bar += mark * round(BAR_WIDTH * tokens / window)
    bar = bar[:BAR_WIDTH].ljust(BAR_WIDTH, "·")
    pct = 100 * use.used / window
    rows = [f"| {label} | {mark} | {format_tokens(t)} | {100 * t / window:.1f}% |" for label, t, mark in parts]
    rows.append(f"| free | · | {format_tokens(use.free)} | {100 * use.free / window:.1f}% |")
    lines = [
        f"**Context** · `{model}` · {format_tokens(use.used)} of {format_tokens(use.window)} tokens ({pct:.0f}%)",
        "",
        f"`{bar}`",
        "",
        "| part | | tokens | of window |",
        "|---|---|--:|--:|",
        *rows,
        "",
        "Estimated at about 4 characters a token"
        + (f"; the last request used {format_tokens(use.reported)} input tokens." if use.reported else "."),
    ]
    return "\n".join(lines)


@command("context", "What fills the context window: system, tools, instructions, messages, free")
async def context_command(host: CommandHost, args: str) -> None:
    if host.agent is None or host.session is None:
        return
    use = measure(host.agent, host.session)
    await host.markdown(context_markdown(use, host.session.model))
