"""`@path` mentions: the files a prompt names, attached the way Claude Code does.

Each `@path` naming a file is read with the Read tool through the session's
permission engine (`session.run_tool`): a Read deny rule keeps it out, a path
outside the project asks like the model's Read would, and the file-read tracker
learns the file (the model may edit it without reading it again). The model
gets the Read call and its result as a `<system-reminder>` context block before
the prompt; the prompt itself keeps the `@path` as typed. Mentions of image
files become image attachments instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from skawld_core.system_prompt import system_reminder

from .images import IMAGE_SUFFIXES, ImageAttachment, ImageError, load_image

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.events import Event
    from skawld_core.session import Session

_MENTION = re.compile(r'(?:^|(?<=\s))@(?:"([^"]+)"|(\S+))')
_TRAILING = ",.;:!?)]}'\""
MAX_MENTIONS = 10


def mentions(text: str) -> list[str]:
    """The `@path` tokens of `text`, in order, without duplicates (`@"a b.txt"` quotes)."""
    out: list[str] = []
    for m in _MENTION.finditer(text):
        token = m.group(1) or m.group(2)
        if token and token not in out:
            out.append(token)
    return out


def resolve_mention(token: str, cwd: Path) -> Path | None:
    """The file `token` names (trailing punctuation dropped when that names one), or None."""
    for candidate in (token, token.rstrip(_TRAILING)):
        if not candidate:
            continue
        path = Path(candidate).expanduser()
        path = path if path.is_absolute() else cwd / path
        try:
            if path.is_file():
                return path
        except OSError:
            continue
    return None


@dataclass
class Expansion:
    """What a prompt's mentions add to it."""

    context: list[str] = field(default_factory=list)
    images: list[ImageAttachment] = field(default_factory=list)
    attached: list[str] = field(default_factory=list)  # notes: "attached a.py"
    refused: list[str] = field(default_factory=list)  # notes: why a file was left out


def read_context(path: Path, content: str) -> str:
    """The model's view of an attached file: the Read call and its result."""
    call = json.dumps({"file_path": str(path)})
    return system_reminder(
        f"Called the Read tool with the following input: {call}\n\nResult of calling the Read tool:\n{content}"
    )


async def expand_mentions(
    session: Session,
    text: str,
    *,
    on_event: Callable[[Event], Awaitable[None]] | None = None,
) -> Expansion:
    """Read every file `text` mentions (at most `MAX_MENTIONS`) for the next message."""
    from skawld_core.tools.read import ReadTool

    cwd = session.agent.cwd
    result = Expansion()
    reader: Any = None if "Read" in session.tools else ReadTool()
    for token in mentions(text)[:MAX_MENTIONS]:
        path = resolve_mention(token, cwd)
        if path is None:
            await _attach_resource(session, token, result)
            continue
        shown = _shown(path, cwd)
        if path.suffix.lower() in IMAGE_SUFFIXES:
            if not session.agent.permissions.can_read(path.resolve()):
                result.refused.append(f"not attached: {shown} (a Read deny rule covers it)")
                continue
            try:
                result.images.append(load_image(path))
                result.attached.append(f"attached image {shown}")
            except ImageError as exc:
                result.refused.append(f"not attached: {exc}")
            continue
        block = await session.run_tool("Read", {"file_path": str(path)}, on_event=on_event, tool=reader)
        content = block.content if isinstance(block.content, str) else _text_of(block.content)
        if block.is_error:
            first = content.strip().splitlines()[0] if content.strip() else "denied"
            result.refused.append(f"not attached: {shown} ({first})")
            continue
        result.context.append(read_context(path, content))
        lines = content.count("\n") + 1 if content else 0
        result.attached.append(f"attached {shown} ({lines} line{'s' if lines != 1 else ''})")
    return result


async def _attach_resource(session: Session, token: str, result: Expansion) -> None:
    """`@server:uri`: an MCP server's resource, read and attached (anything else is left alone)."""
    server, sep, uri = token.rstrip(_TRAILING).partition(":")
    manager = cast("Agent", session.agent).extensions.mcp  # the app's sessions belong to an Agent
    if not sep or not uri or manager is None or server not in manager.connections:
        return
    from skawld_core.mcp.prompts import read_resource_text

    try:
        content = await read_resource_text(manager, server, uri)
    except Exception as exc:
        result.refused.append(f"not attached: {token} (the MCP server {server!r} said: {exc})")
        return
    result.context.append(system_reminder(f"The MCP server {server!r} resource {uri}:\n{content}"))
    result.attached.append(f"attached {server}:{uri} from the MCP server {server!r}")


def _shown(path: Path, cwd: Path) -> str:
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


def _text_of(parts: list[Any]) -> str:
    return "\n".join(getattr(p, "text", "[image]") for p in parts)
