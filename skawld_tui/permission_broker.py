"""One permission broker for the app and the plain mode (DESIGN decision 15).

`PermissionBroker.can_use_tool` is the agent's `can_use_tool`: it handles the plan
dialog (ExitPlanMode), the session's "allow for this session" answers and the
project's remembered rules, and asks the user only through a `PermissionAsker`
(the app's modal, the plain mode's prompt). What "always allow in this project"
would save is computed here (`suggest_rules`) and shown by the asker verbatim.

The rules are Claude Code's syntax, saved by `skawld_core.permissions.remembered`
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

import asyncio
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.permissions import CanUseToolRequest, PermissionAllow, PermissionDeny, PermissionEngine
    from skawld_core.permissions.shell_analysis import SimpleCommand

__all__ = [
    "PermissionAnswer",
    "PermissionAsker",
    "PermissionBroker",
    "PlanReply",
    "RuleOffer",
    "session_key",
    "suggest_rules",
]

Choice = Literal["allow", "always", "session", "deny"]


@dataclass(frozen=True)
class PermissionAnswer:
    """What the user decided: once, always in this project, for this session, or deny.

    `reason` goes to the model on deny; `interrupt` also stops the turn (Esc).
    """

    choice: Choice
    reason: str = ""
    interrupt: bool = False


@dataclass(frozen=True)
class RuleOffer:
    """What "always allow in this project" would save (`rules`), or why nothing can be (`why_not`)."""

    rules: tuple[str, ...] = ()
    why_not: str | None = None

    @property
    def text(self) -> str:
        """The rules as shown to the user: ``Bash(cd:*), Bash(npm test:*)``."""
        return ", ".join(self.rules)


class PlanReply(Protocol):
    """The plan dialog's answer (the app's `PlanAnswer`, or the plain mode's)."""

    @property
    def choice(self) -> str: ...

    @property
    def feedback(self) -> str: ...

    @property
    def interrupt(self) -> bool: ...


class PermissionAsker(Protocol):
    """The UI half of the broker: asks the user and reports back."""

    async def ask_permission(self, req: CanUseToolRequest, offer: RuleOffer) -> PermissionAnswer | None:
        """Ask about one call; `offer.rules` is what "always" saves (None: no answer)."""
        ...

    async def ask_plan(self, req: CanUseToolRequest) -> PlanReply | None:
        """Show an ExitPlanMode plan and ask how to go on (None: no answer)."""
        ...

    def interrupt(self) -> None:
        """The user asked to stop the turn too."""
        ...

    def notice(self, text: str, *, warning: bool = False) -> None:
        """Tell the user something (a rule was saved, or could not be)."""
        ...


def session_key(tool_name: str, tool_input: Mapping[str, Any]) -> tuple[str, ...]:
    """What "allow for this session" remembers: the tool, for Bash the exact command,
    for WebFetch the host."""
    from skawld_core.permissions.domains import call_host

    if tool_name == "Bash":
        return (tool_name, str(tool_input.get("command", "")))
    host = call_host(tool_name, tool_input)
    if host is not None:
        return (tool_name, host)
    return (tool_name,)


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
    from skawld_core.permissions.shell_analysis import analyze_shell

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
    from skawld_core.permissions.domains import NETWORK_TOOLS, call_host

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


# -- the broker ------------------------------------------------------------------------


class PermissionBroker:
    """The permission callback shared by the app and the plain mode.

    `agent` returns the running agent (None before it is built); `env` is where
    ``~/.skawld`` is (default: the process environment).
    """

    def __init__(
        self, asker: PermissionAsker, agent: Callable[[], Agent | None], *, env: Mapping[str, str] | None = None
    ) -> None:
        self.asker = asker
        self._agent = agent
        self.env = env
        self.session_allowed: set[tuple[str, ...]] = set()
        self._added: list[Any] = []  # rules saved during this session, as added to the engine
        self.lock = asyncio.Lock()  # one question at a time (AskUser shares it)

    # -- helpers ---------------------------------------------------------------------

    def _engine(self) -> PermissionEngine | None:
        agent = self._agent()
        return agent.permissions if agent is not None else None

    def _pending(self, req: CanUseToolRequest) -> Any:
        from skawld_core.permissions import PendingToolCall

        agent = self._agent()
        tool = agent.tools.get(req.tool_name) if agent is not None else None
        engine = self._engine()
        cwd = agent.cwd if agent is not None else (engine.project_root if engine else Path.cwd())
        return PendingToolCall(
            tool_name=req.tool_name,
            tool_use_id=req.tool_use_id,
            input=dict(req.input),
            summary=req.summary,
            scope=tool.scope if tool is not None else "exec",
            cwd=Path(cwd),
            path_policy=tool.path_policy if tool is not None else None,
        )

    def _allowed_now(self, req: CanUseToolRequest) -> bool:
        """Whether a rule saved during this session (while this call waited its turn) covers it.

        Only the saved rules count: a call the rules allowed all along was asked for another
        reason (a hook forced the question), and is asked."""
        from skawld_core.permissions import PermissionEngine

        engine = self._engine()
        if engine is None or not self._added:
            return False
        pending = self._pending(req)
        if engine.evaluate(pending).behavior != "allow":
            return False
        before = PermissionEngine(
            mode=engine.mode,
            rules=[r for r in engine.rules if r not in self._added],
            project_root=engine.project_root,
            additional_directories=engine.additional_directories,
        )
        return before.evaluate(pending).behavior != "allow"

    def offer(self, req: CanUseToolRequest) -> RuleOffer:
        """What "always" would save for `req`, checked against the engine: the rules
        must make it allow the call (an ask rule or a protected path would still ask)."""
        from skawld_core.permissions import PermissionEngine
        from skawld_core.permissions.claude_rules import parse_claude_rules

        engine = self._engine()
        if engine is None:
            return RuleOffer(why_not="the agent is not ready")
        agent = self._agent()
        cwd = Path(agent.cwd) if agent is not None else engine.project_root
        offer = suggest_rules(req.tool_name, req.input, project_root=engine.project_root, cwd=cwd)
        if not offer.rules:
            return offer
        try:
            parsed = parse_claude_rules(list(offer.rules), "allow").rules
            trial = PermissionEngine(
                mode="default" if engine.mode == "plan" else engine.mode,
                rules=[*engine.rules, *parsed],
                project_root=engine.project_root,
                additional_directories=engine.additional_directories,
            )
            decision = trial.evaluate(self._pending(req))
        except Exception as exc:  # a suggestion that cannot be checked is not offered
            return RuleOffer(why_not=f"the rule could not be checked ({exc})")
        if decision.behavior != "allow":
            return RuleOffer(why_not=f"a rule would not stop the question ({decision.reason or decision.behavior})")
        return offer

    def remember(self, rules: tuple[str, ...]) -> Path:
        """Save `rules` to the project's local settings and apply them to the running agent."""
        from skawld_core.permissions.claude_rules import parse_claude_rules
        from skawld_core.permissions.remembered import remember_allow_rules

        engine = self._engine()
        if engine is None:
            raise RuntimeError("the agent is not ready")
        path = remember_allow_rules(engine.project_root, rules, env=self.env)
        existing = set(engine.rules)
        for rule in parse_claude_rules(list(rules), "allow").rules:
            if rule not in existing:
                engine.add_rule(rule)
                self._added.append(rule)
        return path

    # -- the callback ----------------------------------------------------------------

    async def can_use_tool(self, req: CanUseToolRequest) -> PermissionAllow | PermissionDeny:
        """The agent's `can_use_tool`: plans, session answers, remembered rules, else ask."""
        from skawld_core.permissions import PermissionAllow, PermissionDeny
        from skawld_core.permissions.mode import EXIT_PLAN_MODE_TOOL

        if req.tool_name == EXIT_PLAN_MODE_TOOL:
            return await self._plan(req)
        key = session_key(req.tool_name, req.input)
        if key in self.session_allowed:
            return PermissionAllow()
        async with self.lock:
            if key in self.session_allowed or self._allowed_now(req):
                return PermissionAllow()
            offer = self.offer(req)
            answer = await self.asker.ask_permission(req, offer)
        if not isinstance(answer, PermissionAnswer):
            return PermissionDeny(message="The user did not answer.")
        if answer.interrupt:
            self.asker.interrupt()
        if answer.choice == "always" and offer.rules:
            try:
                path = self.remember(offer.rules)
            except Exception as exc:  # the call is still allowed once; the user is told why nothing stuck
                self.asker.notice(f"could not save {offer.text}: {exc}", warning=True)
            else:
                self.asker.notice(f"always allowed in this project: {offer.text} (saved to {_short(path)})")
            return PermissionAllow()
        if answer.choice == "session" or answer.choice == "always":
            self.session_allowed.add(key)
            return PermissionAllow()
        if answer.choice == "allow":
            return PermissionAllow()
        return PermissionDeny(message=answer.reason or "The user denied this tool call.")

    async def _plan(self, req: CanUseToolRequest) -> PermissionAllow | PermissionDeny:
        """ExitPlanMode: the plan question (never remembered: every plan is reviewed)."""
        from skawld_core.permissions import PermissionAllow, PermissionDeny

        from .plan_feedback import keep_planning_message

        async with self.lock:
            answer = await self.asker.ask_plan(req)
        if answer is None:
            return PermissionDeny(message="The user did not answer.")
        if answer.interrupt:
            self.asker.interrupt()
        if answer.choice == "approve":
            return PermissionAllow()
        if answer.choice == "accept_edits":
            return PermissionAllow(set_mode="acceptEdits")
        return PermissionDeny(message=keep_planning_message(answer.feedback))


def _short(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
