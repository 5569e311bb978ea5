"""`/hooks`: the hook commands in effect, each with the config file it comes from.

The merged config keeps no origin per hook, so each layer file that contributed
(`settings.sources`) is read again and a hook is attributed to the first file whose
JSON holds its command string (skawld's and Claude Code's settings formats alike);
a hook no file holds came from the command line (`--settings`, `--config`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .base import CommandHost, command


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def _file_strings(settings: Any) -> list[tuple[str, set[str]]]:
    out: list[tuple[str, set[str]]] = []
    for source in reversed(settings.sources):  # the highest layer first: it is the one in effect
        if source.path is None:
            continue
        try:
            doc = json.loads(Path(source.path).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        out.append((source.path, set(_strings(doc.get("hooks") if isinstance(doc, dict) else None))))
    return out


def hook_rows(settings: Any) -> list[tuple[str, str, str, str]]:
    """(event, matcher, command, source file) for every hook command in effect."""
    files = _file_strings(settings)
    rows = []
    for event, hooks in settings.hooks.items():
        for hook in hooks:
            source = next((path for path, strings in files if hook.command in strings), "command line")
            rows.append((event, hook.matcher or "*", hook.command, source))
    return rows


def _code(text: str) -> str:
    return "`" + text.replace("`", "'").replace("\n", " ") + "`"


def hooks_markdown(rows: list[tuple[str, str, str, str]]) -> str:
    """The rows grouped by event, one list item per hook. A list, not a table: a table's
    columns are cut to the terminal's width, and the event names with them."""
    lines: list[str] = []
    for event in dict.fromkeys(row[0] for row in rows):
        lines += ["", f"**{event}**", ""] if lines else [f"**{event}**", ""]
        lines += [f"- {_code(m)} → {_code(cmd)} — from {src}" for e, m, cmd, src in rows if e == event]
    return "\n".join(lines)


@command("hooks", "List the hook commands and the file each comes from")
async def hooks_command(host: CommandHost, args: str) -> None:
    settings = host.settings
    rows = hook_rows(settings) if settings is not None else []
    if not rows:
        await host.markdown(
            "No hooks are configured (`hooks` in `.skawld/config.json`, or Claude Code's settings files)."
        )
        return
    await host.markdown(hooks_markdown(rows))
