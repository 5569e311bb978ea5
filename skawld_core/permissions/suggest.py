"""What "always allow in this project" saves for one call: `suggest_rules` and its `RuleOffer`.

Security policy: which Claude Code rule is safe to offer as "always" for a call the
user is asked about. The rules are Claude Code's syntax, saved by `skawld_core.permissions.remembered`
into ``.claude/settings.local.json`` and added to the running engine at once:

- Bash: one prefix rule per simple command, the command name plus its subcommand
  words (``Bash(npm run test:*)``, ``Bash(git log:*)``, ``Bash(ls:*)``); programs
  that run arbitrary code from their arguments (interpreters, wrappers, ``find``,
  ``rm``…) get the exact command instead; commands a rule cannot allow
  (substitutions, redirections to files, variables, commands run through a
  wrapper) are offered "once" and "this session" only;
- Edit / Write inside the project: the file's directory (``Edit(src/**)``), or
  the file itself at the project root;
- Read: the file's directory inside the project, the file itself outside it
  (``Read(//etc/hosts)``); Glob / Grep: the directory, never home or above it;
- Skill: ``Skill(name)``; anything else: the tool name.

A suggestion is only offered when the engine, with it added, would allow the call.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .domains import NETWORK_TOOLS, call_host
from .shell_analysis import SimpleCommand, analyze_shell

__all__ = ["RuleOffer", "suggest_rules"]


@dataclass(frozen=True)
class RuleOffer:
    """What "always allow in this project" would save (`rules`), or why nothing can be (`why_not`)."""

    rules: tuple[str, ...] = ()
    why_not: str | None = None

    @property
    def text(self) -> str:
        """The rules as shown to the user: ``Bash(cd:*), Bash(npm test:*)``."""
        return ", ".join(self.rules)


# -- suggestions -----------------------------------------------------------------------

# Programs whose subcommand words belong to the prefix (`git log`, `docker compose up`).
_SUBCOMMAND_DEPTH = {
    "git": 1, "npm": 1, "pnpm": 1, "yarn": 1, "bun": 1, "cargo": 1, "go": 1, "uv": 1, "poetry": 1,
    "pip": 1, "pip3": 1, "docker": 2, "podman": 2, "kubectl": 1, "gh": 2, "make": 1, "just": 1,
    "dotnet": 1, "terraform": 1, "helm": 1, "brew": 1, "apt": 1, "apt-get": 1, "systemctl": 1,
    "rustup": 1, "deno": 1, "mvn": 1, "gradle": 1, "./gradlew": 1, "composer": 1, "conda": 1,
    "hatch": 1, "tox": 0, "pre-commit": 1, "ruff": 1, "mypy": 0, "pytest": 0,
}  # fmt: skip
# `npm run <script>`: the script name is part of the prefix too.
_RUN_WORDS = frozenset({"run", "run-script", "exec", "x", "dlx"})
# Programs that run anything their arguments say: only the exact command is offered.
_EXACT_ONLY = frozenset(
    {"bash", "sh", "zsh", "dash", "fish", "ksh", "python", "python2", "python3", "node", "perl", "ruby", "php"}
    | {"lua", "env", "sudo", "doas", "su", "xargs", "eval", "exec", "nohup", "nice", "timeout", "time", "watch"}
    | {"ssh", "find", "awk", "gawk", "sed", "rm", "dd", "chmod", "chown", "source", ".", "command", "builtin"}
    | {"npx", "bunx", "busybox", "flock", "script", "parallel", "git-shell", "osascript"}
)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@+=-]*")
_NAME = re.compile(r"[A-Za-z0-9_./+-]+")
_PATH_SAFE = re.compile(r"[A-Za-z0-9_.@+/-]+")
_EXACT_MAX = 200
_INTERPRETERS = frozenset({"python", "python2", "python3"})


def _prefix(cmd: SimpleCommand) -> str | None:
    """The prefix words of one simple command (``npm run test``), or None: offer it exactly."""
    words = cmd.values
    name = words[0]
    base = os.path.basename(name)
    if _NAME.fullmatch(name) is None:
        return None
    if base in _INTERPRETERS and len(words) >= 3 and words[1] == "-m" and _WORD.fullmatch(words[2]):
        return " ".join(words[:3])  # python -m pytest
    if base in _EXACT_ONLY:
        return None
    depth = _SUBCOMMAND_DEPTH.get(base)
    if depth is None:
        return name
    out = [name]
    for word in words[1 : 1 + depth]:
        if _WORD.fullmatch(word) is None or word.startswith("-"):
            break
        out.append(word)
    if len(out) > 1 and out[-1] in _RUN_WORDS and len(words) > len(out) and _WORD.fullmatch(words[len(out)]):
        out.append(words[len(out)])
    if depth and len(out) == 1:
        return None  # `git -c x=y push`: an option before the subcommand; `git:*` would allow every git
    if os.path.basename(out[-1]) in _EXACT_ONLY:
        return None  # `uv run python …`
    return " ".join(out)


def _bash_rules(command: str) -> tuple[tuple[str, ...], str | None]:
    analysis = analyze_shell(command)
    if analysis.blocker is not None:
        return (), f"it has {analysis.blocker}, which no rule can allow"
    # derived commands without `via` are the same command named by its basename (`./x` → `x`)
    derived = next((c for c in analysis.commands if c.derived and c.via), None)
    if derived is not None:
        return (), f"it runs another command through {derived.via}"
    rules: list[str] = []
    for cmd in (c for c in analysis.commands if not c.derived):
        prefix = _prefix(cmd)
        if prefix is not None:
            rules.append(f"Bash({prefix}:*)")
            continue
        exact = " ".join(cmd.source.split())
        if len(exact) > _EXACT_MAX or any(c in exact for c in "*()\n"):
            return (), f"`{exact[:60]}` cannot be written as a rule"
        rules.append(f"Bash({exact})")
    if not rules:
        return (), "it runs no command"
    return tuple(dict.fromkeys(rules)), None


def _path_rule(tool: str, target: str, cwd: Path, root: Path, *, is_dir: bool) -> tuple[tuple[str, ...], str | None]:
    real = Path(os.path.realpath(os.path.join(str(cwd), os.path.expanduser(target))))
    folder = real if is_dir else real.parent
    try:
        rel: str | None = folder.relative_to(os.path.realpath(root)).as_posix()
    except ValueError:
        rel = None
    if rel is None:
        if tool == "Edit":
            return (), f"{real} is outside the project"
        # `//abs/…`: Claude Code's absolute form; a file outside is allowed by itself, a directory
        # only when it is not the home directory or above it (that would cover ~/.ssh and the like)
        if not is_dir:
            spec = f"/{real.as_posix()}"
        elif Path.home().resolve().is_relative_to(folder):
            return (), f"a rule for all of {folder} is too wide"
        else:
            spec = f"/{folder.as_posix()}/**"
    elif rel == ".":
        spec = "./**" if is_dir else f"./{real.name}"
    else:
        spec = f"{rel}/**"
    if _PATH_SAFE.fullmatch(spec.replace("*", "")) is None:
        return (), f"{real} has characters a path rule cannot hold"
    return (f"{tool}({spec})",), None


def suggest_rules(
    tool_name: str, tool_input: Mapping[str, Any], *, project_root: Path, cwd: Path | None = None
) -> RuleOffer:
    """The Claude Code rules "always allow in this project" would save for this call.

    See the module docstring; `why_not` says why nothing can be offered.
    """
    cwd = cwd or project_root
    rules: tuple[str, ...]
    why: str | None
    if tool_name == "Bash":
        command = tool_input.get("command")
        if not isinstance(command, str) or not command.strip():
            return RuleOffer(why_not="the command is empty")
        rules, why = _bash_rules(command)
    elif tool_name in ("Edit", "Write"):
        target = tool_input.get("file_path")
        if not isinstance(target, str) or not target:
            return RuleOffer(why_not="the call names no file")
        rules, why = _path_rule("Edit", target, cwd, project_root, is_dir=False)
    elif tool_name in ("Read", "Glob", "Grep"):
        key = "file_path" if tool_name == "Read" else "path"
        target = tool_input.get(key) or str(cwd)
        if not isinstance(target, str):
            return RuleOffer(why_not="the call names no path")
        rules, why = _path_rule("Read", target, cwd, project_root, is_dir=tool_name != "Read")
    elif tool_name in NETWORK_TOOLS:
        host = call_host(tool_name, tool_input)
        if host is None:
            return RuleOffer(why_not="the call names no host")
        rules, why = (f"{tool_name}(domain:{host})",), None
    elif tool_name == "Skill" and isinstance(tool_input.get("skill"), str):
        skill = str(tool_input["skill"]).lstrip("/")
        if _WORD.fullmatch(skill) is None:
            return RuleOffer(why_not="the skill name cannot be written as a rule")
        rules, why = (f"Skill({skill})",), None
    elif _NAME.fullmatch(tool_name) and "/" not in tool_name:
        rules, why = (tool_name,), None
    else:
        return RuleOffer(why_not=f"{tool_name!r} cannot be written as a rule")
    return RuleOffer(rules=rules) if why is None else RuleOffer(why_not=why)
