"""Shell-command helpers on the tree-sitter analysis (`shell_analysis`).

These are small views of `analyze_shell` kept for callers and tests:
`split_bash_segments` (the simple commands as written), `shell_tokens` (decoded
words), `risky_construct` (why a command can never be allowed by a rule alone)
and `nested_commands` (commands inside substitutions, subshells, bodies…).
"""

from __future__ import annotations

from .shell_analysis import analyze_shell

__all__ = ["nested_commands", "risky_construct", "shell_tokens", "split_bash_segments"]


def split_bash_segments(command: str) -> list[str]:
    """The source text of each simple command written in `command`, stripped, in tree order.

    Commands nested in substitutions, subshells or bodies are included; commands
    only found by looking through wrappers or inline scripts are not.
    """
    return [c.source.strip() for c in analyze_shell(command).commands if not c.derived]


def shell_tokens(segment: str) -> list[str]:
    """The decoded words of the top-level simple commands of `segment`, in order.

    Quotes, escapes and `$'…'` are decoded; assignments, redirections and
    comments are dropped.
    """
    out: list[str] = []
    for cmd in analyze_shell(segment).commands:
        if cmd.top and not cmd.derived:
            out.extend(cmd.values)
    return out


def risky_construct(segment: str) -> str | None:
    """Why `segment` can never be allowed by a rule alone, or None if it can."""
    return analyze_shell(segment).blocker


def nested_commands(segment: str) -> list[str]:
    """The source text of each simple command that is not at the top level of `segment`."""
    return [c.source.strip() for c in analyze_shell(segment).commands if not c.top and not c.derived]
