"""SessionStart matchers, as Claude Code applies them: a hook group's matcher is matched against
the start's source (`startup`, `resume`, `clear`, `compact`), and SessionStart runs again after
`/clear` (a new session marked "clear") and after a compaction (with the next prompt). Real shell
commands from Claude Code's nested format, and a Python hook with skawld's glob matcher."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from skawld_core.agent import Agent
from skawld_core.config_model import HookCommand
from skawld_core.hooks import HookContext, HookContinue, HookEntry, SessionStartInput
from skawld_core.hooks.claude_format import flatten_claude_hooks
from skawld_core.hooks.commands import command_hooks
from skawld_core.messages import Message
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider, reply

PRINT_SOURCE = shlex.join([sys.executable, "-c", "import json,sys; print('CTX-all-' + json.load(sys.stdin)['source'])"])
CLAUDE_HOOKS = {
    "SessionStart": [
        {"matcher": "startup", "hooks": [{"type": "command", "command": "echo CTX-startup"}]},
        {"matcher": "resume", "hooks": [{"type": "command", "command": "echo CTX-resume"}]},
        {"matcher": "clear|compact", "hooks": [{"type": "command", "command": "echo CTX-clear-or-compact"}]},
        {"hooks": [{"type": "command", "command": PRINT_SOURCE}]},  # no matcher: every source
    ]
}


class KeepLastMessage:
    """A compaction strategy that keeps only the last message (no model call)."""

    id = "keep-last"

    async def compact(self, messages: list[Message], **_kwargs: Any) -> list[Message]:
        return messages[-1:]


async def python_hook(inp: SessionStartInput, ctx: HookContext) -> HookContinue:
    return HookContinue(additional_context=f"PY-{inp.source}")


def hooks() -> dict[str, list[HookEntry]]:
    flat, notes = flatten_claude_hooks(CLAUDE_HOOKS, where="test")
    assert notes == [] and [e.get("matcher") for e in flat["SessionStart"]] == [
        "startup",
        "resume",
        "clear|compact",
        None,
    ]
    entries = command_hooks({event: [HookCommand(**e) for e in group] for event, group in flat.items()})
    entries["SessionStart"].append(HookEntry(hook=python_hook, matcher="comp*"))  # skawld's glob
    return entries


def contexts(provider: ScriptedProvider) -> list[str]:
    """The SessionStart context that went with the latest prompt."""
    sent = json.dumps([b.model_dump(mode="json") for b in provider.requests[-1].messages[-1].content])
    return sorted(set(re.findall(r"(?:CTX|PY)-[a-z|-]*[a-z]", sent)))


def make_agent(cwd: Path, provider: ScriptedProvider, **kwargs: Any) -> Agent:
    return Agent(provider=provider, model="test-model", tools=[], cwd=cwd, **kwargs)


async def run(session: Any, prompt: str) -> None:
    events = [e async for e in session.run(prompt)]
    assert events[-1].type == "result", events[-1]


async def test_each_source_runs_only_its_matched_hooks(tmp_path: Path) -> None:
    store = InMemorySessionStore()
    provider = ScriptedProvider([reply(str(n)) for n in range(6)])
    agent = make_agent(tmp_path, provider, hooks=hooks(), session_store=store, compaction=KeepLastMessage())
    session = await agent.session()

    await run(session, "one")
    assert contexts(provider) == ["CTX-all-startup", "CTX-startup"]
    await run(session, "two")  # the same session: no second start
    assert contexts(provider) == []

    assert await session.compact() is not None
    await run(session, "three")  # after a compaction: source compact
    assert contexts(provider) == ["CTX-all-compact", "CTX-clear-or-compact", "PY-compact"]
    await run(session, "four")
    assert contexts(provider) == []
    await agent.close()

    resumed_agent = make_agent(tmp_path, provider, hooks=hooks(), session_store=store)
    resumed = await resumed_agent.session(session.id)
    await run(resumed, "five")
    assert contexts(provider) == ["CTX-all-resume", "CTX-resume"]

    cleared = await resumed_agent.session()
    cleared.start_source = "clear"  # what /clear (and /new) does to the session it opens
    await run(cleared, "six")
    assert contexts(provider) == ["CTX-all-clear", "CTX-clear-or-compact"]
    await resumed_agent.close()
