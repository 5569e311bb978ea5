"""Skill body substitution and the POSIX-like argument splitter (§2.15).

Substitution is a single pass over the body and never re-scans replaced text:
`${SKAWLD_SKILL_DIR}`, `${SKAWLD_SESSION_ID}`, `$ARGUMENTS` (the raw args) and
`$name` for declared arguments (the shell-split token at that position, or "").
Any other `$word` is left as is.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from pathlib import Path

__all__ = ["render_skill", "shell_split", "substitute", "substitute_command_args"]

_COMMAND_ARG = re.compile(r"\$(ARGUMENTS|[1-9])")
_PATTERN = re.compile(r"\$\{(SKAWLD_SKILL_DIR|SKAWLD_SESSION_ID)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def shell_split(text: str) -> list[str]:
    """Split like a shell: whitespace separates; '…' is literal; "…" allows
    backslash escapes; a backslash outside quotes escapes the next character; an
    unterminated quote absorbs the rest of the string."""
    tokens: list[str] = []
    current: list[str] = []
    in_token = False
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            if in_token:
                tokens.append("".join(current))
                current, in_token = [], False
            i += 1
            continue
        in_token = True
        if ch == "'":
            end = text.find("'", i + 1)
            end = n if end == -1 else end
            current.append(text[i + 1 : end])
            i = end + 1
        elif ch == '"':
            i += 1
            while i < n and text[i] != '"':
                if text[i] == "\\" and i + 1 < n and text[i + 1] in '"\\$`':
                    i += 1
                current.append(text[i])
                i += 1
            i += 1
        elif ch == "\\" and i + 1 < n:
            current.append(text[i + 1])
            i += 2
        else:
            current.append(ch)
            i += 1
    if in_token:
        tokens.append("".join(current))
    return tokens


def substitute(body: str, *, skill_dir: str, session_id: str, args: str, arguments: Sequence[str]) -> str:
    """Replace the placeholders of `body` in one pass."""
    tokens = shell_split(args) if arguments else []
    positions = {name: i for i, name in enumerate(arguments)}

    def replace(match: re.Match[str]) -> str:
        braced, word = match.group(1), match.group(2)
        if braced == "SKAWLD_SKILL_DIR":
            return skill_dir
        if braced == "SKAWLD_SESSION_ID":
            return session_id
        if word == "ARGUMENTS":
            return args
        if word in positions:
            index = positions[word]
            return tokens[index] if index < len(tokens) else ""
        return match.group(0)

    return _PATTERN.sub(replace, body)


def render_skill(body: str, *, skill_dir: Path | str, session_id: str, args: str, arguments: Sequence[str] = ()) -> str:
    """The Skill tool's result: the base-directory header, a blank line, the body."""
    directory = str(skill_dir)
    text = substitute(body, skill_dir=directory, session_id=session_id, args=args, arguments=arguments)
    return f"Skill base directory: {directory}\n\n{text}"


def substitute_command_args(body: str, args: str) -> str:
    """`$ARGUMENTS` and `$1`…`$9` of a command body (args shell-split); args a body does
    not place are appended, as Claude Code does."""
    try:
        words = shlex.split(args)  # a command splits as the shell does; unbalanced quotes: on spaces
    except ValueError:
        words = args.split()

    def replace(match: re.Match[str]) -> str:
        key = match.group(1)
        if key == "ARGUMENTS":
            return args
        index = int(key) - 1
        return words[index] if index < len(words) else ""

    out = _COMMAND_ARG.sub(replace, body)
    if args and "$ARGUMENTS" not in body and not re.search(r"\$[1-9]", body):
        out += f"\n\nARGUMENTS: {args}"  # Claude Code appends arguments a body does not place
    return out
