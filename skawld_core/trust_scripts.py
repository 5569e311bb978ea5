"""The project files an accepted shell line runs, so that changing one is asked about again.

A command file's ``!`./scripts/status.sh` `` line, or its ``allowed-tools:
Bash(./scripts/status.sh)``, is accepted as text; what it runs is the script's
content, which a pull can rewrite. `scripts_digest` fingerprints the files such a
line names as the program it runs: a command word with a ``/`` in it
(``./x.sh``, ``tools/gen``) and the script argument of a known interpreter
(``sh x.sh``, ``python tools/gen.py``, ``node x.js``), looking through
wrappers (``env``, ``sudo``, ``time`` …) as the permission analysis does.

This list is not complete and cannot be: a program that reads its own files from
the project (``make`` and its ``Makefile``, ``npm run`` and ``package.json``,
``python -m pkg``) is not followed. The sandbox is what contains a command that
runs changed project code; this only makes the common case ask again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

__all__ = ["bash_rule_command", "ran_files", "scripts_digest"]

_INTERPRETERS = frozenset(
    {"sh", "bash", "dash", "zsh", "ksh", "fish", "node", "deno", "bun", "ruby", "perl", "php", "lua", "tclsh"}
    | {"python", "python2", "python3", "pypy", "pypy3", "Rscript", "osascript", "pwsh", "source", "."}
)
_HASH_LIMIT = 16 * 1024 * 1024  # a script larger than this is fingerprinted by its size and first 16 MiB


def bash_rule_command(tool: str) -> str | None:
    """The command text of an ``allowed-tools`` entry ``Bash(<command>)`` (a trailing
    ``:*`` or `` *`` wildcard dropped), or None for any other entry."""
    if not (tool.startswith("Bash(") and tool.endswith(")")):
        return None
    inner = tool[len("Bash(") : -1].strip()
    for wildcard in (":*", " *", "*"):
        if inner.endswith(wildcard):
            return inner[: -len(wildcard)].strip()
    return inner


def _interpreter(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return base in _INTERPRETERS or base.startswith("python3.")


def ran_files(line: str) -> list[str]:
    """The words of `line` that name a file it runs as a program (see the module docstring),
    as written, in order and without repeats. A line the analyzer cannot parse gives none."""
    from .permissions.shell_analysis import analyze_shell  # tree-sitter: only when a project has such lines

    named: list[str] = []
    for command in analyze_shell(line).commands:
        first, *rest = command.words
        if not first.literal:
            continue
        if "/" in first.value:
            named.append(first.value)
        elif _interpreter(first.value) and not any(w.value in ("-c", "-e", "-m") for w in rest):
            script = next((w for w in rest if not w.value.startswith("-")), None)
            if script is not None and script.literal:
                named.append(script.value)
    return list(dict.fromkeys(named))


def _file_digest(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            size = path.stat().st_size
            return f"{size}:{hashlib.sha256(handle.read(_HASH_LIMIT)).hexdigest()}"
    except FileNotFoundError:
        return "absent"
    except OSError as exc:  # a folder, a socket, no permission: its state is its error
        return f"unreadable:{type(exc).__name__}"


def scripts_digest(lines: Iterable[str], work: Path) -> str:
    """One digest of the files `lines` run (resolved from `work`), empty when they run none.
    A script that appears, changes or goes away changes the digest."""
    parts = [f"{word}={_file_digest(work / word)}" for line in lines for word in ran_files(line)]
    if not parts:
        return ""
    return hashlib.sha256("\0".join(sorted(set(parts))).encode()).hexdigest()
