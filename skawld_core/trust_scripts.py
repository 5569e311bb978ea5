"""The project files an accepted shell line names, so that changing one is asked about again.

A command file's ``!`./scripts/status.sh` `` line, or its ``allowed-tools:
Bash(./scripts/status.sh)``, is accepted as text; what it runs is the script's
content, which a pull can rewrite. `scripts_digest` fingerprints every project file
the line names, however it names it: each run of the line's text between shell
punctuation (quotes, ``$``, ``=``, ``:``, redirections, pipes …) is taken as a path,
and so is each part of it after a ``/`` (``"$PWD"/scripts/x.sh``), from the
project's root and from every project folder the line names (``cd scripts &&
./x.sh``, ``env -C scripts``, ``PATH=./scripts:$PATH``); a glob is expanded
(``scripts/*.sh``, not a recursive ``**``); a named folder stands for its ``__main__.py`` (``python3
tools/app``). This over-approximates on purpose: a data file the line names
(``cat notes.txt``) is covered too, and its change asks again.

Not followed: what a named file reads in turn (a script that sources another, ``make``
and its ``Makefile``, ``npm run`` and ``package.json``, ``python -m pkg``) and a name
the line computes when it runs (``$(ls scripts | head -1)``). The sandbox is what
contains a command that runs changed project code; this makes the common cases ask.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from .trust import inside

__all__ = ["bash_rule_command", "named_files", "scripts_digest"]

_TOKEN = re.compile(r"[^\s'\"`;&|<>(){}$=:,\\]+")
_GLOB = re.compile(r"[*?\[]")
_GLOB_LIMIT = 200  # files a glob may stand for (a line naming `**/*` covers the first ones)
_HASH_LIMIT = 16 * 1024 * 1024  # a file larger than this is fingerprinted by its size and first 16 MiB


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


def _candidates(token: str) -> Iterator[str]:
    """`token` and each part of it after a ``/`` (what follows ``$PWD/`` or ``$(pwd)/``)."""
    yield token
    for at in (i for i, c in enumerate(token) if c == "/"):
        if at + 1 < len(token):
            yield token[at + 1 :]


def named_files(line: str, work: Path) -> list[Path]:
    """The project files `line` names (see the module docstring), in the order first named,
    as paths under `work` (a link in the project counts, wherever it points)."""
    root = os.path.normpath(work)
    tokens = [t for t in _TOKEN.findall(line) if not t.startswith("~")]
    folders = [root]
    for token in tokens:
        folder = os.path.normpath(os.path.join(root, token))
        if (
            not _GLOB.search(token)
            and inside(Path(folder), Path(root))
            and folder not in folders
            and os.path.isdir(folder)
        ):
            folders.append(folder)
    found: dict[str, None] = {}
    for token in tokens:
        for name in _candidates(token):
            for folder in folders:
                for path in _expand(folder, name):
                    if inside(Path(path), Path(root)):
                        found.setdefault(_as_file(path), None)
    return [Path(p) for p in found if p]


def _expand(folder: str, name: str) -> Iterable[str]:
    if not _GLOB.search(name):
        return [os.path.normpath(os.path.join(folder, name))]
    if os.path.isabs(name) or "**" in name:  # a recursive glob would walk the whole project at every start
        return []
    matches = sorted(str(p) for p in Path(folder).glob(name))[:_GLOB_LIMIT]
    return [os.path.normpath(m) for m in matches]


def _as_file(path: str) -> str:
    """`path` when it is a file, a folder's `__main__.py` (what python runs for it), or ""."""
    if os.path.isdir(path):
        main = os.path.join(path, "__main__.py")
        return main if os.path.isfile(main) else ""
    return path if os.path.lexists(path) else ""


def _file_digest(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            size = path.stat().st_size
            return f"{size}:{hashlib.sha256(handle.read(_HASH_LIMIT)).hexdigest()}"
    except FileNotFoundError:
        return "absent"
    except OSError as exc:  # a socket, a dangling link, no permission: its state is its error
        return f"unreadable:{type(exc).__name__}"


def scripts_digest(lines: Iterable[str], work: Path) -> str:
    """One digest of the project files `lines` name (from `work`), empty when they name
    none. A named file that changes or goes away, or a name that comes to be a file (a
    script a pull adds), changes the digest."""
    parts = {f"{path}={_file_digest(path)}" for line in lines for path in named_files(line, work)}
    if not parts:
        return ""
    return hashlib.sha256("\0".join(sorted(parts)).encode("utf-8", "surrogateescape")).hexdigest()
